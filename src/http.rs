//! reqwest integration (feature `reqwest`): send a request, check what came back, and assemble
//! the answer — streamed (`text/event-stream`) or not (`application/json`) — into the same
//! [`AssembleStream`] of events.
//!
//! ```no_run
//! use deltafold::{Event, Options, RequestBuilderExt};
//! use futures::StreamExt;
//!
//! # async fn run() -> Result<(), deltafold::Error> {
//! let request = reqwest::Client::new()
//!     .post("https://api.openai.com/v1/chat/completions")
//!     .bearer_auth(std::env::var("OPENAI_API_KEY").unwrap_or_default())
//!     .header("content-type", "application/json")
//!     .body(r#"{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"Hi"}]}"#);
//! let mut events = request.send_and_assemble(Options::new()).await?;
//! while let Some(event) = events.next().await {
//!     if let Event::TextDelta { text, .. } = event? {
//!         print!("{text}");
//!     }
//! }
//! let message = events.completion().await?.into_message();
//! println!("\n{:?}", message.usage);
//! # Ok(())
//! # }
//! ```
//!
//! Nothing here retries: a chat request is a POST, and sending it twice can bill twice.
//! (reqwest's own client may re-send a request the server refused at the protocol level, before
//! processing it; that is configured on the `reqwest::Client`.)

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_core::stream::{FusedStream, Stream};
use reqwest::header::CONTENT_TYPE;
use tokio::time::{Instant, Sleep};

use crate::error::snippet;
use crate::stream::{causes, AssembleStream};
use crate::{Assembler, Error, ErrorKind, Options, ProviderError};

/// The events of one HTTP response. A [`Stream`] of [`Event`](crate::Event)s with
/// [`completion`](AssembleStream::completion) for the final result.
pub type ResponseStream = AssembleStream<ResponseBody>;

/// Assembles a `reqwest::Response`.
///
/// ```
/// use deltafold::ResponseExt;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
/// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
/// # let url = format!("http://{}/v1/chat/completions", listener.local_addr()?);
/// # tokio::spawn(async move {
/// #     let (mut connection, _) = listener.accept().await.unwrap();
/// #     let mut request = [0; 4096];
/// #     let _ = connection.read(&mut request).await.unwrap();
/// #     let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Bonjour\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
/// #     let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n";
/// #     let reply = format!("{head}content-length: {}\r\n\r\n{body}", body.len());
/// #     connection.write_all(reply.as_bytes()).await.unwrap();
/// # });
/// let response = reqwest::Client::new().post(&url).body("{}").send().await?;
/// let completion = response.assemble().await?.completion().await?;
/// assert_eq!(completion.into_message().text(), "Bonjour");
/// # Ok(())
/// # }
/// ```
pub trait ResponseExt: sealed::Sealed {
    /// Checks the status and content type, then assembles the body with the default
    /// [`Options`]. See [`assemble_with`](Self::assemble_with).
    fn assemble(self) -> impl Future<Output = Result<ResponseStream, Error>> + Send;

    /// Checks the status and content type, then assembles the body.
    ///
    /// - A non-success status is an [`ErrorKind::Status`] error with the status, the start of
    ///   the body (up to [`Limits::max_error_body_bytes`](crate::Limits::max_error_body_bytes))
    ///   and, when the body is the provider's error JSON, the parsed
    ///   [`ProviderError`].
    /// - `application/json` is a non-streamed answer: it is read whole (up to
    ///   [`Limits::max_message_bytes`](crate::Limits::max_message_bytes)) and assembled as
    ///   one event, so it yields the same events and message a stream would.
    /// - `text/html` (a proxy's error page) is an [`ErrorKind::Malformed`] error quoting it.
    /// - Anything else is read as an event stream, with the
    ///   [idle timeout](crate::Limits::idle_timeout) applied between reads.
    fn assemble_with(
        self,
        options: Options,
    ) -> impl Future<Output = Result<ResponseStream, Error>> + Send;
}

impl ResponseExt for reqwest::Response {
    fn assemble(self) -> impl Future<Output = Result<ResponseStream, Error>> + Send {
        assemble_response(self, Options::default())
    }

    fn assemble_with(
        self,
        options: Options,
    ) -> impl Future<Output = Result<ResponseStream, Error>> + Send {
        assemble_response(self, options)
    }
}

