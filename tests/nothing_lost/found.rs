//! Where a leaf may be found: everything the assembled output holds (each message's serde form,
//! the LangChain dict `--json` prints, and the provider's error object), indexed once so that
//! looking up every leaf of a stream stays linear in practice: the strings (values and keys) in
//! a set and in one haystack searched with `memchr::memmem` (a delta fragment is found as part of
//! the text it joined), numbers and `key: bool` pairs in sets, and two copies of the whole output
//! for fragments of JSON text (tool arguments streamed as text, kept parsed): one normalised to
//! its values, one as JSON text with its escapes, whitespace removed (a fragment that begins
//! inside an escape, `n    return` after a fragment that ended in `\`).

use std::collections::{HashMap, HashSet};

use memchr::memmem;
use serde_json::Value;

use super::leaves::{canonical_number, LeafValue};

/// How a leaf was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// As an output string, or part of one.
    String,
    /// As JSON text: a fragment of arguments kept parsed.
    JsonText,
    /// As an equal number.
    Number,
    /// As the same key with the same boolean value.
    Bool,
}

pub struct Output {
    strings: HashSet<String>,
    haystack: Vec<u8>,
    normalised: Vec<u8>,
    /// The output as JSON text, escapes kept, whitespace outside and inside strings removed.
    escaped: Vec<u8>,
    numbers: HashSet<String>,
    bools: HashSet<(String, bool)>,
    /// Per leaf path, where its last fragment was found: the next one of the same text is
    /// usually right after it, so a long text's deltas are not each searched from the start.
    cursors: HashMap<String, usize>,
}

impl Output {
    pub fn new(values: &[Value]) -> Self {
        let mut output = Output {
            strings: HashSet::new(),
            haystack: Vec::new(),
            normalised: Vec::new(),
            escaped: Vec::new(),
            numbers: HashSet::new(),
            bools: HashSet::new(),
            cursors: HashMap::new(),
        };
        for value in values {
            output.index(value, "");
            let text = value.to_string();
            output
                .normalised
                .extend_from_slice(normalise(&text).as_bytes());
            output.normalised.push(0);
            output.escaped.extend(without_whitespace(&text));
            output.escaped.push(0);
        }
        output
    }

    fn index(&mut self, value: &Value, key: &str) {
        match value {
            Value::Bool(flag) => {
                self.bools.insert((key.to_owned(), *flag));
            }
            Value::Number(number) => {
                self.numbers.insert(canonical_number(number));
            }
            Value::String(text) => self.add_string(text),
            Value::Array(items) => items.iter().for_each(|item| self.index(item, key)),
            Value::Object(members) => {
                for (name, member) in members {
                    self.add_string(name);
                    self.index(member, name);
                }
            }
            Value::Null => {}
        }
    }

    fn add_string(&mut self, text: &str) {
        if self.strings.insert(text.to_owned()) {
            self.haystack.extend_from_slice(text.as_bytes());
            self.haystack.push(0);
        }
    }

    /// Looks `value` (a leaf at `path`) up.
    pub fn find(&mut self, path: &str, value: &LeafValue) -> Option<Found> {
        match value {
            LeafValue::Num(number) => self.numbers.contains(number).then_some(Found::Number),
            LeafValue::Bool { key, value } => self
                .bools
                .contains(&(key.clone(), *value))
                .then_some(Found::Bool),
            LeafValue::Str(text) => {
                if self.strings.contains(text) {
                    return Some(Found::String);
                }
                if self.search(path, text.as_bytes(), false) {
                    return Some(Found::String);
                }
                // A `data:` URL is kept as its media type and its base64 data.
                if let Some((media, data)) = text
                    .strip_prefix("data:")
                    .and_then(|url| url.split_once(";base64,"))
                {
                    if self.strings.contains(media) && self.strings.contains(data) {
                        return Some(Found::String);
                    }
                }
                let normal = normalise(text);
                (self.search(path, normal.as_bytes(), true)
                    || self.tokens_found(text)
                    || self.escaped_found(text))
                .then_some(Found::JsonText)
            }
        }
    }

    /// Whether a fragment of JSON text is part of the output's JSON text as written, escapes
    /// included: a fragment that begins inside an escape (its `\` ended the fragment before)
    /// reduces to nothing [`normalise`] can find, yet is, escapes and all, the output's text.
    /// Whitespace is left out on both sides (the sender's spacing between tokens is not
    /// serde_json's).
    fn escaped_found(&self, text: &str) -> bool {
        let needle: Vec<u8> = without_whitespace(text).collect();
        !needle.is_empty() && memmem::find(&self.escaped, &needle).is_some()
    }

