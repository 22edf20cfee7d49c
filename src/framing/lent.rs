//! Bytes the caller lends for one call, checked as UTF-8 once and framed where they lie: only
//! what no frame takes whole (an event cut by the end of the read, a line the lending path does
//! not frame) is copied into a decoder's own buffer.

use super::input::unfinished_tail;

/// A read lent to a framer, taken from the front as it is framed or copied.
#[derive(Debug)]
pub(crate) struct Lent<'b> {
    /// The checked part not taken yet.
    text: &'b str,
    /// What follows it unchecked: a character the read leaves unfinished, or everything from
    /// the start of a read that does not check (the buffered path then finds where it fails).
    rest: &'b [u8],
}

impl<'b> Lent<'b> {
    pub(crate) fn new(bytes: &'b [u8]) -> Self {
        let cut = unfinished_tail(bytes);
        match simdutf8::basic::from_utf8(&bytes[..cut]) {
            Ok(text) => Lent {
                text,
                rest: &bytes[cut..],
            },
            Err(_) => Lent {
                text: "",
                rest: bytes,
            },
        }
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.text.is_empty() && self.rest.is_empty()
    }

    /// The checked text not taken yet.
    pub(crate) fn text(&self) -> &'b str {
        self.text
    }

    /// The first bytes not taken yet, checked or not: enough to sniff a framing from.
    pub(super) fn first_bytes(&self) -> &'b [u8] {
        if self.text.is_empty() {
            self.rest
        } else {
            self.text.as_bytes()
        }
    }

    /// Takes the first `len` bytes of the checked text, which the caller framed.
    pub(super) fn advance(&mut self, len: usize) {
        self.text = &self.text[len..];
    }

    /// Takes everything up to the end of the next blank line (`\n\n`), where an event most
    /// likely ends, or all that is left: the piece a buffered path takes next. At most two
    /// pieces, the checked one first; both empty once nothing is left.
    pub(super) fn take_piece(&mut self) -> [&'b [u8]; 2] {
        if self.text.is_empty() {
            return [std::mem::take(&mut self.rest), &[]];
        }
        let bytes = self.text.as_bytes();
        match memchr::memmem::find(bytes, b"\n\n") {
            Some(at) => {
                let (piece, text) = self.text.split_at(at + 2);
                self.text = text;
                [piece.as_bytes(), &[]]
            }
            None => [
                std::mem::take(&mut self.text).as_bytes(),
                std::mem::take(&mut self.rest),
            ],
        }
    }

    /// Takes all that is left, for a framer that copies every read.
    pub(super) fn take_all(&mut self) -> [&'b [u8]; 2] {
        [
            std::mem::take(&mut self.text).as_bytes(),
            std::mem::take(&mut self.rest),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_end_after_blank_lines_and_keep_every_byte() {
        let mut lent = Lent::new(b"data: a\n\n: ping\n\ndata: b\xE2\x82");
        assert_eq!(lent.take_piece(), [&b"data: a\n\n"[..], b""]);
        lent.advance(": ping\n\n".len());
        assert_eq!(lent.text(), "data: b");
        assert_eq!(lent.take_piece(), [&b"data: b"[..], b"\xE2\x82"]);
        assert!(lent.is_empty());
    }

    #[test]
    fn a_read_that_does_not_check_is_left_whole() {
        let mut lent = Lent::new(b"data: \xFF\n\n");
        assert_eq!(lent.text(), "");
        assert_eq!(lent.first_bytes(), b"data: \xFF\n\n");
        assert_eq!(lent.take_piece(), [&b"data: \xFF\n\n"[..], b""]);
        assert!(lent.is_empty());
    }
}
