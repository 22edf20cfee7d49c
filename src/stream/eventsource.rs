//! Feeding the assembler from `eventsource-stream` events (feature `eventsource-stream`), for
//! applications that already frame the event stream with that crate.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::stream::Stream;
use pin_project::pin_project;

use super::input::sealed;
use super::{AssembleStream, BoxError, StreamInput};
use crate::assemble::{Assembler, Options};

/// Adds [`assemble_events`](Self::assemble_events) to streams of `eventsource-stream`
/// events, for applications that already frame the event stream with that crate.
///
/// ```
/// use deltafold::stream::AssembleEventsExt;
/// use eventsource_stream::Eventsource;
///
/// let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
/// let reads = futures::stream::iter([Ok::<_, std::io::Error>(body.as_bytes())]);
/// let completion = futures::executor::block_on(reads.eventsource().assemble_events().completion())?;
/// assert_eq!(completion.into_message().text(), "hi");
/// # Ok::<(), deltafold::Error>(())
/// ```
pub trait AssembleEventsExt: Stream + Sized {
    /// Assembles these events with the default [`Options`].
    fn assemble_events(self) -> AssembleStream<EventSourceFrames<Self>> {
        self.assemble_events_with(Options::default())
    }

    /// Assembles these events with the given options.
    fn assemble_events_with(self, options: Options) -> AssembleStream<EventSourceFrames<Self>> {
        AssembleStream::new(EventSourceFrames { events: self }, options)
    }
}

impl<S, E> AssembleEventsExt for S
where
    S: Stream<Item = Result<eventsource_stream::Event, E>>,
    E: Into<BoxError>,
{
}

/// A stream of `eventsource-stream` events, presented as [`StreamInput`].
#[pin_project]
#[derive(Debug)]
pub struct EventSourceFrames<S> {
    #[pin]
    events: S,
}

impl<S, E> Stream for EventSourceFrames<S>
where
    S: Stream<Item = Result<eventsource_stream::Event, E>>,
{
    type Item = Result<EventSourceFrame, E>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.project()
            .events
            .poll_next(cx)
            .map(|read| read.map(|event| event.map(EventSourceFrame)))
    }
}

/// One event framed by `eventsource-stream`, fed to the assembler as it is.
#[derive(Debug, Clone)]
pub struct EventSourceFrame(eventsource_stream::Event);

impl sealed::Feed for EventSourceFrame {
    fn push_into(self, assembler: &mut Assembler) {
        // `message` is the default type eventsource-stream fills in for unnamed events.
        let event = Some(self.0.event.as_str()).filter(|name| *name != "message");
        assembler.push_frame(event, &self.0.data);
    }
}

impl StreamInput for EventSourceFrame {}
