//! Stopping a stream from another task, and a gateway's relay and re-encoding keeping the
//! message, against a real HTTP server on 127.0.0.1 that sends part of an answer and then
//! waits for ever: the abort handle must wake the task waiting on the network; the re-encoded
//! stream's completion must resolve at the end, on abort, and when the client goes away.
#![cfg(feature = "reqwest")]

#[path = "support/server.rs"]
mod server;

use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use deltafold::encode::{EncodeExt, Target};
use deltafold::{AbortHandle, Completion, Event, Options, RequestBuilderExt, ResponseExt};
use futures::task::ArcWake;
use futures::StreamExt;
use server::{Reply, Server, Step};

const FIRST_PART: &str = concat!(
    "data: {\"id\":\"chatcmpl-1\",\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Once \"}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"upon\"}}]}\n\n",
);

const WHOLE: &str = concat!(
    "data: {\"id\":\"chatcmpl-1\",\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Once \"}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"upon\"},\"finish_reason\":\"stop\"}]}\n\n",
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5}}\n\n",
    "data: [DONE]\n\n",
);

/// A server that sends [`FIRST_PART`] and then never sends the rest.
async fn stalling_server() -> Server {
    Server::start(|_| {
        Reply::new(200, Some("text/event-stream"))
            .write(FIRST_PART)
            .then(Step::Stall)
    })
    .await
}

fn post(server: &Server) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .post(server.url("/v1/chat/completions"))
        .body("{}")
}

/// A waker that records being woken.
#[derive(Default)]
struct Woken(AtomicBool);

impl ArcWake for Woken {
    fn wake_by_ref(woken: &Arc<Self>) {
        woken.0.store(true, Ordering::SeqCst);
    }
}

/// Polls the stream's next read, which waits on the network (the server never sends the
/// rest); aborts from a spawned task; then checks that the abort alone woke the reader (no
/// timer, no byte could) and that the read yields the end.
async fn ends_when_aborted_elsewhere<T>(
    mut next: Pin<&mut impl Future<Output = Option<T>>>,
    handle: AbortHandle,
) {
    let woken = Arc::new(Woken::default());
    let waker = futures::task::waker(Arc::clone(&woken));
    let mut cx = Context::from_waker(&waker);
    assert!(next.as_mut().poll(&mut cx).is_pending());
    assert!(!woken.0.load(Ordering::SeqCst));
    tokio::spawn(async move { handle.abort() }).await.unwrap();
    assert!(
        woken.0.load(Ordering::SeqCst),
        "the abort did not wake the reader"
    );
    assert!(matches!(next.poll(&mut cx), Poll::Ready(None)));
}

fn assert_aborted(completion: Completion) {
    assert!(!completion.complete);
    let message = completion.into_message();
    assert_eq!(message.text(), "Once upon");
    assert_eq!(
        message.response_metadata.incomplete.as_deref(),
        Some("aborted")
    );
}

#[tokio::test]
async fn an_abort_from_another_task_ends_an_assemble_stream_waiting_on_the_network() {
    let server = stalling_server().await;
    let mut events = post(&server)
        .send_and_assemble(Options::new())
        .await
        .unwrap();
    let handle = events.abort_handle();
    let mut text = String::new();
    while text != "Once upon" {
        if let Event::TextDelta { text: delta, .. } = events.next().await.unwrap().unwrap() {
            text.push_str(&delta);
        }
    }
    ends_when_aborted_elsewhere(pin!(events.next()), handle.clone()).await;
    assert!(handle.is_aborted());
    assert!(events.next().await.is_none());
    assert_aborted(events.completion().await.unwrap());
}

#[tokio::test]
async fn an_abort_from_another_task_ends_a_tee_and_resolves_its_completion() {
    let server = stalling_server().await;
    let response = post(&server).send().await.unwrap();
    let (mut forward, completion) = response.tee(Options::new()).await.unwrap();
    assert_eq!(forward.status(), 200);
    assert_eq!(forward.content_type(), Some("text/event-stream"));
    let handle = forward.abort_handle();
    let mut relayed = Vec::new();
    while relayed != FIRST_PART.as_bytes() {
        relayed.extend_from_slice(&forward.next().await.unwrap().unwrap());
    }
    ends_when_aborted_elsewhere(pin!(forward.next()), handle).await;
    assert_aborted(completion.await.unwrap());
}

