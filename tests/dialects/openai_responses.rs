//! The OpenAI Responses dialect: its fixtures replayed, then its rules — errors, function-call
//! arguments completed by their `done` events, incomplete responses.

use deltafold::message::{ContentBlock, MediaSource, ServerToolStatus};
use deltafold::{Event, Options};
use serde_json::{json, Value};

use crate::{assemble, created, replay_fixtures_of, sse};

#[test]
fn every_fixture_replays_to_its_expected_message() {
    replay_fixtures_of("openai-responses");
}

#[test]
fn error_waits_for_response_failed_or_the_end_of_input() {
    let error_event = json!({"type": "error", "code": "server_error", "message": "boom", "param": null, "sequence_number": 1});
    let failed = json!({"type": "response.failed", "response": {"id": "resp_1", "status": "failed", "error": {"code": "server_error", "message": "boom"}}});
    let error = assemble(&sse(&[created(), error_event.clone(), failed])).unwrap_err();
    assert!(error.is_provider());
    assert_eq!(error.provider_error().unwrap().message, "boom");
    let partial = error.partial().unwrap().message().unwrap();
    assert_eq!(partial.response_metadata.finish_reason, "failed");

    let error = assemble(&sse(&[created(), error_event])).unwrap_err();
    assert!(error.is_provider(), "{error}");
    assert_eq!(
        error.provider_error().unwrap().code.as_deref(),
        Some("server_error")
    );
}

#[test]
fn arguments_done_completes_what_the_deltas_left_out() {
    let body = sse(&[
        created(),
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": ""}}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc_1", "delta": "{\"a\":"}),
        json!({"type": "response.function_call_arguments.done", "output_index": 0, "item_id": "fc_1", "arguments": "{\"a\":1}"}),
        json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "g", "arguments": ""}}),
        json!({"type": "response.output_item.done", "output_index": 1, "item": {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "g", "arguments": "{\"b\":2}"}}),
        json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}}),
    ]);
    let message = assemble(&body).unwrap().into_message();
    let calls: Vec<_> = message
        .tool_calls()
        .map(|c| (c.id.clone(), Value::Object(c.args.clone())))
        .collect();
    assert_eq!(
        calls,
        [
            ("call_1".to_owned(), json!({"a": 1})),
            ("call_2".to_owned(), json!({"b": 2}))
        ]
    );
    assert_eq!(message.response_metadata.finish_reason, "completed");
}

#[test]
fn incomplete_is_a_complete_stream_whose_finish_reason_says_why() {
    let body = sse(&[
        created(),
        json!({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "Once upon"}),
        json!({"type": "response.incomplete", "response": {"id": "resp_1", "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}}),
    ]);
    let completion = assemble(&body).unwrap();
    assert!(completion.complete);
    assert_eq!(
        completion
            .message()
            .unwrap()
            .response_metadata
            .finish_reason,
        "max_output_tokens"
    );
    let truncated = sse(&[created()]);
    assert!(assemble(&truncated).unwrap_err().is_truncated());
}

#[test]
fn an_output_index_past_u32_is_malformed_not_merged() {
    let body = sse(&[
        created(),
        json!({"type": "response.output_item.added", "output_index": 4294967296u64, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": ""}}),
        json!({"type": "response.output_item.added", "output_index": 4294967297u64, "item": {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "g", "arguments": ""}}),
        json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}}),
    ]);
    let error = assemble(&body).unwrap_err();
    assert_eq!(error.kind(), deltafold::ErrorKind::Malformed, "{error}");
    assert!(error.to_string().contains("4294967296"), "{error}");
}

#[test]
fn closing_events_give_the_text_the_deltas_did_not_add_up_to_with_a_warning() {
    let message_item = |text: &str| json!({"type": "message", "id": "msg_1", "role": "assistant", "content": [{"type": "output_text", "text": text, "annotations": []}]});
    let text_done = |text: &str| json!({"type": "response.output_text.done", "output_index": 0, "content_index": 0, "item_id": "msg_1", "text": text});
    let completed = |text: &str| json!({"type": "response.completed", "response": {"id": "resp_final", "status": "completed", "output": [message_item(text)]}});
    let stream = |events: Vec<Value>| {
        let mut all = vec![
            created(),
            json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []}}),
            json!({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "item_id": "msg_1", "delta": "Hello"}),
        ];
        all.extend(events);
        assemble(&sse(&all)).unwrap().into_message()
    };
    // Deltas that add up: nothing to reconcile, no warning.
    let message = stream(vec![
        text_done("Hello"),
        json!({"type": "response.output_item.done", "output_index": 0, "item": message_item("Hello")}),
        completed("Hello"),
    ]);
    assert_eq!(message.text(), "Hello");
    assert!(message.response_metadata.warnings.is_empty());
    // Deltas dropped at the end: completed by `output_text.done`, once.
    let message = stream(vec![
        text_done("Hello, world"),
        json!({"type": "response.content_part.done", "output_index": 0, "content_index": 0, "item_id": "msg_1", "part": {"type": "output_text", "text": "Hello, world"}}),
        completed("Hello, world"),
    ]);
    assert_eq!(message.text(), "Hello, world");
    assert_eq!(message.response_metadata.warnings.len(), 1);
    // Deltas sampled: only `response.completed` says what the text was.
    let message = stream(vec![completed("Help is here")]);
    assert_eq!(message.text(), "Help is here");
    assert_eq!(message.response_metadata.warnings.len(), 1);
    assert!(
        message.response_metadata.warnings[0].contains("final text"),
        "{:?}",
        message.response_metadata.warnings
    );
    // The terminal event's id wins over the one `response.created` named.
    assert_eq!(message.response_metadata.id.as_deref(), Some("resp_final"));
    assert_eq!(message.id.as_deref(), Some("resp_final"));
}

