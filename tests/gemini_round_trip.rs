//! A Gemini agent loop against a real HTTP server in the test process: the first answer thinks,
//! runs code (`executableCode` + `codeExecutionResult`, signed) and calls two client functions
//! in parallel (only the first signed, as Gemini 3 signs parallel calls); the app runs them and
//! builds the next request with `to_gemini()`, which must carry the model turn's parts and
//! thought signatures exactly where the first answer had them and one `functionResponse` per
//! call, named after its function; the second answer streams the final text, its signature on
//! an empty last part.
#![cfg(feature = "reqwest")]

#[path = "support/server.rs"]
mod server;

use std::sync::atomic::{AtomicUsize, Ordering};

use deltafold::conversation::Conversation;
use deltafold::message::{Message, ToolMessage};
use deltafold::{ContentBlock, Event, Options, RequestBuilderExt};
use futures::StreamExt;
use serde_json::{json, Value};
use server::{Reply, Server};

const MODEL: &str = "gemini-3-pro-preview";

/// The parts of the first answer, one chunk each, as Gemini streams them.
fn first_parts() -> Vec<Value> {
    vec![
        json!({"text": "**Summing and checking** I will add the numbers with code, then ask for the weather.", "thought": true}),
        json!({"executableCode": {"language": "PYTHON", "code": "print(sum(range(101)))\n"}, "thoughtSignature": "Q29kZVNpZ25hdHVyZQ=="}),
        json!({"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "5050\n"}}),
        json!({"text": "The sum is 5050. "}),
        json!({"text": "Now the weather and the time."}),
        json!({"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "RnVuY3Rpb25TaWduYXR1cmU="}),
        json!({"functionCall": {"name": "get_time", "args": {"city": "Paris"}}}),
    ]
}

/// An SSE stream of `GenerateContentResponse` chunks, one part each; the last one finishes.
fn stream(parts: &[Value], response_id: &str, usage: Value) -> String {
    let last = parts.len() - 1;
    parts
        .iter()
        .enumerate()
        .map(|(at, part)| {
            let mut candidate = json!({"content": {"role": "model", "parts": [part]}, "index": 0});
            let mut chunk = json!({"modelVersion": MODEL, "responseId": response_id});
            if at == last {
                candidate["finishReason"] = "STOP".into();
                chunk["usageMetadata"] = usage.clone();
            }
            chunk["candidates"] = json!([candidate]);
            format!("data: {chunk}\r\n\r\n")
        })
        .collect()
}

fn first_answer() -> String {
    let usage = json!({"promptTokenCount": 60, "candidatesTokenCount": 40, "toolUsePromptTokenCount": 90, "thoughtsTokenCount": 30, "totalTokenCount": 220});
    stream(&first_parts(), "resp-1", usage)
}

fn final_answer() -> String {
    let parts = [
        json!({"text": "The sum is 5050; in Paris it is 18°C "}),
        json!({"text": "and 10:00."}),
        json!({"text": "", "thoughtSignature": "RmluYWxTaWduYXR1cmU="}),
    ];
    let usage =
        json!({"promptTokenCount": 300, "candidatesTokenCount": 20, "totalTokenCount": 320});
    stream(&parts, "resp-2", usage)
}

/// Sends the conversation, returns the live events and the assembled message.
async fn turn(
    server: &Server,
    conversation: &Conversation,
) -> (Vec<Event<'static>>, deltafold::AiMessage) {
    let mut body = json!({
        "tools": [{"codeExecution": {}}, {"functionDeclarations": [
            {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}},
            {"name": "get_time", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}},
        ]}],
        "generationConfig": {"thinkingConfig": {"includeThoughts": true}},
    });
    conversation.to_gemini().unwrap().write_into(&mut body);
    let url = server.url(&format!(
        "/v1beta/models/{MODEL}:streamGenerateContent?alt=sse"
    ));
    let request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_string());
    let mut stream = request.send_and_assemble(Options::new()).await.unwrap();
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event.unwrap().into_owned());
    }
    (events, stream.completion().await.unwrap().into_message())
}

