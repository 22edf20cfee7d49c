//! The provider the chat page talks to when no key is set: an OpenAI-compatible endpoint on
//! 127.0.0.1 that answers every question with one recording (`fixtures/demo/demo.sse`:
//! reasoning, a sentence of text, two parallel tool calls, usage), one event per `pace`, as a
//! model would write them. The backend reaches it through reqwest like any other provider, so
//! the offline page runs the same code as the live one.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::header::CONTENT_TYPE;
use axum::routing::post;
use axum::Router;
use futures::StreamExt as _;
use tokio::net::TcpListener;

/// The recording: a reasoning model that thinks, says a sentence and calls two tools.
const RECORDING: &str = include_str!("../../fixtures/demo/demo.sse");

/// Starts the replaying provider; returns its base URL (ending in `/v1`, as an
/// `OPENAI_BASE_URL` does).
pub async fn start(pace: Duration) -> std::io::Result<String> {
    let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
    let address = listener.local_addr()?;
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move || async move { replay(pace) }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(format!("http://{address}/v1"))
}

/// The recording as a streamed response, an event at a time.
fn replay(pace: Duration) -> ([(axum::http::HeaderName, &'static str); 1], Body) {
    let events = RECORDING
        .split_inclusive("\n\n")
        .map(|event| Bytes::from_static(event.as_bytes()));
    let paced = futures::stream::iter(events).then(move |event| async move {
        tokio::time::sleep(pace).await;
        Ok::<_, Infallible>(event)
    });
    (
        [(CONTENT_TYPE, "text/event-stream")],
        Body::from_stream(paced),
    )
}
