//! OpenAI Chat Completions: `chat.completion.chunk` payloads (and a whole `chat.completion`
//! body, whose `message` reads as one big `delta`), as sent by OpenAI and its compatibles.
//!
//! A `delta` brings text (a string or parts), reasoning (`reasoning_content`, `reasoning`,
//! OpenRouter's `reasoning_details`), a refusal, tool-call fragments (function calls, and custom
//! calls: [`custom_calls`]), `annotations` (typed citations), `audio` (the spoken answer: base64
//! `data` and `transcript` in pieces, appended to one audio block), `images` (OpenRouter's
//! generated images, one image block each) and Gemini's `extra_content` on a call or on the delta
//! (its thought signature: [`extra_content`]). The usage object is read in [`usage_counts`].

use serde_json::value::RawValue;
use serde_json::Value;

use super::decoder::DialectDecoder;
use super::detect;
use super::payload::{keep_extras, parse_payload};
use super::text::Text;
use super::usage::apply_usage;
use super::Dialect;
use crate::delta::{Delta, DeltaSink, MetadataDelta, ToolCallDelta};
use crate::error::Error;
use crate::error::ProviderError;
use crate::framing::Frame;

use payload::{ChoiceChunk, Chunk, Content, DeltaChunk, Part};

mod custom_calls;
mod extra_content;
mod fast;
mod images;
mod payload;
mod plain;
mod shape;
mod usage_counts;

pub(crate) use fast::Repeated;

use custom_calls::CustomCalls;
use usage_counts::{groq_usage, usage_report};

/// Per-stream state: what the chunks so far repeated (see [`fast`]).
#[derive(Debug, Default)]
pub(crate) struct OpenAiChatDecoder {
    repeats: fast::Repeats,
    /// Custom tool calls whose input is still streaming.
    custom: CustomCalls,
    /// Where the strict reader decodes a string with escapes.
    scratch: String,
    /// The dialect was chosen for the next payload without reading its keys: its parse must
    /// confirm it (see [`detect::chat_keys_confirm`]).
    confirming: bool,
    /// That payload was not OpenAI chat: nothing of it was applied, and the stream decoder
    /// detects the dialect from its keys instead.
    rejected: bool,
}

impl OpenAiChatDecoder {
    /// Forgets the stream for a new one, keeping the buffers.
    pub(crate) fn reset(&mut self) {
        self.repeats.reset();
        self.custom.reset();
        self.confirming = false;
        self.rejected = false;
    }

    /// Reads a payload at the start of `line` that repeats the chunks before it with another
    /// string, without applying it; see [`fast::Repeats::read_repeated`].
    #[inline]
    pub(crate) fn read_repeated<'a>(&'a mut self, line: &'a str) -> Option<Repeated<'a>> {
        self.repeats.read_repeated(line, &mut self.scratch)
    }

    /// A decoder for a stream whose first payload must confirm the dialect.
    pub(crate) fn confirm_next(&mut self) {
        self.confirming = true;
    }

    /// Whether the payload just decoded turned out not to be OpenAI chat (nothing was applied).
    pub(crate) fn take_rejected(&mut self) -> bool {
        std::mem::take(&mut self.rejected)
    }
}

impl DialectDecoder for OpenAiChatDecoder {
    const DIALECT: Dialect = Dialect::OpenAiChat;

    /// A chunk takes any member, so another dialect's payload parses, and its keys tell (see
    /// [`decode_general`](Self::decode_general)); one that does not parse is a broken chunk.
    const MALFORMED_MAY_BE_FOREIGN: bool = false;

    /// Chat has no `event:` names of its own, so another dialect's marks its payload (even an
    /// empty one); `[DONE]` ends the stream; an `event: error` is an error, even empty.
    fn decode_control(
        &mut self,
        frame: &Frame<'_>,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Option<Result<(), Error>> {
        if let Some(other) = frame.event.and_then(detect::dialect_of_event) {
            return Some(Err(detect::mismatch(Self::DIALECT, other, frame.data)));
        }
        if data == "[DONE]" {
            return Some(sink.apply(Delta::Done));
        }
        if frame.event == Some("error") {
            let value =
                serde_json::from_str(data).unwrap_or_else(|_| Value::String(data.to_owned()));
            return Some(sink.apply(Delta::Error(Box::new(ProviderError::from_value(value)))));
        }
        None
    }

    fn decode_fast(
        &mut self,
        frame: &Frame<'_>,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Option<Result<(), Error>> {
        // The fast path finishes choices without closing a custom call's input.
        if self.custom.any_open() {
            return None;
        }
        fast::decode(self, frame, data, sink)
    }

