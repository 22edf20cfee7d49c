//! The other dialects: every fixture under `fixtures/{anthropic,openai-responses,gemini,
//! ollama-native}` replayed whole, byte by byte and at random split points with the dialect
//! detected, checked against its hand-written `.json`; then the rules of each dialect, the
//! detection and the `<think>` extraction, one test each.

#[path = "support/replay.rs"]
mod drive;

use std::path::{Path, PathBuf};

use deltafold::framing::NdjsonDecoder;
use deltafold::{Assembler, Completion, Dialect, Error, ErrorKind, Event, Options};
use drive::Run as Replay;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

const DIALECT_DIRS: [&str; 4] = ["anthropic", "openai-responses", "gemini", "ollama-native"];

// ---------------------------------------------------------------------------------------------
// Fixture replay

#[test]
fn every_dialect_fixture_replays_to_its_expected_message() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut failures = Vec::new();
    let mut count = 0;
    for dir in DIALECT_DIRS {
        let streams = streams_in(&root.join(dir));
        assert!(
            streams.len() >= 6,
            "only {} fixtures in {dir}",
            streams.len()
        );
        for stream in streams {
            count += 1;
            let name = stream.strip_prefix(&root).unwrap().display().to_string();
            if let Err(problems) = check_fixture(&stream) {
                failures.push(format!("{name}:\n{problems}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} fixtures failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

fn streams_in(dir: &Path) -> Vec<PathBuf> {
    let mut streams: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.extension()
                .is_some_and(|ext| ext == "sse" || ext == "ndjson")
        })
        .collect();
    streams.sort();
    streams
}

fn replay<'a>(pieces: impl IntoIterator<Item = &'a [u8]>, options: Options) -> Replay {
    drive::run(pieces, options)
}

/// Pieces of 1 to 40 bytes from a fixed-seed generator (SplitMix64).
fn random_pieces(bytes: &[u8], mut seed: u64) -> Vec<&[u8]> {
    let mut pieces = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        let len = 1 + ((z ^ (z >> 31)) % 40) as usize;
        let end = (at + len).min(bytes.len());
        pieces.push(&bytes[at..end]);
        at = end;
    }
    pieces
}

fn check_fixture(stream: &Path) -> Result<(), String> {
    let bytes = std::fs::read(stream).unwrap();
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(stream.with_extension("json")).unwrap())
            .unwrap_or_else(|error| panic!("{}: {error}", stream.display()));
    let mut replays = vec![
        ("whole", replay([bytes.as_slice()], Options::new())),
        ("byte by byte", replay(bytes.chunks(1), Options::new())),
    ];
    for seed in [3, 17, 2024] {
        replays.push((
            "random",
            replay(random_pieces(&bytes, seed), Options::new()),
        ));
    }
    let mut problems = Vec::new();
    for (how, replay) in &replays {
        for problem in check_replay(replay, &expected) {
            problems.push(format!("  [{how}] {problem}"));
        }
        if replay.events != replays[0].1.events {
            problems.push(format!("  [{how}] events differ from the whole replay"));
        }
    }
    let one_call = deltafold::assemble(&bytes, Options::new());
    let one_call = match &one_call {
        Ok(completion) => Some(completion),
        Err(error) => error.partial(),
    };
    let first = match &replays[0].1.result {
        Ok(completion) => Some(completion),
        Err(error) => error.partial(),
    };
    if one_call != first {
        problems.push("  [assemble] differs from the replay".to_owned());
    }
    problems.dedup_by(|a, b| a.split_once("] ").map(|p| p.1) == b.split_once("] ").map(|p| p.1));
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn check_replay(replay: &Replay, expected: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let completion = match (&replay.result, expected.get("error")) {
        (Ok(completion), None) => {
            if !completion.complete {
                problems.push("marked incomplete".to_owned());
            }
            compare_messages(completion, expected, &mut problems);
            completion
        }
        (Err(error), Some(want)) => {
            check_error(error, want, &mut problems);
            let Some(partial) = error.partial() else {
                problems.push("no partial result".to_owned());
                return problems;
            };
            if partial.complete {
                problems.push("the partial result is marked complete".to_owned());
            }
            compare_messages(partial, &expected["partial"], &mut problems);
            partial
        }
        (Ok(_), Some(want)) => {
            problems.push(format!("expected the error {want}, got a completion"));
            return problems;
        }
        (Err(error), None) => {
            problems.push(format!("unexpected error: {error}"));
            return problems;
        }
    };
    check_events(
        &replay.events,
        completion,
        replay.result.is_ok(),
        &mut problems,
    );
    problems
}

fn check_error(error: &Error, want: &Value, problems: &mut Vec<String>) {
    let kind = match error.kind() {
        ErrorKind::Provider => "provider",
        ErrorKind::Malformed => "malformed",
        ErrorKind::Truncated => "truncated",
        ErrorKind::InvalidUtf8 => "invalid_utf8",
        ErrorKind::LimitExceeded => "limit_exceeded",
        _ => "other",
    };
    if want["kind"] != kind {
        problems.push(format!("error kind {kind}, expected {}", want["kind"]));
    }
    let shown = error.to_string();
    let contains = want["contains"].as_str().unwrap();
    if !shown.contains(contains) {
        problems.push(format!("error {shown:?} does not contain {contains:?}"));
    }
    if let Some(location) = want.get("location") {
        let got = error
            .location()
            .map(|at| json!({"event": at.event, "offset": at.offset}));
        if got.as_ref() != Some(location) {
            problems.push(format!("location {got:?}, expected {location}"));
        }
    }
    if let Some(provider) = want.get("provider") {
        match error.provider_error() {
            Some(sent) => {
                let got = json!({"code": sent.code, "type": sent.kind, "message": sent.message});
                for key in ["code", "type", "message"] {
                    if provider.get(key).unwrap_or(&Value::Null) != &got[key] {
                        problems.push(format!(
                            "provider {key} {}, expected {}",
                            got[key], provider[key]
                        ));
                    }
                }
            }
            None => problems.push("no provider error".to_owned()),
        }
    }
}

fn compare_messages(completion: &Completion, expected: &Value, problems: &mut Vec<String>) {
    let actual: Vec<Value> = completion
        .messages()
        .map(|message| serde_json::to_value(message).unwrap())
        .collect();
    let expected = match expected {
        Value::Array(messages) => messages.clone(),
        message => vec![message.clone()],
    };
    if actual.len() != expected.len() {
        problems.push(format!(
            "{} messages, expected {}",
            actual.len(),
            expected.len()
        ));
        return;
    }
    for (got, want) in actual.iter().zip(&expected) {
        let mut diffs = Vec::new();
        compare("", got, want, &mut diffs);
        if !diffs.is_empty() {
            problems.push(format!("{}\n    got: {got}", diffs.join("\n    ")));
        }
    }
}

/// Exact, except that `null` equals missing and the wording the library owns (an invalid
/// call's `error`, `incomplete`, each warning) need only contain the expected text.
fn compare(path: &str, got: &Value, want: &Value, diffs: &mut Vec<String>) {
    match (got, want) {
        (Value::Object(got_map), Value::Object(want_map)) => {
            let invalid =
                |map: &Map<String, Value>| map.get("type") == Some(&json!("invalid_tool_call"));
            for key in got_map.keys().chain(want_map.keys()) {
                let at = format!("{path}.{key}");
                let got_value = got_map.get(key).unwrap_or(&Value::Null);
                let want_value = want_map.get(key).unwrap_or(&Value::Null);
                let by_text = (key == "error" && (invalid(got_map) || invalid(want_map)))
                    || (key == "incomplete" && path.ends_with("response_metadata"));
                if by_text {
                    let ok = match (got_value.as_str(), want_value.as_str()) {
                        (Some(got), Some(want)) => got.contains(want),
                        _ => got_value == want_value,
                    };
                    if !ok {
                        diffs.push(format!(
                            "{at}: got {got_value}, expected text with {want_value}"
                        ));
                    }
                } else {
                    compare(&at, got_value, want_value, diffs);
                }
            }
        }
        (Value::Array(got_items), Value::Array(want_items))
            if got_items.len() == want_items.len() =>
        {
            for (index, (got, want)) in got_items.iter().zip(want_items).enumerate() {
                compare(&format!("{path}[{index}]"), got, want, diffs);
            }
        }
        (got, want) if got == want => {}
        (got, want) => {
            let diff = format!("{path}: got {got}, expected {want}");
            if !diffs.contains(&diff) {
                diffs.push(diff);
            }
        }
    }
}

/// The events tell the same story as the messages.
fn check_events(
    events: &[Event<'static>],
    completion: &Completion,
    ok: bool,
    problems: &mut Vec<String>,
) {
    let Some(message) = completion.message() else {
        return;
    };
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut refusal = String::new();
    let mut arguments: Vec<String> = Vec::new();
    let mut finished_calls = 0;
    let mut dones = 0;
    for (position, event) in events.iter().enumerate() {
        if matches!(event, Event::Started { .. }) != (position == 0) {
            problems.push(format!("Started is not first and once: event {position}"));
        }
        match event {
            Event::TextDelta {
                choice: 0,
                text: delta,
            } => text += delta,
            Event::ReasoningDelta {
                choice: 0,
                text: delta,
            } => reasoning += delta,
            Event::RefusalDelta {
                choice: 0,
                text: delta,
            } => refusal += delta,
            Event::ToolCallStarted {
                choice: 0, index, ..
            } => {
                if *index as usize != arguments.len() {
                    problems.push(format!("tool call {index} started out of order"));
                }
                arguments.push(String::new());
            }
            Event::ToolCallArgumentsDelta {
                choice: 0,
                index,
                delta,
            } => match arguments.get_mut(*index as usize) {
                Some(args) => args.push_str(delta),
                None => problems.push(format!("arguments for unstarted call {index}")),
            },
            Event::ToolCallFinished { choice: 0, .. } => finished_calls += 1,
            Event::Done => dones += 1,
            _ => {}
        }
    }
    if text != message.text() || reasoning != message.reasoning() {
        problems.push(format!(
            "deltas add up to text {text:?} and reasoning {reasoning:?}"
        ));
    }
    if refusal != message.refusal().unwrap_or_default() {
        problems.push(format!("refusal deltas add up to {refusal:?}"));
    }
    let calls: Vec<String> = message
        .content
        .iter()
        .filter_map(|block| match block {
            deltafold::ContentBlock::ToolCall(call) => {
                Some(Value::Object(call.args.clone()).to_string())
            }
            deltafold::ContentBlock::InvalidToolCall(call) => Some(call.args.clone()),
            _ => None,
        })
        .collect();
    let streamed: Vec<String> = arguments
        .iter()
        .map(
            |args| match serde_json::from_str::<Map<String, Value>>(args) {
                Ok(map) => Value::Object(map).to_string(),
                Err(_) if args.trim().is_empty() => "{}".to_owned(),
                Err(_) => args.clone(),
            },
        )
        .collect();
    if calls != streamed {
        problems.push(format!("argument deltas {streamed:?}, calls {calls:?}"));
    }
    if ok && (dones != 1 || finished_calls != calls.len()) {
        problems.push(format!(
            "{dones} Done events, {finished_calls} calls finished"
        ));
    }
    if !ok && dones != 0 {
        problems.push("Done in a failed stream".to_owned());
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers for the rule tests

fn assemble(body: &str) -> Result<Completion, Error> {
    deltafold::assemble(body.as_bytes(), Options::new())
}

fn anthropic(events: &[(&str, Value)]) -> String {
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

fn sse(payloads: &[Value]) -> String {
    payloads
        .iter()
        .map(|data| format!("data: {data}\n\n"))
        .collect()
}

fn ndjson(lines: &[Value]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}

fn message_start() -> (&'static str, Value) {
    (
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "model": "claude", "usage": {"input_tokens": 10, "output_tokens": 1}}}),
    )
}

// ---------------------------------------------------------------------------------------------
// Anthropic

#[test]
fn anthropic_signature_deltas_replace_and_tool_calls_finish_at_their_block_stop() {
    let body = anthropic(&[
        message_start(),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "first"}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "second"}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"a\":1}"}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 1}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}}),
        ),
    ]);
    let mut assembler = Assembler::new();
    assembler.push(body.as_bytes());
    let mut finished_before_text_block = false;
    while let Some(event) = assembler.next_event().unwrap() {
        if let Event::ToolCallFinished { call, .. } = event {
            finished_before_text_block =
                matches!(&*call, deltafold::ContentBlock::ToolCall(c) if c.args["a"] == 1);
        }
    }
    assert!(
        finished_before_text_block,
        "the call is final at its content_block_stop"
    );
    assert!(!assembler.messages()[0].is_finished());
    let content = &assembler.messages()[0].blocks()[0];
    assert!(
        matches!(content, deltafold::assemble::PartialBlock::Content(deltafold::ContentBlock::Reasoning { signature: Some(s), .. }) if s == "second")
    );
    assert_eq!(assembler.dialect(), Some(Dialect::Anthropic));
}

