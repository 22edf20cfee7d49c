//! One frame into the state: the next frame taken from the framer (or a repeated event taken
//! whole) and handed to `frame_apply.rs`, which decodes it; framing errors placed at their frame.

use super::frame_apply::{apply_frame, placed};
use super::lifecycle::{Lifecycle, Step};
use super::Assembler;
use crate::dialect::Dialect;
use crate::error::{Error, ErrorKind, Location};
use crate::framing::{FrameDecoder, Framing, FramingError, Lent};

impl Assembler {
    /// Takes the next frame, or — once the input is over and the framer empty — the end of the
    /// input. False when more input is needed first.
    pub(super) fn advance(&mut self, mut lent: Option<&mut Lent<'_>>) -> bool {
        if let Some((applied, at)) = self.take_repeated(lent.as_deref_mut()) {
            let step = match placed(&self.options, &mut self.state, applied, at, true) {
                Err(error) => Step::Failed(error),
                Ok(()) if !self.state.is_done() => return true,
                Ok(()) => Step::Taken,
            };
            self.settle(step);
            return true;
        }
        let input_ended = matches!(self.lifecycle, Lifecycle::InputEnded);
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
                let applied = apply_frame(
                    &self.options,
                    &mut self.decoder,
                    &mut self.state,
                    frame,
                    ndjson,
                );
                if self.decoder.dialect() == Some(Dialect::OpenAiResponses) {
                    // The closing event repeats every output item, the message's content: it
                    // may be as large as what the message holds, beyond the usual bound.
                    let max = self.options.limits().max_event_bytes;
                    self.framer
                        .set_max_event_bytes(max.saturating_add(self.state.held_bytes()));
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
                    // Nearly every frame: nothing to settle.
                    Ok(()) if !self.state.is_done() => return true,
                    Ok(()) => Step::Taken,
                }
            }
            Ok(None) if input_ended => self.end_of_input(),
            Ok(None) => return false,
            Err(framing) => Step::Failed(framing_error(framing, self.framer.counts().frames)),
        };
        self.settle(step);
        true
    }

    /// Takes the next event whole — from the lent read, or from the input pushed when none is
    /// lent — if it repeats the stream's chunks with another string, and applies its one delta:
    /// what framing it, choosing its reader and matching it would come to, in one pass over its
    /// bytes. `None`, with nothing taken, for any other event.
    #[inline]
    fn take_repeated(
        &mut self,
        lent: Option<&mut Lent<'_>>,
    ) -> Option<(Result<(), Error>, Location)> {
        let (line, end) = self.framer.data_line(lent)?;
        let (applied, (event, offset)) =
            self.decoder
                .apply_repeated(line, |len| end.take(len), &mut self.state)?;
        Some((applied, Location { event, offset }))
    }

    /// The input ended with every frame taken in: complete if every choice finished, otherwise
    /// cut short.
    fn end_of_input(&mut self) -> Step {
        if let Err(error) = self.decoder.end(&mut self.state) {
            return Step::Failed(error.at(self.location()));
        }
        if self.state.is_done() {
            return Step::Taken;
        }
        if self.state.all_choices_finished() {
            self.state.mark_done();
            return Step::Taken;
        }
        let unfinished: Vec<String> = self
            .messages()
            .iter()
            .filter(|message| !message.is_finished())
            .map(|message| message.index().to_string())
            .collect();
        let reason = if unfinished.is_empty() {
            let events = self.location().event;
            let plural = if events == 1 { "" } else { "s" };
            format!(
                "the stream ended after {events} event{plural} without any answer (is this an event stream?)"
            )
        } else {
            format!(
                "the stream ended without {} while choice {} was unfinished",
                self.dialect().map_or("[DONE]", Dialect::end_marker),
                unfinished.join(", ")
            )
        };
        Step::Cut {
            reason,
            at: self.location(),
        }
    }
}

