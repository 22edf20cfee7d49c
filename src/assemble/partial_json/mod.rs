//! The incremental partial-JSON scanner for streamed tool-call arguments: the growing text
//! ([`PartialJson`]), the resumable byte scan behind it (`scanner`), and the text completed into
//! valid JSON at any moment ([`CompletedJson`]), and a call's arguments as an event carries them
//! ([`PartialArguments`]).

mod arguments;
mod completed;
mod scanner;

pub use arguments::PartialArguments;
pub use completed::CompletedJson;
pub use scanner::ScanStatus;

use std::sync::OnceLock;

use serde_json::Value;

use scanner::Scanner;

/// A growing JSON text, scanned incrementally so it can be shown at any time.
///
/// Each pushed byte is examined at most twice in total (once more for
/// string runs, to reject raw control characters), whatever the
/// fragmentation, so a call streamed in 50,000 pieces stays linear.
///
/// Tool-call arguments arrive as many small fragments (`{"ci`, `ty": "Bei`,
/// `jing"}`), and an app wants to show them as they stand. Re-parsing the
/// whole buffer after every fragment is quadratic over a long call, so
/// [`PartialJson`] scans each byte once and keeps just enough state (a
/// container stack, the last safe point, in-string and escape state) to
/// know at any moment a prefix of the buffer and a closing suffix that
/// together are valid JSON. Building that [`CompletedJson`] is O(1) and writing
/// its suffix is O(depth); a [`serde_json::Value`] is only built on request.
///
/// # How unfinished pieces are shown
///
/// The completion only ever shows what has certainly arrived, so that each
/// later view extends the earlier one (it gains members or elements, or the
/// last string grows):
///
/// - An unfinished string value is shown closed with what has arrived:
///   `{"city": "Bei` → `{"city": "Bei"}`, `["a", "b` → `["a", "b"]`. An
///   unfinished escape at its end (`"ab\`, `"ab\u00`, or a high surrogate
///   `\ud83d` still waiting for its low half) is cut off:
///   `{"a": "ab\u00` → `{"a": "ab"}`.
/// - An unfinished key, or a key with no value yet, drops its member:
///   `{"ci` → `{}`, `{"city"` → `{}`, `{"city": ` → `{}`,
///   `{"a": 1, "b` → `{"a": 1}`.
/// - An unfinished number or literal is left out, since it may still grow or
///   is not yet a value: `{"n": 12` → `{}` (12 might become 123),
///   `[1, 2, 3` → `[1, 2]`, `{"ok": tru` → `{}`. A number appears as soon as
///   a delimiter (`,` `}` `]` or whitespace) ends it: `{"n": 12,` →
///   `{"n": 12}`, `{"n": 12 ` → `{"n": 12}`. A literal cannot grow, so it
///   appears as soon as its last letter arrives: `{"ok": true` →
///   `{"ok": true}`.
/// - A trailing comma is dropped: `{"a": 1,` → `{"a": 1}`.
/// - Nested containers are closed innermost first:
///   `{"a": [{"b": "x` → `{"a": [{"b": "x"}]}`.
/// - At the top level, an unfinished string is shown (`"ab` → `"ab"`), but a
///   number or literal has no completion until it is ended (`12` → none).
///   Once the caller knows no more text will come,
///   [`PartialJson::final_completion`] also shows a number that ends the
///   buffer: `12` → `12`, `{"n": 12` → `{"n": 12}`.
///
/// # Example
///
/// ```
/// use deltafold::assemble::PartialJson;
///
/// let mut args = PartialJson::new();
/// let mut shown = Vec::new();
/// for fragment in [r#"{"ci"#, r#"ty": "Bei"#, r#"jing", "days": 3"#, "}"] {
///     args.push_str(fragment);
///     shown.push(args.completion().map(|c| c.to_string()));
/// }
/// assert_eq!(
///     shown,
///     [
///         Some(r#"{}"#.to_string()),
///         Some(r#"{"city": "Bei"}"#.to_string()),
///         Some(r#"{"city": "Beijing"}"#.to_string()),
///         Some(r#"{"city": "Beijing", "days": 3}"#.to_string()),
///     ]
/// );
/// assert_eq!(args.value(), Some(serde_json::json!({"city": "Beijing", "days": 3})));
/// ```
///
/// The scan runs when something reads it (a completion, the status), from where it stopped:
/// a stream whose arguments nobody reads while they stream is never scanned, and one read after
/// every fragment scans each byte once all the same.
#[derive(Debug, Clone, Default)]
pub struct PartialJson {
    buf: String,
    /// The scan of `buf[..scanned]`.
    scan: Scanner,
    scanned: usize,
    /// The scan of the whole buffer, made by a read through `&self` since the last push, which
    /// takes it over so that no byte is scanned twice. Boxed: most buffers are never read so.
    caught_up: OnceLock<Box<Scanner>>,
}

