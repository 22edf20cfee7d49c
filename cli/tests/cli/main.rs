//! The `deltafold` binary, run as a user runs it: on files, on stdin, on the bundled demo and
//! against a real HTTP server on 127.0.0.1.

#[path = "../../../tests/support/server.rs"]
mod server;

use std::convert::Infallible;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_deltafold");
const DEMO: &str = include_str!("../../../fixtures/demo/demo.sse");

/// A file in the system temp dir, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, contents: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let unique = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "deltafold-cli-{}-{unique}-{name}",
            std::process::id()
        ));
        std::fs::write(&path, contents).unwrap();
        TempFile(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The demo's events (each with its blank line), to cut and corrupt.
/// The CLI run with `args`, its stdin piped to the test and each line of its stdout sent as it
/// comes, read on a thread (joined once stdout closes).
fn spawn_reading_lines(
    args: &[&str],
) -> (
    std::process::Child,
    std::process::ChildStdin,
    mpsc::Receiver<String>,
    std::thread::JoinHandle<()>,
) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let lines = BufReader::new(child.stdout.take().unwrap());
    let (sender, received) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in lines.lines() {
            sender.send(line.unwrap()).unwrap();
        }
    });
    (child, stdin, received, reader)
}

fn demo_events() -> Vec<String> {
    DEMO.split_inclusive("\n\n").map(str::to_owned).collect()
}

/// The demo cut off in the middle of the first tool call's arguments.
fn truncated_demo() -> String {
    demo_events()[..48].concat()
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn run_with_stdin(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let written = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    // A run that stops at its arguments (a usage error, a file to read) may exit before it
    // reads standard input; what it did is in its output.
    if let Err(error) = written {
        assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe, "{error}");
    }
    child.wait_with_output().unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn json_line(output: &Output) -> Value {
    let text = stdout(output);
    assert_eq!(text.lines().count(), 1, "one JSON line expected: {text}");
    serde_json::from_str(&text).unwrap()
}

/// The one line the binary writes to stderr on failure.
fn error_line(output: &Output) -> String {
    let text = stderr(output);
    assert_eq!(
        text.lines().count(),
        1,
        "one stderr line expected: {text:?}"
    );
    assert!(text.starts_with("deltafold: "), "{text}");
    text.trim_end().to_owned()
}

fn assert_demo_message(message: &Value) {
    assert_eq!(message["type"], "ai");
    assert_eq!(
        message["content"],
        "I'll check tonight's forecast for Lisbon and the local time there at once."
    );
    assert!(message["additional_kwargs"]["reasoning_content"]
        .as_str()
        .unwrap()
        .starts_with("The user wants to know whether it is warm enough"));
    assert_eq!(
        message["tool_calls"],
        json!([
            {"name": "get_weather", "id": "call_wx_01", "type": "tool_call",
             "args": {"city": "Lisbon", "country": "PT", "when": "tonight", "units": "celsius"}},
            {"name": "get_local_time", "id": "call_tm_02", "type": "tool_call",
             "args": {"timezone": "Europe/Lisbon"}},
        ])
    );
    assert_eq!(message["invalid_tool_calls"], json!([]));
    assert_eq!(message["response_metadata"]["finish_reason"], "tool_calls");
    assert_eq!(message["usage_metadata"]["total_tokens"], 281);
    assert_eq!(
        message["usage_metadata"]["output_token_details"]["reasoning"],
        41
    );
    assert!(message["response_metadata"].get("incomplete").is_none());
}

#[test]
fn json_prints_the_assembled_message_from_a_file_and_from_stdin() {
    let file = TempFile::new("demo.sse", DEMO);
    let from_file = run(&["--json", file.path().to_str().unwrap()]);
    assert!(from_file.status.success(), "{}", stderr(&from_file));
    assert_eq!(stderr(&from_file), "");
    assert_demo_message(&json_line(&from_file));

    let from_stdin = run_with_stdin(&["--json", "-"], DEMO);
    assert!(from_stdin.status.success(), "{}", stderr(&from_stdin));
    assert_eq!(json_line(&from_stdin), json_line(&from_file));
}

#[test]
fn json_prints_an_array_when_there_are_several_choices() {
    let stream = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}},{\"index\":1,\"delta\":{\"content\":\"b\"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"},{\"index\":1,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let output = run_with_stdin(&["--json", "-"], stream);
    assert!(output.status.success(), "{}", stderr(&output));
    let messages = json_line(&output);
    assert_eq!(messages[0]["content"], "a");
    assert_eq!(messages[1]["content"], "b");
    assert_eq!(messages[1]["response_metadata"]["finish_reason"], "length");
    assert_eq!(messages.as_array().unwrap().len(), 2);
}

