//! The shape of what the encoder writes, checked against each provider's documented stream and
//! response (no SDK needed): event names and types in order, the fields each event and each
//! non-streamed response requires. The source is the demo fixture — reasoning, text and two
//! parallel tool calls — and a DeepSeek recording of the same three kinds; the one-block-open
//! rule also on a source whose two calls' fragments interleave.

use std::path::Path;

use deltafold::encode::{response_json, Encoder, Target};
use deltafold::{Assembler, Completion, ContentBlock, Dialect, Options};
use serde_json::Value;

const SOURCES: [&str; 2] = ["demo/demo.sse", "deepseek/reasoning_text_tool_call.sse"];

/// Sources with two tool calls or more: one after the other (demo), interleaved (OpenAI's
/// parallel calls: `{"index":0}` and `{"index":1}` fragments alternate, both in one chunk too).
const CALL_SOURCES: [&str; 2] = ["demo/demo.sse", "openai/parallel_tool_calls.sse"];

/// One SSE event: its `event:` name, if any, and its `data:` text.
struct SseEvent {
    name: Option<String>,
    data: String,
}

impl SseEvent {
    fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or_else(|e| panic!("{e}: {}", self.data))
    }
}

/// `source` re-encoded live into `target`, and the completion it assembled to.
fn encode(source: &str, target: Target) -> (Vec<SseEvent>, Completion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(source);
    let bytes = std::fs::read(path).unwrap();
    let mut assembler = Assembler::new();
    let mut encoder = Encoder::new(target);
    let mut out = String::new();
    assembler.push(&bytes);
    assembler.end_input();
    while let Some(event) = assembler.next_event().unwrap() {
        let event = event.into_owned();
        encoder.encode(&event, &assembler, &mut out);
    }
    encoder.finish(&mut out);
    let completion = assembler.finish().unwrap();
    assert!(
        out.ends_with("\n\n"),
        "{target}: the last event is not closed"
    );
    let events = out
        .split_terminator("\n\n")
        .map(|block| {
            let mut event = SseEvent {
                name: None,
                data: String::new(),
            };
            for line in block.lines() {
                if let Some(name) = line.strip_prefix("event: ") {
                    event.name = Some(name.to_owned());
                } else if let Some(data) = line.strip_prefix("data: ") {
                    event.data = data.to_owned();
                } else {
                    panic!("{target}: unexpected line {line:?}");
                }
            }
            event
        })
        .collect();
    (events, completion)
}

/// The `type` of every event, each equal to its SSE `event:` name (Anthropic, Responses).
fn named_types(events: &[SseEvent]) -> Vec<String> {
    events
        .iter()
        .map(|event| {
            let kind = event.json()["type"].as_str().unwrap().to_owned();
            assert_eq!(event.name.as_deref(), Some(kind.as_str()));
            kind
        })
        .collect()
}

/// Runs of equal items collapsed, to compare a sequence without counting its deltas.
fn runs(kinds: &[String]) -> Vec<&str> {
    let mut runs: Vec<&str> = Vec::new();
    for kind in kinds {
        if runs.last() != Some(&kind.as_str()) {
            runs.push(kind);
        }
    }
    runs
}

/// The blocks (or items) the sources write: reasoning, text, then one per tool call.
fn kinds_then_calls<'k>(first: &[&'k str], call: &'k str, completion: &Completion) -> Vec<&'k str> {
    let calls = completion.message().unwrap().tool_calls().count();
    assert!(calls > 0, "the source has a tool call");
    let mut kinds = first.to_vec();
    kinds.extend(std::iter::repeat_n(call, calls));
    kinds
}

fn require(object: &Value, fields: &[&str], what: &str) {
    for field in fields {
        assert!(
            object.get(field).is_some(),
            "{what}: no `{field}` in {object}"
        );
    }
}

