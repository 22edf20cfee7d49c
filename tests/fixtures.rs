//! Replays every stream under `fixtures/<provider>/<case>.sse` (or `.ndjson`) and checks the result against the
//! hand-written `<case>.json` beside it, whatever the chunking: the whole body in one push, one
//! byte at a time, and at random split points (fixed seeds), plus the `assemble` one-call path.
//!
//! A `<case>.json` holds the expected message in the LangChain `AIMessage` shape `AiMessage`
//! serialises to (an array of them, in choice order, for several choices), or, for a stream that
//! must fail, `{"error": {"kind", "contains", "location"?, "provider"?}, "partial": …}`.
//!
//! The comparison is exact on every field except a few whose wording belongs to the library:
//! the `error` of an invalid tool call, `response_metadata.incomplete` and each of
//! `response_metadata.warnings` need only contain the expected text. A `null` field and a missing
//! one are the same.

#[path = "support/replay.rs"]
mod drive;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use deltafold::{AiMessage, Completion, ContentBlock, Error, ErrorKind, Event, Options};
use drive::Run as Outcome;
use serde_json::{Map, Value};

/// Seeds of the random-split replays.
const SEEDS: [u64; 5] = [1, 7, 42, 1234, 0xDE1F];

#[test]
fn every_fixture_replays_to_its_expected_message() {
    let fixtures = discover();
    let mut failures = Vec::new();
    for fixture in &fixtures {
        if let Err(failure) = check_fixture(fixture) {
            failures.push(format!("{}:\n{failure}", fixture.name));
        }
    }
    if fixtures.len() < 30 {
        failures.push(format!(
            "found only {} fixtures under fixtures/",
            fixtures.len()
        ));
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n\n{}",
        failures.len(),
        fixtures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn every_provider_has_fixtures_and_every_stream_its_expectation() {
    let root = fixtures_root();
    for (provider, framing) in [
        ("openai", "sse"),
        ("deepseek", "sse"),
        ("openrouter", "sse"),
        ("azure", "sse"),
        ("groq", "sse"),
        ("mistral", "sse"),
        ("gemini-compat", "sse"),
        ("ollama", "sse"),
        ("anthropic", "sse"),
        ("openai-responses", "sse"),
        ("gemini", "sse"),
        ("ollama-native", "ndjson"),
    ] {
        let dir = root.join(provider);
        let streams = files_with_extension(&dir, framing);
        assert!(!streams.is_empty(), "no fixture for {provider}");
        for expectation in files_with_extension(&dir, "json") {
            assert!(
                expectation.with_extension(framing).is_file(),
                "{} has no stream",
                expectation.display()
            );
        }
    }
    for fixture in discover() {
        assert!(
            fixture.stream.with_extension("json").is_file(),
            "{} has no expected .json",
            fixture.name
        );
    }
}

/// A stream and its expectation.
struct Fixture {
    name: String,
    stream: PathBuf,
}

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Every `.sse` and `.ndjson` file under `fixtures/`, at any depth, sorted.
fn discover() -> Vec<Fixture> {
    let root = fixtures_root();
    let mut pending = vec![root.clone()];
    let mut found = Vec::new();
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable fixtures directory") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path
                .extension()
                .is_some_and(|ext| ext == "sse" || ext == "ndjson")
            {
                let name = path
                    .strip_prefix(&root)
                    .expect("under the root")
                    .with_extension("")
                    .to_string_lossy()
                    .replace('\\', "/");
                found.push(Fixture { name, stream: path });
            }
        }
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}

fn files_with_extension(dir: &Path, extension: &str) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|entry| entry.expect("directory entry").path())
                .filter(|path| path.extension().is_some_and(|ext| ext == extension))
                .collect()
        })
        .unwrap_or_default()
}

/// Pushes the pieces one by one, pulling every event after each push, then ends the input.
fn replay<'a>(pieces: impl IntoIterator<Item = &'a [u8]>) -> Outcome {
    drive::run(pieces, Options::new())
}

