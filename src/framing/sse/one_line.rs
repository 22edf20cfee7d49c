//! The one-line event both fast paths read — a `data:` line and a blank line, each ending in LF
//! — where the decoder may start one, and how either passes over its bytes: shared by the
//! lending framer (`lending.rs`) and by events taken whole (`taken_whole.rs`), so neither
//! reaches into the other.

use super::SseDecoder;
use crate::framing::input::Input;
use crate::framing::lent::Lent;

/// The field of the one line such an event has.
pub(super) const DATA_FIELD: &[u8] = b"data:";

/// Whether an event whose one line is the first `line_len` bytes of `text` ends there, with a
/// blank line, within the size limit `max` (the line loop reports one past it).
pub(super) fn ends_one_line_event(text: &[u8], line_len: usize, max: usize) -> bool {
    text.get(line_len..line_len + 2) == Some(b"\n\n") && line_len <= max
}

/// Where the value of a `data:` line at the start of `text` begins: after the field and the
/// one space that may follow it.
pub(super) fn data_value_start(text: &str) -> Option<usize> {
    let value = text.as_bytes().strip_prefix(DATA_FIELD)?;
    Some(DATA_FIELD.len() + usize::from(value.first() == Some(&b' ')))
}

/// Takes the first `len` bytes of the lent read, which the input passes over.
pub(super) fn pass_over_lent(lent: &mut Lent<'_>, input: &mut Input, len: usize) {
    lent.advance(len);
    input.pass_over(len);
}

impl SseDecoder {
    /// Nothing of an event or a line is pending and nothing is held unread: the next byte
    /// starts a line, which may be framed in the lent read.
    pub(super) fn between_events(&self) -> bool {
        self.at_line_start() && self.pos == self.input.end() && self.input.takes_lent()
    }

    /// Nothing of an event or a line is pending: the byte at `pos` starts a line.
    pub(super) fn at_line_start(&self) -> bool {
        self.error.is_none()
            && !self.done
            && self.bom_checked
            && !self.skip_lf
            && self.event.start.is_none()
            && self.scan == self.pos
    }

    /// Passes over the next `len` bytes as one event: its number and offset.
    pub(super) fn pass_over(&mut self, len: usize) -> (u64, u64) {
        #[cfg(test)]
        {
            self.scanned += len as u64;
        }
        let offset = self.pos;
        self.pos += len as u64;
        self.scan = self.pos;
        self.events += 1;
        (self.events, offset)
    }
}
