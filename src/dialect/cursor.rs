//! A hand-written reader for the few payload shapes that make up nearly all of a long stream: a
//! text or argument fragment beside a couple of small fields. serde's derive spends most of its
//! time on generic machinery around those few fields; reading them directly costs a fraction.
//!
//! It reads a strict subset of JSON: anything else — a value type it does not expect, an escape
//! in a key, a number with a sign or a fraction, a lone surrogate — makes it give up (`None`),
//! and the dialect then parses the payload the general way. So whatever it accepts is JSON that
//! serde reads to the same values, and every error still comes from the general parse.

/// Where a string read by [`Cursor::string`] ended up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scanned<'a> {
    /// It had no escapes: borrowed from the payload.
    Borrowed(&'a str),
    /// It had escapes: decoded into the scratch buffer the caller passed.
    Decoded,
}

impl<'a> Scanned<'a> {
    /// The string's text, from the payload or from `scratch`.
    pub fn resolve<'s>(self, scratch: &'s str) -> &'s str
    where
        'a: 's,
    {
        match self {
            Scanned::Borrowed(text) => text,
            Scanned::Decoded => scratch,
        }
    }
}

/// A position in a JSON payload.
pub(crate) struct Cursor<'a> {
    data: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a str) -> Self {
        Cursor { data, at: 0 }
    }

    /// How far it has read, in bytes.
    pub fn position(&self) -> usize {
        self.at
    }

    /// How many bytes are left to read.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.at
    }

    /// The text read since `start` (a [`position`](Self::position) taken earlier).
    pub fn since(&self, start: usize) -> &'a str {
        self.data.get(start..self.at).unwrap_or_default()
    }

    /// The next byte, not consumed.
    pub fn peek(&self) -> Option<u8> {
        self.data.as_bytes().get(self.at).copied()
    }

    /// Consumes `literal` if the input continues with it.
    pub fn eat(&mut self, literal: &str) -> bool {
        let matches = self.data.as_bytes()[self.at..].starts_with(literal.as_bytes());
        if matches {
            self.at += literal.len();
        }
        matches
    }

    /// Skips JSON whitespace (space, tab, line feed, carriage return).
    pub fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// Whether only whitespace is left.
    pub fn at_end(&mut self) -> bool {
        self.skip_whitespace();
        self.at == self.data.len()
    }

    /// `true` or `false`.
    pub fn boolean(&mut self) -> Option<bool> {
        if self.eat("true") {
            Some(true)
        } else if self.eat("false") {
            Some(false)
        } else {
            None
        }
    }

    /// An unsigned integer as JSON writes one: digits without a leading zero, no sign, fraction
    /// or exponent (the next byte must then be a delimiter, which the caller checks).
    pub fn count(&mut self) -> Option<u64> {
        let digits = &self.data.as_bytes()[self.at..];
        let length = digits
            .iter()
            .take_while(|byte| byte.is_ascii_digit())
            .count();
        if length == 0 || (length > 1 && digits[0] == b'0') {
            return None;
        }
        let value = digits[..length].iter().try_fold(0u64, |value, digit| {
            value.checked_mul(10)?.checked_add(u64::from(digit - b'0'))
        })?;
        self.at += length;
        Some(value)
    }

    /// A string without escapes or an unsigned integer, as its JSON text (quotes included).
    pub fn scalar_literal(&mut self) -> Option<&'a str> {
        let start = self.at;
        match self.peek()? {
            b'"' => {
                self.plain_string()?;
            }
            _ => {
                self.count()?;
            }
        }
        Some(&self.data[start..self.at])
    }

    /// A string without escapes, borrowed (keys and identifiers).
    pub fn plain_string(&mut self) -> Option<&'a str> {
        match self.string_segment()? {
            (text, b'"') => Some(text),
            _ => None,
        }
    }

    /// A string, borrowed when it has no escapes, else decoded into `scratch` (cleared first).
    pub fn string(&mut self, scratch: &mut String) -> Option<Scanned<'a>> {
        let (first, end) = self.string_segment()?;
        if end == b'"' {
            return Some(Scanned::Borrowed(first));
        }
        scratch.clear();
        scratch.push_str(first);
        loop {
            self.escape(scratch)?;
            let (segment, end) = self.segment()?;
            scratch.push_str(segment);
            if end == b'"' {
                return Some(Scanned::Decoded);
            }
        }
    }

    /// Skips a value of a member the caller does not read: a string, an unsigned integer,
    /// `null`, `true`, `false` or an empty array.
    pub fn skip_value(&mut self) -> Option<()> {
        let skipped = match self.peek()? {
            b'"' => self.string(&mut String::new()).is_some(),
            b'0'..=b'9' => self.count().is_some(),
            b'n' => self.eat("null"),
            b't' => self.eat("true"),
            b'f' => self.eat("false"),
            b'[' => {
                self.at += 1;
                self.skip_whitespace();
                self.eat("]")
            }
            _ => false,
        };
        skipped.then_some(())
    }

    /// Opens a string: the text up to its first quote or backslash, and which one it was.
    #[inline(always)]
    fn string_segment(&mut self) -> Option<(&'a str, u8)> {
        if self.peek()? != b'"' {
            return None;
        }
        self.at += 1;
        self.segment()
    }

    /// The text up to the next quote or backslash, which is consumed and returned. Control
    /// characters are not allowed in a JSON string.
    #[inline(always)]
    fn segment(&mut self) -> Option<(&'a str, u8)> {
        let bytes = self.data.as_bytes();
        let end = self.at + first_stop(&bytes[self.at..])?;
        let stop = bytes[end];
        if stop < 0x20 {
            return None;
        }
        // A quote and a backslash are ASCII, so `end` is a character boundary.
        let text = &self.data[self.at..end];
        self.at = end + 1;
        Some((text, stop))
    }

    /// Decodes the escape after a backslash.
    fn escape(&mut self, out: &mut String) -> Option<()> {
        let decoded = match self.peek()? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                self.at += 1;
                let unit = self.hex4()?;
                let code = match unit {
                    0xD800..=0xDBFF => {
                        if !self.eat("\\u") {
                            return None;
                        }
                        let low = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return None;
                        }
                        0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    }
                    // A lone low surrogate: serde's error, through the general parse.
                    0xDC00..=0xDFFF => return None,
                    _ => unit,
                };
                out.push(char::from_u32(code)?);
                return Some(());
            }
            _ => return None,
        };
        self.at += 1;
        out.push(decoded);
        Some(())
    }

    /// Four hex digits of a `\u` escape.
    fn hex4(&mut self) -> Option<u32> {
        let digits = self.data.as_bytes().get(self.at..self.at + 4)?;
        let value = digits.iter().try_fold(0u32, |value, &digit| {
            Some(value * 16 + char::from(digit).to_digit(16)?)
        })?;
        self.at += 4;
        Some(value)
    }
}

