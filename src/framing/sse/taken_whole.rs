//! An event taken whole by a reader that knows its `data:` value: the decoder hands out the
//! value from its start on — from a lent read, or from the input pushed — and the reader, once
//! it has found where the value ends, takes the event if a blank line ends it right there. The
//! event is then counted and passed over as the line loop would have framed it, without a
//! frame.

use super::one_line::{data_value_start, ends_one_line_event, pass_over_lent, EventCount};
use super::SseDecoder;
use crate::framing::input::Input;
use crate::framing::lent::Lent;

/// Takes the event whose `data:` line a reader was given, once it knows the value's length.
pub(crate) struct EventEnd<'d, 'b> {
    /// The event's text from its `data:` on, to the end of what is at hand.
    line: &'d [u8],
    value_start: usize,
    max: usize,
    /// The lent read the line is in, and the input it is passed over in; `None` for a line
    /// of the input pushed.
    lent: Option<(&'d mut Lent<'b>, &'d mut Input)>,
    count: EventCount<'d>,
}

impl EventEnd<'_, '_> {
    /// Takes the event if a blank line follows the first `value_len` bytes of the value, which
    /// the reader found to hold no line break, and it is within the size limit: the event's
    /// number and offset, as the line loop would have framed it. `None`, with nothing taken,
    /// for anything else.
    #[inline]
    pub(crate) fn take(self, value_len: usize) -> Option<(u64, u64)> {
        let line_len = self.value_start + value_len;
        if !ends_one_line_event(self.line, line_len, self.max) {
            return None;
        }
        let len = line_len + 2;
        if let Some((lent, input)) = self.lent {
            pass_over_lent(lent, input, len);
        }
        Some(self.count.pass(len))
    }
}

impl SseDecoder {
    /// The value of the next event's `data:` line, from its start to the end of the text at
    /// hand, and what takes the event once the caller knows where the value ends: from `lent`
    /// when everything pushed before is taken, else from the input pushed. `None` unless a line
    /// starts there and its field is `data`.
    ///
    /// From the input pushed, a line is offered at most once: the line loop, taking it when
    /// the caller does not, goes on from where its search stopped.
    #[inline]
    pub(crate) fn data_line<'d, 'b>(
        &'d mut self,
        lent: Option<&'d mut Lent<'b>>,
    ) -> Option<(&'d str, EventEnd<'d, 'b>)> {
        let ready = match &lent {
            Some(_) => self.between_events(),
            None => self.at_line_start() && self.pos < self.input.end(),
        };
        if !ready {
            return None;
        }
        let max = self.max;
        let (input, count) = self.split_count();
        let (text, lent) = match lent {
            Some(lent) => (lent.text(), Some((lent, input))),
            None => {
                let input: &'d Input = input;
                (input.text(*count.pos, input.end()).ok()?, None)
            }
        };
        let value_start = data_value_start(text)?;
        let end = EventEnd {
            line: text.as_bytes(),
            value_start,
            max,
            lent,
            count,
        };
        Some((&text[value_start..], end))
    }
}
