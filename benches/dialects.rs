//! Issue 5's floor ratio for the other dialects: bytes in → `Completion` out (detection on),
//! against `serde_json` deserialising every payload of the same stream into a borrowed struct of
//! that dialect (framing done ahead), timed interleaved in one run.
//!
//! ```text
//! cargo bench --bench dialects
//! cargo bench --bench dialects --no-run   # then, for a profile:
//! valgrind --tool=callgrind --toggle-collect='*contestant_*' \
//!     target/release/deps/dialects-HASH --profile anthropic deltafold
//! ```
//!
//! Besides the whole, two columns split it: the SSE framing alone (`SseDecoder`), and the
//! dialect decoding and folding of payloads framed ahead (`Assembler::push_frame`, with their
//! `event:` names), each also as a multiple of the floor.
//!
//! Each stream is generated here: 20,000 text deltas of a few words, then (where the dialect
//! streams them) one tool call whose arguments arrive in 2,000 fragments, then the end.

// The floor structs are deserialised, not read: their fields are the work being measured.
#![allow(dead_code)]

mod support;

use std::hint::black_box;
use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;
use support::floor::Str;
use support::timing::{race, Budget, Contestant};

const TEXT_DELTAS: usize = 20_000;
const ARGUMENT_FRAGMENTS: usize = 2_000;

fn words(index: usize) -> String {
    format!("word{index} and \\\"more\\\" ")
}

fn sse(event: &str, data: &str) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

fn anthropic() -> String {
    let mut body = sse(
        "message_start",
        r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":25,"output_tokens":1}}}"#,
    );
    body += &sse(
        "content_block_start",
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    );
    for index in 0..TEXT_DELTAS {
        body += &sse(
            "content_block_delta",
            &format!(
                r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"{}"}}}}"#,
                words(index)
            ),
        );
    }
    body += &sse(
        "content_block_stop",
        r#"{"type":"content_block_stop","index":0}"#,
    );
    body += &sse(
        "content_block_start",
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"search","input":{}}}"#,
    );
    body += &sse(
        "content_block_delta",
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"q\": ["}}"#,
    );
    for index in 0..ARGUMENT_FRAGMENTS {
        body += &sse(
            "content_block_delta",
            &format!(
                r#"{{"type":"content_block_delta","index":1,"delta":{{"type":"input_json_delta","partial_json":"{index}, "}}}}"#
            ),
        );
    }
    body += &sse(
        "content_block_delta",
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"0]}"}}"#,
    );
    body += &sse(
        "content_block_stop",
        r#"{"type":"content_block_stop","index":1}"#,
    );
    body += &sse(
        "message_delta",
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":4000}}"#,
    );
    body + &sse("message_stop", r#"{"type":"message_stop"}"#)
}

fn openai_responses() -> String {
    let mut body = sse(
        "response.created",
        r#"{"type":"response.created","response":{"id":"resp_1","object":"response","status":"in_progress","model":"gpt-5","output":[]}}"#,
    );
    body += &sse(
        "response.output_item.added",
        r#"{"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message","role":"assistant","content":[]}}"#,
    );
    for index in 0..TEXT_DELTAS {
        body += &sse(
            "response.output_text.delta",
            &format!(
                r#"{{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"{}"}}"#,
                words(index)
            ),
        );
    }
    body += &sse(
        "response.output_item.added",
        r#"{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"search","arguments":""}}"#,
    );
    body += &sse(
        "response.function_call_arguments.delta",
        r#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"{\"q\": ["}"#,
    );
    for index in 0..ARGUMENT_FRAGMENTS {
        body += &sse(
            "response.function_call_arguments.delta",
            &format!(
                r#"{{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"{index}, "}}"#
            ),
        );
    }
    body += &sse(
        "response.function_call_arguments.delta",
        r#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"0]}"}"#,
    );
    body + &sse(
        "response.completed",
        r#"{"type":"response.completed","response":{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","usage":{"input_tokens":25,"output_tokens":4000,"total_tokens":4025}}}"#,
    )
}

fn gemini() -> String {
    let mut body = String::new();
    for index in 0..TEXT_DELTAS {
        let finish = if index + 1 == TEXT_DELTAS {
            r#","finishReason":"STOP""#
        } else {
            ""
        };
        body += &format!(
            "data: {{\"candidates\":[{{\"content\":{{\"parts\":[{{\"text\":\"{}\"}}],\"role\":\"model\"}}{finish},\"index\":0}}],\"usageMetadata\":{{\"promptTokenCount\":25,\"candidatesTokenCount\":{index},\"totalTokenCount\":{}}},\"modelVersion\":\"gemini-2.5-flash\",\"responseId\":\"r1\"}}\n\n",
            words(index),
            index + 25
        );
    }
    body
}

