//! Property tests of the whole pipeline (SSE decoder, OpenAI chat dialect, assembler), over every
//! fixture (`fixtures/**/*.sse`, plus the shared real recordings when they sit beside the
//! repository) and over generated chat-completion streams:
//! - cutting the byte stream anywhere gives the same events (consecutive deltas of the same kind
//!   joined) and the same final message, or the same error at the same place;
//! - `: keep-alive` comments between events, and CRLF or CR line ends, change nothing;
//! - framing with `eventsource-stream` and feeding `Assembler::push_frame` agrees with our own
//!   decoder on valid input;
//! - a generated stream assembles to the message it was generated from, and its live events add
//!   up to that message.

use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use bytes::Bytes;
use deltafold::{Completion, ContentBlock, ErrorKind, Event, Location, Options};
use eventsource_stream::Eventsource;
use futures::StreamExt;
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Map, Value};

#[path = "support/replay/mod.rs"]
mod replay;

// ---------------------------------------------------------------------------------------------
// Running the assembler

/// An error as far as the properties care: its kind, its place, and the partial result.
#[derive(Debug, Clone, PartialEq)]
struct Failure {
    kind: ErrorKind,
    location: Option<Location>,
    partial: Option<Completion>,
}

/// Everything one run produced: the live events, consecutive deltas joined, and the result.
#[derive(Debug, Clone, PartialEq)]
struct Outcome {
    events: Vec<Event<'static>>,
    result: Result<Completion, Failure>,
}

impl Outcome {
    /// The outcome without byte offsets, which comments and line-end styles legitimately move:
    /// the error keeps its kind and event number, and the partial result loses the error text
    /// (which quotes the offset).
    fn without_offsets(&self) -> Outcome {
        let result = match &self.result {
            Ok(completion) => Ok(completion.clone()),
            Err(failure) => Err(Failure {
                kind: failure.kind,
                location: failure.location.map(|location| Location {
                    offset: 0,
                    ..location
                }),
                partial: failure.partial.clone().map(|mut partial| {
                    for choice in &mut partial.choices {
                        choice.message.response_metadata.incomplete = None;
                    }
                    partial
                }),
            }),
        };
        Outcome {
            events: self.events.clone(),
            result,
        }
    }
}

/// Appends an event, merging it into the previous one when both are deltas of the same text or
/// of the same tool call's arguments: how deltas are grouped may depend on the cuts, their sum
/// must not.
fn join(events: &mut Vec<Event<'static>>, event: Event<'static>) {
    match (events.last_mut(), event) {
        (
            Some(Event::TextDelta { choice, text }),
            Event::TextDelta {
                choice: next,
                text: more,
            },
        )
        | (
            Some(Event::ReasoningDelta { choice, text }),
            Event::ReasoningDelta {
                choice: next,
                text: more,
            },
        )
        | (
            Some(Event::RefusalDelta { choice, text }),
            Event::RefusalDelta {
                choice: next,
                text: more,
            },
        ) if *choice == next => text.to_mut().push_str(&more),
        (
            Some(Event::ToolCallArgumentsDelta {
                choice,
                index,
                delta,
            }),
            Event::ToolCallArgumentsDelta {
                choice: next_choice,
                index: next_index,
                delta: more,
            },
        ) if *choice == next_choice && *index == next_index => delta.to_mut().push_str(&more),
        (_, event) => events.push(event),
    }
}

fn failure(error: deltafold::Error) -> Failure {
    Failure {
        kind: error.kind(),
        location: error.location(),
        partial: error.into_partial(),
    }
}

impl From<replay::Run> for Outcome {
    fn from(run: replay::Run) -> Self {
        let mut events = Vec::new();
        for event in run.events {
            join(&mut events, event);
        }
        Outcome {
            events,
            result: run.result.map_err(failure),
        }
    }
}

/// Pushes each piece into our decoder and pulls the events it completes.
fn run<'a>(pieces: impl IntoIterator<Item = &'a [u8]>) -> Outcome {
    replay::run(pieces, Options::new()).into()
}

/// Frames the pieces with `eventsource-stream` and feeds each event to `push_frame`.
fn run_eventsource(pieces: &[&[u8]]) -> Outcome {
    let chunks: Vec<Result<Bytes, Infallible>> = pieces
        .iter()
        .map(|piece| Ok(Bytes::copy_from_slice(piece)))
        .collect();
    let frames = futures::executor::block_on(
        futures::stream::iter(chunks)
            .eventsource()
            .collect::<Vec<_>>(),
    );
    replay::run_fed(frames, Options::new(), |assembler, frame| {
        let frame = frame.expect("eventsource-stream reads a valid stream");
        assembler.push_frame(Some(&frame.event), &frame.data);
    })
    .into()
}

