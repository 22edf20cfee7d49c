//! Hostile input: whatever bytes arrive, assembly ends in `Ok` or a typed `Err` that says where
//! it happened and carries what arrived; limits refuse floods quickly and in bounded memory.
//!
//! docs/bad-input.md lists every kind of bad input tried here, what the library does with it and
//! the test that shows it. The fuzz targets in `fuzz/` explore the same ground at random; each
//! input they found that broke a rule is kept below as a regression test.
//!
//! This test binary counts allocations (per thread, so parallel tests do not disturb each other)
//! to show that floods are refused in bounded memory: that needs one `unsafe impl GlobalAlloc`,
//! here in the tests only; the library itself stays `#![forbid(unsafe_code)]`.

#[path = "support/replay.rs"]
mod drive;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use deltafold::framing::{FramingError, NdjsonDecoder, SseDecoder, DEFAULT_MAX_EVENT_BYTES};
use deltafold::{Assembler, Completion, ContentBlock, Error, ErrorKind, Event, Options};
use drive::{run, Run};
use proptest::prelude::*;
use serde_json::{json, Value};

mod memory {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    /// The system allocator, counting the bytes live on each thread and their peak.
    pub struct Counting;

    thread_local! {
        static LIVE: Cell<isize> = const { Cell::new(0) };
        static PEAK: Cell<isize> = const { Cell::new(0) };
    }

    fn track(delta: isize) {
        // `try_with`: the counters may be gone while a thread shuts down.
        let _ = LIVE.try_with(|live| {
            let now = live.get() + delta;
            live.set(now);
            let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
        });
    }

    // SAFETY: every call goes to the system allocator unchanged; only thread-local counters,
    // which never allocate, are updated around it.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let ptr = unsafe { System.alloc(layout) };
            if !ptr.is_null() {
                track(layout.size() as isize);
            }
            ptr
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            let ptr = unsafe { System.alloc_zeroed(layout) };
            if !ptr.is_null() {
                track(layout.size() as isize);
            }
            ptr
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            unsafe { System.dealloc(ptr, layout) };
            track(-(layout.size() as isize));
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            let new = unsafe { System.realloc(ptr, layout, new_size) };
            if !new.is_null() {
                track(new_size as isize - layout.size() as isize);
            }
            new
        }
    }

    /// Runs `f` and returns its result with the most bytes it held at once on this thread.
    pub fn peak_during<R>(f: impl FnOnce() -> R) -> (R, usize) {
        let start = LIVE.with(Cell::get);
        PEAK.with(|peak| peak.set(start));
        let result = f();
        let peak = PEAK.with(Cell::get);
        (result, (peak - start).max(0) as usize)
    }
}

#[global_allocator]
static ALLOCATOR: memory::Counting = memory::Counting;

const MIB: usize = 1 << 20;

// ---------------------------------------------------------------------------------------------
// Helpers

/// One SSE event carrying `payload`.
fn event(payload: &str) -> String {
    format!("data: {payload}\n\n")
}

/// A stream of one event per payload.
fn stream(payloads: &[&str]) -> String {
    payloads.iter().map(|payload| event(payload)).collect()
}

/// A chunk with a text delta for choice 0.
fn text(content: &str) -> String {
    json!({"choices": [{"index": 0, "delta": {"content": content}}]}).to_string()
}

/// A chunk that finishes choice 0.
fn finish(reason: &str) -> String {
    json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}).to_string()
}

/// A tool-call fragment for choice 0.
fn tool(call: Value) -> String {
    json!({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}).to_string()
}

fn assemble(bytes: &[u8]) -> Result<Completion, Error> {
    deltafold::assemble(bytes, Options::new())
}

fn lenient(bytes: &[u8]) -> Result<Completion, Error> {
    deltafold::assemble(bytes, Options::new().lenient(true))
}

/// Pulls every event the assembler has ready.
fn drain(assembler: &mut Assembler) -> Result<Vec<Event<'static>>, Error> {
    let mut events = Vec::new();
    drive::drain_into(assembler, &mut events).map(|()| events)
}

/// The three ways every precise test feeds a stream: whole, byte by byte, in 3-byte pieces.
fn every_cut(bytes: &[u8], options: Options) -> [Run; 3] {
    [
        run([bytes], options.clone()),
        run(bytes.chunks(1), options.clone()),
        run(bytes.chunks(3), options),
    ]
}

/// The error of a run that must fail.
fn expect_error(result: Result<Completion, Error>) -> Error {
    match result {
        Ok(completion) => panic!("expected an error, got {completion:?}"),
        Err(error) => error,
    }
}

/// The message (or partial message) of choice 0.
fn first_text(completion: &Completion) -> String {
    completion
        .message()
        .map(|message| message.text())
        .unwrap_or_default()
}

/// An error's partial result; every stream error carries one.
fn partial(error: &Error) -> &Completion {
    error
        .partial()
        .unwrap_or_else(|| panic!("{error} carries no partial result"))
}

/// Asserts what every error must have: a kind from the stream's side, a place, and the partial.
fn assert_typed(error: &Error) {
    assert!(
        matches!(
            error.kind(),
            ErrorKind::Malformed
                | ErrorKind::InvalidUtf8
                | ErrorKind::LimitExceeded
                | ErrorKind::Truncated
                | ErrorKind::Provider
        ),
        "unexpected kind in {error}"
    );
    assert!(error.location().is_some(), "{error} has no location");
    assert!(error.partial().is_some(), "{error} has no partial result");
}

/// Each choice's text, reasoning and number of tool calls, to compare what arrived.
fn summary(completion: &Completion) -> Vec<(u32, String, String, usize)> {
    completion
        .choices
        .iter()
        .map(|choice| {
            let message = &choice.message;
            let calls = message
                .content
                .iter()
                .filter(|block| {
                    matches!(
                        block,
                        ContentBlock::ToolCall(_) | ContentBlock::InvalidToolCall(_)
                    )
                })
                .count();
            (choice.index, message.text(), message.reasoning(), calls)
        })
        .collect()
}

/// The completion a run ended with: the result, or the error's partial.
fn reached(result: &Result<Completion, Error>) -> &Completion {
    match result {
        Ok(completion) => completion,
        Err(error) => partial(error),
    }
}

fn fixture_paths() -> Vec<PathBuf> {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|ext| ext == "sse") {
                found.push(path);
            }
        }
    }
    let mut found = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"),
        &mut found,
    );
    found.sort();
    found
}

// ---------------------------------------------------------------------------------------------
// Truncation and garbage: Ok or a typed error, and what arrived is kept

/// Fixtures up to this size are cut at every byte offset in the default run; larger ones at a
/// sample, since each cut re-assembles its whole prefix (quadratic in debug builds).
const EXHAUSTIVE_BELOW: usize = 4096;

