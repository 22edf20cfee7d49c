//! LangChain's `messages_to_dict` / `messages_from_dict` format: dicts LangChain wrote, read and
//! written back; round trips of every message kind.

use deltafold::message::{
    AiMessage, ChatMessage, ContentBlock, FinishReason, MediaBlock, Message, ResponseMetadata,
    SystemMessage, ToolCall, ToolMessage, UserMessage,
};
use deltafold::wire::langchain::{message_from_dict, messages_from_dict, messages_to_dict};
use serde_json::{json, Value};

/// Written by langchain-core 1.8 `messages_to_dict` for the weather conversation, and checked by
/// hand against LangChain's message classes.
fn written_by_langchain() -> Value {
    json!([
        {"type": "system", "data": {"content": "You are a weather bot.", "additional_kwargs": {},
            "response_metadata": {}, "type": "system", "name": null, "id": null}},
        {"type": "human", "data": {"content": [
                {"type": "text", "text": "Weather in Paris and Tokyo? My sky:"},
                {"type": "image", "url": "https://example.com/sky.png", "mime_type": "image/png"}],
            "additional_kwargs": {"locale": "fr"}, "response_metadata": {}, "type": "human",
            "name": "alice", "id": "msg-1"}},
        {"type": "ai", "data": {"content": "Let me check.", "additional_kwargs": {},
            "response_metadata": {"finish_reason": "tool_calls", "model_name": "gpt-4o"},
            "type": "ai", "name": null, "id": "chatcmpl-1",
            "tool_calls": [
                {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_paris", "type": "tool_call"},
                {"name": "get_weather", "args": {"city": "Tokyo"}, "id": "call_tokyo", "type": "tool_call"}],
            "invalid_tool_calls": [], "usage_metadata": null}},
        {"type": "tool", "data": {"content": "18°C, sunny", "additional_kwargs": {},
            "response_metadata": {}, "type": "tool", "name": "get_weather", "id": null,
            "tool_call_id": "call_paris", "artifact": {"celsius": 18}, "status": "success"}},
        {"type": "tool", "data": {"content": "timeout", "additional_kwargs": {},
            "response_metadata": {}, "type": "tool", "name": null, "id": null,
            "tool_call_id": "call_tokyo", "artifact": null, "status": "error"}},
        {"type": "chat", "data": {"content": "Good.", "additional_kwargs": {},
            "response_metadata": {}, "type": "chat", "name": null, "id": null, "role": "critic"}}
    ])
}

fn call(id: &str, city: &str) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall {
        id: id.into(),
        name: "get_weather".into(),
        args: json!({"city": city}).as_object().unwrap().clone(),
        ..ToolCall::default()
    })
}

fn weather() -> Vec<Message> {
    vec![
        Message::system("You are a weather bot."),
        Message::from(
            UserMessage::new(vec![
                ContentBlock::text("Weather in Paris and Tokyo? My sky:"),
                ContentBlock::image(
                    MediaBlock::url("https://example.com/sky.png").with_mime_type("image/png"),
                ),
            ])
            .with_name("alice")
            .with_id("msg-1")
            .with_extra("locale", "fr"),
        ),
        Message::from(AiMessage {
            id: Some("chatcmpl-1".into()),
            content: vec![
                ContentBlock::text("Let me check."),
                call("call_paris", "Paris"),
                call("call_tokyo", "Tokyo"),
            ],
            response_metadata: ResponseMetadata {
                finish_reason: FinishReason::TOOL_CALLS,
                model_name: Some("gpt-4o".into()),
                ..ResponseMetadata::default()
            },
            ..AiMessage::default()
        }),
        Message::from(
            ToolMessage::new("call_paris", "18°C, sunny")
                .with_name("get_weather")
                .with_artifact(json!({"celsius": 18})),
        ),
        Message::from(ToolMessage::error("call_tokyo", "timeout")),
        Message::chat("critic", "Good."),
    ]
}

#[test]
fn reads_what_langchain_wrote() {
    let dicts = written_by_langchain();
    assert_eq!(
        messages_from_dict(dicts.as_array().unwrap()).unwrap(),
        weather()
    );
}

#[test]
fn writes_what_langchain_writes() {
    let ours = messages_to_dict(&weather());
    let theirs = written_by_langchain();
    for (index, (ours, theirs)) in ours.iter().zip(theirs.as_array().unwrap()).enumerate() {
        let mut ours = ours.clone();
        // deltafold adds the ordered blocks to AI messages, so reasoning and the order of text
        // and calls survive; LangChain takes them as its `content_blocks`, and the
        // `output_version: "v1"` beside them tells LangChain they are standard blocks.
        if let Some(data) = ours["data"]
            .as_object_mut()
            .filter(|data| data["type"] == "ai")
        {
            data.remove("content_blocks");
            assert_eq!(data["response_metadata"]["output_version"], "v1");
            data["response_metadata"]
                .as_object_mut()
                .unwrap()
                .remove("output_version");
        }
        assert_eq!(&ours, theirs, "message {index}");
    }
}