/// Cuts `input` at the given points (any order, duplicates allowed).
fn split<'a>(input: &'a [u8], cuts: &[Index]) -> Vec<&'a [u8]> {
    let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut.index(input.len() + 1)).collect();
    cuts.sort_unstable();
    let mut pieces = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for cut in cuts {
        pieces.push(&input[start..cut]);
        start = cut;
    }
    pieces.push(&input[start..]);
    pieces
}

/// The kinds of comment inserted between events.
const KEEP_ALIVES: [&str; 3] = [": keep-alive\n\n", ":\n", ": ping 12\n"];

/// Rewrites a stream with the given line end, inserting a comment after the event boundaries
/// chosen by `keep_alives` (cycled). Every line end of the input (LF, CRLF, CR) is one line end.
fn reframe(input: &[u8], eol: &str, keep_alives: &[Option<usize>]) -> Vec<u8> {
    let text = String::from_utf8(input.to_vec()).expect("reframing needs UTF-8");
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut out = String::with_capacity(text.len() * 2);
    let mut boundaries = keep_alives.iter().cycle();
    let lines: Vec<&str> = text.split('\n').collect();
    for (number, line) in lines.iter().enumerate() {
        out.push_str(line);
        if number + 1 == lines.len() {
            break;
        }
        out.push_str(eol);
        if line.is_empty() {
            if let Some(Some(kind)) = boundaries.next() {
                out.push_str(&KEEP_ALIVES[kind % KEEP_ALIVES.len()].replace('\n', eol));
            }
        }
    }
    out.into_bytes()
}

/// Checks that the live events add up to each message of the result: text, reasoning and refusal
/// deltas to its texts, and the argument deltas of each call to its arguments.
fn check_events_add_up(outcome: &Outcome) -> Result<(), TestCaseError> {
    let completion = match &outcome.result {
        Ok(completion) => completion,
        Err(failure) => match &failure.partial {
            Some(partial) => partial,
            None => return Err(TestCaseError::fail("an error without the partial result")),
        },
    };
    for choice in &completion.choices {
        let index = choice.index;
        let mut text = String::new();
        let mut reasoning = String::new();
        let mut refusal = String::new();
        let mut arguments: Vec<(u32, String)> = Vec::new();
        for event in &outcome.events {
            match event {
                Event::TextDelta { choice, text: t } if *choice == index => text.push_str(t),
                Event::ReasoningDelta { choice, text: t } if *choice == index => {
                    reasoning.push_str(t)
                }
                Event::RefusalDelta { choice, text: t } if *choice == index => refusal.push_str(t),
                Event::ToolCallStarted {
                    choice,
                    index: call,
                    ..
                } if *choice == index => arguments.push((*call, String::new())),
                Event::ToolCallArgumentsDelta {
                    choice,
                    index: call,
                    delta,
                } if *choice == index => {
                    let started = arguments.iter_mut().find(|(started, _)| started == call);
                    prop_assert!(started.is_some(), "arguments before ToolCallStarted");
                    if let Some((_, streamed)) = started {
                        streamed.push_str(delta);
                    }
                }
                _ => {}
            }
        }
        let message = &choice.message;
        prop_assert_eq!(message.text(), text);
        prop_assert_eq!(message.reasoning(), reasoning);
        prop_assert_eq!(message.refusal().unwrap_or_default(), refusal);
        let calls: Vec<&ContentBlock> = message
            .content
            .iter()
            .filter(|block| {
                matches!(
                    block,
                    ContentBlock::ToolCall(_) | ContentBlock::InvalidToolCall(_)
                )
            })
            .collect();
        prop_assert_eq!(calls.len(), arguments.len(), "one ToolCallStarted per call");
        for (block, (_, streamed)) in calls.iter().zip(&arguments) {
            match block {
                ContentBlock::InvalidToolCall(call) => prop_assert_eq!(&call.args, streamed),
                ContentBlock::ToolCall(call) if streamed.trim().is_empty() => {
                    prop_assert!(call.args.is_empty())
                }
                ContentBlock::ToolCall(call) => {
                    let parsed: Value = serde_json::from_str(streamed)
                        .map_err(|error| TestCaseError::fail(error.to_string()))?;
                    prop_assert_eq!(parsed, Value::Object(call.args.clone()));
                }
                _ => unreachable!("filtered to tool calls"),
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Fixtures

struct Fixture {
    name: String,
    bytes: Vec<u8>,
}

fn collect_sse(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_sse(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "sse") {
            found.push(path);
        }
    }
}

/// Every `fixtures/**/*.sse`, then the shared chat-completion recordings if present.
fn fixtures() -> &'static [Fixture] {
    static FIXTURES: OnceLock<Vec<Fixture>> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut paths = Vec::new();
        collect_sse(&root.join("fixtures"), &mut paths);
        paths.sort();
        let mut recorded = Vec::new();
        collect_sse(&root.join("../shared/real-sse"), &mut recorded);
        recorded.retain(|path| {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            !name.starts_with("anthropic__") && !name.starts_with("openai_responses__")
        });
        recorded.sort();
        paths.extend(recorded);
        paths
            .into_iter()
            .map(|path| Fixture {
                name: path.display().to_string(),
                bytes: std::fs::read(&path).expect("a readable fixture"),
            })
            .collect()
    })
}

