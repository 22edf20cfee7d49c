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
//!
//! # Time bounds
//!
//! [`HttpOptions`] bounds the time an exchange may hold the caller: the
//! [idle timeout](HttpOptions::idle_timeout) (120 s by default) between reads and for the
//! response headers, an overall [deadline](HttpOptions::deadline) (none by default) from the
//! call to the last byte, and the [time to read an error body](HttpOptions::error_body_timeout)
//! (5 s), after which the status is reported with the part of the body that came.
//!
//! # Compressed bodies
//!
//! reqwest decodes `Content-Encoding: gzip`, `deflate` and `br` only with its features of the
//! same names (`brotli` for `br`); without them it does not ask for compression either. The
//! `deltafold` CLI turns them on; a library user turns them on in their own `Cargo.toml`,
//! `reqwest = { version = "0.12", features = ["gzip", "deflate", "brotli"] }`, and Cargo
//! unifies them with deltafold's reqwest. A body whose encoding the client did not decode is
//! refused with an [`ErrorKind::Malformed`] error that names the encoding, rather than read as
//! bytes that are not the stream.
//!
//! # Redirects, referers and credentials
//!
//! [`RequestBuilderExt::send_and_assemble`] sends through the caller's `reqwest::Client`, so
//! the client's redirect policy decides. reqwest's default follows up to ten redirects, sends
//! the body again on a 307 or 308 wherever it points, removes only `Authorization`, `Cookie`
//! and `Proxy-Authorization` on the way to another host (an `x-api-key` or `x-goog-api-key`
//! header goes along), and adds a `Referer` with the previous URL, query included — where
//! Gemini's `?key=` lives. For requests that carry credentials, build the client without
//! referers and with a policy that refuses another origin, as the CLI does:
//!
//! ```no_run
//! use reqwest::redirect::Policy;
//!
//! let same_origin_only = Policy::custom(|attempt| {
//!     let origin = attempt.previous()[0].origin();
//!     if attempt.url().origin() != origin {
//!         attempt.error("refusing a redirect to another origin")
//!     } else if attempt.previous().len() > 10 {
//!         attempt.error("too many redirects")
//!     } else {
//!         attempt.follow()
//!     }
//! });
//! let client = reqwest::Client::builder()
//!     .referer(false)
//!     .redirect(same_origin_only)
//!     .build()?;
//! # Ok::<(), reqwest::Error>(())
//! ```
//!
//! (`Policy::none()` is stricter: a redirect then is an [`ErrorKind::Status`] error.)

mod body;
mod check;
mod options;
mod redact;
mod time;

use std::future::Future;

use self::body::ReadEnd;
pub use self::body::ResponseBody;
use self::check::{checked_body, BodyKind};
pub use self::options::HttpOptions;
use self::redact::transport_error;
use self::time::{within, Deadline};
use crate::assemble::Assembler;
use crate::error::{Error, ErrorKind};
use crate::stream::{AssembleStream, Feed, Tee, TeeCompletion};

