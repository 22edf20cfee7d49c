//! The live events: in stream order, each carrying only its own delta, refusals included.

use deltafold::ContentBlock;
use serde_json::{json, Value};

use crate::{body, delta, described, finish, run, text, tools, usage_chunk, Event, DONE};

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

/// A host that resends the whole argument text so far: each event carries what is new, once the
/// appended reading (`{"q":{"q":"ru{"q"…`) is ruled out.
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
            "tool_args 0.0 \"rust\"}",
            "tool_finished 0.0 f {\"q\":\"rust\"}",
        ]
    );
}

/// The argument deltas of the one call `fragments` stream, and its final arguments.
fn argument_deltas_and_call(fragments: &[&str]) -> (Vec<String>, Value) {
    let mut chunks: Vec<String> = fragments
        .iter()
        .enumerate()
        .map(|(n, fragment)| {
            let mut call = json!({"index": 0, "function": {"arguments": fragment}});
            if n == 0 {
                call["id"] = json!("call_1");
                call["function"]["name"] = json!("f");
            }
            tools(&[&call.to_string()])
        })
        .collect();
    chunks.extend([finish(0, "tool_calls"), DONE.into()]);
    let run = run(&body(&chunks));
    let deltas = run
        .events
        .iter()
        .filter_map(|event| match event {
            Event::ToolCallArgumentsDelta { delta, .. } => Some(delta.to_string()),
            _ => None,
        })
        .collect();
    let message = run.result.expect("a clean stream").into_message();
    let call = match message.content.iter().find_map(|block| match block {
        ContentBlock::ToolCall(call) => Some(Value::Object(call.args.clone())),
        ContentBlock::InvalidToolCall(call) => Some(Value::String(call.args.clone())),
        _ => None,
    }) {
        Some(call) => call,
        None => panic!("no call in {message:?}"),
    };
    (deltas, call)
}

/// Regression, found by the generated-stream property (its seed is in
/// `tests/proptest-regressions/generated.txt`): ordinary fragments whose second one starts with
/// the first (`{"":` then `{"":[…]…}`, a nested object spelled like its parent) were read as
/// cumulative while they streamed — the deltas showed `{"":[…]}…` — and as appended at the end,
/// so the deltas no longer added up to the call. The deltas always add up to the call now.
#[test]
fn argument_deltas_add_up_to_the_call_when_a_fragment_repeats_the_text_so_far() {
    // The cumulative reading closes its object before the fragment ends: ruled out at once.
    let (deltas, call) = argument_deltas_and_call(&[r#"{"":"#, r#"{"":[1],"b":"c"},"a":2}"#]);
    assert_eq!(call, json!({"": {"": [1], "b": "c"}, "a": 2}));
    assert_eq!(deltas, [r#"{"":"#, r#"{"":[1],"b":"c"},"a":2}"#]);
    // Both readings stay possible until the end: the held text is shown when the call finishes.
    let (deltas, call) = argument_deltas_and_call(&[r#"{"q":"#, r#"{"q":"ru"#, r#"st"}"#, "}"]);
    assert_eq!(call, json!({"q": {"q": "rust"}}));
    assert_eq!(deltas, [r#"{"q":"#, r#"{"q":"rust"}}"#]);
    // A cumulative host: decided when the appended reading breaks (`"ru{"q…`).
    let (deltas, call) = argument_deltas_and_call(&[r#"{"q":"#, r#"{"q":"ru"#, r#"{"q":"rust"}"#]);
    assert_eq!(call, json!({"q": "rust"}));
    assert_eq!(deltas, [r#"{"q":"#, r#""rust"}"#]);
}
