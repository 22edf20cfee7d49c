//! The input both framers hold: the bytes pushed and not yet dropped, checked as UTF-8 once, as
//! they arrive, and kept as text so that every line and field is lent out as a `&str` without
//! checking it again.

use super::error::FramingError;

const BOM: &str = "\u{FEFF}";

/// Pushed input, addressed by absolute stream offsets: dropping consumed input from the front
/// never has to rewrite an offset a framer holds.
#[derive(Debug, Default)]
pub(super) struct Input {
    /// Validated input; `text[0]` is at stream offset `base`. What lies before `kept` is
    /// consumed and waits to be removed in bulk, before a later push.
    text: String,
    base: u64,
    kept: u64,
    /// An incomplete UTF-8 sequence that ended the last push, waiting for its last bytes.
    incomplete: Vec<u8>,
    /// First invalid UTF-8 byte: nothing from there on is taken.
    bad_utf8: Option<u64>,
    /// No more input comes: the stream ended.
    eof: bool,
    pushed: u64,
}

impl Input {
    /// Takes bytes read from the network; ignored after an invalid byte or the end of input.
    pub(super) fn push(&mut self, mut bytes: &[u8]) {
        self.pushed += bytes.len() as u64;
        if self.eof || self.bad_utf8.is_some() {
            return;
        }
        self.compact();
        if !self.incomplete.is_empty() {
            bytes = self.complete_sequence(bytes);
        }
        // One check of the bytes up to the sequence the push leaves unfinished, if any.
        let cut = unfinished_tail(bytes);
        let (valid, rest) = match simdutf8::basic::from_utf8(&bytes[..cut]) {
            Ok(text) => (text, &bytes[cut..]),
            Err(_) => {
                // Invalid input: the stream ends here, so checking it again to find where is
                // no cost worth avoiding.
                let valid_up_to = std::str::from_utf8(&bytes[..cut])
                    .map_or_else(|error| error.valid_up_to(), str::len);
                let (valid, rest) = bytes.split_at(valid_up_to);
                (std::str::from_utf8(valid).unwrap_or_default(), rest)
            }
        };
        self.text.push_str(valid);
        if rest.is_empty() {
            return;
        }
        if is_incomplete(rest) {
            self.incomplete.extend_from_slice(rest);
        } else {
            self.bad_utf8 = Some(self.end());
        }
    }

    /// Completes the pending sequence with the first bytes of a push; returns the rest.
    fn complete_sequence<'b>(&mut self, bytes: &'b [u8]) -> &'b [u8] {
        let width = sequence_width(self.incomplete[0]);
        let take = width.saturating_sub(self.incomplete.len()).min(bytes.len());
        self.incomplete.extend_from_slice(&bytes[..take]);
        match std::str::from_utf8(&self.incomplete) {
            Ok(text) => {
                self.text.push_str(text);
                self.incomplete.clear();
            }
            Err(error) if error.error_len().is_none() => {}
            Err(_) => self.bad_utf8 = Some(self.end()),
        }
        if self.bad_utf8.is_some() {
            &[]
        } else {
            &bytes[take..]
        }
    }

    /// The input ended: an unfinished sequence at its end is invalid. Only the first call counts.
    pub(super) fn finish(&mut self) {
        if self.eof {
            return;
        }
        self.eof = true;
        if self.bad_utf8.is_none() && !self.incomplete.is_empty() {
            self.bad_utf8 = Some(self.end());
        }
        self.incomplete.clear();
    }

    /// Empties the input for a new stream, keeping the buffers' capacity.
    pub(super) fn reset(&mut self) {
        let mut text = std::mem::take(&mut self.text);
        let mut incomplete = std::mem::take(&mut self.incomplete);
        text.clear();
        incomplete.clear();
        *self = Input {
            text,
            incomplete,
            ..Input::default()
        };
    }

    /// Frees the buffers of a poisoned framer: nothing more will be read.
    pub(super) fn release(&mut self) {
        self.eof = true;
        self.base = self.end();
        self.kept = self.base;
        self.text = String::new();
        self.incomplete = Vec::new();
    }

    /// Whether a lent read may be framed where it lies, right after this input: nothing is
    /// waiting to complete a character and more input is taken.
    pub(super) fn takes_lent(&self) -> bool {
        self.incomplete.is_empty() && !self.is_closed()
    }

    /// Counts `len` bytes of a lent read, framed where they lie, as pushed and consumed: the
    /// input goes on after them. Everything held is consumed already.
    pub(super) fn pass_over(&mut self, len: usize) {
        self.pushed += len as u64;
        self.base = self.end() + len as u64;
        self.kept = self.base;
        self.text.clear();
    }

    /// Marks the input before `offset` as consumed: no frame refers to it any more.
    pub(super) fn drop_before(&mut self, offset: u64) {
        self.kept = offset.max(self.kept);
        if self.kept == self.end() {
            self.text.clear();
            self.base = self.kept;
        }
    }

    /// Removes consumed input before more is appended, once it is at least as large as what is
    /// kept: a push then moves at most as many bytes as it brings or frees, so many events in
    /// one push, or a long event over many pushes, never move the buffer again and again.
    fn compact(&mut self) {
        let dropped = self.index(self.kept);
        if dropped > 0 && dropped >= self.text.len() - dropped {
            self.text.drain(..dropped);
            self.base = self.kept;
        }
    }

    /// Where the validated input ends: the framers see no further.
    pub(super) fn end(&self) -> u64 {
        self.base + self.text.len() as u64
    }

    /// The input from `offset` to the end.
    pub(super) fn bytes_from(&self, offset: u64) -> &[u8] {
        &self.text.as_bytes()[self.index(offset)..]
    }

    pub(super) fn byte(&self, offset: u64) -> u8 {
        self.text.as_bytes()[self.index(offset)]
    }

    /// The text between two offsets. They lie next to ASCII delimiters (line ends, colons),
    /// so they are character boundaries; an error is only the safe way to say so.
    pub(super) fn text(&self, start: u64, end: u64) -> Result<&str, FramingError> {
        self.text
            .get(self.index(start)..self.index(end))
            .ok_or(FramingError::InvalidUtf8 { offset: start })
    }

    /// The length of the byte-order mark the input starts with (0 without one); `None` while
    /// no character has come to tell. Asked before anything is consumed.
    pub(super) fn leading_bom_len(&self) -> Option<u64> {
        // The mark is one character: it is either all in the text or not there.
        if self.text.is_empty() && !self.is_closed() {
            return None;
        }
        Some(if self.text.starts_with(BOM) {
            BOM.len() as u64
        } else {
            0
        })
    }

    pub(super) fn bad_utf8(&self) -> Option<u64> {
        self.bad_utf8
    }

    pub(super) fn is_eof(&self) -> bool {
        self.eof
    }

    /// No more input will be taken: the stream ended, or was cut at an invalid byte.
    pub(super) fn is_closed(&self) -> bool {
        self.eof || self.bad_utf8.is_some()
    }

    /// Bytes held that a framer has not consumed yet.
    pub(super) fn held(&self) -> usize {
        (self.end() - self.kept) as usize
    }

    /// Total bytes pushed, including ignored ones.
    pub(super) fn pushed(&self) -> u64 {
        self.pushed
    }

    /// The buffer's size, which must stay bounded however long the stream.
    #[cfg(test)]
    pub(super) fn capacity(&self) -> usize {
        self.text.capacity()
    }

    #[cfg(test)]
    pub(super) fn as_str(&self) -> &str {
        &self.text
    }

    fn index(&self, offset: u64) -> usize {
        (offset - self.base) as usize
    }
}

