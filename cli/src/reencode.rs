//! `--to` and `--json-as`: the answer re-encoded into another provider's wire format or a UI
//! stream protocol — the SSE stream as events arrive, or the final message as that target's
//! non-streamed JSON.

use std::io::{self, Write};

use deltafold::encode::{response_json, Encoder, Target};
use deltafold::{Assembler, Completion, Event};

use crate::output::Sink;

/// `--to`: each event written to `out` in `target`'s SSE as it happens, flushed so that a
/// client reading the pipe sees it at once.
pub struct StreamOutput<W> {
    out: W,
    encoder: Encoder,
    /// Reused for every event: the encoder appends to it, the sink drains it.
    buffer: String,
}

impl<W: Write> StreamOutput<W> {
    /// Writes `target`'s SSE to `out`.
    pub fn new(out: W, target: Target) -> Self {
        StreamOutput {
            out,
            encoder: Encoder::new(target),
            buffer: String::new(),
        }
    }

    fn write_buffer(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        self.out.write_all(self.buffer.as_bytes())?;
        self.buffer.clear();
        self.out.flush()
    }
}

impl<W: Write> Sink for StreamOutput<W> {
    /// Past the message's budget (what the encoder holds for its closing events with what the
    /// assembler holds), the limit error ends the run and the stream is left cut.
    fn event(&mut self, event: &Event<'_>, assembler: &Assembler) -> io::Result<()> {
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
}

impl<W: Write> ResponseJsonOutput<W> {
    /// Writes `target`'s response JSON to `out`.
    pub fn new(out: W, target: Target) -> Self {
        ResponseJsonOutput { out, target }
    }
}

impl<W: Write> Sink for ResponseJsonOutput<W> {
    fn event(&mut self, _event: &Event<'_>, _assembler: &Assembler) -> io::Result<()> {
        Ok(())
    }

    fn finish(&mut self, completion: Option<&Completion>) -> io::Result<()> {
        let Some(completion) = completion else {
            return Ok(());
        };
        serde_json::to_writer(&mut self.out, &response_json(self.target, completion))?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }
}
