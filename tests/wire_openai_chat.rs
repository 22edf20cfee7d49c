//! OpenAI Chat Completions request messages: hand-checked bodies and round trips.

use deltafold::message::{
    AiMessage, ContentBlock, InvalidToolCall, MediaBlock, Message, SystemMessage, ToolCall,
    ToolMessage, UserMessage,
};
use deltafold::wire::openai_chat::{self, EncodeOptions, SystemRole};
use deltafold::wire::{WireError, WireFormat};
use serde_json::{json, Map, Value};

fn args(value: Value) -> Map<String, Value> {
    value.as_object().unwrap().clone()
}

fn call(id: &str, city: &str) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall {
        id: id.into(),
        name: "get_weather".into(),
        args: args(json!({"city": city})),
        ..ToolCall::default()
    })
}

/// The weather conversation: a picture, two parallel calls, one failed, and the answer.
fn weather() -> Vec<Message> {
    vec![
        Message::system("You are a weather bot."),
        Message::user(vec![
            ContentBlock::text("What's the weather in Paris and Tokyo? Here is my sky:"),
            ContentBlock::image(
                MediaBlock::url("https://example.com/sky.png").with_extra("detail", "low"),
            ),
        ]),
        Message::from(AiMessage {
            id: Some("chatcmpl-1".into()),
            content: vec![
                ContentBlock::text("Let me check."),
                call("call_paris", "Paris"),
                call("call_tokyo", "Tokyo"),
            ],
            ..AiMessage::default()
        }),
        Message::tool("call_paris", "18°C, sunny"),
        Message::from(ToolMessage::error(
            "call_tokyo",
            "error: the weather service timed out",
        )),
        Message::assistant("Paris: 18°C and sunny. Tokyo: the service timed out."),
    ]
}

/// The request body as the Chat Completions API reference spells it, written by hand.
fn weather_wire() -> Value {
    json!([
        {"role": "system", "content": "You are a weather bot."},
        {"role": "user", "content": [
            {"type": "text", "text": "What's the weather in Paris and Tokyo? Here is my sky:"},
            {"type": "image_url", "image_url": {"url": "https://example.com/sky.png", "detail": "low"}}
        ]},
        {"role": "assistant", "content": "Let me check.", "tool_calls": [
            {"id": "call_paris", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
            {"id": "call_tokyo", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\":\"Tokyo\"}"}}
        ]},
        {"role": "tool", "tool_call_id": "call_paris", "content": "18°C, sunny"},
        {"role": "tool", "tool_call_id": "call_tokyo", "content": "error: the weather service timed out"},
        {"role": "assistant", "content": "Paris: 18°C and sunny. Tokyo: the service timed out."}
    ])
}

#[test]
fn the_weather_conversation_matches_the_hand_checked_body() {
    let encoded = openai_chat::encode(&weather()).unwrap();
    assert_eq!(Value::Array(encoded), weather_wire());
}

#[test]
fn the_hand_checked_body_round_trips() {
    let wire = weather_wire();
    let decoded = openai_chat::decode(wire.as_array().unwrap()).unwrap();
    assert_eq!(Value::Array(openai_chat::encode(&decoded).unwrap()), wire);
    // What the format carries survives: the calls, the text, the user's parts.
    assert_eq!(
        decoded[2]
            .tool_calls()
            .map(|call| call.id.as_str())
            .collect::<Vec<_>>(),
        ["call_paris", "call_tokyo"]
    );
    assert_eq!(
        decoded[1].text(),
        "What's the weather in Paris and Tokyo? Here is my sky:"
    );
}

#[test]
fn messages_round_trip_where_the_format_carries_them() {
    // The format carries neither the assistant's id nor a tool message's status.
    let mut messages = weather();
    if let Message::Assistant(assistant) = &mut messages[2] {
        assistant.id = None;
    }
    messages[4] = Message::tool("call_tokyo", "error: the weather service timed out");
    let wire = openai_chat::encode(&messages).unwrap();
    assert_eq!(openai_chat::decode(&wire).unwrap(), messages);
}