#[test]
fn a_custom_tool_call_is_a_tool_call_with_its_input_as_the_single_argument() {
    let input = "<main>\"hi\"</main>";
    let item = |input: &str| json!({"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_1", "name": "setHtml", "input": input, "status": "in_progress"});
    let delta = |delta: &str| json!({"type": "response.custom_tool_call_input.delta", "output_index": 0, "item_id": "ctc_1", "delta": delta});
    let streams = [
        // With its `.done`, its item done and the completed response.
        vec![
            delta("<main>\"hi\""),
            delta("</main>"),
            json!({"type": "response.custom_tool_call_input.done", "output_index": 0, "item_id": "ctc_1", "input": input}),
            json!({"type": "response.output_item.done", "output_index": 0, "item": item(input)}),
        ],
        // Only the deltas, then the item done by id.
        vec![
            delta("<main>\"hi\""),
            delta("</main>"),
            json!({"type": "response.output_item.done", "output_index": 0, "item": item(input)}),
        ],
    ];
    for events in streams {
        let mut all = vec![
            created(),
            json!({"type": "response.output_item.added", "output_index": 0, "item": item("")}),
        ];
        all.extend(events);
        all.push(json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": [item(input)]}}));
        let message = assemble(&sse(&all)).unwrap().into_message();
        let calls: Vec<_> = message
            .tool_calls()
            .map(|call| {
                (
                    call.id.clone(),
                    call.name.clone(),
                    Value::Object(call.args.clone()),
                )
            })
            .collect();
        assert_eq!(
            calls,
            [(
                "call_1".to_owned(),
                "setHtml".to_owned(),
                json!({"__arg1": input})
            )]
        );
        assert!(message.invalid_tool_calls().next().is_none());
    }
}

#[test]
fn a_whole_response_body_reads_as_its_stream() {
    let body = json!({"id": "resp_1", "object": "response", "created_at": 1, "status": "completed", "model": "gpt-4.1",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Thinking."}]},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "Hi there", "annotations": []}]},
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "{\"a\":1}", "status": "completed"}
        ],
        "usage": {"input_tokens": 5, "output_tokens": 7, "total_tokens": 12}});
    // One line: framed as one NDJSON line, and no longer taken for Ollama's.
    let one_line = format!("{body}\n");
    let mut assembler = deltafold::Assembler::new();
    assembler.push(one_line.as_bytes());
    let mut events = Vec::new();
    while let Some(event) = assembler.next_event().unwrap() {
        events.push(event.into_owned());
    }
    assert_eq!(
        assembler.dialect(),
        Some(deltafold::Dialect::OpenAiResponses)
    );
    let message = assembler.finish().unwrap().into_message();
    assert_eq!(message.text(), "Hi there");
    assert_eq!(message.reasoning(), "Thinking.");
    let call = message.tool_calls().next().unwrap();
    assert_eq!(
        (call.name.as_str(), Value::Object(call.args.clone())),
        ("f", json!({"a": 1}))
    );
    assert_eq!(message.response_metadata.finish_reason, "completed");
    assert_eq!(
        message.usage.as_ref().map(|usage| usage.total_tokens),
        Some(12)
    );
    assert!(
        message.response_metadata.warnings.is_empty(),
        "{:?}",
        message.response_metadata.warnings
    );
    assert!(events.iter().any(
        |event| matches!(event, deltafold::Event::TextDelta { text, .. } if text == "Hi there")
    ));
    assert!(events
        .iter()
        .any(|event| matches!(event, deltafold::Event::ToolCallFinished { .. })));
    assert!(matches!(events.last(), Some(deltafold::Event::Done)));
}

