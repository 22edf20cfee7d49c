//! The driver: the one place the layers of the pipeline are called, in their order — framing,
//! then the dialect, then the fold — with plain calls that each return before the next begins.
//!
//! One step takes one event: either a repeated event whole (the framer shows the next `data:`
//! line, the dialect reads it as a repeated chunk and says how long it is, the framer says
//! whether a blank line ends the event there, the fold applies the one delta, the framer passes
//! over those bytes), or the next frame (framed, its dialect detected, decoded into the fold).
//! Nothing calls back up the chain. The [`Assembler`](super::Assembler) owns the driver beside
//! the fold and the lifecycle, and decides from what a step returns how the stream goes on.

use super::fold::ResponseState;
use super::lifecycle::Step;
use super::options::Options;
use crate::delta::DeltaSink;
use crate::dialect::{Dialect, StreamDecoder};
use crate::error::{Error, ErrorKind, Location};
use crate::framing::{Frame, FrameDecoder, Framer, Framing, FramingError, Lent};

/// The framer and the dialect's decoder of one stream: what turns its bytes into deltas.
#[derive(Debug)]
pub(super) struct Driver {
    framer: Framer,
    decoder: StreamDecoder,
    /// Frames pushed pre-framed (not through `push`), for numbering.
    frames_pushed: u64,
}

/// What one step of the driver came to.
pub(super) enum Progress {
    /// An event was taken in, and went well: nearly every step.
    Taken,
    /// An event was taken in and ended the stream, failed or cut short.
    Ended(Step),
    /// Nothing to take before more input comes.
    NeedsInput,
    /// The input ended and every event of it was taken in.
    Drained,
}

impl Driver {
    pub(super) fn new(options: &Options) -> Self {
        Driver {
            framer: Framer::new(options.limits().max_event_bytes),
            decoder: StreamDecoder::new(options.selected_dialect(), options.extracts_think_tags()),
            frames_pushed: 0,
        }
    }

    /// Forgets the stream for a new one, keeping the buffers.
    pub(super) fn reset(&mut self, options: &Options) {
        self.framer.reset(options.limits().max_event_bytes);
        self.decoder
            .reset(options.selected_dialect(), options.extracts_think_tags());
        self.frames_pushed = 0;
    }

    /// Fixes the framing a content type names, before the first push.
    pub(super) fn set_content_type(&mut self, content_type: &str) {
        if let Some(framing) = Framing::from_content_type(content_type) {
            self.framer.set_framing(framing);
        }
    }

    pub(super) fn dialect(&self) -> Option<Dialect> {
        self.decoder.dialect()
    }

    pub(super) fn push(&mut self, bytes: &[u8]) {
        self.framer.push(bytes);
    }

    /// The events dispatched so far and the bytes consumed.
    pub(super) fn location(&self) -> Location {
        Location {
            event: self.framer.counts().frames.max(self.frames_pushed),
            offset: self.framer.counts().bytes_consumed,
        }
    }

    /// Takes the next event of the input pushed and then of `lent`, if a read is lent, into
    /// the fold. `input_ended`: the caller said no more input comes, so a last event without
    /// its blank line is taken too, and the end is reported once everything is.
    #[inline]
    pub(super) fn step(
        &mut self,
        fold: &mut ResponseState,
        options: &Options,
        mut lent: Option<&mut Lent<'_>>,
        input_ended: bool,
    ) -> Progress {
        if let Some(applied) = self.take_repeated(fold, options, lent.as_deref_mut()) {
            return match applied {
                Ok(()) => Progress::Taken,
                Err(error) => Progress::Ended(Step::Failed(error)),
            };
        }
        if input_ended {
            // So that a last line without its newline is known to be a JSON line.
            self.framer.decide_at_end();
        }
        let ndjson = self.framer.framing() == Some(Framing::Ndjson);
        let framed = match lent {
            Some(lent) => self.framer.next_lent(lent),
            None => match self.framer.next_frame() {
                Ok(None) if input_ended => self.framer.finish(),
                framed => framed,
            },
        };
        let step = match framed {
            // By reference: a frame moved out was loaded again by parts, a stall every event.
            Ok(Some(ref frame)) => {
                let at = Location {
                    event: frame.number,
                    offset: frame.offset,
                };
                let cut = !frame.terminated;
                let number = frame.number;
                let applied = apply_frame(options, &mut self.decoder, fold, frame, ndjson);
                if self.decoder.dialect() == Some(Dialect::OpenAiResponses) {
                    // The closing event repeats every output item, the message's content: it
                    // may be as large as what the message holds, beyond the usual bound.
                    let max = options.limits().max_event_bytes;
                    self.framer
                        .set_max_event_bytes(max.saturating_add(fold.held_bytes()));
                }
                match applied {
                    Err(error) if cut && error.is_malformed() => Step::Cut {
                        reason: format!("the stream ended in the middle of event {number}"),
                        at,
                    },
                    Err(error) => Step::Failed(error.at(at)),
                    // A JSON line delimits itself: a last line without its newline is whole.
                    Ok(()) if cut && !ndjson => Step::Cut {
                        reason: "the stream ended without a blank line after its last event".into(),
                        at,
                    },
                    Ok(()) => return Progress::Taken,
                }
            }
            Ok(None) if input_ended => return Progress::Drained,
            Ok(None) => return Progress::NeedsInput,
            Err(framing) => Step::Failed(framing_error(framing, self.framer.counts().frames)),
        };
        Progress::Ended(step)
    }

