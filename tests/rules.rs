//! One test per assembly rule of the OpenAI chat-completion dialect, each on a tiny inline
//! stream built with the helpers below.

#[path = "support/replay.rs"]
mod drive;

use deltafold::{AiMessage, Assembler, Completion, ContentBlock, Error, ErrorKind, Event, Options};
use drive::Run;
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------------
// Stream builders

/// One event: `data: <payload>` and its blank line.
fn data(payload: &str) -> String {
    format!("data: {payload}\n\n")
}

/// The end of a clean stream.
const DONE: &str = "data: [DONE]\n\n";

/// A chunk with the given choices (a JSON list body) and extra top-level fields.
fn chunk_with(choices: &str, extra: &str) -> String {
    let extra = if extra.is_empty() {
        String::new()
    } else {
        format!(",{extra}")
    };
    data(&format!(
        r#"{{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-test","choices":[{choices}]{extra}}}"#
    ))
}

/// A chunk whose only choice `index` carries `delta`.
fn delta(index: u32, delta: &str) -> String {
    chunk_with(&format!(r#"{{"index":{index},"delta":{delta}}}"#), "")
}

/// A chunk whose only choice `index` finishes with `reason`.
fn finish(index: u32, reason: &str) -> String {
    chunk_with(
        &format!(r#"{{"index":{index},"delta":{{}},"finish_reason":"{reason}"}}"#),
        "",
    )
}

/// A chunk with tool-call fragments (JSON objects) for choice 0.
fn tools(fragments: &[&str]) -> String {
    delta(0, &format!(r#"{{"tool_calls":[{}]}}"#, fragments.join(",")))
}

/// A text delta for choice 0.
fn text(text: &str) -> String {
    delta(0, &json!({ "content": text }).to_string())
}

/// A usage-only chunk (`choices: []`).
fn usage_chunk(usage: &str) -> String {
    chunk_with("", &format!(r#""usage":{usage}"#))
}

fn body(parts: &[String]) -> String {
    parts.concat()
}

// ---------------------------------------------------------------------------------------------
// Runners

fn run_with(body: &str, options: Options) -> Run {
    drive::run([body.as_bytes()], options)
}

fn run(body: &str) -> Run {
    run_with(body, Options::new())
}

fn completion(body: &str) -> Completion {
    match run(body).result {
        Ok(completion) => completion,
        Err(error) => panic!("unexpected error: {error}"),
    }
}

fn message(body: &str) -> AiMessage {
    let completion = completion(body);
    assert!(completion.complete, "the stream should be complete");
    completion.into_message()
}

fn failure_with(body: &str, options: Options) -> Error {
    match run_with(body, options).result {
        Ok(completion) => panic!("expected an error, got {completion:?}"),
        Err(error) => error,
    }
}

fn failure(body: &str) -> Error {
    failure_with(body, Options::new())
}

/// The partial first message an error carries.
fn partial_message(error: &Error) -> &AiMessage {
    let partial = error
        .partial()
        .expect("the error carries the partial result");
    assert!(!partial.complete, "a partial result is never complete");
    partial.message().expect("a partial message")
}

/// A compact, readable line per event.
fn describe(event: &Event<'_>) -> String {
    match event {
        Event::Started { id, model } => format!(
            "started {} {}",
            id.as_deref().unwrap_or("-"),
            model.as_deref().unwrap_or("-")
        ),
        Event::TextDelta { choice, text } => format!("text {choice} {text}"),
        Event::ReasoningDelta { choice, text } => format!("reasoning {choice} {text}"),
        Event::RefusalDelta { choice, text } => format!("refusal {choice} {text}"),
        Event::ToolCallStarted {
            choice,
            index,
            id,
            name,
        } => format!("tool_started {choice}.{index} {id} {name}"),
        Event::ToolCallArgumentsDelta {
            choice,
            index,
            delta,
        } => format!("tool_args {choice}.{index} {delta}"),
        Event::ToolCallFinished {
            choice,
            index,
            call,
        } => match call.as_ref() {
            ContentBlock::ToolCall(call) => format!(
                "tool_finished {choice}.{index} {} {}",
                call.name,
                Value::Object(call.args.clone())
            ),
            ContentBlock::InvalidToolCall(call) => {
                format!("tool_invalid {choice}.{index} {} {}", call.name, call.args)
            }
            other => format!("tool_finished {choice}.{index} {other:?}"),
        },
        Event::Usage { usage } => format!(
            "usage {}/{}/{}",
            usage.input_tokens, usage.output_tokens, usage.total_tokens
        ),
        Event::ChoiceFinished { choice, reason } => format!("choice_finished {choice} {reason}"),
        Event::Done => "done".into(),
        other => format!("{other:?}"),
    }
}

fn described(events: &[Event<'_>]) -> Vec<String> {
    events.iter().map(describe).collect()
}

fn position(events: &[String], prefix: &str) -> usize {
    events
        .iter()
        .position(|event| event.starts_with(prefix))
        .unwrap_or_else(|| panic!("no event starting with {prefix:?} in {events:#?}"))
}

fn tool_calls(message: &AiMessage) -> Vec<Value> {
    message
        .tool_calls()
        .map(|call| json!({"id": call.id, "name": call.name, "args": call.args}))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// End of stream

#[test]
fn done_ends_the_stream_and_anything_after_it_is_ignored() {
    let stream = body(&[
        text("kept"),
        DONE.into(),
        text(" ignored"),
        finish(0, "length"),
        data("{not json"),
    ]);
    let mut assembler = Assembler::new();
    assembler.push(stream.as_bytes());
    let mut events = Vec::new();
    drive::drain_into(&mut assembler, &mut events).expect("nothing after [DONE] is read");
    assert!(assembler.is_done());
    assembler.push(text(" pushed later").as_bytes());
    drive::drain_into(&mut assembler, &mut events).expect("input after [DONE] is ignored");
    assert_eq!(
        described(&events),
        ["started chatcmpl-1 gpt-test", "text 0 kept", "done"]
    );
    let completion = assembler.finish().expect("a clean stream");
    assert!(completion.complete);
    let message = completion.into_message();
    assert_eq!(message.text(), "kept");
    assert!(message.response_metadata.finish_reason.is_none());
}

// ---------------------------------------------------------------------------------------------
// Choices

#[test]
fn choices_are_keyed_by_index_not_position_and_may_be_sparse_and_out_of_order() {
    let completion = completion(&body(&[
        chunk_with(
            r#"{"index":2,"delta":{"content":"two"}},{"index":0,"delta":{"content":"zero"}}"#,
            "",
        ),
        delta(2, r#"{"content":" more"}"#),
        chunk_with(r#"{"index":0,"delta":{"content":" more"}}"#, ""),
        finish(2, "stop"),
        finish(0, "length"),
        DONE.into(),
    ]));
    let summary: Vec<(u32, String, String)> = completion
        .choices
        .iter()
        .map(|choice| {
            (
                choice.index,
                choice.message.text(),
                choice.message.response_metadata.finish_reason.to_string(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (0, "zero more".to_string(), "length".to_string()),
            (2, "two more".to_string(), "stop".to_string()),
        ]
    );
}

#[test]
fn a_choice_without_an_index_is_keyed_by_its_position() {
    let completion = completion(&body(&[
        chunk_with(
            r#"{"delta":{"content":"first"}},{"delta":{"content":"second"}}"#,
            "",
        ),
        chunk_with(
            r#"{"delta":{},"finish_reason":"stop"},{"delta":{},"finish_reason":"stop"}"#,
            "",
        ),
        DONE.into(),
    ]));
    let texts: Vec<(u32, String)> = completion
        .choices
        .iter()
        .map(|choice| (choice.index, choice.message.text()))
        .collect();
    assert_eq!(texts, [(0, "first".to_string()), (1, "second".to_string())]);
}

#[test]
fn empty_choices_and_null_or_missing_delta_carry_nothing() {
    let message = message(&body(&[
        data(
            r#"{"choices":[],"created":0,"id":"","model":"","prompt_filter_results":[{"prompt_index":0}]}"#,
        ),
        delta(0, "null"),
        chunk_with(r#"{"index":0,"finish_reason":null}"#, ""),
        delta(0, "{}"),
        delta(
            0,
            r#"{"role":"assistant","content":null,"refusal":null,"tool_calls":null,"reasoning_content":null}"#,
        ),
        text("only this"),
        finish(0, "stop"),
        DONE.into(),
    ]));
    assert_eq!(message.content, vec![ContentBlock::text("only this")]);
    assert!(message.usage.is_none());
}

// ---------------------------------------------------------------------------------------------
// Content, reasoning, refusal

#[test]
fn content_comes_as_a_string_or_as_parts_with_mistral_thinking_going_to_reasoning() {
    let message = message(&body(&[
        delta(
            0,
            r#"{"content":[{"type":"thinking","thinking":[{"type":"text","text":"Let me"},{"type":"text","text":" think."}]}]}"#,
        ),
        delta(
            0,
            r#"{"content":[{"type":"thinking","thinking":[{"type":"text","text":" Done."}],"closed":true}]}"#,
        ),
        delta(0, r#"{"content":[{"type":"text","text":"Answer"}]}"#),
        text(": 42"),
        finish(0, "stop"),
        DONE.into(),
    ]));
    assert_eq!(message.reasoning(), "Let me think. Done.");
    assert_eq!(message.text(), "Answer: 42");
    assert_eq!(
        message.content,
        vec![
            ContentBlock::reasoning("Let me think. Done."),
            ContentBlock::text("Answer: 42"),
        ]
    );
}

#[test]
fn reasoning_content_and_reasoning_both_append_to_the_reasoning() {
    let message = message(&body(&[
        delta(0, r#"{"reasoning_content":"DeepSeek style,"}"#),
        delta(0, r#"{"reasoning":" OpenRouter style."}"#),
        text("Answer."),
        finish(0, "stop"),
        DONE.into(),
    ]));
    assert_eq!(message.reasoning(), "DeepSeek style, OpenRouter style.");
    assert_eq!(message.text(), "Answer.");
}

#[test]
fn reasoning_mirrored_into_both_fields_counts_once() {
    // StepFun (and vLLM builds with its compatibility shim) send the same text under both
    // names in every delta; the reasoning is that text once, not twice.
    let message = message(&body(&[
        delta(0, r#"{"reasoning":"The","reasoning_content":"The"}"#),
        delta(0, r#"{"reasoning":" user","reasoning_content":" user"}"#),
        text("Hi."),
        finish(0, "stop"),
        DONE.into(),
    ]));
    assert_eq!(message.reasoning(), "The user");
}

#[test]
fn reasoning_and_text_in_the_same_delta_are_both_kept() {
    let message = message(&body(&[
        delta(0, r#"{"reasoning_content":"thinking"}"#),
        delta(0, r#"{"reasoning_content":" done","content":"Hello"}"#),
        text(" world"),
        finish(0, "stop"),
        DONE.into(),
    ]));
    assert_eq!(
        message.content,
        vec![
            ContentBlock::reasoning("thinking done"),
            ContentBlock::text("Hello world"),
        ]
    );
}

#[test]
fn reasoning_details_are_kept_with_their_signature_without_counting_text_twice() {
    let message = message(&body(&[
        delta(
            0,
            r#"{"reasoning":"Two","reasoning_details":[{"type":"reasoning.text","text":"Two","format":"anthropic-claude-v1","index":0}]}"#,
        ),
        // Some hosts send the detail alone: its text is the reasoning.
        delta(
            0,
            r#"{"reasoning":null,"reasoning_details":[{"type":"reasoning.text","text":" steps.","format":"anthropic-claude-v1","index":0}]}"#,
        ),
        delta(
            0,
            r#"{"reasoning":null,"reasoning_details":[{"type":"reasoning.text","signature":"c2lnbmF0dXJl","format":"anthropic-claude-v1","index":0}]}"#,
        ),
        text("Done."),
        finish(0, "stop"),
        DONE.into(),
    ]));
    assert_eq!(message.reasoning(), "Two steps.");
    let ContentBlock::Reasoning {
        text,
        signature,
        extras,
        ..
    } = &message.content[0]
    else {
        panic!("reasoning first: {:?}", message.content)
    };
    assert_eq!(text, "Two steps.");
    assert_eq!(signature.as_deref(), Some("c2lnbmF0dXJl"));
    assert_eq!(
        extras["reasoning_details"],
        json!([{"type": "reasoning.text", "text": "Two steps.", "signature": "c2lnbmF0dXJl", "format": "anthropic-claude-v1", "index": 0}])
    );
}

#[test]
fn encrypted_reasoning_details_are_kept_as_the_blocks_opaque_data() {
    let message = message(&body(&[
        delta(
            0,
            r#"{"reasoning":null,"reasoning_details":[{"type":"reasoning.encrypted","data":"gAAAAB-opaque","id":"rs_1","format":"openai-responses-v1","index":0}]}"#,
        ),
        text("Answer."),
        finish(0, "stop"),
        DONE.into(),
    ]));
    let ContentBlock::Reasoning {
        text, data, extras, ..
    } = &message.content[0]
    else {
        panic!("reasoning first: {:?}", message.content)
    };
    assert_eq!(text, "", "encrypted reasoning has no readable text");
    assert_eq!(
        extras["reasoning_details"],
        json!([{"type": "reasoning.encrypted", "data": "gAAAAB-opaque", "id": "rs_1", "format": "openai-responses-v1", "index": 0}])
    );
    assert_eq!(data.as_deref(), Some("gAAAAB-opaque"));
}

#[test]
fn refusal_appends_to_a_refusal_block() {
    let message = message(&body(&[
        delta(0, r#"{"role":"assistant","refusal":""}"#),
        delta(0, r#"{"refusal":"I can't"}"#),
        delta(0, r#"{"refusal":" do that."}"#),
        finish(0, "stop"),
        DONE.into(),
    ]));
    assert_eq!(message.refusal().as_deref(), Some("I can't do that."));
    assert_eq!(
        message.content,
        vec![ContentBlock::Refusal {
            refusal: "I can't do that.".into()
        }]
    );
    assert_eq!(message.text(), "");
}

// ---------------------------------------------------------------------------------------------
// Tool-call slots

#[test]
fn tool_call_id_and_name_take_the_first_non_empty_value_and_are_never_concatenated() {
    let message = message(&body(&[
        tools(&[r#"{"index":0,"id":"","type":"function","function":{"name":"","arguments":""}}"#]),
        tools(&[
            r#"{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":"}}"#,
        ]),
        tools(&[
            r#"{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"\"Oslo\"}"}}"#,
        ]),
        finish(0, "tool_calls"),
        DONE.into(),
    ]));
    assert_eq!(
        tool_calls(&message),
        [json!({"id": "call_1", "name": "get_weather", "args": {"city": "Oslo"}})]
    );
}

#[test]
fn the_same_index_with_a_different_id_starts_a_new_call() {
    let message = message(&body(&[
        tools(&[r#"{"index":0,"id":"call_a","function":{"name":"f","arguments":"{\"n\":"}}"#]),
        tools(&[r#"{"index":0,"function":{"arguments":"1}"}}"#]),
        tools(&[r#"{"index":0,"id":"call_b","function":{"name":"g","arguments":"{\"n\":"}}"#]),
        tools(&[r#"{"index":0,"function":{"arguments":"2}"}}"#]),
        finish(0, "tool_calls"),
        DONE.into(),
    ]));
    assert_eq!(
        tool_calls(&message),
        [
            json!({"id": "call_a", "name": "f", "args": {"n": 1}}),
            json!({"id": "call_b", "name": "g", "args": {"n": 2}}),
        ]
    );
}

#[test]
fn without_index_a_known_id_continues_a_new_id_starts_and_no_id_continues_the_latest() {
    let message = message(&body(&[
        tools(&[r#"{"id":"call_a","function":{"name":"f","arguments":"{\"x\":"}}"#]),
        tools(&[r#"{"id":"call_b","function":{"name":"g","arguments":"{\"y\":"}}"#]),
        tools(&[r#"{"function":{"arguments":"2}"}}"#]),
        tools(&[r#"{"id":"call_a","function":{"arguments":"1}"}}"#]),
        finish(0, "tool_calls"),
        DONE.into(),
    ]));
    assert_eq!(
        tool_calls(&message),
        [
            json!({"id": "call_a", "name": "f", "args": {"x": 1}}),
            json!({"id": "call_b", "name": "g", "args": {"y": 2}}),
        ]
    );
}

#[test]
fn several_fragments_for_one_index_in_one_chunk_are_merged_in_order() {
    let message = message(&body(&[
        tools(&[
            r#"{"index":0,"id":"call_1","function":{"name":"f","arguments":"{\"a\""}}"#,
            r#"{"index":1,"id":"call_2","function":{"name":"g","arguments":"{}"}}"#,
            r#"{"index":0,"function":{"arguments":":"}}"#,
            r#"{"index":0,"function":{"arguments":"[1,2]}"}}"#,
        ]),
        finish(0, "tool_calls"),
        DONE.into(),
    ]));
    assert_eq!(
        tool_calls(&message),
        [
            json!({"id": "call_1", "name": "f", "args": {"a": [1, 2]}}),
            json!({"id": "call_2", "name": "g", "args": {}}),
        ]
    );
}

#[test]
fn tool_calls_are_finished_by_finish_reason_not_when_their_arguments_parse() {
    let events = described(
        &run(&body(&[
            tools(&[r#"{"index":0,"id":"call_1","function":{"name":"f","arguments":"{}"}}"#]),
            text("more text after a complete-looking call"),
            tools(&[r#"{"index":0,"function":{"arguments":""}}"#]),
            finish(0, "tool_calls"),
            DONE.into(),
        ]))
        .events,
    );
    let finished = position(&events, "tool_finished 0.0 f {}");
    assert!(
        finished > position(&events, "text 0 more text"),
        "{events:#?}"
    );
    assert_eq!(events[finished + 1], "choice_finished 0 tool_calls");
}

#[test]
fn another_choice_finishing_does_not_finish_this_choices_tool_calls() {
    let events = described(
        &run(&body(&[
            chunk_with(
                r#"{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":"{}"}}]}}"#,
                "",
            ),
            chunk_with(r#"{"index":1,"delta":{"content":"other"},"finish_reason":"stop"}"#, ""),
            chunk_with(
                r#"{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" "}}]}}"#,
                "",
            ),
            finish(0, "tool_calls"),
            DONE.into(),
        ]))
        .events,
    );
    assert!(
        position(&events, "tool_finished 0.0") > position(&events, "tool_args 0.0  "),
        "{events:#?}"
    );
}

#[test]
fn tool_calls_are_finished_at_done_and_at_the_end_of_a_lenient_stream() {
    let at_done = described(
        &run(&body(&[
            tools(&[
                r#"{"index":0,"id":"call_1","function":{"name":"f","arguments":"{\"a\":1}"}}"#,
            ]),
            DONE.into(),
        ]))
        .events,
    );
    let n = at_done.len();
    assert_eq!(at_done[n - 2..], ["tool_finished 0.0 f {\"a\":1}", "done"]);

    let cut = run_with(
        &tools(&[r#"{"index":0,"id":"call_1","function":{"name":"f","arguments":"{\"a\":1}"}}"#]),
        Options::new().lenient(true),
    );
    let completion = cut.result.expect("lenient mode returns the message");
    assert!(!completion.complete);
    assert_eq!(
        tool_calls(completion.message().unwrap()),
        [json!({"id": "call_1", "name": "f", "args": {"a": 1}})]
    );
}

#[test]
fn empty_arguments_are_an_empty_object_and_an_object_is_a_tool_call() {
    let message = message(&body(&[
        tools(&[r#"{"index":0,"id":"call_1","function":{"name":"now","arguments":""}}"#]),
        // Some compatibles send the arguments as an object rather than a JSON string.
        tools(&[
            r#"{"index":1,"id":"call_2","function":{"name":"f","arguments":{"city":"Oslo"}}}"#,
        ]),
        finish(0, "tool_calls"),
        DONE.into(),
    ]));
    assert_eq!(
        tool_calls(&message),
        [
            json!({"id": "call_1", "name": "now", "args": {}}),
            json!({"id": "call_2", "name": "f", "args": {"city": "Oslo"}}),
        ]
    );
    assert_eq!(message.invalid_tool_calls().count(), 0);
}

#[test]
fn malformed_trailing_and_non_object_arguments_are_invalid_with_the_raw_text_and_why() {
    let message = message(&body(&[
        tools(&[r#"{"index":0,"id":"call_1","function":{"name":"f","arguments":"{\"a\": tru"}}"#]),
        tools(&[
            r#"{"index":1,"id":"call_2","function":{"name":"f","arguments":"{\"a\":1}{\"a\":1}"}}"#,
        ]),
        tools(&[
            r#"{"index":2,"id":"call_3","function":{"name":"f","arguments":"\"just a string\""}}"#,
        ]),
        tools(&[r#"{"index":3,"id":"call_4","function":{"name":"f","arguments":"null"}}"#]),
        finish(0, "tool_calls"),
        DONE.into(),
    ]));
    assert_eq!(message.tool_calls().count(), 0);
    let invalid: Vec<(&str, &str, &str)> = message
        .invalid_tool_calls()
        .map(|call| (call.id.as_str(), call.args.as_str(), call.error.as_str()))
        .collect();
    assert_eq!(invalid.len(), 4, "{invalid:?}");
    assert_eq!(invalid[0].1, "{\"a\": tru");
    assert!(invalid[0].2.contains("line 1 column"), "{}", invalid[0].2);
    assert_eq!(invalid[1].1, "{\"a\":1}{\"a\":1}");
    assert!(
        invalid[1].2.contains("trailing characters"),
        "{}",
        invalid[1].2
    );
    assert_eq!(invalid[2].2, "arguments are a JSON string, not an object");
    assert_eq!(invalid[3].2, "arguments are a JSON null, not an object");
    let ids: Vec<&str> = invalid.iter().map(|(id, _, _)| *id).collect();
    assert_eq!(ids, ["call_1", "call_2", "call_3", "call_4"]);
}

#[test]
fn missing_ids_are_generated_unique_within_the_message() {
    let message = message(&body(&[
        tools(&[r#"{"index":0,"function":{"name":"f","arguments":"{}"}}"#]),
        tools(&[r#"{"index":1,"id":"call_df_0","function":{"name":"g","arguments":"{}"}}"#]),
        tools(&[r#"{"index":2,"function":{"name":"h","arguments":"{}"}}"#]),
        finish(0, "tool_calls"),
        DONE.into(),
    ]));
    let ids: Vec<&str> = message.tool_calls().map(|call| call.id.as_str()).collect();
    assert_eq!(ids.len(), 3);
    assert!(ids.iter().all(|id| !id.is_empty()), "{ids:?}");
    let mut unique = ids.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), 3, "ids must be unique: {ids:?}");
    assert_eq!(ids[1], "call_df_0", "a provider id is never replaced");
}

#[test]
fn blocks_and_tool_calls_keep_the_order_of_their_first_appearance() {
    let message = message(&body(&[
        text("Calling"),
        tools(&[
            r#"{"index":1,"id":"call_second_index","function":{"name":"g","arguments":"{}"}}"#,
        ]),
        tools(&[r#"{"index":0,"id":"call_first_index","function":{"name":"f","arguments":"{}"}}"#]),
        text(" both."),
        delta(0, r#"{"reasoning_content":"late thought"}"#),
        finish(0, "tool_calls"),
        DONE.into(),
    ]));
    let order: Vec<String> = message
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text { text, .. } => format!("text {text}"),
            ContentBlock::Reasoning { text, .. } => format!("reasoning {text}"),
            ContentBlock::ToolCall(call) => format!("tool {}", call.id),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        order,
        [
            "text Calling both.",
            "tool call_second_index",
            "tool call_first_index",
            "reasoning late thought",
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// Response metadata

#[test]
fn metadata_takes_the_first_non_empty_value_and_repeats_change_nothing() {
    let run = run(&body(&[
        data(r#"{"id":"","model":null,"system_fingerprint":"","choices":[]}"#),
        data(
            r#"{"id":"first","model":"model-a","created":111,"system_fingerprint":"fp_a","service_tier":"default","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":""}]}"#,
        ),
        data(
            r#"{"id":"second","model":"model-b","created":222,"system_fingerprint":"fp_b","service_tier":"flex","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
        ),
        data(
            r#"{"id":"third","model":"model-c","created":333,"system_fingerprint":"fp_c","service_tier":"priority","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}"#,
        ),
        data(r#"{"id":"first","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#),
        DONE.into(),
    ]));
    let events = described(&run.events);
    let message = run.result.expect("a clean stream").into_message();
    let metadata = &message.response_metadata;
    assert_eq!(message.id.as_deref(), Some("first"));
    assert_eq!(metadata.id.as_deref(), Some("first"));
    assert_eq!(metadata.model_name.as_deref(), Some("model-a"));
    assert_eq!(metadata.created, Some(111));
    assert_eq!(metadata.system_fingerprint.as_deref(), Some("fp_a"));
    assert_eq!(metadata.service_tier.as_deref(), Some("default"));
    assert_eq!(metadata.finish_reason, "stop");
    let finishes: Vec<&String> = events
        .iter()
        .filter(|event| event.starts_with("choice_finished"))
        .collect();
    assert_eq!(finishes, ["choice_finished 0 stop"]);
}

#[test]
fn a_placeholder_created_of_zero_does_not_win_over_the_real_timestamp() {
    // Azure's first chunk (prompt_filter_results) carries empty placeholders: "" id and model,
    // and created 0. Like the empty id and model, the 0 is "not reported".
    let message = message(&body(&[
        data(
            r#"{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[]}"#,
        ),
        data(
            r#"{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}],"created":1735700000,"id":"chatcmpl-az","model":"gpt-4o"}"#,
        ),
        DONE.into(),
    ]));
    assert_eq!(message.response_metadata.id.as_deref(), Some("chatcmpl-az"));
    assert_eq!(message.response_metadata.created, Some(1735700000));
}

#[test]
fn duplicated_finish_chunks_finish_the_choice_and_its_calls_once() {
    let events = described(
        &run(&body(&[
            tools(&[r#"{"index":0,"id":"call_1","function":{"name":"f","arguments":"{}"}}"#]),
            finish(0, "tool_calls"),
            finish(0, "tool_calls"),
            finish(0, "stop"),
            DONE.into(),
        ]))
        .events,
    );
    assert_eq!(
        events,
        [
            "started chatcmpl-1 gpt-test",
            "tool_started 0.0 call_1 f",
            "tool_args 0.0 {}",
            "tool_finished 0.0 f {}",
            "choice_finished 0 tool_calls",
            "done",
        ]
    );
}

#[test]
fn unknown_top_level_and_choice_fields_are_kept_in_response_metadata() {
    let message = message(&body(&[
        data(
            r#"{"id":"gen-1","provider":"Novita","model":"m","choices":[{"index":0,"delta":{"content":"hi"},"native_finish_reason":null}]}"#,
        ),
        data(
            r#"{"id":"gen-1","provider":"Other","error":null,"choices":[{"index":0,"delta":{},"finish_reason":"stop","native_finish_reason":"end_turn"}]}"#,
        ),
        DONE.into(),
    ]));
    let extra = &message.response_metadata.extra;
    assert_eq!(extra["provider"], "Novita");
    assert_eq!(extra["native_finish_reason"], "end_turn");
    assert!(!extra.contains_key("object"));
}

// ---------------------------------------------------------------------------------------------
// Usage

#[test]
fn usage_in_a_final_empty_choices_chunk() {
    let message = message(&body(&[
        text("hi"),
        finish(0, "stop"),
        usage_chunk(
            r#"{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12,"prompt_tokens_details":{"cached_tokens":4,"audio_tokens":1},"completion_tokens_details":{"reasoning_tokens":1,"audio_tokens":0}}"#,
        ),
        DONE.into(),
    ]));
    let usage = message.usage.expect("usage");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (10, 2, 12)
    );
    let input = usage.input_token_details.expect("input details");
    assert_eq!((input.cache_read, input.audio), (Some(4), Some(1)));
    let output = usage.output_token_details.expect("output details");
    assert_eq!((output.reasoning, output.audio), (Some(1), Some(0)));
}

#[test]
fn usage_in_the_last_content_chunk() {
    let message = message(&body(&[
        text("hi"),
        chunk_with(
            r#"{"index":0,"delta":{"content":"!"},"finish_reason":"stop"}"#,
            r#""usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}"#,
        ),
        DONE.into(),
    ]));
    let usage = message.usage.expect("usage");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (7, 3, 10)
    );
}

#[test]
fn cumulative_usage_in_every_chunk_takes_the_latest_values_and_never_sums() {
    let message = message(&body(&[
        chunk_with(
            r#"{"index":0,"delta":{"content":"a"}}"#,
            r#""usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}"#,
        ),
        chunk_with(
            r#"{"index":0,"delta":{"content":"b"}}"#,
            r#""usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}"#,
        ),
        chunk_with(
            r#"{"index":0,"delta":{},"finish_reason":"stop"}"#,
            r#""usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}"#,
        ),
        DONE.into(),
    ]));
    let usage = message.usage.expect("usage");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (9, 3, 12)
    );
}

#[test]
fn groq_reports_usage_under_x_groq() {
    let message = message(&body(&[
        chunk_with(
            r#"{"index":0,"delta":{"content":"hi"}}"#,
            r#""x_groq":{"id":"req_1"}"#,
        ),
        chunk_with(
            r#"{"index":0,"delta":{},"finish_reason":"stop"}"#,
            r#""x_groq":{"id":"req_1","usage":{"queue_time":0.02,"prompt_tokens":20,"completion_tokens":5,"total_tokens":25}}"#,
        ),
        DONE.into(),
    ]));
    let usage = message.usage.expect("usage from x_groq");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (20, 5, 25)
    );
    assert_eq!(usage.raw.expect("raw usage")["queue_time"], json!(0.02));
}

#[test]
fn null_empty_or_missing_usage_never_erases_an_earlier_report() {
    let message = message(&body(&[
        chunk_with(
            r#"{"index":0,"delta":{"content":"a"}}"#,
            r#""usage":{"prompt_tokens":10,"completion_tokens":4,"total_tokens":14,"cost":0.5,"prompt_tokens_details":{"cached_tokens":3}}"#,
        ),
        chunk_with(r#"{"index":0,"delta":{"content":"b"}}"#, r#""usage":null"#),
        chunk_with(r#"{"index":0,"delta":{"content":"c"}}"#, r#""usage":{}"#),
        chunk_with(
            r#"{"index":0,"delta":{},"finish_reason":"stop"}"#,
            r#""usage":{"prompt_tokens":null,"completion_tokens":null,"total_tokens":null,"cost":null,"prompt_tokens_details":null}"#,
        ),
        text("d"),
        DONE.into(),
    ]));
    let usage = message.usage.expect("usage");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (10, 4, 14)
    );
    assert_eq!(usage.input_token_details.unwrap().cache_read, Some(3));
    let raw = usage.raw.expect("raw usage");
    assert_eq!(raw["cost"], json!(0.5));
    assert_eq!(raw["prompt_tokens_details"], json!({"cached_tokens": 3}));
}

#[test]
fn deepseek_prompt_cache_hit_tokens_are_cache_reads() {
    let message = message(&body(&[
        text("hi"),
        chunk_with(
            r#"{"index":0,"delta":{"content":""},"finish_reason":"stop"}"#,
            r#""usage":{"prompt_tokens":100,"completion_tokens":5,"total_tokens":105,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36}"#,
        ),
        DONE.into(),
    ]));
    let usage = message.usage.expect("usage");
    assert_eq!(usage.input_token_details.unwrap().cache_read, Some(64));
    assert_eq!(usage.raw.unwrap()["prompt_cache_miss_tokens"], json!(36));
}

#[test]
fn cache_write_tokens_are_cache_creation() {
    let message = message(&body(&[
        text("hi"),
        finish(0, "stop"),
        usage_chunk(
            r#"{"prompt_tokens":200,"completion_tokens":5,"total_tokens":205,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":150}}"#,
        ),
        DONE.into(),
    ]));
    let details = message.usage.unwrap().input_token_details.unwrap();
    assert_eq!(
        (details.cache_read, details.cache_creation),
        (Some(0), Some(150))
    );
}

#[test]
fn total_tokens_is_the_sum_when_the_provider_sends_none() {
    let message = message(&body(&[
        text("hi"),
        finish(0, "stop"),
        usage_chunk(r#"{"prompt_tokens":8,"completion_tokens":3}"#),
        DONE.into(),
    ]));
    assert_eq!(message.usage.unwrap().total_tokens, 11);
}

// ---------------------------------------------------------------------------------------------
// Logprobs

#[test]
fn logprobs_entries_append_per_choice() {
    let entry =
        |token: &str| json!({"token": token, "logprob": -0.5, "bytes": [], "top_logprobs": []});
    let with_logprobs = |index: u32, token: &str| {
        chunk_with(
            &format!(
                r#"{{"index":{index},"delta":{{"content":"{token}"}},"logprobs":{{"content":[{}],"refusal":null}}}}"#,
                entry(token)
            ),
            "",
        )
    };
    let completion = completion(&body(&[
        with_logprobs(0, "a"),
        with_logprobs(1, "x"),
        chunk_with(r#"{"index":0,"delta":{},"logprobs":null}"#, ""),
        with_logprobs(0, "b"),
        with_logprobs(1, "y"),
        finish(0, "stop"),
        finish(1, "stop"),
        DONE.into(),
    ]));
    let logprobs: Vec<Value> = completion
        .messages()
        .map(|message| Value::Object(message.response_metadata.logprobs.clone().unwrap()))
        .collect();
    assert_eq!(
        logprobs,
        [
            json!({"content": [entry("a"), entry("b")]}),
            json!({"content": [entry("x"), entry("y")]}),
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// Errors

#[test]
fn an_error_object_without_choices_is_a_provider_error_with_the_partial_message() {
    let error = failure(&body(&[
        text("Half an answer"),
        data(
            r#"{"error":{"message":"The server had an error","type":"server_error","param":null,"code":"internal"}}"#,
        ),
        DONE.into(),
    ]));
    assert_eq!(error.kind(), ErrorKind::Provider);
    let provider = error.provider_error().expect("the provider's error object");
    assert_eq!(provider.code.as_deref(), Some("internal"));
    assert_eq!(provider.kind.as_deref(), Some("server_error"));
    assert_eq!(provider.message, "The server had an error");
    assert!(
        error
            .to_string()
            .contains("internal: The server had an error"),
        "{error}"
    );
    let partial = partial_message(&error);
    assert_eq!(partial.text(), "Half an answer");
    assert!(partial.response_metadata.incomplete.is_some());
}

#[test]
fn an_error_object_with_choices_keeps_the_usage_and_metadata_of_that_payload() {
    let error = failure(&body(&[
        data(r#"{"id":"gen-9","choices":[{"index":0,"delta":{"content":"Once"}}]}"#),
        data(
            r#"{"id":"gen-9","model":"late-model","provider":"Together","error":{"code":502,"message":"Provider disconnected"},"choices":[{"index":0,"delta":{"content":" upon"},"finish_reason":"error"}],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}"#,
        ),
    ]));
    assert_eq!(error.kind(), ErrorKind::Provider);
    assert_eq!(error.provider_error().unwrap().code.as_deref(), Some("502"));
    let partial = partial_message(&error);
    assert_eq!(partial.text(), "Once upon");
    assert_eq!(
        partial.response_metadata.model_name.as_deref(),
        Some("late-model")
    );
    assert_eq!(partial.response_metadata.extra["provider"], "Together");
    let usage = partial
        .usage
        .as_ref()
        .expect("the usage of the error payload");
    assert_eq!((usage.input_tokens, usage.output_tokens), (9, 2));
}

#[test]
fn an_error_event_is_a_provider_error_with_code_type_and_message() {
    let stream = format!(
        "{}event: error\ndata: {}\n\n",
        delta(0, r#"{"reasoning":"Planning the call."}"#),
        r#"{"error":{"message":"Tool call validation failed","type":"invalid_request_error","code":"tool_use_failed"}}"#
    );
    let error = failure(&stream);
    assert_eq!(error.kind(), ErrorKind::Provider);
    let provider = error.provider_error().unwrap();
    assert_eq!(
        (
            provider.code.as_deref(),
            provider.kind.as_deref(),
            provider.message.as_str()
        ),
        (
            Some("tool_use_failed"),
            Some("invalid_request_error"),
            "Tool call validation failed"
        )
    );
    assert_eq!(partial_message(&error).reasoning(), "Planning the call.");

    let plain = failure(&format!(
        "{}event: error\ndata: upstream overloaded\n\n",
        text("hi")
    ));
    assert_eq!(plain.kind(), ErrorKind::Provider);
    assert_eq!(
        plain.provider_error().unwrap().message,
        "upstream overloaded"
    );
}

#[test]
fn a_later_finish_cannot_override_an_error() {
    let stream = body(&[
        text("partial"),
        data(r#"{"error":{"message":"overloaded","type":"server_error"}}"#),
        text(" more"),
        finish(0, "stop"),
        DONE.into(),
    ]);
    let mut assembler = Assembler::new();
    assembler.push(stream.as_bytes());
    let mut events = Vec::new();
    let error =
        drive::drain_into(&mut assembler, &mut events).expect_err("the error stops the stream");
    assert_eq!(error.kind(), ErrorKind::Provider);
    let partial = partial_message(&error);
    assert_eq!(partial.text(), "partial");
    assert!(partial.response_metadata.finish_reason.is_none());
    assert!(assembler.next_event().expect("nothing more").is_none());
    assembler.push(finish(0, "stop").as_bytes());
    assert!(assembler.next_event().expect("nothing more").is_none());
    assert!(
        !matches!(assembler.finish(), Ok(completion) if completion.complete),
        "finish after an error must not report a complete answer"
    );
}

// ---------------------------------------------------------------------------------------------
// Truncation

#[test]
fn a_stream_cut_before_done_and_the_finish_is_truncated_with_the_partial() {
    let error = failure(&body(&[text("cut"), text(" here")]));
    assert_eq!(error.kind(), ErrorKind::Truncated);
    assert!(error.to_string().contains("choice 0"), "{error}");
    let partial = partial_message(&error);
    assert_eq!(partial.text(), "cut here");
    assert!(partial
        .response_metadata
        .incomplete
        .as_deref()
        .is_some_and(|why| why.contains("truncated")));
}

#[test]
fn truncation_names_the_unfinished_choice_and_keeps_every_partial_message() {
    let error = failure(&body(&[
        delta(0, r#"{"content":"done"}"#),
        delta(1, r#"{"content":"still going"}"#),
        finish(0, "stop"),
    ]));
    assert_eq!(error.kind(), ErrorKind::Truncated);
    assert!(
        error.to_string().contains("while choice 1 was unfinished"),
        "{error}"
    );
    let partial = error.partial().expect("the partial result");
    let summary: Vec<(String, String, bool)> = partial
        .messages()
        .map(|message| {
            (
                message.text(),
                message.response_metadata.finish_reason.to_string(),
                message.response_metadata.incomplete.is_some(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("done".to_string(), "stop".to_string(), true),
            ("still going".to_string(), String::new(), true),
        ]
    );
}

#[test]
fn lenient_mode_returns_a_truncated_stream_as_an_incomplete_message() {
    let completion = run_with(
        &body(&[text("cut"), text(" here")]),
        Options::new().lenient(true),
    )
    .result
    .expect("lenient mode returns the message");
    assert!(!completion.complete);
    let message = completion.message().unwrap();
    assert_eq!(message.text(), "cut here");
    assert!(message
        .response_metadata
        .incomplete
        .as_deref()
        .is_some_and(|why| why.contains("without [DONE]")));
}

#[test]
fn a_stream_whose_choices_all_finished_is_complete_without_done() {
    let run = run(&body(&[text("all"), finish(0, "stop")]));
    assert_eq!(
        described(&run.events).last().map(String::as_str),
        Some("done")
    );
    assert!(run.result.expect("complete").complete);
}

#[test]
fn a_final_event_without_its_blank_line_is_processed_then_the_stream_is_truncated() {
    let stream = format!(
        "{}{}",
        text("almost"),
        finish(0, "stop").trim_end_matches('\n')
    );
    let error = failure(&stream);
    assert_eq!(error.kind(), ErrorKind::Truncated);
    let partial = partial_message(&error);
    assert_eq!(partial.text(), "almost");
    assert_eq!(partial.response_metadata.finish_reason, "stop");

    let lenient = run_with(&stream, Options::new().lenient(true))
        .result
        .expect("lenient mode returns the message");
    assert!(!lenient.complete);
    assert_eq!(
        lenient.message().unwrap().response_metadata.finish_reason,
        "stop"
    );
}

#[test]
fn a_stream_cut_inside_an_events_payload_is_truncated_not_malformed() {
    let stream = format!(
        "{}data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"lo",
        text("kept")
    );
    let error = failure(&stream);
    assert_eq!(error.kind(), ErrorKind::Truncated, "{error}");
    assert_eq!(partial_message(&error).text(), "kept");
}

#[test]
fn a_final_done_without_its_blank_line_is_a_clean_end() {
    let stream = format!("{}{}data: [DONE]", text("ok"), finish(0, "stop"));
    let completion = completion(&stream);
    assert!(completion.complete);
    assert_eq!(completion.into_message().text(), "ok");
}

// ---------------------------------------------------------------------------------------------
// Malformed payloads

#[test]
fn a_malformed_payload_names_its_event_byte_offset_and_a_snippet() {
    let first = text("fine");
    let broken = data(r#"{"choices":[{"index":0,"delta":{"content":"broken"}}"#);
    let stream = body(&[first.clone(), broken, text(" never read"), DONE.into()]);
    let error = failure(&stream);
    assert_eq!(error.kind(), ErrorKind::Malformed);
    let location = error.location().expect("a location");
    assert_eq!((location.event, location.offset), (2, first.len() as u64));
    let shown = error.to_string();
    assert!(shown.contains("EOF while parsing"), "{shown}");
    assert!(
        shown.contains(r#"{\"choices\":[{\"index\":0"#),
        "no snippet: {shown}"
    );
    assert!(
        shown.contains(&format!("event 2, byte {}", first.len())),
        "{shown}"
    );
    assert_eq!(partial_message(&error).text(), "fine");
}

#[test]
fn lenient_mode_skips_a_malformed_payload_with_a_warning() {
    let first = text("fine");
    let stream = body(&[
        first.clone(),
        data("{not json at all"),
        text(" and more"),
        finish(0, "stop"),
        DONE.into(),
    ]);
    let completion = run_with(&stream, Options::new().lenient(true))
        .result
        .expect("lenient mode skips the event");
    let message = completion.message().unwrap();
    assert_eq!(message.text(), "fine and more");
    assert_eq!(message.response_metadata.finish_reason, "stop");
    let warnings = &message.response_metadata.warnings;
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains(&format!("event 2 (byte {})", first.len())),
        "{warnings:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Limits

#[test]
fn too_many_tool_calls_is_a_limit_error_with_the_partial() {
    let error = failure_with(
        &body(&[
            tools(&[r#"{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}"#]),
            tools(&[r#"{"index":1,"id":"b","function":{"name":"f","arguments":"{}"}}"#]),
            tools(&[r#"{"index":2,"id":"c","function":{"name":"f","arguments":"{}"}}"#]),
            finish(0, "tool_calls"),
            DONE.into(),
        ]),
        Options::new().max_tool_calls(2),
    );
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    assert!(error.to_string().contains("max_tool_calls"), "{error}");
    assert_eq!(partial_message(&error).tool_calls().count(), 2);
}

#[test]
fn too_many_choices_is_a_limit_error_with_the_partial() {
    let error = failure_with(
        &body(&[
            delta(0, r#"{"content":"zero"}"#),
            delta(1, r#"{"content":"one"}"#),
            DONE.into(),
        ]),
        Options::new().max_choices(1),
    );
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    assert!(error.to_string().contains("max_choices"), "{error}");
    let partial = error.partial().unwrap();
    assert_eq!(partial.choices.len(), 1);
    assert_eq!(partial.choices[0].message.text(), "zero");
}

#[test]
fn too_much_content_is_a_limit_error_with_the_partial() {
    let error = failure_with(
        &body(&[text("hello"), text("world!"), DONE.into()]),
        Options::new().max_message_bytes(10),
    );
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    assert!(error.to_string().contains("max_message_bytes"), "{error}");
    assert_eq!(partial_message(&error).text(), "hello");
}

#[test]
fn an_oversized_event_is_a_limit_error_with_the_partial() {
    let small = data(r#"{"choices":[{"index":0,"delta":{"content":"ok"}}]}"#);
    let large = text(&"x".repeat(500));
    let error = failure_with(
        &body(&[small.clone(), large, DONE.into()]),
        Options::new().max_event_bytes(small.len() + 10),
    );
    assert_eq!(error.kind(), ErrorKind::LimitExceeded);
    assert_eq!(
        error.location().map(|at| at.offset),
        Some(small.len() as u64)
    );
    assert_eq!(partial_message(&error).text(), "ok");
}

// ---------------------------------------------------------------------------------------------
// Events

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
            "text 0 Hi",
            "text 0  there.",
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
            "choice_finished 0 stop",
            "done",
        ]
    );
}

#[test]
fn url_citations_in_the_delta_become_annotations_on_the_text() {
    let body = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"See the docs.\"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"annotations\":[{\"type\":\"url_citation\",\"url_citation\":{\"start_index\":4,\"end_index\":12,\"url\":\"https://example.com\",\"title\":\"Docs\"}}]},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let message = deltafold::assemble(body.as_bytes(), deltafold::Options::new())
        .unwrap()
        .into_message();
    let deltafold::ContentBlock::Text { text, annotations } = &message.content[0] else {
        panic!("expected a text block, got {:?}", message.content);
    };
    assert_eq!(text, "See the docs.");
    assert_eq!(annotations.len(), 1);
    assert_eq!(annotations[0]["url_citation"]["url"], "https://example.com");
}

/// Chunks that repeat the previous chunk's bytes before `"choices":` are read from their choices
/// on; these check that the shortcut reads everything after the choices and rejects what a full
/// parse rejects, applying nothing of a rejected chunk.
mod repeated_prefix {
    use deltafold::{Assembler, ErrorKind, Options};

    const PREFIX: &str =
        r#"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":"#;

    fn chunk(choices: &str, after: &str) -> String {
        format!("data: {PREFIX}{choices}{after}\n\n")
    }

    fn text(content: &str) -> String {
        format!(r#"[{{"index":0,"delta":{{"content":"{content}"}}}}]"#)
    }

    #[test]
    fn members_after_the_choices_are_applied() {
        let body = [
            chunk(&text("a"), "}"),
            chunk(&text("b"), r#","obfuscation":"xy"}"#),
            chunk(
                r#"[{"index":0,"delta":{},"finish_reason":"stop"}]"#,
                r#","usage":{"prompt_tokens":3,"completion_tokens":2},"provider":"P"}"#,
            ),
            "data: [DONE]\n\n".to_owned(),
        ]
        .concat();
        let message = deltafold::assemble(body.as_bytes(), Options::new())
            .unwrap()
            .into_message();
        assert_eq!(message.text(), "ab");
        assert_eq!(message.usage.unwrap().total_tokens, 5);
        assert_eq!(message.response_metadata.extra["provider"], "P");
        assert_eq!(message.response_metadata.finish_reason, "stop");
    }

    #[test]
    fn trailing_garbage_after_a_repeated_prefix_is_malformed() {
        let body = [chunk(&text("a"), "}"), chunk(&text("b"), "}garbage")].concat();
        let error = deltafold::assemble(body.as_bytes(), Options::new()).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Malformed, "{error}");
        assert_eq!(error.location().unwrap().event, 2);
        assert_eq!(error.partial().unwrap().message().unwrap().text(), "a");
    }

    #[test]
    fn a_rejected_chunk_applies_nothing_in_lenient_mode() {
        let body = [
            chunk(&text("a"), "}"),
            chunk(&text("LOST"), r#","usage":}"#),
            chunk(
                r#"[{"index":0,"delta":{"content":"c"},"finish_reason":"stop"}]"#,
                "}",
            ),
            "data: [DONE]\n\n".to_owned(),
        ]
        .concat();
        let mut assembler = Assembler::with_options(Options::new().lenient(true));
        assembler.feed(body.as_bytes()).unwrap();
        let message = assembler.finish().unwrap().into_message();
        assert_eq!(message.text(), "ac");
        assert_eq!(message.response_metadata.warnings.len(), 1);
    }
}