#[test]
fn item_ids_the_dialect_keeps_count_against_max_message_bytes() {
    let limited = deltafold::Options::new().max_message_bytes(64 * 1024);
    let mut events = vec![created()];
    for index in 0..8 {
        let id = format!("{index}{}", "i".repeat(16 * 1024));
        events.push(json!({"type": "response.output_item.added", "output_index": index, "item": {"type": "message", "id": id, "content": []}}));
    }
    let error = deltafold::assemble(sse(&events).as_bytes(), limited).unwrap_err();
    assert_eq!(error.kind(), deltafold::ErrorKind::LimitExceeded, "{error}");
}

/// An image generation call with `count` partial images of `size` bytes each, then its result.
fn image_generation(count: usize, size: usize) -> String {
    let mut events = vec![
        created(),
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"id": "ig_1", "type": "image_generation_call", "status": "in_progress"}}),
        json!({"type": "response.image_generation_call.in_progress", "output_index": 0, "item_id": "ig_1"}),
        json!({"type": "response.image_generation_call.generating", "output_index": 0, "item_id": "ig_1"}),
    ];
    for index in 0..count {
        let data = char::from(b'A' + (index % 26) as u8)
            .to_string()
            .repeat(size);
        events.push(json!({"type": "response.image_generation_call.partial_image", "output_index": 0, "item_id": "ig_1", "partial_image_index": index, "partial_image_b64": data, "output_format": "webp"}));
    }
    events.push(json!({"type": "response.image_generation_call.completed", "output_index": 0, "item_id": "ig_1"}));
    events.push(json!({"type": "response.output_item.done", "output_index": 0, "item": {"id": "ig_1", "type": "image_generation_call", "status": "completed", "output_format": "webp", "result": "Zg=="}}));
    events.push(
        json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}}),
    );
    sse(&events)
}

#[test]
fn partial_images_are_live_events_and_the_message_keeps_the_final_image() {
    let body = image_generation(3, 8);
    let run = crate::replay::run([body.as_bytes()], Options::new());
    let partials: Vec<(u32, String, String)> = run
        .events
        .iter()
        .filter_map(|event| match event {
            Event::ServerToolPartialImage {
                id,
                index,
                mime_type,
                data,
                ..
            } if id == "ig_1" => Some((*index, mime_type.to_string(), data.to_string())),
            _ => None,
        })
        .collect();
    assert_eq!(
        partials,
        [
            (0, "image/webp".into(), "A".repeat(8)),
            (1, "image/webp".into(), "B".repeat(8)),
            (2, "image/webp".into(), "C".repeat(8)),
        ]
    );
    let progress: Vec<ServerToolStatus> = run
        .events
        .iter()
        .filter_map(|event| match event {
            Event::ServerToolCallProgress { status, .. } => Some(*status),
            _ => None,
        })
        .collect();
    assert_eq!(
        progress,
        [
            ServerToolStatus::InProgress,
            ServerToolStatus::Generating,
            ServerToolStatus::Completed
        ]
    );
    let message = run.result.unwrap().into_message();
    let images: Vec<_> = message
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Image(media) => Some(media),
            _ => None,
        })
        .collect();
    assert_eq!(images.len(), 1, "{:?}", message.content);
    assert_eq!(images[0].source, MediaSource::Base64("Zg==".into()));
}

#[test]
fn many_large_partial_images_are_charged_as_one() {
    // 1,000 partials of 64 kB: 64 MB streamed, one partial held at a time.
    let body = image_generation(1000, 64 * 1024);
    let options = Options::new().max_message_bytes(512 * 1024);
    let run = crate::replay::run([body.as_bytes()], options.clone());
    let completion = run.result.expect("one partial at a time fits the budget");
    assert_eq!(completion.message().unwrap().content.len(), 2);
    // A budget smaller than one partial refuses it.
    let small = Options::new().max_message_bytes(32 * 1024);
    let error = crate::replay::run([body.as_bytes()], small)
        .result
        .unwrap_err();
    assert_eq!(error.kind(), deltafold::ErrorKind::LimitExceeded);
}

