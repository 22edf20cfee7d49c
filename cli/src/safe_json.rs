//! JSON for a terminal: the same values, with every character that could drive or spoof a
//! terminal written as a `\u` escape (C1 controls and DEL, which `serde_json` writes raw, and
//! the invisible format characters the live display escapes too). A JSON reader sees no
//! difference; a person reading `--json` or `--events` in a terminal sees the escapes. The
//! re-encoded outputs (`--to`, `--json-as`) go through it too when stdout is a terminal
//! ([`write_sse`] for a stream's text), and are written byte for byte when piped.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, Serializer};

use crate::paint::is_invisible_format;

/// Writes `value` as compact JSON to `out`, escaping what must not reach a terminal raw.
pub fn write<W: Write, T: Serialize + ?Sized>(out: W, value: &T) -> io::Result<()> {
    let mut serializer = Serializer::with_formatter(out, TerminalSafe);
    value.serialize(&mut serializer).map_err(io::Error::from)
}

/// Writes re-encoded SSE text (`--to`) to a terminal: every character that must not reach it
/// raw is written as a `\u` escape, but the line ends that frame the events. Such characters
/// can only stand inside the JSON strings of its `data:` lines (event names and the framing
/// are ASCII, and JSON escapes every C0 control), so each line reads to the same values.
pub fn write_sse<W: Write>(mut out: W, text: &str) -> io::Result<()> {
    let mut lines = text.split('\n');
    if let Some(first) = lines.next() {
        write_escaped(&mut out, first)?;
    }
    for line in lines {
        out.write_all(b"\n")?;
        write_escaped(&mut out, line)?;
    }
    Ok(())
}

/// `serde_json`'s compact form, with the escapes above in strings and in raw JSON text (where
/// such characters can only stand inside strings, so escaping them keeps the value).
struct TerminalSafe;

impl Formatter for TerminalSafe {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        write_escaped(writer, fragment)
    }

    fn write_raw_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        write_escaped(writer, fragment)
    }
}

fn must_escape(c: char) -> bool {
    c.is_control() || is_invisible_format(c)
}

fn write_escaped<W: ?Sized + Write>(writer: &mut W, fragment: &str) -> io::Result<()> {
    let mut rest = fragment;
    while let Some((at, c)) = rest.char_indices().find(|&(_, c)| must_escape(c)) {
        writer.write_all(&rest.as_bytes()[..at])?;
        let mut units = [0u16; 2];
        for unit in c.encode_utf16(&mut units) {
            write!(writer, "\\u{unit:04x}")?;
        }
        rest = &rest[at + c.len_utf8()..];
    }
    CompactFormatter.write_string_fragment(writer, rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn format_characters_are_escaped_and_the_value_is_the_same() {
        let text = "a\u{202e}b\u{9b}c\u{7f}\u{e0041}\u{200d}é\n";
        let mut out = Vec::new();
        write(&mut out, &serde_json::json!({ "k\u{2066}": text })).unwrap();
        let written = String::from_utf8(out).unwrap();
        assert_eq!(
            written,
            r#"{"k\u2066":"a\u202eb\u009bc\u007f\udb40\udc41\u200dé\n"}"#
        );
        let back: Value = serde_json::from_str(&written).unwrap();
        assert_eq!(back["k\u{2066}"], text);
    }

    #[test]
    fn sse_text_keeps_its_line_ends_and_escapes_the_rest() {
        let text = "event: x\ndata: {\"a\":\"rm\u{202e}\u{9b}\"}\n\n";
        let mut out = Vec::new();
        write_sse(&mut out, text).unwrap();
        let written = String::from_utf8(out).unwrap();
        assert_eq!(written, "event: x\ndata: {\"a\":\"rm\\u202e\\u009b\"}\n\n");
        let data: Value = serde_json::from_str(&written[15..written.len() - 2]).unwrap();
        assert_eq!(data["a"], "rm\u{202e}\u{9b}");
    }
}
