//! The per-stream decoder: the dialect (chosen or detected), the little state some dialects
//! keep between payloads, and the optional `<think>` extraction in front of the assembler.

use super::{anthropic, detect, gemini, ollama, openai_chat, openai_responses, Dialect};
use crate::delta::DeltaSink;
use crate::delta::{ThinkSink, ThinkTags};
use crate::framing::Frame;
use crate::Error;

/// Decodes the payloads of one stream.
#[derive(Debug)]
pub(crate) struct Decoder {
    state: State,
    think: Option<ThinkTags>,
}

#[derive(Debug)]
enum State {
    /// Waiting for the first payload to say which dialect this is.
    Undetected,
    OpenAiChat(openai_chat::Decoder),
    Anthropic(anthropic::Decoder),
    OpenAiResponses(openai_responses::Decoder),
    Gemini(gemini::Decoder),
    Ollama(ollama::Decoder),
}

impl State {
    fn new(dialect: Dialect) -> Self {
        match dialect {
            Dialect::OpenAiChat => State::OpenAiChat(openai_chat::Decoder::default()),
            Dialect::Anthropic => State::Anthropic(anthropic::Decoder::default()),
            Dialect::OpenAiResponses => {
                State::OpenAiResponses(openai_responses::Decoder::default())
            }
            Dialect::Gemini => State::Gemini(gemini::Decoder::default()),
            Dialect::Ollama => State::Ollama(ollama::Decoder::default()),
        }
    }
}

impl Decoder {
    /// A decoder for `dialect`, or one that detects it from the first payload.
    pub(crate) fn new(dialect: Option<Dialect>, think_tags: bool) -> Self {
        Decoder {
            state: dialect.map_or(State::Undetected, State::new),
            think: think_tags.then(ThinkTags::default),
        }
    }

    /// The dialect, once chosen or detected.
    pub(crate) fn dialect(&self) -> Option<Dialect> {
        match self.state {
            State::Undetected => None,
            State::OpenAiChat(_) => Some(Dialect::OpenAiChat),
            State::Anthropic(_) => Some(Dialect::Anthropic),
            State::OpenAiResponses(_) => Some(Dialect::OpenAiResponses),
            State::Gemini(_) => Some(Dialect::Gemini),
            State::Ollama(_) => Some(Dialect::Ollama),
        }
    }

    /// Detects the dialect from this payload if it is not known yet; returns it when it has
    /// just been decided, so the caller can record it.
    pub(crate) fn detect(&mut self, frame: &Frame<'_>, ndjson: bool) -> Option<Dialect> {
        if !matches!(self.state, State::Undetected) {
            return None;
        }
        let dialect = detect::detect(frame, ndjson)?;
        self.state = State::new(dialect);
        Some(dialect)
    }

    /// Decodes one payload into deltas.
    pub(crate) fn decode(
        &mut self,
        frame: &Frame<'_>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        match &mut self.think {
            Some(tags) => {
                let mut sink = ThinkSink { tags, inner: sink };
                decode(&mut self.state, frame, &mut sink)
            }
            None => decode(&mut self.state, frame, sink),
        }
    }

    /// The input ended: releases what is held back, and reports an error a dialect deferred
    /// until its terminal event (which never came).
    pub(crate) fn end(&mut self, sink: &mut impl DeltaSink) -> Result<(), Error> {
        if let Some(tags) = &mut self.think {
            tags.flush(None, sink)?;
        }
        match &mut self.state {
            State::OpenAiResponses(decoder) => decoder.end(sink),
            _ => Ok(()),
        }
    }
}

fn decode(state: &mut State, frame: &Frame<'_>, sink: &mut impl DeltaSink) -> Result<(), Error> {
    let data = frame.data.trim_ascii();
    match state {
        // Reads empty payloads itself: an empty `event: error` is still an error.
        State::OpenAiChat(decoder) => {
            if let Some(event) = frame.event {
                if let Some(other) = detect::dialect_of_event(event) {
                    return Err(detect::mismatch(Dialect::OpenAiChat, other, frame.data));
                }
            }
            decoder.decode(frame, sink)
        }
        // An empty payload (a keep-alive), or one before the first real one: nothing to decode.
        _ if data.is_empty() => Ok(()),
        State::Undetected => Ok(()),
        State::Anthropic(decoder) => decoder.decode(frame, data, sink),
        State::OpenAiResponses(decoder) => decoder.decode(frame, data, sink),
        State::Gemini(decoder) => decoder.decode(frame, data, sink),
        State::Ollama(decoder) => decoder.decode(frame, data, sink),
    }
}
