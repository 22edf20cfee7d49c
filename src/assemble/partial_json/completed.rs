//! The text of a [`PartialJson`](super::PartialJson) completed into valid JSON: a borrowed
//! prefix of it and the few characters that close what is open.

use std::fmt;

use serde_json::Value;

/// The buffer as valid JSON: a prefix of it plus a few closing characters.
///
/// Borrowing the prefix instead of copying it keeps building one O(1), so a
/// view can be taken after every fragment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompletedJson<'a> {
    pub(super) prefix: &'a str,
    pub(super) close_string: bool,
    /// Closers of the open containers, outermost first.
    pub(super) closers: &'a [u8],
}

impl CompletedJson<'_> {
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

    /// Length in bytes of what [`CompletedJson::write_suffix`] appends.
    pub fn suffix_len(&self) -> usize {
        usize::from(self.close_string) + self.closers.len()
    }

    /// Parses prefix and suffix; `None` only where `serde_json` refuses valid
    /// JSON (nesting deeper than 128, a number out of `f64` range).
    pub(super) fn parse(&self) -> Option<Value> {
        let mut text = String::with_capacity(self.prefix.len() + self.suffix_len());
        text.push_str(self.prefix);
        self.write_suffix(&mut text);
        serde_json::from_str(&text).ok()
    }
}

impl fmt::Display for CompletedJson<'_> {
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
