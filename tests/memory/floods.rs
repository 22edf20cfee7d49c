//! Floods refused in bounded memory: a gibibyte without a newline, an event that never ends,
//! endless keep-alives, a million tool-call indices, 900,000 calls in one event, endless
//! malformed events in lenient mode — the peak heap stays a small multiple of the limit, and
//! input after a refusal costs nothing.

use deltafold::framing::DEFAULT_MAX_EVENT_BYTES;
use deltafold::{Assembler, Options};

use crate::counting::measure;
use crate::{assemble, drain, event, expect_error, partial, MIB};

/// 1 GiB without a newline, generated 64 KiB at a time: refused once one event passes the
/// 16 MiB default, holding a few dozen MiB; the rest of the GiB is then ignored at no cost —
/// pushing it allocates nothing.
#[test]
fn a_gibibyte_without_a_newline_is_refused_quickly_in_bounded_memory() {
    const GIB: usize = 1 << 30;
    let piece = vec![b'x'; 64 * 1024];
    let ((error, pushed_when_refused, rest), heap) = measure(|| {
        let mut assembler = Assembler::new();
        assembler.push(b"data: ");
        let mut pushed = 6;
        let error = loop {
            assert!(pushed < GIB, "the flood was never refused");
            assembler.push(&piece);
            pushed += piece.len();
            if let Err(error) = drain(&mut assembler) {
                break error;
            }
        };
        let refused_at = pushed;
        let ((), rest) = measure(|| {
            while pushed < GIB {
                assembler.push(&piece);
                pushed += piece.len();
            }
        });
        (error, refused_at, rest)
    });
    assert!(error.is_limit_exceeded(), "{error}");
    assert_eq!(error.location().map(|location| location.offset), Some(0));
    assert!(
        pushed_when_refused <= DEFAULT_MAX_EVENT_BYTES + 2 * piece.len(),
        "refused only after {pushed_when_refused} bytes"
    );
    assert!(
        heap.peak < 3 * DEFAULT_MAX_EVENT_BYTES,
        "held {} MiB",
        heap.peak / MIB
    );
    assert_eq!(
        (rest.allocations, rest.allocated),
        (0, 0),
        "the input after the refusal cost {rest:?}"
    );
}

/// An event whose data lines never end with a blank line is refused the same way.
#[test]
fn an_event_that_never_ends_is_refused_in_bounded_memory() {
    let limit = 4 * MIB;
    let piece = "data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n".repeat(1024);
    let (error, heap) = measure(|| {
        let mut assembler = Assembler::with_options(Options::new().max_event_bytes(limit));
        for _ in 0..(64 * MIB / piece.len()) {
            assembler.push(piece.as_bytes());
            if let Err(error) = drain(&mut assembler) {
                return error;
            }
        }
        panic!("64 MiB of data lines were never refused");
    });
    assert!(error.is_limit_exceeded(), "{error}");
    assert!(heap.peak < 4 * limit, "held {} MiB", heap.peak / MIB);
}

/// Keep-alive comments forever are not an error, and are not kept.
#[test]
fn endless_keep_alives_hold_no_memory() {
    let piece = ": keep-alive\n".repeat(4096);
    let (result, heap) = measure(|| {
        let mut assembler = Assembler::new();
        for _ in 0..(8 * MIB / piece.len()) {
            assembler.push(piece.as_bytes());
            drain(&mut assembler).expect("comments are not an error");
        }
        assembler.finish()
    });
    let error = expect_error(result);
    assert!(error.is_truncated(), "{error}");
    assert!(heap.peak < MIB, "held {} KiB", heap.peak / 1024);
}

/// A chunk carrying `count` tool calls with fresh indices from `first`.
fn tool_call_flood(first: usize, count: usize) -> String {
    let calls: Vec<String> = (first..first + count)
        .map(|index| format!("{{\"index\":{index},\"id\":\"c{index}\",\"function\":{{\"name\":\"f\",\"arguments\":\"\"}}}}"))
        .collect();
    event(&format!(
        "{{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{}]}}}}]}}",
        calls.join(",")
    ))
}

/// A million tool-call indices, 1000 per event: refused at the 1025th call (max_tool_calls), in
/// the second event, so the other 998 events are never pushed; with the 1024 accepted calls in
/// the partial message. The work up to the refusal is a bounded multiple of the bytes pushed
/// (each call a slot with its id, name and arguments: about 24 bytes allocated per byte today),
/// where work growing with the number of calls so far would be hundreds of times more.
#[test]
fn a_million_tool_call_indices_are_refused_quickly() {
    let ((error, events, pushed), heap) = measure(|| {
        let mut assembler = Assembler::new();
        let mut pushed = 0;
        for batch in 0..1000 {
            let chunk = tool_call_flood(batch * 1000, 1000);
            assembler.push(chunk.as_bytes());
            pushed += chunk.len();
            if let Err(error) = drain(&mut assembler) {
                return (error, batch + 1, pushed);
            }
        }
        panic!("a million tool calls were accepted");
    });
    assert!(error.is_limit_exceeded(), "{error}");
    assert!(error.to_string().contains("max_tool_calls"), "{error}");
    assert_eq!(error.location().map(|location| location.event), Some(2));
    assert_eq!(events, 2, "refused only after {events} events");
    let calls = partial(&error).message().map_or(0, |message| {
        message.tool_calls().count() + message.invalid_tool_calls().count()
    });
    assert_eq!(calls, 1024);
    assert!(
        heap.allocated < 64 * pushed,
        "{} bytes allocated for {pushed} bytes pushed",
        heap.allocated
    );
    assert!(heap.peak < 16 * MIB, "held {} MiB", heap.peak / MIB);
}

/// 900,000 tool calls in one event fit the 16 MiB event limit: the event is parsed whole, then
/// refused at the 1025th call. Memory stays a small multiple of the event limit.
#[test]
fn nine_hundred_thousand_tool_calls_in_one_event_are_refused_in_bounded_memory() {
    let calls: Vec<String> = (0..900_000)
        .map(|index| format!("{{\"index\":{index}}}"))
        .collect();
    let body = event(&format!(
        "{{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{}]}}}}]}}",
        calls.join(",")
    ));
    assert!(body.len() < DEFAULT_MAX_EVENT_BYTES);
    let (result, heap) = measure(|| assemble(body.as_bytes()));
    let error = expect_error(result);
    assert!(error.to_string().contains("max_tool_calls"), "{error}");
    assert!(
        heap.peak < 8 * DEFAULT_MAX_EVENT_BYTES,
        "held {} MiB for a {} MiB event",
        heap.peak / MIB,
        body.len() / MIB
    );
}

/// In lenient mode each skipped event leaves a warning: a stream of tiny malformed events must
/// not make the warnings outgrow the stream itself.
#[test]
fn lenient_warnings_stay_bounded() {
    let piece = "data: x\n\n".repeat(4096);
    let pushed = MIB;
    let (_, heap) = measure(|| {
        let mut assembler = Assembler::with_options(Options::new().lenient(true));
        for _ in 0..pushed / piece.len() {
            assembler.feed(piece.as_bytes()).unwrap();
        }
        assembler.finish()
    });
    assert!(
        heap.peak < pushed,
        "{} KiB of warnings for {} KiB of input",
        heap.peak / 1024,
        pushed / 1024
    );
}