fn fixture(index: &Index) -> &'static Fixture {
    let all = fixtures();
    &all[index.index(all.len())]
}

/// Where `eventsource-stream` and the WHATWG rules agree on framing: no BOM (it panics on one),
/// and a stream that ends with a blank line (it drops an unterminated last event).
fn frames_alike_in_eventsource_stream(bytes: &[u8]) -> bool {
    !bytes.starts_with(b"\xEF\xBB\xBF")
        && [&b"\n\n"[..], b"\r\n\r\n", b"\r\r", b"\n\r\n"]
            .iter()
            .any(|end| bytes.ends_with(end))
}

#[test]
fn fixtures_are_found() {
    let own = fixtures()
        .iter()
        .filter(|fixture| !fixture.name.contains("real-sse"))
        .count();
    assert!(own >= 10, "found only {own} fixtures under fixtures/");
}

#[test]
fn every_fixture_byte_at_a_time_matches_one_push() {
    for fixture in fixtures() {
        let whole = run([&fixture.bytes[..]]);
        let bytewise = run(fixture.bytes.chunks(1));
        assert_eq!(bytewise, whole, "{}", fixture.name);
        check_events_add_up(&whole).unwrap_or_else(|error| panic!("{}: {error}", fixture.name));
    }
}

#[test]
fn every_fixture_reframed_matches_the_original() {
    for fixture in fixtures() {
        if std::str::from_utf8(&fixture.bytes).is_err() {
            continue;
        }
        let plain = run([&fixture.bytes[..]]).without_offsets();
        for eol in ["\n", "\r\n", "\r"] {
            let reframed = reframe(&fixture.bytes, eol, &[Some(0), None, Some(1), Some(2)]);
            assert_eq!(
                run([&reframed[..]]).without_offsets(),
                plain,
                "{} with {eol:?} line ends and keep-alives",
                fixture.name
            );
        }
    }
}

#[test]
fn every_valid_fixture_assembles_alike_through_eventsource_stream() {
    let mut compared = 0;
    for fixture in fixtures() {
        let ours = run([&fixture.bytes[..]]);
        if !frames_alike_in_eventsource_stream(&fixture.bytes)
            || !matches!(&ours.result, Ok(completion) if completion.complete)
        {
            continue;
        }
        compared += 1;
        let pieces: Vec<&[u8]> = fixture.bytes.chunks(5).collect();
        assert_eq!(run_eventsource(&pieces), ours, "{}", fixture.name);
    }
    assert!(compared >= 10, "only {compared} fixtures were compared");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn cutting_a_fixture_anywhere_changes_nothing(
        which in any::<Index>(),
        cuts in prop::collection::vec(any::<Index>(), 0..24),
    ) {
        let fixture = fixture(&which);
        let whole = run([&fixture.bytes[..]]);
        prop_assert_eq!(run(split(&fixture.bytes, &cuts)), whole, "{}", fixture.name);
    }

    #[test]
    fn keep_alives_and_line_ends_change_nothing_in_a_fixture(
        which in any::<Index>(),
        eol in prop::sample::select(&["\n", "\r\n", "\r"][..]),
        keep_alives in prop::collection::vec(prop::option::of(0usize..3), 1..8),
        cuts in prop::collection::vec(any::<Index>(), 0..8),
    ) {
        let fixture = fixture(&which);
        prop_assume!(std::str::from_utf8(&fixture.bytes).is_ok());
        let plain = run([&fixture.bytes[..]]).without_offsets();
        let reframed = reframe(&fixture.bytes, eol, &keep_alives);
        prop_assert_eq!(run(split(&reframed, &cuts)).without_offsets(), plain, "{}", fixture.name);
    }
}

