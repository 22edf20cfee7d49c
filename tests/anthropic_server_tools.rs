//! Agent loops over the Anthropic Messages API with server-side tools, against a real HTTP
//! server in the test process: each answer streams from the server, is assembled through
//! `RequestBuilderExt`, joins a `Conversation`, and the next request built from it must carry
//! what Anthropic's docs require — a paused web search turn sent back as it came (the
//! `server_tool_use` and `web_search_tool_result` blocks with their ids and `encrypted_content`,
//! the text's citations with their `encrypted_index`), a code execution turn's `container`
//! next to a client tool's result, and an MCP call with its result.
#![cfg(feature = "reqwest")]

#[path = "support/server.rs"]
mod server;

use std::sync::atomic::{AtomicUsize, Ordering};

use deltafold::conversation::Conversation;
use deltafold::message::{ContentBlock, FinishKind, Message, ToolMessage, ToolStatus};
use deltafold::{AiMessage, Event, Options, RequestBuilderExt};
use futures::StreamExt;
use serde_json::{json, Value};
use server::{Reply, Server};

/// An SSE stream of Messages events, each named by its type.
fn sse(events: &[Value]) -> String {
    events
        .iter()
        .map(|event| {
            format!(
                "event: {}\ndata: {event}\n\n",
                event["type"].as_str().unwrap()
            )
        })
        .collect()
}

fn message_start(id: &str) -> Value {
    json!({"type": "message_start", "message": {"id": id, "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-5", "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": 900, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 3}}})
}

fn block_start(index: u32, block: Value) -> Value {
    json!({"type": "content_block_start", "index": index, "content_block": block})
}

fn block_delta(index: u32, delta: Value) -> Value {
    json!({"type": "content_block_delta", "index": index, "delta": delta})
}

fn block_stop(index: u32) -> Value {
    json!({"type": "content_block_stop", "index": index})
}

fn input_json(index: u32, partial_json: &str) -> Value {
    block_delta(
        index,
        json!({"type": "input_json_delta", "partial_json": partial_json}),
    )
}

fn text_delta(index: u32, text: &str) -> Value {
    block_delta(index, json!({"type": "text_delta", "text": text}))
}

/// The stop: `message_delta` with the reason and what else its `delta` carries, then
/// `message_stop`.
fn stop(reason: &str, more: Value) -> [Value; 2] {
    let mut delta = json!({"stop_reason": reason, "stop_sequence": null});
    if let (Value::Object(delta), Value::Object(more)) = (&mut delta, more) {
        delta.extend(more);
    }
    [
        json!({"type": "message_delta", "delta": delta,
               "usage": {"input_tokens": 4200, "output_tokens": 120, "server_tool_use": {"web_search_requests": 1}}}),
        json!({"type": "message_stop"}),
    ]
}

/// A text block whose citation comes before its text, as Anthropic streams cited text.
fn cited_text(index: u32, citation: &Value, text: &str) -> [Value; 4] {
    [
        block_start(index, json!({"citations": [], "type": "text", "text": ""})),
        block_delta(
            index,
            json!({"type": "citations_delta", "citation": citation}),
        ),
        text_delta(index, text),
        block_stop(index),
    ]
}

/// Sends the conversation as a Messages request, returns the live events and the message.
async fn turn(
    server: &Server,
    conversation: &Conversation,
    tools: Value,
) -> (Vec<Event<'static>>, AiMessage) {
    let mut body =
        json!({"model": "claude-sonnet-4-5", "max_tokens": 4096, "stream": true, "tools": tools});
    conversation.to_anthropic().unwrap().write_into(&mut body);
    let request = reqwest::Client::new()
        .post(server.url("/v1/messages"))
        .header("content-type", "application/json")
        .header("anthropic-version", "2023-06-01")
        .body(body.to_string());
    let mut stream = request.send_and_assemble(Options::new()).await.unwrap();
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event.unwrap());
    }
    (events, stream.completion().await.unwrap().into_message())
}

