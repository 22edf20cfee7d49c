//! Incremental partial-JSON scanner for streamed tool-call arguments.
//!
//! Tool-call arguments arrive as many small fragments (`{"ci`, `ty": "Bei`,
//! `jing"}`), and an app wants to show them as they stand. Re-parsing the
//! whole buffer after every fragment is quadratic over a long call, so
//! [`PartialJson`] scans each byte once and keeps just enough state (a
//! container stack, the last safe point, in-string and escape state) to
//! know at any moment a prefix of the buffer and a closing suffix that
//! together are valid JSON. Building that [`Completion`] is O(1) and writing
//! its suffix is O(depth); a [`serde_json::Value`] is only built on request.
//!
//! # How unfinished pieces are shown
//!
//! The completion only ever shows what has certainly arrived, so that each
//! later view extends the earlier one (it gains members or elements, or the
//! last string grows):
//!
//! - An unfinished string value is shown closed with what has arrived:
//!   `{"city": "Bei` → `{"city": "Bei"}`, `["a", "b` → `["a", "b"]`. An
//!   unfinished escape at its end (`"ab\`, `"ab\u00`, or a high surrogate
//!   `\ud83d` still waiting for its low half) is cut off:
//!   `{"a": "ab\u00` → `{"a": "ab"}`.
//! - An unfinished key, or a key with no value yet, drops its member:
//!   `{"ci` → `{}`, `{"city"` → `{}`, `{"city": ` → `{}`,
//!   `{"a": 1, "b` → `{"a": 1}`.
//! - An unfinished number or literal is left out, since it may still grow or
//!   is not yet a value: `{"n": 12` → `{}` (12 might become 123),
//!   `[1, 2, 3` → `[1, 2]`, `{"ok": tru` → `{}`. A number appears as soon as
//!   a delimiter (`,` `}` `]` or whitespace) ends it: `{"n": 12,` →
//!   `{"n": 12}`, `{"n": 12 ` → `{"n": 12}`. A literal cannot grow, so it
//!   appears as soon as its last letter arrives: `{"ok": true` →
//!   `{"ok": true}`.
//! - A trailing comma is dropped: `{"a": 1,` → `{"a": 1}`.
//! - Nested containers are closed innermost first:
//!   `{"a": [{"b": "x` → `{"a": [{"b": "x"}]}`.
//! - At the top level, an unfinished string is shown (`"ab` → `"ab"`), but a
//!   number or literal has no completion until it is ended (`12` → none).
//!   Once the caller knows no more text will come,
//!   [`PartialJson::final_completion`] also shows a number that ends the
//!   buffer: `12` → `12`, `{"n": 12` → `{"n": 12}`.
//!
//! # Example
//!
//! ```
//! use deltafold::assemble::PartialJson;
//!
//! let mut args = PartialJson::new();
//! let mut shown = Vec::new();
//! for fragment in [r#"{"ci"#, r#"ty": "Bei"#, r#"jing", "days": 3"#, "}"] {
//!     args.push_str(fragment);
//!     shown.push(args.completion().map(|c| c.to_string()));
//! }
//! assert_eq!(
//!     shown,
//!     [
//!         Some(r#"{}"#.to_string()),
//!         Some(r#"{"city": "Bei"}"#.to_string()),
//!         Some(r#"{"city": "Beijing"}"#.to_string()),
//!         Some(r#"{"city": "Beijing", "days": 3}"#.to_string()),
//!     ]
//! );
//! assert_eq!(args.value(), Some(serde_json::json!({"city": "Beijing", "days": 3})));
//! ```

use std::fmt;

use memchr::memchr2;
use serde::Serialize;
use serde_json::Value;

/// A growing JSON text, scanned incrementally so it can be shown at any time.
///
/// Each pushed byte is examined at most twice in total (once more for
/// string runs, to reject raw control characters), whatever the
/// fragmentation, so a call streamed in 50,000 pieces stays linear.
#[derive(Debug, Clone, Default)]
pub struct PartialJson {
    buf: String,
    scan: Scanner,
}

/// Where the scan stands after the last pushed byte.
///
/// Statuses describe the text as it is; they agree with `serde_json` on a
/// whole text except that text that can no longer become valid is
/// [`ScanStatus::Invalid`] as soon as the offending byte arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ScanStatus {
    /// Nothing but whitespace so far.
    Empty,
    /// A value has started and is not finished.
    Partial,
    /// Exactly one complete top-level value, plus whitespace.
    ///
    /// A top-level number at the very end counts (the text parses as is),
    /// even though more digits could still follow.
    Complete,
    /// Not a prefix of valid JSON; later pushes cannot repair it.
    Invalid {
        /// Byte offset of the first offending byte; trailing data after a
        /// complete value (`{}{}`) counts as offending.
        offset: usize,
    },
}

