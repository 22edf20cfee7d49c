//! The reqwest integration against a real HTTP server in the test process: streamed and
//! non-streamed answers, HTTP errors, broken and stalled connections, many streams at once.
#![cfg(feature = "reqwest")]

#[path = "support/server.rs"]
mod server;

use std::time::Duration;

use deltafold::http::HttpOptions;
use deltafold::{
    AiMessage, AssembleExt, Error, Event, Options, RequestBuilderExt, ResponseExt, ResponseStream,
};
use futures::StreamExt;
use serde_json::json;
use server::{Reply, Server, Step};

const TEXT_STREAM: &str = concat!(
    "data: {\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"gpt-4o-mini\",",
    "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"The sky \"},\"finish_reason\":null}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"is blue — \"},\"finish_reason\":null}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"mostly.\"},\"finish_reason\":null}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":6,\"total_tokens\":18}}\n\n",
    "data: [DONE]\n\n",
);

const TEXT: &str = "The sky is blue — mostly.";

/// The same answer as [`TEXT_STREAM`], not streamed, pretty-printed across lines.
const TEXT_JSON: &str = r#"{
  "id": "chatcmpl-9",
  "object": "chat.completion",
  "created": 1700000000,
  "model": "gpt-4o-mini",
  "choices": [
    {
      "index": 0,
      "message": {"role": "assistant", "content": "The sky is blue — mostly."},
      "finish_reason": "stop"
    }
  ],
  "usage": {"prompt_tokens": 12, "completion_tokens": 6, "total_tokens": 18}
}"#;

const TOOL_STREAM: &str = concat!(
    "data: {\"id\":\"chatcmpl-t\",\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",",
    "\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"city\\\": \\\"Par\"}}]}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"is\\\"}\"}}]}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"type\":\"function\",",
    "\"function\":{\"name\":\"get_time\",\"arguments\":\"{\\\"tz\\\": \\\"CET\\\"}\"}}]}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":31,\"total_tokens\":51}}\n\n",
    "data: [DONE]\n\n",
);

/// The stream's events, then its completion (or the first error, with the events before it).
async fn drain(mut stream: ResponseStream) -> (Vec<Event<'static>>, Result<AiMessage, Error>) {
    let mut events = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(event) => events.push(event),
            Err(error) => return (events, Err(error)),
        }
    }
    let message = stream.completion().await.map(|done| done.into_message());
    (events, message)
}

/// A short label per event, to compare sequences.
fn label(event: &Event<'_>) -> String {
    match event {
        Event::Started { .. } => "started".into(),
        Event::TextDelta { text, .. } => format!("text {text}"),
        Event::TextEnd { block, .. } => format!("text {block} ends"),
        Event::ToolCallStarted { index, name, .. } => format!("call {index} {name}"),
        Event::ToolCallArgumentsDelta { index, delta, .. } => format!("args {index} {delta}"),
        Event::ToolCallFinished { index, .. } => format!("call {index} done"),
        Event::ChoiceFinished { reason, .. } => format!("finished {reason}"),
        Event::Usage { usage } => format!("usage {}", usage.total_tokens),
        Event::Done => "done".into(),
        other => format!("{other:?}"),
    }
}

fn post(server: &Server, path: &str) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .post(server.url(path))
        .header("content-type", "application/json")
        .body(r#"{"model":"gpt-4o-mini","stream":true}"#)
}

/// The idle timeout of the tests that wait for it.
const SHORT_IDLE: Duration = Duration::from_millis(200);

fn short_idle() -> HttpOptions {
    HttpOptions::new().idle_timeout(Some(SHORT_IDLE))
}

/// The upper bound on a wait that must end early: far above what it takes (a few milliseconds,
/// or [`SHORT_IDLE`] when the idle timer ends it: fifteen times that), far below what the
/// server would keep the client waiting (30 s or more). A wait past it is a hang, not a slow
/// machine; how long things take is measured in `benches/`, not here.
const HANG_GUARD: Duration = Duration::from_secs(3);