/// Media parts, names, extras, refusals, invalid calls, `developer`.
fn media_and_more() -> Vec<Message> {
    vec![
        Message::from(SystemMessage::new("Answer in French.")),
        Message::from(
            UserMessage::new(vec![
                ContentBlock::text("Listen, read, look:"),
                ContentBlock::audio(MediaBlock::base64("SUQzBAAAAA==", "audio/mpeg")),
                ContentBlock::audio(MediaBlock::base64("UklGRiQAAABXQVZF", "audio/wav")),
                ContentBlock::file(MediaBlock::file_id("file-abc123")),
                ContentBlock::file(
                    MediaBlock::base64("JVBERi0xLjQK", "application/pdf")
                        .with_filename("report.pdf"),
                ),
                ContentBlock::image(MediaBlock::base64("iVBORw0KGgo=", "image/png")),
            ])
            .with_name("alice")
            .with_extra("cache_key", "k1"),
        ),
        Message::from(AiMessage {
            name: Some("bot".into()),
            content: vec![
                ContentBlock::refusal("I can't share that."),
                ContentBlock::InvalidToolCall(InvalidToolCall {
                    id: "call_bad".into(),
                    name: "lookup".into(),
                    args: "{\"q\": ".into(),
                    error: "EOF while parsing a value at line 1 column 6".into(),
                    ..InvalidToolCall::default()
                }),
            ],
            ..AiMessage::default()
        }),
        Message::from(ToolMessage::new("call_bad", "invalid arguments").with_name("lookup")),
        Message::chat("critic", "Too terse."),
    ]
}

#[test]
fn media_parts_names_and_extras_match_the_hand_checked_body() {
    let options = EncodeOptions::new().system_role(SystemRole::Developer);
    let encoded = openai_chat::encode_with(&media_and_more(), &options).unwrap();
    assert_eq!(
        Value::Array(encoded.clone()),
        json!([
            {"role": "developer", "content": "Answer in French."},
            {"role": "user", "name": "alice", "cache_key": "k1", "content": [
                {"type": "text", "text": "Listen, read, look:"},
                {"type": "input_audio", "input_audio": {"data": "SUQzBAAAAA==", "format": "mp3"}},
                {"type": "input_audio", "input_audio": {"data": "UklGRiQAAABXQVZF", "format": "wav"}},
                {"type": "file", "file": {"file_id": "file-abc123"}},
                {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0xLjQK",
                                          "filename": "report.pdf"}},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
            ]},
            {"role": "assistant", "name": "bot", "content": null, "refusal": "I can't share that.",
             "tool_calls": [{"id": "call_bad", "type": "function",
                             "function": {"name": "lookup", "arguments": "{\"q\": "}}]},
            {"role": "tool", "tool_call_id": "call_bad", "name": "lookup", "content": "invalid arguments"},
            {"role": "critic", "content": "Too terse."}
        ])
    );
    // Back: every message returns as it was, and writes the same body again.
    let decoded = openai_chat::decode(&encoded).unwrap();
    assert_eq!(decoded, media_and_more());
    assert_eq!(
        openai_chat::encode_with(&decoded, &options).unwrap(),
        encoded
    );
}

#[test]
fn text_parts_of_system_and_tool_messages_stay_parts() {
    let wire = json!([
        {"role": "system", "content": [{"type": "text", "text": "Be brief."}]},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": [{"type": "text", "text": "Hel"}, {"type": "text", "text": "lo"}]},
    ]);
    let decoded = openai_chat::decode(wire.as_array().unwrap()).unwrap();
    assert_eq!(decoded[2].text(), "Hello");
    assert_eq!(Value::Array(openai_chat::encode(&decoded).unwrap()), wire);
}

