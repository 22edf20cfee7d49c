//! The encoders under the assembler's own oracles (issue 25 item 3): every hostile class read
//! and re-encoded into every target through `Encoder::try_encode` — each event's output handed
//! on and dropped, as a server sends it — must hold within the bound the assembler alone is held
//! to (peak heap; under a limit, what the encoder holds counts against the same budget) and do
//! work linear in its input (bytes allocated); and the two shapes that once broke an encoder
//! (many closed Responses items, many calls re-encoded to chat) grow linearly when doubled.

use deltafold::encode::{Encoder, Target};
use deltafold::{Assembler, Completion, Error, Options};

use crate::counting::{measure, HeapUse};
use crate::support::hostile::{Class, Cost};
use crate::MIB;

/// Assembles `bytes` pushed in 16 KiB reads, every event re-encoded into `target`; returns the
/// outcome and the bytes of output written.
pub(crate) fn reencode(
    bytes: &[u8],
    options: Options,
    target: Target,
) -> (Result<Completion, Error>, usize) {
    let mut assembler = Assembler::with_options(options);
    let mut encoder = Encoder::new(target);
    let mut out = String::new();
    let mut written = 0;
    let mut step = |assembler: &mut Assembler, out: &mut String| -> Result<(), Error> {
        while let Some(event) = assembler.next_event()? {
            let event = event.into_owned();
            let encoded = encoder.try_encode(&event, assembler, out);
            written += out.len();
            out.clear();
            encoded?;
        }
        Ok(())
    };
    for read in bytes.chunks(16 * 1024) {
        assembler.push(read);
        if let Err(error) = step(&mut assembler, &mut out) {
            return (Err(error), written);
        }
    }
    assembler.end_input();
    if let Err(error) = step(&mut assembler, &mut out) {
        return (Err(error), written);
    }
    encoder.finish(&mut out);
    written += out.len();
    (assembler.finish(), written)
}

