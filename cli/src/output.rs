//! The output modes: each is a [`Sink`] that sees every event as it happens and the result at
//! the end. The live display lives in its own module; the machine-readable modes are here.

use std::collections::HashMap;
use std::io::{self, Write};

use deltafold::assemble::{CompletedJson, PartialArguments, PendingToolCall};
use deltafold::wire::langchain::ai_message_out;
use deltafold::{AiMessage, Assembler, Completion, Event};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::safe_json;

/// Where events and the final result go.
pub trait Sink {
    /// One event, as it happens; `assembler` holds the message so far (a re-encoding sink past
    /// the message's budget fails the stream there, moving the message into its error).
    fn event(&mut self, event: &Event<'_>, assembler: &mut Assembler) -> io::Result<()>;

    /// The end: the completion (partial when the stream failed), or `None` when nothing was
    /// assembled at all (an HTTP error, an unreadable input).
    fn finish(&mut self, completion: Option<&Completion>) -> io::Result<()>;

    /// The run failed with `error` (one line), just before [`finish`](Self::finish): an output
    /// with a way to say so in its own format (a UI stream's error event) does.
    fn fail(&mut self, _error: &str) -> io::Result<()> {
        Ok(())
    }
}

/// `--json`: nothing while streaming, then the message(s) as one JSON line.
pub struct JsonOutput<W> {
    out: W,
}

impl<W: Write> JsonOutput<W> {
    /// Writes to `out`.
    pub fn new(out: W) -> Self {
        JsonOutput { out }
    }
}

impl<W: Write> Sink for JsonOutput<W> {
    fn event(&mut self, _event: &Event<'_>, _assembler: &mut Assembler) -> io::Result<()> {
        Ok(())
    }

    /// One object for one choice (or none), an array when the response had several; each
    /// message written straight from the model, one at a time.
    fn finish(&mut self, completion: Option<&Completion>) -> io::Result<()> {
        let Some(completion) = completion else {
            return Ok(());
        };
        if completion.choices.len() > 1 {
            self.out.write_all(b"[")?;
            for (n, message) in completion.messages().enumerate() {
                if n > 0 {
                    self.out.write_all(b",")?;
                }
                write_message(&mut self.out, message)?;
            }
            self.out.write_all(b"]")?;
        } else {
            match completion.message() {
                Some(message) => write_message(&mut self.out, message)?,
                None => write_message(&mut self.out, &AiMessage::default())?,
            }
        }
        self.out.write_all(b"\n")?;
        self.out.flush()
    }
}

/// LangChain's `AIMessage` dict with the provider-neutral finish kind
/// ([`ai_message_out`]), written straight from the message, never through a tree of
/// `serde_json::Value`s.
fn write_message(out: &mut impl Write, message: &AiMessage) -> io::Result<()> {
    safe_json::write(out, &ai_message_out(message))
}

/// `--events`: every event as one JSON line, as it happens.
pub struct EventsOutput<W> {
    out: W,
    /// Bytes of arguments each call had when its `partial` was last written, by choice, then by
    /// the call's position (dense from 0): four bytes a call, where a map entry per call cost
    /// about a hundred while 131,072 calls stayed open.
    partial_written: HashMap<u32, Vec<u32>>,
}

impl<W: Write> EventsOutput<W> {
    /// Writes to `out`.
    pub fn new(out: W) -> Self {
        EventsOutput {
            out,
            partial_written: HashMap::new(),
        }
    }

    /// The `partial` of an argument delta, when one is due: on a call's first delta, then
    /// whenever its arguments have at least doubled since the last `partial` written. Each is
    /// as long as the arguments, so writing one per delta would make the output grow with the
    /// square of the input; doubling keeps all of a call's `partial`s within twice its
    /// arguments (plus their closers).
    ///
    /// The events reach the sinks detached from the assembler, so the event's `partial` says
    /// how the call's text, read from the snapshot as the event was, is completed.
    fn due_partial(
        &mut self,
        assembler: &Assembler,
        choice: u32,
        index: u32,
        partial: &PartialArguments<'_>,
    ) -> Option<Box<RawValue>> {
        let Some(text) = partial
            .text()
            .or_else(|| Some(tool_call(assembler, choice, index)?.arguments()))
        else {
            return Some(RawValue::NULL.to_owned());
        };
        let length = u32::try_from(text.len()).unwrap_or(u32::MAX);
        let lengths = self.partial_written.entry(choice).or_default();
        let at = index as usize;
        if lengths.len() <= at {
            lengths.resize(at + 1, 0);
        }
        let written = &mut lengths[at];
        if *written > 0 && length < written.saturating_mul(2) {
            return None;
        }
        *written = length.max(1);
        Some(partial_args(partial, text))
    }
}

impl<W: Write> Sink for EventsOutput<W> {
    fn event(&mut self, event: &Event<'_>, assembler: &mut Assembler) -> io::Result<()> {
        let partial = match event {
            Event::ToolCallArgumentsDelta {
                choice,
                index,
                partial,
                ..
            } => self.due_partial(assembler, *choice, *index, partial),
            _ => None,
        };
        safe_json::write(&mut self.out, &EventLine { event, partial })?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }

    fn finish(&mut self, _completion: Option<&Completion>) -> io::Result<()> {
        self.out.flush()
    }
}

/// An event as written by `--events`: its own fields (`type` first), plus the arguments so far
/// on the argument deltas that have one due.
#[derive(Serialize)]
struct EventLine<'e, 'a> {
    #[serde(flatten)]
    event: &'e Event<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    partial: Option<Box<RawValue>>,
}

/// The tool call at `index` of a choice, in the message so far: found by its position, not by
/// a scan of the choice's calls per delta (which grew with the square of the calls).
pub fn tool_call(assembler: &Assembler, choice: u32, index: u32) -> Option<&PendingToolCall> {
    assembler.message(choice)?.tool_call_at(index)
}

/// The arguments as they stand: the event's completion (O(nesting depth) to take) written as
/// compact JSON text, every number exactly as sent; the text as streamed, as a JSON string, when
/// there is no completion yet.
fn partial_args(partial: &PartialArguments<'_>, text: &str) -> Box<RawValue> {
    partial
        .completion_of(text)
        .and_then(|completion| RawValue::from_string(compact(completion)).ok())
        .unwrap_or_else(|| {
            let text = serde_json::to_string(text).unwrap_or_default();
            RawValue::from_string(text).unwrap_or_else(|_| RawValue::NULL.to_owned())
        })
}

/// The completed JSON without the whitespace between its tokens, so that it stays on one line.
fn compact(completion: CompletedJson<'_>) -> String {
    let prefix = completion.prefix();
    let mut text = String::with_capacity(prefix.len() + completion.suffix_len());
    let (mut in_string, mut escaped) = (false, false);
    for c in prefix.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else if c.is_ascii_whitespace() {
            continue;
        }
        text.push(c);
    }
    completion.write_suffix(&mut text);
    text
}
