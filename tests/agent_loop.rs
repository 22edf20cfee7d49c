//! The agent loop of `examples/agent_loop.rs`, run as it is against its replay server, with each
//! step checked; and the server's check of the second request shown to refuse what is wrong.

// The example's `main` is not called here; its loop and server are.
#[allow(dead_code)]
#[path = "../examples/agent_loop.rs"]
mod agent_loop;

use std::time::Duration;

use agent_loop::replay_server::{ReplayServer, ANSWER, EXPECTED_CALLS, TOOL_CALLS};
use deltafold::conversation::Conversation;
use deltafold::message::{Message, ToolMessage};
use deltafold::{Options, RequestBuilderExt};
use serde_json::{json, Value};

const PAUSE: Duration = Duration::from_millis(1);
const FINAL_ANSWER: &str = "In Paris it is sunny and 18 °C; in Tokyo there is light rain at 24 °C.";

#[tokio::test]
async fn the_loop_asks_streams_calls_runs_tools_sends_back_and_streams_the_answer() {
    let server = ReplayServer::start(PAUSE).await.unwrap();
    let mut out = Vec::new();
    let conversation = agent_loop::run(&server.url(), &mut out).await.unwrap();
    let out = String::from_utf8(out).unwrap();
    let exchanges = server.exchanges();
    assert_eq!(exchanges.len(), 2, "{exchanges:#?}");

    // 1. The question went out; the streamed answer assembled into two parallel calls, whose
    //    arguments were shown while they streamed, before they were complete.
    assert_eq!(exchanges[0].status, 200);
    assert_eq!(
        exchanges[0].request["messages"],
        json!([
            {"role": "system", "content": "You are a weather assistant. Use the tools."},
            {"role": "user", "content": "What's the weather in Paris and in Tokyo?"}
        ])
    );
    for (index, (city, prefix)) in [("Paris", "Par"), ("Tokyo", "Tok")].iter().enumerate() {
        let partial = format!("call {index}: … {{\"city\": \"{prefix}\"}}");
        let ready = format!("call {index}: ready {{\"city\":\"{city}\"}}");
        let partial_at = out
            .find(&partial)
            .unwrap_or_else(|| panic!("{partial:?} in\n{out}"));
        let ready_at = out
            .find(&ready)
            .unwrap_or_else(|| panic!("{ready:?} in\n{out}"));
        assert!(partial_at < ready_at, "{out}");
    }
    let assistant = conversation.messages()[2].as_assistant().unwrap();
    let calls: Vec<(&str, &Value)> = assistant
        .tool_calls()
        .map(|call| (call.id.as_str(), &call.args["city"]))
        .collect();
    assert_eq!(
        calls,
        [
            ("call_paris", &json!("Paris")),
            ("call_tokyo", &json!("Tokyo"))
        ]
    );
    assert_eq!(assistant.response_metadata.finish_reason, "tool_calls");
    assert_eq!(
        assistant.usage.as_ref().map(|usage| usage.total_tokens),
        Some(133)
    );

    // 2. The tools ran locally; one tool message answers each call, with the full result kept
    //    as the artifact.
    for (message, (id, city)) in conversation.messages()[3..5].iter().zip(EXPECTED_CALLS) {
        let Message::Tool(tool) = message else {
            panic!("{message:?}")
        };
        assert_eq!(tool.tool_call_id, id);
        assert!(!tool.is_error());
        let report: Value = serde_json::from_str(&tool.text()).unwrap();
        assert_eq!(report["city"], city);
        assert_eq!(tool.artifact.as_ref(), Some(&report));
    }
    assert!(
        out.contains("tool › get_weather({\"city\":\"Tokyo\"}) = {\"city\":\"Tokyo\""),
        "{out}"
    );

    // 3. The whole conversation went back in the Chat Completions format, and the server,
    //    which checks the calls and their answers, accepted it.
    assert_eq!(exchanges[1].status, 200, "{:?}", exchanges[1].refusal);
    let sent = &exchanges[1].request["messages"];
    assert_eq!(
        sent[2]["tool_calls"][1],
        json!({"id": "call_tokyo", "type": "function",
               "function": {"name": "get_weather", "arguments": "{\"city\":\"Tokyo\"}"}})
    );
    assert_eq!(sent[3]["role"], "tool");
    assert_eq!(sent[3]["tool_call_id"], "call_paris");
    let without_answer =
        Conversation::from_messages(conversation.messages()[..5].to_vec()).unwrap();
    assert_eq!(sent, &json!(without_answer.to_openai_chat().unwrap()));

    // 4. The final answer streamed live and closed the conversation.
    assert!(
        out.contains(&format!("assistant › {FINAL_ANSWER}")),
        "{out}"
    );
    assert_eq!(conversation.len(), 6);
    assert_eq!(conversation.last().unwrap().text(), FINAL_ANSWER);
    assert_eq!(conversation.pending_tool_calls().count(), 0);
}