/// Awaits `future`, failing the test if it is still pending after [`HANG_GUARD`]: a hang, not
/// a slow machine.
async fn within_guard<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(HANG_GUARD, future)
        .await
        .expect("still waiting after the hang guard")
}

#[tokio::test]
async fn text_stream_is_assembled_with_its_events_in_order() {
    let server = Server::start(|_| Reply::event_stream(TEXT_STREAM)).await;
    let stream = post(&server, "/v1/chat/completions")
        .send_and_assemble(Options::new())
        .await
        .unwrap();
    let (events, message) = drain(stream).await;
    let labels: Vec<String> = events.iter().map(label).collect();
    assert_eq!(
        labels,
        [
            "started",
            "text The sky ",
            "text is blue — ",
            "text mostly.",
            "text 0 ends",
            "finished stop",
            "usage 18",
            "done"
        ]
    );
    let message = message.unwrap();
    assert_eq!(message.text(), TEXT);
    assert_eq!(message.response_metadata.finish_reason, "stop");
    assert_eq!(message.response_metadata.id.as_deref(), Some("chatcmpl-9"));
    assert_eq!(
        message.response_metadata.model_name.as_deref(),
        Some("gpt-4o-mini")
    );
    let usage = message.usage.unwrap();
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (12, 6, 18)
    );
}

#[tokio::test]
async fn tool_call_stream_is_assembled_from_a_response() {
    let server = Server::start(|_| Reply::event_stream(TOOL_STREAM)).await;
    let response = post(&server, "/v1/chat/completions").send().await.unwrap();
    let stream = response.assemble().await.unwrap();
    let (events, message) = drain(stream).await;
    let labels: Vec<String> = events.iter().map(label).collect();
    assert_eq!(
        labels,
        [
            "started",
            "call 0 get_weather",
            "args 0 {\"city\": \"Par",
            "args 0 is\"}",
            "call 1 get_time",
            "args 1 {\"tz\": \"CET\"}",
            "call 0 done",
            "call 1 done",
            "finished tool_calls",
            "usage 51",
            "done"
        ]
    );
    let message = message.unwrap();
    assert_eq!(message.response_metadata.finish_reason, "tool_calls");
    let calls: Vec<_> = message.tool_calls().collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        (calls[0].id.as_str(), calls[0].name.as_str()),
        ("call_a", "get_weather")
    );
    assert_eq!(calls[0].args["city"], "Paris");
    assert_eq!(
        (calls[1].id.as_str(), calls[1].name.as_str()),
        ("call_b", "get_time")
    );
    assert_eq!(calls[1].args["tz"], "CET");
    assert_eq!(message.usage.unwrap().total_tokens, 51);
}

#[tokio::test]
async fn one_byte_writes_assemble_the_same_message() {
    const SHORT_STREAM: &str = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Drip, \"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"drop — ☔\"},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let server = Server::start(|_| {
        Reply::new(200, Some("text/event-stream")).trickle(SHORT_STREAM.as_bytes(), BYTE_PAUSE)
    })
    .await;
    // The server pauses between bytes, so the stream lasts longer than the idle timeout and
    // only reads resetting the timer keep it alive.
    const BYTE_PAUSE: Duration = Duration::from_millis(2);
    assert!(BYTE_PAUSE * SHORT_STREAM.len() as u32 > SHORT_IDLE);
    let counted = async {
        let response = post(&server, "/").send().await.unwrap();
        let mut reads = 0;
        // The body read by hand, to count the reads the client saw.
        let completion = response
            .bytes_stream()
            .inspect(|_| reads += 1)
            .assemble()
            .completion()
            .await;
        (reads, completion)
    };
    // Through the idle timer: 1 ms pauses, over a total longer than the timeout, never trip it.
    let timed = async {
        let stream = post(&server, "/")
            .send_and_assemble(short_idle())
            .await
            .unwrap();
        drain(stream).await.1
    };
    let ((reads, counted), timed) = tokio::join!(counted, timed);
    assert_eq!(counted.unwrap().into_message().text(), "Drip, drop — ☔");
    assert!(
        reads > 50,
        "only {reads} reads: the writes were not dripped"
    );
    assert_eq!(timed.unwrap().text(), "Drip, drop — ☔");
}