pub(super) fn framing_error(framing: FramingError, events: u64) -> Error {
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
    use crate::assemble::Event;

    fn event(text: &str, payload_tail: &str, line_end: &str) -> String {
        format!(
            "data: {{\"id\":\"c1\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{text}\"}}}}]{payload_tail}{line_end}"
        )
    }

    /// An assembler that has learned the stream's repeated bytes from two events.
    fn learned() -> Assembler {
        let mut assembler = Assembler::new();
        let opening = [event("a", "}", "\n\n"), event("b", "}", "\n\n")].concat();
        assembler.feed(opening.as_bytes()).unwrap();
        assembler
    }

    #[test]
    fn a_repeated_event_is_taken_whole_and_anything_else_is_left() {
        let mut assembler = learned();
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
            let before = assembler.location();
            let result = assembler.take_repeated(Some(&mut lent));
            assert_eq!(result.is_some(), taken, "{read:?}");
            if taken {
                assert_eq!(result.unwrap().1.event, before.event + 1);
                let rest = read.len() - read.find("\n\n").unwrap() - 2;
                assert_eq!(lent.text().len(), rest);
            } else {
                assert_eq!(lent.text(), read, "nothing taken of {read:?}");
            }
        }
        assert_eq!(assembler.message(0).unwrap().text(), "abc\"éd");
    }

    #[test]
    fn a_pushed_repeated_event_is_taken_whole_from_the_input() {
        let mut assembler = learned();
        let before = assembler.location();
        assembler.push(event("c", "}", "\n\n").as_bytes());
        let (applied, at) = assembler.take_repeated(None).expect("taken whole");
        assert!(applied.is_ok());
        assert_eq!(at.event, before.event + 1);
        assert_eq!(assembler.message(0).unwrap().text(), "abc");
        // Another event is left to the line loop, which frames it as usual.
        assembler.push(event("x", ",\"usage\":{}}", "\n\n").as_bytes());
        assert!(assembler.take_repeated(None).is_none());
        let texts: Vec<_> =
            std::iter::from_fn(|| assembler.next_event().unwrap().map(Event::into_owned)).collect();
        assert!(texts.contains(&Event::TextDelta {
            choice: 0,
            text: "c".into()
        }));
        assert!(texts.contains(&Event::TextDelta {
            choice: 0,
            text: "x".into()
        }));
        assert_eq!(assembler.message(0).unwrap().text(), "abcx");
    }

    /// An event pushed in pieces is offered once, while its first piece is all there is; the
    /// line loop then goes on from where its search stopped, so however small the pieces, each
    /// byte is looked at a bounded number of times.
    #[test]
    fn a_pushed_line_is_offered_once() {
        let mut assembler = learned();
        let read = event("c", "}", "\n\n");
        let (first, rest) = read.split_at(read.len() - 4);
        assembler.push(first.as_bytes());
        assert!(assembler.take_repeated(None).is_none());
        assert!(assembler.next_event().unwrap().is_none());
        assembler.push(rest.as_bytes());
        assert!(assembler.framer.data_line(None).is_none());
        let event = assembler.next_event().unwrap().map(Event::into_owned);
        assert_eq!(
            event,
            Some(Event::TextDelta {
                choice: 0,
                text: "c".into()
            })
        );
    }

    /// A stream whose repeated bytes hold a line feed (events of two `data:` lines, joined by
    /// one) takes no event whole: a line that repeats them is two lines of an event stream.
    #[test]
    fn repeated_bytes_across_lines_take_no_event_whole() {
        let two_lines = |text: &str| event(text, "}", "\n\n").replacen('{', "{\ndata: ", 1);
        let mut assembler = Assembler::new();
        let opening = [two_lines("a"), two_lines("b"), two_lines("c")].concat();
        assembler.feed(opening.as_bytes()).unwrap();
        assert_eq!(assembler.message(0).unwrap().text(), "abc");
        let read = event("x", "}", "\n\n").replacen('{', "{\n", 1);
        let mut lent = Lent::new(read.as_bytes());
        assert!(assembler.take_repeated(Some(&mut lent)).is_none());
        assert_eq!(lent.text(), read);
    }
}
