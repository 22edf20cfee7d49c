//! The members of a JSON object read without building it: each key (borrowed unless it has
//! escapes) with its value's text, for usage objects that may hold a million members.
//!
//! The text is JSON that was parsed already (a payload's `RawValue`, or a value this reader
//! found in one), so finding where each value ends is all that is left to do: strings are
//! skipped to their closing quote, objects and arrays to their closing bracket, without checking
//! again what the parse checked. Given text that is not JSON it never panics, and gives `None`
//! or members of no use.

use std::borrow::Cow;

/// The members of a JSON object's text, borrowed from it (a key with escapes is decoded): `None`
/// when the text is not an object. A repeated key is listed each time; the last one counts.
pub(crate) fn object_members(text: &str) -> Option<Vec<(Cow<'_, str>, &str)>> {
    let bytes = text.as_bytes();
    let mut at = skip_whitespace(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    at = skip_whitespace(bytes, at + 1);
    let mut members = Vec::new();
    if bytes.get(at) == Some(&b'}') {
        return (skip_whitespace(bytes, at + 1) == bytes.len()).then_some(members);
    }
    // A member is at least `"":0,`: enough room for all of them, never much more.
    members.reserve((bytes.len() / 8).min(64));
    loop {
        let (key_end, escaped) = escaped_string_end(bytes, at)?;
        let key = key_text(text.get(at..key_end)?, escaped)?;
        at = skip_whitespace(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        at = skip_whitespace(bytes, at + 1);
        let value_end = value_end(bytes, at)?;
        members.push((key, text.get(at..value_end)?));
        at = skip_whitespace(bytes, value_end);
        match bytes.get(at) {
            Some(b',') => at = skip_whitespace(bytes, at + 1),
            Some(b'}') => break,
            _ => return None,
        }
    }
    (skip_whitespace(bytes, at + 1) == bytes.len()).then_some(members)
}

/// A key's text from its literal (quotes included): borrowed, or decoded when it has escapes.
fn key_text(literal: &str, escaped: bool) -> Option<Cow<'_, str>> {
    if escaped {
        return serde_json::from_str(literal).ok().map(Cow::Owned);
    }
    literal
        .get(1..literal.len().checked_sub(1)?)
        .map(Cow::Borrowed)
}

fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// Where the string opening at `at` ends: just after its closing quote.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    escaped_string_end(bytes, at).map(|(end, _)| end)
}

/// [`string_end`], and whether the string has an escape.
fn escaped_string_end(bytes: &[u8], at: usize) -> Option<(usize, bool)> {
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let mut at = at + 1;
    let mut escaped = false;
    loop {
        at += memchr::memchr2(b'"', b'\\', bytes.get(at..)?)?;
        match bytes[at] {
            b'"' => return Some((at + 1, escaped)),
            _ => {
                escaped = true;
                at += 2;
            }
        }
    }
}

/// Where the value starting at `at` ends: after its closing quote or bracket, or before the
/// delimiter that follows a number or a literal.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => string_end(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut at = at;
            loop {
                match bytes.get(at)? {
                    b'"' => {
                        at = string_end(bytes, at)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(at + 1);
                        }
                    }
                    _ => {}
                }
                at += 1;
            }
        }
        _ => {
            let length = bytes[at..]
                .iter()
                .position(|byte| matches!(byte, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(bytes.len() - at);
            (length > 0).then_some(at + length)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::object_members;
    use proptest::prelude::*;
    use serde_json::{Map, Value};

    /// The members serde finds, in order (a repeated key each time).
    fn serde_members(text: &str) -> Option<Vec<(String, Value)>> {
        let object: Map<String, Value> = serde_json::from_str(text).ok()?;
        Some(object.into_iter().collect())
    }

    fn read(text: &str) -> Option<Vec<(String, Value)>> {
        let members = object_members(text)?;
        Some(
            members
                .into_iter()
                .map(|(key, value)| (key.into_owned(), serde_json::from_str(value).unwrap()))
                .collect(),
        )
    }

    #[test]
    fn members_of_parsed_objects_are_their_keys_and_value_texts() {
        let text = r#" { "a" : 1 , "b\"c":"x\\\"}" ,"d":{"e":[1,{"f":"]"}],"g":null},"h":-1.5e3,"i":true,"j":[] } "#;
        let members = object_members(text).unwrap();
        let keys: Vec<&str> = members.iter().map(|(key, _)| key.as_ref()).collect();
        assert_eq!(keys, ["a", "b\"c", "d", "h", "i", "j"]);
        let values: Vec<&str> = members.iter().map(|(_, value)| *value).collect();
        assert_eq!(
            values,
            [
                "1",
                r#""x\\\"}""#,
                r#"{"e":[1,{"f":"]"}],"g":null}"#,
                "-1.5e3",
                "true",
                "[]"
            ]
        );
        assert_eq!(read(text), serde_members(text));
        assert_eq!(object_members("{}").unwrap(), []);
        assert_eq!(object_members(" {\n} ").unwrap(), []);
        let repeated = object_members(r#"{"a":1,"a":2}"#).unwrap();
        assert_eq!(repeated.len(), 2);
    }

    #[test]
    fn what_is_no_object_has_no_members() {
        for text in [
            "",
            "[]",
            "1",
            "\"a\"",
            "null",
            "{",
            "{\"a\"",
            "{\"a\":",
            "{\"a\":1",
            "{\"a\":1,",
            "{\"a\" 1}",
            "{\"a\":1}x",
            "{1:2}",
            "{\"a\":\"b}",
        ] {
            assert_eq!(object_members(text), None, "{text}");
        }
    }

    proptest! {
        /// Whatever object serde writes, its members read back as serde reads them.
        #[test]
        fn objects_serde_writes_read_back_member_by_member(
            object in proptest::collection::btree_map(
                ".{0,6}",
                prop_oneof![
                    any::<u64>().prop_map(Value::from),
                    any::<i32>().prop_map(Value::from),
                    any::<f64>().prop_filter("finite", |x| x.is_finite()).prop_map(Value::from),
                    ".{0,12}".prop_map(Value::from),
                    Just(Value::Null),
                    any::<bool>().prop_map(Value::from),
                    proptest::collection::vec(".{0,4}", 0..3).prop_map(|v| serde_json::json!({"x": v, "y": [v.len()]})),
                ],
                0..8,
            ),
            pretty in any::<bool>(),
        ) {
            let text = if pretty {
                serde_json::to_string_pretty(&object).unwrap()
            } else {
                serde_json::to_string(&object).unwrap()
            };
            prop_assert_eq!(read(&text), serde_members(&text));
        }

        /// Text that is not JSON never panics.
        #[test]
        fn any_text_is_read_without_panicking(text in r#"[{}\[\]",:\\ a1]{0,24}"#) {
            let _ = object_members(&text);
        }
    }
}