#[tokio::test]
async fn rate_limit_is_a_status_error_with_the_provider_error() {
    let body = r#"{"error":{"message":"Rate limit","type":"rate_limit_error","code":"rate_limit_exceeded"}}"#;
    let server =
        Server::start(move |_| Reply::new(429, Some("application/json")).write(body)).await;
    let error = post(&server, "/")
        .send_and_assemble(Options::new())
        .await
        .unwrap_err();
    assert!(error.is_status(), "{error:?}");
    assert_eq!(error.status_code(), Some(429));
    assert_eq!(error.body(), Some(body));
    let provider = error.provider_error().unwrap();
    assert_eq!(provider.message, "Rate limit");
    assert_eq!(provider.kind.as_deref(), Some("rate_limit_error"));
    assert_eq!(provider.code.as_deref(), Some("rate_limit_exceeded"));
    assert!(error.partial().is_none());
    assert!(error.to_string().contains("429"), "{error}");
}

#[tokio::test]
async fn error_body_is_read_only_up_to_the_bound() {
    let server = Server::start(|_| {
        let page = "x".repeat(300_000);
        Reply::new(500, Some("text/plain"))
            .drip(page.as_bytes(), &[4096])
            .then(Step::Stall)
    })
    .await;
    // It stops reading at the bound instead of waiting for the rest, which never ends.
    let error = within_guard(
        post(&server, "/").send_and_assemble(HttpOptions::new().max_error_body_bytes(1000)),
    )
    .await
    .unwrap_err();
    assert!(error.is_status());
    assert_eq!(error.status_code(), Some(500));
    assert_eq!(error.body().unwrap().len(), 1000);
    assert!(error.provider_error().is_none());
}

#[tokio::test]
async fn connection_cut_mid_stream_keeps_the_text_so_far() {
    let cut_at = TEXT_STREAM.find("mostly").unwrap();
    let server = Server::start(move |_| {
        Reply::new(200, Some("text/event-stream"))
            .drip(&TEXT_STREAM.as_bytes()[..cut_at], &[17, 5, 29])
            .then(Step::Cut)
    })
    .await;
    let stream = post(&server, "/")
        .send_and_assemble(Options::new())
        .await
        .unwrap();
    let (events, message) = drain(stream).await;
    let error = message.unwrap_err();
    assert!(error.is_transport() || error.is_truncated(), "{error:?}");
    let live: String = events
        .iter()
        .filter_map(|event| match event {
            Event::TextDelta { text, .. } => Some(text.as_ref()),
            _ => None,
        })
        .collect();
    assert_eq!(live, "The sky is blue — ");
    let partial = error.partial().unwrap();
    assert!(!partial.complete);
    assert_eq!(partial.message().unwrap().text(), "The sky is blue — ");
    assert_eq!(error.location().unwrap().event, 3);
}