    /// Takes the next event whole — from the lent read, or from the input pushed when none is
    /// lent — if it repeats the stream's chunks with another string: what framing it, choosing
    /// its reader and matching it would come to, in one pass over its bytes. `None`, with
    /// nothing taken, for any other event.
    #[inline]
    fn take_repeated(
        &mut self,
        fold: &mut ResponseState,
        options: &Options,
        lent: Option<&mut Lent<'_>>,
    ) -> Option<Result<(), Error>> {
        let line = self.framer.data_line(lent.as_deref())?;
        let repeated = self.decoder.read_repeated(line.value())?;
        let len = line.event_len(repeated.len())?;
        let at = Location {
            event: line.number(),
            offset: line.offset(),
        };
        let applied = fold.apply(repeated.delta());
        self.framer.pass_over_data_event(lent, len);
        Some(placed(options, fold, applied, at, true))
    }

    /// Takes one event that was framed elsewhere into the fold.
    pub(super) fn push_frame(
        &mut self,
        fold: &mut ResponseState,
        options: &Options,
        event: Option<&str>,
        data: &str,
    ) -> Result<(), Error> {
        self.frames_pushed += 1;
        let frame = Frame {
            event,
            data,
            id: None,
            retry: None,
            number: self.frames_pushed,
            offset: 0,
            terminated: true,
        };
        apply_frame(options, &mut self.decoder, fold, &frame, false)
    }

    /// The input ended with every event taken in: the dialect releases what it held back into
    /// the fold, or reports what never came.
    pub(super) fn end(&mut self, fold: &mut ResponseState) -> Result<(), Error> {
        self.decoder.end(fold)
    }
}

/// Decodes one frame into the fold (detecting the dialect from the first one); in lenient mode
/// a malformed payload becomes a warning.
#[inline]
fn apply_frame(
    options: &Options,
    decoder: &mut StreamDecoder,
    fold: &mut ResponseState,
    frame: &Frame<'_>,
    ndjson: bool,
) -> Result<(), Error> {
    let detected = decoder.detect(frame, ndjson).is_some();
    let at = Location {
        event: frame.number,
        offset: frame.offset,
    };
    let decoded = decoder.decode(frame, fold);
    if detected {
        // After the payload: a tentative dialect is only sure once its parse confirmed it.
        if let Some(dialect) = decoder.dialect() {
            fold.set_provider(dialect.provider_name());
        }
    }
    placed(options, fold, decoded, at, frame.terminated)
}

/// What decoding the event at `at` came to: an error placed there, or in lenient mode, for a
/// malformed payload of a whole event, a warning instead.
#[inline]
fn placed(
    options: &Options,
    fold: &mut ResponseState,
    decoded: Result<(), Error>,
    at: Location,
    terminated: bool,
) -> Result<(), Error> {
    match decoded {
        Err(error) if error.is_malformed() && options.is_lenient() && terminated => fold
            .warn(format!(
                "skipped event {} (byte {}): {error}",
                at.event, at.offset
            ))
            .map_err(|error| error.at(at)),
        Err(error) => Err(error.at(at)),
        Ok(()) => Ok(()),
    }
}