/// A server answering the n-th request with the n-th stream.
async fn serve(streams: Vec<String>) -> Server {
    let served = AtomicUsize::new(0);
    Server::start(move |_| {
        let n = served.fetch_add(1, Ordering::SeqCst);
        Reply::event_stream(&streams[n.min(streams.len() - 1)])
    })
    .await
}

fn sent(server: &Server, n: usize) -> Value {
    serde_json::from_slice(&server.requests()[n].body).unwrap()
}

fn conversation_of(user: &str) -> Conversation {
    let mut conversation = Conversation::new();
    conversation.push(Message::user(user)).unwrap();
    conversation
}

// --- (a) a web search turn paused with `pause_turn`, sent back as it came and continued ---

const SEARCH_ID: &str = "srvtoolu_01FYcSearchPaused";

fn search_result() -> Value {
    json!({"type": "web_search_result", "title": "Rust 2024 edition is stable",
           "url": "https://blog.rust-lang.test/2025/02/20/rust-2024",
           "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y2",
           "page_age": "February 20, 2025"})
}

fn search_citation() -> Value {
    json!({"type": "web_search_result_location", "cited_text": "Rust 1.85 ships the Rust 2024 edition.",
           "url": "https://blog.rust-lang.test/2025/02/20/rust-2024", "title": "Rust 2024 edition is stable",
           "encrypted_index": "Eo8BCioIAhgBIiQyYjQ0OWJhZi1lNjAzLTRlOTUtYjE0"})
}

/// The first answer: a search, its results, a cited sentence — and the turn pauses.
fn paused_search() -> String {
    let mut events = vec![
        message_start("msg_01Paused"),
        block_start(
            0,
            json!({"type": "server_tool_use", "id": SEARCH_ID, "name": "web_search", "input": {}}),
        ),
        input_json(0, ""),
        input_json(0, "{\"query\": \"rust 2024 "),
        input_json(0, "edition release\"}"),
        block_stop(0),
        block_start(
            1,
            json!({"type": "web_search_tool_result", "tool_use_id": SEARCH_ID, "content": [search_result()]}),
        ),
        block_stop(1),
    ];
    events.extend(cited_text(
        2,
        &search_citation(),
        "The Rust 2024 edition shipped with Rust 1.85.",
    ));
    events.extend(stop("pause_turn", json!({})));
    sse(&events)
}

/// The continuation: the text that finishes the turn.
fn continued_search() -> String {
    let mut events = vec![
        message_start("msg_02Continued"),
        block_start(0, json!({"type": "text", "text": ""})),
        text_delta(0, " It changed the prelude and RPIT capture rules."),
        block_stop(0),
    ];
    events.extend(stop("end_turn", json!({})));
    sse(&events)
}