/// A small deterministic generator (SplitMix64), so that a failing split can be reproduced.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Splits `bytes` at random points: pieces of 1 to 48 bytes, often cutting lines, line ends and
/// multi-byte characters.
fn random_pieces(bytes: &[u8], seed: u64) -> Vec<&[u8]> {
    let mut rng = SplitMix(seed);
    let mut pieces = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let len = 1 + (rng.next() % 48) as usize;
        let end = (at + len).min(bytes.len());
        pieces.push(&bytes[at..end]);
        at = end;
    }
    pieces
}

fn check_fixture(fixture: &Fixture) -> Result<(), String> {
    let bytes = std::fs::read(&fixture.stream).map_err(|e| format!("  cannot read: {e}"))?;
    let expected_path = fixture.stream.with_extension("json");
    let expected_text =
        std::fs::read_to_string(&expected_path).map_err(|e| format!("  no expectation: {e}"))?;
    let expected: Value = serde_json::from_str(&expected_text)
        .map_err(|e| format!("  {} is not JSON: {e}", expected_path.display()))?;

    let mut replays: Vec<(String, Outcome)> = vec![
        ("whole body".into(), replay([bytes.as_slice()])),
        ("byte by byte".into(), replay(bytes.chunks(1))),
    ];
    for seed in SEEDS {
        replays.push((
            format!("random splits (seed {seed})"),
            replay(random_pieces(&bytes, seed)),
        ));
    }

    let mut problems = Vec::new();
    for (how, outcome) in &replays {
        for problem in check_outcome(outcome, &expected) {
            problems.push(format!("  [{how}] {problem}"));
        }
    }
    // Whatever the chunking, the same events come out.
    let (_, first) = &replays[0];
    for (how, outcome) in &replays[1..] {
        if outcome.events != first.events {
            problems.push(format!(
                "  [{how}] events differ from the whole-body replay:\n    whole: {:?}\n    this:  {:?}",
                first.events, outcome.events
            ));
        }
    }
    // The one-call path records no events but must build the same messages.
    let one_call = deltafold::assemble(&bytes, Options::new());
    let one_call_messages = match &one_call {
        Ok(completion) => Some(completion),
        Err(error) => error.partial(),
    };
    if one_call_messages != first.completion() || one_call.is_ok() != first.result.is_ok() {
        problems.push(format!(
            "  [assemble()] differs from the push/next_event replay: {:?}",
            one_call.as_ref().map(|_| ()).map_err(Error::to_string)
        ));
    }
    // Keep the report readable: the same mismatch usually shows in every replay.
    problems.dedup_by(|later, earlier| strip_how(later) == strip_how(earlier));
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn strip_how(problem: &str) -> &str {
    problem.split_once("] ").map_or(problem, |(_, rest)| rest)
}

/// Checks one replay against the expectation; returns what is wrong.
fn check_outcome(outcome: &Outcome, expected: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let expected_error = expected.get("error");
    match (&outcome.result, expected_error) {
        (Ok(completion), None) => {
            if !completion.complete {
                problems.push("the completion is marked incomplete".into());
            }
            compare_messages(completion, expected, &mut problems);
        }
        (Err(error), Some(want)) => {
            check_error(error, want, &mut problems);
            match error.partial() {
                Some(partial) => {
                    if partial.complete {
                        problems.push("the partial result is marked complete".into());
                    }
                    compare_messages(partial, &expected["partial"], &mut problems);
                }
                None => problems.push("the error carries no partial result".into()),
            }
        }
        (Ok(_), Some(want)) => problems.push(format!("expected an error {want}, got a completion")),
        (Err(error), None) => problems.push(format!("unexpected error: {error}")),
    }
    if let Some(completion) = outcome.completion() {
        check_events(
            &outcome.events,
            completion,
            outcome.result.is_ok(),
            &mut problems,
        );
    }
    problems
}

fn kind_name(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Transport => "transport",
        ErrorKind::Status => "status",
        ErrorKind::Provider => "provider",
        ErrorKind::Malformed => "malformed",
        ErrorKind::InvalidUtf8 => "invalid_utf8",
        ErrorKind::LimitExceeded => "limit_exceeded",
        ErrorKind::Truncated => "truncated",
        ErrorKind::IdleTimeout => "idle_timeout",
        _ => "other",
    }
}

