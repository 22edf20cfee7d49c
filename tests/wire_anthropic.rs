//! Anthropic Messages requests: hand-checked bodies and round trips.

use deltafold::message::{
    AiMessage, ContentBlock, InvalidToolCall, MediaBlock, Message, SystemMessage, ToolCall,
    ToolMessage, UserMessage,
};
use deltafold::wire::anthropic::{self, AnthropicRequest};
use deltafold::wire::{WireError, WireFormat};
use serde_json::{json, Value};

fn call(id: &str, city: &str) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall {
        id: id.into(),
        name: "get_weather".into(),
        args: json!({"city": city}).as_object().unwrap().clone(),
        ..ToolCall::default()
    })
}

fn thinking(text: &str, signature: &str) -> ContentBlock {
    ContentBlock::Reasoning {
        text: text.into(),
        signature: Some(signature.into()),
        data: None,
        extras: Default::default(),
    }
}

/// The weather conversation: a picture, thinking, two parallel calls, one failed, the answer.
fn weather() -> Vec<Message> {
    vec![
        Message::system("You are a weather bot."),
        Message::user(vec![
            ContentBlock::text("What's the weather in Paris and Tokyo? Here is my sky:"),
            ContentBlock::image(MediaBlock::base64("iVBORw0KGgo=", "image/png")),
        ]),
        Message::from(AiMessage {
            content: vec![
                thinking("Two cities, two calls.", "EqQBCkYIARgCIkA"),
                ContentBlock::text("Let me check."),
                call("toolu_paris", "Paris"),
                call("toolu_tokyo", "Tokyo"),
            ],
            ..AiMessage::default()
        }),
        Message::tool("toolu_paris", "18°C, sunny"),
        Message::from(ToolMessage::error(
            "toolu_tokyo",
            "the weather service timed out",
        )),
        Message::from(AiMessage {
            content: vec![ContentBlock::text(
                "Paris: 18°C and sunny. Tokyo: the service timed out.",
            )],
            ..AiMessage::default()
        }),
    ]
}

/// The request as the Messages API reference spells it, written by hand.
fn weather_wire() -> Value {
    json!({
        "system": "You are a weather bot.",
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "What's the weather in Paris and Tokyo? Here is my sky:"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
            ]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Two cities, two calls.", "signature": "EqQBCkYIARgCIkA"},
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "toolu_paris", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "toolu_tokyo", "name": "get_weather", "input": {"city": "Tokyo"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_paris", "content": "18°C, sunny"},
                {"type": "tool_result", "tool_use_id": "toolu_tokyo",
                 "content": "the weather service timed out", "is_error": true}
            ]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Paris: 18°C and sunny. Tokyo: the service timed out."}
            ]}
        ]
    })
}

#[test]
fn the_weather_conversation_matches_the_hand_checked_body() {
    let request = anthropic::encode(&weather()).unwrap();
    assert_eq!(serde_json::to_value(&request).unwrap(), weather_wire());
}

/// A conversation as read from an Anthropic request: its assistant messages are Anthropic's
/// (so that no other format sends their signatures as its own).
fn read_from_anthropic(mut messages: Vec<Message>) -> Vec<Message> {
    for message in &mut messages {
        if let Message::Assistant(message) = message {
            message.response_metadata.model_provider = Some("anthropic".into());
        }
    }
    messages
}

#[test]
fn the_hand_checked_body_round_trips_both_ways() {
    let decoded = anthropic::decode(&weather_wire()).unwrap();
    assert_eq!(decoded, read_from_anthropic(weather()));
    let request = anthropic::encode(&decoded).unwrap();
    assert_eq!(serde_json::to_value(request).unwrap(), weather_wire());
}

#[test]
fn write_into_completes_a_request_body() {
    let mut body = json!({"model": "claude-sonnet-4-5", "max_tokens": 1024});
    anthropic::encode(&weather()).unwrap().write_into(&mut body);
    assert_eq!(body["model"], "claude-sonnet-4-5");
    assert_eq!(body["system"], weather_wire()["system"]);
    assert_eq!(body["messages"], weather_wire()["messages"]);
    let mut without_system = json!({});
    AnthropicRequest::default().write_into(&mut without_system);
    assert_eq!(without_system, json!({"messages": []}));
}