#[test]
fn anthropic_input_tokens_include_cache_reads_and_writes_across_partial_reports() {
    let body = anthropic(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "m", "model": "c", "usage": {"input_tokens": 5, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 20, "output_tokens": 1}}}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": "###"}, "usage": {"input_tokens": 6, "output_tokens": 42}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    let message = assemble(&body).unwrap().into_message();
    let usage = message.usage.unwrap();
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (126, 42, 168)
    );
    let details = usage.input_token_details.unwrap();
    assert_eq!(
        (details.cache_read, details.cache_creation),
        (Some(100), Some(20))
    );
    assert_eq!(message.response_metadata.extra["stop_sequence"], "###");
    assert_eq!(message.response_metadata.finish_reason, "end_turn");
}

#[test]
fn anthropic_stream_is_complete_at_message_stop_or_once_the_stop_reason_came() {
    let started = anthropic(&[message_start()]);
    let error = assemble(&started).unwrap_err();
    assert!(error.is_truncated(), "{error}");
    let stopped = anthropic(&[
        message_start(),
        ("message_stop", json!({"type": "message_stop"})),
    ]);
    assert!(assemble(&stopped).unwrap().complete);
    let finished = anthropic(&[
        message_start(),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}),
        ),
    ]);
    assert!(assemble(&finished).unwrap().complete);
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses

fn created() -> Value {
    json!({"type": "response.created", "response": {"id": "resp_1", "model": "gpt-5", "created_at": 1, "status": "in_progress"}})
}

#[test]
fn responses_error_waits_for_response_failed_or_the_end_of_input() {
    let error_event = json!({"type": "error", "code": "server_error", "message": "boom", "param": null, "sequence_number": 1});
    let failed = json!({"type": "response.failed", "response": {"id": "resp_1", "status": "failed", "error": {"code": "server_error", "message": "boom"}}});
    let error = assemble(&sse(&[created(), error_event.clone(), failed])).unwrap_err();
    assert!(error.is_provider());
    assert_eq!(error.provider_error().unwrap().message, "boom");
    let partial = error.partial().unwrap().message().unwrap();
    assert_eq!(partial.response_metadata.finish_reason, "failed");

    let error = assemble(&sse(&[created(), error_event])).unwrap_err();
    assert!(error.is_provider(), "{error}");
    assert_eq!(
        error.provider_error().unwrap().code.as_deref(),
        Some("server_error")
    );
}

#[test]
fn responses_arguments_done_completes_what_the_deltas_left_out() {
    let body = sse(&[
        created(),
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": ""}}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc_1", "delta": "{\"a\":"}),
        json!({"type": "response.function_call_arguments.done", "output_index": 0, "item_id": "fc_1", "arguments": "{\"a\":1}"}),
        json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "g", "arguments": ""}}),
        json!({"type": "response.output_item.done", "output_index": 1, "item": {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "g", "arguments": "{\"b\":2}"}}),
        json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}}),
    ]);
    let message = assemble(&body).unwrap().into_message();
    let calls: Vec<_> = message
        .tool_calls()
        .map(|c| (c.id.clone(), Value::Object(c.args.clone())))
        .collect();
    assert_eq!(
        calls,
        [
            ("call_1".to_owned(), json!({"a": 1})),
            ("call_2".to_owned(), json!({"b": 2}))
        ]
    );
    assert_eq!(message.response_metadata.finish_reason, "completed");
}