/// The buffer as valid JSON: a prefix of it plus a few closing characters.
///
/// Borrowing the prefix instead of copying it keeps building one O(1), so a
/// view can be taken after every fragment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion<'a> {
    prefix: &'a str,
    close_string: bool,
    /// Closers of the open containers, outermost first.
    closers: &'a [u8],
}

impl Completion<'_> {
    /// The part of the buffer that is kept; always a prefix of it.
    pub fn prefix(&self) -> &str {
        self.prefix
    }

    /// Appends the closing characters, innermost first, in O(depth).
    pub fn write_suffix(&self, out: &mut String) {
        out.reserve(self.suffix_len());
        if self.close_string {
            out.push('"');
        }
        out.extend(self.closers.iter().rev().map(|&c| char::from(c)));
    }

    /// Length in bytes of what [`Completion::write_suffix`] appends.
    pub fn suffix_len(&self) -> usize {
        usize::from(self.close_string) + self.closers.len()
    }

    /// Parses prefix and suffix; `None` only where `serde_json` refuses valid
    /// JSON (nesting deeper than 128, a number out of `f64` range).
    fn parse(&self) -> Option<Value> {
        let mut text = String::with_capacity(self.prefix.len() + self.suffix_len());
        text.push_str(self.prefix);
        self.write_suffix(&mut text);
        serde_json::from_str(&text).ok()
    }
}

impl fmt::Display for Completion<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.prefix)?;
        if self.close_string {
            f.write_str("\"")?;
        }
        for &c in self.closers.iter().rev() {
            fmt::Write::write_char(f, char::from(c))?;
        }
        Ok(())
    }
}

impl PartialJson {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a fragment and scans only its bytes.
    ///
    /// A fragment may end anywhere (mid-key, mid-escape, between the halves
    /// of a surrogate pair); the scan resumes where it stopped.
    pub fn push_str(&mut self, fragment: &str) {
        let from = self.buf.len();
        self.buf.push_str(fragment);
        self.scan.feed(self.buf.as_bytes(), from);
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

    /// Where the scan stands, in O(1).
    pub fn status(&self) -> ScanStatus {
        match self.scan.state {
            State::Invalid { offset } => ScanStatus::Invalid { offset },
            State::Start => ScanStatus::Empty,
            State::Done => ScanStatus::Complete,
            State::Num(n) if self.scan.stack.is_empty() && n.is_terminal() => ScanStatus::Complete,
            _ => ScanStatus::Partial,
        }
    }

    /// The buffer as valid JSON right now: a prefix of the buffer plus a
    /// closing suffix, following the rules in the module docs. O(1) to build.
    ///
    /// `None` when nothing can be shown yet (empty or whitespace only, an
    /// unfinished top-level number or literal) or the text is invalid.
    pub fn completion(&self) -> Option<Completion<'_>> {
        self.scan.completion(&self.buf, false)
    }

    /// Like [`PartialJson::completion`], for when no more text will come: a
    /// number that ends the buffer is then final and is shown too.
    ///
    /// This is how a top-level number (`12`) gets a completion at all.
    pub fn final_completion(&self) -> Option<Completion<'_>> {
        self.scan.completion(&self.buf, true)
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

    /// Bytes examined by the scan so far, to check linearity.
    #[cfg(test)]
    fn examined(&self) -> usize {
        self.scan.examined
    }
}

/// Resumable scan state; kept apart from the buffer so the scan can borrow
/// the buffer's bytes while updating itself.
#[derive(Debug, Clone, Default)]
struct Scanner {
    state: State,
    /// Closers (`}` or `]`) of the open containers, outermost first.
    stack: Vec<u8>,
    /// Buffer length at the last safe point: right after an opening bracket
    /// or a complete member or element. Every push or pop of `stack` makes
    /// one, so the stack then and now are the same.
    safe: usize,
    /// Where the pending escape of the current string began, to cut it off.
    esc_start: usize,
    #[cfg(test)]
    examined: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum State {
    /// Top level, nothing but whitespace yet.
    #[default]
    Start,
    /// After `:` or after `,` in an array: a value must follow.
    Value,
    /// After `[`: a value or `]`.
    ArrFirst,
    /// After `{`: a key or `}`.
    ObjFirst,
    /// After `,` in an object: a key must follow.
    Key,
    /// After a key: `:` must follow.
    Colon,
    /// After a value in a container: `,` or the container's closer.
    After,
    /// The top-level value is complete; only whitespace may follow.
    Done,
    Str {
        key: bool,
        esc: Esc,
    },
    Num(Num),
    Lit {
        word: &'static [u8],
        got: u8,
    },
    Invalid {
        offset: usize,
    },
}

/// Escape state inside a string; surrogate pairs are checked byte by byte so
/// a lone surrogate is rejected at its first offending digit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Esc {
    None,
    /// After `\`.
    Slash,
    /// After `\u`.
    U,
    /// After `\uD`: the next digit decides plain, high or lone low surrogate.
    UD,
    /// `left` hex digits to go; `high` if this is a high surrogate.
    Hex {
        left: u8,
        high: bool,
    },
    /// A high surrogate is complete; its `\` of the low half comes next.
    PairSlash,
    PairU,
    PairD,
    /// Needs `c`–`f`, making the low half a `DC00`–`DFFF` surrogate.
    PairC,
    PairHex {
        left: u8,
    },
}