    /// A custom call whose choice never finished is complete as far as its input came.
    fn end(&mut self, sink: &mut impl DeltaSink) -> Result<(), Error> {
        self.custom.close(None, sink)
    }

    fn decode_general(
        &mut self,
        frame: &Frame<'_>,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let parsed: Result<Chunk<'_>, Error> = parse_payload::<Self, _>(frame, data);
        if std::mem::take(&mut self.confirming)
            && !parsed
                .as_ref()
                .is_ok_and(|chunk| chunk.has_choices && detect::chat_keys_confirm(&chunk.extra))
        {
            self.rejected = true;
            return Ok(());
        }
        let chunk: Chunk<'_> = parsed?;
        // Only a chunk without choices can be another dialect's payload: the hot path never asks.
        if chunk.choices.is_empty() && !chunk.extra.is_empty() {
            if let Some(other) = detect::foreign_chat_keys(&chunk.extra) {
                return Err(detect::mismatch(Self::DIALECT, other, data));
            }
        }
        chunk.decode(&mut self.custom, sink)?;
        self.repeats.remember_prefix(data);
        Ok(())
    }
}

/// A choice's index, or its position when the chunk names none.
fn choice_index(index: Option<u32>, position: usize) -> u32 {
    index.unwrap_or_else(|| u32::try_from(position).unwrap_or(u32::MAX))
}

impl<'a> Chunk<'a> {
    /// Whether the chunk has members of its own beyond those every chunk repeats (a non-null
    /// extra field): with an empty `choices`, a chunk that is [`Delta::Recognized`].
    fn brings_response_fields(&self) -> bool {
        self.extra.iter().any(|(_, value)| value.get() != "null")
    }

    fn decode(self, custom: &mut CustomCalls, sink: &mut impl DeltaSink) -> Result<(), Error> {
        sink.apply(Delta::Metadata(MetadataDelta {
            id: self.id.as_ref().map(Text::as_str),
            model: self.model.as_ref().map(Text::as_str),
            created: self.created,
            system_fingerprint: self.system_fingerprint.as_ref().map(Text::as_str),
            service_tier: self.service_tier.as_ref().map(Text::as_str),
        }))?;
        keep_extras(None, &self.extra, sink)?;
        // Response-level fields before any choice (Azure's prompt filter results): a chat
        // chunk by its `choices`, bringing more than the id and model every chunk repeats.
        // (The plain reader takes no chunk with such fields.)
        if self.choices.is_empty() && self.has_choices && self.brings_response_fields() {
            sink.apply(Delta::Recognized)?;
        }
        for (position, choice) in self.choices.iter().enumerate() {
            choice.decode(choice_index(choice.index, position), custom, sink)?;
        }
        let usage = self.usage.filter(|usage| usage.get() != "null");
        if let Some(usage) = usage.or_else(|| groq_usage(&self.extra)) {
            apply_usage(usage.get(), usage_report(usage.get()), sink)?;
        }
        if let Some(error) = self.error.filter(|error| error.get() != "null") {
            let value = serde_json::from_str(error.get()).unwrap_or(Value::Null);
            sink.apply(Delta::Error(Box::new(ProviderError::from_value(value))))?;
        }
        Ok(())
    }
}

impl ChoiceChunk<'_> {
    fn decode(
        &self,
        choice: u32,
        custom: &mut CustomCalls,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        sink.apply(Delta::Choice { choice })?;
        if let Some(delta) = &self.delta {
            delta.decode(choice, custom, sink)?;
        }
        if let Some(logprobs) = self.logprobs.filter(|raw| raw.get() != "null") {
            sink.apply(Delta::Logprobs { choice, logprobs })?;
        }
        keep_extras(Some(choice), &self.extra, sink)?;
        if let Some(reason) = &self.finish_reason {
            custom.close(Some(choice), sink)?;
            sink.apply(Delta::Finish {
                choice,
                reason: reason.as_str(),
            })?;
        }
        Ok(())
    }
}

