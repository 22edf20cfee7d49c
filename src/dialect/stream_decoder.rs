//! The per-stream decoder: the dialect (chosen or detected), its decoder's state between
//! payloads, and the optional `<think>` extraction in front of the assembler. Every dialect is
//! driven by the same rule (see [`DialectDecoder`]); none is a special case here.

use super::anthropic::AnthropicDecoder;
use super::bedrock::BedrockDecoder;
use super::cohere::CohereDecoder;
use super::decoder::DialectDecoder;
use super::gemini::GeminiDecoder;
use super::ollama::OllamaDecoder;
use super::openai_chat::{OpenAiChatDecoder, Repeated};
use super::openai_responses::OpenAiResponsesDecoder;
use super::{detect, Dialect};
use crate::delta::DeltaSink;
use crate::delta::{ThinkSink, ThinkTags, Understanding};
use crate::error::Error;
use crate::framing::Frame;

/// Decodes the payloads of one stream.
#[derive(Debug)]
pub(crate) struct StreamDecoder {
    state: State,
    think: Option<ThinkTags>,
    /// Whether any payload was understood: never an empty success.
    understanding: Understanding,
    /// The OpenAI chat decoder of a stream before a reset, kept with its buffers for the next.
    spare: Option<OpenAiChatDecoder>,
    /// OpenAI chat was chosen for a payload that must confirm it: whether the stream is NDJSON,
    /// for detecting it from the keys if it does not.
    unconfirmed: Option<bool>,
}

#[derive(Debug)]
enum State {
    /// Waiting for the first payload to say which dialect this is.
    Undetected,
    OpenAiChat(OpenAiChatDecoder),
    Anthropic(AnthropicDecoder),
    OpenAiResponses(OpenAiResponsesDecoder),
    Gemini(GeminiDecoder),
    Ollama(OllamaDecoder),
    Bedrock(BedrockDecoder),
    Cohere(CohereDecoder),
}

impl State {
    /// The decoder of `dialect`; OpenAI chat's is `spare` if there is one.
    fn new(dialect: Dialect, spare: &mut Option<OpenAiChatDecoder>) -> Self {
        match dialect {
            Dialect::OpenAiChat => State::OpenAiChat(spare.take().unwrap_or_default()),
            Dialect::Anthropic => State::Anthropic(AnthropicDecoder::default()),
            Dialect::OpenAiResponses => State::OpenAiResponses(OpenAiResponsesDecoder::default()),
            Dialect::Gemini => State::Gemini(GeminiDecoder::default()),
            Dialect::Ollama => State::Ollama(OllamaDecoder::default()),
            Dialect::Bedrock => State::Bedrock(BedrockDecoder::default()),
            Dialect::Cohere => State::Cohere(CohereDecoder::default()),
        }
    }

    fn dialect(&self) -> Option<Dialect> {
        match self {
            State::Undetected => None,
            State::OpenAiChat(_) => Some(OpenAiChatDecoder::DIALECT),
            State::Anthropic(_) => Some(AnthropicDecoder::DIALECT),
            State::OpenAiResponses(_) => Some(OpenAiResponsesDecoder::DIALECT),
            State::Gemini(_) => Some(GeminiDecoder::DIALECT),
            State::Ollama(_) => Some(OllamaDecoder::DIALECT),
            State::Bedrock(_) => Some(BedrockDecoder::DIALECT),
            State::Cohere(_) => Some(CohereDecoder::DIALECT),
        }
    }

    /// Decodes one frame; before the dialect is known there is nothing to decode.
    fn decode(&mut self, frame: &Frame<'_>, sink: &mut impl DeltaSink) -> Result<(), Error> {
        match self {
            State::Undetected => Ok(()),
            State::OpenAiChat(decoder) => decoder.decode(frame, sink),
            State::Anthropic(decoder) => decoder.decode(frame, sink),
            State::OpenAiResponses(decoder) => decoder.decode(frame, sink),
            State::Gemini(decoder) => decoder.decode(frame, sink),
            State::Ollama(decoder) => decoder.decode(frame, sink),
            State::Bedrock(decoder) => decoder.decode(frame, sink),
            State::Cohere(decoder) => decoder.decode(frame, sink),
        }
    }

    fn end(&mut self, sink: &mut impl DeltaSink) -> Result<(), Error> {
        match self {
            State::Undetected => Ok(()),
            State::OpenAiChat(decoder) => decoder.end(sink),
            State::Anthropic(decoder) => decoder.end(sink),
            State::OpenAiResponses(decoder) => decoder.end(sink),
            State::Gemini(decoder) => decoder.end(sink),
            State::Ollama(decoder) => decoder.end(sink),
            State::Bedrock(decoder) => decoder.end(sink),
            State::Cohere(decoder) => decoder.end(sink),
        }
    }
}

impl StreamDecoder {
    /// A decoder for `dialect`, or one that detects it from the first payload.
    pub(crate) fn new(dialect: Option<Dialect>, think_tags: bool) -> Self {
        let mut spare = None;
        StreamDecoder {
            state: dialect.map_or(State::Undetected, |dialect| State::new(dialect, &mut spare)),
            think: think_tags.then(ThinkTags::default),
            understanding: Understanding::default(),
            spare,
            unconfirmed: None,
        }
    }

