//! `--to` and `--json-as`: the answer re-encoded into another provider's wire format or a UI
//! stream protocol — the SSE stream as events arrive, or the final message as that target's
//! non-streamed JSON.

use std::io::{self, Write};

use deltafold::encode::{response_json, Encoder, Target};
use deltafold::{Assembler, Completion, Event};

use crate::output::Sink;
use crate::safe_json;

/// `--to`: each event written to `out` in `target`'s SSE as it happens, flushed so that a
/// client reading the pipe sees it at once.
pub struct StreamOutput<W> {
    out: W,
    encoder: Encoder,
    /// Reused for every event: the encoder appends to it, the sink drains it.
    buffer: String,
    /// `out` is a terminal: what could drive or spoof it is written escaped.
    terminal: bool,
}

impl<W: Write> StreamOutput<W> {
    /// Writes `target`'s SSE to `out`: byte for byte, or with format and control characters
    /// escaped when `out` is a `terminal` (the same values to a JSON reader).
    pub fn new(out: W, target: Target, terminal: bool) -> Self {
        StreamOutput {
            out,
            encoder: Encoder::new(target),
            buffer: String::new(),
            terminal,
        }
    }

    fn write_buffer(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        if self.terminal {
            safe_json::write_sse(&mut self.out, &self.buffer)?;
        } else {
            self.out.write_all(self.buffer.as_bytes())?;
        }
        self.buffer.clear();
        self.out.flush()
    }
}

impl<W: Write> Sink for StreamOutput<W> {
    /// Past the message's budget (what the encoder holds for its closing events with what the
    /// assembler holds), the limit error ends the run and the stream is left cut.
    fn event(&mut self, event: &Event<'_>, assembler: &mut Assembler) -> io::Result<()> {
        let encoded = self.encoder.try_encode(event, assembler, &mut self.buffer);
        self.write_buffer()?;
        encoded.map_err(io::Error::other)
    }

    /// A UI target ends with its error event; a provider target is left cut.
    fn fail(&mut self, error: &str) -> io::Result<()> {
        self.encoder.fail(error, &mut self.buffer);
        self.write_buffer()
    }

    /// Closes the stream only when the source completed: a failed or truncated source is
    /// left cut, so the client sees that it did not end (the error goes to stderr; a UI target
    /// said it in its stream, see `fail`).
    fn finish(&mut self, completion: Option<&Completion>) -> io::Result<()> {
        if completion.is_some_and(|completion| completion.complete) {
            self.encoder.finish(&mut self.buffer);
        }
        self.write_buffer()?;
        self.out.flush()
    }
}

/// `--json-as`: nothing while streaming, then the result as `target`'s non-streamed response,
/// one JSON line (a partial result too, as `--json` does).
pub struct ResponseJsonOutput<W> {
    out: W,
    target: Target,
    /// `out` is a terminal: what could drive or spoof it is written escaped.
    terminal: bool,
}

impl<W: Write> ResponseJsonOutput<W> {
    /// Writes `target`'s response JSON to `out`: as `serde_json` writes it, or with format and
    /// control characters escaped when `out` is a `terminal` (the same values).
    pub fn new(out: W, target: Target, terminal: bool) -> Self {
        ResponseJsonOutput {
            out,
            target,
            terminal,
        }
    }
}

impl<W: Write> Sink for ResponseJsonOutput<W> {
    fn event(&mut self, _event: &Event<'_>, _assembler: &mut Assembler) -> io::Result<()> {
        Ok(())
    }

    fn finish(&mut self, completion: Option<&Completion>) -> io::Result<()> {
        let Some(completion) = completion else {
            return Ok(());
        };
        let response = response_json(self.target, completion);
        if self.terminal {
            safe_json::write(&mut self.out, &response)?;
        } else {
            serde_json::to_writer(&mut self.out, &response)?;
        }
        self.out.write_all(b"\n")?;
        self.out.flush()
    }
}