/// Reads an object, handing each member's key to `read_value` with the cursor at its value
/// (whitespace skipped); `None` as soon as `read_value` gives up or the object is not plain
/// JSON punctuation around plain keys.
pub(crate) fn for_each_member<'a>(
    cursor: &mut Cursor<'a>,
    mut read_value: impl FnMut(&mut Cursor<'a>, &'a str) -> Option<()>,
) -> Option<()> {
    cursor.skip_whitespace();
    if !cursor.eat("{") {
        return None;
    }
    cursor.skip_whitespace();
    if cursor.eat("}") {
        return Some(());
    }
    read_one_member(cursor, &mut read_value)?;
    for_each_later_member(cursor, read_value)
}

/// Reads the rest of an object after one of its members, `(, member)* }`, as
/// [`for_each_member`] does.
pub(crate) fn for_each_later_member<'a>(
    cursor: &mut Cursor<'a>,
    mut read_value: impl FnMut(&mut Cursor<'a>, &'a str) -> Option<()>,
) -> Option<()> {
    loop {
        cursor.skip_whitespace();
        if cursor.eat("}") {
            return Some(());
        }
        if !cursor.eat(",") {
            return None;
        }
        read_one_member(cursor, &mut read_value)?;
    }
}

/// A plain key, its colon, and its value read by `read_value`.
fn read_one_member<'a>(
    cursor: &mut Cursor<'a>,
    read_value: &mut impl FnMut(&mut Cursor<'a>, &'a str) -> Option<()>,
) -> Option<()> {
    cursor.skip_whitespace();
    let key = cursor.plain_string()?;
    cursor.skip_whitespace();
    if !cursor.eat(":") {
        return None;
    }
    cursor.skip_whitespace();
    read_value(cursor, key)
}

/// Fills an empty slot; `None` if it was filled already (serde refuses a repeated member).
pub(crate) fn set_once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    match slot {
        Some(_) => None,
        None => {
            *slot = Some(value);
            Some(())
        }
    }
}

