//! The shapes the official SDKs need to read a re-encoded stream back as the same message
//! (found with `scripts/sdk-readback/`, checked here without Python): a refusal's stop reason,
//! a finish reason the source never sent, calls that start without an id, a second choice that
//! comes first, and usage that counts reasoning apart.

use std::path::Path;

use deltafold::encode::{response_json, Encoder, Target};
use deltafold::message::ContentBlock;
use deltafold::{Assembler, Completion};
use serde_json::{Map, Value};

/// `body` re-encoded live into `target`: each event's `event:` name and parsed `data:`
/// (`[DONE]` as a string), and the completion it assembled to.
fn encode(body: &[u8], target: Target) -> (Vec<(Option<String>, Value)>, Completion) {
    let mut assembler = Assembler::new();
    let mut encoder = Encoder::new(target);
    let mut out = String::new();
    assembler.push(body);
    assembler.end_input();
    while let Some(event) = assembler.next_event().unwrap() {
        let event = event.into_owned();
        encoder.encode(&event, &assembler, &mut out);
    }
    encoder.finish(&mut out);
    let completion = assembler.finish().unwrap();
    let events = out
        .split_terminator("\n\n")
        .map(|block| {
            let mut name = None;
            let mut data = Value::Null;
            for line in block.lines() {
                if let Some(rest) = line.strip_prefix("event: ") {
                    name = Some(rest.to_owned());
                } else if let Some(rest) = line.strip_prefix("data: ") {
                    data = serde_json::from_str(rest).unwrap_or_else(|_| Value::from(rest));
                }
            }
            (name, data)
        })
        .collect();
    (events, completion)
}

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(path),
    )
    .unwrap()
}

fn of_type<'a>(events: &'a [(Option<String>, Value)], kind: &str) -> Vec<&'a Value> {
    events
        .iter()
        .map(|(_, data)| data)
        .filter(|data| data["type"] == kind)
        .collect()
}

