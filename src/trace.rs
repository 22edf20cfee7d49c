//! One `tracing` span per assembled stream, with the OpenTelemetry GenAI attributes (feature
//! `tracing`): `gen_ai.system`, `gen_ai.response.model`, `gen_ai.response.id`,
//! `gen_ai.response.finish_reasons`, `gen_ai.usage.input_tokens` / `output_tokens`, the time to
//! the first token, and an error event when the stream fails.
//!
//! The span is named `gen_ai.stream` at level INFO and closes when the stream is dropped; an
//! OpenTelemetry layer (`tracing-opentelemetry`) exports it with these attributes. Without the
//! feature, [`StreamTrace`] is an empty type whose methods do nothing, and nothing of this is
//! compiled in.

#[cfg(feature = "tracing")]
pub(crate) use self::on::StreamTrace;

#[cfg(not(feature = "tracing"))]
pub(crate) use self::off::StreamTrace;

#[cfg(feature = "tracing")]
mod on {
    use std::time::Instant;

    use tracing::field::Empty;
    use tracing::Span;

    use crate::assemble::{Assembler, Event};
    use crate::error::Error;
    use crate::message::Completion;

    /// The span of one stream and what it has recorded so far.
    #[derive(Debug)]
    pub(crate) struct StreamTrace {
        span: Span,
        started: Instant,
        first_token_seen: bool,
        finish_reasons: Vec<String>,
        /// An error was reported: `completion()` after it repeats it, and is not reported again.
        failed: bool,
    }

    impl StreamTrace {
        pub(crate) fn new() -> Self {
            let span = tracing::info_span!(
                "gen_ai.stream",
                gen_ai.system = Empty,
                gen_ai.response.model = Empty,
                gen_ai.response.id = Empty,
                gen_ai.response.finish_reasons = Empty,
                gen_ai.usage.input_tokens = Empty,
                gen_ai.usage.output_tokens = Empty,
                deltafold.time_to_first_token_ms = Empty,
            );
            StreamTrace {
                span,
                started: Instant::now(),
                first_token_seen: false,
                finish_reasons: Vec::new(),
                failed: false,
            }
        }

        /// An event went out: the first content sets the time to first token; the start, usage
        /// reports and finish reasons fill their attributes.
        pub(crate) fn event(&mut self, event: &Event<'_>, assembler: &Assembler) {
            match event {
                Event::Started { id, model } => {
                    if let Some(dialect) = assembler.dialect() {
                        self.span.record("gen_ai.system", dialect.provider_name());
                    }
                    if let Some(model) = model {
                        self.span.record("gen_ai.response.model", model.as_ref());
                    }
                    if let Some(id) = id {
                        self.span.record("gen_ai.response.id", id.as_ref());
                    }
                }
                Event::TextDelta { .. }
                | Event::ReasoningDelta { .. }
                | Event::RefusalDelta { .. }
                | Event::ToolCallStarted { .. } => self.first_token(),
                Event::Usage { usage } => self.usage(usage.input_tokens, usage.output_tokens),
                Event::ChoiceFinished { reason, .. } => {
                    self.finish_reasons.push(reason.to_string());
                    self.record_finish_reasons();
                }
                _ => {}
            }
        }

        /// The final result (from `completion()` or `abort()`): fills what the events, which
        /// were not read, did not.
        pub(crate) fn completion(&mut self, completion: &Completion) {
            if let Some(message) = completion.message() {
                let metadata = &message.response_metadata;
                if let Some(model) = &metadata.model_name {
                    self.span.record("gen_ai.response.model", model.as_str());
                }
                if let Some(id) = &metadata.id {
                    self.span.record("gen_ai.response.id", id.as_str());
                }
                if let Some(provider) = &metadata.model_provider {
                    self.span.record("gen_ai.system", provider.as_str());
                }
            }
            self.finish_reasons = completion
                .messages()
                .map(|message| message.response_metadata.finish_reason.to_string())
                .filter(|reason| !reason.is_empty())
                .collect();
            self.record_finish_reasons();
            if let Some(usage) = &completion.usage {
                self.usage(usage.input_tokens, usage.output_tokens);
            }
        }

        /// The stream failed: one error event, the first time.
        pub(crate) fn error(&mut self, error: &Error) {
            if std::mem::replace(&mut self.failed, true) {
                return;
            }
            tracing::error!(
                parent: &self.span,
                error.kind = ?error.kind(),
                error.location = ?error.location(),
                "{error}"
            );
        }

        fn first_token(&mut self) {
            if !self.first_token_seen {
                self.first_token_seen = true;
                let millis = self.started.elapsed().as_secs_f64() * 1000.0;
                self.span.record("deltafold.time_to_first_token_ms", millis);
            }
        }

        fn usage(&self, input: u64, output: u64) {
            self.span.record("gen_ai.usage.input_tokens", input);
            self.span.record("gen_ai.usage.output_tokens", output);
        }

        /// As a JSON array of strings, the closest a `tracing` field comes to OpenTelemetry's
        /// `string[]`.
        fn record_finish_reasons(&self) {
            let reasons = serde_json::to_string(&self.finish_reasons).unwrap_or_default();
            self.span
                .record("gen_ai.response.finish_reasons", reasons.as_str());
        }
    }
}

#[cfg(not(feature = "tracing"))]
mod off {
    use crate::assemble::{Assembler, Event};
    use crate::error::Error;
    use crate::message::Completion;

    /// Without the `tracing` feature: nothing recorded, nothing compiled.
    #[derive(Debug)]
    pub(crate) struct StreamTrace;

    impl StreamTrace {
        #[inline(always)]
        pub(crate) fn new() -> Self {
            StreamTrace
        }

        #[inline(always)]
        pub(crate) fn event(&mut self, _event: &Event<'_>, _assembler: &Assembler) {}

        #[inline(always)]
        pub(crate) fn completion(&mut self, _completion: &Completion) {}

        #[inline(always)]
        pub(crate) fn error(&mut self, _error: &Error) {}
    }
}
