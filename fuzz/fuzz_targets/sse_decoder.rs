//! Both framers (the SSE decoder and the NDJSON decoder) on arbitrary bytes: they never panic,
//! the frames and the error do not depend on how the input is cut into pushes, offsets and
//! numbers are consistent, an invalid-UTF-8 error names exactly the first bad byte, and the
//! buffers stay within the event limit.
#![no_main]

use deltafold::framing::{
    Frame, FrameDecoder, FramingError, NdjsonDecoder, SseDecoder, DEFAULT_MAX_EVENT_BYTES,
};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, PartialEq, Eq)]
struct Owned {
    event: Option<String>,
    data: String,
    id: Option<String>,
    retry: Option<u64>,
    number: u64,
    offset: u64,
    terminated: bool,
}

impl From<Frame<'_>> for Owned {
    fn from(frame: Frame<'_>) -> Self {
        Owned {
            event: frame.event.map(str::to_owned),
            data: frame.data.to_owned(),
            id: frame.id.map(str::to_owned),
            retry: frame.retry,
            number: frame.number,
            offset: frame.offset,
            terminated: frame.terminated,
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    frames: Vec<Owned>,
    error: Option<FramingError>,
    consumed: u64,
}

/// A framer under test: the shared contract, a name and a bounded constructor.
trait Framer: FrameDecoder {
    const NAME: &'static str;
    fn with_max(max: usize) -> Self;
}

impl Framer for SseDecoder {
    const NAME: &'static str = "SSE";
    fn with_max(max: usize) -> Self {
        SseDecoder::with_max_event_bytes(max)
    }
}

impl Framer for NdjsonDecoder {
    const NAME: &'static str = "NDJSON";
    fn with_max(max: usize) -> Self {
        NdjsonDecoder::with_max_line_bytes(max)
    }
}

/// Pushes each piece and drains the frames it completes, checking the memory bound after each.
fn decode<'a, F: Framer>(pieces: impl IntoIterator<Item = &'a [u8]>, max: usize) -> Outcome {
    let mut decoder = F::with_max(max);
    let mut frames = Vec::new();
    let mut error = None;
    'input: for piece in pieces {
        decoder.push(piece);
        loop {
            match decoder.next_frame() {
                Ok(Some(frame)) => frames.push(Owned::from(frame)),
                Ok(None) => break,
                Err(failure) => {
                    error = Some(failure);
                    break 'input;
                }
            }
        }
        // One event (at most `max` bytes of lines), its joined data, a partial UTF-8
        // sequence, the line end in progress, and the consumed input of the last push, which
        // is dropped at the next call.
        assert!(
            decoder.counts().buffered_bytes <= 2 * max + 8 + piece.len(),
            "{}: {} bytes buffered with max {max} after a push of {}",
            F::NAME,
            decoder.counts().buffered_bytes,
            piece.len()
        );
    }
    if error.is_none() {
        loop {
            match decoder.finish() {
                Ok(Some(frame)) => frames.push(Owned::from(frame)),
                Ok(None) => break,
                Err(failure) => {
                    error = Some(failure);
                    break;
                }
            }
        }
    }
    Outcome {
        frames,
        error,
        consumed: decoder.counts().bytes_consumed,
    }
}

fn check_invariants(name: &str, input: &[u8], outcome: &Outcome, max: usize) {
    let mut last_offset = None;
    for (position, frame) in outcome.frames.iter().enumerate() {
        assert_eq!(
            frame.number,
            position as u64 + 1,
            "frames are numbered in order"
        );
        assert!(last_offset < Some(frame.offset), "offsets increase");
        assert!((frame.offset as usize) < input.len());
        last_offset = Some(frame.offset);
        match name {
            "SSE" => assert!(!frame.data.contains('\r'), "a line end leaked into data"),
            _ => assert!(!frame.data.contains('\n'), "a line end leaked into a line"),
        }
        if let Some(event) = &frame.event {
            assert!(!event.is_empty() && !event.contains(['\r', '\n']));
        }
        assert!(
            frame.terminated || position + 1 == outcome.frames.len(),
            "only the last frame can lack its blank line"
        );
    }
    assert!(outcome.consumed as usize <= input.len());
    let valid_up_to = match std::str::from_utf8(input) {
        Ok(_) => None,
        Err(error) => Some(error.valid_up_to() as u64),
    };
    match &outcome.error {
        Some(FramingError::InvalidUtf8 { offset }) => {
            assert_eq!(Some(*offset), valid_up_to, "the first invalid byte")
        }
        Some(FramingError::EventTooLarge { offset, max: limit }) => {
            assert_eq!(*limit, max);
            assert!((*offset as usize) < input.len());
        }
        Some(other) => panic!("unknown framing error {other:?}"),
        None => assert_eq!(valid_up_to, None, "invalid UTF-8 went unreported"),
    }
}

/// Limits tried on every input: the default, one small enough that most inputs hit it, and one
/// in between. Fixed rather than drawn from the input, so that a crash minimises cleanly.
const LIMITS: [usize; 3] = [DEFAULT_MAX_EVENT_BYTES, 16, 4096];

/// Decodes with one framer at every limit and every cut, comparing the outcomes.
fn check_framer<F: Framer>(input: &[u8]) {
    for max in LIMITS {
        let whole = decode::<F>([input], max);
        check_invariants(F::NAME, input, &whole, max);
        let name = F::NAME;
        assert_eq!(
            decode::<F>(input.chunks(7), max),
            whole,
            "{name}: 7-byte pushes, max {max}"
        );
        if input.len() <= 4096 {
            assert_eq!(
                decode::<F>(input.chunks(1), max),
                whole,
                "{name}: byte-at-a-time pushes, max {max}"
            );
        }
    }
}

fuzz_target!(|input: &[u8]| {
    check_framer::<SseDecoder>(input);
    check_framer::<NdjsonDecoder>(input);
});