#[test]
fn openai_chat_chunks_carry_object_id_and_indexed_deltas() {
    for source in SOURCES {
        let (events, _) = encode(source, Target::OpenAiChat);
        let (done, chunks) = events.split_last().unwrap();
        assert_eq!(done.data, "[DONE]", "{source}");
        assert!(events.iter().all(|event| event.name.is_none()));
        let chunks: Vec<Value> = chunks.iter().map(SseEvent::json).collect();
        let id = chunks[0]["id"].as_str().unwrap();
        assert!(!id.is_empty());
        for chunk in &chunks {
            require(
                chunk,
                &["id", "object", "created", "model", "choices"],
                source,
            );
            assert_eq!(chunk["object"], "chat.completion.chunk");
            assert_eq!(chunk["id"], id, "{source}: one id for the stream");
            for choice in chunk["choices"].as_array().unwrap() {
                require(choice, &["index", "delta", "finish_reason"], source);
                assert!(choice["delta"].is_object());
            }
        }
        assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
        let calls: Vec<&Value> = chunks
            .iter()
            .flat_map(|chunk| chunk["choices"].as_array().unwrap())
            .filter_map(|choice| choice["delta"]["tool_calls"].as_array())
            .flatten()
            .collect();
        let starts: Vec<&Value> = calls
            .iter()
            .filter(|call| call["id"].is_string())
            .copied()
            .collect();
        assert!(!starts.is_empty(), "{source}: no tool call");
        for start in starts {
            require(start, &["index", "id", "type", "function"], source);
            assert_eq!(start["type"], "function");
            assert!(start["function"]["name"].is_string());
        }
        assert!(calls.iter().all(|call| call["index"].is_u64()));
        let finishes: Vec<&Value> = chunks
            .iter()
            .flat_map(|chunk| chunk["choices"].as_array().unwrap())
            .map(|choice| &choice["finish_reason"])
            .filter(|reason| !reason.is_null())
            .collect();
        assert_eq!(finishes, ["tool_calls"], "{source}");
        let usage = &chunks.last().unwrap()["usage"];
        require(
            usage,
            &["prompt_tokens", "completion_tokens", "total_tokens"],
            source,
        );
    }
}

#[test]
fn anthropic_events_follow_the_documented_sequence() {
    for source in SOURCES {
        let (events, completion) = encode(source, Target::Anthropic);
        let kinds = named_types(&events);
        // The opening and the closing, in order; between them only block events.
        assert_eq!(kinds[0], "message_start", "{source}");
        assert_eq!(
            kinds[kinds.len() - 2..],
            ["message_delta", "message_stop"],
            "{source}"
        );
        assert!(kinds[1..kinds.len() - 2]
            .iter()
            .all(|kind| kind.starts_with("content_block_")));
        let json: Vec<Value> = events.iter().map(SseEvent::json).collect();
        let message = &json[0]["message"];
        require(
            message,
            &["id", "type", "role", "model", "content", "usage"],
            source,
        );
        assert_eq!(message["type"], "message");
        assert_eq!(message["role"], "assistant");
        assert_eq!(message["content"], serde_json::json!([]));
        require(
            &message["usage"],
            &["input_tokens", "output_tokens"],
            source,
        );
        let block_types = anthropic_blocks_one_at_a_time(source, &json);
        assert_eq!(
            block_types,
            kinds_then_calls(&["thinking", "text"], "tool_use", &completion),
            "{source}"
        );
        assert_eq!(kinds.last().unwrap(), "message_stop");
    }
}