/// Sends a `reqwest::RequestBuilder` and assembles the response.
pub trait RequestBuilderExt: sealed::Sealed {
    /// Sends the request once and assembles the response as
    /// [`ResponseExt::assemble_with`] does. The idle timeout also bounds the wait for the
    /// response headers; a failure to send is an [`ErrorKind::Transport`] error.
    fn send_and_assemble(
        self,
        options: Options,
    ) -> impl Future<Output = Result<ResponseStream, Error>> + Send;
}

impl RequestBuilderExt for reqwest::RequestBuilder {
    async fn send_and_assemble(self, options: Options) -> Result<ResponseStream, Error> {
        let sending = self.send();
        let sent = match options.limits().idle_timeout {
            Some(timeout) => tokio::time::timeout(timeout, sending)
                .await
                .map_err(|_| idle_error("no response headers", timeout))?,
            None => sending.await,
        };
        let response = sent.map_err(|error| {
            Error::new(
                ErrorKind::Transport,
                format!("sending the request failed: {}", causes(&error)),
            )
            .with_source(error)
        })?;
        assemble_response(response, options).await
    }
}

mod sealed {
    /// Only reqwest's types get the extension methods.
    pub trait Sealed {}
    impl Sealed for reqwest::Response {}
    impl Sealed for reqwest::RequestBuilder {}
}

/// What the `Content-Type` says the body is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum BodyKind {
    /// An event stream, or NDJSON: the assembler frames it by its media type.
    Stream(String),
    Json,
    Html,
}

impl BodyKind {
    /// Servers that stream sometimes send no or a wrong type, so anything not recognisably
    /// JSON or HTML is read as a stream.
    fn of(response: &reqwest::Response) -> Self {
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default();
        let media_type = content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        if media_type == "application/json" || media_type.ends_with("+json") {
            BodyKind::Json
        } else if media_type == "text/html" {
            BodyKind::Html
        } else {
            BodyKind::Stream(media_type)
        }
    }
}

async fn assemble_response(
    response: reqwest::Response,
    options: Options,
) -> Result<ResponseStream, Error> {
    let status = response.status();
    let kind = BodyKind::of(&response);
    let limits = options.limits();
    let mut body = ResponseBody::new(response, limits.idle_timeout);
    if !status.is_success() {
        let text = utf8_prefix(&body.read_up_to(limits.max_error_body_bytes).await.bytes);
        let provider = parse_provider_error(&text);
        return Err(Error::status(status.as_u16(), text, provider));
    }
    match kind {
        BodyKind::Stream(media_type) => {
            let mut assembler = Assembler::with_options(options);
            assembler.set_content_type(&media_type);
            Ok(AssembleStream::with_assembler(body, assembler))
        }
        BodyKind::Html => {
            let page = utf8_prefix(&body.read_up_to(limits.max_error_body_bytes).await.bytes);
            let page = page.split_whitespace().collect::<Vec<_>>().join(" ");
            Err(Error::new(
                ErrorKind::Malformed,
                format!(
                    "expected an event stream but the server sent an HTML page (status {status}): {}",
                    snippet(&page)
                ),
            ))
        }
        BodyKind::Json => {
            let max = limits.max_message_bytes;
            let read = body.read_up_to(max).await;
            if let Some(error) = read.failure {
                return Err(error);
            }
            if read.cut {
                return Err(Error::new(
                    ErrorKind::LimitExceeded,
                    format!("the JSON body exceeds {max} bytes (max_message_bytes)"),
                ));
            }
            let text = std::str::from_utf8(&read.bytes).map_err(|error| {
                Error::new(
                    ErrorKind::InvalidUtf8,
                    format!("the JSON body is not UTF-8: {error}"),
                )
                .with_source(error)
            })?;
            if text.trim().is_empty() {
                return Err(Error::new(
                    ErrorKind::Truncated,
                    format!("the server sent an empty body (status {status}, application/json)"),
                ));
            }
            // One pre-framed event: the body may span lines, which SSE framing would split.
            // The (now empty) body then ends the input, which completes the answer when every
            // choice has a finish reason — and reports a body without choices as truncated.
            let mut assembler = Assembler::with_options(options);
            assembler.push_frame(None, text);
            Ok(AssembleStream::with_assembler(body, assembler))
        }
    }
}

/// Reads an error body as the provider's error object when it is JSON.
fn parse_provider_error(body: &str) -> Option<ProviderError> {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .filter(|value| value.is_object() || value.is_string())
        .map(ProviderError::from_value)
}

