//! The output modes: each is a [`Sink`] that sees every event as it happens and the result at
//! the end. The live display lives in its own module; the machine-readable modes are here.

use std::io::{self, Write};

use deltafold::assemble::PendingToolCall;
use deltafold::{AiMessage, Assembler, Completion, Event};
use serde::Serialize;
use serde_json::Value;

/// Where events and the final result go.
pub trait Sink {
    /// One event, as it happens; `assembler` holds the message so far.
    fn event(&mut self, event: &Event<'_>, assembler: &Assembler) -> io::Result<()>;

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
    fn event(&mut self, _event: &Event<'_>, _assembler: &Assembler) -> io::Result<()> {
        Ok(())
    }

    /// One object for one choice (or none), an array when the response had several.
    fn finish(&mut self, completion: Option<&Completion>) -> io::Result<()> {
        let Some(completion) = completion else {
            return Ok(());
        };
        let line = if completion.choices.len() > 1 {
            let messages: Vec<Value> = completion.messages().map(message_json).collect();
            serde_json::to_string(&messages)
        } else {
            serde_json::to_string(&message_json(
                &completion.message().cloned().unwrap_or_default(),
            ))
        }?;
        writeln!(self.out, "{line}")?;
        self.out.flush()
    }
}

/// LangChain's `AIMessage` dict, with the provider-neutral [`FinishKind`] beside the provider's
/// finish reason in `response_metadata` (a free-form dict in LangChain), so that scripts can
/// compare answers of different providers.
///
/// [`FinishKind`]: deltafold::message::FinishKind
fn message_json(message: &AiMessage) -> Value {
    let mut value = serde_json::to_value(message).unwrap_or_default();
    if let (Some(kind), Some(Value::Object(metadata))) =
        (message.finish_kind(), value.get_mut("response_metadata"))
    {
        metadata.insert("finish_kind".into(), kind.as_str().into());
    }
    value
}

/// `--events`: every event as one JSON line, as it happens.
pub struct EventsOutput<W> {
    out: W,
}

impl<W: Write> EventsOutput<W> {
    /// Writes to `out`.
    pub fn new(out: W) -> Self {
        EventsOutput { out }
    }
}

impl<W: Write> Sink for EventsOutput<W> {
    fn event(&mut self, event: &Event<'_>, assembler: &Assembler) -> io::Result<()> {
        let partial = match event {
            Event::ToolCallArgumentsDelta { choice, index, .. } => {
                Some(tool_call(assembler, *choice, *index).map_or(Value::Null, partial_args))
            }
            _ => None,
        };
        serde_json::to_writer(&mut self.out, &EventLine { event, partial })?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }

    fn finish(&mut self, _completion: Option<&Completion>) -> io::Result<()> {
        self.out.flush()
    }
}

/// An event as written by `--events`: its own fields (`type` first), plus the arguments so far
/// on argument deltas.
#[derive(Serialize)]
struct EventLine<'e, 'a> {
    #[serde(flatten)]
    event: &'e Event<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    partial: Option<Value>,
}

/// The tool call at `index` of a choice, in the message so far.
pub fn tool_call(assembler: &Assembler, choice: u32, index: u32) -> Option<&PendingToolCall> {
    assembler
        .message(choice)?
        .tool_calls()
        .find(|call| call.position() == index)
}

/// The arguments as they stand: the scanner's completion parsed as JSON (its text when
/// serde_json refuses it), or the text as streamed when there is no completion yet.
fn partial_args(call: &PendingToolCall) -> Value {
    match call.partial() {
        Some(completion) => {
            let text = completion.to_string();
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        }
        None => Value::String(call.arguments().to_owned()),
    }
}