#[tokio::test]
async fn a_paused_web_search_goes_back_as_it_came_and_the_turn_continues() {
    let server = serve(vec![paused_search(), continued_search()]).await;
    let tools = json!([{"type": "web_search_20250305", "name": "web_search", "max_uses": 5}]);
    let mut conversation = conversation_of("What changed in the Rust 2024 edition?");

    let (events, first) = turn(&server, &conversation, tools.clone()).await;
    let arguments: String = events
        .iter()
        .filter_map(|event| match event {
            Event::ServerToolCallArgumentsDelta { delta, .. } => Some(delta.as_ref()),
            _ => None,
        })
        .collect();
    assert_eq!(arguments, "{\"query\": \"rust 2024 edition release\"}");
    assert_eq!(first.response_metadata.finish_reason.as_str(), "pause_turn");
    conversation.push(first).unwrap();

    // The paused turn is the last message of the next request, block for block.
    let (_, second) = turn(&server, &conversation, tools.clone()).await;
    let request = sent(&server, 1);
    assert_eq!(request["tools"], tools);
    assert_eq!(
        request["messages"],
        json!([
            {"role": "user", "content": "What changed in the Rust 2024 edition?"},
            {"role": "assistant", "content": [
                {"type": "server_tool_use", "id": SEARCH_ID, "name": "web_search",
                 "input": {"query": "rust 2024 edition release"}},
                {"type": "web_search_tool_result", "tool_use_id": SEARCH_ID, "content": [search_result()]},
                {"type": "text", "text": "The Rust 2024 edition shipped with Rust 1.85.",
                 "citations": [search_citation()]},
            ]},
        ])
    );
    // The opaque values go back with every byte they came with.
    let body = String::from_utf8(server.requests()[1].body.to_vec()).unwrap();
    for opaque in [
        &search_result()["encrypted_content"],
        &search_citation()["encrypted_index"],
    ] {
        assert!(body.contains(opaque.as_str().unwrap()), "{body}");
    }
    assert_eq!(second.finish_kind(), Some(FinishKind::Stop));
    conversation.push(second).unwrap();

    // The conversation holds both parts of the turn, the search typed in the first.
    assert_eq!(conversation.len(), 3);
    let paused = conversation.messages()[1].as_assistant().unwrap();
    let [ContentBlock::ServerToolCall(call), ContentBlock::ServerToolResult(result), ContentBlock::Text { annotations, .. }] =
        paused.content.as_slice()
    else {
        panic!("{:?}", paused.content);
    };
    assert_eq!(
        (call.id.as_str(), call.name.as_str()),
        (SEARCH_ID, "web_search")
    );
    assert_eq!(call.args["query"], "rust 2024 edition release");
    assert_eq!(result.tool_call_id, SEARCH_ID);
    assert_eq!(result.status, ToolStatus::Success);
    let citation = annotations[0].as_citation().unwrap();
    assert_eq!(
        citation.url.as_deref(),
        Some("https://blog.rust-lang.test/2025/02/20/rust-2024")
    );
    let continued = conversation.last().unwrap().as_assistant().unwrap();
    assert_eq!(
        continued.text(),
        " It changed the prelude and RPIT capture rules."
    );
    // A follow-up sends both assistant messages, in order (Anthropic joins consecutive turns).
    conversation.push(Message::user("Thanks!")).unwrap();
    let next = conversation.to_anthropic().unwrap().messages;
    assert_eq!(next.len(), 4);
    assert_eq!(next[1], request["messages"][1]);
    assert_eq!(
        next[2],
        json!({"role": "assistant", "content": [{"type": "text", "text": " It changed the prelude and RPIT capture rules."}]})
    );
}

// --- (b) code execution in a container, then a client tool the app answers ---

const BASH_ID: &str = "srvtoolu_01MwBashCodeExec";
const CLIENT_ID: &str = "toolu_01SaveResult";
const CONTAINER: &str = "container_011CaNRFAbjdPf4rmBarZzqQ";

fn bash_result() -> Value {
    json!({"type": "bash_code_execution_result", "stdout": "-428330955.97745\n", "stderr": "",
           "return_code": 0, "content": []})
}

/// The first answer: text, a bash run and its result, then a client tool call; the stop
/// names the container the code ran in.
fn runs_code_then_calls() -> String {
    let mut events = vec![
        message_start("msg_01Code"),
        block_start(0, json!({"type": "text", "text": ""})),
        text_delta(0, "I'll compute it."),
        block_stop(0),
        block_start(
            1,
            json!({"type": "server_tool_use", "id": BASH_ID, "name": "bash_code_execution", "input": {}}),
        ),
        input_json(1, "{\"command\": \"echo \\\"65465-6544 * 65464"),
        input_json(1, "-6+1.02255\\\" | bc -l\"}"),
        block_stop(1),
        block_start(
            2,
            json!({"type": "bash_code_execution_tool_result", "tool_use_id": BASH_ID, "content": bash_result()}),
        ),
        block_stop(2),
        block_start(
            3,
            json!({"type": "tool_use", "id": CLIENT_ID, "name": "save_result", "input": {}}),
        ),
        input_json(3, "{\"value\": \"-428330955.97745\"}"),
        block_stop(3),
    ];
    events.extend(stop(
        "tool_use",
        json!({"stop_details": null, "container": {"id": CONTAINER, "expires_at": "2026-04-24T11:13:36.730129Z"}}),
    ));
    sse(&events)
}