/// The bytes as text, dropping a character cut at the end by the read bound.
fn utf8_prefix(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(error) if error.error_len().is_none() => {
            String::from_utf8_lossy(&bytes[..error.valid_up_to()]).into_owned()
        }
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

fn idle_error(what: &str, timeout: Duration) -> Error {
    Error::new(
        ErrorKind::IdleTimeout,
        format!("{what} within {timeout:?} (idle_timeout)"),
    )
}

/// The body of a response as a stream of byte chunks, failing with
/// [`ErrorKind::IdleTimeout`] when no bytes arrive within the idle timeout.
pub struct ResponseBody {
    /// `None` once the body ended or failed.
    chunks: Option<Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>>,
    idle: Option<IdleTimer>,
}

/// What a bounded read of the whole body got.
struct BoundedRead {
    /// At most the bound.
    bytes: Vec<u8>,
    /// More bytes followed the bound (not read).
    cut: bool,
    /// Reading failed after `bytes`.
    failure: Option<Error>,
}

impl ResponseBody {
    fn new(response: reqwest::Response, idle_timeout: Option<Duration>) -> Self {
        ResponseBody {
            chunks: Some(Box::pin(response.bytes_stream())),
            idle: idle_timeout.map(IdleTimer::new),
        }
    }

    /// Reads until the end of the body or until it exceeds `max` bytes.
    async fn read_up_to(&mut self, max: usize) -> BoundedRead {
        let mut bytes = Vec::new();
        while let Some(read) = poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await {
            let chunk = match read {
                Ok(chunk) => chunk,
                Err(error) => {
                    return BoundedRead {
                        bytes,
                        cut: false,
                        failure: Some(error),
                    }
                }
            };
            let room = max - bytes.len();
            if chunk.len() > room {
                bytes.extend_from_slice(&chunk[..room]);
                self.chunks = None;
                return BoundedRead {
                    bytes,
                    cut: true,
                    failure: None,
                };
            }
            bytes.extend_from_slice(&chunk);
        }
        BoundedRead {
            bytes,
            cut: false,
            failure: None,
        }
    }
}

impl Stream for ResponseBody {
    type Item = Result<Bytes, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        let Some(chunks) = this.chunks.as_mut() else {
            return Poll::Ready(None);
        };
        let read = match chunks.as_mut().poll_next(cx) {
            Poll::Ready(read) => read,
            Poll::Pending => {
                let Some(idle) = this.idle.as_mut() else {
                    return Poll::Pending;
                };
                if !idle.poll_expired(cx) {
                    return Poll::Pending;
                }
                this.chunks = None;
                let error = idle_error("no bytes arrived", idle.timeout);
                return Poll::Ready(Some(Err(error)));
            }
        };
        match read {
            Some(Ok(chunk)) => {
                if let Some(idle) = this.idle.as_mut() {
                    idle.bytes_arrived();
                }
                Poll::Ready(Some(Ok(chunk)))
            }
            Some(Err(error)) => {
                this.chunks = None;
                Poll::Ready(Some(Err(Error::new(
                    ErrorKind::Transport,
                    format!("reading the response failed: {}", causes(&error)),
                )
                .with_source(error))))
            }
            None => {
                this.chunks = None;
                Poll::Ready(None)
            }
        }
    }
}

impl FusedStream for ResponseBody {
    fn is_terminated(&self) -> bool {
        self.chunks.is_none()
    }
}

impl std::fmt::Debug for ResponseBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseBody")
            .field("ended", &self.chunks.is_none())
            .field("idle_timeout", &self.idle.as_ref().map(|idle| idle.timeout))
            .finish()
    }
}

/// The idle timeout. A read only records the new deadline; the timer is re-armed when it
/// fires early, so a fast stream does not touch the timer wheel on every chunk.
struct IdleTimer {
    timeout: Duration,
    deadline: Instant,
    sleep: Pin<Box<Sleep>>,
}

impl IdleTimer {
    fn new(timeout: Duration) -> Self {
        let deadline = Instant::now() + timeout;
        IdleTimer {
            timeout,
            deadline,
            sleep: Box::pin(tokio::time::sleep_until(deadline)),
        }
    }

    fn bytes_arrived(&mut self) {
        self.deadline = Instant::now() + self.timeout;
    }

    /// True once the deadline passed with no bytes; otherwise the waker is registered.
    fn poll_expired(&mut self, cx: &mut Context<'_>) -> bool {
        loop {
            if self.sleep.as_mut().poll(cx).is_pending() {
                return false;
            }
            if self.sleep.deadline() >= self.deadline {
                return true;
            }
            self.sleep.as_mut().reset(self.deadline);
        }
    }
}
