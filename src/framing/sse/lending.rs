//! Frames a lent read where it lies. Between events, an event of one `data:` line and a blank
//! line, both ending in LF — nearly every event a chat stream sends — is lent out of the read
//! itself; anything else, and an event the read leaves unfinished, is copied into the buffer
//! one piece at a time and framed there by the line loop, so every rule holds as for `push`.

use super::one_line::{data_value_start, ends_one_line_event, pass_over_lent, DATA_FIELD};
use super::SseDecoder;
use crate::framing::decoder::FrameDecoder;
use crate::framing::error::FramingError;
use crate::framing::frame::Frame;
use crate::framing::lent::Lent;

impl SseDecoder {
    /// The next event of the input pushed before and then of `lent`; `Ok(None)` once every
    /// lent byte is taken (framed, or copied for an event still unfinished), when more input is
    /// needed. The same frames, errors and counts as pushing the read and calling
    /// [`next_frame`](FrameDecoder::next_frame).
    pub(crate) fn next_lent<'s, 'b: 's>(
        &'s mut self,
        lent: &mut Lent<'b>,
    ) -> Result<Option<Frame<'s>>, FramingError> {
        loop {
            if self.between_events() {
                if let Some((value, line_end)) = self.lent_data_line(lent.text()) {
                    return Ok(Some(self.lend_event(lent, value, line_end)));
                }
            }
            let dispatched = self.step()?;
            if dispatched.is_some() {
                return self.emit(dispatched);
            }
            let pieces = lent.take_piece();
            if pieces.iter().all(|piece| piece.is_empty()) {
                return Ok(None);
            }
            pieces.iter().for_each(|piece| self.push(piece));
        }
    }

    /// Where the value of a one-line `data:` event at the start of `text` begins and its line
    /// ends, if `text` starts with one within the size limit (the line loop reports one past
    /// it).
    fn lent_data_line(&self, text: &str) -> Option<(usize, usize)> {
        let value_start = data_value_start(text)?;
        let value = &text.as_bytes()[DATA_FIELD.len()..];
        let eol = memchr::memchr2(b'\n', b'\r', value)?;
        let line_end = DATA_FIELD.len() + eol;
        ends_one_line_event(text.as_bytes(), line_end, self.max).then_some((value_start, line_end))
    }

    fn lend_event<'s, 'b: 's>(
        &'s mut self,
        lent: &mut Lent<'b>,
        value: usize,
        line_end: usize,
    ) -> Frame<'s> {
        let text = lent.text();
        let (number, offset) = self.pass_over_event(lent, line_end + 2);
        Frame {
            event: None,
            data: &text[value..line_end],
            id: self.last_id.as_deref(),
            retry: None,
            number,
            offset,
            terminated: true,
        }
    }

    /// Takes the first `len` lent bytes as the next event: its number and offset.
    fn pass_over_event(&mut self, lent: &mut Lent<'_>, len: usize) -> (u64, u64) {
        pass_over_lent(lent, &mut self.input, len);
        self.pass_over(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every frame of `reads` through `next_lent`, and through `push` + `next_frame`.
    fn both_ways(reads: &[&[u8]], max: usize) -> [Vec<String>; 2] {
        let describe = |frame: Frame<'_>| {
            format!(
                "{:?} {:?} {:?} {:?} #{} @{}",
                frame.event, frame.data, frame.id, frame.retry, frame.number, frame.offset
            )
        };
        let mut lending = SseDecoder::with_max_event_bytes(max);
        let mut pushing = SseDecoder::with_max_event_bytes(max);
        let [mut lent_frames, mut pushed_frames] = [Vec::new(), Vec::new()];
        for read in reads {
            let mut lent = Lent::new(read);
            loop {
                match lending.next_lent(&mut lent) {
                    Ok(Some(frame)) => lent_frames.push(describe(frame)),
                    Ok(None) => break,
                    Err(error) => {
                        lent_frames.push(error.to_string());
                        break;
                    }
                }
            }
            assert!(lent.is_empty() || lending.error.is_some());
            pushing.push(read);
            loop {
                match pushing.next_frame() {
                    Ok(Some(frame)) => pushed_frames.push(describe(frame)),
                    Ok(None) => break,
                    Err(error) => {
                        pushed_frames.push(error.to_string());
                        break;
                    }
                }
            }
        }
        for (decoder, frames) in [
            (&mut lending, &mut lent_frames),
            (&mut pushing, &mut pushed_frames),
        ] {
            match decoder.finish() {
                Ok(Some(frame)) => frames.push(describe(frame)),
                Ok(None) => {}
                Err(error) => frames.push(error.to_string()),
            }
            frames.push(format!("consumed {}", decoder.counts().bytes_consumed));
        }
        [lent_frames, pushed_frames]
    }

    #[test]
    fn lent_reads_frame_as_pushed_ones() {
        let stream: &[u8] =
            b"\xEF\xBB\xBFdata: a\n\ndata:b\n\n: ping\n\nid: 7\ndata: c\ndata: d\n\n\
            data: e\r\n\r\ndata: \xE2\x82\xAC\n\nevent: x\ndata: f\n\ndata: g\n\ndata: h";
        for size in [1, 2, 3, 5, 8, 13, stream.len()] {
            let reads: Vec<&[u8]> = stream.chunks(size).collect();
            let [lent, pushed] = both_ways(&reads, 1024);
            assert_eq!(lent, pushed, "reads of {size}");
        }
    }

    #[test]
    fn limits_and_bad_bytes_fail_as_when_pushed() {
        for stream in [
            &b"data: a\n\ndata: 0123456789\n\n"[..],
            b"data: a\n\ndata: b\xFF\n\ndata: c\n\n",
            b"data: a\n\ndata: b\xE2\x82",
        ] {
            for size in [1, 4, stream.len()] {
                let reads: Vec<&[u8]> = stream.chunks(size).collect();
                let [lent, pushed] = both_ways(&reads, 8);
                assert_eq!(lent, pushed, "{stream:?} in reads of {size}");
            }
        }
    }

    /// Streams of the pieces an event stream is made of, odd ones included, cut into reads of
    /// random sizes, and an event size limit.
    fn streams_in_reads() -> impl proptest::strategy::Strategy<Value = (Vec<Vec<u8>>, usize)> {
        use proptest::prelude::*;
        let piece = proptest::sample::select(vec![
            &b"data:"[..],
            b"data: ",
            b"x",
            b"{\"a\":1}",
            b"\n",
            b"\n\n",
            b"\r",
            b"\r\n",
            b":",
            b"event: e",
            b"id: 1",
            b"retry: 5",
            b"\xE2\x82\xAC",
            b"\xE2",
            b"\xFF",
            b"\xEF\xBB\xBF",
        ]);
        let pieces = proptest::collection::vec(piece, 0..40);
        let cuts = proptest::collection::vec(1usize..80, 1..8);
        (pieces, cuts, 4usize..40).prop_map(|(pieces, cuts, max)| {
            let stream = pieces.concat();
            let mut reads = Vec::new();
            let mut rest = &stream[..];
            for cut in cuts.iter().cycle() {
                if rest.is_empty() {
                    break;
                }
                let (read, after) = rest.split_at((*cut).min(rest.len()));
                reads.push(read.to_vec());
                rest = after;
            }
            (reads, max)
        })
    }

    /// Each event's data, number and offset, then the bytes consumed: every event of one-line
    /// data that the decoder offers taken whole by a reader that ends its value at the first
    /// line break, lent (`lend`) or pushed, and every other event framed.
    fn taking_whole(reads: &[Vec<u8>], max: usize, lend: bool) -> Vec<String> {
        let mut decoder = SseDecoder::with_max_event_bytes(max);
        let mut seen = Vec::new();
        let describe =
            |data: &str, number: u64, offset: u64| format!("{data:?} #{number} @{offset}");
        'reads: for read in reads {
            let mut lent = Lent::new(read);
            if !lend {
                decoder.push(read);
            }
            loop {
                let taken = decoder.data_line(lend.then_some(&lent)).and_then(|line| {
                    let value = line.value();
                    let eol = memchr::memchr2(b'\n', b'\r', value.as_bytes())?;
                    let len = line.event_len(eol)?;
                    let seen = describe(&value[..eol], line.number(), line.offset());
                    Some((seen, len))
                });
                if let Some((described, len)) = taken {
                    decoder.pass_over_data_event(lend.then_some(&mut lent), len);
                    seen.push(described);
                    continue;
                }
                let framed = match lend {
                    true => decoder.next_lent(&mut lent),
                    false => decoder.next_frame(),
                };
                match framed {
                    Ok(Some(frame)) => seen.push(describe(frame.data, frame.number, frame.offset)),
                    Ok(None) => break,
                    Err(error) => {
                        seen.push(error.to_string());
                        break 'reads;
                    }
                }
            }
        }
        match decoder.finish() {
            Ok(Some(frame)) => seen.push(describe(frame.data, frame.number, frame.offset)),
            Ok(None) => {}
            Err(error) => seen.push(error.to_string()),
        }
        seen.push(format!("consumed {}", decoder.counts().bytes_consumed));
        seen
    }

    /// Every event framed by the line loop alone: pushed a byte at a time, no event is offered.
    fn framed_bytewise(reads: &[Vec<u8>], max: usize) -> Vec<String> {
        let bytes: Vec<Vec<u8>> = reads.concat().into_iter().map(|byte| vec![byte]).collect();
        taking_whole(&bytes, max, false)
    }

    proptest::proptest! {
        #[test]
        fn any_stream_in_any_reads_frames_as_pushed((reads, max) in streams_in_reads()) {
            let reads: Vec<&[u8]> = reads.iter().map(Vec::as_slice).collect();
            let [lent, pushed] = both_ways(&reads, max);
            proptest::prop_assert_eq!(lent, pushed);
        }

        #[test]
        fn events_taken_whole_count_as_framed_ones((reads, max) in streams_in_reads()) {
            let framed = framed_bytewise(&reads, max);
            proptest::prop_assert_eq!(&taking_whole(&reads, max, true), &framed);
            proptest::prop_assert_eq!(&taking_whole(&reads, max, false), &framed);
        }
    }

    #[test]
    fn events_between_events_are_not_copied() {
        let mut decoder = SseDecoder::new();
        let read = b"data: a\n\ndata: b\n\ndata: c\n\ndata: d";
        let mut lent = Lent::new(read);
        let mut data = Vec::new();
        while let Some(frame) = decoder.next_lent(&mut lent).unwrap() {
            data.push(frame.data.as_ptr());
        }
        // The first event is framed in the buffer (the byte-order mark is looked for there),
        // the next two where they lie, and the unfinished last one is held.
        assert!(!read.as_ptr_range().contains(&data[0]));
        assert!(data[1..].iter().all(|at| read.as_ptr_range().contains(at)));
        assert_eq!(decoder.counts().buffered_bytes, b"data: d".len());
    }
}