impl PartialJson {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a fragment; its bytes are scanned when the buffer is next read.
    ///
    /// A fragment may end anywhere (mid-key, mid-escape, between the halves
    /// of a surrogate pair); the scan resumes where it stopped.
    pub fn push_str(&mut self, fragment: &str) {
        if let Some(scan) = self.caught_up.take() {
            self.scan = *scan;
            self.scanned = self.buf.len();
        }
        self.buf.push_str(fragment);
    }

    /// The scan of the whole buffer: the one kept if it is up to date, else the one caught up
    /// from it by an earlier read, else made now from where the scan stopped.
    fn scanner(&self) -> &Scanner {
        if self.scanned == self.buf.len() {
            return &self.scan;
        }
        self.caught_up.get_or_init(|| {
            let mut scan = self.scan.clone();
            scan.feed(self.buf.as_bytes(), self.scanned);
            Box::new(scan)
        })
    }

    /// The text pushed so far, verbatim.
    pub fn as_str(&self) -> &str {
        &self.buf
    }

    /// The text pushed so far, without copying it.
    pub fn into_string(self) -> String {
        self.buf
    }

    /// Length of the text in bytes.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing has been pushed (whitespace counts as pushed).
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Where the scan stands: O(1) plus the scan of the text pushed since the last read.
    pub fn status(&self) -> ScanStatus {
        self.scanner().status()
    }

    /// The buffer as valid JSON right now: a prefix of the buffer plus a
    /// closing suffix, following the rules in the type docs. O(1) to build once the text
    /// pushed since the last read is scanned.
    ///
    /// `None` when nothing can be shown yet (empty or whitespace only, an
    /// unfinished top-level number or literal) or the text is invalid.
    pub fn completion(&self) -> Option<CompletedJson<'_>> {
        self.scanner().completion(&self.buf, false)
    }

    /// Like [`PartialJson::completion`], for when no more text will come: a
    /// number that ends the buffer is then final and is shown too.
    ///
    /// This is how a top-level number (`12`) gets a completion at all.
    pub fn final_completion(&self) -> Option<CompletedJson<'_>> {
        self.scanner().completion(&self.buf, true)
    }

    /// Materialises [`PartialJson::completion`]; O(length), as it parses.
    ///
    /// `None` as for `completion()`, and also where `serde_json` refuses the
    /// completed text although it is valid JSON (nesting deeper than 128, a
    /// number beyond the range of `f64`).
    pub fn value(&self) -> Option<Value> {
        self.completion()?.parse()
    }

    /// Materialises [`PartialJson::final_completion`]; on a
    /// [`ScanStatus::Complete`] buffer it equals `serde_json`'s parse.
    pub fn final_value(&self) -> Option<Value> {
        self.final_completion()?.parse()
    }

    /// Scans the text pushed since the last read now, in place: reads through `&self` then
    /// find the scan caught up and copy nothing.
    pub(crate) fn catch_up(&mut self) {
        if let Some(scan) = self.caught_up.take() {
            self.scan = *scan;
        } else {
            self.scan.feed(self.buf.as_bytes(), self.scanned);
        }
        self.scanned = self.buf.len();
    }

    /// Bytes examined by the scan so far, to check linearity.
    #[cfg(test)]
    pub(crate) fn examined(&self) -> usize {
        self.scanner().examined()
    }
}

/// A scan that keeps no text: whether the text fed to it so far, piece by piece, can still
/// become valid JSON. For a reading of streamed text that is not held as one buffer (the
/// appended reading of fragments that may be cumulative).
#[derive(Debug, Clone, Default)]
pub(crate) struct PrefixScan {
    scan: Scanner,
}

impl PrefixScan {
    /// Scans the next piece of the text; each byte once.
    pub(crate) fn feed(&mut self, piece: &str) {
        // Offsets are the piece's own: only the status is read, never a completion.
        self.scan.feed(piece.as_bytes(), 0);
    }

