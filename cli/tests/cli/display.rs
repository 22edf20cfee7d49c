//! The live display read as a user reads it: each tool call's arguments once and whole however
//! the calls interleave, and prose wrapped between words.

use std::collections::BTreeMap;

use super::*;

/// The streams with interleaved parallel tool calls: our fixture (one chunk carries two
/// fragments of one call), two calls from a host that resends each call's whole text so far (the
/// second one's held back until the finish, which also finishes the first), and the real
/// recordings beside the repository.
fn parallel_streams() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut streams = vec![
        root.join("../fixtures/openai/parallel_tool_calls.sse"),
        root.join("../fixtures/deepseek/cumulative_tool_arguments.sse"),
    ];
    for name in [
        "openai__parallel_tool_calls__1",
        "openai__parallel_tool_calls__2",
        "groq__parallel_tool_calls__1",
        "anthropic__parallel_tool_use__1",
    ] {
        let path = root.join(format!("../../shared/real-sse/{name}.sse"));
        assert!(path.is_file(), "{}", path.display());
        streams.push(path);
    }
    streams
}

/// Each call's arguments as the stream sent them: its `--events` deltas joined.
fn arguments_sent(stream: &Path) -> BTreeMap<u64, String> {
    let output = run(&["--events", stream.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let mut calls = BTreeMap::<u64, String>::new();
    for line in stdout(&output).lines() {
        let event: Value = serde_json::from_str(line).unwrap();
        if event["type"] == "tool_call_arguments_delta" {
            let index = event["index"].as_u64().unwrap();
            let delta = event["delta"].as_str().unwrap();
            calls.entry(index).or_default().push_str(delta);
        }
    }
    calls
}

/// Each call's arguments as the display shows them: the lines under its headers, a resumed
/// call's dim `…` taken off, joined.
fn arguments_shown(stream: &Path) -> BTreeMap<u64, String> {
    let output = run(&["--color", "never", stream.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let shown = stdout(&output);
    let mut calls = BTreeMap::<u64, String>::new();
    let mut current = None;
    for line in shown.lines() {
        if let Some(header) = line.strip_prefix("── tool call ") {
            let index = header.split(' ').next().unwrap().parse().unwrap();
            current = Some(index);
            calls.entry(index).or_default();
        } else if line.is_empty() || line.starts_with("── ") {
            current = None;
        } else if let Some(index) = current {
            let text = calls.get_mut(&index).unwrap();
            if !text.is_empty() {
                assert!(
                    line.starts_with('…'),
                    "a resumed call starts with …: {shown}"
                );
            }
            text.push_str(line.strip_prefix('…').unwrap_or(line));
        }
    }
    calls
}

#[test]
fn interleaved_tool_calls_show_each_argument_fragment_once_and_all_of_them() {
    for stream in parallel_streams() {
        let sent = arguments_sent(&stream);
        assert!(sent.len() >= 2, "{}: parallel calls", stream.display());
        assert_eq!(arguments_shown(&stream), sent, "{}", stream.display());
    }
}

#[test]
fn prose_wraps_between_words_at_the_width() {
    let output = Command::new(BIN)
        .args(["--demo", "--pace", "0", "--color", "never"])
        .env("COLUMNS", "24")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let shown = stdout(&output);
    let answer = shown
        .split("── answer\n")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .unwrap();
    assert!(answer.lines().count() > 2, "{answer}");
    for line in answer.lines() {
        assert!(line.chars().count() <= 24, "{line:?} in {answer}");
        assert_eq!(line.trim(), line, "breaks replace spaces: {line:?}");
    }
    // Every word is whole and in order: only spaces became line breaks.
    let json = json_line(&run_with_stdin(&["--json"], DEMO));
    let content = json["content"].as_str().unwrap();
    assert_eq!(answer.replace('\n', " "), content.trim_end());
    // The thinking, cut into fragments mid-word, wraps the same way.
    let thinking = shown.split("── thinking\n").nth(1).unwrap();
    let thinking = thinking.split("\n\n── ").next().unwrap();
    for line in thinking.lines() {
        assert!(line.chars().count() <= 24, "{line:?}");
    }
}

#[test]
fn without_a_width_lines_are_left_to_the_terminal() {
    let output = Command::new(BIN)
        .args(["--demo", "--pace", "0", "--color", "never"])
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    let json = json_line(&run_with_stdin(&["--json"], DEMO));
    let content = json["content"].as_str().unwrap().trim_end();
    assert!(stdout(&output).contains(&format!("── answer\n{content}\n")));
}

#[test]
fn a_wrapped_word_keeps_its_escapes_whole() {
    let stream = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"abc de\"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"f \\u001b[2Jgh ij\"},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let output = Command::new(BIN)
        .args(["--color", "always", "-"])
        .env("COLUMNS", "12")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().unwrap().write_all(stream.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    let shown = stdout(&output);
    assert!(!shown.contains("\x1b[2J"), "{shown:?}");
    assert!(shown.contains("\\u{1b}[2Jgh"), "{shown:?}");
    let answer = shown.split("── answer").nth(1).unwrap();
    assert!(answer.contains("abc def\n"), "{answer:?}");
}
