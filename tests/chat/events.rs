//! The live events: in stream order, each carrying only its own delta, refusals included.

use crate::{body, delta, described, finish, run, text, tools, usage_chunk, DONE};

#[test]
fn events_come_in_stream_order_each_carrying_only_its_delta() {
    let run = run(&body(&[
        delta(0, r#"{"role":"assistant","reasoning_content":"Think"}"#),
        delta(0, r#"{"reasoning_content":"ing."}"#),
        text("Hi"),
        text(" there."),
        tools(&[
            r#"{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}"#,
        ]),
        tools(&[r#"{"index":0,"function":{"arguments":"{\"a\""}}"#]),
        tools(&[r#"{"index":0,"function":{"arguments":":1}"}}"#]),
        finish(0, "tool_calls"),
        usage_chunk(r#"{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}"#),
        DONE.into(),
    ]));
    assert_eq!(
        described(&run.events),
        [
            "started chatcmpl-1 gpt-test",
            "reasoning 0 Think",
            "reasoning 0 ing.",
            "reasoning_end 0 0",
            "text 0 Hi",
            "text 0  there.",
            "text_end 0 1",
            "tool_started 0.0 call_1 f",
            "tool_args 0.0 {\"a\"",
            "tool_args 0.0 :1}",
            "tool_finished 0.0 f {\"a\":1}",
            "choice_finished 0 tool_calls",
            "usage 3/2/5",
            "done",
        ]
    );
    assert!(run.result.expect("a clean stream").complete);
}

#[test]
fn refusal_deltas_are_events_too() {
    let run = run(&body(&[
        delta(0, r#"{"refusal":"No"}"#),
        delta(0, r#"{"refusal":"."}"#),
        finish(0, "stop"),
        DONE.into(),
    ]));
    assert_eq!(
        described(&run.events),
        [
            "started chatcmpl-1 gpt-test",
            "refusal 0 No",
            "refusal 0 .",
            "refusal_end 0 0",
            "choice_finished 0 stop",
            "done",
        ]
    );
}

/// A custom tool call's free-text input streams as argument deltas of `{"__arg1": input}` — the
/// JSON text of its arguments, escaped — closed when the choice finishes.
#[test]
fn a_custom_tool_calls_input_streams_as_argument_deltas() {
    let run = run(&body(&[
        tools(&[
            r#"{"index":0,"id":"call_1","type":"custom","custom":{"name":"shell","input":"echo"}}"#,
        ]),
        tools(&[r#"{"index":0,"type":"custom","custom":{"input":" \"hi\""}}"#]),
        finish(0, "tool_calls"),
        DONE.into(),
    ]));
    assert_eq!(
        described(&run.events),
        [
            "started chatcmpl-1 gpt-test",
            "tool_started 0.0 call_1 shell",
            "tool_args 0.0 {\"__arg1\":\"echo",
            "tool_args 0.0  \\\"hi\\\"",
            "tool_args 0.0 \"}",
            "tool_finished 0.0 shell {\"__arg1\":\"echo \\\"hi\\\"\"}",
            "choice_finished 0 tool_calls",
            "done",
        ]
    );
    let completion = run.result.expect("a clean stream");
    let call = completion
        .message()
        .expect("one choice")
        .tool_calls()
        .next()
        .expect("one call");
    assert_eq!(call.custom_input(), Some("echo \"hi\""));
}

/// A host that resends the whole argument text so far: each event carries what is new.
#[test]
fn cumulative_tool_arguments_stream_what_each_fragment_adds() {
    let run = run(&body(&[
        tools(&[
            r#"{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"q\":"}}"#,
        ]),
        tools(&[r#"{"index":0,"function":{"arguments":"{\"q\":\"ru"}}"#]),
        tools(&[r#"{"index":0,"function":{"arguments":"{\"q\":\"rust\"}"}}"#]),
        finish(0, "tool_calls"),
        DONE.into(),
    ]));
    assert_eq!(
        described(&run.events)[1..5],
        [
            "tool_started 0.0 call_1 f",
            "tool_args 0.0 {\"q\":",
            "tool_args 0.0 \"ru",
            "tool_args 0.0 st\"}",
        ]
    );
}