fn check_error(error: &Error, want: &Value, problems: &mut Vec<String>) {
    let kind = kind_name(error.kind());
    if want["kind"] != kind {
        problems.push(format!("error kind {kind}, expected {}", want["kind"]));
    }
    let shown = error.to_string();
    let contains = want["contains"].as_str().unwrap_or_default();
    if contains.is_empty() || !shown.contains(contains) {
        problems.push(format!("error {shown:?} does not contain {contains:?}"));
    }
    if let Some(location) = want.get("location") {
        let got = error
            .location()
            .map(|at| serde_json::json!({"event": at.event, "offset": at.offset}));
        if got.as_ref() != Some(location) {
            problems.push(format!("error location {got:?}, expected {location}"));
        }
    }
    if let Some(provider) = want.get("provider") {
        match error.provider_error() {
            Some(sent) => {
                let got = serde_json::json!({
                    "code": sent.code,
                    "type": sent.kind,
                    "message": sent.message,
                });
                for key in ["code", "type", "message"] {
                    if provider.get(key).unwrap_or(&Value::Null) != &got[key] {
                        problems.push(format!(
                            "provider error {key} {}, expected {}",
                            got[key], provider[key]
                        ));
                    }
                }
            }
            None => problems.push("no provider error object".into()),
        }
    }
}

/// Compares the serialised messages with the expected message, or array of messages.
fn compare_messages(completion: &Completion, expected: &Value, problems: &mut Vec<String>) {
    let actual: Vec<Value> = completion
        .messages()
        .map(|message| serde_json::to_value(message).expect("a message serialises"))
        .collect();
    let indexes: Vec<u32> = completion
        .choices
        .iter()
        .map(|choice| choice.index)
        .collect();
    if indexes.windows(2).any(|pair| pair[0] >= pair[1]) {
        problems.push(format!("choices are not in index order: {indexes:?}"));
    }
    let expected: Vec<Value> = match expected {
        Value::Array(messages) => messages.clone(),
        message => vec![message.clone()],
    };
    if actual.len() != expected.len() {
        problems.push(format!(
            "{} messages, expected {}: {}",
            actual.len(),
            expected.len(),
            Value::Array(actual.clone())
        ));
        return;
    }
    for (position, (got, want)) in actual.iter().zip(&expected).enumerate() {
        let mut diffs = Vec::new();
        compare(&format!("[{position}]"), got, want, &mut diffs);
        if !diffs.is_empty() {
            problems.push(format!(
                "message {position} differs:\n      {}\n    got: {got}",
                diffs.join("\n      ")
            ));
        }
    }
}

/// Fields whose text belongs to the library: the expectation gives a part of it.
fn compared_by_substring(path: &str, object: &Map<String, Value>, key: &str) -> bool {
    let invalid_call = object.get("type").and_then(Value::as_str) == Some("invalid_tool_call");
    (key == "error" && invalid_call) || (key == "incomplete" && path.ends_with("response_metadata"))
}

fn compare(path: &str, got: &Value, want: &Value, diffs: &mut Vec<String>) {
    match (got, want) {
        (Value::Object(got), Value::Object(want)) => {
            let keys: std::collections::BTreeSet<&String> = got.keys().chain(want.keys()).collect();
            for key in keys {
                let at = format!("{path}.{key}");
                let got_value = got.get(key).unwrap_or(&Value::Null);
                let want_value = want.get(key).unwrap_or(&Value::Null);
                if compared_by_substring(path, want, key) || compared_by_substring(path, got, key) {
                    contains_text(&at, got_value, want_value, diffs);
                } else if key == "warnings" && path.ends_with("response_metadata") {
                    compare_warnings(&at, got_value, want_value, diffs);
                } else {
                    compare(&at, got_value, want_value, diffs);
                }
            }
        }
        (Value::Array(got), Value::Array(want)) => {
            if got.len() != want.len() {
                diffs.push(format!(
                    "{path}: {} items, expected {}: got {}",
                    got.len(),
                    want.len(),
                    Value::Array(got.clone())
                ));
                return;
            }
            for (index, (got, want)) in got.iter().zip(want).enumerate() {
                compare(&format!("{path}[{index}]"), got, want, diffs);
            }
        }
        (got, want) if got == want => {}
        (got, want) => diffs.push(format!("{path}: got {got}, expected {want}")),
    }
}