/// Documents, redacted thinking, citations, cache control, server tools.
fn documents_and_more() -> Value {
    json!({
        "system": [
            {"type": "text", "text": "You answer from the documents."},
            {"type": "text", "text": "Cite them.", "cache_control": {"type": "ephemeral"}}
        ],
        "messages": [
            {"role": "user", "content": [
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjQK"},
                 "title": "Report", "citations": {"enabled": true}},
                {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The sky is blue."},
                 "context": "notes"},
                {"type": "document", "source": {"type": "url", "url": "https://example.com/a.pdf"}},
                {"type": "image", "source": {"type": "file", "file_id": "file_011"}},
                {"type": "image", "source": {"type": "url", "url": "https://example.com/sky.png"}},
                {"type": "text", "text": "What colour is the sky?", "cache_control": {"type": "ephemeral"}}
            ]},
            {"role": "assistant", "content": [
                {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "sky colour"}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
                {"type": "text", "text": "The sky is blue.", "citations": [
                    {"type": "char_location", "cited_text": "The sky is blue.", "document_index": 1,
                     "document_title": null, "start_char_index": 0, "end_char_index": 16}
                ]}
            ]},
            {"role": "user", "content": "Thanks!"}
        ]
    })
}

#[test]
fn documents_citations_and_cache_control_round_trip() {
    let wire = documents_and_more();
    let decoded = anthropic::decode(&wire).unwrap();
    assert_eq!(decoded.len(), 5, "{decoded:#?}");
    // Typed where deltafold has a type…
    assert_eq!(
        decoded[1].extra()["cache_control"],
        json!({"type": "ephemeral"})
    );
    let Message::User(user) = &decoded[2] else {
        panic!()
    };
    let blocks = user.content.blocks();
    assert!(matches!(&blocks[0], ContentBlock::File(media) if media.extras["title"] == "Report"));
    assert_eq!(
        blocks[1],
        ContentBlock::PlainText(
            MediaBlock::text("The sky is blue.").with_extra("context", "notes")
        )
    );
    assert_eq!(user.extra["cache_control"], json!({"type": "ephemeral"}));
    let assistant = decoded[3].as_assistant().unwrap();
    assert_eq!(assistant.text(), "The sky is blue.");
    let citations = assistant.content[3].citations();
    assert_eq!(citations[0].cited_text.as_deref(), Some("The sky is blue."));
    // Anthropic's character positions are in the cited document, not in the answer's text.
    assert_eq!(
        (citations[0].start_index, citations[0].end_index),
        (None, None)
    );
    assert_eq!(
        (
            &citations[0].extras["start_char_index"],
            &citations[0].extras["end_char_index"]
        ),
        (&json!(0), &json!(16))
    );
    assert!(
        matches!(&assistant.content[0], ContentBlock::Reasoning { data: Some(data), .. } if data == "EmwKAhgBEgy3va3pzix")
    );
    // …and the whole request goes back exactly as it came.
    let back = anthropic::encode(&decoded).unwrap();
    assert_eq!(serde_json::to_value(back).unwrap(), wire);
}

#[test]
fn consecutive_tool_messages_share_one_user_message_and_extras_go_on_blocks() {
    let messages = vec![
        Message::from(
            SystemMessage::new("Be brief.")
                .with_extra("cache_control", json!({"type": "ephemeral"})),
        ),
        Message::from(
            UserMessage::new("Hi")
                .with_name("alice")
                .with_extra("cache_control", json!({"type": "ephemeral"})),
        ),
        Message::from(AiMessage {
            content: vec![
                ContentBlock::reasoning("no signature: another provider's"),
                ContentBlock::text(""),
                call("a", "Paris"),
                ContentBlock::InvalidToolCall(InvalidToolCall {
                    id: "b".into(),
                    name: "get_weather".into(),
                    args: "{\"city\": ".into(),
                    error: "EOF".into(),
                    ..InvalidToolCall::default()
                }),
                ContentBlock::refusal("Not Tokyo."),
            ],
            ..AiMessage::default()
        }),
        Message::from(
            ToolMessage::new("a", "").with_extra("cache_control", json!({"type": "ephemeral"})),
        ),
        Message::from(ToolMessage::new(
            "b",
            vec![
                ContentBlock::text("invalid arguments; the map:"),
                ContentBlock::image(MediaBlock::url("https://example.com/map.png")),
            ],
        )),
        Message::user("Go on."),
    ];
    let request = anthropic::encode(&messages).unwrap();
    assert_eq!(
        serde_json::to_value(request).unwrap(),
        json!({
            "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "Hi", "cache_control": {"type": "ephemeral"}}
                ]},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "a", "name": "get_weather", "input": {"city": "Paris"}},
                    {"type": "tool_use", "id": "b", "name": "get_weather", "input": {}},
                    {"type": "text", "text": "Not Tokyo."}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "a", "cache_control": {"type": "ephemeral"}},
                    {"type": "tool_result", "tool_use_id": "b", "content": [
                        {"type": "text", "text": "invalid arguments; the map:"},
                        {"type": "image", "source": {"type": "url", "url": "https://example.com/map.png"}}
                    ]}
                ]},
                {"role": "user", "content": "Go on."}
            ]
        })
    );
}