// ---------------------------------------------------------------------------------------------
// Generated chat-completion streams

/// A tool call to stream: its parsed arguments, and their JSON text cut into fragments.
#[derive(Debug, Clone)]
struct CallPlan {
    id: String,
    name: String,
    args: Map<String, Value>,
    fragments: Vec<String>,
}

/// One choice to stream.
#[derive(Debug, Clone)]
struct ChoicePlan {
    reasoning: Vec<String>,
    text: Vec<String>,
    calls: Vec<CallPlan>,
    finish_reason: &'static str,
    /// Whether the finish reason rides on the choice's last delta or comes in a chunk of its own.
    finish_inline: bool,
}

/// A whole stream and the message each choice must assemble to.
#[derive(Debug, Clone)]
struct StreamPlan {
    id: String,
    model: String,
    choices: Vec<ChoicePlan>,
    /// Which choice sends its next chunk, in turn (cycled), to interleave the choices.
    turns: Vec<Index>,
    usage: Option<(u64, u64)>,
    /// Which characters of the payload strings are sent as `\u` escapes (cycled).
    escapes: Vec<bool>,
}

/// Characters that stress the pipeline: multi-byte UTF-8, JSON escapes, control characters,
/// a BOM and a line separator in the middle of text.
fn content_char() -> impl Strategy<Value = char> {
    prop_oneof![
        6 => prop::char::range('a', 'z'),
        2 => Just(' '),
        1 => prop::sample::select(vec!['"', '\\', '/', '\n', '\r', '\t', '\u{0}', '\u{1f}']),
        2 => prop::sample::select(vec!['é', 'ß', '中', '€', '😀', '𝄞', '\u{2028}', '\u{feff}']),
        1 => any::<char>(),
    ]
}