    /// Whether the output holds this number (canonical form).
    pub fn has_number(&self, number: &str) -> bool {
        self.numbers.contains(number)
    }

    /// Whether each piece of a JSON text fragment is in the output: every run of characters
    /// between JSON punctuation and whitespace (escapes decoded) inside an output string or key,
    /// or, for a run of number characters (a number may be cut), in the normalised output.
    /// This reads a fragment whose members the output holds in another order: without
    /// serde_json's `preserve_order`, parsed arguments come out sorted by key.
    fn tokens_found(&self, text: &str) -> bool {
        let decoded = normalise_keeping_separators(text);
        decoded
            .split('\0')
            .filter(|token| !token.is_empty())
            .all(|token| {
                let numeric = token
                    .chars()
                    .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'));
                let hay = if numeric {
                    &self.normalised
                } else {
                    &self.haystack
                };
                memmem::find(hay, token.as_bytes()).is_some()
            })
    }

    /// Searches from the path's cursor on, then from the start.
    fn search(&mut self, path: &str, needle: &[u8], normalised: bool) -> bool {
        if needle.is_empty() {
            return true;
        }
        let hay = if normalised {
            &self.normalised
        } else {
            &self.haystack
        };
        let cursor = self.cursors.get(path).copied().unwrap_or(0).min(hay.len());
        let at = memmem::find(&hay[cursor..], needle)
            .map(|at| cursor + at)
            .or_else(|| memmem::find(&hay[..(cursor + needle.len()).min(hay.len())], needle));
        match at {
            Some(at) if !normalised => {
                self.cursors.insert(path.to_owned(), at + needle.len());
                true
            }
            Some(_) => true,
            None => false,
        }
    }
}

/// The bytes of `text` but its ASCII whitespace.
fn without_whitespace(text: &str) -> impl Iterator<Item = u8> + '_ {
    text.bytes().filter(|byte| !byte.is_ascii_whitespace())
}

/// Whether `kept`, rounded to the decimals `rounded` is written with, is `rounded` (and differs
/// from it): `-7.493430894101039e-5` and `-7.5e-5`. Both in canonical form.
pub fn rounds_to(kept: &str, rounded: &str) -> bool {
    let (Some(decimals), Ok(target), Ok(kept)) = (
        decimals(rounded),
        rounded.parse::<f64>(),
        kept.parse::<f64>(),
    ) else {
        return false;
    };
    kept != target && format!("{kept:.decimals$}").parse::<f64>() == Ok(target)
}

/// The decimals a number in Rust's shortest form (`-7.5e-5`, `0.25`) is written with; `None`
/// for an integer.
fn decimals(number: &str) -> Option<usize> {
    let (mantissa, exponent) = match number.split_once('e') {
        Some((mantissa, exponent)) => (mantissa, exponent.parse::<i64>().ok()?),
        None => (number, 0),
    };
    let fraction = mantissa
        .split_once('.')
        .map_or(0, |(_, fraction)| fraction.len());
    usize::try_from(i64::try_from(fraction).ok()? - exponent)
        .ok()
        .filter(|&decimals| decimals > 0)
}

/// JSON text reduced to what carries values: escapes decoded, whitespace and the JSON
/// punctuation `{}[]:,"` and `\` removed. A fragment cut anywhere (inside a string, between
/// tokens, within an escape) reduces to a piece of the reduced whole.
pub fn normalise(text: &str) -> String {
    reduce(text, None)
}

/// [`normalise`], with a NUL where whitespace or punctuation was: the fragment's pieces.
fn normalise_keeping_separators(text: &str) -> String {
    reduce(text, Some('\0'))
}

fn reduce(text: &str, separator: Option<char>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut high: Option<u32> = None;
    while let Some(c) = chars.next() {
        let decoded = if c == '\\' {
            match chars.next() {
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    let Ok(unit) = u32::from_str_radix(&hex, 16) else {
                        continue;
                    };
                    if (0xD800..0xDC00).contains(&unit) {
                        high = Some(unit);
                        continue;
                    }
                    if (0xDC00..0xE000).contains(&unit) {
                        let Some(high) = high.take() else { continue };
                        char::from_u32(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00))
                    } else {
                        char::from_u32(unit)
                    }
                }
                Some('/') => Some('/'),
                _ => None,
            }
        } else {
            Some(c)
        };
        high = None;
        if let Some(c) = decoded {
            if !c.is_whitespace() && !matches!(c, '{' | '}' | '[' | ']' | ':' | ',' | '"' | '\\') {
                out.push(c);
            } else if let Some(separator) = separator {
                out.push(separator);
            }
        }
    }
    out
}