#[test]
fn what_the_format_cannot_carry_is_an_error_naming_the_message() {
    let cases = [
        (
            ContentBlock::image(MediaBlock::file_id("file-1")),
            "an image by file id",
        ),
        (
            ContentBlock::video(MediaBlock::url("https://x.test/v.mp4")),
            "a video",
        ),
        (
            ContentBlock::file(MediaBlock::url("https://x.test/a.pdf")),
            "a file by URL",
        ),
        (
            ContentBlock::audio(MediaBlock::url("https://x.test/a.mp3")),
            "audio that is not base64",
        ),
        (ContentBlock::plain_text("notes"), "plain-text data"),
    ];
    for (block, what) in cases {
        let error = openai_chat::encode(&[Message::system("s"), Message::user(block)]).unwrap_err();
        let WireError::Unsupported {
            format,
            index,
            what: said,
        } = &error
        else {
            panic!("{error:?}")
        };
        assert_eq!((*format, *index), (WireFormat::OpenAiChat, 1));
        assert!(
            said.starts_with(what),
            "{said:?} should start with {what:?}"
        );
    }
}

#[test]
fn reasoning_is_not_sent_back() {
    let message = Message::from(AiMessage {
        content: vec![
            ContentBlock::reasoning("thinking…"),
            ContentBlock::text("Hi"),
        ],
        ..AiMessage::default()
    });
    assert_eq!(
        openai_chat::encode(&[message]).unwrap(),
        [json!({"role": "assistant", "content": "Hi"})]
    );
}

#[test]
fn malformed_messages_are_errors() {
    for (wire, reason) in [
        (json!("user"), "not an object"),
        (json!({"content": "x"}), "`role` is missing"),
        (json!({"role": "user", "content": 5}), "`content` is 5"),
        (
            json!({"role": "assistant", "tool_calls": [{"id": "c", "function": {}}]}),
            "`name` is missing",
        ),
        (
            json!({"role": "user", "content": [{"type": "image_url"}]}),
            "without `image_url`",
        ),
    ] {
        let error =
            openai_chat::decode(&[json!({"role": "user", "content": "ok"}), wire]).unwrap_err();
        let WireError::Malformed {
            index,
            reason: said,
            ..
        } = &error
        else {
            panic!("{error:?}")
        };
        assert_eq!(*index, 1);
        assert!(said.contains(reason), "{said:?} should contain {reason:?}");
    }
}

#[test]
fn unknown_parts_and_fields_are_kept() {
    let wire = json!([
        {"role": "user", "content": [{"type": "input_video", "video": {"url": "v"}}], "metadata": {"k": 1}},
    ]);
    let decoded = openai_chat::decode(wire.as_array().unwrap()).unwrap();
    assert_eq!(decoded[0].extra()["metadata"], json!({"k": 1}));
    assert_eq!(Value::Array(openai_chat::encode(&decoded).unwrap()), wire);
}

#[test]
fn streamed_citations_read_as_typed_citations_and_stay_out_of_the_request() {
    let stream = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Rust 1.85 is out.\",",
        "\"annotations\":[{\"type\":\"url_citation\",\"url_citation\":{\"url\":\"https://blog.rust-lang.org\",",
        "\"title\":\"Rust Blog\",\"start_index\":0,\"end_index\":17}}]},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let message = deltafold::assemble(stream.as_bytes(), deltafold::Options::new())
        .unwrap()
        .into_message();
    let citations = message.content[0].citations();
    assert_eq!(citations.len(), 1);
    assert_eq!(
        citations[0].url.as_deref(),
        Some("https://blog.rust-lang.org")
    );
    assert_eq!(citations[0].title.as_deref(), Some("Rust Blog"));
    assert_eq!(
        (citations[0].start_index, citations[0].end_index),
        (Some(0), Some(17))
    );
    assert_eq!(
        openai_chat::encode(&[Message::from(message)]).unwrap(),
        [json!({"role": "assistant", "content": "Rust 1.85 is out."})]
    );
}