#[test]
fn responses_incomplete_is_a_complete_stream_whose_finish_reason_says_why() {
    let body = sse(&[
        created(),
        json!({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "Once upon"}),
        json!({"type": "response.incomplete", "response": {"id": "resp_1", "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}}),
    ]);
    let completion = assemble(&body).unwrap();
    assert!(completion.complete);
    assert_eq!(
        completion
            .message()
            .unwrap()
            .response_metadata
            .finish_reason,
        "max_output_tokens"
    );
    let truncated = sse(&[created()]);
    assert!(assemble(&truncated).unwrap_err().is_truncated());
}

// ---------------------------------------------------------------------------------------------
// Gemini

#[test]
fn gemini_is_complete_only_when_every_candidate_finished() {
    let chunk = |finish: [Option<&str>; 2]| {
        json!({"candidates": [
            {"index": 0, "content": {"parts": [{"text": "a"}], "role": "model"}, "finishReason": finish[0]},
            {"index": 1, "content": {"parts": [{"text": "b"}], "role": "model"}, "finishReason": finish[1]},
        ]})
    };
    let unfinished = sse(&[chunk([None, None]), chunk([Some("STOP"), None])]);
    let error = assemble(&unfinished).unwrap_err();
    assert!(error.is_truncated());
    assert!(
        error.to_string().contains("choice 1 was unfinished"),
        "{error}"
    );
    let finished = sse(&[
        chunk([None, None]),
        chunk([Some("STOP"), Some("MAX_TOKENS")]),
    ]);
    let completion = assemble(&finished).unwrap();
    assert!(completion.complete);
    let texts: Vec<String> = completion.messages().map(|m| m.text()).collect();
    assert_eq!(texts, ["aa", "bb"]);
    assert_eq!(
        completion.choices[1]
            .message
            .response_metadata
            .finish_reason,
        "MAX_TOKENS"
    );
}

#[test]
fn gemini_usage_is_a_running_total_with_thoughts_counted_as_output() {
    let body = sse(&[
        json!({"candidates": [{"content": {"parts": [{"text": "Hm", "thought": true}]}}], "usageMetadata": {"promptTokenCount": 8, "totalTokenCount": 8}}),
        json!({"candidates": [{"content": {"parts": [{"text": "Hi"}]}, "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 8, "candidatesTokenCount": 2, "thoughtsTokenCount": 5, "cachedContentTokenCount": 4, "totalTokenCount": 15}}),
    ]);
    let message = assemble(&body).unwrap().into_message();
    let usage = message.usage.clone().unwrap();
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (8, 7, 15)
    );
    assert_eq!(usage.output_token_details.unwrap().reasoning, Some(5));
    assert_eq!(usage.input_token_details.unwrap().cache_read, Some(4));
    assert_eq!(
        (message.reasoning().as_str(), message.text().as_str()),
        ("Hm", "Hi")
    );
}

#[test]
fn gemini_function_calls_get_unique_generated_ids_and_keep_given_ones() {
    let body = sse(&[json!({"candidates": [{"content": {"parts": [
        {"functionCall": {"name": "a", "args": {"x": 1}}},
        {"functionCall": {"id": "call_df_1", "name": "b", "args": {}}},
        {"functionCall": {"name": "c"}},
    ]}, "finishReason": "STOP"}]})]);
    let message = assemble(&body).unwrap().into_message();
    let ids: Vec<&str> = message.tool_calls().map(|call| call.id.as_str()).collect();
    assert_eq!(ids, ["call_df_0", "call_df_1", "call_df_2"]);
}

// ---------------------------------------------------------------------------------------------
// Ollama and NDJSON framing

#[test]
fn ollama_needs_done_and_reads_a_last_line_without_newline() {
    let line = |done: bool| json!({"model": "qwen3", "created_at": "2025-01-01T00:00:00Z", "message": {"role": "assistant", "content": "hi"}, "done": done});
    let mut body = ndjson(&[line(false)]);
    assert!(assemble(&body).unwrap_err().is_truncated());
    body.push_str(&line(true).to_string());
    let completion = assemble(&body).unwrap();
    assert!(completion.complete);
    assert_eq!(completion.into_message().text(), "hihi");
}

#[test]
fn a_last_ndjson_line_cut_short_is_a_truncation_not_a_malformed_payload() {
    let body =
        "{\"model\":\"m\",\"message\":{\"content\":\"a\"},\"done\":false}\n{\"model\":\"m\",\"mess";
    let error = assemble(body).unwrap_err();
    assert!(error.is_truncated(), "{error}");
    assert_eq!(error.partial().unwrap().message().unwrap().text(), "a");
    let broken = "{\"model\":\"m\",\"message\":{\"content\":\"a\"},\"done\":false}\n{oops}\n";
    assert!(assemble(broken).unwrap_err().is_malformed());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// However the input is split, the same lines come out, and nothing but the final line can
    /// lack its newline.
    #[test]
    fn ndjson_lines_do_not_depend_on_the_split(
        lines in prop::collection::vec("[a-z{}\" :é😀]{0,12}", 0..8),
        crlf in any::<bool>(),
        final_newline in any::<bool>(),
        cuts in prop::collection::vec(1usize..9, 0..40),
    ) {
        let end = if crlf { "\r\n" } else { "\n" };
        let mut input = lines.join(end);
        if final_newline {
            input.push_str(end);
        }
        let expected: Vec<String> = lines
            .iter()
            .filter(|line| !line.trim().is_empty())
            .cloned()
            .collect();
        let mut decoder = NdjsonDecoder::new();
        let mut got = Vec::new();
        let mut rest = input.as_bytes();
        for cut in cuts.iter().cycle().take(input.len() + 1) {
            if rest.is_empty() {
                break;
            }
            let (piece, tail) = rest.split_at((*cut).min(rest.len()));
            decoder.push(piece);
            rest = tail;
            while let Some(frame) = decoder.next_frame().unwrap() {
                got.push(frame.data.to_owned());
            }
        }
        decoder.push(rest);
        while let Some(frame) = decoder.next_frame().unwrap() {
            got.push(frame.data.to_owned());
        }
        while let Some(frame) = decoder.finish().unwrap() {
            got.push(frame.data.to_owned());
        }
        prop_assert_eq!(got, expected);
    }
}

/// Every dialect fixture, read once.
fn fixture_bodies() -> &'static [Vec<u8>] {
    static BODIES: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    BODIES.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        DIALECT_DIRS
            .iter()
            .flat_map(|dir| streams_in(&root.join(dir)))
            .map(|path| std::fs::read(path).unwrap())
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Damaged streams of every dialect (bytes overwritten, a cut, a splice of two fixtures)
    /// never panic, and an error always carries the partial result.
    #[test]
    fn damaged_dialect_streams_fail_cleanly(
        pick in any::<prop::sample::Index>(),
        other in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        cut in any::<prop::sample::Index>(),
        splice in any::<bool>(),
        lenient in any::<bool>(),
    ) {
        let bodies = fixture_bodies();
        let mut body = bodies[pick.index(bodies.len())].clone();
        if splice {
            let other = &bodies[other.index(bodies.len())];
            body.extend_from_slice(&other[other.len() / 2..]);
        }
        for (at, byte) in &edits {
            let at = at.index(body.len());
            body[at] = *byte;
        }
        body.truncate(cut.index(body.len() + 1));
        match deltafold::assemble(&body, Options::new().lenient(lenient)) {
            Ok(completion) => prop_assert!(completion.complete || lenient),
            Err(error) => prop_assert!(error.partial().is_some(), "{}", error),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Detection and explicit dialects

#[test]
fn the_dialect_is_detected_from_the_first_payload_or_forced() {
    let chat = sse(&[
        json!({"choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": "stop"}]}),
    ]);
    let gemini = sse(&[
        json!({"candidates": [{"content": {"parts": [{"text": "x"}]}, "finishReason": "STOP"}]}),
    ]);
    let ollama = ndjson(&[
        json!({"model": "m", "message": {"content": "x"}, "done": true, "done_reason": "stop"}),
    ]);
    for (body, dialect) in [
        (chat.as_str(), Dialect::OpenAiChat),
        (gemini.as_str(), Dialect::Gemini),
        (ollama.as_str(), Dialect::Ollama),
    ] {
        let mut assembler = Assembler::new();
        assembler.feed(body.as_bytes()).unwrap();
        assert_eq!(assembler.dialect(), Some(dialect));
        let message = assembler.finish().unwrap().into_message();
        assert_eq!(message.text(), "x");
        assert_eq!(
            message.response_metadata.model_provider.as_deref(),
            Some(dialect.provider_name())
        );
    }
    let forced = deltafold::assemble(
        gemini.as_bytes(),
        Options::new().dialect(Dialect::Anthropic),
    );
    let error = forced.unwrap_err();
    assert!(error.is_malformed());
    assert!(
        error
            .to_string()
            .contains("Gemini dialect in a stream read as Anthropic Messages"),
        "{error}"
    );
}

#[test]
fn a_payload_of_another_dialect_mid_stream_is_a_clear_error() {
    let body = format!(
        "{}{}",
        sse(&[json!({"id": "c", "choices": [{"index": 0, "delta": {"content": "a"}}]})]),
        anthropic(&[(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "b"}})
        )]),
    );
    let error = assemble(&body).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Malformed);
    assert!(
        error
            .to_string()
            .contains("Anthropic Messages dialect in a stream read as OpenAI chat-completion"),
        "{error}"
    );
    assert_eq!(error.location().unwrap().event, 2);
    assert_eq!(error.partial().unwrap().message().unwrap().text(), "a");

    let gemini_in_responses = sse(&[created(), json!({"candidates": [], "usageMetadata": {}})]);
    assert!(assemble(&gemini_in_responses)
        .unwrap_err()
        .to_string()
        .contains("Gemini dialect"));
}

#[test]
fn a_content_type_fixes_the_framing_before_the_first_byte() {
    let line = "{\"model\":\"m\",\"message\":{\"content\":\"x\"},\"done\":true}\n";
    let mut assembler = Assembler::new();
    assembler.set_content_type("text/event-stream; charset=utf-8");
    assembler.push(line.as_bytes());
    let error = assembler.finish().unwrap_err();
    assert!(
        error.to_string().contains("is this an event stream?"),
        "{error}"
    );
    let mut assembler = Assembler::new();
    assembler.set_content_type("application/x-ndjson");
    assembler.push(line.as_bytes());
    assert_eq!(assembler.finish().unwrap().into_message().text(), "x");
}

#[test]
fn dialect_names_parse_for_the_cli() {
    for (name, dialect) in [
        ("openai", Dialect::OpenAiChat),
        ("anthropic", Dialect::Anthropic),
        ("openai-responses", Dialect::OpenAiResponses),
        ("gemini", Dialect::Gemini),
        ("ollama", Dialect::Ollama),
    ] {
        assert_eq!(name.parse::<Dialect>().unwrap(), dialect);
        assert_eq!(dialect.to_string(), name);
    }
    let error = "mistral".parse::<Dialect>().unwrap_err();
    assert!(error
        .to_string()
        .contains("openai, anthropic, openai-responses, gemini, ollama"));
}

// ---------------------------------------------------------------------------------------------
// <think> extraction

fn chat_text(pieces: &[&str]) -> String {
    let mut payloads: Vec<Value> = pieces
        .iter()
        .map(|text| json!({"choices": [{"index": 0, "delta": {"content": text}}]}))
        .collect();
    payloads.push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}));
    let mut body = sse(&payloads);
    body.push_str("data: [DONE]\n\n");
    body
}