/// Where to cut a fixture: everywhere, or for a large one every offset within two bytes of a
/// line end or in its last 512 bytes, and every 16th offset elsewhere.
fn cut_points(bytes: &[u8], everywhere: bool) -> Vec<usize> {
    if everywhere || bytes.len() < EXHAUSTIVE_BELOW {
        return (0..=bytes.len()).collect();
    }
    let near_line_end = |at: usize| {
        bytes[at.saturating_sub(2)..(at + 3).min(bytes.len())]
            .iter()
            .any(|&byte| byte == b'\n' || byte == b'\r')
    };
    (0..=bytes.len())
        .filter(|&at| at % 16 == 0 || at + 512 >= bytes.len() || near_line_end(at))
        .collect()
}

/// Cuts a stream at each point: the result is `Ok` or a typed error, and what each choice holds
/// only grows as more bytes arrive (its text and reasoning are prefixes of the next cut's, its
/// tool calls never disappear).
fn assert_truncations_keep_what_arrived(name: &str, bytes: &[u8], cuts: &[usize]) {
    let mut before: Vec<(u32, String, String, usize)> = Vec::new();
    for &cut in cuts {
        let result = assemble(&bytes[..cut]);
        if let Err(error) = &result {
            assert_typed(error);
        }
        let now = summary(reached(&result));
        for (choice, text, reasoning, calls) in &before {
            let Some((_, text_now, reasoning_now, calls_now)) =
                now.iter().find(|(index, ..)| index == choice)
            else {
                panic!("{name}: choice {choice} vanished at byte {cut}");
            };
            assert!(
                text_now.starts_with(text.as_str())
                    && reasoning_now.starts_with(reasoning.as_str())
                    && calls_now >= calls,
                "{name}: choice {choice} lost what arrived at byte {cut}"
            );
        }
        before = now;
    }
}

#[test]
fn every_fixture_truncated_anywhere_keeps_what_arrived() {
    let paths = fixture_paths();
    assert!(paths.len() >= 10, "found only {} fixtures", paths.len());
    for path in paths {
        let bytes = std::fs::read(&path).unwrap();
        let cuts = cut_points(&bytes, false);
        assert_truncations_keep_what_arrived(&path.display().to_string(), &bytes, &cuts);
    }
}

/// The same at every byte offset of every fixture (about half a minute in a debug build), and
/// at 256 evenly spaced offsets of each shared real recording when they sit beside the
/// repository: run on demand with `--ignored`.
#[test]
#[ignore]
fn every_fixture_truncated_at_every_byte_offset_keeps_what_arrived() {
    for path in fixture_paths() {
        let bytes = std::fs::read(&path).unwrap();
        let cuts = cut_points(&bytes, true);
        assert_truncations_keep_what_arrived(&path.display().to_string(), &bytes, &cuts);
    }
    let recordings = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/real-sse");
    for entry in std::fs::read_dir(recordings)
        .into_iter()
        .flatten()
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        let chat = !name.starts_with("anthropic__") && !name.starts_with("openai_responses__");
        if !chat || !name.ends_with(".sse") {
            continue;
        }
        let bytes = std::fs::read(entry.path()).unwrap();
        let cuts: Vec<usize> = (0..=256).map(|step| bytes.len() * step / 256).collect();
        assert_truncations_keep_what_arrived(&name, &bytes, &cuts);
    }
}

/// Each event's deltas add up to what the partial or final message shows.
fn assert_events_match(run: &Run) {
    if let Err(error) = &run.result {
        assert_typed(error);
    }
    let completion = reached(&run.result);
    for choice in &completion.choices {
        let streamed: String = run
            .events
            .iter()
            .filter_map(|event| match event {
                Event::TextDelta { choice: c, text } if *c == choice.index => Some(text.as_ref()),
                _ => None,
            })
            .collect();
        assert_eq!(choice.message.text(), streamed);
    }
}

