//! Writing server-sent events: `event:`/`data:` lines and JSON strings escaped straight into the
//! caller's buffer, so a delta is written without building a JSON value for it.

use std::fmt::Write;

use serde::Serialize;

/// Appends `value` as a JSON string literal (quotes included).
pub(super) fn push_json_str(out: &mut String, value: &str) {
    out.push('"');
    let mut start = 0;
    for (at, byte) in value.bytes().enumerate() {
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.push_str(&value[start..at]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{byte:04x}");
        } else {
            out.push_str(escape);
        }
        start = at + 1;
    }
    out.push_str(&value[start..]);
    out.push('"');
}

/// Appends one event with a `data:` line holding `json` (already serialised, one line).
pub(super) fn push_data(out: &mut String, event: Option<&str>, json: &str) {
    if let Some(event) = event {
        out.push_str("event: ");
        out.push_str(event);
        out.push('\n');
    }
    out.push_str("data: ");
    out.push_str(json);
    out.push_str("\n\n");
}

/// Appends one event whose data is `value` serialised.
pub(super) fn push_value(out: &mut String, event: Option<&str>, value: &impl Serialize) {
    let json = serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned());
    push_data(out, event, &json);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_json_requires_and_nothing_else() {
        let mut out = String::new();
        push_json_str(&mut out, "a\"b\\c\nd\u{1}é");
        assert_eq!(out, r#""a\"b\\c\nd\u0001é""#);
        let back: String = serde_json::from_str(&out).unwrap();
        assert_eq!(back, "a\"b\\c\nd\u{1}é");
    }
}
