//! "Never an empty success": a filter in front of the assembler that watches whether the
//! dialect understood any payload. A stream in which none was understood — another provider's
//! format read as the dialect detected by default — is an error naming what was seen, even in
//! lenient mode, instead of an empty message completed by the end marker.
//!
//! A payload is understood when its deltas say something about the answer: anything but
//! response metadata (`id`, `model`…), provider extras kept as they are, and the end marker.

use super::{Delta, DeltaSink};
use crate::error::{snippet, Error, ErrorKind};
use crate::framing::Frame;

/// What the payloads of one stream have shown so far.
#[derive(Debug, Default)]
pub(crate) struct Understanding {
    /// Payloads seen (non-empty data other than an end marker).
    payloads: u64,
    /// Some payload's deltas said something about the answer.
    understood: bool,
    /// The first payload not understood, as shown in the error: its event name and a snippet.
    first_unknown: Option<String>,
    /// The end marker came while nothing was understood: held back, so the stream does not
    /// end as a success.
    withheld_done: bool,
}

/// The sink one payload's deltas go through, noting whether any was of substance.
pub(crate) struct WatchSink<'s, S> {
    understanding: &'s mut Understanding,
    inner: &'s mut S,
    substance: bool,
}

impl Understanding {
    /// A sink for the deltas of `frame`; call [`after`](Self::after) with it once decoded.
    pub(crate) fn watch<'s, S: DeltaSink>(&'s mut self, inner: &'s mut S) -> WatchSink<'s, S> {
        WatchSink {
            understanding: self,
            inner,
            substance: false,
        }
    }

    /// Takes in what decoding `frame` showed: [`WatchSink::had_substance`].
    pub(crate) fn after(&mut self, frame: &Frame<'_>, substance: bool) {
        let data = frame.data.trim_ascii();
        if data.is_empty() || data == "[DONE]" {
            return;
        }
        self.payloads += 1;
        if substance {
            self.understood = true;
            return;
        }
        if self.first_unknown.is_none() {
            self.first_unknown = Some(describe(frame));
        }
    }

    /// True once a payload was understood: nothing more to watch.
    pub(crate) fn is_settled(&self) -> bool {
        self.understood
    }

    /// The input ended: an error when payloads came and none was understood.
    pub(crate) fn end(&self, dialect: &str) -> Result<(), Error> {
        if self.understood || self.payloads == 0 {
            return Ok(());
        }
        // Without an end marker the stream is also cut short, and says so by its kind.
        let (kind, ending) = if self.withheld_done {
            (
                ErrorKind::Malformed,
                ", although it ended with an end marker",
            )
        } else {
            (ErrorKind::Truncated, "")
        };
        Err(Error::new(
            kind,
            format!(
                "no payload of the stream was understood as {dialect} ({} payload{}{ending}); \
                 the first: {}. Is this another provider's format?",
                self.payloads,
                if self.payloads == 1 { "" } else { "s" },
                self.first_unknown.as_deref().unwrap_or("?"),
            ),
        ))
    }
}

impl<S> WatchSink<'_, S> {
    /// Whether the payload's deltas said something about the answer.
    pub(crate) fn had_substance(&self) -> bool {
        self.substance
    }
}

impl<S: DeltaSink> DeltaSink for WatchSink<'_, S> {
    fn apply(&mut self, delta: Delta<'_>) -> Result<(), Error> {
        match delta {
            Delta::Metadata(_) | Delta::Extra { .. } => {}
            Delta::Done
                if !self.understanding.understood
                    && !self.substance
                    && self.understanding.payloads > 0 =>
            {
                self.understanding.withheld_done = true;
                return Ok(());
            }
            _ => self.substance = true,
        }
        self.inner.apply(delta)
    }
}

fn describe(frame: &Frame<'_>) -> String {
    match frame.event {
        Some(event) => format!("event {event:?} with {}", snippet(frame.data)),
        None => snippet(frame.data),
    }
}