/// Where the first quote, backslash or control character is: eight bytes at a time with the
/// "has a zero byte" trick (as serde_json does), the last few one by one. Payload strings are
/// short, where this beats a vectorised search and its setup.
#[inline(always)]
fn first_stop(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let mut at = 0;
    while let Some(word) = bytes.get(at..at + 8) {
        let mut eight = [0; 8];
        eight.copy_from_slice(word);
        let word = u64::from_le_bytes(eight);
        let quote = word ^ (ONES * u64::from(b'"'));
        let backslash = word ^ (ONES * u64::from(b'\\'));
        // In each mask the lowest flagged byte is exact; flags above it may be spurious, but
        // they sit above a real stop, so the lowest flag of all three is the first stop.
        let flagged = ((quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (word.wrapping_sub(ONES * 0x20) & !word))
            & (ONES << 7);
        if flagged != 0 {
            return Some(at + flagged.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    let tail = bytes[at..]
        .iter()
        .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)?;
    Some(at + tail)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// What the cursor reads from `json`, decoded.
    fn read_string(json: &str) -> Option<String> {
        let mut scratch = String::new();
        let mut cursor = Cursor::new(json);
        let scanned = cursor.string(&mut scratch)?;
        cursor
            .at_end()
            .then(|| scanned.resolve(&scratch).to_owned())
    }

    #[test]
    fn strings_read_as_serde_reads_them() {
        let cases = [
            r#""plain""#,
            r#""""#,
            r#""caf\u00e9 \"quoted\" back\\slash \/ \b\f\n\r\t""#,
            r#""emoji \ud83d\ude00 and \u0000""#,
            "\"raw é and 😀\"",
            r#""\\""#,
            r#""a\"""#,
        ];
        for json in cases {
            let expected: String = serde_json::from_str(json).unwrap();
            assert_eq!(read_string(json), Some(expected), "{json}");
        }
    }

    #[test]
    fn anything_doubtful_is_left_to_serde() {
        let cases = [
            r#""lone high \ud83d""#,
            r#""lone high \ud83d\u0041""#,
            r#""lone low \ude00""#,
            r#""bad escape \x""#,
            r#""short \u12""#,
            "\"control \u{1} character\"",
            r#""unterminated"#,
            r#""ends in a backslash\"#,
            "plain",
        ];
        for json in cases {
            assert_eq!(read_string(json), None, "{json}");
            // Its general parse then reports serde's error.
            assert!(serde_json::from_str::<String>(json).is_err(), "{json}");
        }
    }

    #[test]
    fn the_first_stop_is_found_at_every_position() {
        for stop in [b'"', b'\\', 0, 0x1f] {
            for length in 0..20 {
                for at in 0..=length {
                    let mut bytes = vec![b'a'; length];
                    // Bytes that resemble a stop to a careless bit trick.
                    bytes.iter_mut().step_by(3).for_each(|byte| *byte = 0xa2);
                    bytes
                        .iter_mut()
                        .skip(1)
                        .step_by(5)
                        .for_each(|byte| *byte = b'#');
                    let expected = (at < length).then_some(at);
                    if at < length {
                        bytes[at] = stop;
                        // A second stop after the first must not matter.
                        if at + 1 < length {
                            bytes[at + 1] = b'"';
                        }
                    }
                    assert_eq!(first_stop(&bytes), expected, "{bytes:?}");
                }
            }
        }
    }

    #[test]
    fn counts_are_plain_unsigned_integers() {
        let count = |json: &str| Cursor::new(json).count();
        assert_eq!(count("0"), Some(0));
        assert_eq!(count("42,"), Some(42));
        assert_eq!(count("18446744073709551615"), Some(u64::MAX));
        assert_eq!(count("18446744073709551616"), None);
        assert_eq!(count("01"), None);
        assert_eq!(count("-1"), None);
        assert_eq!(count("x"), None);
    }

    #[test]
    fn plain_strings_refuse_escapes() {
        assert_eq!(Cursor::new(r#""type":"#).plain_string(), Some("type"));
        assert_eq!(Cursor::new(r#""t\u0079pe""#).plain_string(), None);
    }

    #[test]
    fn skipped_values_are_a_known_few() {
        for json in [r#""s\n""#, "12", "null", "true", "false", "[ ]"] {
            let mut cursor = Cursor::new(json);
            assert_eq!(cursor.skip_value(), Some(()), "{json}");
            assert!(cursor.at_end(), "{json}");
        }
        for json in ["[1]", "{}", "-1", "nul"] {
            assert_eq!(Cursor::new(json).skip_value(), None, "{json}");
        }
    }

    proptest! {
        #[test]
        fn any_string_serde_writes_reads_back(text in any::<String>()) {
            let json = serde_json::to_string(&text).unwrap();
            prop_assert_eq!(read_string(&json), Some(text));
        }

        #[test]
        fn escape_heavy_strings_read_as_serde_reads_them_or_not_at_all(
            body in r#"([a-f0-9DE]|\\\\|\\u|\\["/bfnrtx]|[\x00-\x1f]|é|😀){0,24}"#,
        ) {
            let json = format!("\"{body}\"");
            if let Some(read) = read_string(&json) {
                prop_assert_eq!(serde_json::from_str::<String>(&json).ok(), Some(read));
            }
        }
    }
}