fn ollama() -> String {
    let mut body = String::new();
    for index in 0..TEXT_DELTAS {
        body += &format!(
            "{{\"model\":\"llama3.2\",\"created_at\":\"2025-01-01T00:00:00.000000Z\",\"message\":{{\"role\":\"assistant\",\"content\":\"{}\"}},\"done\":false}}\n",
            words(index)
        );
    }
    body + "{\"model\":\"llama3.2\",\"created_at\":\"2025-01-01T00:00:01.000000Z\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"prompt_eval_count\":25,\"eval_count\":4000}\n"
}

/// The fields of the dialects' delta payloads that any assembler must read, borrowed.
#[derive(Deserialize)]
struct AnthropicEvent<'a> {
    #[serde(rename = "type", borrow)]
    kind: Str<'a>,
    #[serde(default)]
    index: Option<u32>,
    #[serde(borrow, default)]
    delta: Option<AnthropicDelta<'a>>,
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content_block: Option<&'a RawValue>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct AnthropicDelta<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Str<'a>>,
    #[serde(borrow, default)]
    text: Option<Str<'a>>,
    #[serde(borrow, default)]
    partial_json: Option<Str<'a>>,
    #[serde(borrow, default)]
    stop_reason: Option<Str<'a>>,
}

#[derive(Deserialize)]
struct ResponsesEvent<'a> {
    #[serde(rename = "type", borrow)]
    kind: Str<'a>,
    #[serde(default)]
    output_index: Option<u32>,
    #[serde(default)]
    content_index: Option<u32>,
    #[serde(borrow, default)]
    item_id: Option<Str<'a>>,
    #[serde(borrow, default)]
    delta: Option<Str<'a>>,
    #[serde(borrow, default)]
    item: Option<&'a RawValue>,
    #[serde(borrow, default)]
    response: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct GeminiChunk<'a> {
    #[serde(borrow, default)]
    candidates: Vec<GeminiCandidate<'a>>,
    #[serde(rename = "usageMetadata", default)]
    usage: Option<GeminiUsage>,
    #[serde(rename = "modelVersion", borrow, default)]
    model: Option<Str<'a>>,
    #[serde(rename = "responseId", borrow, default)]
    id: Option<Str<'a>>,
}

#[derive(Deserialize)]
struct GeminiCandidate<'a> {
    #[serde(borrow, default)]
    content: Option<GeminiContent<'a>>,
    #[serde(rename = "finishReason", borrow, default)]
    finish: Option<Str<'a>>,
    #[serde(default)]
    index: Option<u32>,
}

#[derive(Deserialize)]
struct GeminiContent<'a> {
    #[serde(borrow, default)]
    parts: Vec<GeminiPart<'a>>,
}

#[derive(Deserialize)]
struct GeminiPart<'a> {
    #[serde(borrow, default)]
    text: Option<Str<'a>>,
    #[serde(default)]
    thought: Option<bool>,
}

#[derive(Deserialize)]
struct GeminiUsage {
    #[serde(rename = "promptTokenCount", default)]
    prompt: Option<u64>,
    #[serde(rename = "candidatesTokenCount", default)]
    candidates: Option<u64>,
}

#[derive(Deserialize)]
struct OllamaLine<'a> {
    #[serde(borrow, default)]
    model: Option<Str<'a>>,
    #[serde(borrow, default)]
    message: Option<OllamaMessage<'a>>,
    #[serde(default)]
    done: bool,
    #[serde(borrow, default)]
    done_reason: Option<Str<'a>>,
    #[serde(default)]
    eval_count: Option<u64>,
}

#[derive(Deserialize)]
struct OllamaMessage<'a> {
    #[serde(borrow, default)]
    content: Option<Str<'a>>,
    #[serde(borrow, default)]
    thinking: Option<Str<'a>>,
}

/// The payloads of an SSE body (one `data:` line per event here) or of an NDJSON body.
fn payloads(body: &str) -> Vec<&str> {
    framed(body).into_iter().map(|(_, data)| data).collect()
}

/// The events of an SSE body (an `event:` line, if any, then one `data:` line) or the lines of
/// an NDJSON body, as `Assembler::push_frame` takes them.
fn framed(body: &str) -> Vec<(Option<&str>, &str)> {
    let mut event = None;
    let mut frames = Vec::new();
    for line in body.lines() {
        if let Some(name) = line.strip_prefix("event: ") {
            event = Some(name);
        } else if let Some(data) = line
            .strip_prefix("data: ")
            .or_else(|| line.starts_with('{').then_some(line))
        {
            frames.push((event.take(), data));
        }
    }
    frames
}

