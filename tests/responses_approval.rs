//! An agent loop over the OpenAI Responses API against a real HTTP server in the test process:
//! the first answer asks to approve a remote MCP call, the app approves it, the next request
//! carries the history and the `mcp_approval_response`, and the second answer streams the call
//! (its progress and arguments live) and its output.
#![cfg(feature = "reqwest")]

#[path = "support/server.rs"]
mod server;

use std::sync::atomic::{AtomicUsize, Ordering};

use deltafold::conversation::Conversation;
use deltafold::message::{ContentBlock, Message, ServerToolStatus, ToolApprovalResponse};
use deltafold::{Event, Options, RequestBuilderExt};
use futures::StreamExt;
use serde_json::{json, Value};
use server::{Reply, Server};

/// An SSE stream of Responses events, each named by its type.
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

/// The first answer: the server's tools listed, then an approval request, and the turn ends.
fn asks_approval() -> String {
    let request = json!({"id": "mcpr_1", "type": "mcp_approval_request", "server_label": "deepwiki", "name": "ask_question", "arguments": "{\"repoName\":\"rust-lang/rust\",\"question\":\"What is a trait?\"}"});
    let tools = json!({"id": "mcpl_1", "type": "mcp_list_tools", "server_label": "deepwiki", "tools": [{"name": "ask_question", "input_schema": {"type": "object"}}]});
    sse(&[
        json!({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1", "model": "gpt-5-mini", "status": "in_progress", "created_at": 1760000000}}),
        json!({"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": {"id": "mcpl_1", "type": "mcp_list_tools", "server_label": "deepwiki", "tools": []}}),
        json!({"type": "response.mcp_list_tools.in_progress", "sequence_number": 2, "output_index": 0, "item_id": "mcpl_1"}),
        json!({"type": "response.mcp_list_tools.completed", "sequence_number": 3, "output_index": 0, "item_id": "mcpl_1"}),
        json!({"type": "response.output_item.done", "sequence_number": 4, "output_index": 0, "item": tools}),
        json!({"type": "response.output_item.added", "sequence_number": 5, "output_index": 1, "item": request}),
        json!({"type": "response.output_item.done", "sequence_number": 6, "output_index": 1, "item": request}),
        json!({"type": "response.completed", "sequence_number": 7, "response": {"id": "resp_1", "model": "gpt-5-mini", "status": "completed", "usage": {"input_tokens": 300, "output_tokens": 20, "total_tokens": 320}}}),
    ])
}

/// The second answer: the approved call runs, its output comes, then the text.
fn runs_the_call() -> String {
    let done = json!({"id": "mcp_1", "type": "mcp_call", "status": "completed", "approval_request_id": "mcpr_1", "server_label": "deepwiki", "name": "ask_question", "arguments": "{\"repoName\":\"rust-lang/rust\",\"question\":\"What is a trait?\"}", "output": "A trait defines shared behaviour.", "error": null});
    sse(&[
        json!({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_2", "model": "gpt-5-mini", "status": "in_progress"}}),
        json!({"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": {"id": "mcp_1", "type": "mcp_call", "status": "in_progress", "approval_request_id": "mcpr_1", "server_label": "deepwiki", "name": "ask_question", "arguments": "", "output": null, "error": null}}),
        json!({"type": "response.mcp_call.in_progress", "sequence_number": 2, "output_index": 0, "item_id": "mcp_1"}),
        json!({"type": "response.mcp_call_arguments.delta", "sequence_number": 3, "output_index": 0, "item_id": "mcp_1", "delta": "{\"repoName\":\"rust-lang/rust\","}),
        json!({"type": "response.mcp_call_arguments.delta", "sequence_number": 4, "output_index": 0, "item_id": "mcp_1", "delta": "\"question\":\"What is a trait?\"}"}),
        json!({"type": "response.mcp_call_arguments.done", "sequence_number": 5, "output_index": 0, "item_id": "mcp_1", "arguments": "{\"repoName\":\"rust-lang/rust\",\"question\":\"What is a trait?\"}"}),
        json!({"type": "response.mcp_call.completed", "sequence_number": 6, "output_index": 0, "item_id": "mcp_1"}),
        json!({"type": "response.output_item.done", "sequence_number": 7, "output_index": 0, "item": done}),
        json!({"type": "response.output_item.added", "sequence_number": 8, "output_index": 1, "item": {"id": "msg_2", "type": "message", "role": "assistant", "status": "in_progress", "content": []}}),
        json!({"type": "response.output_text.delta", "sequence_number": 9, "output_index": 1, "content_index": 0, "item_id": "msg_2", "delta": "Traits define shared behaviour."}),
        json!({"type": "response.output_text.done", "sequence_number": 10, "output_index": 1, "content_index": 0, "item_id": "msg_2", "text": "Traits define shared behaviour."}),
        json!({"type": "response.completed", "sequence_number": 11, "response": {"id": "resp_2", "model": "gpt-5-mini", "status": "completed", "usage": {"input_tokens": 400, "output_tokens": 30, "total_tokens": 430}}}),
    ])
}

/// Sends `input`, returns the live events and the assembled message.
async fn turn(server: &Server, input: &[Value]) -> (Vec<Event<'static>>, deltafold::AiMessage) {
    let body = json!({"model": "gpt-5-mini", "stream": true, "input": input,
                      "tools": [{"type": "mcp", "server_label": "deepwiki", "server_url": "https://mcp.deepwiki.com/mcp", "require_approval": "always"}]});
    let request = reqwest::Client::new()
        .post(server.url("/v1/responses"))
        .header("content-type", "application/json")
        .body(body.to_string());
    let mut stream = request.send_and_assemble(Options::new()).await.unwrap();
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event.unwrap());
    }
    (events, stream.completion().await.unwrap().into_message())
}

#[tokio::test]
async fn an_approval_goes_back_and_the_approved_call_streams() {
    let served = AtomicUsize::new(0);
    let server = Server::start(move |_| {
        let body = match served.fetch_add(1, Ordering::SeqCst) {
            0 => asks_approval(),
            _ => runs_the_call(),
        };
        Reply::event_stream(&body)
    })
    .await;
    let mut conversation = Conversation::new();
    conversation
        .push(Message::user(
            "Ask deepwiki what a trait is in rust-lang/rust.",
        ))
        .unwrap();

    // 1. The first answer asks for an approval, live and in the message.
    let (events, first) = turn(&server, &conversation.to_openai_responses().unwrap()).await;
    let asked: Vec<_> = events
        .iter()
        .filter_map(|event| match event {
            Event::ToolApprovalRequested { request, .. } => Some(request.clone().into_owned()),
            _ => None,
        })
        .collect();
    assert_eq!(asked.len(), 1, "{events:?}");
    assert_eq!(
        (asked[0].id.as_str(), asked[0].name.as_str()),
        ("mcpr_1", "ask_question")
    );
    assert_eq!(asked[0].args["question"], "What is a trait?");
    conversation.push(first).unwrap();
    assert_eq!(conversation.pending_approvals().count(), 1);

    // 2. The app approves; an answer to a request nobody made is refused.
    let unknown = ToolApprovalResponse {
        approval_request_id: "mcpr_nope".into(),
        approve: true,
        reason: None,
    };
    assert!(conversation.answer_approval(unknown).is_err());
    conversation
        .answer_approval(ToolApprovalResponse::approve(&asked[0]))
        .unwrap();
    assert_eq!(conversation.pending_approvals().count(), 0);

    // 3. The second request carries the history and the approval.
    let (events, second) = turn(&server, &conversation.to_openai_responses().unwrap()).await;
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let mut sent: Value = serde_json::from_slice(&requests[1].body).unwrap();
    // The arguments go back as JSON text (key order is serde_json's).
    let arguments = sent["input"][2]["arguments"].take();
    assert_eq!(
        serde_json::from_str::<Value>(arguments.as_str().unwrap()).unwrap(),
        json!({"repoName": "rust-lang/rust", "question": "What is a trait?"})
    );
    assert_eq!(
        sent["input"],
        json!([
            {"type": "message", "role": "user", "content": "Ask deepwiki what a trait is in rust-lang/rust."},
            {"type": "mcp_list_tools", "id": "mcpl_1", "server_label": "deepwiki",
             "tools": [{"name": "ask_question", "input_schema": {"type": "object"}}]},
            {"type": "mcp_approval_request", "id": "mcpr_1", "server_label": "deepwiki", "name": "ask_question",
             "arguments": null},
            {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": true},
        ])
    );

    // 4. The approved call streamed: its progress, its arguments, its output.
    let progress: Vec<ServerToolStatus> = events
        .iter()
        .filter_map(|event| match event {
            Event::ServerToolCallProgress { id, status, .. } if id == "mcp_1" => Some(*status),
            _ => None,
        })
        .collect();
    assert_eq!(
        progress,
        [ServerToolStatus::InProgress, ServerToolStatus::Completed]
    );
    let arguments: String = events
        .iter()
        .filter_map(|event| match event {
            Event::ServerToolCallArgumentsDelta { delta, .. } => Some(delta.as_ref()),
            _ => None,
        })
        .collect();
    assert_eq!(
        arguments,
        "{\"repoName\":\"rust-lang/rust\",\"question\":\"What is a trait?\"}"
    );
    conversation.push(second).unwrap();

    // 5. The conversation ends with the call, its result and the answer.
    assert_eq!(conversation.len(), 4);
    let last = conversation.last().unwrap().as_assistant().unwrap();
    let [ContentBlock::ServerToolCall(call), ContentBlock::ServerToolResult(result), ContentBlock::Text { text, .. }] =
        last.content.as_slice()
    else {
        panic!("{:?}", last.content);
    };
    assert_eq!(
        (call.id.as_str(), call.name.as_str()),
        ("mcp_1", "remote_mcp")
    );
    assert_eq!(call.extras["approval_request_id"], "mcpr_1");
    assert_eq!(result.tool_call_id, "mcp_1");
    assert_eq!(
        result.output,
        Some(json!("A trait defines shared behaviour."))
    );
    assert_eq!(text, "Traits define shared behaviour.");
    // Sent back next turn, the call is one `mcp_call` item with its output.
    let next = conversation.to_openai_responses().unwrap();
    assert_eq!(next[4]["type"], "mcp_call");
    assert_eq!(next[4]["id"], "mcp_1");
    assert_eq!(next[4]["name"], "ask_question");
    assert_eq!(next[4]["output"], "A trait defines shared behaviour.");
    assert_eq!(
        next[5],
        json!({"type": "message", "role": "assistant", "content": "Traits define shared behaviour."})
    );
}
