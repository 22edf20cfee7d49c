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

#[path = "../support/replay/mod.rs"]
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
                partial,
            }),
            Event::ToolCallArgumentsDelta {
                choice: next_choice,
                index: next_index,
                delta: more,
                partial: later,
            },
        ) if *choice == next_choice && *index == next_index => {
            delta.to_mut().push_str(&more);
            *partial = later;
        }
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
                // The whole text now (a closing event's, or after deltas to earlier blocks).
                Event::TextReplaced { choice, text: t } if *choice == index => text = t.to_string(),
                Event::ReasoningReplaced { choice, text: t } if *choice == index => {
                    reasoning = t.to_string()
                }
                Event::RefusalReplaced { choice, text: t } if *choice == index => {
                    refusal = t.to_string()
                }
                Event::ToolCallStarted {
                    choice,
                    index: call,
                    ..
                } if *choice == index => arguments.push((*call, String::new())),
                Event::ToolCallArgumentsDelta {
                    choice,
                    index: call,
                    delta,
                    ..
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

mod generated;
