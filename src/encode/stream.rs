//! The `Stream` adapter: an [`AssembleStream`]'s events re-encoded into a target's SSE text as
//! they arrive, one `String` per event that writes anything, then the closing events.

use std::pin::Pin;
use std::task::{ready, Context, Poll};

use futures_core::Stream;
use pin_project::pin_project;

use super::{Encoder, Target};
use crate::error::Error;
use crate::stream::{AssembleStream, StreamInput};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// An [`AssembleStream`] re-encoded into `target`'s SSE: yields text as events arrive, and the
/// closing events after a clean end. A stream error ends the stream: a UI target's error event
/// ([`Encoder::fail`]) is yielded first, then the error itself; a provider target writes no
/// closing events, so the client sees the cut.
#[pin_project]
#[must_use = "streams do nothing unless polled"]
#[derive(Debug)]
pub struct EncodeStream<S> {
    #[pin]
    events: AssembleStream<S>,
    encoder: Encoder,
    finished: bool,
    /// The source's error, yielded after the target's error event.
    failed: Option<Error>,
}

/// Re-encoding for [`AssembleStream`].
///
/// ```
/// use deltafold::encode::{EncodeExt, Target};
/// use deltafold::{AssembleExt, Options};
/// use futures::{stream, StreamExt};
///
/// let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
/// let input = stream::iter([Ok::<_, std::io::Error>(body.as_bytes().to_vec())]);
/// let sse: Vec<String> = futures::executor::block_on(
///     input.assemble_with(Options::default()).encode(Target::Gemini).map(Result::unwrap).collect(),
/// );
/// assert!(sse.concat().contains(r#""finishReason":"STOP""#));
/// ```
pub trait EncodeExt: Sized {
    /// The byte stream the assembler reads.
    type Input;

    /// Re-encodes the events into `target`'s SSE.
    fn encode(self, target: Target) -> EncodeStream<Self::Input>;
}

impl<S> EncodeExt for AssembleStream<S> {
    type Input = S;

    fn encode(self, target: Target) -> EncodeStream<S> {
        EncodeStream {
            events: self,
            encoder: Encoder::new(target),
            finished: false,
            failed: None,
        }
    }
}

impl<S, I, E> Stream for EncodeStream<S>
where
    S: Stream<Item = Result<I, E>>,
    I: StreamInput,
    E: Into<BoxError>,
{
    type Item = Result<String, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let mut this = self.project();
        loop {
            if *this.finished {
                return Poll::Ready(this.failed.take().map(Err));
            }
            let mut out = String::new();
            match ready!(this.events.as_mut().poll_next(cx)) {
                Some(Ok(event)) => {
                    this.encoder
                        .encode(&event, this.events.assembler(), &mut out);
                }
                Some(Err(error)) => {
                    *this.finished = true;
                    this.encoder.fail(&error.to_string(), &mut out);
                    if out.is_empty() {
                        return Poll::Ready(Some(Err(error)));
                    }
                    *this.failed = Some(error);
                }
                None => {
                    *this.finished = true;
                    if this.events.assembler().is_done() {
                        this.encoder.finish(&mut out);
                    }
                }
            }
            if !out.is_empty() {
                return Poll::Ready(Some(Ok(out)));
            }
        }
    }
}