fn contains_text(path: &str, got: &Value, want: &Value, diffs: &mut Vec<String>) {
    match (got.as_str(), want.as_str()) {
        (Some(got), Some(want)) if !want.is_empty() && got.contains(want) => {}
        (None, None) if got.is_null() && want.is_null() => {}
        _ => diffs.push(format!(
            "{path}: got {got}, expected text containing {want}"
        )),
    }
}

fn compare_warnings(path: &str, got: &Value, want: &Value, diffs: &mut Vec<String>) {
    let empty = Vec::new();
    let got = got.as_array().unwrap_or(&empty);
    let want = want.as_array().unwrap_or(&empty);
    if got.len() != want.len() {
        diffs.push(format!(
            "{path}: {} warnings, expected {}: {got:?}",
            got.len(),
            want.len()
        ));
        return;
    }
    for (index, (got, want)) in got.iter().zip(want).enumerate() {
        contains_text(&format!("{path}[{index}]"), got, want, diffs);
    }
}

/// What the events of one choice add up to.
#[derive(Default)]
struct Replayed {
    text: String,
    reasoning: String,
    refusal: String,
    /// Argument text per tool-call position, and whether it was started and finished.
    calls: BTreeMap<u32, ReplayedCall>,
    finished: Vec<String>,
}

#[derive(Default)]
struct ReplayedCall {
    started: usize,
    arguments: String,
    finished: Vec<ContentBlock>,
}

