//! `--url`: send the request and assemble the live response as it arrives, through the
//! library's reqwest integration (status and content-type checks, idle timeout, deadline), on a
//! client that keeps the request to its origin: no `Referer`, and no redirect to another origin,
//! which would carry the headers (an `x-api-key`), the query (Gemini's `?key=`) and, on a 307,
//! the body there. gzip, deflate and brotli bodies are decoded (the `cli` feature turns them on).

use std::future::poll_fn;
use std::io;
use std::pin::Pin;

use deltafold::http::HttpOptions;
use deltafold::RequestBuilderExt;
use futures_core::Stream;
use reqwest::header::{HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use reqwest::redirect::{Attempt, Policy};

use crate::args::{Body, Request};
use crate::output::Sink;
use crate::Outcome;

/// Sends `request` and shows the response's events on `sink`. Fails only when the sink cannot
/// write.
pub fn fetch(request: &Request, options: HttpOptions, sink: &mut dyn Sink) -> io::Result<Outcome> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(fetch_async(request, options, sink))
}

async fn fetch_async(
    request: &Request,
    options: HttpOptions,
    sink: &mut dyn Sink,
) -> io::Result<Outcome> {
    let builder = match build(request) {
        Ok(builder) => builder,
        Err(message) => return Ok(Outcome::failed(message)),
    };
    let mut events = match builder.send_and_assemble(options).await {
        Ok(events) => events,
        Err(error) => return Ok(Outcome::from_error(error)),
    };
    while let Some(event) = poll_fn(|cx| Pin::new(&mut events).poll_next(cx)).await {
        match event {
            Ok(event) => sink.event(&event, Pin::new(&mut events).assembler_mut())?,
            Err(error) => return Ok(Outcome::from_error(error)),
        }
    }
    Ok(Outcome::from_result(events.completion().await))
}

/// Redirects followed within one chain, as reqwest's default policy allows.
const MAX_REDIRECTS: usize = 10;

/// Follows a redirect only to the origin of the request; refuses any other, naming it.
fn same_origin(attempt: Attempt<'_>) -> reqwest::redirect::Action {
    let target = attempt.url().origin();
    let origin = attempt.previous().first().map(|url| url.origin());
    if origin.as_ref() != Some(&target) {
        let error = format!(
            "refusing a redirect ({}) to another origin, {}: it would receive the request's \
             headers, query and body",
            attempt.status(),
            target.ascii_serialization()
        );
        attempt.error(error)
    } else if attempt.previous().len() > MAX_REDIRECTS {
        attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
    } else {
        attempt.follow()
    }
}

/// The request: POST with a body, GET without; JSON and an event stream by default.
fn build(request: &Request) -> Result<reqwest::RequestBuilder, String> {
    let client = reqwest::Client::builder()
        .referer(false)
        .redirect(Policy::custom(same_origin))
        .build()
        .map_err(|error| format!("cannot set up the HTTP client: {error}"))?;
    let body = match &request.body {
        Some(Body::Inline(text)) => Some(text.clone()),
        Some(Body::File(path)) => Some(
            std::fs::read_to_string(path)
                .map_err(|error| format!("cannot read {}: {error}", path.display()))?,
        ),
        None => None,
    };
    let mut builder = match body {
        Some(body) => client.post(&request.url).body(body),
        None => client.get(&request.url),
    };
    let named = |wanted: &HeaderName| {
        request
            .headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case(wanted.as_str()))
    };
    if !named(&ACCEPT) {
        builder = builder.header(ACCEPT, "text/event-stream");
    }
    if request.body.is_some() && !named(&CONTENT_TYPE) {
        builder = builder.header(CONTENT_TYPE, "application/json");
    }
    for (name, value) in &request.headers {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|error| format!("invalid header name {name:?}: {error}"))?;
        let value = HeaderValue::from_str(value)
            .map_err(|error| format!("invalid value for header {name}: {error}"))?;
        builder = builder.header(name, value);
    }
    Ok(builder)
}
