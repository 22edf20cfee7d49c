//! Deep nesting: JSON nested 100,000 deep in tool arguments and anywhere in a payload, of every
//! dialect, overflows no stack; each test runs in a child process, so that an overflow fails it
//! instead of aborting the whole suite.

use deltafold::Assembler;
use serde_json::json;

use crate::{
    assemble, assert_typed, drain, event, finish, first_text, partial, stream, text, tool, Run,
};

const DEPTH: usize = 100_000;

/// Set in the child process that runs a test which could overflow the stack.
const IN_CHILD: &str = "DELTAFOLD_HOSTILE_CHILD";

/// Whether this is the child process of [`passes_in_a_child_process`].
fn in_child() -> bool {
    std::env::var_os(IN_CHILD).is_some()
}

/// Runs the named test of this module in a child process and asserts that it ran and passed. A
/// stack overflow aborts the whole process rather than failing one test, so it is watched from
/// outside: the rest of the suite still runs and reports.
fn passes_in_a_child_process(test: &str) {
    // The harness names a test by its path below the crate root: `nesting::<test>`.
    let module = module_path!()
        .split_once("::")
        .map_or("", |(_, module)| module);
    let test = format!("{module}::{test}");
    let exe = std::env::current_exe().expect("the test binary");
    let output = std::process::Command::new(exe)
        .args(["--exact", &test, "--test-threads=1", "--nocapture"])
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
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("test result: ok. 1 passed"),
        "{test} did not run in its child process:\n{stdout}"
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