#[tokio::test]
async fn stalled_server_is_an_idle_timeout_with_the_partial() {
    let stall_at = TEXT_STREAM
        .find("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"mostly")
        .unwrap();
    let server = Server::start(move |_| {
        Reply::new(200, Some("text/event-stream"))
            .write(&TEXT_STREAM.as_bytes()[..stall_at])
            .then(Step::Stall)
    })
    .await;
    // The timer fires: the server stalls for a minute.
    let (events, message) = within_guard(async {
        let stream = post(&server, "/")
            .send_and_assemble(short_idle())
            .await
            .unwrap();
        drain(stream).await
    })
    .await;
    let error = message.unwrap_err();
    assert!(error.is_idle_timeout(), "{error:?}");
    assert_eq!(
        events
            .iter()
            .filter(|event| matches!(event, Event::TextDelta { .. }))
            .count(),
        2
    );
    assert_eq!(
        error.partial().unwrap().message().unwrap().text(),
        "The sky is blue — "
    );
}

#[tokio::test]
async fn headers_that_never_come_are_an_idle_timeout() {
    let server =
        Server::start(|_| Reply::event_stream(TEXT_STREAM).headers_after(Duration::from_secs(30)))
            .await;
    // The headers would come after 30 s.
    let error = within_guard(post(&server, "/").send_and_assemble(short_idle()))
        .await
        .unwrap_err();
    assert!(error.is_idle_timeout(), "{error:?}");
}

#[tokio::test]
async fn json_reply_gives_the_same_message_as_the_stream() {
    let server = Server::start(|path| match path {
        "/json" => Reply::new(200, Some("application/json; charset=utf-8"))
            .drip(TEXT_JSON.as_bytes(), &[64]),
        _ => Reply::event_stream(TEXT_STREAM),
    })
    .await;
    let (_, streamed) = drain(
        post(&server, "/sse")
            .send_and_assemble(Options::new())
            .await
            .unwrap(),
    )
    .await;
    let (events, whole) = drain(
        post(&server, "/json")
            .send_and_assemble(Options::new())
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(whole.unwrap(), streamed.unwrap());
    let labels: Vec<String> = events.iter().map(label).collect();
    assert_eq!(
        labels,
        [
            "started",
            &format!("text {TEXT}"),
            "text 0 ends",
            "finished stop",
            "usage 18",
            "done"
        ]
    );
}

#[tokio::test]
async fn gemini_json_array_reply_is_cut_into_its_chunks() {
    // `streamGenerateContent` without `alt=sse`: `application/json`, one pretty-printed array.
    let body = "[{\n  \"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hel\"}]}, \"index\": 0}]\n}\n,\r\n{\n  \"candidates\": [{\"content\": {\"parts\": [{\"text\": \"lo\"}]}, \"finishReason\": \"STOP\", \"index\": 0}]\n}\n]";
    let server = Server::start(move |_| {
        Reply::new(200, Some("application/json; charset=UTF-8")).drip(body.as_bytes(), &[16])
    })
    .await;
    let (events, message) = drain(
        post(&server, "/")
            .send_and_assemble(Options::new())
            .await
            .unwrap(),
    )
    .await;
    let message = message.unwrap();
    assert_eq!(message.text(), "Hello");
    let labels: Vec<String> = events.iter().map(label).collect();
    assert_eq!(
        labels,
        [
            "started",
            "text Hel",
            "text lo",
            "text 0 ends",
            "finished STOP",
            "done"
        ]
    );
}

#[tokio::test]
async fn html_page_with_status_200_is_a_clear_error() {
    let page = "<!DOCTYPE html>\n<html><body><h1>502 Bad Gateway</h1></body></html>\n";
    let server = Server::start(move |_| Reply::new(200, Some("text/html")).write(page)).await;
    let error = post(&server, "/")
        .send_and_assemble(Options::new())
        .await
        .unwrap_err();
    assert!(error.is_malformed(), "{error:?}");
    let text = error.to_string();
    assert!(text.contains("HTML"), "{text}");
    assert!(text.contains("<h1>502 Bad Gateway</h1>"), "{text}");
}

#[tokio::test]
async fn empty_body_is_truncated() {
    let server = Server::start(|path| match path {
        "/json" => Reply::new(200, Some("application/json")),
        _ => Reply::new(200, Some("text/event-stream")),
    })
    .await;
    let (events, message) = drain(
        post(&server, "/sse")
            .send_and_assemble(Options::new())
            .await
            .unwrap(),
    )
    .await;
    assert!(events.is_empty());
    assert!(message.unwrap_err().is_truncated());

    let error = post(&server, "/json")
        .send_and_assemble(Options::new())
        .await
        .unwrap_err();
    assert!(error.is_truncated(), "{error:?}");
}

#[tokio::test]
async fn json_body_without_choices_is_not_a_complete_answer() {
    let server =
        Server::start(|_| Reply::new(200, Some("application/json")).write(r#"{"ok": true}"#)).await;
    let (_, message) = drain(
        post(&server, "/")
            .send_and_assemble(Options::new())
            .await
            .unwrap(),
    )
    .await;
    assert!(message.unwrap_err().is_truncated());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundred_concurrent_streams_are_each_assembled() {
    fn body(stream: usize) -> String {
        let words = ["alpha ", "beta ", "gamma ", &format!("#{stream}")];
        let mut body = String::new();
        for word in words {
            let delta = json!({"choices": [{"index": 0, "delta": {"content": word}}]});
            body.push_str(&format!("data: {delta}\n\n"));
        }
        body.push_str(
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
        );
        body.push_str("data: [DONE]\n\n");
        body
    }
    let server = Server::start(|path| {
        let stream: usize = path.trim_start_matches('/').parse().unwrap();
        Reply::event_stream(&body(stream))
    })
    .await;
    let client = reqwest::Client::new();
    let mut tasks = tokio::task::JoinSet::new();
    for stream in 0..100 {
        let request = client.post(server.url(&format!("/{stream}")));
        tasks.spawn(async move {
            let message = request
                .send_and_assemble(Options::new())
                .await?
                .completion()
                .await?
                .into_message();
            Ok::<_, Error>((stream, message))
        });
    }
    let mut seen = Vec::new();
    while let Some(done) = tasks.join_next().await {
        let (stream, message) = done.unwrap().unwrap();
        assert_eq!(message.text(), format!("alpha beta gamma #{stream}"));
        assert_eq!(message.response_metadata.finish_reason, "stop");
        seen.push(stream);
    }
    seen.sort_unstable();
    assert_eq!(seen, (0..100).collect::<Vec<_>>());
}

/// Every complete fixture of the block-structured dialects (and Ollama's NDJSON), served over
/// HTTP with its content type in uneven writes, assembles to the same message as the same bytes
/// pushed into the sans-IO assembler — which `tests/fixtures.rs` checks against the hand-written
/// expectation.
#[tokio::test]
async fn every_dialect_assembles_over_http_as_it_does_from_bytes() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut served = 0;
    for (dir, extension, content_type) in [
        ("anthropic", "sse", "text/event-stream"),
        ("openai-responses", "sse", "text/event-stream"),
        ("gemini", "sse", "text/event-stream"),
        ("ollama-native", "ndjson", "application/x-ndjson"),
    ] {
        let mut streams: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == extension))
            .collect();
        streams.sort();
        for path in streams {
            let body = std::fs::read(&path).unwrap();
            let Ok(expected) = deltafold::assemble(&body, Options::new()) else {
                continue;
            };
            let server = Server::start(move |_| {
                Reply::new(200, Some(content_type)).drip(&body, &[61, 7, 127, 253, 1])
            })
            .await;
            let stream = post(&server, "/").send_and_assemble(Options::new()).await;
            let completion = stream.unwrap().completion().await;
            let name = path.display();
            let completion = completion.unwrap_or_else(|error| panic!("{name}: {error}"));
            assert_eq!(completion, expected, "{name}");
            served += 1;
        }
    }
    assert!(served >= 20, "only {served} dialect fixtures were served");
}

/// Fails the test instead of hanging when `future` takes longer than a generous 5 s.
async fn within_5s<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(5), future)
        .await
        .expect("no answer within 5 s")
}