/// Checks Anthropic's documented block rule — each block's start (indices 0, 1, …), only its
/// own deltas, its stop, before the next start; none open at `message_delta` — and returns the
/// block types in order.
fn anthropic_blocks_one_at_a_time(source: &str, json: &[Value]) -> Vec<String> {
    let mut open: Option<(u64, String)> = None;
    let mut block_types = Vec::new();
    for event in json {
        match event["type"].as_str().unwrap() {
            "content_block_start" => {
                assert_eq!(event["index"], block_types.len() as u64, "{source}");
                let kind = event["content_block"]["type"].as_str().unwrap().to_owned();
                if kind == "tool_use" {
                    require(&event["content_block"], &["id", "name", "input"], source);
                }
                assert!(
                    open.is_none(),
                    "{source}: block {} ({kind}) started before block {open:?} stopped",
                    block_types.len()
                );
                open = Some((block_types.len() as u64, kind.clone()));
                block_types.push(kind);
            }
            "content_block_delta" => {
                let index = event["index"].as_u64().unwrap();
                let (open_index, kind) = open.as_ref().expect("a delta outside an open block");
                assert_eq!(index, *open_index, "{source}: a delta for another block");
                let allowed: &[&str] = match kind.as_str() {
                    "thinking" => &["thinking_delta", "signature_delta"],
                    "text" => &["text_delta"],
                    "tool_use" => &["input_json_delta"],
                    other => panic!("{source}: unexpected block {other}"),
                };
                let delta_type = event["delta"]["type"].as_str().unwrap();
                assert!(
                    allowed.contains(&delta_type),
                    "{source}: {delta_type} in {kind}"
                );
            }
            "content_block_stop" => {
                let index = event["index"].as_u64().unwrap();
                let (open_index, _) = open.take().expect("a stop outside an open block");
                assert_eq!(index, open_index, "{source}: stop of another block");
            }
            "message_delta" => {
                assert!(open.is_none(), "{source}: a block left open");
                assert_eq!(event["delta"]["stop_reason"], "tool_use", "{source}");
                require(&event["usage"], &["output_tokens"], source);
            }
            _ => {}
        }
    }
    block_types
}

/// Every tool call of the assembled message, as (id, name, arguments parsed).
fn assembled_calls(completion: &Completion) -> Vec<(String, String, Value)> {
    completion
        .message()
        .unwrap()
        .tool_calls()
        .map(|call| {
            (
                call.id.clone(),
                call.name.clone(),
                Value::Object(call.args.clone()),
            )
        })
        .collect()
}

/// The arguments text joined per call, parsed: what a strict client rebuilds.
fn parse_joined(joined: &str, source: &str) -> Value {
    serde_json::from_str(joined).unwrap_or_else(|e| panic!("{source}: {e} in {joined}"))
}

#[test]
fn anthropic_writes_each_tool_call_whole_in_its_own_block_even_when_calls_interleave() {
    for source in CALL_SOURCES {
        let (events, completion) = encode(source, Target::Anthropic);
        let json: Vec<Value> = events.iter().map(SseEvent::json).collect();
        let block_types = anthropic_blocks_one_at_a_time(source, &json);
        assert_eq!(
            block_types
                .iter()
                .filter(|kind| *kind == "tool_use")
                .count(),
            assembled_calls(&completion).len(),
            "{source}"
        );
        // Each tool_use block's start and joined input_json_delta fragments give back the
        // assembled call: nothing lost or misplaced by holding a call back.
        let mut calls: Vec<(String, String, String)> = Vec::new();
        let mut block_of_call = Vec::new();
        for event in &json {
            match event["type"].as_str().unwrap() {
                "content_block_start" if event["content_block"]["type"] == "tool_use" => {
                    let block = &event["content_block"];
                    calls.push((
                        block["id"].as_str().unwrap().to_owned(),
                        block["name"].as_str().unwrap().to_owned(),
                        String::new(),
                    ));
                    block_of_call.push(event["index"].as_u64().unwrap());
                }
                "content_block_delta" if event["delta"]["type"] == "input_json_delta" => {
                    let index = event["index"].as_u64().unwrap();
                    let at = block_of_call.iter().position(|b| *b == index).unwrap();
                    calls[at].2 += event["delta"]["partial_json"].as_str().unwrap();
                }
                _ => {}
            }
        }
        let written: Vec<(String, String, Value)> = calls
            .into_iter()
            .map(|(id, name, args)| (id, name, parse_joined(&args, source)))
            .collect();
        assert_eq!(written, assembled_calls(&completion), "{source}");
    }
}

