//! The body of a response as a stream of byte chunks under the exchange's time bounds, and the
//! bounded whole-body read used for error bodies and non-streamed answers.

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_core::stream::{FusedStream, Stream};
use reqwest::header::{HeaderMap, CONTENT_TYPE};
use reqwest::StatusCode;
use tokio::time::Sleep;

use super::redact::transport_error;
use super::time::{BodyTimers, Deadline};
use crate::error::Error;
use crate::stream::Tee;

/// The body of a response as a stream of byte chunks, failing with
/// [`ErrorKind::IdleTimeout`](crate::ErrorKind::IdleTimeout) when no bytes arrive within the
/// idle timeout and with [`ErrorKind::DeadlineExceeded`](crate::ErrorKind::DeadlineExceeded)
/// once the deadline has passed.
///
/// It keeps the response head — [`status`](Self::status), [`headers`](Self::headers),
/// [`content_type`](Self::content_type) — for a gateway that relays the body (reached through
/// [`Tee::get_ref`](crate::stream::Tee::get_ref) or [`AssembleStream::get_ref`](crate::AssembleStream::get_ref)).
pub struct ResponseBody {
    status: StatusCode,
    headers: HeaderMap,
    /// `None` once the body ended or failed.
    chunks: Option<Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>>,
    timers: BodyTimers,
    /// Set once reading past the end of the answer began: the bytes read since, and the time
    /// that reading may still take.
    drain: Option<(usize, Pin<Box<Sleep>>)>,
}

/// At most this much is read after the end of the answer to let the connection be reused: a
/// trailing keep-alive comment, a usage chunk after `[DONE]`, the last chunk of a chunked body.
const DRAIN_MAX_BYTES: usize = 64 * 1024;

/// And for at most this long.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(1);

/// How a bounded read of the whole body ended.
pub(super) enum ReadEnd {
    /// The body ended within the bound.
    Whole,
    /// More bytes followed the bound (not read).
    Cut,
    /// Reading failed after the bytes read.
    Failed(Error),
}

impl ResponseBody {
    pub(super) fn new(
        mut response: reqwest::Response,
        idle_timeout: Option<Duration>,
        deadline: Option<Deadline>,
    ) -> Self {
        ResponseBody {
            status: response.status(),
            headers: std::mem::take(response.headers_mut()),
            chunks: Some(Box::pin(response.bytes_stream())),
            timers: BodyTimers::new(idle_timeout, deadline),
            drain: None,
        }
    }

    /// The response's status (a success: any other was an [`ErrorKind::Status`](crate::ErrorKind::Status) error).
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The response's headers.
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The response's `Content-Type` as sent (`text/event-stream`, `application/json`,
    /// `application/x-ndjson`…), when it is text: what a relay labels its answer with.
    pub fn content_type(&self) -> Option<&str> {
        self.headers.get(CONTENT_TYPE)?.to_str().ok()
    }

    /// Reads the rest of the body after the end of the answer, discarding it, so that reqwest
    /// can return the connection to its pool — for at most [`DRAIN_MAX_BYTES`] and
    /// [`DRAIN_TIMEOUT`]; past either, the body is dropped (and with it the connection).
    pub(super) fn poll_drain(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        let Some(chunks) = this.chunks.as_mut() else {
            return Poll::Ready(());
        };
        let (drained, timer) = this
            .drain
            .get_or_insert_with(|| (0, Box::pin(tokio::time::sleep(DRAIN_TIMEOUT))));
        loop {
            match chunks.as_mut().poll_next(cx) {
                Poll::Ready(Some(Ok(chunk))) if *drained + chunk.len() <= DRAIN_MAX_BYTES => {
                    *drained += chunk.len();
                }
                Poll::Ready(_) => break,
                Poll::Pending if timer.as_mut().poll(cx).is_ready() => break,
                Poll::Pending => return Poll::Pending,
            }
        }
        this.chunks = None;
        Poll::Ready(())
    }

    /// Appends the body to `bytes` until it ends or until `bytes` would exceed `max`. What was
    /// read stays in `bytes` if the read is abandoned (a timeout around it).
    pub(super) async fn read_up_to(&mut self, max: usize, bytes: &mut Vec<u8>) -> ReadEnd {
        while let Some(read) = poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await {
            let chunk = match read {
                Ok(chunk) => chunk,
                Err(error) => return ReadEnd::Failed(error),
            };
            let room = max - bytes.len();
            if chunk.len() > room {
                bytes.extend_from_slice(&chunk[..room]);
                self.chunks = None;
                return ReadEnd::Cut;
            }
            bytes.extend_from_slice(&chunk);
        }
        ReadEnd::Whole
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
                let Some(error) = this.timers.poll_expired(cx) else {
                    return Poll::Pending;
                };
                this.chunks = None;
                return Poll::Ready(Some(Err(error)));
            }
        };
        match read {
            Some(Ok(chunk)) => match this.timers.bytes_arrived() {
                Ok(()) => Poll::Ready(Some(Ok(chunk))),
                Err(error) => {
                    this.chunks = None;
                    Poll::Ready(Some(Err(error)))
                }
            },
            Some(Err(error)) => {
                this.chunks = None;
                Poll::Ready(Some(Err(transport_error(
                    "reading the response failed",
                    error,
                ))))
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
            .field("idle_timeout", &self.timers.idle_timeout())
            .field("deadline", &self.timers.deadline())
            .finish()
    }
}

/// The response head at hand while relaying: a gateway labels its answer with the provider's
/// content type (`application/json` for a non-streamed answer, not `text/event-stream`).
impl Tee<ResponseBody> {
    /// The response's status.
    pub fn status(&self) -> StatusCode {
        self.get_ref().status()
    }

    /// The response's headers.
    pub fn headers(&self) -> &HeaderMap {
        self.get_ref().headers()
    }

    /// The response's `Content-Type`, when it is text.
    pub fn content_type(&self) -> Option<&str> {
        self.get_ref().content_type()
    }
}