#[tokio::test]
async fn a_trickling_error_body_is_reported_at_the_error_body_timeout_with_what_came() {
    // 64 KiB at one byte per 100 ms would take 1.8 hours to end.
    let start = r#"{"error":{"message":"overloaded"#;
    let rest = "x".repeat(64 * 1024);
    let server = Server::start(move |_| {
        Reply::new(503, Some("application/json"))
            .write(start)
            .trickle(rest.as_bytes(), Duration::from_millis(100))
    })
    .await;
    let options = HttpOptions::new().error_body_timeout(Duration::from_millis(500));
    let error = within_5s(post(&server, "/").send_and_assemble(options))
        .await
        .unwrap_err();
    assert!(error.is_status(), "{error:?}");
    assert_eq!(error.status_code(), Some(503));
    let body = error.body().unwrap();
    assert!(body.starts_with(start), "{body:?}");
    assert!(body.len() < start.len() + 1000, "{} bytes", body.len());
    assert!(error.provider_error().is_none());
    let text = error.to_string();
    assert!(text.contains("503"), "{text}");
    assert!(text.contains("error_body_timeout"), "{text}");
}

#[tokio::test]
async fn a_stream_trickling_under_the_idle_timeout_ends_at_the_deadline_with_the_partial() {
    let slow_from = TEXT_STREAM
        .find("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"is blue")
        .unwrap();
    let server = Server::start(move |_| {
        Reply::new(200, Some("text/event-stream"))
            .write(&TEXT_STREAM.as_bytes()[..slow_from])
            .trickle(
                &TEXT_STREAM.as_bytes()[slow_from..],
                Duration::from_millis(20),
            )
    })
    .await;
    let options = HttpOptions::new()
        .idle_timeout(Some(Duration::from_secs(2)))
        .deadline(Some(Duration::from_millis(400)));
    let stream = within_5s(post(&server, "/").send_and_assemble(options))
        .await
        .unwrap();
    let (events, message) = within_5s(drain(stream)).await;
    let error = message.unwrap_err();
    assert!(error.is_deadline_exceeded(), "{error:?}");
    assert!(error.to_string().contains("deadline"), "{error}");
    assert!(error.location().is_some(), "{error:?}");
    let partial = error.partial().unwrap();
    assert!(!partial.complete);
    assert!(partial.message().unwrap().text().starts_with("The sky "));
    assert!(events
        .iter()
        .any(|event| matches!(event, Event::TextDelta { text, .. } if text == "The sky ")));
}

#[tokio::test]
async fn the_deadline_also_bounds_the_wait_for_the_headers() {
    let server =
        Server::start(|_| Reply::event_stream(TEXT_STREAM).headers_after(Duration::from_secs(30)))
            .await;
    let options = HttpOptions::from(Options::new())
        .idle_timeout(None)
        .deadline(Some(Duration::from_millis(200)));
    let error = within_5s(post(&server, "/").send_and_assemble(options))
        .await
        .unwrap_err();
    assert!(error.is_deadline_exceeded(), "{error:?}");
    assert!(error.to_string().contains("no response headers"), "{error}");
}

#[tokio::test]
async fn an_encoding_the_client_cannot_decode_is_refused_naming_it() {
    let server = Server::start(|path| {
        let status = if path == "/error" { 500 } else { 200 };
        Reply::new(status, Some("text/event-stream"))
            .header("content-encoding", "zstd")
            .write(&b"\x28\xb5\x2f\xfd\x00\x58\x61\x00\x00"[..])
    })
    .await;
    let error = post(&server, "/")
        .send_and_assemble(Options::new())
        .await
        .unwrap_err();
    assert!(error.is_malformed(), "{error:?}");
    assert!(error.to_string().contains("\"zstd\""), "{error}");

    let error = post(&server, "/error")
        .send_and_assemble(Options::new())
        .await
        .unwrap_err();
    assert!(error.is_status(), "{error:?}");
    assert_eq!(error.status_code(), Some(500));
    assert_eq!(error.body(), Some(""));
    assert!(error.to_string().contains("\"zstd\""), "{error}");
}

#[tokio::test]
async fn tee_relays_every_byte_of_the_response_and_assembles_it() {
    let trailer = ": keep-alive\n\n";
    let body = format!("{TEXT_STREAM}{trailer}");
    let reply = body.clone();
    let server = Server::start(move |_| Reply::event_stream(&reply)).await;
    let response = post(&server, "/v1/chat/completions").send().await.unwrap();
    let (forward, completion) = response.tee(Options::new()).await.unwrap();
    let relayed: Vec<u8> = forward.map(|chunk| chunk.unwrap().to_vec()).concat().await;
    assert_eq!(String::from_utf8(relayed).unwrap(), body);
    let message = completion.await.unwrap().into_message();
    assert_eq!(message.text(), TEXT);
    assert_eq!(message.usage.unwrap().total_tokens, 18);
}

#[tokio::test]
async fn tee_relays_a_json_answer_and_assembles_it_whole() {
    let server = Server::start(|_| {
        Reply::new(200, Some("application/json")).drip(TEXT_JSON.as_bytes(), &[5, 17, 40])
    })
    .await;
    let response = post(&server, "/v1/chat/completions").send().await.unwrap();
    let (forward, completion) = response.tee(Options::new()).await.unwrap();
    let relayed: Vec<u8> = forward.map(|chunk| chunk.unwrap().to_vec()).concat().await;
    assert_eq!(relayed, TEXT_JSON.as_bytes());
    assert_eq!(completion.await.unwrap().into_message().text(), TEXT);
}

#[tokio::test]
async fn abort_closes_the_connection_and_returns_the_partial() {
    let server = Server::start(|_| Reply::event_stream(TEXT_STREAM).then(Step::Stall)).await;
    let client = reqwest::Client::new();
    let request = || client.post(server.url("/v1/chat/completions")).body("{}");
    let mut stream = request().send_and_assemble(Options::new()).await.unwrap();
    while let Some(event) = stream.next().await {
        if let Event::TextDelta { .. } = event.unwrap() {
            break;
        }
    }
    let message = stream.abort().into_message();
    assert_eq!(message.text(), "The sky ");
    assert_eq!(
        message.response_metadata.incomplete.as_deref(),
        Some("aborted")
    );
    // The aborted connection is not reused: the next request opens another.
    let next = request().send_and_assemble(Options::new()).await.unwrap();
    let _ = next.abort();
    assert_eq!(server.connections(), 2);
}

/// After `[DONE]`, the body is read to its end, so the client's pool keeps the connection.
#[tokio::test]
async fn sequential_requests_on_one_client_reuse_one_connection() {
    let server = Server::start(|_| Reply::event_stream(&format!("{TEXT_STREAM}: bye\n\n"))).await;
    let client = reqwest::Client::builder().http1_only().build().unwrap();
    let request = || client.post(server.url("/v1/chat/completions")).body("{}");
    for round in 0..10 {
        let stream = request().send_and_assemble(Options::new()).await.unwrap();
        // Half the rounds read every event to the end, half only ask for the result.
        let message = if round % 2 == 0 {
            drain(stream).await.1.unwrap()
        } else {
            stream.completion().await.unwrap().into_message()
        };
        assert_eq!(message.text(), TEXT);
    }
    assert_eq!(server.requests().len(), 10);
    assert_eq!(server.connections(), 1);
}

/// Reading past `[DONE]` is bounded: a server that keeps the body open after the answer (or
/// keeps sending) does not hold the caller; the connection is then closed, not reused.
#[tokio::test]
async fn reading_past_the_answer_is_bounded_in_time_and_bytes() {
    let comments = ": padding\n\n".repeat(20_000); // 220 KB, past the 64 KiB bound
    let server = Server::start(move |path| {
        let reply = Reply::event_stream(TEXT_STREAM);
        match path {
            "/stall" => reply.then(Step::Stall),
            _ => reply.write(comments.clone()).then(Step::Stall),
        }
    })
    .await;
    let client = reqwest::Client::new();
    for path in ["/stall", "/flood"] {
        let stream = client
            .post(server.url(path))
            .body("{}")
            .send_and_assemble(Options::new())
            .await
            .unwrap();
        // The drain gives up after 1 s; the guard is ten times that.
        let (events, message) = tokio::time::timeout(Duration::from_secs(10), drain(stream))
            .await
            .unwrap_or_else(|_| panic!("{path}: the stream did not end"));
        assert_eq!(events.last(), Some(&Event::Done), "{path}");
        assert_eq!(message.unwrap().text(), TEXT, "{path}");
    }
    assert_eq!(
        server.connections(),
        2,
        "neither connection went back to the pool"
    );
}