#[test]
fn every_kind_round_trips() {
    let messages = vec![
        Message::from(
            SystemMessage::new("Be brief.")
                .with_id("s1")
                .with_extra("__openai_role__", "developer"),
        ),
        Message::from(UserMessage::new(vec![
            ContentBlock::text("All of these:"),
            ContentBlock::audio(MediaBlock::base64("UklGRg==", "audio/wav")),
            ContentBlock::video(MediaBlock::file_id("file-v")),
            ContentBlock::file(
                MediaBlock::base64("JVBERi0=", "application/pdf").with_filename("a.pdf"),
            ),
            ContentBlock::PlainText(
                MediaBlock::text("The sky is blue.")
                    .with_extra("title", "Notes")
                    .with_extra("context", "field notes"),
            ),
            ContentBlock::NonStandard {
                value: json!({"type": "search_result", "source": "https://x.test", "content": []}),
            },
        ])),
        Message::from(AiMessage {
            content: vec![
                ContentBlock::Reasoning {
                    text: "Think.".into(),
                    signature: Some("sig".into()),
                    data: None,
                    extras: Default::default(),
                },
                ContentBlock::text("Answer."),
            ],
            ..AiMessage::default()
        }),
        Message::from(ToolMessage::new(
            "call_1",
            vec![
                ContentBlock::text("map:"),
                ContentBlock::image(MediaBlock::url("https://x.test/m.png")),
            ],
        )),
        Message::from(
            ChatMessage::new("critic", "ok")
                .with_name("c")
                .with_id("c1"),
        ),
    ];
    let dicts = messages_to_dict(&messages);
    assert_eq!(messages_from_dict(&dicts).unwrap(), messages);
    // Plain text stays a string, `text-plain` keeps LangChain's own `title`/`context`.
    assert_eq!(dicts[0]["data"]["content"], "Be brief.");
    assert_eq!(
        dicts[1]["data"]["content"][4],
        json!({"type": "text-plain", "text": "The sky is blue.", "mime_type": "text/plain",
               "title": "Notes", "context": "field notes"})
    );
    assert_eq!(dicts[1]["data"]["content"][5]["type"], "search_result");
}

#[test]
fn reads_an_anthropic_ai_message_as_langchain_keeps_it() {
    // ChatAnthropic keeps Anthropic's blocks in `content` and the calls in `tool_calls`.
    let dict = json!({"type": "ai", "data": {
        "content": [
            {"type": "thinking", "thinking": "Two calls.", "signature": "EqQB"},
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
        ],
        "additional_kwargs": {}, "response_metadata": {"stop_reason": "tool_use"}, "type": "ai",
        "name": null, "id": "msg_01", "tool_calls": [
            {"name": "get_weather", "args": {"city": "Paris"}, "id": "toolu_1", "type": "tool_call"}
        ], "invalid_tool_calls": [], "usage_metadata": null}});
    let message = message_from_dict(&dict).unwrap();
    let assistant = message.as_assistant().unwrap();
    assert_eq!(assistant.reasoning(), "Two calls.");
    assert_eq!(assistant.text(), "Checking.");
    assert_eq!(
        assistant.tool_calls().count(),
        1,
        "tool_use is not read twice"
    );
    assert!(
        matches!(&assistant.content[0], ContentBlock::Reasoning { signature: Some(s), .. } if s == "EqQB")
    );
    assert!(assistant
        .content
        .iter()
        .any(|block| matches!(block, ContentBlock::NonStandard { value } if value["type"] == "server_tool_use")));
}

#[test]
fn reads_older_blocks_and_openai_parts_inside_langchain_content() {
    let dict = json!({"type": "human", "data": {"content": [
        "plain string item",
        {"type": "image", "source_type": "url", "url": "https://x.test/a.png"},
        {"type": "file", "source_type": "id", "id": "file-1"},
        {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/"}},
        {"type": "input_audio", "input_audio": {"data": "SUQz", "format": "mp3"}}
    ]}});
    let message = message_from_dict(&dict).unwrap();
    let Message::User(user) = &message else {
        panic!("{message:?}")
    };
    assert_eq!(
        user.content.blocks().to_vec(),
        vec![
            ContentBlock::text("plain string item"),
            ContentBlock::image(MediaBlock::url("https://x.test/a.png")),
            ContentBlock::file(MediaBlock::file_id("file-1")),
            ContentBlock::image(MediaBlock::base64("/9j/", "image/jpeg")),
            ContentBlock::audio(MediaBlock::base64("SUQz", "audio/mpeg")),
        ]
    );
}

#[test]
fn malformed_dicts_are_errors_naming_the_message() {
    for (dict, reason) in [
        (json!({"data": {}}), "`type` is missing"),
        (json!({"type": "human"}), "`data` is null"),
        (
            json!({"type": "tool", "data": {"content": "x"}}),
            "`tool_call_id` is missing",
        ),
        (
            json!({"type": "tool", "data": {"tool_call_id": "c", "status": "maybe"}}),
            "unknown tool status",
        ),
        (
            json!({"type": "chat", "data": {"content": "x"}}),
            "`role` is missing",
        ),
        (
            json!({"type": "ai", "data": {"content": "x", "tool_calls": 3}}),
            "invalid type",
        ),
    ] {
        let error =
            messages_from_dict(&[json!({"type": "human", "data": {"content": "ok"}}), dict])
                .unwrap_err();
        let text = error.to_string();
        assert!(text.starts_with("message 1 "), "{text}");
        assert!(text.contains(reason), "{text} should contain {reason:?}");
    }
}
