//! The provider the chat page talks to when no key is set: an OpenAI-compatible endpoint on
//! 127.0.0.1 that answers every question with one recording (by default `fixtures/demo/demo.sse`:
//! reasoning, a sentence of text, two parallel tool calls, usage), one event per `pace`, as a
//! model would write them. The backend reaches it through reqwest like any other provider, so
//! the offline page runs the same code as the live one.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::header::{HeaderName, CONTENT_TYPE};
use axum::routing::post;
use axum::Router;
use futures::StreamExt as _;
use tokio::net::TcpListener;

/// The default recording: a reasoning model that thinks, says a sentence and calls two tools.
pub const DEMO: &str = include_str!("../../fixtures/demo/demo.sse");

/// Starts the replaying provider; returns its base URL (ending in `/v1`, as an
/// `OPENAI_BASE_URL` does).
pub async fn start(recording: Bytes, pace: Duration) -> std::io::Result<String> {
    let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
    let address = listener.local_addr()?;
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move || async move { replay(&recording, pace) }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(format!("http://{address}/v1"))
}

/// The recording as a streamed response, an event (up to a blank line) at a time.
fn replay(recording: &Bytes, pace: Duration) -> ([(HeaderName, &'static str); 1], Body) {
    let mut events = Vec::new();
    let mut start = 0;
    while start < recording.len() {
        let end = memchr::memmem::find(&recording[start..], b"\n\n")
            .map_or(recording.len(), |blank| start + blank + 2);
        events.push(recording.slice(start..end));
        start = end;
    }
    let paced = futures::stream::iter(events).then(move |event| async move {
        tokio::time::sleep(pace).await;
        Ok::<_, Infallible>(event)
    });
    (
        [(CONTENT_TYPE, "text/event-stream")],
        Body::from_stream(paced),
    )
}