#[test]
fn every_class_reencoded_into_every_target_holds_the_assemblers_bound() {
    let mut failures = Vec::new();
    for class in Class::ALL {
        for limited in [None, Some(MIB / 4)] {
            let case = class.case(MIB / 2, class.default_width().min(16 * 1024), limited);
            for target in Target::ALL {
                let ((outcome, _), heap) =
                    measure(|| reencode(&case.bytes, case.options(), target));
                let cost = Cost {
                    peak: heap.peak,
                    allocated: heap.allocated,
                };
                if let Err(failure) = case.check(&outcome, cost) {
                    failures.push(format!(
                        "{} → {target} ({limited:?}): {failure}",
                        class.name()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A chat stream of `calls` small tool calls, each in three fragments, then text.
fn many_calls(calls: usize) -> Vec<u8> {
    let mut stream = String::new();
    for call in 0..calls {
        stream.push_str(&format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{call},\"id\":\"c{call}\",\"type\":\"function\",\"function\":{{\"name\":\"f\",\"arguments\":\"{{\\\"a\\\"\"}}}}]}}}}]}}\n\n"
        ));
        stream.push_str(&format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{call},\"function\":{{\"arguments\":\":1\"}}}}]}}}}]}}\n\n"
        ));
        stream.push_str(&format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{call},\"function\":{{\"arguments\":\"}}\"}}}}]}}}}]}}\n\n"
        ));
    }
    stream.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n");
    stream.into_bytes()
}

/// Asserts the allocations and bytes allocated of `work` at most double (×1.25 room) from
/// `n` to `2n` to `4n` units.
fn assert_linear(name: &str, n: usize, mut work: impl FnMut(usize) -> HeapUse) {
    work(n);
    let costs: Vec<HeapUse> = [n, 2 * n, 4 * n].into_iter().map(&mut work).collect();
    for pair in costs.windows(2) {
        for (what, before, after) in [
            ("allocations", pair[0].allocations, pair[1].allocations),
            ("bytes allocated", pair[0].allocated, pair[1].allocated),
            ("peak", pair[0].peak, pair[1].peak),
        ] {
            let ratio = after as f64 / before.max(1) as f64;
            assert!(
                ratio <= 2.5,
                "{name}: {what} rose {ratio:.2}× on doubled input ({before} → {after})"
            );
        }
    }
}

#[test]
fn many_tool_calls_reencode_in_linear_work_into_every_target() {
    let limits = Options::new().max_tool_calls(1 << 16);
    for target in Target::ALL {
        assert_linear(&format!("calls → {target}"), 1_000, |calls| {
            let bytes = many_calls(calls);
            let ((outcome, written), heap) = measure(|| reencode(&bytes, limits.clone(), target));
            assert_eq!(outcome.unwrap().into_message().tool_calls().count(), calls);
            assert!(written > 0);
            heap
        });
    }
}

/// Responses' `response.completed` repeats every closed item: they are held as their JSON text,
/// so the encoder adds at most twice the input to what the assembler alone holds (as parsed
/// values, 1.8 MB of calls once held 88 MB). Relative to the assembler, since its own peak
/// depends on serde_json's map (3.2× the input without `preserve_order`).
#[test]
fn closed_responses_items_are_held_as_text() {
    let bytes = many_calls(8_000);
    let limits = Options::new().max_tool_calls(1 << 16);
    let (_, alone) = measure(|| deltafold::assemble(&bytes, limits.clone()).unwrap());
    let ((outcome, _), encoded) =
        measure(|| reencode(&bytes, limits.clone(), Target::OpenAiResponses));
    outcome.unwrap();
    let bound = alone.peak + 2 * bytes.len() + 256 * 1024;
    assert!(
        encoded.peak <= bound,
        "peak {} re-encoding {} bytes to Responses (the assembler alone: {}; bound {bound})",
        encoded.peak,
        bytes.len(),
        alone.peak
    );
}

/// What an encoder holds for its closing events counts against the message's budget: refusal
/// and text taking turns make a Responses message part per byte, repeated in
/// `response.completed`; under a limit `try_encode` stops with a typed error carrying the
/// message so far (the encoder used to hold 2.8 MB for 0.5 MB under a 256 KiB limit).
#[test]
fn the_responses_encoder_holds_within_the_message_limit() {
    let case = Class::RefusalTextTurns.case(MIB / 2, 1, Some(MIB / 4));
    let ((outcome, _), heap) =
        measure(|| reencode(&case.bytes, case.options(), Target::OpenAiResponses));
    let error = outcome.unwrap_err();
    assert!(error.is_limit_exceeded(), "{error}");
    assert!(
        error
            .to_string()
            .contains("re-encoding into openai-responses"),
        "{error}"
    );
    let partial = error.partial().expect("the message so far");
    assert!(!partial.complete);
    assert!(!partial.choices[0].message.text().is_empty());
    assert!(error.location().is_some());
    assert!(heap.peak <= MIB, "peak {}", heap.peak);
    let (unlimited, _) = reencode(&case.bytes, Options::new(), Target::OpenAiResponses);
    unlimited.unwrap();
}

/// The `Stream` adapter re-encodes through `try_encode`: past the budget it yields the error
/// last, and the split-off completion gets it with the message so far.
#[test]
fn the_encode_stream_ends_with_the_limit_error_and_its_partial() {
    use deltafold::encode::EncodeExt;
    use deltafold::AssembleExt;
    use futures::StreamExt;

    let case = Class::RefusalTextTurns.case(MIB / 2, 1, Some(MIB / 4));
    let reads: Vec<Result<Vec<u8>, std::io::Error>> = case
        .bytes
        .chunks(16 * 1024)
        .map(|read| Ok(read.to_vec()))
        .collect();
    let (sse, completion) = futures::stream::iter(reads)
        .assemble_with(case.options())
        .encode(Target::OpenAiResponses)
        .with_completion();
    futures::executor::block_on(async {
        let items: Vec<Result<String, Error>> = sse.collect().await;
        let last = items.last().unwrap().as_ref().unwrap_err();
        assert!(last.is_limit_exceeded(), "{last}");
        assert!(items[..items.len() - 1].iter().all(Result::is_ok));
        let error = completion.await.unwrap_err();
        assert!(error.is_limit_exceeded(), "{error}");
        assert!(!error.partial().unwrap().choices.is_empty());
    });
}

/// The limit error takes the message out of the assembler rather than copying it beside it: a
/// response holding a large parsed field (20,000 `{}`, about 2.2 MB of values) whose re-encoding
/// passes the budget peaks at 4.4 MB under a 4 MiB limit (with `preserve_order`); with the
/// error carrying a copy of the message so far it peaked at 5.9 MB.
#[test]
fn the_limit_error_moves_the_message_so_far() {
    let field = vec!["{}"; 20_000].join(",");
    let mut stream = format!(
        "data: {{\"id\":\"c\",\"x\":[{field}],\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"a\"}}}}]}}\n\n"
    );
    for _ in 0..50_000 {
        stream.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"r\"}}]}\n\n");
        stream.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"t\"}}]}\n\n");
    }
    let options = Options::new().max_message_bytes(4 * MIB);
    let ((outcome, _), heap) =
        measure(|| reencode(stream.as_bytes(), options.clone(), Target::OpenAiResponses));
    let error = outcome.unwrap_err();
    assert!(error.is_limit_exceeded(), "{error}");
    let partial = error.partial().expect("the message so far");
    let message = partial.message().unwrap();
    assert_eq!(
        message.response_metadata.extra["x"]
            .as_array()
            .map(Vec::len),
        Some(20_000)
    );
    assert!(heap.peak <= 5 * MIB, "peak {}", heap.peak);
}

/// A chat stream that opens a call, then sends `turns` runs of refusal and of text taking
/// turns, each of `deltas` deltas of `text_bytes`, then the call's arguments and its end.
fn turns_behind_a_call(turns: usize, deltas: usize, text_bytes: usize) -> String {
    let text = "t".repeat(text_bytes);
    let mut stream = String::from("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"\"}}]}}]}\n\n");
    for _ in 0..turns {
        for kind in ["refusal", "content"] {
            for _ in 0..deltas {
                stream.push_str(&format!(
                    "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"{kind}\":\"{text}\"}}}}]}}\n\n"
                ));
            }
        }
    }
    stream.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{}\"}}]}}]}\n\n");
    stream.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n");
    stream
}

/// Text held behind an open call is written at once when the call ends: one-byte parts taking
/// turns write about 890 bytes each into Responses for 57 read (150 MB in one output for
/// 9.7 MB read, 160 MB at the peak). Past 256 KiB plus 4 × what was read, the stream is
/// refused while it holds them, the message so far in the error; text held in long runs writes
/// about 4 × itself and goes through.
#[test]
fn text_behind_an_open_call_may_not_write_many_times_its_input_at_once() {
    let stream = turns_behind_a_call(20_000, 1, 1);
    let ((outcome, _), heap) =
        measure(|| reencode(stream.as_bytes(), Options::new(), Target::OpenAiResponses));
    let Err(error) = outcome else {
        panic!("the parts held behind the call were written at once");
    };
    assert!(error.is_limit_exceeded(), "{error}");
    assert!(error.to_string().contains("at once"), "{error}");
    let partial = error.partial().expect("the message so far");
    assert!(!partial.choices[0].message.text().is_empty());
    let bound = 8 * stream.len() + 64 * MIB;
    assert!(
        heap.peak <= bound,
        "peak {} for {}",
        heap.peak,
        stream.len()
    );
    // Into Anthropic, a block of about 300 bytes each: refused too.
    let (anthropic, _) = reencode(stream.as_bytes(), Options::new(), Target::Anthropic);
    assert!(anthropic.is_err_and(|error| error.to_string().contains("at once")));
    // Runs of many deltas behind a call: 2 MB of text in 1 KB deltas, 64 to a run, written
    // about 4 × at once.
    let long = turns_behind_a_call(16, 64, 1024);
    for target in [Target::OpenAiResponses, Target::Anthropic] {
        let (outcome, _) = reencode(long.as_bytes(), Options::new(), target);
        outcome.unwrap();
    }
}
