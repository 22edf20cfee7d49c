//! The resumable byte scan behind [`PartialJson`](super::PartialJson): a JSON grammar state
//! machine that examines each pushed byte once, remembers the open containers and the last
//! safe point, and so knows at any moment how the text so far is completed into valid JSON.

use memchr::memchr2;
use serde::Serialize;

use super::CompletedJson;

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

/// Resumable scan state; kept apart from the buffer so the scan can borrow
/// the buffer's bytes while updating itself.
#[derive(Debug, Clone, Default)]
pub(super) struct Scanner {
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
    /// Where the scan stands, in O(1).
    pub(super) fn status(&self) -> ScanStatus {
        match self.state {
            State::Invalid { offset } => ScanStatus::Invalid { offset },
            State::Start => ScanStatus::Empty,
            State::Done => ScanStatus::Complete,
            State::Num(n) if self.stack.is_empty() && n.is_terminal() => ScanStatus::Complete,
            _ => ScanStatus::Partial,
        }
    }

    /// Bytes examined so far, to check linearity.
    #[cfg(test)]
    pub(super) fn examined(&self) -> usize {
        self.examined
    }

    #[cfg(test)]
    fn count(&mut self, n: usize) {
        self.examined += n;
    }

    #[cfg(not(test))]
    fn count(&mut self, _: usize) {}

    /// Scans `bytes[from..]`; everything before was scanned by earlier calls.
    pub(super) fn feed(&mut self, bytes: &[u8], from: usize) {
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

    /// The text so far completed into valid JSON; `at_end`: no more text will come, so a number
    /// that ends it is final.
    pub(super) fn completion<'a>(
        &'a self,
        buf: &'a str,
        at_end: bool,
    ) -> Option<CompletedJson<'a>> {
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
        Some(CompletedJson {
            prefix: buf.get(..end)?,
            close_string,
            closers: &self.stack,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_stay_small() {
        // The scan state is copied on every byte; keep it a few words.
        assert!(std::mem::size_of::<State>() <= 24);
    }
}