/// Byte soup made of the tokens the decoder and the dialect care about.
fn soup() -> impl Strategy<Value = Vec<u8>> {
    const TOKENS: &[&[u8]] = &[
        b"data: ",
        b"data: ",
        b"event: error\n",
        b": keep-alive\n",
        b"\n",
        b"\n\n",
        b"\r\n",
        b"\r",
        b"{",
        b"}",
        b"[",
        b"]",
        b",",
        b":",
        b"\"",
        b"\\",
        b"\\u00e9",
        b"\\ud83d",
        b"0",
        b"-1",
        b"1e400",
        b"null",
        b"[DONE]",
        b"\"choices\":[{\"index\":0,\"delta\":{",
        b"\"content\":\"hi\"",
        b"\"reasoning_content\":\"hm\"",
        b"\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":",
        b"\"finish_reason\":\"stop\"",
        b"\"usage\":{\"prompt_tokens\":",
        b"\"error\":{\"message\":\"boom\"}",
        "é€😀".as_bytes(),
        b"\xFF",
        b"\xE2\x82",
        b"\xEF\xBB\xBF",
    ];
    prop::collection::vec(prop::sample::select(TOKENS), 0..40).prop_map(|tokens| tokens.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_bytes_give_ok_or_a_typed_error(
        bytes in prop::collection::vec(any::<u8>(), 0..512),
        lenient in any::<bool>(),
    ) {
        let options = Options::new().lenient(lenient);
        assert_events_match(&run([&bytes[..]], options.clone()));
        assert_events_match(&run(bytes.chunks(5), options));
    }

    #[test]
    fn token_soup_gives_ok_or_a_typed_error(bytes in soup(), lenient in any::<bool>()) {
        let options = Options::new().lenient(lenient).max_event_bytes(64).max_tool_calls(2);
        assert_events_match(&run([&bytes[..]], options.clone()));
        assert_events_match(&run(bytes.chunks(2), options));
    }
}

// ---------------------------------------------------------------------------------------------
// Floods: refused quickly, in bounded memory

/// 1 GiB without a newline, generated 64 KiB at a time: refused once one event passes the
/// 16 MiB default, in well under a second of work and a few dozen MiB; the rest of the GiB is
/// then ignored at no cost.
#[test]
fn a_gibibyte_without_a_newline_is_refused_quickly_in_bounded_memory() {
    const GIB: usize = 1 << 30;
    let piece = vec![b'x'; 64 * 1024];
    let started = Instant::now();
    let ((error, pushed_when_refused), peak) = memory::peak_during(|| {
        let mut assembler = Assembler::new();
        let mut refused = None;
        assembler.push(b"data: ");
        let mut pushed = 6;
        while pushed < GIB {
            assembler.push(&piece);
            pushed += piece.len();
            if refused.is_none() {
                if let Err(error) = drain(&mut assembler) {
                    refused = Some((error, pushed));
                }
            }
        }
        refused.expect("the flood was never refused")
    });
    let elapsed = started.elapsed();
    assert!(error.is_limit_exceeded(), "{error}");
    assert_eq!(error.location().map(|location| location.offset), Some(0));
    assert!(
        pushed_when_refused <= DEFAULT_MAX_EVENT_BYTES + 2 * piece.len(),
        "refused only after {pushed_when_refused} bytes"
    );
    assert!(
        peak < 3 * DEFAULT_MAX_EVENT_BYTES,
        "held {} MiB",
        peak / MIB
    );
    assert!(elapsed < Duration::from_secs(10), "took {elapsed:?}");
}

/// An event whose data lines never end with a blank line is refused the same way.
#[test]
fn an_event_that_never_ends_is_refused_in_bounded_memory() {
    let limit = 4 * MIB;
    let piece = "data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n".repeat(1024);
    let (error, peak) = memory::peak_during(|| {
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
    assert!(peak < 4 * limit, "held {} MiB", peak / MIB);
}

/// Keep-alive comments forever are not an error, and are not kept.
#[test]
fn endless_keep_alives_hold_no_memory() {
    let piece = ": keep-alive\n".repeat(4096);
    let (result, peak) = memory::peak_during(|| {
        let mut assembler = Assembler::new();
        for _ in 0..(8 * MIB / piece.len()) {
            assembler.push(piece.as_bytes());
            drain(&mut assembler).expect("comments are not an error");
        }
        assembler.finish()
    });
    let error = expect_error(result);
    assert!(error.is_truncated(), "{error}");
    assert!(peak < MIB, "held {} KiB", peak / 1024);
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

/// A million tool-call indices, 1000 per event: refused at the 1025th call (max_tool_calls),
/// with the 1024 accepted calls in the partial message.
#[test]
fn a_million_tool_call_indices_are_refused_quickly() {
    let started = Instant::now();
    let (error, peak) = memory::peak_during(|| {
        let mut assembler = Assembler::new();
        for batch in 0..1000 {
            assembler.push(tool_call_flood(batch * 1000, 1000).as_bytes());
            if let Err(error) = drain(&mut assembler) {
                return error;
            }
        }
        panic!("a million tool calls were accepted");
    });
    assert!(error.is_limit_exceeded(), "{error}");
    assert!(error.to_string().contains("max_tool_calls"), "{error}");
    assert_eq!(error.location().map(|location| location.event), Some(2));
    let calls = partial(&error).message().map_or(0, |message| {
        message.tool_calls().count() + message.invalid_tool_calls().count()
    });
    assert_eq!(calls, 1024);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(peak < 16 * MIB, "held {} MiB", peak / MIB);
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
    let (result, peak) = memory::peak_during(|| assemble(body.as_bytes()));
    let error = expect_error(result);
    assert!(error.to_string().contains("max_tool_calls"), "{error}");
    assert!(
        peak < 8 * DEFAULT_MAX_EVENT_BYTES,
        "held {} MiB for a {} MiB event",
        peak / MIB,
        body.len() / MIB
    );
}

/// A choice index per event, forever: refused at the 129th choice (max_choices).
#[test]
fn endless_choice_indices_are_refused() {
    let mut assembler = Assembler::new();
    let error = (0..1_000_000u32)
        .find_map(|index| {
            let chunk = json!({"choices": [{"index": index, "delta": {"content": "x"}}]});
            assembler.push(event(&chunk.to_string()).as_bytes());
            drain(&mut assembler).err()
        })
        .expect("a million choices were accepted");
    assert!(error.is_limit_exceeded(), "{error}");
    assert!(error.to_string().contains("max_choices"), "{error}");
    assert_eq!(partial(&error).choices.len(), 128);
}

// ---------------------------------------------------------------------------------------------
// Malformed payloads

#[test]
fn malformed_json_is_a_malformed_error_at_its_event_and_lenient_mode_skips_it() {
    let payloads = [
        r#"{"choices": ["#,
        "not json",
        "null",
        "[1, 2]",
        r#""a string""#,
        r#"{"choices": {"index": 0}}"#,
        r#"{"choices": [{"index": 0, "delta": {"content": 5}}]}"#,
        r#"{"choices": [{"index": 0, "delta": {"tool_calls": {"index": 0}}}]}"#,
        r#"{"choices": [{"index": 0, "delta": {"content": "a"}}]} trailing"#,
        r#"{"choices": [{"index": 0, "delta": {"content": "\ud800"}}]}"#,
    ];
    for payload in payloads {
        let first = event(&text("Hel"));
        let body = format!(
            "{first}{}{}{}",
            event(payload),
            event(&text("lo")),
            event(&finish("stop"))
        );
        for run in every_cut(body.as_bytes(), Options::new()) {
            let error = expect_error(run.result);
            assert!(error.is_malformed(), "{payload}: {error}");
            let location = error.location().unwrap();
            assert_eq!((location.event, location.offset), (2, first.len() as u64));
            assert_eq!(first_text(partial(&error)), "Hel", "{payload}");
        }
        let completion = lenient(body.as_bytes()).unwrap();
        let message = completion.message().unwrap();
        assert_eq!(message.text(), "Hello", "{payload}");
        let warnings = &message.response_metadata.warnings;
        assert_eq!(warnings.len(), 1, "{payload}: {warnings:?}");
        assert!(warnings[0].contains("event 2"), "{warnings:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Invalid UTF-8: the error names the first bad byte exactly, however the input was cut

#[test]
fn invalid_utf8_is_reported_at_its_exact_offset() {
    let good = event(&text("Hel"));
    let cases: [(&[u8], &[u8], usize); 7] = [
        // (before the bad bytes, the bad bytes and after, offset of the bad byte within)
        (
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a",
            b"\xFFb\"}}]}\n\n",
            0,
        ),
        (
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a",
            b"\xC0\xAF\"}}]}\n\n",
            0,
        ),
        (
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a",
            b"\xED\xA0\x80\"}}]}\n\n",
            0,
        ),
        (
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\xC3\xA9",
            b"\xE2\x82A\"}}]}\n\n",
            0,
        ),
        (b": comment ", b"\xFE\n\n", 0),
        (b"event: ", b"\x80\ndata: {}\n\n", 0),
        // A sequence cut off by the end of the stream.
        (
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"",
            b"\xF0\x9F\x98",
            0,
        ),
    ];
    for (before, bad, within) in cases {
        let mut body = good.as_bytes().to_vec();
        body.extend_from_slice(before);
        let offset = body.len() + within;
        body.extend_from_slice(bad);
        for run in every_cut(&body, Options::new()) {
            let error = expect_error(run.result);
            assert!(error.is_invalid_utf8(), "{error}");
            assert_eq!(
                error.location().map(|location| location.offset),
                Some(offset as u64),
                "{}",
                String::from_utf8_lossy(&body)
            );
            assert_eq!(first_text(partial(&error)), "Hel");
        }
        // Lenient mode does not paper over bytes that are not text.
        assert!(expect_error(lenient(&body)).is_invalid_utf8());
    }
}

// ---------------------------------------------------------------------------------------------
// Duplicate and conflicting ids

/// The tool calls of choice 0 as (id, name, args).
fn calls(completion: &Completion) -> Vec<(String, String, Value)> {
    completion
        .message()
        .map(|message| {
            message
                .tool_calls()
                .map(|call| {
                    (
                        call.id.clone(),
                        call.name.clone(),
                        Value::Object(call.args.clone()),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn call(id: &str, name: &str, args: Value) -> (String, String, Value) {
    (id.to_owned(), name.to_owned(), args)
}

#[test]
fn repeated_id_and_name_on_every_fragment_are_one_call() {
    let fragment = |arguments: &str| {
        tool(
            json!({"index": 0, "id": "call_1", "function": {"name": "get", "arguments": arguments}}),
        )
    };
    let body = stream(&[
        &fragment("{\"a\":"),
        &fragment("1}"),
        &finish("tool_calls"),
        "[DONE]",
    ]);
    let completion = assemble(body.as_bytes()).unwrap();
    assert_eq!(calls(&completion), [call("call_1", "get", json!({"a": 1}))]);
}

#[test]
fn a_new_id_on_the_same_index_starts_a_new_call() {
    let body = stream(&[
        &tool(json!({"index": 0, "id": "a", "function": {"name": "f", "arguments": "{}"}})),
        &tool(json!({"index": 0, "id": "b", "function": {"name": "g", "arguments": "{\"x\":1}"}})),
        &finish("tool_calls"),
        "[DONE]",
    ]);
    let completion = assemble(body.as_bytes()).unwrap();
    assert_eq!(
        calls(&completion),
        [call("a", "f", json!({})), call("b", "g", json!({"x": 1}))]
    );
}

/// Two indices that share an id stay two calls: nothing is merged or dropped.
#[test]
fn the_same_id_on_two_indices_keeps_both_calls() {
    let body = stream(&[
        &tool(
            json!({"index": 0, "id": "dup", "function": {"name": "f", "arguments": "{\"n\":0}"}}),
        ),
        &tool(
            json!({"index": 1, "id": "dup", "function": {"name": "f", "arguments": "{\"n\":1}"}}),
        ),
        &finish("tool_calls"),
        "[DONE]",
    ]);
    let completion = assemble(body.as_bytes()).unwrap();
    assert_eq!(
        calls(&completion),
        [
            call("dup", "f", json!({"n": 0})),
            call("dup", "f", json!({"n": 1}))
        ]
    );
}

/// Without indices, a known id continues its call, a new id starts one, no id continues the
/// latest; a conflicting later name does not rename a call.
#[test]
fn without_indices_ids_decide_and_first_names_win() {
    let body = stream(&[
        &tool(json!({"id": "a", "function": {"name": "first", "arguments": "{\"x\":"}})),
        &tool(json!({"id": "b", "function": {"name": "second", "arguments": "{\"y\":"}})),
        &tool(json!({"function": {"arguments": "2}"}})),
        &tool(json!({"id": "a", "function": {"name": "renamed", "arguments": "1}"}})),
        &finish("tool_calls"),
        "[DONE]",
    ]);
    let completion = assemble(body.as_bytes()).unwrap();
    assert_eq!(
        calls(&completion),
        [
            call("a", "first", json!({"x": 1})),
            call("b", "second", json!({"y": 2}))
        ]
    );
}

#[test]
fn conflicting_response_ids_and_models_keep_the_first() {
    let body = stream(&[
        r#"{"id":"first","model":"m1","choices":[{"index":0,"delta":{"content":"a"}}]}"#,
        r#"{"id":"second","model":"m2","choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}"#,
        "[DONE]",
    ]);
    let completion = assemble(body.as_bytes()).unwrap();
    let message = completion.message().unwrap();
    assert_eq!(message.text(), "ab");
    assert_eq!(message.response_metadata.id.as_deref(), Some("first"));
    assert_eq!(message.response_metadata.model_name.as_deref(), Some("m1"));
}

#[test]
fn the_same_choice_twice_in_one_chunk_appends_both() {
    let body = stream(&[
        r#"{"choices":[{"index":0,"delta":{"content":"a"}},{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}"#,
        "[DONE]",
    ]);
    assert_eq!(first_text(&assemble(body.as_bytes()).unwrap()), "ab");
}

/// A JSON object that repeats a key: `serde_json` semantics apply (the derived delta refuses
/// a duplicate field, the chunk keeps the last `choices`); either way a typed outcome.
#[test]
fn duplicate_json_keys_give_a_typed_outcome() {
    let repeated_content = stream(&[
        r#"{"choices":[{"index":0,"delta":{"content":"a","content":"b"},"finish_reason":"stop"}]}"#,
        "[DONE]",
    ]);
    let error = expect_error(assemble(repeated_content.as_bytes()));
    assert!(error.is_malformed(), "{error}");
    let repeated_choices = stream(&[
        r#"{"choices":[{"index":0,"delta":{"content":"a"}}],"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}"#,
        "[DONE]",
    ]);
    let completion = assemble(repeated_choices.as_bytes()).unwrap();
    assert_eq!(first_text(&completion), "b");
}

// ---------------------------------------------------------------------------------------------
// Negative, huge and non-integer indices

const BAD_INDICES: [&str; 7] = [
    "-1",
    "4294967296",
    "18446744073709551616",
    "1.5",
    "1e3",
    "\"0\"",
    "true",
];

#[test]
fn a_bad_choice_index_is_a_malformed_event() {
    for index in BAD_INDICES {
        let body = format!(
            "{}{}{}",
            event(&text("ok")),
            event(&format!(
                r#"{{"choices":[{{"index":{index},"delta":{{"content":"x"}}}}]}}"#
            )),
            event(&finish("stop"))
        );
        let error = expect_error(assemble(body.as_bytes()));
        assert!(error.is_malformed(), "index {index}: {error}");
        assert_eq!(error.location().map(|location| location.event), Some(2));
        assert_eq!(first_text(partial(&error)), "ok");
        let completion = lenient(body.as_bytes()).unwrap();
        assert_eq!(first_text(&completion), "ok", "index {index}");
        assert!(completion.complete);
    }
}

#[test]
fn a_bad_tool_call_index_is_a_malformed_event() {
    for index in BAD_INDICES {
        let body = stream(&[
            &text("ok"),
            &format!(
                r#"{{"choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":{index},"id":"c","function":{{"name":"f","arguments":"{{}}"}}}}]}}}}]}}"#
            ),
            &finish("stop"),
        ]);
        let error = expect_error(assemble(body.as_bytes()));
        assert!(error.is_malformed(), "index {index}: {error}");
        assert_eq!(error.location().map(|location| location.event), Some(2));
        assert_eq!(first_text(partial(&error)), "ok");
    }
}

#[test]
fn the_largest_and_null_indices_are_accepted() {
    let body = stream(&[
        r#"{"choices":[{"index":4294967295,"delta":{"tool_calls":[{"index":4294967295,"id":"c","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}"#,
        r#"{"choices":[{"index":null,"delta":{"content":"x"},"finish_reason":"stop"}]}"#,
        "[DONE]",
    ]);
    let completion = assemble(body.as_bytes()).unwrap();
    let indices: Vec<u32> = completion
        .choices
        .iter()
        .map(|choice| choice.index)
        .collect();
    assert_eq!(indices, [0, u32::MAX]);
    assert_eq!(first_text(&completion), "x");
    assert_eq!(completion.choices[1].message.tool_calls().count(), 1);
}

// ---------------------------------------------------------------------------------------------
// Huge and odd numbers in usage: never a failure, just not counted

#[test]
fn huge_negative_and_fractional_usage_numbers_are_not_counted() {
    let mut wrong = Vec::new();
    for odd in [
        "1e400",
        "1180591620717411303424",
        "-5",
        "3.5",
        "\"12\"",
        "null",
        "[]",
    ] {
        let chunk = format!(
            r#"{{"choices":[],"usage":{{"prompt_tokens":7,"completion_tokens":{odd},"total_tokens":9,"completion_tokens_details":{{"reasoning_tokens":{odd}}}}}}}"#
        );
        let body = stream(&[&text("a"), &finish("stop"), &chunk, "[DONE]"]);
        let completion = assemble(body.as_bytes())
            .unwrap_or_else(|error| panic!("usage with {odd} failed the stream: {error}"));
        let message = completion.message().unwrap();
        assert_eq!(message.text(), "a");
        let counted = message.usage.as_ref().map(|usage| {
            (
                usage.input_tokens,
                usage.output_tokens,
                usage.total_tokens,
                usage
                    .output_token_details
                    .and_then(|details| details.reasoning),
            )
        });
        if counted != Some((7, 0, 9, None)) {
            wrong.push(format!("{odd}: {counted:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "the valid counts beside an odd one must stay and the odd one must not count: {wrong:?}"
    );
}

#[test]
fn a_usage_that_is_not_an_object_is_ignored() {
    for usage in ["1e400", "\"lots\"", "[1, 2]", "-1", "{}"] {
        let chunk = format!(r#"{{"choices":[],"usage":{usage},"created":{usage}}}"#);
        let body = stream(&[&text("a"), &finish("stop"), &chunk, "[DONE]"]);
        let completion = assemble(body.as_bytes())
            .unwrap_or_else(|error| panic!("usage {usage} failed the stream: {error}"));
        assert_eq!(completion.message().unwrap().usage, None, "usage {usage}");
    }
}

// ---------------------------------------------------------------------------------------------
// Provider errors in every position

fn provider_error() -> &'static str {
    r#"{"error":{"message":"overloaded","type":"server_error","code":"529"}}"#
}

#[test]
fn an_error_as_the_first_event_is_a_provider_error_with_an_empty_partial() {
    let body = stream(&[provider_error()]);
    let error = expect_error(assemble(body.as_bytes()));
    assert!(error.is_provider(), "{error}");
    assert_eq!(error.location().map(|location| location.event), Some(1));
    let provider = error.provider_error().unwrap();
    assert_eq!(provider.message, "overloaded");
    assert_eq!(provider.code.as_deref(), Some("529"));
    assert!(partial(&error).choices.is_empty());
    assert!(!partial(&error).complete);
}

#[test]
fn an_error_mid_stream_keeps_the_text_before_it() {
    let body = stream(&[&text("Hel"), provider_error(), &text("lo")]);
    for run in every_cut(body.as_bytes(), Options::new().lenient(true)) {
        let error = expect_error(run.result);
        assert!(error.is_provider(), "{error}");
        assert_eq!(error.location().map(|location| location.event), Some(2));
        assert_eq!(first_text(partial(&error)), "Hel");
    }
}

#[test]
fn an_error_after_the_finish_reason_is_still_reported() {
    let body = stream(&[&text("Hello"), &finish("stop"), provider_error(), "[DONE]"]);
    let error = expect_error(assemble(body.as_bytes()));
    assert!(error.is_provider(), "{error}");
    let message = partial(&error).message().unwrap();
    assert_eq!(message.text(), "Hello");
    assert_eq!(message.response_metadata.finish_reason, "stop");
}

#[test]
fn an_error_beside_choices_keeps_that_chunks_deltas() {
    let body = stream(&[
        &text("Hel"),
        r#"{"choices":[{"index":0,"delta":{"content":"lo"}}],"error":{"message":"cut off"}}"#,
    ]);
    let error = expect_error(assemble(body.as_bytes()));
    assert!(error.is_provider(), "{error}");
    assert_eq!(error.provider_error().unwrap().message, "cut off");
    assert_eq!(first_text(partial(&error)), "Hello");
}

#[test]
fn an_error_event_type_is_a_provider_error_with_or_without_json() {
    for data in [provider_error(), "overloaded", r#"{"error":"overloaded"}"#] {
        let body = format!("{}event: error\ndata: {data}\n\n", event(&text("Hel")));
        let error = expect_error(assemble(body.as_bytes()));
        assert!(error.is_provider(), "{error}");
        assert_eq!(error.provider_error().unwrap().message, "overloaded");
        assert_eq!(error.location().map(|location| location.event), Some(2));
        assert_eq!(first_text(partial(&error)), "Hel");
    }
}

#[test]
fn a_null_error_field_is_not_an_error() {
    let body = stream(&[
        r#"{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}],"error":null}"#,
        "[DONE]",
    ]);
    assert_eq!(first_text(&assemble(body.as_bytes()).unwrap()), "a");
}

// ---------------------------------------------------------------------------------------------
// After [DONE], nothing counts

#[test]
fn everything_after_done_is_ignored() {
    let head = stream(&[&text("Hello"), &finish("stop"), "[DONE]"]);
    let tails: [&[u8]; 6] = [
        b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" late\"}}]}\n\n",
        b"data: {\"error\":{\"message\":\"late\"}}\n\n",
        b"event: error\ndata: late\n\n",
        b"data: not json\n\n",
        b"\xFF\xFE garbage",
        b"data: [DONE]\n\ndata: [DONE]\n\n",
    ];
    for tail in tails {
        let mut body = head.as_bytes().to_vec();
        body.extend_from_slice(tail);
        for run in every_cut(&body, Options::new()) {
            let completion = run
                .result
                .unwrap_or_else(|error| panic!("{}: {error}", String::from_utf8_lossy(tail)));
            assert!(completion.complete);
            assert_eq!(first_text(&completion), "Hello");
            assert_eq!(run.events.last(), Some(&Event::Done));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Not an event stream at all

#[test]
fn an_html_page_instead_of_an_event_stream_is_a_truncated_error() {
    let page = b"<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n<body><h1>502 Bad Gateway</h1></body></html>\n";
    let error = expect_error(assemble(page));
    assert!(error.is_truncated(), "{error}");
    assert!(error.to_string().contains("event stream"), "{error}");
    assert!(partial(&error).choices.is_empty());
    let completion = lenient(page).unwrap();
    assert!(!completion.complete && completion.choices.is_empty());
}

/// A JSON error object sent without SSE framing reads as one newline-delimited payload: the
/// provider's error, not a truncated stream.
#[test]
fn a_json_error_body_without_framing_is_a_provider_error() {
    let error = expect_error(assemble(provider_error().as_bytes()));
    assert!(error.is_provider(), "{error}");
    assert_eq!(error.provider_error().unwrap().message, "overloaded");
    assert!(partial(&error).choices.is_empty());
}

#[test]
fn an_empty_or_blank_body_is_a_truncated_error() {
    for body in [&b""[..], b"\n\n\n", b"   ", b": just a comment\n\n"] {
        let error = expect_error(assemble(body));
        assert!(error.is_truncated(), "{error}");
        assert_eq!(error.location().map(|location| location.event), Some(0));
        let completion = lenient(body).unwrap();
        assert!(!completion.complete && completion.choices.is_empty());
    }
}

// ---------------------------------------------------------------------------------------------
// Deep nesting: no stack overflow anywhere

const DEPTH: usize = 100_000;

/// Set in the child process that runs a test which could overflow the stack.
const IN_CHILD: &str = "DELTAFOLD_HOSTILE_CHILD";

/// Whether this is the child process of [`passes_in_a_child_process`].
fn in_child() -> bool {
    std::env::var_os(IN_CHILD).is_some()
}

/// Runs the named test of this binary in a child process and asserts that it passed. A stack
/// overflow aborts the whole process rather than failing one test, so it is watched from
/// outside: the rest of the suite still runs and reports.
fn passes_in_a_child_process(test: &str) {
    let exe = std::env::current_exe().expect("the test binary");
    let output = std::process::Command::new(exe)
        .args(["--exact", test, "--test-threads=1", "--nocapture"])
        .env(IN_CHILD, "1")
        .output()
        .expect("the test binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let tail: String = stderr
        .lines()
        .rev()
        .take(12)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        output.status.success(),
        "{test} failed in its child process ({}):\n{tail}",
        output.status
    );
}

/// Streams `arguments` in 1000-byte fragments of one call, then finishes.
fn stream_arguments(arguments: &str) -> (Run, Option<String>) {
    let mut assembler = Assembler::new();
    let mut events = Vec::new();
    let mut snapshot = None;
    let first = tool(json!({"index": 0, "id": "c", "function": {"name": "f", "arguments": ""}}));
    assembler.push(event(&first).as_bytes());
    events.extend(drain(&mut assembler).unwrap());
    for fragment in arguments.as_bytes().chunks(1000) {
        let fragment = std::str::from_utf8(fragment).unwrap();
        let chunk = tool(json!({"index": 0, "function": {"arguments": fragment}}));
        assembler.push(event(&chunk).as_bytes());
        events.extend(drain(&mut assembler).unwrap());
        // The view is O(depth) to write: take it now and then, as a throttled display would.
        if snapshot.is_none() || events.len() % 10 == 0 {
            let message = assembler.message(0).unwrap();
            let call = message.tool_calls().next().unwrap();
            snapshot = call.partial().map(|completion| completion.to_string());
            assert_eq!(call.partial_value(), None, "deeper than serde_json parses");
        }
    }
    let end = stream(&[&finish("tool_calls"), "[DONE]"]);
    assembler.push(end.as_bytes());
    events.extend(drain(&mut assembler).unwrap());
    let result = assembler.finish();
    (Run { events, result }, snapshot)
}

#[test]
fn deeply_nested_tool_arguments_neither_overflow_nor_fail_the_stream() {
    if !in_child() {
        return passes_in_a_child_process(
            "deeply_nested_tool_arguments_neither_overflow_nor_fail_the_stream",
        );
    }
    let unclosed = "[".repeat(DEPTH);
    let balanced = format!("{}{}", "[".repeat(DEPTH), "]".repeat(DEPTH));
    let objects = format!("{}1{}", "{\"a\":".repeat(DEPTH), "}".repeat(DEPTH));
    for arguments in [&unclosed, &balanced, &objects] {
        let (run, snapshot) = stream_arguments(arguments);
        let snapshot = snapshot.expect("a view of the arguments so far");
        assert!(snapshot.len() >= arguments.len() / 2);
        let completion = run.result.unwrap();
        let message = completion.message().unwrap();
        let invalid: Vec<_> = message.invalid_tool_calls().collect();
        assert_eq!(invalid.len(), 1);
        assert_eq!(&invalid[0].args, arguments);
    }
}

#[test]
fn deep_nesting_anywhere_in_a_payload_neither_overflows_nor_panics() {
    if !in_child() {
        return passes_in_a_child_process(
            "deep_nesting_anywhere_in_a_payload_neither_overflows_nor_panics",
        );
    }
    let deep = format!("{}{}", "[".repeat(DEPTH), "]".repeat(DEPTH));
    let deep_object = format!("{}1{}", "{\"a\":".repeat(DEPTH), "}".repeat(DEPTH));
    let payloads = [
        format!(r#"{{"unknown":{deep},"choices":[{{"index":0,"delta":{{"content":"a"}}}}]}}"#),
        format!(r#"{{"unknown":{deep_object},"choices":[]}}"#),
        format!(r#"{{"choices":[{{"index":0,"delta":{{"content":"a"}},"extra":{deep}}}]}}"#),
        format!(r#"{{"choices":[{{"index":0,"delta":{{}},"extra":{deep_object}}}]}}"#),
        format!(
            r#"{{"choices":[{{"index":0,"delta":{{"content":"a"}},"logprobs":{{"content":{deep}}}}}]}}"#
        ),
        format!(r#"{{"choices":[{{"index":0,"delta":{{}},"logprobs":{deep_object}}}]}}"#),
        format!(r#"{{"choices":[],"usage":{{"prompt_tokens":{deep}}}}}"#),
        format!(r#"{{"choices":[],"usage":{{"prompt_tokens":3,"x":{deep_object}}}}}"#),
        format!(r#"{{"choices":[{{"index":0,"delta":{{"content":[{deep}]}}}}]}}"#),
        format!(r#"{{"choices":[{{"index":0,"delta":{{"content":[{deep_object}]}}}}]}}"#),
        format!(r#"{{"choices":[{{"index":0,"delta":{{"reasoning_details":{deep}}}}}]}}"#),
        format!(r#"{{"choices":[{{"index":0,"delta":{{"reasoning_details":[{deep_object}]}}}}]}}"#),
        format!(
            r#"{{"choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":0,"function":{{"arguments":{deep_object}}}}}]}}}}]}}"#
        ),
        format!(r#"{{"error":{deep}}}"#),
        format!(r#"{{"error":{deep_object}}}"#),
        deep.clone(),
        deep_object.clone(),
    ];
    for payload in &payloads {
        let body = format!("{}{}", event(&text("ok")), event(payload));
        match assemble(body.as_bytes()) {
            Ok(completion) => assert!(first_text(&completion).starts_with("ok")),
            Err(error) => {
                assert_typed(&error);
                assert!(first_text(partial(&error)).starts_with("ok"));
            }
        }
    }
    // The other dialects' usage objects, read past `serde_json`'s depth limit.
    let anthropic = format!(
        "event: message_start\ndata: {}\n\nevent: message_delta\ndata: {}\n\n",
        r#"{"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":1,"output_tokens":1}}}"#,
        format_args!(
            r#"{{"type":"message_delta","delta":{{"stop_reason":"end_turn"}},"usage":{{"output_tokens":3,"x":{deep_object}}}}}"#
        ),
    );
    let gemini = event(&format!(
        r#"{{"candidates":[{{"content":{{"parts":[{{"text":"ok"}}],"role":"model"}},"finishReason":"STOP","index":0}}],"usageMetadata":{{"promptTokenCount":3,"x":{deep_object}}}}}"#
    ));
    let responses = format!(
        "event: response.completed\ndata: {}\n\n",
        format_args!(
            r#"{{"type":"response.completed","response":{{"id":"resp_1","status":"completed","usage":{{"input_tokens":3,"x":{deep_object}}}}}}}"#
        ),
    );
    for body in [anthropic, gemini, responses] {
        if let Err(error) = assemble(body.as_bytes()) {
            assert_typed(&error);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Huge single tool argument

/// Streams one call whose arguments are `{"data": "<bytes of x>"}`, in 64 KiB fragments.
fn stream_huge_argument(bytes: usize, options: Options) -> Result<Completion, Error> {
    let mut assembler = Assembler::with_options(options);
    let open = tool(
        json!({"index": 0, "id": "big", "function": {"name": "upload", "arguments": "{\"data\": \""}}),
    );
    assembler.feed(event(&open).as_bytes())?;
    let piece = 64 * 1024;
    let middle = event(&tool(
        json!({"index": 0, "function": {"arguments": "x".repeat(piece)}}),
    ));
    for _ in 0..bytes / piece {
        assembler.feed(middle.as_bytes())?;
    }
    let close = tool(json!({"index": 0, "function": {"arguments": "\"}"}}));
    assembler.feed(stream(&[&close, &finish("tool_calls"), "[DONE]"]).as_bytes())?;
    let call = assembler.message(0).unwrap().tool_calls().next().unwrap();
    assert!(call.partial().is_some());
    assembler.finish()
}

#[test]
fn a_fifty_megabyte_tool_argument_within_the_limits_assembles() {
    let completion = stream_huge_argument(50 * MIB, Options::new()).unwrap();
    let message = completion.message().unwrap();
    let call = message.tool_calls().next().expect("a valid call");
    assert_eq!(call.args["data"].as_str().map(str::len), Some(50 * MIB));
}

#[test]
fn a_fifty_megabyte_tool_argument_over_max_message_bytes_is_refused() {
    let limit = 8 * MIB;
    let error = expect_error(stream_huge_argument(
        50 * MIB,
        Options::new().max_message_bytes(limit),
    ));
    assert!(error.is_limit_exceeded(), "{error}");
    assert!(error.to_string().contains("max_message_bytes"), "{error}");
    let message = partial(&error).message().unwrap();
    let kept = match &message.content[..] {
        [ContentBlock::InvalidToolCall(call)] => call.args.len(),
        other => panic!("expected the partial call, got {} blocks", other.len()),
    };
    assert!(
        kept <= limit && kept > limit - 64 * 1024,
        "kept {kept} bytes"
    );
}

// ---------------------------------------------------------------------------------------------
// Content the limits do not name

/// Logprobs, content parts without a standard block, reasoning details and unknown fields grow
/// the message too; they must count toward `max_message_bytes` like text, or a stream of them
/// grows without bound.
#[test]
fn content_outside_text_and_arguments_still_counts_toward_max_message_bytes() {
    let limit = MIB;
    let filler = "x".repeat(16 * 1024);
    type Chunk<'a> = Box<dyn Fn(usize) -> Value + 'a>;
    let kinds: [(&str, Chunk<'_>); 4] = [
        (
            "logprobs",
            Box::new(
                |_| json!({"choices": [{"index": 0, "delta": {}, "logprobs": {"content": [{"token": filler, "logprob": -0.5}]}}]}),
            ),
        ),
        (
            "content parts",
            Box::new(
                |_| json!({"choices": [{"index": 0, "delta": {"content": [{"type": "image_url", "image_url": {"url": filler}}]}}]}),
            ),
        ),
        (
            "reasoning details",
            Box::new(
                |_| json!({"choices": [{"index": 0, "delta": {"reasoning_details": [{"type": "reasoning.encrypted", "data": filler, "index": 0}]}}]}),
            ),
        ),
        (
            "unknown fields",
            Box::new(|n| json!({"choices": [{"index": 0, "delta": {}, format!("x_{n}"): filler}]})),
        ),
    ];
    let mut unlimited = Vec::new();
    for (what, chunk) in kinds {
        let mut assembler = Assembler::with_options(Options::new().max_message_bytes(limit));
        let refused = (0..4 * limit / filler.len()).any(|n| {
            assembler.push(event(&chunk(n).to_string()).as_bytes());
            drain(&mut assembler).is_err()
        });
        if !refused {
            unlimited.push(what);
        }
    }
    assert!(
        unlimited.is_empty(),
        "4 MiB of each of {unlimited:?} passed a 1 MiB max_message_bytes"
    );
}

/// In lenient mode each skipped event leaves a warning: a stream of tiny malformed events must
/// not make the warnings outgrow the stream itself.
#[test]
fn lenient_warnings_stay_bounded() {
    let piece = "data: x\n\n".repeat(4096);
    let pushed = MIB;
    let (_, peak) = memory::peak_during(|| {
        let mut assembler = Assembler::with_options(Options::new().lenient(true));
        for _ in 0..pushed / piece.len() {
            assembler.feed(piece.as_bytes()).unwrap();
        }
        assembler.finish()
    });
    assert!(
        peak < pushed,
        "{} KiB of warnings for {} KiB of input",
        peak / 1024,
        pushed / 1024
    );
}

/// Feeds `count` reasoning details with distinct indices, 100 per event; returns the time taken.
fn feed_reasoning_details(count: usize) -> Duration {
    let chunks: Vec<String> = (0..count)
        .step_by(100)
        .map(|first| {
            let details: Vec<Value> = (first..(first + 100).min(count))
                .map(|index| json!({"type": "reasoning.text", "text": "t", "index": index}))
                .collect();
            event(
                &json!({"choices": [{"index": 0, "delta": {"reasoning_details": details}}]})
                    .to_string(),
            )
        })
        .collect();
    let mut assembler = Assembler::new();
    let started = Instant::now();
    for chunk in &chunks {
        assembler.feed(chunk.as_bytes()).unwrap();
    }
    started.elapsed()
}

/// OpenRouter's reasoning details merge by (type, index): four times as many distinct entries
/// must take about four times as long, not sixteen.
#[test]
fn many_distinct_reasoning_details_assemble_in_linear_time() {
    let small = feed_reasoning_details(500);
    let large = feed_reasoning_details(2_000);
    assert!(
        large < small * 8 + Duration::from_millis(50),
        "500 details took {small:?}, 2,000 took {large:?}"
    );
}

/// An Anthropic stream that opens `blocks` text blocks, then sends one more delta to each, in
/// order; returns the time it takes to assemble.
fn revisit_anthropic_blocks(blocks: usize) -> Duration {
    let mut body = String::from(concat!(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",",
        "\"model\":\"claude\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n",
    ));
    let delta = |index: usize| {
        format!("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":{index},\"delta\":{{\"type\":\"text_delta\",\"text\":\"x\"}}}}\n\n")
    };
    for index in 0..blocks {
        body.push_str(&format!("event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":{index},\"content_block\":{{\"type\":\"text\",\"text\":\"\"}}}}\n\n"));
        body.push_str(&delta(index));
    }
    for index in 0..blocks {
        body.push_str(&delta(index));
    }
    let started = Instant::now();
    let completion = assemble(body.as_bytes());
    let elapsed = started.elapsed();
    if let Err(error) = completion {
        assert_typed(&error);
    }
    elapsed
}

/// Text for an earlier Anthropic block goes on in a new block (so the message keeps stream
/// order); finding the block a delta belongs to must not scan every block before it, or a
/// stream revisiting many blocks takes quadratic time.
#[test]
fn revisiting_many_anthropic_blocks_assembles_in_linear_time() {
    let small = revisit_anthropic_blocks(500);
    let large = revisit_anthropic_blocks(4_000);
    assert!(
        large < small * 16 + Duration::from_millis(50),
        "500 blocks took {small:?}, 4,000 took {large:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Regressions found by fuzzing

/// fuzz/sse_decoder: a line that exactly fills the event limit was accepted when its line end
/// arrived with the next byte, and refused when the line end was the last byte of a push (the
/// size check counted the consumed line end).
#[test]
fn a_line_that_exactly_fills_the_event_limit_is_accepted_however_it_is_cut() {
    let input = b"data: 0123456789\n\n";
    let decode = |pieces: &[&[u8]]| -> Result<Vec<String>, FramingError> {
        let mut decoder = SseDecoder::with_max_event_bytes(16);
        let mut data = Vec::new();
        for piece in pieces {
            decoder.push(piece);
            while let Some(frame) = decoder.next_frame()? {
                data.push(frame.data.to_owned());
            }
        }
        Ok(data)
    };
    let whole = decode(&[input]);
    assert_eq!(whole, Ok(vec!["0123456789".to_owned()]));
    for cut in 0..=input.len() {
        assert_eq!(
            decode(&[&input[..cut], &input[cut..]]),
            whole,
            "cut at byte {cut}"
        );
    }

    // The longest line of a whole stream exactly fills the limit.
    let body = stream(&[&text("hi"), &finish("stop"), "[DONE]"]);
    let longest = body.lines().map(str::len).max().unwrap_or_default();
    let options = Options::new().max_event_bytes(longest);
    for run in every_cut(body.as_bytes(), options) {
        assert_eq!(first_text(&run.result.unwrap()), "hi");
    }
}

/// fuzz/pipeline and fuzz/sse_decoder: the same for a newline-delimited line ended by CRLF: a
/// line that exactly filled the limit was refused when its CR was the last byte of a push (the
/// CR counted as content until the LF came).
#[test]
fn an_ndjson_line_that_exactly_fills_the_limit_is_accepted_however_it_is_cut() {
    let input = b"{\"a\":\"01234567\"}\r\n";
    let decode = |pieces: &[&[u8]]| -> Result<Vec<String>, FramingError> {
        let mut decoder = NdjsonDecoder::with_max_line_bytes(16);
        let mut lines = Vec::new();
        for piece in pieces {
            decoder.push(piece);
            while let Some(frame) = decoder.next_frame()? {
                lines.push(frame.data.to_owned());
            }
        }
        Ok(lines)
    };
    let whole = decode(&[input]);
    assert_eq!(whole, Ok(vec!["{\"a\":\"01234567\"}".to_owned()]));
    for cut in 0..=input.len() {
        assert_eq!(
            decode(&[&input[..cut], &input[cut..]]),
            whole,
            "cut at byte {cut}"
        );
    }

    // An Ollama stream whose longest line exactly fills the limit.
    let body = concat!(
        "{\"model\":\"llama3.2\",\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},\"done\":false}\r\n",
        "{\"model\":\"llama3.2\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done_reason\":\"stop\",\"done\":true}\r\n",
    );
    let longest = body
        .lines()
        .map(|line| line.trim_end().len())
        .max()
        .unwrap_or_default();
    let options = Options::new().max_event_bytes(longest);
    for run in every_cut(body.as_bytes(), options) {
        assert_eq!(first_text(&run.result.unwrap()), "hi");
    }
}

/// fuzz/pipeline: a tool-call fragment after its choice's finish reason was shown live (a
/// `ToolCallArgumentsDelta`) and appended to the arguments, but the call had already been
/// parsed, so the final message silently kept the arguments without it.
#[test]
fn tool_call_arguments_after_the_finish_reason_are_not_lost() {
    let body = stream(&[
        &tool(
            json!({"index": 0, "id": "call_1", "function": {"name": "f", "arguments": "{\"a\":"}}),
        ),
        &finish("tool_calls"),
        &tool(json!({"index": 0, "function": {"arguments": "1}"}})),
        "[DONE]",
    ]);
    let run = run([body.as_bytes()], Options::new());
    let streamed: String = run
        .events
        .iter()
        .filter_map(|event| match event {
            Event::ToolCallArgumentsDelta { delta, .. } => Some(delta.as_ref()),
            _ => None,
        })
        .collect();
    let completion = run.result.unwrap();
    let message = completion.message().unwrap();
    match &message.content[..] {
        [ContentBlock::ToolCall(call)] => {
            assert_eq!(
                serde_json::from_str::<Value>(&streamed).unwrap(),
                json!(call.args)
            )
        }
        [ContentBlock::InvalidToolCall(call)] => assert_eq!(call.args, streamed),
        other => panic!("expected one call, got {other:?}"),
    }
}

/// fuzz/pipeline: an Anthropic text delta for an earlier content block, after a later block
/// started, is appended to the earlier block; the `TextDelta` event does not say which block,
/// so the text a live display builds from the events (`ABC`) differs from the message's
/// (`ACB`). Either the events must add up to the message or the stray delta must be refused.
#[test]
fn an_anthropic_delta_to_an_earlier_block_does_not_split_live_and_final_text() {
    let events = [
        (
            "message_start",
            r#"{"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":1,"output_tokens":1}}}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"A"}}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"B"}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"C"}}"#,
        ),
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}"#,
        ),
        ("message_stop", r#"{"type":"message_stop"}"#),
    ];
    let body: String = events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect();
    let run = run([body.as_bytes()], Options::new());
    let live: String = run
        .events
        .iter()
        .filter_map(|event| match event {
            Event::TextDelta { text, .. } => Some(text.as_ref()),
            _ => None,
        })
        .collect();
    match run.result {
        Ok(completion) => assert_eq!(first_text(&completion), live),
        Err(error) => assert!(error.is_malformed(), "{error}"),
    }
}
