//! Gemini 3 / Vertex streamed function calls: a `functionCall` part with a `name` and
//! `willContinue: true` opens a call, parts with `partialArgs` continue it, and an empty
//! `functionCall: {}` (or any `functionCall` part without `willContinue`) closes it. Some streams
//! never close the last call: the choice's `finishReason`, another part, or the end of the input
//! does.
//!
//! The pieces become argument text through [`ArgsWriter`] and leave as the neutral tool-call
//! fragments the chat dialect uses, each call keyed by an index of its own, so the assembler
//! streams live argument events and a `partial()` for them like for any other provider. A part
//! sent whole (a `name` without `willContinue`) stays a whole call. The part's `thoughtSignature`
//! goes onto the call, under `extras.signature`.

use serde_json::Value;

use super::args_writer::{ArgsWriter, Piece};
use super::payload::{FunctionCall, PartialArg};
use crate::delta::{Delta, DeltaSink, ToolCallDelta};
use crate::error::Error;
use crate::error::ErrorKind;
use crate::message::ToolCall;

/// The calls still streaming, one at most per choice.
#[derive(Debug, Default)]
pub(super) struct StreamedCalls {
    open: Vec<OpenCall>,
    /// The index the next streamed call is keyed by.
    next_index: u32,
    /// The argument text of the part being decoded, reused.
    fragment: String,
}

#[derive(Debug)]
struct OpenCall {
    choice: u32,
    index: u32,
    writer: ArgsWriter,
}

impl StreamedCalls {
    /// True while a call streams: its parts and their neighbours take the general path.
    pub(super) fn any_open(&self) -> bool {
        !self.open.is_empty()
    }

    /// Decodes a `functionCall` part of `choice`, signed by `signature` if the part has one.
    pub(super) fn part(
        &mut self,
        choice: u32,
        call: &FunctionCall<'_>,
        signature: Option<&str>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let name = call.name.as_str().filter(|name| !name.is_empty());
        let continues = call.will_continue == Some(true);
        let pieces = call.partial_args.as_deref().unwrap_or_default();
        if name.is_some() {
            self.close(choice, sink)?;
            if !continues && pieces.is_empty() {
                return whole_call(choice, call, signature, sink);
            }
        }
        let position = match self.open.iter().position(|open| open.choice == choice) {
            Some(position) => position,
            None if name.is_none() && pieces.is_empty() => return Ok(()),
            None => self.start(choice, call, name, sink)?,
        };
        if let Some(signature) = signature {
            sign(choice, Some(self.open[position].index), signature, sink)?;
        }
        let written = self.write_pieces(position, pieces);
        self.flush(position, sink)?;
        written?;
        if !continues {
            self.close(choice, sink)?;
        }
        Ok(())
    }

    /// Closes the call `choice` is streaming, if any: its JSON is completed and it is final.
    pub(super) fn close(&mut self, choice: u32, sink: &mut impl DeltaSink) -> Result<(), Error> {
        let Some(position) = self.open.iter().position(|open| open.choice == choice) else {
            return Ok(());
        };
        self.open[position].writer.finish(&mut self.fragment);
        self.flush(position, sink)?;
        let open = self.open.swap_remove(position);
        sink.apply(Delta::ToolCallEnd {
            choice,
            index: open.index,
            arguments: None,
        })
    }

    /// Closes every call still streaming (the input ended).
    pub(super) fn close_all(&mut self, sink: &mut impl DeltaSink) -> Result<(), Error> {
        while let Some(open) = self.open.last() {
            self.close(open.choice, sink)?;
        }
        Ok(())
    }

    /// Opens a call (named, or nameless when Gemini skipped the opening part); returns its slot.
    fn start(
        &mut self,
        choice: u32,
        call: &FunctionCall<'_>,
        name: Option<&str>,
        sink: &mut impl DeltaSink,
    ) -> Result<usize, Error> {
        let index = self.next_index;
        self.next_index = self.next_index.wrapping_add(1);
        sink.apply(Delta::ToolCall(ToolCallDelta {
            choice,
            index: Some(index),
            id: call.id.as_str(),
            name: Some(name.unwrap_or_default()),
            arguments: "",
        }))?;
        self.open.push(OpenCall {
            choice,
            index,
            writer: ArgsWriter::default(),
        });
        Ok(self.open.len() - 1)
    }

    /// Writes the part's pieces into the fragment; a bad path stops at that piece.
    fn write_pieces(&mut self, position: usize, pieces: &[PartialArg<'_>]) -> Result<(), Error> {
        let writer = &mut self.open[position].writer;
        for piece in pieces {
            let Some(value) = piece_value(piece) else {
                continue;
            };
            let path = piece.json_path.as_str().unwrap_or_default();
            let continues = piece.will_continue == Some(true);
            writer
                .write(path, value, continues, &mut self.fragment)
                .map_err(|error| Error::new(ErrorKind::Malformed, format!("{error}: {path:?}")))?;
        }
        Ok(())
    }

    /// Sends the argument text written since the last flush.
    fn flush(&mut self, position: usize, sink: &mut impl DeltaSink) -> Result<(), Error> {
        if self.fragment.is_empty() {
            return Ok(());
        }
        let open = &self.open[position];
        let applied = sink.apply(Delta::ToolCall(ToolCallDelta {
            choice: open.choice,
            index: Some(open.index),
            id: None,
            name: None,
            arguments: &self.fragment,
        }));
        self.fragment.clear();
        applied
    }
}

/// A call sent in one part, as before Gemini 3 streamed them.
fn whole_call(
    choice: u32,
    call: &FunctionCall<'_>,
    signature: Option<&str>,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    let arguments = call.args.map_or("", |args| args.get());
    sink.apply(Delta::WholeToolCall {
        choice,
        id: call.id.as_str(),
        name: call.name.as_str().unwrap_or_default(),
        arguments: if arguments == "null" { "" } else { arguments },
    })?;
    match signature {
        Some(signature) => sign(choice, None, signature, sink),
        None => Ok(()),
    }
}

/// Puts the part's `thoughtSignature` on the call (`index: None`: the call just sent whole).
fn sign(
    choice: u32,
    index: Option<u32>,
    signature: &str,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    sink.apply(Delta::ToolCallExtra {
        choice,
        index,
        name: ToolCall::SIGNATURE,
        value: Value::String(signature.to_owned()),
    })
}

/// The piece's value as raw JSON text; `None` for a piece without one.
fn piece_value<'a>(piece: &PartialArg<'a>) -> Option<Piece<'a>> {
    if let Some(text) = piece.string_value {
        let quoted = text.get();
        return Some(
            match quoted.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
                Some(content) => Piece::StringContent(content),
                None => Piece::Scalar(quoted),
            },
        );
    }
    if let Some(raw) = piece.number_value.or(piece.bool_value) {
        return Some(Piece::Scalar(raw.get()));
    }
    piece.null_value.map(|()| Piece::Scalar("null"))
}