#[test]
fn responses_events_are_numbered_and_end_with_the_whole_response() {
    for source in SOURCES {
        let (events, completion) = encode(source, Target::OpenAiResponses);
        let kinds = named_types(&events);
        let json: Vec<Value> = events.iter().map(SseEvent::json).collect();
        let numbers: Vec<u64> = json
            .iter()
            .map(|event| event["sequence_number"].as_u64().unwrap())
            .collect();
        assert_eq!(
            numbers,
            (0..json.len() as u64).collect::<Vec<_>>(),
            "{source}"
        );
        assert_eq!(
            kinds[..2],
            ["response.created", "response.in_progress"],
            "{source}"
        );
        assert_eq!(kinds.last().unwrap(), "response.completed", "{source}");
        responses_items_one_at_a_time(source, &kinds, &json);
        let added_types: Vec<&str> = json
            .iter()
            .filter(|event| event["type"] == "response.output_item.added")
            .map(|event| event["item"]["type"].as_str().unwrap())
            .collect();
        assert_eq!(
            added_types,
            kinds_then_calls(&["reasoning", "message"], "function_call", &completion),
            "{source}"
        );
        let response = &json.last().unwrap()["response"];
        assert_eq!(response["status"], "completed");
        require(
            response,
            &["id", "object", "created_at", "model", "output", "usage"],
            source,
        );
        let output_types: Vec<&str> = response["output"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item["type"].as_str().unwrap())
            .collect();
        assert_eq!(output_types, added_types);
        require(
            &response["usage"],
            &["input_tokens", "output_tokens", "total_tokens"],
            source,
        );
    }
}

/// Checks the documented item rule — each item added (output indices 0, 1, …), only its own
/// events, done, before the next is added; none open at `response.completed`.
fn responses_items_one_at_a_time(source: &str, kinds: &[String], json: &[Value]) {
    let mut open: Option<u64> = None;
    let mut added = 0;
    for (kind, event) in kinds.iter().zip(json) {
        match kind.as_str() {
            "response.created" | "response.in_progress" => {}
            "response.completed" | "response.incomplete" => {
                assert!(open.is_none(), "{source}: an item left open");
            }
            "response.output_item.added" => {
                assert_eq!(event["output_index"], added, "{source}");
                require(&event["item"], &["id", "type"], source);
                assert!(
                    open.is_none(),
                    "{source}: item {added} added before item {open:?} was done"
                );
                open = Some(added);
                added += 1;
            }
            "response.output_item.done" => {
                let index = event["output_index"].as_u64().unwrap();
                assert_eq!(open.take(), Some(index), "{source}: done of another item");
            }
            _ => {
                require(event, &["item_id", "output_index"], source);
                let index = event["output_index"].as_u64().unwrap();
                assert_eq!(open, Some(index), "{source}: {kind} of another item");
            }
        }
    }
    assert!(open.is_none(), "{source}: an item left open");
}

#[test]
fn responses_writes_each_function_call_whole_in_its_own_item_even_when_calls_interleave() {
    for source in CALL_SOURCES {
        let (events, completion) = encode(source, Target::OpenAiResponses);
        let kinds = named_types(&events);
        let json: Vec<Value> = events.iter().map(SseEvent::json).collect();
        responses_items_one_at_a_time(source, &kinds, &json);
        // Each call's added item and joined argument deltas give back the assembled call, and
        // so do its `arguments.done` and its final item in `response.completed`.
        let mut calls: Vec<(String, String, String)> = Vec::new();
        for event in &json {
            match event["type"].as_str().unwrap() {
                "response.output_item.added" if event["item"]["type"] == "function_call" => {
                    let item = &event["item"];
                    calls.push((
                        item["call_id"].as_str().unwrap().to_owned(),
                        item["name"].as_str().unwrap().to_owned(),
                        String::new(),
                    ));
                }
                "response.function_call_arguments.delta" => {
                    calls.last_mut().unwrap().2 += event["delta"].as_str().unwrap();
                }
                "response.function_call_arguments.done" => {
                    assert_eq!(
                        event["arguments"].as_str().unwrap(),
                        calls.last().unwrap().2,
                        "{source}"
                    );
                }
                _ => {}
            }
        }
        let written: Vec<(String, String, Value)> = calls
            .into_iter()
            .map(|(id, name, args)| (id, name, parse_joined(&args, source)))
            .collect();
        let expected = assembled_calls(&completion);
        assert_eq!(written, expected, "{source}");
        let finals: Vec<(String, String, Value)> = json.last().unwrap()["response"]["output"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|item| item["type"] == "function_call")
            .map(|item| {
                (
                    item["call_id"].as_str().unwrap().to_owned(),
                    item["name"].as_str().unwrap().to_owned(),
                    parse_joined(item["arguments"].as_str().unwrap(), source),
                )
            })
            .collect();
        assert_eq!(finals, expected, "{source}");
    }
}