#[test]
fn a_spoken_answer_goes_back_by_its_audio_id() {
    let stream = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/openai/audio_output.sse"
    ))
    .unwrap();
    let message = deltafold::assemble(&stream[..], deltafold::Options::new())
        .unwrap()
        .into_message();
    let [ContentBlock::Audio(audio)] = message.content.as_slice() else {
        panic!("{:?}", message.content);
    };
    assert_eq!(audio.id.as_deref(), Some("audio_6772a1b2c3"));
    let messages = [
        Message::user("Greet José in two languages."),
        Message::from(message),
        Message::user("Again, slower."),
    ];
    let wire = openai_chat::encode(&messages).unwrap();
    // OpenAI's multi-turn audio: the assistant message quotes the audio by id, nothing else.
    assert_eq!(
        wire[1],
        json!({"role": "assistant", "audio": {"id": "audio_6772a1b2c3"}})
    );
    // Read back, it is an audio block with that id, and goes out the same again.
    let decoded = openai_chat::decode(&wire).unwrap();
    let Message::Assistant(assistant) = &decoded[1] else {
        panic!("{decoded:?}");
    };
    let [ContentBlock::Audio(read)] = assistant.content.as_slice() else {
        panic!("{:?}", assistant.content);
    };
    assert_eq!(read.id.as_deref(), Some("audio_6772a1b2c3"));
    assert!(assistant.extra.is_empty(), "{:?}", assistant.extra);
    assert_eq!(openai_chat::encode(&decoded).unwrap(), wire);

    // With text or tool calls beside it, the audio id rides along.
    let with_text = AiMessage {
        content: vec![
            ContentBlock::text("Hola."),
            ContentBlock::Audio(read.clone()),
        ],
        ..AiMessage::default()
    };
    assert_eq!(
        openai_chat::encode(&[Message::from(with_text)]).unwrap(),
        [json!({"role": "assistant", "content": "Hola.", "audio": {"id": "audio_6772a1b2c3"}})]
    );
    // Audio without an id has no reference to send: left out.
    let without_id = AiMessage {
        content: vec![ContentBlock::Audio(MediaBlock::base64("AAAA", "audio/wav"))],
        ..AiMessage::default()
    };
    assert_eq!(
        openai_chat::encode(&[Message::from(without_id)]).unwrap(),
        [json!({"role": "assistant", "content": ""})]
    );
    let malformed = json!([{"role": "assistant", "audio": "audio_1"}]);
    assert!(openai_chat::decode(malformed.as_array().unwrap()).is_err());
}

fn assembled_fixture(dir: &str, name: &str) -> deltafold::message::AiMessage {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(dir)
        .join(name);
    deltafold::assemble(&std::fs::read(&path).unwrap(), deltafold::Options::new())
        .unwrap()
        .into_message()
}

/// A custom tool call goes back as one (`type: custom`, its free-text input whole), beside a
/// function call; read back, it is the same call.
#[test]
fn a_streamed_custom_tool_call_goes_back_as_a_custom_call() {
    let message = assembled_fixture("openai", "custom_tool_call.sse");
    let sent = openai_chat::encode(&[Message::from(message.clone())]).unwrap();
    let input = "*** Begin Patch\n*** Update File: src/main.rs\n@@\n-    println!(\"hi\");\n+    println!(\"héllo\\t\");\n*** End Patch";
    assert_eq!(
        sent[0]["tool_calls"],
        json!([
            {"id": "call_Qm3xT7vB9nK2", "type": "custom", "custom": {"name": "apply_patch", "input": input}},
            {"id": "call_Rz8wY1cD5fG0", "type": "function", "function": {"name": "run_tests", "arguments": "{\"filter\":\"main\"}"}},
        ])
    );
    let decoded = openai_chat::decode(&sent).unwrap();
    assert_eq!(decoded[0].as_assistant().unwrap().content, message.content);
}

/// Gemini's signature on a call of its OpenAI-compatible endpoint goes back where that endpoint
/// reads it: `extra_content.google.thought_signature` on the same call, and only there.
#[test]
fn a_gemini_compat_signature_goes_back_on_its_call() {
    let message = assembled_fixture("gemini-compat", "thought_signature_tool_calls.sse");
    let sent = openai_chat::encode(&[Message::from(message.clone())]).unwrap();
    let calls = sent[0]["tool_calls"].as_array().unwrap();
    assert_eq!(
        calls[0]["extra_content"],
        json!({"google": {"thought_signature": "EjQKMgFU7ZMXsQ5tEaJ0bVlq2mXJxN4T8d3fZ+Q0bLc7e9RkR2W1aGz4nQ=="}})
    );
    assert_eq!(calls[1].get("extra_content"), None);
    let decoded = openai_chat::decode(&sent).unwrap();
    assert_eq!(decoded[0].as_assistant().unwrap().content, message.content);
}