/// Checks that the events tell the same story as the messages: their deltas add up to the text,
/// reasoning, refusal and arguments, every call starts once and (when the stream completed)
/// finishes once with its final block, and the stream begins with `Started` and ends with
/// `Done`.
fn check_events(
    events: &[Event<'static>],
    completion: &Completion,
    succeeded: bool,
    problems: &mut Vec<String>,
) {
    let mut choices: BTreeMap<u32, Replayed> = BTreeMap::new();
    let mut last_usage = None;
    let mut done = 0;
    for (position, event) in events.iter().enumerate() {
        if matches!(event, Event::Started { .. }) != (position == 0) {
            problems.push(format!(
                "event {position} {event:?}: Started must come first, once"
            ));
        }
        if done > 0 {
            problems.push(format!("event {position} {event:?} after Done"));
        }
        match event {
            Event::TextDelta { choice, text } => choices.entry(*choice).or_default().text += text,
            Event::ReasoningDelta { choice, text } => {
                choices.entry(*choice).or_default().reasoning += text
            }
            Event::RefusalDelta { choice, text } => {
                choices.entry(*choice).or_default().refusal += text
            }
            Event::ToolCallStarted { choice, index, .. } => {
                let call = choices.entry(*choice).or_default().calls.entry(*index);
                call.or_default().started += 1;
            }
            Event::ToolCallArgumentsDelta {
                choice,
                index,
                delta,
            } => {
                let call = choices.entry(*choice).or_default().calls.entry(*index);
                let call = call.or_default();
                if call.started == 0 || !call.finished.is_empty() {
                    problems.push(format!(
                        "event {position}: arguments for call {index} of choice {choice} outside its start and finish"
                    ));
                }
                call.arguments += delta;
            }
            Event::ToolCallFinished {
                choice,
                index,
                call,
            } => {
                let slot = choices.entry(*choice).or_default().calls.entry(*index);
                slot.or_default().finished.push(call.clone().into_owned());
            }
            Event::Usage { usage } => last_usage = Some(usage.clone().into_owned()),
            Event::ChoiceFinished { choice, reason } => {
                let replayed = choices.entry(*choice).or_default();
                if replayed.calls.values().any(|call| call.finished.is_empty()) {
                    problems.push(format!(
                        "event {position}: choice {choice} finished before its tool calls"
                    ));
                }
                replayed.finished.push(reason.to_string());
            }
            Event::Done => done += 1,
            _ => {}
        }
    }
    if succeeded && done != 1 {
        problems.push(format!("{done} Done events for a completed stream"));
    }
    if !succeeded && done != 0 {
        problems.push("a Done event in a failed stream".into());
    }
    for choice in &completion.choices {
        let replayed = choices.remove(&choice.index).unwrap_or_default();
        check_choice_events(
            choice.index,
            &choice.message,
            &replayed,
            succeeded,
            problems,
        );
    }
    if let Some(extra) = choices.keys().next() {
        problems.push(format!("events for choice {extra}, which has no message"));
    }
    if let Some(message) = completion.message() {
        if last_usage.as_ref() != message.usage.as_ref() {
            problems.push(format!(
                "the last Usage event {last_usage:?} is not the final usage {:?}",
                message.usage
            ));
        }
    }
}

fn check_choice_events(
    index: u32,
    message: &AiMessage,
    replayed: &Replayed,
    succeeded: bool,
    problems: &mut Vec<String>,
) {
    if replayed.text != message.text() {
        problems.push(format!(
            "choice {index}: text deltas add up to {:?}, the message says {:?}",
            replayed.text,
            message.text()
        ));
    }
    if replayed.reasoning != message.reasoning() {
        problems.push(format!(
            "choice {index}: reasoning deltas add up to {:?}, the message says {:?}",
            replayed.reasoning,
            message.reasoning()
        ));
    }
    if replayed.refusal != message.refusal().unwrap_or_default() {
        problems.push(format!(
            "choice {index}: refusal deltas add up to {:?}, the message says {:?}",
            replayed.refusal,
            message.refusal()
        ));
    }
    let reason = message.response_metadata.finish_reason.as_str();
    let expected_finishes: Vec<String> = if reason.is_empty() {
        Vec::new()
    } else {
        vec![reason.to_owned()]
    };
    if replayed.finished != expected_finishes {
        problems.push(format!(
            "choice {index}: ChoiceFinished events {:?}, finish reason {reason:?}",
            replayed.finished
        ));
    }
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
    if calls.len() != replayed.calls.len() {
        problems.push(format!(
            "choice {index}: {} tool calls started by events, {} in the message",
            replayed.calls.len(),
            calls.len()
        ));
        return;
    }
    for (position, (block, (call_index, call))) in calls.iter().zip(&replayed.calls).enumerate() {
        if *call_index as usize != position || call.started != 1 {
            problems.push(format!(
                "choice {index}: call {call_index} started {} times (position {position})",
                call.started
            ));
        }
        match block {
            ContentBlock::ToolCall(done) => {
                let parsed = if call.arguments.trim().is_empty() {
                    Some(Map::new())
                } else {
                    serde_json::from_str::<Map<String, Value>>(&call.arguments).ok()
                };
                if parsed.as_ref() != Some(&done.args) {
                    problems.push(format!(
                        "choice {index}: argument deltas of call {position} add up to {:?}, which does not parse to {:?}",
                        call.arguments, done.args
                    ));
                }
            }
            ContentBlock::InvalidToolCall(invalid) if call.arguments != invalid.args => {
                problems.push(format!(
                    "choice {index}: argument deltas of call {position} add up to {:?}, the invalid call keeps {:?}",
                    call.arguments, invalid.args
                ));
            }
            _ => {}
        }
        let finishes_expected = if succeeded {
            1
        } else {
            call.finished.len().min(1)
        };
        if call.finished.len() != finishes_expected {
            problems.push(format!(
                "choice {index}: call {position} finished {} times",
                call.finished.len()
            ));
        }
        if let Some(finished) = call.finished.first() {
            if finished != *block {
                problems.push(format!(
                    "choice {index}: ToolCallFinished carried {finished:?}, the message has {block:?}"
                ));
            }
        }
    }
}