#[test]
fn events_are_ndjson_in_stream_order_with_partial_arguments() {
    let file = TempFile::new("events.sse", DEMO);
    let output = run(&["--events", file.path().to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let events: Vec<Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();

    let mut runs: Vec<(String, usize)> = Vec::new();
    for event in &events {
        let kind = event["type"].as_str().unwrap();
        match runs.last_mut() {
            Some((last, count)) if last == kind => *count += 1,
            _ => runs.push((kind.to_owned(), 1)),
        }
    }
    let expected = [
        ("started", 1),
        ("reasoning_delta", 24),
        ("reasoning_end", 1),
        ("text_delta", 13),
        ("text_end", 1),
        ("tool_call_started", 1),
        ("tool_call_arguments_delta", 17),
        ("tool_call_started", 1),
        ("tool_call_arguments_delta", 7),
        ("tool_call_finished", 2),
        ("choice_finished", 1),
        ("usage", 1),
        ("done", 1),
    ];
    let expected: Vec<(String, usize)> = expected
        .iter()
        .map(|(kind, count)| (kind.to_string(), *count))
        .collect();
    assert_eq!(runs, expected);

    let weather: Vec<&Value> = events
        .iter()
        .filter(|event| event["type"] == "tool_call_arguments_delta" && event["index"] == 0)
        .collect();
    // The arguments as they stand, a JSON object growing key by key: on the first delta, then
    // whenever the arguments have at least doubled since the last one written (so the output
    // stays linear); the whole arguments come with `tool_call_finished`.
    assert_eq!(weather[0]["partial"], json!({}));
    let mut arguments = String::new();
    let mut written_at = 0;
    for event in &weather {
        arguments.push_str(event["delta"].as_str().unwrap());
        let due = written_at == 0 || arguments.len() >= 2 * written_at;
        assert_eq!(event.get("partial").is_some(), due, "{event}");
        if due {
            written_at = arguments.len().max(1);
            assert!(event["partial"].is_object());
        }
    }
    let partials: Vec<&Value> = weather
        .iter()
        .filter_map(|event| event.get("partial"))
        .collect();
    assert_eq!(partials.len(), 5);
    assert_eq!(
        *partials.last().unwrap(),
        &json!({"city": "Lisbon", "country": "PT", "when": "tonight"})
    );
    assert!(events
        .iter()
        .filter(|event| event["type"] != "tool_call_arguments_delta")
        .all(|event| event.get("partial").is_none()));
    assert_eq!(
        events[0],
        json!({"type": "started", "id": "chatcmpl-demo-7f3a9c", "model": "demo-reasoner-1"})
    );
    assert_eq!(
        events
            .iter()
            .find(|e| e["type"] == "tool_call_finished")
            .unwrap()["call"]["name"],
        "get_weather"
    );
}

#[test]
fn stdin_is_shown_as_it_arrives_and_done_ends_the_run() {
    let (mut child, mut stdin, received, reader) = spawn_reading_lines(&["--events", "-"]);
    let events = demo_events();
    stdin.write_all(events[..3].concat().as_bytes()).unwrap();
    stdin.flush().unwrap();
    // Three events are on screen while stdin is still open.
    let first: Vec<String> = (0..3)
        .map(|_| received.recv_timeout(Duration::from_secs(20)).unwrap())
        .collect();
    assert!(first[0].contains("\"started\""), "{first:?}");
    assert!(first[2].contains("\"reasoning_delta\""), "{first:?}");
    stdin.write_all(events[3..].concat().as_bytes()).unwrap();
    stdin.flush().unwrap();
    // `[DONE]` ends the run although stdin stays open (as with `tail -f`).
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "still running after [DONE]");
        std::thread::sleep(Duration::from_millis(10));
    };
    drop(stdin);
    reader.join().unwrap();
    assert!(status.success());
    let rest: Vec<String> = received.try_iter().collect();
    assert_eq!(rest.last().unwrap(), r#"{"type":"done"}"#);
}

#[test]
fn a_truncated_stream_exits_1_with_the_partial_message_and_one_error_line() {
    let file = TempFile::new("truncated.sse", &truncated_demo());
    let output = run(&["--json", file.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let line = error_line(&output);
    assert!(line.contains("truncated"), "{line}");
    assert!(line.contains("event 48"), "{line}");

    let partial = json_line(&output);
    assert!(partial["response_metadata"]["incomplete"]
        .as_str()
        .unwrap()
        .contains("truncated"));
    assert_eq!(
        partial["content"],
        "I'll check tonight's forecast for Lisbon and the local time there at once."
    );
    assert_eq!(partial["tool_calls"], json!([]));
    let unfinished = &partial["invalid_tool_calls"][0];
    assert_eq!(unfinished["name"], "get_weather");
    assert_eq!(
        unfinished["args"],
        r#"{"city": "Lisbon", "country": "PT", ""#
    );
}

#[test]
fn a_truncated_stream_in_the_display_shows_what_arrived_and_why_it_stopped() {
    let file = TempFile::new("truncated-display.sse", &truncated_demo());
    let output = run(&[file.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(error_line(&output).contains("truncated"));
    let shown = stdout(&output);
    assert!(
        shown.contains(r#"{"city": "Lisbon", "country": "PT", ""#),
        "{shown}"
    );
    assert!(shown.contains("── summary (incomplete)"), "{shown}");
    assert!(shown.contains("invalid call"), "{shown}");
    assert!(!shown.contains('\x1b'), "no styles when stdout is a pipe");
}

#[test]
fn the_display_resumes_interleaved_tool_calls_and_escapes_control_characters() {
    let stream = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi \\u001b[31m\",",
        "\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"x\\\": 1\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"b\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\", \\\"y\\\": 2}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let output = run_with_stdin(&["--color", "never", "-"], stream);
    assert!(output.status.success(), "{}", stderr(&output));
    let shown = stdout(&output);
    assert!(shown.contains("Hi \\u{1b}[31m"), "{shown}");
    assert!(!shown.contains('\x1b'), "{shown}");
    assert!(
        shown.contains("── tool call 0 · f · a (continued)\n…, \"y\": 2}\n"),
        "{shown}"
    );
    assert!(
        shown.contains("✓ tool call 0 f: 2 arguments parsed"),
        "{shown}"
    );
}

#[test]
fn lenient_gives_what_arrived_and_exits_0() {
    let output = run_with_stdin(&["--json", "--lenient", "-"], &truncated_demo());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let partial = json_line(&output);
    assert!(partial["response_metadata"]["incomplete"]
        .as_str()
        .unwrap()
        .starts_with("truncated"));
    assert_eq!(partial["invalid_tool_calls"][0]["name"], "get_weather");
    let warning = stderr(&output);
    assert_eq!(warning.lines().count(), 1, "{warning}");
    assert!(warning.starts_with("deltafold: warning: incomplete answer: truncated"));
}

#[test]
fn a_malformed_payload_exits_1_naming_the_event() {
    let mut events = demo_events();
    events[4] = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\": nope}}]}\n\n".into();
    let file = TempFile::new("malformed.sse", &events.concat());
    let output = run(&["--json", file.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let line = error_line(&output);
    assert!(line.contains("malformed"), "{line}");
    assert!(line.contains("event 5"), "{line}");
    let partial = json_line(&output);
    assert!(partial["additional_kwargs"]["reasoning_content"]
        .as_str()
        .unwrap()
        .starts_with("The user wants to"));
}

#[test]
fn a_missing_file_exits_1_with_one_line() {
    let output = run(&["--json", "/nonexistent/deltafold-no-such.sse"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(error_line(&output).contains("cannot open /nonexistent/deltafold-no-such.sse"));
    assert_eq!(stdout(&output), "");
}

#[test]
fn the_demo_plays_without_arguments() {
    let output = run(&["--demo", "--pace", "0"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let shown = stdout(&output);
    for expected in [
        "deltafold demo",
        "── thinking",
        "── answer",
        "── tool call 0 · get_weather · call_wx_01",
        r#"{"city": "Lisbon", "country": "PT", "when": "tonight", "units": "celsius"}"#,
        "✓ tool call 1 get_local_time: 1 argument parsed",
        "── summary",
        "finish       tool_calls",
        "184 in (128 cached) · 97 out (41 reasoning) · 281 total",
    ] {
        assert!(
            shown.contains(expected),
            "missing {expected:?} in:\n{shown}"
        );
    }
    assert!(!shown.contains('\x1b'));
}

#[test]
fn color_always_dims_the_reasoning() {
    let output = run(&["--demo", "--pace", "0", "--color", "always"]);
    assert!(output.status.success());
    assert!(stdout(&output).contains("\x1b[2mThe user\x1b[0m"));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["--no-such-flag"][..],
        &["--json", "--events"],
        &["--color", "sometimes"],
        &["-H", "X: y"],
        &["--url", "http://127.0.0.1:1/", "file.sse"],
    ] {
        let output = run(args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
    }
}

/// A flag that only a request uses, given with a FILE, stdin or the demo instead of `--url`,
/// is a usage error naming the flag — it used to be ignored, and the run went on.
#[test]
fn http_only_flags_without_url_are_usage_errors() {
    let demo = TempFile::new("demo.sse", DEMO);
    let file = demo.path().to_str().unwrap();
    let body = TempFile::new("body.json", "{}");
    let cases: [(&[&str], &str); 6] = [
        (&["-H", "X-Test: 1"], "--header"),
        (&["--header", "X-Test: 1"], "--header"),
        (&["--deadline", "5"], "--deadline"),
        (&["--idle-timeout", "5"], "--idle-timeout"),
        (&["--data", "{}"], "--data"),
        (
            &["--data-file", body.path().to_str().unwrap()],
            "--data-file",
        ),
    ];
    // Without the flag, each input is assembled.
    for input in [&[file][..], &["-"], &["--demo"]] {
        let output = run_with_stdin(&[&["--json"], input].concat(), DEMO);
        assert!(output.status.success(), "{input:?}: {}", stderr(&output));
    }
    for (flag, name) in cases {
        for input in [&[file][..], &["-"], &["--demo"]] {
            let args = [&["--json"], flag, input].concat();
            let output = run_with_stdin(&args, DEMO);
            assert_eq!(
                output.status.code(),
                Some(2),
                "{args:?}: {}",
                stderr(&output)
            );
            assert_eq!(stdout(&output), "", "{args:?}: nothing is assembled");
            let error = stderr(&output);
            assert!(
                error.starts_with("error: ") && error.contains(name) && error.contains("--url"),
                "{args:?}: {error}"
            );
        }
    }
}

#[test]
fn dialect_flag_overrides_detection_and_rejects_unknown_names() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let anthropic = std::fs::read_dir(root.join("anthropic"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|ext| ext == "sse"))
        .expect("an Anthropic fixture");
    let detected = std::process::Command::new(env!("CARGO_BIN_EXE_deltafold"))
        .args(["--json", "--dialect", "anthropic"])
        .arg(&anthropic)
        .output()
        .unwrap();
    let message: serde_json::Value = serde_json::from_slice(&detected.stdout).unwrap();
    assert_eq!(message["response_metadata"]["model_provider"], "anthropic");
    let wrong = std::process::Command::new(env!("CARGO_BIN_EXE_deltafold"))
        .args(["--json", "--dialect", "openai"])
        .arg(&anthropic)
        .output()
        .unwrap();
    assert_eq!(
        wrong.status.code(),
        Some(1),
        "an Anthropic stream read as OpenAI chat fails"
    );
    let unknown = std::process::Command::new(env!("CARGO_BIN_EXE_deltafold"))
        .args(["--dialect", "klingon", "-"])
        .output()
        .unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("unknown dialect"));
}

mod display;
mod hostile;
mod newcomer;
mod reencode;
mod url;