#[test]
fn progress_events_name_their_call_and_status() {
    let body = sse(&[
        created(),
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"id": "ws_1", "type": "web_search_call", "status": "in_progress"}}),
        json!({"type": "response.web_search_call.in_progress", "output_index": 0, "item_id": "ws_1"}),
        json!({"type": "response.web_search_call.searching", "output_index": 0, "item_id": "ws_1"}),
        json!({"type": "response.web_search_call.completed", "item_id": "ws_1"}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": {"id": "ws_1", "type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "rust"}}}),
        // After its item is done, a report for the call is dropped.
        json!({"type": "response.web_search_call.searching", "output_index": 0, "item_id": "ws_1"}),
        json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}}),
    ]);
    let run = crate::replay::run([body.as_bytes()], Options::new());
    let progress: Vec<(String, ServerToolStatus)> = run
        .events
        .iter()
        .filter_map(|event| match event {
            Event::ServerToolCallProgress { id, status, .. } => Some((id.to_string(), *status)),
            _ => None,
        })
        .collect();
    let ws = |status| ("ws_1".to_owned(), status);
    assert_eq!(
        progress,
        [
            ws(ServerToolStatus::InProgress),
            ws(ServerToolStatus::Searching),
            ws(ServerToolStatus::Completed)
        ]
    );
    assert!(run.result.is_ok());
}

#[test]
fn recorded_streams_of_built_in_tools_read_into_typed_blocks() {
    // Real recordings (research for issue 12), read only where the folder exists.
    let dir = std::path::Path::new("../research12/openai_responses");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("sse") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let run = crate::replay::run([bytes.as_slice()], Options::new().lenient(true));
        let completion = run.completion().unwrap_or_else(|| panic!("{name}"));
        let message = &completion.choices[0].message;
        let standard = message
            .content
            .iter()
            .all(|block| !matches!(block, ContentBlock::NonStandard { .. }));
        assert!(standard, "{name}: {:?}", message.content);
        let progress = run
            .events
            .iter()
            .filter(|event| matches!(event, Event::ServerToolCallProgress { .. }))
            .count();
        assert!(progress >= 2, "{name}: {progress} progress events");
        if name.starts_with("image_generation") {
            assert!(run
                .events
                .iter()
                .any(|event| matches!(event, Event::ServerToolPartialImage { .. })));
        }
    }
}

/// A delta sent twice (a proxy's retry), then `output_text.done` with the true text: the
/// message keeps the final text, and the live view is told what to show instead of the doubled
/// text — found by the `pipeline` fuzz target, whose oracle is that the events add up to the
/// message.
#[test]
fn a_repeated_delta_is_replaced_by_the_final_text_live_too() {
    let delta = |text: &str| json!({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "item_id": "msg_1", "delta": text});
    let bytes = sse(&[
        created(),
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []}}),
        delta("Hi there"),
        delta("Hi there"),
        delta(", world"),
        json!({"type": "response.output_text.done", "output_index": 0, "content_index": 0, "item_id": "msg_1", "text": "Hi there, world"}),
        delta("!"),
        json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": [{"type": "message", "id": "msg_1", "role": "assistant", "content": [{"type": "output_text", "text": "Hi there, world!", "annotations": []}]}]}}),
    ]);
    let mut assembler = deltafold::Assembler::with_options(Options::new());
    assembler.push(bytes.as_bytes());
    assembler.end_input();
    let mut shown = String::new();
    let mut replaced = Vec::new();
    while let Some(event) = assembler.next_event().unwrap() {
        match event {
            Event::TextDelta { text, .. } => shown.push_str(&text),
            Event::TextReplaced { choice, text } => {
                assert_eq!(choice, 0);
                replaced.push(text.to_string());
                shown = text.into_owned();
            }
            _ => {}
        }
    }
    assert_eq!(replaced, ["Hi there, world"]);
    let message = assembler.finish().unwrap().into_message();
    assert_eq!(message.text(), "Hi there, world!");
    assert_eq!(shown, message.text());
    assert_eq!(message.response_metadata.warnings.len(), 1);
}