/// The events of one HTTP response. A [`Stream`](futures_core::Stream) of
/// [`Event`](crate::Event)s with [`completion`](AssembleStream::completion) for the final
/// result.
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
    /// [`HttpOptions`]. See [`assemble_with`](Self::assemble_with).
    fn assemble(self) -> impl Future<Output = Result<ResponseStream, Error>> + Send;

    /// Checks the status and content type, then assembles the body. Takes [`HttpOptions`] or
    /// plain [`Options`](crate::Options) (with the default time and size bounds); the
    /// [deadline](HttpOptions::deadline) counts from this call.
    ///
    /// - A non-success status is an [`ErrorKind::Status`] error with the status, the start of
    ///   the body (up to [`max_error_body_bytes`](HttpOptions::max_error_body_bytes), read for
    ///   at most [`error_body_timeout`](HttpOptions::error_body_timeout)) and, when the body is
    ///   the provider's error JSON, the parsed [`ProviderError`](crate::error::ProviderError).
    /// - A `Content-Encoding` the client did not decode is an [`ErrorKind::Malformed`] error
    ///   naming it (see [Compressed bodies](self#compressed-bodies)).
    /// - `application/json` is a non-streamed answer: it is read whole (up to
    ///   [`Limits::max_message_bytes`](crate::Limits::max_message_bytes)) and assembled as
    ///   one event, so it yields the same events and message a stream would.
    /// - `text/html` (a proxy's error page) is an [`ErrorKind::Malformed`] error quoting it.
    /// - Anything else is read as an event stream, with the
    ///   [idle timeout](HttpOptions::idle_timeout) applied between reads and the
    ///   [deadline](HttpOptions::deadline) to the whole.
    fn assemble_with(
        self,
        options: impl Into<HttpOptions>,
    ) -> impl Future<Output = Result<ResponseStream, Error>> + Send;

    /// Checks the status and content type as [`assemble_with`](Self::assemble_with) does, then
    /// passes the body through unchanged — every byte to its end, `[DONE]` and what follows
    /// included — while a copy is assembled for the [`TeeCompletion`]: for a gateway that
    /// relays the provider's stream and keeps the message (usage, tool calls) for itself.
    /// The forwarded items are the body's chunks, or its error (an idle timeout, the deadline,
    /// a broken connection). See [`Tee`] for what dropping the forwarding half early does.
    /// The forwarding half keeps the response head: [`Tee::status`], [`Tee::headers`],
    /// [`Tee::content_type`] — relay the answer under its own content type.
    ///
    /// ```no_run
    /// use deltafold::{Options, ResponseExt};
    /// use futures::StreamExt;
    ///
    /// # async fn relay(response: reqwest::Response) -> Result<(), deltafold::Error> {
    /// let (mut forward, completion) = response.tee(Options::new()).await?;
    /// // `text/event-stream`, or `application/json` for a non-streamed answer.
    /// let content_type = forward.content_type().unwrap_or("text/event-stream").to_owned();
    /// # let _ = content_type;
    /// while let Some(chunk) = forward.next().await {
    ///     let chunk = chunk?;
    ///     // … write `chunk` to the client …
    /// #   let _ = chunk;
    /// }
    /// let usage = completion.await?.into_message().usage;
    /// println!("{usage:?}");
    /// # Ok(())
    /// # }
    /// ```
    fn tee(
        self,
        options: impl Into<HttpOptions>,
    ) -> impl Future<Output = Result<(Tee<ResponseBody>, TeeCompletion), Error>> + Send;
}

impl ResponseExt for reqwest::Response {
    fn tee(
        self,
        options: impl Into<HttpOptions>,
    ) -> impl Future<Output = Result<(Tee<ResponseBody>, TeeCompletion), Error>> + Send {
        let options = options.into();
        let deadline = options.deadline.map(Deadline::starting_now);
        tee_response(self, options, deadline)
    }

    fn assemble(self) -> impl Future<Output = Result<ResponseStream, Error>> + Send {
        self.assemble_with(HttpOptions::default())
    }

    fn assemble_with(
        self,
        options: impl Into<HttpOptions>,
    ) -> impl Future<Output = Result<ResponseStream, Error>> + Send {
        let options = options.into();
        let deadline = options.deadline.map(Deadline::starting_now);
        assemble_response(self, options, deadline)
    }
}

/// Sends a `reqwest::RequestBuilder` and assembles the response.
pub trait RequestBuilderExt: sealed::Sealed {
    /// Sends the request once and assembles the response as
    /// [`ResponseExt::assemble_with`] does. The idle timeout and the deadline (which counts
    /// from this call) also bound the wait for the response headers; a failure to send is an
    /// [`ErrorKind::Transport`] error. The request goes through the builder's own client, with
    /// its redirect policy: see [Redirects](self#redirects-referers-and-credentials).
    fn send_and_assemble(
        self,
        options: impl Into<HttpOptions>,
    ) -> impl Future<Output = Result<ResponseStream, Error>> + Send;
}