fn floor<'a, T: Deserialize<'a>>(payloads: &[&'a str]) -> usize {
    payloads
        .iter()
        .map(|payload| {
            let parsed: T = serde_json::from_str(payload).expect("a valid payload");
            black_box(&parsed);
            1
        })
        .sum()
}

/// Deserialises every payload of a stream into the dialect's floor struct.
type FloorParse = fn(&[&str]) -> usize;

/// deltafold's SSE decoder alone, over the whole body in one read (NDJSON bodies have none).
#[inline(never)]
fn contestant_framing(bytes: &[u8]) -> usize {
    support::contestants::framing(bytes)
}

/// Dialect decoding and folding alone: payloads framed ahead, pushed with their event names.
#[inline(never)]
fn contestant_pre_framed(frames: &[(Option<&str>, &str)]) -> usize {
    support::contestants::pre_framed(frames.iter().copied())
}

/// Bytes in → `Completion` out, in one read.
#[inline(never)]
fn contestant_deltafold(bytes: &[u8]) -> usize {
    let completion = deltafold::assemble(bytes, deltafold::Options::new());
    completion.map_or(0, |done| done.choices.len())
}

fn streams() -> [(&'static str, String, FloorParse); 4] {
    [
        ("Anthropic Messages", anthropic(), |p| {
            floor::<AnthropicEvent<'_>>(p)
        }),
        ("OpenAI Responses", openai_responses(), |p| {
            floor::<ResponsesEvent<'_>>(p)
        }),
        ("Gemini", gemini(), |p| floor::<GeminiChunk<'_>>(p)),
        ("Ollama (NDJSON)", ollama(), |p| floor::<OllamaLine<'_>>(p)),
    ]
}

/// `--profile DIALECT CONTESTANT`: runs one contestant on one stream ten times, for callgrind
/// (`--toggle-collect='*contestant_*'` leaves the stream generation out). DIALECT is the first
/// word of a stream's name, lower case (`anthropic`, `openai`, `gemini`, `ollama`); CONTESTANT is
/// `floor`, `framing`, `pre-framed` or `deltafold`.
fn profile(dialect: &str, contestant: &str) {
    let streams = streams();
    let Some((_, body, parse)) = streams
        .iter()
        .find(|(name, _, _)| name.to_lowercase().starts_with(dialect))
    else {
        eprintln!("unknown dialect {dialect}");
        std::process::exit(2)
    };
    let frames = framed(body);
    let payloads = payloads(body);
    for _ in 0..10 {
        let work = match contestant {
            "floor" => contestant_floor(*parse, &payloads),
            "framing" => contestant_framing(body.as_bytes()),
            "pre-framed" => contestant_pre_framed(&frames),
            "deltafold" => contestant_deltafold(body.as_bytes()),
            other => {
                eprintln!("unknown contestant {other}");
                std::process::exit(2)
            }
        };
        black_box(work);
    }
}

/// The floor, out of line so that a profiler can single it out.
#[inline(never)]
fn contestant_floor(parse: FloorParse, payloads: &[&str]) -> usize {
    parse(payloads)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|arg| arg == "--profile") {
        match &args[at + 1..] {
            [dialect, contestant, ..] => return profile(dialect, contestant),
            _ => {
                eprintln!("usage: dialects --profile DIALECT CONTESTANT");
                std::process::exit(2)
            }
        }
    }
    let budget = Budget {
        samples: 9,
        sample_time: Duration::from_millis(300),
    };
    let mut report = String::from(
        "### Issue 5: the other dialects against their floor\n\n\
         | dialect | size | payloads | floor | SSE framing alone | pre-framed (`push_frame`) | \
         deltafold, one read | ÷ floor |\n|---|---|---|---|---|---|---|---|\n",
    );
    for (name, body, parse) in &streams() {
        let bytes = body.as_bytes();
        let completion = deltafold::assemble(bytes, deltafold::Options::new())
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        let message = completion.message().expect("one message");
        assert!(
            message.text().len() > TEXT_DELTAS * 10,
            "{name}: text assembled"
        );
        let frames = framed(body);
        let payloads = payloads(body);
        let ndjson = !body.starts_with("event:") && !body.starts_with("data:");
        let mut contestants = vec![
            Contestant::new("floor", || contestant_floor(*parse, &payloads)),
            Contestant::new("pre-framed", || contestant_pre_framed(&frames)),
            Contestant::new("deltafold", || contestant_deltafold(bytes)),
        ];
        if !ndjson {
            contestants.push(Contestant::new("framing", || contestant_framing(bytes)));
        }
        let medians = race(&mut contestants, budget);
        let megabytes = bytes.len() as f64 / 1e6;
        let rate = |time: Duration| format!("{:.0} MB/s", megabytes / time.as_secs_f64());
        let ratio = |time: Duration| time.as_secs_f64() / medians[0].as_secs_f64();
        let framing = medians.get(3).map_or_else(
            || "—".to_owned(),
            |&time| format!("{} ({:.2}×)", rate(time), ratio(time)),
        );
        report += &format!(
            "| {name} | {megabytes:.2} MB | {} | {} | {framing} | {} ({:.2}×) | {} | {:.2}× |\n",
            payloads.len(),
            rate(medians[0]),
            rate(medians[1]),
            ratio(medians[1]),
            rate(medians[2]),
            ratio(medians[2]),
        );
    }
    println!("{report}");
}