/// The length of the sequence a lead byte starts (a byte that cannot lead counts as 1, which
/// makes the check that follows fail).
fn sequence_width(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

/// Where a character that the bytes leave unfinished starts: a lead byte among the last three
/// that wants more bytes than follow it. The length of `bytes` when there is none.
pub(super) fn unfinished_tail(bytes: &[u8]) -> usize {
    let len = bytes.len();
    for back in 1..=len.min(3) {
        let byte = bytes[len - back];
        let continuation = byte & 0xC0 == 0x80;
        if !continuation {
            return if sequence_width(byte) > back {
                len - back
            } else {
                len
            };
        }
    }
    len
}

/// Whether bytes that failed to decode at the very end of the input could still become a
/// character once more bytes come.
fn is_incomplete(bytes: &[u8]) -> bool {
    matches!(std::str::from_utf8(bytes), Err(error) if error.error_len().is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pushed(pieces: &[&[u8]]) -> Input {
        let mut input = Input::default();
        for piece in pieces {
            input.push(piece);
        }
        input
    }

    #[test]
    fn a_character_split_across_pushes_is_joined() {
        let euro = "€".as_bytes();
        let input = pushed(&[b"a", &euro[..1], &euro[1..2], &euro[2..], b"b"]);
        assert_eq!(input.text(0, input.end()).unwrap(), "a€b");
        assert_eq!(input.bad_utf8(), None);
    }

    #[test]
    fn an_invalid_byte_stops_the_input_at_its_offset() {
        for pieces in [
            &[&b"ab\xFFcd"[..]][..],
            &[b"ab\xE2", b"\x28"],
            &[b"ab", b"\xE2\x82", b"x"],
        ] {
            let mut input = pushed(pieces);
            assert_eq!(input.bad_utf8(), Some(2), "{pieces:?}");
            input.push(b"more");
            assert_eq!(input.end(), 2);
        }
    }

    #[test]
    fn an_unfinished_sequence_at_the_end_is_invalid() {
        let mut input = pushed(&[b"ab\xF0\x9F"]);
        assert_eq!(input.bad_utf8(), None);
        input.finish();
        assert_eq!(input.bad_utf8(), Some(2));
    }

    #[test]
    fn consumed_input_is_dropped_in_bulk_before_a_push() {
        let mut input = pushed(&[b"0123456789"]);
        input.drop_before(3);
        assert_eq!((input.held(), input.text(3, 10).unwrap()), (7, "3456789"));
        input.push(b"a");
        assert_eq!(
            input.text.len(),
            11,
            "3 of 10 bytes are not worth a move yet"
        );
        input.drop_before(6);
        assert_eq!(input.text.len(), 11, "nothing moves between pushes");
        input.push(b"b");
        assert_eq!(input.text(6, 12).unwrap(), "6789ab");
        assert_eq!(input.text.len(), 6);
        input.drop_before(12);
        assert_eq!((input.held(), input.text.len()), (0, 0));
    }
}