fn fragment() -> impl Strategy<Value = String> {
    prop::collection::vec(content_char(), 0..10).prop_map(|chars| chars.into_iter().collect())
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        fragment().prop_map(Value::String),
        any::<i64>().prop_map(Value::from),
        // Multiples of 1/8 print and parse back exactly.
        any::<i32>().prop_map(|n| Value::from(f64::from(n) / 8.0)),
        any::<bool>().prop_map(Value::Bool),
        Just(Value::Null),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(fragment(), inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// Cuts text at the given points, moved forward to character boundaries.
fn cut_text(text: &str, cuts: &[Index]) -> Vec<String> {
    let mut points: Vec<usize> = cuts
        .iter()
        .map(|cut| {
            let mut at = cut.index(text.len() + 1);
            while !text.is_char_boundary(at) {
                at += 1;
            }
            at
        })
        .collect();
    points.sort_unstable();
    let mut fragments = Vec::new();
    let mut start = 0;
    for point in points {
        fragments.push(text[start..point].to_owned());
        start = point;
    }
    fragments.push(text[start..].to_owned());
    fragments
}

fn call_plan(position: usize) -> impl Strategy<Value = CallPlan> {
    (
        "[a-zA-Z0-9]{4,12}",
        "[a-z_]{1,12}",
        prop::collection::btree_map(fragment(), json_value(), 0..5),
        prop::collection::vec(any::<Index>(), 0..8),
    )
        .prop_map(move |(id, name, args, cuts)| {
            let args: Map<String, Value> = args.into_iter().collect();
            let text = Value::Object(args.clone()).to_string();
            CallPlan {
                id: format!("call_{position}_{id}"),
                name,
                args,
                fragments: cut_text(&text, &cuts),
            }
        })
}

fn choice_plan() -> impl Strategy<Value = ChoicePlan> {
    (
        prop::collection::vec(fragment(), 0..5),
        prop::collection::vec(fragment(), 0..8),
        0usize..3,
        prop::sample::select(&["stop", "length", "content_filter"][..]),
        any::<bool>(),
    )
        .prop_flat_map(|(reasoning, text, calls, reason, finish_inline)| {
            let calls: Vec<_> = (0..calls).map(call_plan).collect();
            (
                Just(reasoning),
                Just(text),
                calls,
                Just(reason),
                Just(finish_inline),
            )
        })
        .prop_map(
            |(reasoning, text, calls, reason, finish_inline)| ChoicePlan {
                finish_reason: if calls.is_empty() {
                    reason
                } else {
                    "tool_calls"
                },
                reasoning,
                text,
                calls,
                finish_inline,
            },
        )
}

fn stream_plan() -> impl Strategy<Value = StreamPlan> {
    (
        "chatcmpl-[a-zA-Z0-9]{6}",
        prop::sample::select(&["gpt-4o", "deepseek-reasoner", "mistral-small-latest"][..]),
        prop::collection::vec(choice_plan(), 1..3),
        prop::collection::vec(any::<Index>(), 1..16),
        prop::option::of((0u64..100_000, 0u64..100_000)),
        prop::collection::vec(prop::bool::weighted(0.2), 1..32),
    )
        .prop_map(|(id, model, choices, turns, usage, escapes)| StreamPlan {
            id,
            model: model.to_owned(),
            choices,
            turns,
            usage,
            escapes,
        })
}

/// Writes a JSON string, sending the characters `escape` picks as `\u` escapes (surrogate
/// pairs beyond the BMP) and the others raw where JSON allows it.
fn json_string(text: &str, escape: &mut impl Iterator<Item = bool>) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        let forced = escape.next().unwrap_or(false);
        match c {
            '"' if !forced => out.push_str("\\\""),
            '\\' if !forced => out.push_str("\\\\"),
            '\n' if !forced => out.push_str("\\n"),
            c if forced || u32::from(c) < 0x20 => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// What a choice sends, one chunk's delta each.
enum Step<'a> {
    Reasoning(&'a str),
    Text(&'a str),
    ToolCall {
        index: usize,
        call: &'a CallPlan,
        fragment: usize,
    },
}

impl StreamPlan {
    fn steps(choice: &ChoicePlan) -> Vec<Step<'_>> {
        let mut steps: Vec<Step<'_>> = Vec::new();
        steps.extend(choice.reasoning.iter().map(|text| Step::Reasoning(text)));
        steps.extend(choice.text.iter().map(|text| Step::Text(text)));
        for (index, call) in choice.calls.iter().enumerate() {
            steps.extend((0..call.fragments.len()).map(|fragment| Step::ToolCall {
                index,
                call,
                fragment,
            }));
        }
        steps
    }

    /// Renders the stream as an OpenAI server would send it.
    fn render(&self) -> Vec<u8> {
        let mut escape = self.escapes.iter().copied().cycle();
        let escape = &mut escape;
        let mut out = String::new();
        let head = format!(
            "{{\"id\":{},\"object\":\"chat.completion.chunk\",\"created\":1735689600,\"model\":{},",
            json_string(&self.id, escape),
            json_string(&self.model, escape)
        );
        let mut chunk = |choices: String, usage: Option<String>| {
            out.push_str("data: ");
            out.push_str(&head);
            out.push_str(&format!("\"choices\":[{choices}]"));
            if let Some(usage) = usage {
                out.push_str(&format!(",\"usage\":{usage}"));
            }
            out.push_str("}\n\n");
        };
        let mut queues: Vec<std::collections::VecDeque<Step<'_>>> = self
            .choices
            .iter()
            .map(|choice| Self::steps(choice).into())
            .collect();
        for (index, _) in self.choices.iter().enumerate() {
            chunk(
                format!("{{\"index\":{index},\"delta\":{{\"role\":\"assistant\",\"content\":\"\"}},\"logprobs\":null,\"finish_reason\":null}}"),
                None,
            );
        }
        let mut turns = self.turns.iter().cycle();
        let mut finished = vec![false; self.choices.len()];
        while finished.iter().any(|done| !done) {
            let pending: Vec<usize> = (0..self.choices.len()).filter(|&c| !finished[c]).collect();
            let index = pending[turns.next().map_or(0, |turn| turn.index(pending.len()))];
            let plan = &self.choices[index];
            let step = queues[index].pop_front();
            let last = queues[index].is_empty();
            let delta = match step {
                Some(Step::Reasoning(text)) => {
                    format!("{{\"reasoning_content\":{}}}", json_string(text, escape))
                }
                Some(Step::Text(text)) => format!("{{\"content\":{}}}", json_string(text, escape)),
                Some(Step::ToolCall {
                    index: call_index,
                    call,
                    fragment,
                }) => {
                    let arguments = json_string(&call.fragments[fragment], escape);
                    if fragment == 0 {
                        format!(
                            "{{\"content\":null,\"tool_calls\":[{{\"index\":{call_index},\"id\":{},\"type\":\"function\",\"function\":{{\"name\":{},\"arguments\":{arguments}}}}}]}}",
                            json_string(&call.id, escape),
                            json_string(&call.name, escape)
                        )
                    } else {
                        format!("{{\"tool_calls\":[{{\"index\":{call_index},\"function\":{{\"arguments\":{arguments}}}}}]}}")
                    }
                }
                None => "{}".to_owned(),
            };
            let finish = if last && (plan.finish_inline || step.is_none()) {
                finished[index] = true;
                format!("\"{}\"", plan.finish_reason)
            } else {
                "null".to_owned()
            };
            chunk(
                format!("{{\"index\":{index},\"delta\":{delta},\"logprobs\":null,\"finish_reason\":{finish}}}"),
                None,
            );
        }
        if let Some((prompt, completion)) = self.usage {
            chunk(
                String::new(),
                Some(format!(
                    "{{\"prompt_tokens\":{prompt},\"completion_tokens\":{completion},\"total_tokens\":{}}}",
                    prompt + completion
                )),
            );
        }
        out.push_str("data: [DONE]\n\n");
        out.into_bytes()
    }
}

/// Checks a completion against the plan it was generated from.
fn check_against_plan(plan: &StreamPlan, completion: &Completion) -> Result<(), TestCaseError> {
    prop_assert!(completion.complete);
    prop_assert_eq!(completion.choices.len(), plan.choices.len());
    for (index, (choice, expected)) in completion.choices.iter().zip(&plan.choices).enumerate() {
        prop_assert_eq!(choice.index as usize, index);
        let message = &choice.message;
        prop_assert_eq!(message.reasoning(), expected.reasoning.concat());
        prop_assert_eq!(message.text(), expected.text.concat());
        let calls: Vec<(String, String, Map<String, Value>)> = message
            .tool_calls()
            .map(|call| (call.id.clone(), call.name.clone(), call.args.clone()))
            .collect();
        let expected_calls: Vec<(String, String, Map<String, Value>)> = expected
            .calls
            .iter()
            .map(|call| (call.id.clone(), call.name.clone(), call.args.clone()))
            .collect();
        prop_assert_eq!(calls, expected_calls);
        prop_assert_eq!(message.invalid_tool_calls().count(), 0);
        let metadata = &message.response_metadata;
        prop_assert_eq!(metadata.finish_reason.as_str(), expected.finish_reason);
        prop_assert_eq!(metadata.id.as_deref(), Some(plan.id.as_str()));
        prop_assert_eq!(metadata.model_name.as_deref(), Some(plan.model.as_str()));
        let usage = message
            .usage
            .as_ref()
            .map(|usage| (usage.input_tokens, usage.output_tokens, usage.total_tokens));
        prop_assert_eq!(
            usage,
            plan.usage
                .map(|(prompt, completion)| (prompt, completion, prompt + completion))
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn a_generated_stream_assembles_to_its_plan(plan in stream_plan()) {
        let outcome = run([&plan.render()[..]]);
        match &outcome.result {
            Ok(completion) => check_against_plan(&plan, completion)?,
            Err(failure) => prop_assert!(false, "{:?}", failure),
        }
        check_events_add_up(&outcome)?;
    }

    #[test]
    fn cutting_a_generated_stream_anywhere_changes_nothing(
        plan in stream_plan(),
        cuts in prop::collection::vec(any::<Index>(), 0..32),
    ) {
        let bytes = plan.render();
        prop_assert_eq!(run(split(&bytes, &cuts)), run([&bytes[..]]));
    }

    #[test]
    fn keep_alives_and_line_ends_change_nothing_in_a_generated_stream(
        plan in stream_plan(),
        eol in prop::sample::select(&["\r\n", "\r"][..]),
        keep_alives in prop::collection::vec(prop::option::of(0usize..3), 1..8),
        cuts in prop::collection::vec(any::<Index>(), 0..8),
    ) {
        let bytes = plan.render();
        let reframed = reframe(&bytes, eol, &keep_alives);
        prop_assert_eq!(
            run(split(&reframed, &cuts)).without_offsets(),
            run([&bytes[..]]).without_offsets()
        );
    }

    #[test]
    fn eventsource_stream_framing_assembles_alike(
        plan in stream_plan(),
        eol in prop::sample::select(&["\n", "\r\n"][..]),
        cuts in prop::collection::vec(any::<Index>(), 0..16),
    ) {
        let bytes = reframe(&plan.render(), eol, &[None]);
        let pieces = split(&bytes, &cuts);
        prop_assert_eq!(run_eventsource(&pieces), run(pieces.iter().copied()));
    }
}