#[test]
fn think_tags_stay_text_unless_asked_and_then_stream_as_reasoning() {
    let body = chat_text(&[
        "<thi",
        "nk>\nStep 1",
        ". Step 2.</th",
        "ink>\n\nThe answer.",
    ]);
    let plain = deltafold::assemble(body.as_bytes(), Options::new())
        .unwrap()
        .into_message();
    assert_eq!(
        plain.text(),
        "<think>\nStep 1. Step 2.</think>\n\nThe answer."
    );
    assert_eq!(plain.reasoning(), "");

    let replay = replay([body.as_bytes()], Options::new().think_tags(true));
    let message = replay.result.unwrap().into_message();
    assert_eq!(message.reasoning(), "Step 1. Step 2.");
    assert_eq!(message.text(), "The answer.");
    let order: Vec<String> = replay
        .events
        .iter()
        .filter_map(|event| match event {
            Event::ReasoningDelta { text, .. } => Some(format!("r:{text}")),
            Event::TextDelta { text, .. } => Some(format!("t:{text}")),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["r:Step 1", "r:. Step 2.", "t:The answer."]);
}

#[test]
fn think_tags_apply_to_the_real_together_stream() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/real-sse/together__think_tags__1.sse");
    let Ok(bytes) = std::fs::read(path) else {
        eprintln!("../shared/real-sse not found; skipping");
        return;
    };
    let message = deltafold::assemble(&bytes, Options::new().think_tags(true))
        .unwrap()
        .into_message();
    assert!(message
        .reasoning()
        .starts_with("Okay, the user asked \"How do I cross the street?\""));
    assert!(!message.reasoning().contains("think>"));
    assert!(message.text().starts_with("Crossing the street safely"));
    assert!(!message.text().contains("<think>"));
}