/// Every tool-call entry of an OpenAI chunk stream's deltas, in order.
fn chunk_tool_calls(events: &[(Option<String>, Value)]) -> Vec<Value> {
    events
        .iter()
        .flat_map(|(_, data)| data["choices"].as_array().cloned().unwrap_or_default())
        .flat_map(|choice| {
            choice["delta"]["tool_calls"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect()
}

/// Every `finish_reason` of an OpenAI chunk stream, by choice index.
fn chat_finishes(events: &[(Option<String>, Value)]) -> Vec<(u64, String)> {
    events
        .iter()
        .flat_map(|(_, data)| data["choices"].as_array().cloned().unwrap_or_default())
        .filter_map(|choice| {
            let reason = choice["finish_reason"].as_str()?.to_owned();
            Some((choice["index"].as_u64()?, reason))
        })
        .collect()
}

#[test]
fn a_refusal_under_a_plain_stop_is_said_by_the_targets_without_a_refusal_field() {
    let body = fixture("openai/refusal.sse");
    let (events, completion) = encode(&body, Target::Anthropic);
    let delta = of_type(&events, "message_delta");
    assert_eq!(delta[0]["delta"]["stop_reason"], "refusal");
    let json = response_json(Target::Anthropic, &completion);
    assert_eq!(json["stop_reason"], "refusal");
    assert_eq!(json["content"][0]["type"], "text");

    let (events, _) = encode(&body, Target::Gemini);
    let reasons: Vec<&Value> = events
        .iter()
        .filter_map(|(_, data)| data["candidates"][0].get("finishReason"))
        .collect();
    assert_eq!(reasons, ["SAFETY"]);
    let json = response_json(Target::Gemini, &completion);
    assert_eq!(json["candidates"][0]["finishReason"], "SAFETY");

    // OpenAI's own shape: the refusal in its field, the stop kept (`content_filter` would make
    // the SDK's `get_final_completion` raise on an answer OpenAI itself ends with `stop`).
    let (events, _) = encode(&body, Target::OpenAiChat);
    assert_eq!(chat_finishes(&events), [(0, "stop".to_owned())]);
    let json = response_json(Target::OpenAiChat, &completion);
    assert_eq!(json["choices"][0]["finish_reason"], "stop");
    assert_eq!(
        json["choices"][0]["message"]["refusal"],
        "I'm sorry, but I can't help with that."
    );
    let (events, _) = encode(&body, Target::OpenAiResponses);
    let completed = of_type(&events, "response.completed");
    assert_eq!(completed[0]["response"]["status"], "completed");
    assert_eq!(
        completed[0]["response"]["output"][0]["content"][0]["type"],
        "refusal"
    );
}

/// A stream that asks for a tool call and ends (`[DONE]`) without any finish reason.
const NO_FINISH_REASON: &str = concat!(
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]},\"finish_reason\":null}]}\n\n",
    "data: [DONE]\n\n",
);

#[test]
fn a_choice_the_source_ended_without_a_reason_gets_the_tool_call_reason() {
    let (events, completion) = encode(NO_FINISH_REASON.as_bytes(), Target::OpenAiChat);
    // `finish_reason` is required in a chat completion: the last chunk before `[DONE]` says it.
    assert_eq!(chat_finishes(&events), [(0, "tool_calls".to_owned())]);
    assert_eq!(events.last().unwrap().1, "[DONE]");
    let json = response_json(Target::OpenAiChat, &completion);
    assert_eq!(json["choices"][0]["finish_reason"], "tool_calls");

    let (events, _) = encode(NO_FINISH_REASON.as_bytes(), Target::Anthropic);
    assert_eq!(
        of_type(&events, "message_delta")[0]["delta"]["stop_reason"],
        "tool_use"
    );
    let json = response_json(Target::Anthropic, &completion);
    assert_eq!(json["stop_reason"], "tool_use");
}

#[test]
fn calls_that_start_without_an_id_go_out_with_the_id_the_message_gives_them() {
    let body = fixture("gemini/partial_args_streamed_calls.sse");
    let ids = ["call_df_0", "call_df_1"];

    let (events, _) = encode(&body, Target::OpenAiChat);
    let calls = chunk_tool_calls(&events);
    // One chunk per call, with its id, name and whole arguments; no fragment without them.
    assert_eq!(calls.len(), 2, "{calls:?}");
    for (call, id) in calls.iter().zip(ids) {
        assert_eq!(call["id"], id);
        let args: Map<String, Value> =
            serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
        assert!(!args.is_empty());
    }

    let (events, _) = encode(&body, Target::Anthropic);
    let starts: Vec<&Value> = of_type(&events, "content_block_start")
        .into_iter()
        .filter(|start| start["content_block"]["type"] == "tool_use")
        .collect();
    let started: Vec<&Value> = starts
        .iter()
        .map(|start| &start["content_block"]["id"])
        .collect();
    assert_eq!(started, ids);

    // Responses matches items by `call_id`: two empty ones are "conflicting output identities".
    let (events, _) = encode(&body, Target::OpenAiResponses);
    let added: Vec<&Value> = of_type(&events, "response.output_item.added")
        .into_iter()
        .map(|added| &added["item"]["call_id"])
        .filter(|call_id| !call_id.is_null())
        .collect();
    assert_eq!(added, ids);
}

#[test]
fn the_first_choice_is_index_0_even_when_another_comes_first() {
    let body = fixture("openai/n2_out_of_order.sse");
    let (_, completion) = encode(&body, Target::OpenAiChat);
    let first = completion.choices[0].message.text();

    // Clients take the index for the position in `choices`: choice 0 opens first.
    let (events, _) = encode(&body, Target::OpenAiChat);
    let mut opened = Vec::new();
    for (_, data) in &events {
        for choice in data["choices"].as_array().into_iter().flatten() {
            let index = choice["index"].as_u64().unwrap();
            if !opened.contains(&index) {
                opened.push(index);
            }
        }
    }
    assert_eq!(opened, [0, 1]);

    let (events, _) = encode(&body, Target::Anthropic);
    let text: String = of_type(&events, "content_block_delta")
        .iter()
        .filter_map(|delta| delta["delta"]["text"].as_str())
        .collect();
    assert_eq!(text, first);

    let (events, _) = encode(&body, Target::OpenAiResponses);
    let text: String = of_type(&events, "response.output_text.delta")
        .iter()
        .filter_map(|delta| delta["delta"].as_str())
        .collect();
    assert_eq!(text, first);
}

#[test]
fn gemini_candidates_are_the_output_when_the_source_counted_reasoning_apart() {
    // xAI's usage: total = prompt + completion + reasoning.
    let body = concat!(
        "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"grok\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\n",
        "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"grok\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5,\"total_tokens\":18,\"completion_tokens_details\":{\"reasoning_tokens\":3}}}\n\n",
        "data: [DONE]\n\n",
    );
    let (events, completion) = encode(body.as_bytes(), Target::Gemini);
    let usage = events
        .iter()
        .rev()
        .find_map(|(_, data)| data.get("usageMetadata"))
        .unwrap();
    assert_eq!(usage["candidatesTokenCount"], 5);
    assert_eq!(usage["thoughtsTokenCount"], 3);
    assert_eq!(usage["totalTokenCount"], 18);
    let json = response_json(Target::Gemini, &completion);
    assert_eq!(json["usageMetadata"]["candidatesTokenCount"], 5);

    // Reasoning inside the output (OpenAI's convention): candidates exclude it.
    let body = body.replace("\"total_tokens\":18", "\"total_tokens\":15");
    let (_, completion) = encode(body.as_bytes(), Target::Gemini);
    let json = response_json(Target::Gemini, &completion);
    assert_eq!(json["usageMetadata"]["candidatesTokenCount"], 2);
    assert_eq!(json["usageMetadata"]["thoughtsTokenCount"], 3);
}

/// Another provider's server-side tools into Anthropic: only the tools Anthropic names in a
/// `server_tool_use` block go out (its SDK refuses any other name), and a result's content is
/// in Anthropic's shape (a code run's output as a `code_execution_result`), live and whole.
#[test]
fn foreign_server_tools_go_to_anthropic_in_its_shapes_or_not_at_all() {
    let names = [
        "web_search",
        "web_fetch",
        "code_execution",
        "bash_code_execution",
    ];
    for path in [
        "gemini/code_execution.sse",
        "gemini/url_context_failed_page_off_by_one.sse",
        "openai-responses/server_tools.sse",
    ] {
        let (events, completion) = encode(&fixture(path), Target::Anthropic);
        let live = of_type(&events, "content_block_start")
            .into_iter()
            .map(|start| start["content_block"].clone());
        let json = response_json(Target::Anthropic, &completion);
        let whole = json["content"].as_array().unwrap().iter().cloned();
        for block in live.chain(whole) {
            match block["type"].as_str().unwrap() {
                "server_tool_use" => {
                    let name = block["name"].as_str().unwrap();
                    assert!(names.contains(&name), "{path}: {block}");
                }
                "code_execution_tool_result" => {
                    let content = &block["content"];
                    assert_eq!(content["type"], "code_execution_result", "{path}: {block}");
                    assert!(content["stdout"]
                        .as_str()
                        .is_some_and(|out| !out.is_empty()));
                    assert!(content["return_code"].is_i64(), "{path}: {block}");
                }
                "mcp_tool_result" => assert!(block["content"].is_string(), "{path}: {block}"),
                _ => {}
            }
        }
    }
}

#[test]
fn responses_items_go_out_with_the_sources_item_ids_and_phase() {
    for path in [
        "openai-responses/phase_and_item_ids.sse",
        "openai-responses/rotating_encryption_refusal.sse",
    ] {
        let (events, completion) = encode(&fixture(path), Target::OpenAiResponses);
        let source = deltafold::assemble(&fixture(path), deltafold::Options::new()).unwrap();
        let added: Vec<&Value> = of_type(&events, "response.output_item.added")
            .into_iter()
            .map(|event| &event["item"])
            .collect();
        let done = of_type(&events, "response.output_item.done");
        let completed = &of_type(&events, "response.completed")[0]["response"]["output"];
        for (at, item) in added.iter().enumerate() {
            let id = item["id"].as_str().unwrap();
            assert!(!id.contains("_df_"), "{path}: generated id {id}");
            assert_eq!(done[at]["item"]["id"], id, "{path}");
            assert_eq!(completed[at]["id"], id, "{path}");
            if item["type"] == "message" {
                assert_eq!(item["phase"], done[at]["item"]["phase"], "{path}");
                assert_eq!(completed[at]["phase"], item["phase"], "{path}");
            }
            // Every delta of the item names it.
            for (_, event) in &events {
                if event["output_index"] == at && event.get("item_id").is_some() {
                    assert_eq!(event["item_id"], id, "{path}: {event}");
                }
            }
        }
        // Read back, the message keeps the same ids and phase.
        assert_eq!(
            completion.message().unwrap().content,
            source.message().unwrap().content,
            "{path}"
        );
        // And the non-streamed response carries them too.
        let body = response_json(Target::OpenAiResponses, &completion);
        let ids: Vec<&Value> = body["output"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| &item["id"])
            .collect();
        let streamed: Vec<&Value> = added.iter().map(|item| &item["id"]).collect();
        assert_eq!(ids, streamed, "{path}");
    }
}

#[test]
fn two_parts_of_one_responses_message_stay_one_item() {
    let body = br#"data: {"type":"response.created","response":{"id":"resp_p2","object":"response","created_at":1,"status":"in_progress","model":"gpt-5","output":[]}}

data: {"type":"response.output_item.added","output_index":0,"item":{"id":"msg_p2","type":"message","status":"in_progress","role":"assistant","phase":"final_answer","content":[]}}

data: {"type":"response.output_text.delta","item_id":"msg_p2","output_index":0,"content_index":0,"delta":"One."}

data: {"type":"response.output_text.delta","item_id":"msg_p2","output_index":0,"content_index":1,"delta":"Two."}

data: {"type":"response.completed","response":{"id":"resp_p2","object":"response","created_at":1,"status":"completed","model":"gpt-5","output":[{"id":"msg_p2","type":"message","status":"completed","role":"assistant","phase":"final_answer","content":[{"type":"output_text","text":"One.","annotations":[]},{"type":"output_text","text":"Two.","annotations":[]}]}]}}

"#;
    let (events, completion) = encode(body, Target::OpenAiResponses);
    let added = of_type(&events, "response.output_item.added");
    assert_eq!(added.len(), 1);
    assert_eq!(added[0]["item"]["id"], "msg_p2");
    assert_eq!(added[0]["item"]["phase"], "final_answer");
    let parts = of_type(&events, "response.content_part.added");
    let indexes: Vec<&Value> = parts.iter().map(|part| &part["content_index"]).collect();
    assert_eq!(indexes, [0, 1]);
    let content = &completion.message().unwrap().content;
    assert_eq!(content.len(), 2);
    for block in content {
        let block = serde_json::to_value(block).unwrap();
        assert_eq!(
            (&block["id"], &block["phase"]),
            (&Value::from("msg_p2"), &Value::from("final_answer"))
        );
    }
}

#[test]
fn a_custom_tool_call_goes_out_as_one_in_the_chunk_stream_and_the_body() {
    let body = fixture("openai/custom_tool_call.sse");
    let (events, completion) = encode(&body, Target::OpenAiChat);
    let calls: Vec<Value> = chunk_tool_calls(&events)
        .into_iter()
        .filter(|call| call["index"] == 0)
        .collect();
    // Every chunk of the call is a custom one; the first names it, the rest stream its input,
    // as OpenAI streams them (the fixture is written from that shape).
    assert!(calls
        .iter()
        .all(|call| call["type"] == "custom" && call.get("function").is_none()));
    assert_eq!(calls[0]["id"], "call_Qm3xT7vB9nK2");
    assert_eq!(calls[0]["custom"]["name"], "apply_patch");
    let input: String = calls
        .iter()
        .map(|call| call["custom"]["input"].as_str().unwrap())
        .collect();
    let expected = "*** Begin Patch\n*** Update File: src/main.rs\n@@\n-    println!(\"hi\");\n+    println!(\"héllo\\t\");\n*** End Patch";
    assert_eq!(input, expected);
    assert_eq!(calls.len(), 4, "one chunk per piece the source sent");
    let source = deltafold::assemble(&body, deltafold::Options::new()).unwrap();
    assert_eq!(
        completion.message().unwrap().content,
        source.message().unwrap().content
    );
    let json = response_json(Target::OpenAiChat, &completion);
    assert_eq!(
        json["choices"][0]["message"]["tool_calls"][0],
        serde_json::json!({"id": "call_Qm3xT7vB9nK2", "type": "custom", "custom": {"name": "apply_patch", "input": expected}})
    );
    assert_eq!(
        json["choices"][0]["message"]["tool_calls"][1]["type"],
        "function"
    );
}

#[test]
fn compaction_blocks_and_context_edits_go_out_as_anthropic_streams_them() {
    for path in [
        "anthropic/compaction.sse",
        "anthropic/compaction_after_thinking.sse",
    ] {
        let body = fixture(path);
        let (events, completion) = encode(&body, Target::Anthropic);
        let starts = of_type(&events, "content_block_start");
        let at = starts
            .iter()
            .position(|start| start["content_block"]["type"] == "compaction")
            .unwrap_or_else(|| panic!("{path}: no compaction block"));
        assert_eq!(
            starts[at]["content_block"],
            serde_json::json!({"type": "compaction", "content": null})
        );
        let index = &starts[at]["index"];
        let deltas: Vec<&Value> = of_type(&events, "content_block_delta")
            .into_iter()
            .filter(|delta| &delta["index"] == index)
            .collect();
        assert_eq!(deltas.len(), 1, "{path}: one compaction_delta");
        assert_eq!(deltas[0]["delta"]["type"], "compaction_delta");
        let source = deltafold::assemble(&body, deltafold::Options::new()).unwrap();
        let source = source.message().unwrap();
        assert_eq!(
            completion.message().unwrap().content,
            source.content,
            "{path}"
        );
        let edits = &source.response_metadata.extra["context_management"];
        assert_eq!(
            &of_type(&events, "message_delta")[0]["context_management"],
            edits
        );
        let json = response_json(Target::Anthropic, &completion);
        let ContentBlock::NonStandard { value } = &source
            .content
            .iter()
            .find(|block| matches!(block, ContentBlock::NonStandard { .. }))
            .unwrap()
        else {
            unreachable!()
        };
        assert!(
            json["content"].as_array().unwrap().contains(value),
            "{path}"
        );
        assert_eq!(&json["context_management"], edits, "{path}");
    }
}
