//! Checks the assembler against streams recorded from real providers, when the shared
//! recordings sit beside the repository (`../shared/real-sse`). Each `NAME.expected.json` there
//! summarises the correct final message.

use std::path::{Path, PathBuf};

use deltafold::{Completion, Error, Options};
use serde_json::{json, Value};

#[path = "support/replay/mod.rs"]
mod replay;

fn recordings() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/real-sse");
    dir.is_dir().then_some(dir)
}

/// The chat-completion recordings (Anthropic and Responses streams are other dialects).
fn chat_completion_streams(dir: &Path) -> Vec<PathBuf> {
    let mut streams: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "sse"))
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            !name.starts_with("anthropic__") && !name.starts_with("openai_responses__")
        })
        .collect();
    streams.sort();
    streams
}

fn summary(completion: &Completion) -> Value {
    let message = completion.message().cloned().unwrap_or_default();
    let usage = message.usage.as_ref().map(|usage| {
        json!({
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "total_tokens": usage.total_tokens,
        })
    });
    let finish = message.response_metadata.finish_reason.as_str();
    json!({
        "text": message.text(),
        "reasoning": message.reasoning(),
        "tool_calls": message.tool_calls().map(|call| json!({"id": call.id, "name": call.name, "args": call.args})).collect::<Vec<_>>(),
        "invalid_tool_calls": message.invalid_tool_calls().map(|call| json!({"id": call.id, "name": call.name, "args": call.args})).collect::<Vec<_>>(),
        "usage": usage,
        "finish_reason": if finish.is_empty() { Value::Null } else { finish.into() },
        "model": message.response_metadata.model_name,
        "id": message.response_metadata.id,
    })
}

fn expected_summary(expected: &Value) -> Value {
    let mut summary = json!({});
    for key in [
        "text",
        "reasoning",
        "tool_calls",
        "invalid_tool_calls",
        "usage",
        "finish_reason",
        "model",
        "id",
    ] {
        summary[key] = expected[key].clone();
    }
    summary
}

/// The provider's error object quoted in the expected summary (`… provider error: {json}`).
fn expected_error(expected: &Value) -> Value {
    let text = expected["error"]
        .as_str()
        .expect("an incomplete stream names its error");
    let json = &text[text.find('{').expect("the error quotes a JSON object")..];
    serde_json::from_str(json).unwrap()
}

#[test]
fn real_chat_completion_streams_assemble_to_the_expected_message() {
    let Some(dir) = recordings() else {
        eprintln!("../shared/real-sse not found; skipping the real-stream check");
        return;
    };
    let streams = chat_completion_streams(&dir);
    assert!(streams.len() >= 29, "found only {} streams", streams.len());
    let failures = check_streams(&dir, &streams);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The Anthropic Messages and OpenAI Responses recordings, read with the detected dialect.
#[test]
fn real_anthropic_and_responses_streams_assemble_to_the_expected_message() {
    let Some(dir) = recordings() else {
        eprintln!("../shared/real-sse not found; skipping the real-stream check");
        return;
    };
    let streams = other_dialect_streams(&dir);
    assert!(streams.len() >= 10, "found only {} streams", streams.len());
    let failures = check_streams(&dir, &streams);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn other_dialect_streams(dir: &Path) -> Vec<PathBuf> {
    let mut streams: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "sse"))
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.starts_with("anthropic__") || name.starts_with("openai_responses__")
        })
        .collect();
    streams.sort();
    streams
}

/// The whole result: the messages, and the error with its place.
fn outcome(completion: &Completion, error: Option<&Error>) -> String {
    let error = error.map(|error| format!("{:?} {error} at {:?}", error.kind(), error.location()));
    format!("{} {error:?}", serde_json::to_string(completion).unwrap())
}

/// The stream pushed in reads of `size`, every event read after each push, as a transport
/// and a live display would: each event framed by the line loop, or taken whole from the
/// input pushed.
fn pushed_in_reads(bytes: &[u8], size: usize) -> String {
    let mut assembler = deltafold::Assembler::new();
    let mut failed = None;
    'reads: for read in bytes.chunks(size.max(1)) {
        assembler.push(read);
        loop {
            match assembler.next_event() {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(error) => {
                    failed = Some(error);
                    break 'reads;
                }
            }
        }
    }
    let result = match failed {
        Some(error) => Err(error),
        None => assembler.finish(),
    };
    match result {
        Ok(completion) => outcome(&completion, None),
        Err(error) => outcome(&error.partial().cloned().unwrap_or_default(), Some(&error)),
    }
}

/// Assembles each stream, in one read and pushed in reads of several sizes, and compares it
/// with its summary; returns what disagreed.
fn check_streams(dir: &Path, streams: &[PathBuf]) -> Vec<String> {
    let mut failures = Vec::new();
    for stream in streams {
        let name = stream.file_stem().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(stream).unwrap();
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("{name}.expected.json"))).unwrap(),
        )
        .unwrap();
        let (completion, error): (Completion, Option<Error>) =
            match deltafold::assemble(&bytes, Options::new()) {
                Ok(completion) => (completion, None),
                Err(error) => (error.partial().cloned().unwrap_or_default(), Some(error)),
            };
        let assembled = outcome(&completion, error.as_ref());
        for size in [1, 7, 300, bytes.len()] {
            let pushed = pushed_in_reads(&bytes, size);
            if pushed != assembled {
                failures.push(format!(
                    "{name}: pushed in reads of {size}, with every event read:\n  got  {pushed}\n  want {assembled}"
                ));
            }
        }
        let got = summary(&completion);
        let want = expected_summary(&expected);
        if got != want {
            failures.push(format!(
                "{name}:\n  got  {got}\n  want {want}\n  error {error:?}"
            ));
            continue;
        }
        let complete = expected["complete"].as_bool().unwrap();
        match (&error, complete) {
            (None, true) => assert!(completion.complete, "{name}"),
            (Some(error), false) => {
                let provider = error
                    .provider_error()
                    .unwrap_or_else(|| panic!("{name}: expected a provider error, got {error}"));
                let sent = provider.raw.get("error").unwrap_or(&provider.raw);
                assert_eq!(sent, &expected_error(&expected), "{name}");
                let partial = error.partial().expect("errors carry the partial message");
                assert!(!partial.complete, "{name}");
            }
            (Some(error), true) => failures.push(format!("{name}: unexpected error {error}")),
            (None, false) => failures.push(format!("{name}: expected an error")),
        }
    }
    failures
}

/// The live events of every recording, of every dialect, tell the story of its message: the
/// argument deltas of each tool call add up to its final arguments (the text of an invalid
/// call), the text and reasoning deltas to the texts, each call starts and finishes once.
#[test]
fn real_streams_live_events_add_up_to_their_messages() {
    let Some(dir) = recordings() else {
        eprintln!("../shared/real-sse not found; skipping the real-stream check");
        return;
    };
    let mut streams = chat_completion_streams(&dir);
    streams.extend(other_dialect_streams(&dir));
    assert!(streams.len() >= 30, "found only {} streams", streams.len());
    let mut problems = Vec::new();
    for stream in &streams {
        let bytes = std::fs::read(stream).unwrap();
        for size in [1, bytes.len()] {
            let run = replay::run(bytes.chunks(size), Options::new());
            let mut found = Vec::new();
            replay::story::check_events(&run, &mut found);
            let name = stream.file_name().unwrap().to_string_lossy();
            problems.extend(
                found
                    .into_iter()
                    .map(|found| format!("{name} (reads of {size}): {found}")),
            );
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