/// A framing error as the stream's error, placed at the event it stopped.
fn framing_error(framing: FramingError, events: u64) -> Error {
    let (kind, offset) = match framing {
        FramingError::InvalidUtf8 { offset } => (ErrorKind::InvalidUtf8, offset),
        FramingError::EventTooLarge { offset, .. } => (ErrorKind::LimitExceeded, offset),
        FramingError::BadChecksum { offset, .. }
        | FramingError::MalformedMessage { offset, .. } => (ErrorKind::Malformed, offset),
        FramingError::TruncatedMessage { offset } => (ErrorKind::Truncated, offset),
    };
    Error::new(kind, framing.to_string())
        .at(Location {
            event: events + 1,
            offset,
        })
        .with_source(framing)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(text: &str, payload_tail: &str, line_end: &str) -> String {
        format!(
            "data: {{\"id\":\"c1\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{text}\"}}}}]{payload_tail}{line_end}"
        )
    }

    /// A driver and its fold that have learned the stream's repeated bytes from two events.
    fn learned() -> (Driver, ResponseState, Options) {
        let options = Options::new();
        let mut driver = Driver::new(&options);
        let mut fold = ResponseState::new(options.limits(), "");
        let opening = [event("a", "}", "\n\n"), event("b", "}", "\n\n")].concat();
        driver.push(opening.as_bytes());
        while let Progress::Taken = driver.step(&mut fold, &options, None, false) {}
        (driver, fold, options)
    }

    fn text(fold: &ResponseState) -> String {
        fold.choices()[0].text().into_owned()
    }

    #[test]
    fn a_repeated_event_is_taken_whole_and_anything_else_is_left() {
        let (mut driver, mut fold, options) = learned();
        let escaped = r#"\"\u00e9"#;
        for (read, taken) in [
            (event("c", "}", "\n\n"), true),
            (event(escaped, ",\"usage\":null}", "\n\n"), true),
            (event("d", "}", "\n\ndata: more"), true),
            (event("x", ",\"usage\":{}}", "\n\n"), false),
            (event("x", "}", "\r\n\r\n"), false),
            (event("x", "}", " \n\n"), false),
            (event("x", "}", "\ndata: x\n\n"), false),
            (event("x", "}", "\n"), false),
            (event("x\\", "}", "\n\n"), false),
            (format!(": ping\n{}", event("x", "}", "\n\n")), false),
        ] {
            let mut lent = Lent::new(read.as_bytes());
            let before = driver.location();
            let result = driver.take_repeated(&mut fold, &options, Some(&mut lent));
            assert_eq!(result.is_some(), taken, "{read:?}");
            if taken {
                assert_eq!(driver.location().event, before.event + 1);
                let rest = read.len() - read.find("\n\n").unwrap() - 2;
                assert_eq!(lent.text().len(), rest);
                assert_eq!(
                    driver.location().offset,
                    before.offset + (read.len() - rest) as u64
                );
            } else {
                assert_eq!(lent.text(), read, "nothing taken of {read:?}");
            }
        }
        assert_eq!(text(&fold), "abc\"éd");
    }

    #[test]
    fn a_pushed_repeated_event_is_taken_whole_from_the_input() {
        let (mut driver, mut fold, options) = learned();
        let before = driver.location();
        driver.push(event("c", "}", "\n\n").as_bytes());
        let applied = driver.take_repeated(&mut fold, &options, None);
        assert!(applied.expect("taken whole").is_ok());
        assert_eq!(driver.location().event, before.event + 1);
        assert_eq!(text(&fold), "abc");
        // Another event is left to the line loop, which frames it as usual.
        driver.push(event("x", ",\"usage\":{}}", "\n\n").as_bytes());
        assert!(driver.take_repeated(&mut fold, &options, None).is_none());
        assert!(matches!(
            driver.step(&mut fold, &options, None, false),
            Progress::Taken
        ));
        assert_eq!(text(&fold), "abcx");
    }

    /// An event pushed in pieces is shown once, while its first piece is all there is; the
    /// line loop then goes on from where its search stopped, so however small the pieces, each
    /// byte is looked at a bounded number of times.
    #[test]
    fn a_pushed_line_is_shown_once() {
        let (mut driver, mut fold, options) = learned();
        let read = event("c", "}", "\n\n");
        let (first, rest) = read.split_at(read.len() - 4);
        driver.push(first.as_bytes());
        assert!(driver.take_repeated(&mut fold, &options, None).is_none());
        assert!(matches!(
            driver.step(&mut fold, &options, None, false),
            Progress::NeedsInput
        ));
        driver.push(rest.as_bytes());
        assert!(driver.framer.data_line(None).is_none());
        assert!(matches!(
            driver.step(&mut fold, &options, None, false),
            Progress::Taken
        ));
        assert_eq!(text(&fold), "abc");
    }

    /// A stream whose repeated bytes hold a line feed (events of two `data:` lines, joined by
    /// one) takes no event whole: a line that repeats them is two lines of an event stream.
    #[test]
    fn repeated_bytes_across_lines_take_no_event_whole() {
        let two_lines = |text: &str| event(text, "}", "\n\n").replacen('{', "{\ndata: ", 1);
        let options = Options::new();
        let mut driver = Driver::new(&options);
        let mut fold = ResponseState::new(options.limits(), "");
        let opening = [two_lines("a"), two_lines("b"), two_lines("c")].concat();
        driver.push(opening.as_bytes());
        while let Progress::Taken = driver.step(&mut fold, &options, None, false) {}
        assert_eq!(text(&fold), "abc");
        let read = event("x", "}", "\n\n").replacen('{', "{\n", 1);
        let mut lent = Lent::new(read.as_bytes());
        assert!(driver
            .take_repeated(&mut fold, &options, Some(&mut lent))
            .is_none());
        assert_eq!(lent.text(), read);
    }
}