#[test]
fn gemini_chunks_carry_candidates_parts_finish_reason_and_usage() {
    for source in SOURCES {
        let (events, _) = encode(source, Target::Gemini);
        let chunks: Vec<Value> = events.iter().map(SseEvent::json).collect();
        assert!(events.iter().all(|event| event.name.is_none()));
        let mut parts: Vec<Value> = Vec::new();
        let mut finish_reasons = Vec::new();
        for chunk in &chunks {
            require(chunk, &["modelVersion", "responseId"], source);
            for candidate in chunk["candidates"].as_array().into_iter().flatten() {
                require(candidate, &["content", "index"], source);
                assert_eq!(candidate["content"]["role"], "model");
                parts.extend(
                    candidate["content"]["parts"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .cloned(),
                );
                if let Some(reason) = candidate.get("finishReason") {
                    finish_reasons.push(reason.clone());
                }
            }
        }
        assert_eq!(finish_reasons, ["STOP"], "{source}");
        let kinds: Vec<&str> = parts
            .iter()
            .map(|part| match part {
                part if part["thought"] == true => "thought",
                part if part["text"].is_string() => "text",
                part if part["functionCall"].is_object() => "functionCall",
                other => panic!("{source}: unexpected part {other}"),
            })
            .collect();
        let kinds: Vec<String> = kinds.into_iter().map(str::to_owned).collect();
        assert_eq!(
            runs(&kinds),
            ["thought", "text", "functionCall"],
            "{source}"
        );
        for call in parts.iter().filter_map(|part| part.get("functionCall")) {
            require(call, &["name", "args"], source);
            assert!(call["args"].is_object());
        }
        let usage = chunks
            .iter()
            .rev()
            .find_map(|chunk| chunk.get("usageMetadata"))
            .expect("usage");
        require(
            usage,
            &[
                "promptTokenCount",
                "candidatesTokenCount",
                "totalTokenCount",
            ],
            source,
        );
    }
}

#[test]
fn non_streamed_responses_have_the_documented_required_fields() {
    for source in SOURCES {
        let (_, completion) = encode(source, Target::OpenAiChat);

        let chat = response_json(Target::OpenAiChat, &completion);
        require(
            &chat,
            &["id", "object", "created", "model", "choices", "usage"],
            source,
        );
        assert_eq!(chat["object"], "chat.completion");
        let choice = &chat["choices"][0];
        require(choice, &["index", "message", "finish_reason"], source);
        assert_eq!(choice["message"]["role"], "assistant");
        assert_eq!(choice["finish_reason"], "tool_calls");
        for call in choice["message"]["tool_calls"].as_array().unwrap() {
            require(call, &["id", "type", "function"], source);
            require(&call["function"], &["name", "arguments"], source);
            assert!(call["function"]["arguments"].is_string());
        }

        let message = response_json(Target::Anthropic, &completion);
        require(
            &message,
            &[
                "id",
                "type",
                "role",
                "model",
                "content",
                "stop_reason",
                "stop_sequence",
                "usage",
            ],
            source,
        );
        assert_eq!(message["type"], "message");
        assert_eq!(message["stop_reason"], "tool_use");
        for block in message["content"].as_array().unwrap() {
            let fields: &[&str] = match block["type"].as_str().unwrap() {
                "thinking" => &["thinking", "signature"],
                "text" => &["text"],
                "tool_use" => &["id", "name", "input"],
                other => panic!("{source}: unexpected block {other}"),
            };
            require(block, fields, source);
        }

        let response = response_json(Target::OpenAiResponses, &completion);
        require(
            &response,
            &[
                "id",
                "object",
                "created_at",
                "status",
                "model",
                "output",
                "usage",
                "tools",
                "tool_choice",
                "parallel_tool_calls",
            ],
            source,
        );
        assert_eq!(response["object"], "response");
        for item in response["output"].as_array().unwrap() {
            let fields: &[&str] = match item["type"].as_str().unwrap() {
                "reasoning" => &["id", "summary"],
                "message" => &["id", "role", "status", "content"],
                "function_call" => &["call_id", "name", "arguments"],
                other => panic!("{source}: unexpected item {other}"),
            };
            require(item, fields, source);
        }

        let gemini = response_json(Target::Gemini, &completion);
        require(&gemini, &["candidates", "usageMetadata"], source);
        let candidate = &gemini["candidates"][0];
        require(candidate, &["content", "finishReason", "index"], source);
        assert_eq!(candidate["content"]["role"], "model");
        assert!(!candidate["content"]["parts"].as_array().unwrap().is_empty());
    }
}

/// Each `tool_use` block's id and the sum of its `input_json_delta`s.
fn anthropic_inputs(events: &[SseEvent]) -> Vec<(String, String)> {
    let mut inputs: Vec<(String, String)> = Vec::new();
    for event in events {
        let json = event.json();
        match json["type"].as_str() {
            Some("content_block_start") if json["content_block"]["type"] == "tool_use" => inputs
                .push((
                    json["content_block"]["id"].as_str().unwrap().to_owned(),
                    String::new(),
                )),
            Some("content_block_delta") if json["delta"]["type"] == "input_json_delta" => {
                inputs.last_mut().unwrap().1 += json["delta"]["partial_json"].as_str().unwrap()
            }
            _ => {}
        }
    }
    inputs
}

#[test]
fn invalid_arguments_into_anthropic_are_cut_where_they_stop_being_an_object() {
    let expected = [
        // `{"city": "Paris", }`: the `}` after the comma is the first offending byte.
        ("call_Bad1", "{\"city\": \"Paris\", "),
        // `["Lyon"]` opens no object: nothing of it, the block keeps its `{}` input.
        ("call_Arr2", ""),
        ("call_Ok3", "{\"city\": \"Nice\"}"),
    ]
    .map(|(id, input)| (id.to_owned(), input.to_owned()));
    // The snapshot read all at once (ahead of every event), and one byte at a time.
    let (events, _) = encode("openai/invalid_tool_arguments.sse", Target::Anthropic);
    assert_eq!(anthropic_inputs(&events), expected);
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/openai/invalid_tool_arguments.sse"),
    )
    .unwrap();
    let mut assembler = Assembler::new();
    let mut encoder = Encoder::new(Target::Anthropic);
    let mut out = String::new();
    for byte in bytes.chunks(1) {
        assembler.push(byte);
        while let Some(event) = assembler.next_event().unwrap() {
            encoder.encode(&event.into_owned(), &assembler, &mut out);
        }
    }
    assembler.end_input();
    while let Some(event) = assembler.next_event().unwrap() {
        encoder.encode(&event.into_owned(), &assembler, &mut out);
    }
    encoder.finish(&mut out);
    let events: Vec<SseEvent> = out
        .split_terminator("\n\n")
        .map(|block| SseEvent {
            name: None,
            data: block
                .lines()
                .find_map(|line| line.strip_prefix("data: "))
                .unwrap()
                .to_owned(),
        })
        .collect();
    assert_eq!(anthropic_inputs(&events), expected);
    // Read back, the first is the invalid call of its prefix, the second a call with `{}`.
    let again = deltafold::assemble(
        out.as_bytes(),
        Options::default().dialect(Dialect::Anthropic),
    )
    .unwrap();
    let content = &again.choices[0].message.content;
    let ContentBlock::InvalidToolCall(bad) = &content[0] else {
        panic!("{content:?}");
    };
    assert_eq!(bad.args, "{\"city\": \"Paris\", ");
    let ContentBlock::ToolCall(array) = &content[1] else {
        panic!("{content:?}");
    };
    assert!(array.args.is_empty());
}
