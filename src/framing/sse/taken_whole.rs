//! An event taken whole by a reader that knows its `data:` value, in two plain calls: the
//! decoder shows the value of the next `data:` line from its start on — in a lent read, or in
//! the input pushed — as a [`DataLine`]; the reader, having found where the value ends, asks the
//! line whether a blank line ends the event right there, and if so takes the event with
//! [`SseDecoder::pass_over_data_event`]. The event is then counted and passed over as the line
//! loop would have framed it, without a frame.

use super::one_line::{data_value_start, ends_one_line_event, pass_over_lent};
use super::SseDecoder;
use crate::framing::Lent;

/// The next event's `data:` line, from its field to the end of the text at hand: what a reader
/// that takes the event whole looks at before anything is taken.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DataLine<'a> {
    /// The event's text from its `data:` on.
    line: &'a str,
    value_start: usize,
    max: usize,
    /// The number and offset the event would have.
    number: u64,
    offset: u64,
}

impl<'a> DataLine<'a> {
    /// The line's value, from its start to the end of the text at hand.
    #[inline]
    pub(crate) fn value(&self) -> &'a str {
        &self.line[self.value_start..]
    }

    /// The length of the whole event if a blank line follows the first `value_len` bytes of the
    /// value, which the reader found to hold no line break, and it is within the size limit;
    /// `None` for anything else, which the line loop frames as usual.
    #[inline]
    pub(crate) fn event_len(&self, value_len: usize) -> Option<usize> {
        let line_len = self.value_start + value_len;
        ends_one_line_event(self.line.as_bytes(), line_len, self.max).then_some(line_len + 2)
    }

    /// The number the event would have: one past the events dispatched.
    pub(crate) fn number(&self) -> u64 {
        self.number
    }

    /// The offset of the event's first byte in the stream.
    pub(crate) fn offset(&self) -> u64 {
        self.offset
    }
}

impl SseDecoder {
    /// The next event's `data:` line, from `lent` when everything pushed before is taken, else
    /// from the input pushed. `None` unless a line starts there and its field is `data`.
    ///
    /// From the input pushed, a line is shown at most once: the line loop, taking it when the
    /// reader does not, goes on from where its search stopped.
    #[inline]
    pub(crate) fn data_line<'a>(&'a self, lent: Option<&Lent<'a>>) -> Option<DataLine<'a>> {
        let line = match lent {
            Some(lent) if self.between_events() => lent.text(),
            None if self.at_line_start() && self.pos < self.input.end() => {
                self.input.text(self.pos, self.input.end()).ok()?
            }
            _ => return None,
        };
        Some(DataLine {
            line,
            value_start: data_value_start(line)?,
            max: self.max,
            number: self.events + 1,
            offset: self.pos,
        })
    }

    /// Takes the next `len` bytes — of `lent`, or of the input pushed when none is lent — as
    /// one event, where [`DataLine::event_len`] said it ends.
    pub(crate) fn pass_over_data_event(&mut self, lent: Option<&mut Lent<'_>>, len: usize) {
        if let Some(lent) = lent {
            pass_over_lent(lent, &mut self.input, len);
        }
        self.pass_over(len);
    }
}