impl RequestBuilderExt for reqwest::RequestBuilder {
    fn send_and_assemble(
        self,
        options: impl Into<HttpOptions>,
    ) -> impl Future<Output = Result<ResponseStream, Error>> + Send {
        let options = options.into();
        let deadline = options.deadline.map(Deadline::starting_now);
        send_and_assemble(self, options, deadline)
    }
}

async fn send_and_assemble(
    request: reqwest::RequestBuilder,
    options: HttpOptions,
    deadline: Option<Deadline>,
) -> Result<ResponseStream, Error> {
    let sending = request.send();
    let sent = within(
        sending,
        options.idle_timeout,
        deadline,
        "no response headers",
    )
    .await?;
    let response = sent.map_err(|error| transport_error("sending the request failed", error))?;
    assemble_response(response, options, deadline).await
}

mod sealed {
    /// Only reqwest's types get the extension methods.
    pub trait Sealed {}
    impl Sealed for reqwest::Response {}
    impl Sealed for reqwest::RequestBuilder {}
}

/// An assembler for a streamed body of this media type.
fn stream_assembler(options: &HttpOptions, media_type: &str) -> Assembler {
    let mut assembler = Assembler::with_options(options.assembly.clone());
    assembler.set_content_type(media_type);
    assembler
}

async fn assemble_response(
    response: reqwest::Response,
    options: HttpOptions,
    deadline: Option<Deadline>,
) -> Result<ResponseStream, Error> {
    let (mut body, kind) = checked_body(response, &options, deadline).await?;
    let assembler = match kind {
        BodyKind::Stream(media_type) => stream_assembler(&options, &media_type),
        // An HTML page was refused by `checked_body`.
        BodyKind::Json | BodyKind::Html => {
            let max = options.assembly.limits().max_message_bytes;
            let mut bytes = Vec::new();
            match body.read_up_to(max, &mut bytes).await {
                ReadEnd::Whole => {}
                ReadEnd::Failed(error) => return Err(error),
                ReadEnd::Cut => return Err(json_too_large(max)),
            }
            // One pre-framed event: the body may span lines, which SSE framing would split.
            // The (now empty) body then ends the input, which completes the answer when every
            // choice has a finish reason — and reports a body without choices as truncated.
            let mut assembler = Assembler::with_options(options.assembly);
            assembler.push_whole_body(json_text(&bytes)?);
            assembler
        }
    };
    Ok(AssembleStream::with_assembler(body, assembler).draining_with(ResponseBody::poll_drain))
}

async fn tee_response(
    response: reqwest::Response,
    options: HttpOptions,
    deadline: Option<Deadline>,
) -> Result<(Tee<ResponseBody>, TeeCompletion), Error> {
    let (body, kind) = checked_body(response, &options, deadline).await?;
    Ok(match kind {
        BodyKind::Stream(media_type) => {
            let assembler = stream_assembler(&options, &media_type);
            Tee::with_feed(body, assembler, Feed::Chunks)
        }
        // An HTML page was refused by `checked_body`.
        BodyKind::Json | BodyKind::Html => {
            let feed = Feed::Whole {
                body: Vec::new(),
                max: options.assembly.limits().max_message_bytes,
                check: json_text,
            };
            Tee::with_feed(body, Assembler::with_options(options.assembly), feed)
        }
    })
}

fn json_too_large(max: usize) -> Error {
    Error::new(
        ErrorKind::LimitExceeded,
        format!("the JSON body exceeds {max} bytes (max_message_bytes)"),
    )
}

/// A whole non-streamed answer as text: UTF-8 and not empty.
fn json_text(bytes: &[u8]) -> Result<&str, Error> {
    let text = std::str::from_utf8(bytes).map_err(|error| {
        Error::new(
            ErrorKind::InvalidUtf8,
            format!("the JSON body is not UTF-8: {error}"),
        )
        .with_source(error)
    })?;
    if text.trim().is_empty() {
        return Err(Error::new(
            ErrorKind::Truncated,
            "the server sent an empty body (application/json)",
        ));
    }
    Ok(text)
}