    /// Forgets the stream for a new one, as [`new`](Self::new) would make it, keeping the OpenAI
    /// chat decoder's buffers.
    pub(crate) fn reset(&mut self, dialect: Option<Dialect>, think_tags: bool) {
        if let State::OpenAiChat(mut decoder) =
            std::mem::replace(&mut self.state, State::Undetected)
        {
            decoder.reset();
            self.spare = Some(decoder);
        }
        let mut spare = self.spare.take();
        *self = StreamDecoder::new(None, think_tags);
        self.state = dialect.map_or(State::Undetected, |dialect| State::new(dialect, &mut spare));
        self.spare = spare;
    }

    /// The dialect, once chosen or detected.
    pub(crate) fn dialect(&self) -> Option<Dialect> {
        self.state.dialect()
    }

    /// Detects the dialect from this payload if it is not known yet; returns it when it has
    /// just been decided, so the caller can record it.
    #[inline]
    pub(crate) fn detect(&mut self, frame: &Frame<'_>, ndjson: bool) -> Option<Dialect> {
        if !matches!(self.state, State::Undetected) {
            return None;
        }
        self.detect_from(frame, ndjson)
    }

    /// Decides the dialect from the first payload.
    fn detect_from(&mut self, frame: &Frame<'_>, ndjson: bool) -> Option<Dialect> {
        let dialect = match detect::first_look(frame)? {
            detect::Look::Sure(dialect) => dialect,
            // Chunks name their choices: the chat decoder's parse of this one reads every key
            // and confirms the dialect, instead of a parse of its own here.
            detect::Look::ByKeys(data)
                if frame.event.is_none()
                    && memchr::memmem::find(data.as_bytes(), b"\"choices\"").is_some() =>
            {
                let mut decoder = self.spare.take().unwrap_or_default();
                decoder.confirm_next();
                self.state = State::OpenAiChat(decoder);
                self.unconfirmed = Some(ndjson);
                return Some(Dialect::OpenAiChat);
            }
            detect::Look::ByKeys(data) => detect::by_keys(data, ndjson),
        };
        self.state = State::new(dialect, &mut self.spare);
        Some(dialect)
    }

    /// Decodes one payload into deltas, watching whether it was understood until one was: from
    /// then on the deltas go straight to the sink.
    pub(crate) fn decode(
        &mut self,
        frame: &Frame<'_>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        if self.understanding.is_settled() && self.unconfirmed.is_none() {
            return decode_filtered(&mut self.state, self.think.as_mut(), frame, sink);
        }
        let mut watch = self.understanding.watch(sink);
        decode_confirmed(
            &mut self.state,
            &mut self.think,
            &mut self.spare,
            &mut self.unconfirmed,
            frame,
            &mut watch,
        )?;
        let substance = watch.had_substance();
        self.understanding.after(frame, substance);
        Ok(())
    }

    /// Reads a payload at the start of `line` that repeats the stream's chunks with another
    /// string: its length and the one delta [`decode`](Self::decode) would apply, for a reader
    /// that takes the event whole without framing it first (and then applies the delta). Only
    /// OpenAI chat streams repeat themselves this way; `None` while anything else stands
    /// between the payload and the sink (detection, a tentative dialect, `<think>` extraction).
    #[inline]
    pub(crate) fn read_repeated<'a>(&'a mut self, line: &'a str) -> Option<Repeated<'a>> {
        match &mut self.state {
            State::OpenAiChat(decoder)
                if self.think.is_none()
                    && self.unconfirmed.is_none()
                    && self.understanding.is_settled() =>
            {
                decoder.read_repeated(line)
            }
            _ => None,
        }
    }

    /// The input ended: releases what is held back, and reports an error a dialect deferred
    /// until its terminal event (which never came).
    pub(crate) fn end(&mut self, sink: &mut impl DeltaSink) -> Result<(), Error> {
        if let Some(tags) = &mut self.think {
            tags.flush(None, sink)?;
        }
        self.state.end(sink)?;
        let dialect = self.dialect().map_or("any dialect", Dialect::description);
        self.understanding.end(dialect)
    }
}

/// One payload through the dialect, and through the `<think>` filter when it is on.
fn decode_filtered(
    state: &mut State,
    think: Option<&mut ThinkTags>,
    frame: &Frame<'_>,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    match think {
        Some(tags) => state.decode(frame, &mut ThinkSink { tags, inner: sink }),
        None => state.decode(frame, sink),
    }
}

/// Decodes a payload through the dialect; one that did not confirm a tentative OpenAI chat
/// (nothing of it applied) is decoded again by the dialect its keys name.
fn decode_confirmed(
    state: &mut State,
    think: &mut Option<ThinkTags>,
    spare: &mut Option<OpenAiChatDecoder>,
    unconfirmed: &mut Option<bool>,
    frame: &Frame<'_>,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    decode_filtered(state, think.as_mut(), frame, sink)?;
    let Some(ndjson) = unconfirmed.take() else {
        return Ok(());
    };
    let State::OpenAiChat(decoder) = state else {
        return Ok(());
    };
    if !decoder.take_rejected() {
        return Ok(());
    }
    let dialect = detect::by_keys(frame.data.trim_ascii(), ndjson);
    if let State::OpenAiChat(mut decoder) = std::mem::replace(state, State::Undetected) {
        decoder.reset();
        *spare = Some(decoder);
    }
    *state = State::new(dialect, spare);
    decode_filtered(state, think.as_mut(), frame, sink)
}