/// Number grammar states; see RFC 8259 section 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Num {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    Exp,
    ExpSign,
    ExpInt,
}

impl Num {
    /// Whether the digits so far form a whole number.
    fn is_terminal(self) -> bool {
        matches!(self, Num::Zero | Num::Int | Num::Frac | Num::ExpInt)
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl Scanner {
    #[cfg(test)]
    fn count(&mut self, n: usize) {
        self.examined += n;
    }

    #[cfg(not(test))]
    fn count(&mut self, _: usize) {}

    /// Scans `bytes[from..]`; everything before was scanned by earlier calls.
    fn feed(&mut self, bytes: &[u8], from: usize) {
        let mut i = from;
        while i < bytes.len() {
            match self.state {
                State::Invalid { .. } => return,
                State::Str { esc: Esc::None, .. } => {
                    // Skip the plain run of a string in bulk; only the run's
                    // control characters need a second look.
                    let rest = &bytes[i..];
                    let run = memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
                    self.count(2 * run);
                    if let Some(c) = rest[..run].iter().position(|&b| b < 0x20) {
                        self.fail(i + c);
                        return;
                    }
                    i += run;
                    if i == bytes.len() {
                        return;
                    }
                }
                _ => {}
            }
            if self.step(bytes[i], i) {
                i += 1;
            }
        }
    }

    /// Handles one byte; `false` when the byte ended a number and must be
    /// handled again in the state that follows it.
    fn step(&mut self, b: u8, pos: usize) -> bool {
        self.count(1);
        match self.state {
            State::Start | State::Value => self.value_start(b, pos),
            State::ArrFirst if b == b']' => self.close(b, pos),
            State::ArrFirst => self.value_start(b, pos),
            State::ObjFirst | State::Key => match b {
                b'"' => {
                    self.state = State::Str {
                        key: true,
                        esc: Esc::None,
                    }
                }
                b'}' if self.state == State::ObjFirst => self.close(b, pos),
                _ if is_ws(b) => {}
                _ => self.fail(pos),
            },
            State::Colon => match b {
                b':' => self.state = State::Value,
                _ if is_ws(b) => {}
                _ => self.fail(pos),
            },
            State::After => match b {
                b',' if self.stack.last() == Some(&b'}') => self.state = State::Key,
                b',' => self.state = State::Value,
                b'}' | b']' => self.close(b, pos),
                _ if is_ws(b) => {}
                _ => self.fail(pos),
            },
            State::Done => {
                if !is_ws(b) {
                    self.fail(pos);
                }
            }
            State::Str { key, esc } => self.string_byte(key, esc, b, pos),
            State::Num(n) => return self.number_byte(n, b, pos),
            State::Lit { word, got } => {
                let got = usize::from(got);
                if word.get(got) != Some(&b) {
                    self.fail(pos);
                } else if got + 1 == word.len() {
                    self.value_done(pos + 1);
                } else {
                    self.state = State::Lit {
                        word,
                        got: (got + 1) as u8,
                    };
                }
            }
            State::Invalid { .. } => {}
        }
        true
    }

    fn fail(&mut self, offset: usize) {
        self.state = State::Invalid { offset };
    }

    fn value_start(&mut self, b: u8, pos: usize) {
        self.state = match b {
            b'{' => {
                self.stack.push(b'}');
                self.safe = pos + 1;
                State::ObjFirst
            }
            b'[' => {
                self.stack.push(b']');
                self.safe = pos + 1;
                State::ArrFirst
            }
            b'"' => State::Str {
                key: false,
                esc: Esc::None,
            },
            b'-' => State::Num(Num::Minus),
            b'0' => State::Num(Num::Zero),
            b'1'..=b'9' => State::Num(Num::Int),
            b't' => State::Lit {
                word: b"true",
                got: 1,
            },
            b'f' => State::Lit {
                word: b"false",
                got: 1,
            },
            b'n' => State::Lit {
                word: b"null",
                got: 1,
            },
            _ if is_ws(b) => return,
            _ => return self.fail(pos),
        };
    }

    /// A value ended at `end`: a new safe point.
    fn value_done(&mut self, end: usize) {
        self.safe = end;
        self.state = if self.stack.is_empty() {
            State::Done
        } else {
            State::After
        };
    }

    fn close(&mut self, b: u8, pos: usize) {
        if self.stack.last() == Some(&b) {
            self.stack.pop();
            self.value_done(pos + 1);
        } else {
            self.fail(pos);
        }
    }

    fn string_byte(&mut self, key: bool, esc: Esc, b: u8, pos: usize) {
        let hex = b.is_ascii_hexdigit();
        let next = match esc {
            Esc::None => match b {
                b'"' if key => {
                    self.state = State::Colon;
                    return;
                }
                b'"' => return self.value_done(pos + 1),
                b'\\' => {
                    self.esc_start = pos;
                    Esc::Slash
                }
                0..=0x1f => return self.fail(pos),
                _ => Esc::None,
            },
            Esc::Slash => match b {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Esc::None,
                b'u' => Esc::U,
                _ => return self.fail(pos),
            },
            Esc::U if matches!(b, b'd' | b'D') => Esc::UD,
            Esc::U if hex => Esc::Hex {
                left: 3,
                high: false,
            },
            Esc::UD => match b {
                b'0'..=b'7' => Esc::Hex {
                    left: 2,
                    high: false,
                },
                b'8' | b'9' | b'a' | b'b' | b'A' | b'B' => Esc::Hex {
                    left: 2,
                    high: true,
                },
                _ => return self.fail(pos),
            },
            Esc::Hex { left: 1, high } if hex => {
                if high {
                    Esc::PairSlash
                } else {
                    Esc::None
                }
            }
            Esc::Hex { left, high } if hex => Esc::Hex {
                left: left - 1,
                high,
            },
            Esc::PairSlash if b == b'\\' => Esc::PairU,
            Esc::PairU if b == b'u' => Esc::PairD,
            Esc::PairD if matches!(b, b'd' | b'D') => Esc::PairC,
            Esc::PairC if matches!(b, b'c'..=b'f' | b'C'..=b'F') => Esc::PairHex { left: 2 },
            Esc::PairHex { left: 1 } if hex => Esc::None,
            Esc::PairHex { left } if hex => Esc::PairHex { left: left - 1 },
            _ => return self.fail(pos),
        };
        self.state = State::Str { key, esc: next };
    }

    fn number_byte(&mut self, n: Num, b: u8, pos: usize) -> bool {
        let next = match (n, b) {
            (Num::Minus, b'0') => Num::Zero,
            (Num::Minus | Num::Int, b'0'..=b'9') => Num::Int,
            (Num::Zero | Num::Int, b'.') => Num::Dot,
            (Num::Dot | Num::Frac, b'0'..=b'9') => Num::Frac,
            (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Num::Exp,
            (Num::Exp, b'+' | b'-') => Num::ExpSign,
            (Num::Exp | Num::ExpSign | Num::ExpInt, b'0'..=b'9') => Num::ExpInt,
            _ if n.is_terminal() => {
                // The number ended just before this byte, which the state
                // after a value now judges.
                self.value_done(pos);
                return false;
            }
            _ => {
                self.fail(pos);
                return true;
            }
        };
        self.state = State::Num(next);
        true
    }

    fn completion<'a>(&'a self, buf: &'a str, at_end: bool) -> Option<Completion<'a>> {
        let (end, close_string) = match self.state {
            State::Invalid { .. } | State::Start => return None,
            State::Str {
                key: false,
                esc: Esc::None,
            } => (buf.len(), true),
            State::Str { key: false, .. } => (self.esc_start, true),
            // The scan is caught up, so a number in progress ends the buffer.
            State::Num(n) if at_end && n.is_terminal() => (buf.len(), false),
            // A top-level number or literal in progress: nothing is safe yet.
            _ if self.stack.is_empty() && self.state != State::Done => return None,
            _ => (self.safe, false),
        };
        Some(Completion {
            prefix: buf.get(..end)?,
            close_string,
            closers: &self.stack,
        })
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
    fn states_stay_small() {
        // The scan state is copied on every byte; keep it a few words.
        assert!(std::mem::size_of::<State>() <= 24);
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
}