fn after_the_tool() -> String {
    let mut events = vec![
        message_start("msg_02Code"),
        block_start(0, json!({"type": "text", "text": ""})),
        text_delta(0, "Saved: -428330955.97745."),
        block_stop(0),
    ];
    events.extend(stop(
        "end_turn",
        json!({"container": {"id": CONTAINER, "expires_at": "2026-04-24T11:14:00Z"}}),
    ));
    sse(&events)
}

#[tokio::test]
async fn a_code_execution_turn_sends_its_container_back_with_the_tool_result() {
    let server = serve(vec![runs_code_then_calls(), after_the_tool()]).await;
    let tools = json!([
        {"type": "code_execution_20250825", "name": "code_execution"},
        {"name": "save_result", "description": "Saves a value.",
         "input_schema": {"type": "object", "properties": {"value": {"type": "string"}}}},
    ]);
    let mut conversation = conversation_of("Compute 65465-6544*65464-6+1.02255 and save it.");

    let (_, first) = turn(&server, &conversation, tools.clone()).await;
    assert_eq!(
        first.response_metadata.extra["container"],
        json!({"id": CONTAINER, "expires_at": "2026-04-24T11:13:36.730129Z"})
    );
    conversation.push(first).unwrap();
    assert_eq!(
        conversation.pending_tool_calls().collect::<Vec<_>>(),
        [CLIENT_ID]
    );
    assert!(conversation.push(Message::user("Hello?")).is_err());
    conversation
        .push(ToolMessage::new(CLIENT_ID, "saved"))
        .unwrap();

    let (_, second) = turn(&server, &conversation, tools).await;
    let request = sent(&server, 1);
    // The container the code ran in is named, as a string, beside the messages.
    assert_eq!(request["container"], CONTAINER);
    assert_eq!(
        request["messages"],
        json!([
            {"role": "user", "content": "Compute 65465-6544*65464-6+1.02255 and save it."},
            {"role": "assistant", "content": [
                {"type": "text", "text": "I'll compute it."},
                {"type": "server_tool_use", "id": BASH_ID, "name": "bash_code_execution",
                 "input": {"command": "echo \"65465-6544 * 65464-6+1.02255\" | bc -l"}},
                {"type": "bash_code_execution_tool_result", "tool_use_id": BASH_ID, "content": bash_result()},
                {"type": "tool_use", "id": CLIENT_ID, "name": "save_result",
                 "input": {"value": "-428330955.97745"}},
            ]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": CLIENT_ID, "content": "saved"}]},
        ])
    );
    conversation.push(second).unwrap();
    assert_eq!(conversation.len(), 4);
    assert_eq!(
        conversation.last().unwrap().as_assistant().unwrap().text(),
        "Saved: -428330955.97745."
    );
    // A conversation without code execution names no container.
    let plain = conversation_of("Hi");
    let mut body = json!({"model": "claude-sonnet-4-5"});
    plain.to_anthropic().unwrap().write_into(&mut body);
    assert_eq!(body.get("container"), None);
}

// --- (c) the MCP connector: a remote call and its result echoed back ---

const MCP_ID: &str = "mcptoolu_01Repositories";

fn mcp_call() -> Value {
    json!({"type": "mcp_tool_use", "id": MCP_ID, "name": "search_repositories",
           "server_name": "github", "input": {"query": "deltafold"}})
}

fn mcp_result() -> Value {
    json!({"type": "mcp_tool_result", "tool_use_id": MCP_ID, "is_error": false,
           "content": [{"type": "text", "text": "{\"total_count\": 1, \"items\": [{\"full_name\": \"example/deltafold\"}]}"}]})
}

fn calls_mcp() -> String {
    let mut start = mcp_call();
    start["input"] = json!({});
    let mut events = vec![
        message_start("msg_01Mcp"),
        block_start(0, start),
        input_json(0, "{\"query\":"),
        input_json(0, " \"deltafold\"}"),
        block_stop(0),
        block_start(1, mcp_result()),
        block_stop(1),
        block_start(2, json!({"type": "text", "text": ""})),
        text_delta(2, "One repository: example/deltafold."),
        block_stop(2),
    ];
    events.extend(stop("end_turn", json!({})));
    sse(&events)
}

fn answers_again() -> String {
    let mut events = vec![
        message_start("msg_02Mcp"),
        block_start(0, json!({"type": "text", "text": ""})),
        text_delta(0, "It is written in Rust."),
        block_stop(0),
    ];
    events.extend(stop("end_turn", json!({})));
    sse(&events)
}

#[tokio::test]
async fn an_mcp_call_and_its_result_go_back_with_their_ids() {
    let server = serve(vec![calls_mcp(), answers_again()]).await;
    let mut conversation = conversation_of("Find the deltafold repository.");
    let (events, first) = turn(&server, &conversation, json!([])).await;
    let started: Vec<_> = events
        .iter()
        .filter_map(|event| match event {
            Event::ServerToolCallStarted { id, name, .. } => {
                Some((id.to_string(), name.to_string()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(started, [(MCP_ID.to_owned(), "remote_mcp".to_owned())]);
    let [ContentBlock::ServerToolCall(call), ContentBlock::ServerToolResult(result), ContentBlock::Text { .. }] =
        first.content.as_slice()
    else {
        panic!("{:?}", first.content);
    };
    assert_eq!(call.extras["tool_name"], "search_repositories");
    assert_eq!(call.extras["server_name"], "github");
    assert_eq!(result.tool_call_id, MCP_ID);
    conversation.push(first).unwrap();
    conversation
        .push(Message::user("Which language is it in?"))
        .unwrap();

    let (_, second) = turn(&server, &conversation, json!([])).await;
    let request = sent(&server, 1);
    assert_eq!(
        request["messages"],
        json!([
            {"role": "user", "content": "Find the deltafold repository."},
            {"role": "assistant", "content": [mcp_call(), mcp_result(),
                {"type": "text", "text": "One repository: example/deltafold."}]},
            {"role": "user", "content": "Which language is it in?"},
        ])
    );
    assert_eq!(second.text(), "It is written in Rust.");
    // A failed MCP call goes back as failed.
    let mut failed = conversation.messages()[1].as_assistant().unwrap().clone();
    if let ContentBlock::ServerToolResult(result) = &mut failed.content[1] {
        result.status = ToolStatus::Error;
    }
    let again = Conversation::from_messages([Message::user("x"), Message::Assistant(failed)])
        .unwrap()
        .to_anthropic()
        .unwrap();
    assert_eq!(again.messages[1]["content"][1]["is_error"], true);
}

// --- real recordings: each answer goes back as the blocks it streamed ---

/// The message content an Anthropic stream builds, block by block, as the Messages API's own
/// accumulation gives it (the shape its docs say to send back).
fn streamed_content(sse: &str) -> Vec<Value> {
    let mut blocks: Vec<Value> = Vec::new();
    let mut inputs: Vec<String> = Vec::new();
    for line in sse.lines() {
        let Some(data) = line.strip_prefix("data: ") else {
            continue;
        };
        let event: Value = serde_json::from_str(data).unwrap();
        let index = event["index"].as_u64().unwrap_or_default() as usize;
        match event["type"].as_str().unwrap_or_default() {
            "content_block_start" => {
                blocks.push(event["content_block"].clone());
                inputs.push(String::new());
            }
            "content_block_delta" => {
                let delta = &event["delta"];
                let block = &mut blocks[index];
                match delta["type"].as_str().unwrap_or_default() {
                    "text_delta" => {
                        block["text"] = format!(
                            "{}{}",
                            block["text"].as_str().unwrap(),
                            delta["text"].as_str().unwrap()
                        )
                        .into()
                    }
                    "thinking_delta" => {
                        block["thinking"] = format!(
                            "{}{}",
                            block["thinking"].as_str().unwrap(),
                            delta["thinking"].as_str().unwrap()
                        )
                        .into()
                    }
                    "signature_delta" => block["signature"] = delta["signature"].clone(),
                    // A citation equal to one the block has is not kept twice (the
                    // recordings' truncated `encrypted_index` makes distinct ones equal).
                    "citations_delta" => {
                        let citations = block["citations"].as_array_mut().unwrap();
                        if !citations.contains(&delta["citation"]) {
                            citations.push(delta["citation"].clone())
                        }
                    }
                    "input_json_delta" => inputs[index] += delta["partial_json"].as_str().unwrap(),
                    other => panic!("{other}"),
                }
            }
            "content_block_stop" if !inputs[index].is_empty() => {
                blocks[index]["input"] = serde_json::from_str(&inputs[index]).unwrap();
            }
            _ => {}
        }
    }
    // An empty text block carries nothing, and an empty `citations` list is no citation.
    blocks.retain(|block| block["type"] != "text" || block["text"] != "");
    for block in &mut blocks {
        if block.get("citations") == Some(&json!([])) {
            block.as_object_mut().unwrap().remove("citations");
        }
    }
    blocks
}

#[test]
fn recorded_server_tool_answers_go_back_as_they_streamed() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../research12/anthropic");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let mut compared = 0;
    for entry in entries {
        let path = entry.unwrap().path();
        let sse = std::fs::read_to_string(&path).unwrap();
        let message = deltafold::assemble(sse.as_bytes(), Options::new())
            .unwrap()
            .into_message();
        let conversation =
            Conversation::from_messages([Message::user("Go."), Message::Assistant(message)])
                .unwrap();
        let request = conversation.to_anthropic().unwrap();
        let sent = request.messages[1]["content"].as_array().unwrap();
        let streamed = streamed_content(&sse);
        for (at, (sent, streamed)) in sent.iter().zip(&streamed).enumerate() {
            assert_eq!(sent, streamed, "{} block {at}", path.display());
        }
        assert_eq!(sent.len(), streamed.len(), "{}", path.display());
        compared += 1;
    }
    assert!(compared >= 4, "{compared} recordings");
}

#[test]
fn a_gateway_re_encoding_into_anthropic_passes_the_container_on() {
    use deltafold::encode::{message_json, Encoder, Target};
    let source = runs_code_then_calls();
    let mut assembler = deltafold::Assembler::new();
    let mut encoder = Encoder::new(Target::Anthropic);
    let mut out = String::new();
    assembler.push(source.as_bytes());
    assembler.end_input();
    while let Some(event) = assembler.next_event().unwrap() {
        encoder.encode(&event.into_owned(), &assembler, &mut out);
    }
    encoder.finish(&mut out);
    let container = json!({"id": CONTAINER, "expires_at": "2026-04-24T11:13:36.730129Z"});
    let stop = out
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str::<Value>(data).unwrap())
        .find(|event| event["type"] == "message_delta")
        .unwrap();
    assert_eq!(stop["delta"]["container"], container);
    // Read back, live and whole, the answer names the same container.
    let live = deltafold::assemble(out.as_bytes(), Options::new())
        .unwrap()
        .into_message();
    assert_eq!(live.response_metadata.extra["container"], container);
    let body = message_json(Target::Anthropic, &live);
    assert_eq!(body["container"], container);
    // A container of another shape is not Anthropic's, and is not passed on.
    let mut other = live.clone();
    other
        .response_metadata
        .extra
        .insert("container".into(), json!("cntr_1"));
    assert_eq!(
        message_json(Target::Anthropic, &other).get("container"),
        None
    );
}