#[tokio::test]
async fn an_abort_from_another_task_ends_a_re_encoded_stream_and_resolves_its_completion() {
    let server = stalling_server().await;
    let events = post(&server)
        .send_and_assemble(Options::new())
        .await
        .unwrap();
    let mut sse = events.encode(Target::Anthropic);
    let handle = sse.abort_handle();
    let (mut sse, completion) = sse.with_completion();
    let mut written = String::new();
    while !written.contains("upon") {
        written.push_str(&sse.next().await.unwrap().unwrap());
    }
    assert!(written.contains("event: message_start"));
    // The snapshot between items.
    assert_eq!(sse.assembler().message(0).unwrap().text(), "Once upon");
    // The answer did not end: no closing events, the client sees the cut.
    ends_when_aborted_elsewhere(pin!(sse.next()), handle).await;
    assert!(!written.contains("message_stop"));
    assert_aborted(completion.await.unwrap());
}

#[tokio::test]
async fn a_re_encoded_stream_dropped_by_its_client_resolves_the_completion_with_the_partial() {
    let server = stalling_server().await;
    let events = post(&server)
        .send_and_assemble(Options::new())
        .await
        .unwrap();
    let (mut sse, completion) = events.encode(Target::OpenAiResponses).with_completion();
    let mut written = String::new();
    while !written.contains("upon") {
        written.push_str(&sse.next().await.unwrap().unwrap());
    }
    drop(sse); // the client went away
    let error = completion.await.unwrap_err();
    assert!(error.is_truncated(), "{error}");
    let partial = error.into_partial().unwrap();
    assert!(!partial.complete);
    let message = partial.into_message();
    assert_eq!(message.text(), "Once upon");
    assert!(message.response_metadata.incomplete.is_some());

    // Lenient: the partial itself, marked incomplete.
    let events = post(&server)
        .send_and_assemble(Options::new().lenient(true))
        .await
        .unwrap();
    let (mut sse, completion) = events.encode(Target::Gemini).with_completion();
    sse.next().await.unwrap().unwrap();
    drop(sse);
    let completion = completion.await.unwrap();
    assert!(!completion.complete);
}

#[tokio::test]
async fn a_re_encoded_stream_keeps_usage_at_its_end_and_the_partial_on_a_cut() {
    let server = Server::start(|path| match path {
        "/whole" => Reply::event_stream(WHOLE),
        _ => Reply::new(200, Some("text/event-stream"))
            .write(FIRST_PART)
            .then(Step::Cut),
    })
    .await;
    let client = reqwest::Client::new();
    let events = client
        .post(server.url("/whole"))
        .send_and_assemble(Options::new())
        .await
        .unwrap();
    let (sse, completion) = events.encode(Target::Anthropic).with_completion();
    let written: String = sse.map(Result::unwrap).collect().await;
    assert!(written.contains("event: message_stop"));
    let completion = completion.await.unwrap();
    assert!(completion.complete);
    let message = completion.into_message();
    assert_eq!(message.text(), "Once upon");
    assert_eq!(message.usage.unwrap().total_tokens, 5);

    // A cut connection: the client's stream ends in an error, the completion keeps the partial.
    let events = client
        .post(server.url("/cut"))
        .send_and_assemble(Options::new())
        .await
        .unwrap();
    let (sse, completion) = events.encode(Target::Anthropic).with_completion();
    let items: Vec<_> = sse.collect().await;
    assert!(items.last().unwrap().is_err());
    let error = completion.await.unwrap_err();
    assert_eq!(
        error.partial().unwrap().choices[0].message.text(),
        "Once upon"
    );
}

#[tokio::test]
async fn a_tee_keeps_the_head_of_a_non_streamed_answer() {
    let body = r#"{"id":"c","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}"#;
    let server = Server::start(move |_| {
        Reply::new(200, Some("application/json"))
            .header("x-request-id", "req-7")
            .write(body)
    })
    .await;
    let response = post(&server).send().await.unwrap();
    let (forward, completion) = response.tee(Options::new()).await.unwrap();
    assert_eq!(forward.status(), 200);
    assert_eq!(forward.content_type(), Some("application/json"));
    assert_eq!(forward.headers()["x-request-id"], "req-7");
    let relayed: Vec<u8> = forward.map(|read| read.unwrap().to_vec()).concat().await;
    assert_eq!(relayed, body.as_bytes());
    assert_eq!(completion.await.unwrap().into_message().text(), "Hi");
}

#[tokio::test]
async fn a_split_re_encoded_stream_read_to_its_end_by_completion_resolves_both() {
    let server = Server::start(|_| Reply::event_stream(WHOLE)).await;
    let events = post(&server)
        .send_and_assemble(Options::new())
        .await
        .unwrap();
    let (sse, split_off) = events.encode(Target::OpenAiChat).with_completion();
    let read = sse.completion().await.unwrap();
    let split_off = split_off.await.unwrap();
    assert_eq!(read, split_off);
    assert_eq!(read.into_message().usage.unwrap().total_tokens, 5);
}
