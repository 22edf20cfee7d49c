//! The Bedrock dialect and AWS's binary event-stream framing: the fixtures replayed (each
//! binary checked against the readable `.frames` source it was encoded from), then the rules —
//! the framing chosen from the content type or the first bytes, exceptions as typed provider
//! errors with the partial, `InvokeModelWithResponseStream`'s base64 chunks read as Anthropic
//! events, the SDK-logged NDJSON shape, the message limit — and a stream over real HTTP.

use deltafold::{Assembler, Dialect, Options};
use serde_json::{json, Value};

use crate::replay::fixture;
use crate::replay_fixtures_of;

#[test]
fn every_fixture_replays_to_its_expected_message() {
    replay_fixtures_of("bedrock");
}

/// CRC-32 (IEEE), bit by bit: slow and obviously right, to check the CRC-32 the library uses.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for group in bytes.chunks(3) {
        let n = group.iter().fold(0u32, |n, &b| n << 8 | u32::from(b)) << (8 * (3 - group.len()));
        for i in 0..4 {
            if i <= group.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// One event-stream message with string headers; `corrupt` flips a bit of its message CRC.
fn message(headers: &[(&str, &str)], payload: &str, corrupt: bool) -> Vec<u8> {
    let mut head = Vec::new();
    for (name, value) in headers {
        head.push(name.len() as u8);
        head.extend_from_slice(name.as_bytes());
        head.push(7);
        head.extend_from_slice(&(value.len() as u16).to_be_bytes());
        head.extend_from_slice(value.as_bytes());
    }
    let total = (16 + head.len() + payload.len()) as u32;
    let mut bytes = total.to_be_bytes().to_vec();
    bytes.extend_from_slice(&(head.len() as u32).to_be_bytes());
    bytes.extend_from_slice(&crc32(&bytes).to_be_bytes());
    bytes.extend_from_slice(&head);
    bytes.extend_from_slice(payload.as_bytes());
    let crc = crc32(&bytes) ^ u32::from(corrupt);
    bytes.extend_from_slice(&crc.to_be_bytes());
    bytes
}

fn event(name: &str, payload: &str) -> Vec<u8> {
    message(
        &[
            (":event-type", name),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        payload,
        false,
    )
}

fn exception(name: &str, payload: &str) -> Vec<u8> {
    message(
        &[
            (":message-type", "exception"),
            (":exception-type", name),
            (":content-type", "application/json"),
        ],
        payload,
        false,
    )
}

/// Encodes a `.frames` source: one message a line, `event <name> <json>`, `exception <name>
/// <json>`, `corrupt <name> <json>` (an event whose message CRC is wrong) or `chunk <json>`
/// (an Anthropic event, base64 in `{"bytes": …}`).
fn encode_frames(source: &str) -> Vec<u8> {
    let mut body = Vec::new();
    for line in source.lines() {
        let (kind, rest) = line.split_once(' ').expect("a kind");
        if kind == "chunk" {
            let payload = json!({ "bytes": base64(rest.as_bytes()) }).to_string();
            body.extend(event("chunk", &payload));
            continue;
        }
        let (name, payload) = rest.split_once(' ').expect("a name and a payload");
        body.extend(match kind {
            "event" => event(name, payload),
            "exception" => exception(name, payload),
            "corrupt" => message(
                &[
                    (":event-type", name),
                    (":content-type", "application/json"),
                    (":message-type", "event"),
                ],
                payload,
                true,
            ),
            other => panic!("unknown kind {other}"),
        });
    }
    body
}

#[test]
fn each_binary_fixture_is_its_source_encoded() {
    let fixtures = fixture::discover("bedrock");
    assert!(fixtures.len() >= 6);
    // SDK-logged events (`.ndjson`) are text; every binary fixture has its source.
    let binary = fixtures.into_iter().filter(|fixture| {
        fixture
            .stream
            .extension()
            .is_some_and(|ext| ext == "eventstream")
    });
    for fixture in binary {
        let source = std::fs::read_to_string(fixture.stream.with_extension("frames")).unwrap();
        let binary = std::fs::read(&fixture.stream).unwrap();
        assert!(
            encode_frames(&source) == binary,
            "{} differs from its source",
            fixture.name
        );
    }
}

fn converse(text: &str) -> Vec<u8> {
    let mut body = event("messageStart", r#"{"role":"assistant"}"#);
    body.extend(event(
        "contentBlockDelta",
        &json!({"contentBlockIndex": 0, "delta": {"text": text}}).to_string(),
    ));
    body.extend(event("contentBlockStop", r#"{"contentBlockIndex":0}"#));
    body.extend(event("messageStop", r#"{"stopReason":"end_turn"}"#));
    body.extend(event(
        "metadata",
        r#"{"usage":{"inputTokens":3,"outputTokens":2,"totalTokens":5},"metrics":{"latencyMs":9}}"#,
    ));
    body
}

/// A Nova code run whose blocks never stop: its call, its result and an image still end, at
/// `messageStop` (a complete answer) or at the end of the input (a cut one), with what arrived.
#[test]
fn server_tool_blocks_and_images_without_a_stop_keep_what_arrived() {
    let mut body = event("messageStart", r#"{"role":"assistant"}"#);
    for (name, payload) in [
        (
            "contentBlockStart",
            json!({"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "t1", "name": "nova_code_interpreter", "type": "server_tool_use"}}}),
        ),
        (
            "contentBlockDelta",
            json!({"contentBlockIndex": 0, "delta": {"toolUse": {"input": "{\"code\": \"2+2\"}"}}}),
        ),
        (
            "contentBlockStart",
            json!({"contentBlockIndex": 1, "start": {"toolResult": {"toolUseId": "t1", "type": "nova_code_interpreter_result", "status": "success"}}}),
        ),
        (
            "contentBlockDelta",
            json!({"contentBlockIndex": 1, "delta": {"toolResult": [{"json": {"stdOut": "4"}}]}}),
        ),
        (
            "contentBlockStart",
            json!({"contentBlockIndex": 2, "start": {"image": {"format": "webp"}}}),
        ),
        (
            "contentBlockDelta",
            json!({"contentBlockIndex": 2, "delta": {"image": {"source": {"s3Location": {"uri": "s3://bucket/a.webp", "bucketOwner": "1234"}}}}}),
        ),
    ] {
        body.extend(event(name, &payload.to_string()));
    }
    let cut = body.clone();
    body.extend(event("messageStop", r#"{"stopReason":"end_turn"}"#));
    let complete = deltafold::assemble(&body[..], Options::new()).unwrap();
    let error = deltafold::assemble(&cut[..], Options::new()).unwrap_err();
    assert!(error.is_truncated(), "{error}");
    for completion in [&complete, error.partial().unwrap()] {
        let message = completion.message().unwrap();
        assert_eq!(message.tool_calls().count(), 0);
        let blocks = serde_json::to_value(&message.content).unwrap();
        assert_eq!(
            blocks,
            json!([
                {"type": "server_tool_call", "id": "t1", "name": "code_interpreter", "args": {"code": "2+2"}, "extras": {"tool_name": "nova_code_interpreter"}},
                {"type": "server_tool_result", "tool_call_id": "t1", "status": "success", "output": [{"json": {"stdOut": "4"}}], "extras": {"block_type": "nova_code_interpreter_result"}},
                {"type": "image", "url": "s3://bucket/a.webp", "mime_type": "image/webp", "extras": {"format": "webp", "source": {"s3Location": {"bucketOwner": "1234"}}}}
            ])
        );
    }
}

#[test]
fn the_framing_comes_from_the_content_type_or_the_first_prelude() {
    let body = converse("Hi");
    for content_type in [None, Some("application/vnd.amazon.eventstream")] {
        let mut assembler = Assembler::new();
        if let Some(content_type) = content_type {
            assembler.set_content_type(content_type);
        }
        assembler.feed(&body).unwrap();
        assert_eq!(assembler.dialect(), Some(Dialect::Bedrock));
        let message = assembler.finish().unwrap().into_message();
        assert_eq!(message.text(), "Hi");
        assert_eq!(message.usage.unwrap().total_tokens, 5);
    }
}

#[test]
fn every_exception_is_a_typed_provider_error_with_the_partial() {
    for name in [
        "throttlingException",
        "modelStreamErrorException",
        "validationException",
        "internalServerException",
        "serviceUnavailableException",
    ] {
        let mut body = event("messageStart", r#"{"role":"assistant"}"#);
        body.extend(event(
            "contentBlockDelta",
            r#"{"contentBlockIndex":0,"delta":{"text":"so far"}}"#,
        ));
        body.extend(exception(
            name,
            r#"{"message":"Model Stream Error","originalStatusCode":500}"#,
        ));
        let error = deltafold::assemble(&body, Options::new()).unwrap_err();
        assert!(error.is_provider(), "{error}");
        let provider = error.provider_error().unwrap();
        assert_eq!(provider.kind.as_deref(), Some(name));
        assert_eq!(provider.message, "Model Stream Error");
        assert_eq!(provider.raw["originalStatusCode"], 500);
        assert_eq!(error.partial().unwrap().message().unwrap().text(), "so far");
    }
    for (payload, message) in [("", "throttlingException"), ("slow down", "slow down")] {
        let body = exception("throttlingException", payload);
        let error = deltafold::assemble(&body, Options::new()).unwrap_err();
        let provider = error.provider_error().unwrap();
        assert_eq!(provider.message, message);
        assert_eq!(provider.kind.as_deref(), Some("throttlingException"));
    }
}

#[test]
fn sdk_logged_events_are_read_one_per_ndjson_line() {
    let lines = [
        json!({"messageStart": {"role": "assistant"}}),
        json!({"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "t1", "name": "f"}}}}),
        json!({"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": "{\"a\":1}"}}}}),
        json!({"contentBlockStop": {"contentBlockIndex": 0}}),
        json!({"messageStop": {"stopReason": "tool_use"}}),
        json!({"metadata": {"usage": {"inputTokens": 1, "outputTokens": 2, "totalTokens": 3}}}),
    ];
    let body = crate::ndjson(&lines);
    for options in [Options::new(), Options::new().dialect(Dialect::Bedrock)] {
        let message = deltafold::assemble(body.as_bytes(), options)
            .unwrap()
            .into_message();
        let call = message.tool_calls().next().unwrap();
        assert_eq!((call.id.as_str(), call.name.as_str()), ("t1", "f"));
        assert_eq!(Value::Object(call.args.clone()), json!({"a": 1}));
        assert_eq!(message.response_metadata.finish_reason, "tool_use");
    }
    assert_eq!("bedrock".parse::<Dialect>(), Ok(Dialect::Bedrock));
}

#[test]
fn a_chunk_that_is_not_base64_is_malformed() {
    let mut body = event("chunk", r#"{"bytes":"eyJ0eXBlIjoibWVzc2FnZV9zdGFydCJ9"}"#);
    body.extend(event("chunk", r#"{"bytes":"not base64!"}"#));
    let error = deltafold::assemble(&body, Options::new()).unwrap_err();
    assert!(error.is_malformed(), "{error}");
    assert!(error.to_string().contains("invalid base64"), "{error}");
}

#[test]
fn a_message_past_the_limit_fails_at_its_prelude() {
    let body = converse(&"x".repeat(4096));
    let mut assembler = Assembler::with_options(Options::new().max_event_bytes(1024));
    // Only the prelude of the long message: the limit is known before its body comes.
    let first = event("messageStart", r#"{"role":"assistant"}"#).len();
    assembler.push(&body[..first + 12]);
    let error = loop {
        match assembler.next_event() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("the prelude alone must fail"),
            Err(error) => break error,
        }
    };
    assert!(error.is_limit_exceeded(), "{error}");
    assert_eq!(error.location().unwrap().offset, first as u64);
}

#[cfg(feature = "reqwest")]
#[path = "../support/server.rs"]
mod server;

#[cfg(feature = "reqwest")]
mod http {
    use super::server::{Reply, Server};
    use deltafold::{Dialect, Options, RequestBuilderExt};
    use futures::StreamExt;

    #[tokio::test]
    async fn a_converse_stream_over_http_in_odd_writes() {
        let body = std::fs::read(
            crate::replay::fixture::root().join("bedrock/converse_tool_use.eventstream"),
        )
        .unwrap();
        let server = Server::start(move |_| {
            Reply::new(200, Some("application/vnd.amazon.eventstream"))
                .drip(&body, &[1, 7, 3, 64, 13])
        })
        .await;
        let mut stream = reqwest::Client::new()
            .post(server.url("/model/m/converse-stream"))
            .body("{}")
            .send_and_assemble(Options::new())
            .await
            .unwrap();
        while let Some(event) = stream.next().await {
            event.unwrap();
        }
        assert_eq!(stream.assembler().dialect(), Some(Dialect::Bedrock));
        let message = stream.completion().await.unwrap().into_message();
        assert_eq!(message.text(), "Let me check the weather.");
        let names: Vec<&str> = message
            .tool_calls()
            .map(|call| call.name.as_str())
            .collect();
        assert_eq!(names, ["get_weather", "get_time"]);
        assert_eq!(message.usage.unwrap().total_tokens, 487);
    }
}