#[tokio::test]
async fn code_and_signed_calls_go_back_where_the_answer_had_them() {
    let served = AtomicUsize::new(0);
    let server = Server::start(move |_| {
        let body = match served.fetch_add(1, Ordering::SeqCst) {
            0 => first_answer(),
            _ => final_answer(),
        };
        Reply::event_stream(&body)
    })
    .await;
    let mut conversation = Conversation::new();
    conversation
        .push(Message::system("Use code for arithmetic."))
        .unwrap();
    conversation
        .push(Message::user(
            "What is 0 + 1 + … + 100, and the weather and time in Paris?",
        ))
        .unwrap();

    // 1. The first answer: the code ran live, before the text after it; two calls to run.
    let (events, first) = turn(&server, &conversation).await;
    let order: Vec<&str> = events
        .iter()
        .filter_map(|event| match event {
            Event::ServerToolCallFinished { .. } => Some("code"),
            Event::ServerToolResult { .. } => Some("result"),
            Event::TextDelta { .. } => Some("text"),
            Event::ToolCallFinished { .. } => Some("call"),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["code", "result", "text", "text", "call", "call"]);
    let calls: Vec<(String, String)> = first
        .tool_calls()
        .map(|call| (call.id.clone(), call.name.clone()))
        .collect();
    assert_eq!(calls.len(), 2);
    conversation.push(first).unwrap();

    // 2. The app runs the functions and answers each call.
    for (id, name) in &calls {
        let output = match name.as_str() {
            "get_weather" => "18°C, sunny",
            _ => r#"{"time": "10:00"}"#,
        };
        conversation.push(ToolMessage::new(id, output)).unwrap();
    }
    assert_eq!(conversation.pending_tool_calls().count(), 0);

    // 3. The second request: the model turn's parts exactly as streamed (adjacent text joined),
    // signatures on the very parts that had them, and the responses named after their calls.
    let (_, second) = turn(&server, &conversation).await;
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests[1]
            .target
            .ends_with(":streamGenerateContent?alt=sse"),
        "{}",
        requests[1].target
    );
    let sent: Value = serde_json::from_slice(&requests[1].body).unwrap();
    assert_eq!(
        sent["systemInstruction"],
        json!({"parts": [{"text": "Use code for arithmetic."}]})
    );
    let mut streamed = first_parts();
    streamed[3] = json!({"text": "The sum is 5050. Now the weather and the time."});
    streamed.remove(4);
    assert_eq!(
        sent["contents"],
        json!([
            {"role": "user", "parts": [{"text": "What is 0 + 1 + … + 100, and the weather and time in Paris?"}]},
            {"role": "model", "parts": streamed},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"output": "18°C, sunny"}}},
                {"functionResponse": {"name": "get_time", "response": {"time": "10:00"}}},
            ]},
        ])
    );
    assert_eq!(sent["tools"][0], json!({"codeExecution": {}}));

    // 4. The final answer; sent back next turn, its signature is on an empty last part.
    assert_eq!(
        second.text(),
        "The sum is 5050; in Paris it is 18°C and 10:00."
    );
    conversation.push(second).unwrap();
    conversation.push(Message::user("Thanks!")).unwrap();
    let next = conversation.to_gemini().unwrap();
    assert_eq!(
        next.contents[3],
        json!({"role": "model", "parts": [
            {"text": "The sum is 5050; in Paris it is 18°C and 10:00."},
            {"text": "", "thoughtSignature": "RmluYWxTaWduYXR1cmU="},
        ]})
    );
    let model = conversation.messages()[2].as_assistant().unwrap();
    assert!(matches!(
        &model.content[1],
        ContentBlock::ServerToolCall(call) if call.name == "code_interpreter"
    ));
}