    /// Whether the text fed so far is a prefix of valid JSON: not invalid, and not closed
    /// before its end.
    pub(crate) fn viable(&self) -> bool {
        !matches!(self.scan.status(), ScanStatus::Invalid { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn feed(fragments: &[&str]) -> PartialJson {
        let mut pj = PartialJson::new();
        for f in fragments {
            pj.push_str(f);
        }
        pj
    }

    fn shown(pj: &PartialJson) -> Option<String> {
        pj.completion().map(|c| c.to_string())
    }

    /// Feeds `text` in every way of cutting it into two pieces and char by
    /// char, checking that all agree with the one-piece scan.
    fn check_all_splits(text: &str) {
        let whole = feed(&[text]);
        let mut per_char = PartialJson::new();
        for (i, c) in text.char_indices() {
            per_char.push_str(&text[i..i + c.len_utf8()]);
        }
        let mut cuts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        cuts.push(text.len());
        for &cut in &cuts {
            let two = feed(&[&text[..cut], &text[cut..]]);
            for pj in [&two, &per_char] {
                assert_eq!(pj.status(), whole.status(), "{text:?} cut at {cut}");
                assert_eq!(shown(pj), shown(&whole), "{text:?} cut at {cut}");
                assert_eq!(
                    pj.final_completion().map(|c| c.to_string()),
                    whole.final_completion().map(|c| c.to_string())
                );
            }
        }
    }

    #[test]
    fn brief_rules() {
        let table: &[(&[&str], Option<&str>)] = &[
            (&[r#"{"ci"#, r#"ty": "Bei"#], Some(r#"{"city": "Bei"}"#)),
            (&[r#"["a", "b"#], Some(r#"["a", "b"]"#)),
            (&[r#"{"a": "ab\u00"#], Some(r#"{"a": "ab"}"#)),
            (&[r#"{"ci"#], Some("{}")),
            (&[r#"{"a": 1, "b"#], Some(r#"{"a": 1}"#)),
            (&[r#"{"n": 12"#], Some("{}")),
            (&[r#"{"n": 12,"#], Some(r#"{"n": 12}"#)),
            (&[r#"[1, 2, 3"#], Some("[1, 2]")),
            (&[r#"{"a": [{"b": "x"#], Some(r#"{"a": [{"b": "x"}]}"#)),
            (&["12"], None),
            (&[r#""ab"#], Some(r#""ab""#)),
        ];
        for (fragments, want) in table {
            let pj = feed(fragments);
            assert_eq!(shown(&pj).as_deref(), *want, "{fragments:?}");
            check_all_splits(&fragments.concat());
        }
    }

    #[test]
    fn completion_borrows_the_buffer() {
        let pj = feed(&[r#"{"a": [1, {"b": "xy"#]);
        let c = pj.completion().unwrap();
        assert!(std::ptr::eq(c.prefix().as_ptr(), pj.as_str().as_ptr()));
        assert_eq!(c.suffix_len(), 4);
        assert_eq!(pj.value(), Some(json!({"a": [1, {"b": "xy"}]})));
    }

    /// 50,000 fragments: the scan examines each byte at most twice, and a
    /// completion after every push only slices the buffer.
    #[test]
    fn linear_over_many_fragments() {
        let mut text = String::from(r#"{"items": ["#);
        for i in 0..2_000 {
            if i > 0 {
                text.push_str(", ");
            }
            text.push_str(&format!(
                r#"{{"id": {i}, "name": "n\u00e9\"{i}\ud83d\ude00 é😀", "ok": true, "x": -1.5e-3}}"#
            ));
        }
        text.push_str(r#"], "body": ""#);
        text.push_str(&"plain text run with a \\n escape and ünïcödé ".repeat(2_000));
        text.push_str(r#""}"#);

        let mut pj = PartialJson::new();
        let mut fragments = 0;
        let mut at = 0;
        let mut completions = 0usize;
        while at < text.len() {
            let mut end = (at + 1 + fragments % 7).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            pj.push_str(&text[at..end]);
            at = end;
            fragments += 1;
            if let Some(c) = pj.completion() {
                assert!(std::ptr::eq(c.prefix().as_ptr(), pj.as_str().as_ptr()));
                assert!(c.suffix_len() <= 4);
                completions += 1;
            }
        }
        assert!(fragments >= 50_000, "{fragments} fragments");
        assert_eq!(completions, fragments);
        assert_eq!(pj.status(), ScanStatus::Complete);
        assert!(
            pj.examined() <= 2 * text.len(),
            "{} bytes examined for {}",
            pj.examined(),
            text.len()
        );
        let want: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(pj.value(), Some(want));
    }

    #[test]
    fn byte_at_a_time_is_linear_too() {
        let text = format!(
            r#"["{}", {}]"#,
            "abc\\\"".repeat(1000),
            "1234567890".repeat(100)
        );
        let mut pj = PartialJson::new();
        for (i, c) in text.char_indices() {
            pj.push_str(&text[i..i + c.len_utf8()]);
        }
        assert_eq!(pj.status(), ScanStatus::Complete);
        assert!(pj.examined() <= 2 * text.len());
    }

    #[test]
    fn the_scan_waits_for_a_read_and_resumes_where_the_last_read_left_it() {
        let text = format!(r#"{{"a": "{}", "n": [1, 2, 3]}}"#, "xy".repeat(500));
        let mut unread = PartialJson::new();
        let mut read_each = PartialJson::new();
        let mut read_some = PartialJson::new();
        for (i, c) in text.char_indices() {
            let piece = &text[i..i + c.len_utf8()];
            unread.push_str(piece);
            read_each.push_str(piece);
            read_some.push_str(piece);
            assert_eq!(
                shown(&read_each),
                shown(&feed(&[&text[..i + c.len_utf8()]])),
                "the view after {i} bytes"
            );
            if i % 97 == 0 {
                assert!(read_some.status() != ScanStatus::Complete);
            }
        }
        assert_eq!(unread.scan.examined(), 0, "nothing read, nothing scanned");
        for pj in [&unread, &read_each, &read_some] {
            assert_eq!(pj.status(), ScanStatus::Complete);
            assert!(pj.examined() <= 2 * text.len(), "{}", pj.examined());
            assert_eq!(pj.value(), serde_json::from_str(&text).ok());
        }
    }
}