impl DeltaChunk<'_> {
    fn decode(
        &self,
        choice: u32,
        custom: &mut CustomCalls,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        keep_extras(Some(choice), &self.extra, sink)?;
        // Some servers mirror the same text into both fields: take the first that has text.
        let reasoning = [&self.reasoning_content, &self.reasoning]
            .into_iter()
            .flatten()
            .find(|text| !text.as_str().is_empty());
        if let Some(text) = reasoning {
            sink.apply(Delta::Reasoning {
                choice,
                text: text.as_str(),
            })?;
        }
        if let Some(raw) = self.reasoning_details {
            if let Ok(Value::Array(details)) = serde_json::from_str::<Value>(raw.get()) {
                if reasoning.is_none() {
                    for text in details.iter().filter_map(detail_text) {
                        sink.apply(Delta::Reasoning { choice, text })?;
                    }
                }
                if !details.is_empty() {
                    sink.apply(Delta::ReasoningDetails { choice, details })?;
                }
            }
        }
        // Gemini's signature over the turn goes on the reasoning, which comes before the text.
        if let Some(raw) = self.extra_content.filter(|raw| raw.get() != "null") {
            extra_content::on_delta(choice, raw, sink)?;
        }
        match &self.content {
            Some(Content::Text(text)) => sink.apply(Delta::Text {
                choice,
                text: text.as_str(),
            })?,
            Some(Content::Parts(parts)) => decode_parts(choice, parts, sink)?,
            None => {}
        }
        if let Some(raw) = self.annotations {
            if let Ok(Value::Array(annotations)) = serde_json::from_str::<Value>(raw.get()) {
                for value in annotations {
                    sink.apply(Delta::Annotation {
                        choice,
                        key: None,
                        value,
                    })?;
                }
            }
        }
        // An empty `audio: {}` starts no spoken answer.
        if let Some(audio) = self.audio.as_ref().filter(|audio| {
            audio.id.is_some()
                || audio.data.is_some()
                || audio.transcript.is_some()
                || audio.expires_at.is_some()
        }) {
            sink.apply(Delta::Audio {
                choice,
                id: audio.id.as_ref().map(Text::as_str),
                data: audio.data.as_ref().map_or("", Text::as_str),
                transcript: audio.transcript.as_ref().map_or("", Text::as_str),
                expires_at: audio.expires_at,
            })?;
        }
        if let Some(raw) = self.images {
            images::decode(choice, raw, sink)?;
        }
        if let Some(refusal) = &self.refusal {
            sink.apply(Delta::Refusal {
                choice,
                text: refusal.as_str(),
            })?;
        }
        for call in self.tool_calls.iter().flatten() {
            if let Some(piece) = &call.custom {
                custom.piece(choice, call, piece, sink)?;
            } else {
                let function = call.function.as_ref();
                sink.apply(Delta::ToolCall(ToolCallDelta {
                    choice,
                    index: call.index,
                    id: call.id.as_ref().map(Text::as_str),
                    name: function.and_then(|f| f.name.as_ref()).map(Text::as_str),
                    arguments: function
                        .and_then(|f| f.arguments.as_ref())
                        .map_or("", |arguments| arguments.0.as_str()),
                }))?;
            }
            if let Some(raw) = call.extra_content.filter(|raw| raw.get() != "null") {
                extra_content::on_tool_call(choice, raw, sink)?;
            }
        }
        Ok(())
    }
}

/// The text of a `reasoning.text` or `reasoning.summary` detail.
fn detail_text(detail: &Value) -> Option<&str> {
    match detail.get("type")?.as_str()? {
        "reasoning.text" => detail.get("text")?.as_str(),
        "reasoning.summary" => detail.get("summary")?.as_str(),
        _ => None,
    }
}

fn decode_parts(choice: u32, parts: &[&RawValue], sink: &mut impl DeltaSink) -> Result<(), Error> {
    for raw in parts {
        let part: Part<'_> = match serde_json::from_str(raw.get()) {
            Ok(part) => part,
            Err(_) => {
                let value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
                sink.apply(Delta::NonStandard { choice, value })?;
                continue;
            }
        };
        match (
            part.kind.as_ref().map(Text::as_str),
            &part.text,
            &part.thinking,
        ) {
            (Some("text") | None, Some(text), _) => sink.apply(Delta::Text {
                choice,
                text: text.as_str(),
            })?,
            (Some("thinking"), _, Some(Content::Text(text))) => sink.apply(Delta::Reasoning {
                choice,
                text: text.as_str(),
            })?,
            (Some("thinking"), _, Some(Content::Parts(inner))) => {
                for raw in inner {
                    if let Ok(Part {
                        text: Some(text), ..
                    }) = serde_json::from_str::<Part<'_>>(raw.get())
                    {
                        sink.apply(Delta::Reasoning {
                            choice,
                            text: text.as_str(),
                        })?;
                    }
                }
            }
            _ => {
                let value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
                sink.apply(Delta::NonStandard { choice, value })?;
            }
        }
    }
    Ok(())
}