#[test]
fn what_the_format_cannot_carry_is_an_error_naming_the_message() {
    let error = anthropic::encode(&[Message::user("hi"), Message::system("late")]).unwrap_err();
    assert_eq!(
        error,
        WireError::MisplacedSystem {
            format: WireFormat::Anthropic,
            index: 1
        }
    );
    let cases = [
        (
            Message::chat("developer", "x"),
            "a message with the role \"developer\"",
        ),
        (
            Message::user(ContentBlock::audio(MediaBlock::base64("UklG", "audio/wav"))),
            "audio in a user message",
        ),
        (
            Message::user(ContentBlock::image(MediaBlock::from_source(
                deltafold::message::MediaSource::Base64("iVBO".into()),
            ))),
            "a base64 image without a MIME type",
        ),
    ];
    for (message, what) in cases {
        let error = anthropic::encode(&[message]).unwrap_err();
        assert_eq!(
            error,
            WireError::Unsupported {
                format: WireFormat::Anthropic,
                index: 0,
                what: what.into()
            }
        );
    }
}

#[test]
fn malformed_requests_are_errors() {
    for (wire, reason) in [
        (json!({"system": "x"}), "no `messages` array"),
        (
            json!({"messages": [{"role": "system", "content": "x"}]}),
            "neither user nor assistant",
        ),
        (
            json!({"messages": [{"role": "user", "content": [{"type": "tool_result"}]}]}),
            "`tool_use_id` is missing",
        ),
        (
            json!({"messages": [{"role": "user", "content": [{"type": "image", "source": {"type": "base64"}}]}]}),
            "`data` is missing",
        ),
        (json!({"system": 3, "messages": []}), "`system` is 3"),
    ] {
        let error = anthropic::decode(&wire).unwrap_err();
        assert!(
            error.to_string().contains(reason),
            "{error} should contain {reason:?}"
        );
    }
}

#[test]
fn a_tool_use_whose_input_is_not_an_object_reads_as_an_invalid_call() {
    let wire = json!({"messages": [{"role": "assistant", "content": [
        {"type": "tool_use", "id": "t", "name": "f", "input": "oops"}
    ]}]});
    let decoded = anthropic::decode(&wire).unwrap();
    let invalid: Vec<_> = decoded[0]
        .as_assistant()
        .unwrap()
        .invalid_tool_calls()
        .collect();
    assert_eq!(invalid[0].args, "\"oops\"");
}

#[test]
fn server_tool_blocks_of_an_assembled_answer_go_back_as_anthropic_streamed_them() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/anthropic");
    let body = std::fs::read(dir.join("server_tools.sse")).unwrap();
    let message = deltafold::assemble(&body, deltafold::Options::new())
        .unwrap()
        .into_message();
    let request = anthropic::encode(&[Message::user("2+2?"), Message::from(message)]).unwrap();
    let sent = serde_json::to_value(request).unwrap()["messages"][1]["content"].clone();
    assert_eq!(
        sent[0],
        json!({"type": "server_tool_use", "id": "srvtoolu_01Bash", "name": "bash_code_execution", "input": {"command": "python3 -c 'print(2+2)'"}})
    );
    assert_eq!(
        sent[1],
        json!({"type": "bash_code_execution_tool_result", "tool_use_id": "srvtoolu_01Bash", "content": {"type": "bash_code_execution_result", "stdout": "4\n", "stderr": "", "return_code": 0, "content": []}})
    );
    assert_eq!(
        sent[3]["content"],
        json!({"type": "web_fetch_tool_result_error", "error_code": "url_not_accessible"})
    );
    assert_eq!(
        sent[4],
        json!({"type": "mcp_tool_use", "id": "mcptoolu_01Wiki", "name": "ask_question", "server_name": "deepwiki", "input": {"repoName": "rust-lang/rust"}})
    );
    assert_eq!(
        sent[5],
        json!({"type": "mcp_tool_result", "tool_use_id": "mcptoolu_01Wiki", "is_error": true, "content": [{"type": "text", "text": "repository not indexed"}]})
    );
    assert_eq!(
        sent[6],
        json!({"type": "container_upload", "file_id": "file_011Chart"})
    );
}

#[test]
fn a_compaction_block_goes_back_as_it_streamed_with_its_summary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/anthropic");
    let body = std::fs::read(dir.join("compaction.sse")).unwrap();
    let message = deltafold::assemble(&body, deltafold::Options::new())
        .unwrap()
        .into_message();
    let request = anthropic::encode(&[Message::user("Go on."), Message::from(message)]).unwrap();
    let sent = serde_json::to_value(request).unwrap()["messages"][1]["content"].clone();
    // What BetaCompactionBlockParam takes: the summary and the opaque metadata, verbatim.
    assert_eq!(
        sent,
        json!([
            {"type": "compaction",
             "content": "The user is migrating a Flask app to FastAPI; routes and tests are ported, the \"auth\" middleware is next.",
             "encrypted_content": "EqQBCkgIBxABGAIiQL0pZ"},
            {"type": "text", "text": "Next: the auth middleware."}
        ])
    );
}