/// The conversation after the first round, with the calls of the recorded stream.
fn after_the_calls() -> Conversation {
    let mut conversation = Conversation::from_messages([
        Message::system("You are a weather assistant. Use the tools."),
        Message::user("What's the weather in Paris and in Tokyo?"),
    ])
    .unwrap();
    let calls = deltafold::assemble(TOOL_CALLS.as_bytes(), Options::new()).unwrap();
    conversation.push(calls.into_message()).unwrap();
    conversation
}

async fn send(server: &ReplayServer, messages: Value) -> Result<String, deltafold::Error> {
    let body = json!({"model": "gpt-4o-mini", "stream": true, "messages": messages});
    let request = reqwest::Client::new()
        .post(server.url())
        .header("content-type", "application/json")
        .body(body.to_string());
    let events = request.send_and_assemble(Options::new()).await?;
    Ok(events.completion().await?.into_message().text())
}

#[tokio::test]
async fn the_server_refuses_a_second_request_without_the_calls_and_their_answers() {
    let server = ReplayServer::start(PAUSE).await.unwrap();
    let mut conversation = after_the_calls();
    conversation
        .push(ToolMessage::new("call_paris", "18 °C"))
        .unwrap();
    conversation
        .push(ToolMessage::new("call_tokyo", "24 °C"))
        .unwrap();
    let valid = json!(conversation.to_openai_chat().unwrap());
    assert_eq!(
        send(&server, valid.clone()).await.unwrap(),
        deltafold::assemble(ANSWER.as_bytes(), Options::new())
            .unwrap()
            .into_message()
            .text()
    );

    let mut one_answer = valid.clone();
    one_answer.as_array_mut().unwrap().pop();
    let mut arguments_as_object = valid.clone();
    arguments_as_object[2]["tool_calls"][0]["function"]["arguments"] = json!({"city": "Paris"});
    let mut wrong_id = valid.clone();
    wrong_id[4]["tool_call_id"] = json!("call_berlin");
    let mut no_calls = valid.clone();
    no_calls[2].as_object_mut().unwrap().remove("tool_calls");
    let cases = [
        (
            one_answer,
            "only [\"call_paris\"] of the calls are answered",
        ),
        (
            arguments_as_object,
            "the arguments of call_paris must be a JSON string",
        ),
        (
            wrong_id,
            "the tool message for \"call_berlin\" answers no open call",
        ),
        (no_calls, "the assistant message has no `tool_calls` array"),
    ];
    for (messages, reason) in cases {
        let error = send(&server, messages).await.unwrap_err();
        assert_eq!(error.status_code(), Some(400), "{error}");
        assert_eq!(
            error.provider_error().map(|e| e.message.as_str()),
            Some(reason)
        );
    }
    let statuses: Vec<u16> = server
        .exchanges()
        .iter()
        .map(|exchange| exchange.status)
        .collect();
    assert_eq!(statuses, [200, 400, 400, 400, 400]);
}

/// The README shows the example's output as it is: the loop's lines, then the example's
/// request summary.
#[tokio::test]
async fn the_readme_shows_what_the_loop_prints() {
    let server = ReplayServer::start(PAUSE).await.unwrap();
    let mut out = Vec::new();
    agent_loop::run(&server.url(), &mut out).await.unwrap();
    let out = String::from_utf8(out).unwrap();
    let readme = include_str!("../README.md");
    let section = &readme[readme
        .find("**The agent loop**")
        .expect("the agent-loop section")..];
    let start = section.find("```text\n").expect("its sample output") + "```text\n".len();
    let shown = &section[start..start + section[start..].find("```").unwrap()];
    assert!(shown.starts_with(&out), "README:\n{shown}\nprinted:\n{out}");
    assert!(shown.ends_with(
        "request 2: 5 messages → 200 streamed the answer\nthe conversation now holds 6 messages\n"
    ));
}
