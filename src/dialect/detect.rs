//! Telling dialects apart by their payloads: which dialect a stream speaks (from its first
//! payload), and whether a later payload belongs to another one.

use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::lenient::LenientText;
use super::text::Text;
use super::Dialect;
use crate::error::Error;
use crate::error::{snippet, ErrorKind};
use crate::framing::Frame;

/// Anthropic Messages event types (also its `event:` names).
const ANTHROPIC_TYPES: [&str; 7] = [
    "message_start",
    "message_delta",
    "message_stop",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "ping",
];

/// Cohere v2 chat event types (also its `event:` names).
const COHERE_TYPES: [&str; 12] = [
    "message-start",
    "content-start",
    "content-delta",
    "content-end",
    "tool-plan-delta",
    "tool-call-start",
    "tool-call-delta",
    "tool-call-end",
    "citation-start",
    "citation-end",
    "message-end",
    "debug",
];

/// Bedrock `ConverseStream` event names (also the keys the SDKs wrap each payload in).
const BEDROCK_EVENTS: [&str; 5] = [
    "messageStart",
    "contentBlockStart",
    "contentBlockDelta",
    "contentBlockStop",
    "messageStop",
];

/// The dialect of a stream, from its first payload; `None` when the payload is empty and the
/// next one must decide. (The stream decoder takes the same steps, leaving the keys of a chat
/// chunk to the chat decoder's own parse.)
#[cfg(test)]
pub(crate) fn detect(frame: &Frame<'_>, ndjson: bool) -> Option<Dialect> {
    Some(match first_look(frame)? {
        Look::Sure(dialect) => dialect,
        Look::ByKeys(data) => by_keys(data, ndjson),
    })
}

/// What the frame says of its dialect before its keys are read.
pub(crate) enum Look<'f> {
    Sure(Dialect),
    /// Only the payload's top-level keys can tell (`by_keys`, or the chat decoder's own parse
    /// through [`chat_keys_confirm`]).
    ByKeys(&'f str),
}

/// The dialect as far as the frame tells without reading the payload's keys; `None` when the
/// payload is empty and the next one must decide.
pub(crate) fn first_look<'f>(frame: &Frame<'f>) -> Option<Look<'f>> {
    if let Some(dialect) = frame.event.and_then(dialect_of_event) {
        return Some(Look::Sure(dialect));
    }
    let data = frame.data.trim_ascii();
    if data.is_empty() {
        return None;
    }
    if data == "[DONE]" {
        return Some(Look::Sure(Dialect::OpenAiChat));
    }
    if frame.event == Some("chunk") && data.starts_with(r#"{"bytes":"#) {
        // Bedrock's `InvokeModelWithResponseStream`.
        return Some(Look::Sure(Dialect::Bedrock));
    }
    Some(Look::ByKeys(data))
}

/// The dialect of a payload by its top-level keys.
pub(crate) fn by_keys(data: &str, ndjson: bool) -> Dialect {
    match dialect_of_payload(data) {
        Some(dialect) => dialect,
        None if ndjson => Dialect::Ollama,
        None => Dialect::OpenAiChat,
    }
}

/// Whether a payload with a top-level `choices` member, whose other keys unknown to a chat
/// chunk are `extra`, is one [`by_keys`] reads as OpenAI chat: the chat decoder's parse sees
/// every top-level key, so the first payload need not be read twice to tell.
pub(crate) fn chat_keys_confirm<'a>(extra: &[(Text<'a>, &'a RawValue)]) -> bool {
    let mut probe = Probe {
        choices: true,
        ..Probe::default()
    };
    for (key, value) in extra {
        probe.see(key.as_str(), || serde_json::from_str(value.get()).ok());
    }
    probe.dialect() == Some(Dialect::OpenAiChat)
}

/// The dialect an `event:` name belongs to, if it is one only a single dialect uses.
pub(crate) fn dialect_of_event(event: &str) -> Option<Dialect> {
    if ANTHROPIC_TYPES.contains(&event) {
        Some(Dialect::Anthropic)
    } else if event.starts_with("response.") {
        Some(Dialect::OpenAiResponses)
    } else if COHERE_TYPES.contains(&event) {
        Some(Dialect::Cohere)
    } else if BEDROCK_EVENTS.contains(&event) || event.ends_with("Exception") {
        Some(Dialect::Bedrock)
    } else {
        None
    }
}

/// The dialect a JSON payload plainly belongs to, if any.
pub(crate) fn dialect_of_payload(data: &str) -> Option<Dialect> {
    let mut deserializer = serde_json::Deserializer::from_str(data);
    deserializer.deserialize_map(ProbeVisitor).ok()?.dialect()
}

/// A mismatch error when `data` plainly belongs to a dialect other than `expected`.
pub(crate) fn foreign_payload(expected: Dialect, frame: &Frame<'_>) -> Option<Error> {
    let other = frame
        .event
        .and_then(dialect_of_event)
        .or_else(|| dialect_of_payload(frame.data))?;
    (other != expected).then(|| mismatch(expected, other, frame.data))
}

/// Whether top-level keys a chat-completion chunk did not know mark it as another dialect's
/// payload; only asked of chunks without choices, so the hot path never pays for it.
pub(crate) fn foreign_chat_keys<'a>(extra: &[(Text<'a>, &'a RawValue)]) -> Option<Dialect> {
    let mut probe = Probe::default();
    for (key, value) in extra {
        probe.see(key.as_str(), || serde_json::from_str(value.get()).ok());
    }
    if probe.kind.as_deref() == Some("error") {
        // `{"type": "error", "error": …}` is an error in any dialect: the chunk's own error
        // handling reports it.
        return None;
    }
    probe
        .dialect()
        .filter(|&dialect| dialect != Dialect::OpenAiChat)
}

/// The error for a payload of `other` in a stream read as `expected`.
pub(crate) fn mismatch(expected: Dialect, other: Dialect, data: &str) -> Error {
    Error::new(
        ErrorKind::Malformed,
        format!(
            "a payload of the {} dialect in a stream read as {} ({}); if the stream is {}, \
             choose that dialect",
            other.description(),
            expected.description(),
            snippet(data),
            other.name(),
        ),
    )
}

/// What the top-level keys of a payload say about its dialect.
#[derive(Default)]
struct Probe {
    kind: Option<String>,
    choices: bool,
    chat_object: bool,
    /// `"object": "response"`: a whole (non-streamed) Responses body.
    response_object: bool,
    gemini: bool,
    done: bool,
    message: bool,
    created_at: bool,
    sequence_number: bool,
    bedrock: bool,
}

impl Probe {
    fn see(&mut self, key: &str, text: impl FnOnce() -> Option<String>) {
        match key {
            "type" => self.kind = text(),
            "object" => {
                let object = text();
                let object = object.as_deref().unwrap_or_default();
                self.chat_object = object.starts_with("chat.completion");
                self.response_object = object == "response";
            }
            "choices" => self.choices = true,
            "candidates" | "usageMetadata" | "promptFeedback" | "modelVersion" => {
                self.gemini = true
            }
            "done" => self.done = true,
            "message" => self.message = true,
            "created_at" => self.created_at = true,
            "sequence_number" => self.sequence_number = true,
            key if BEDROCK_EVENTS.contains(&key) => self.bedrock = true,
            _ => {}
        }
    }

    fn dialect(&self) -> Option<Dialect> {
        if let Some(kind) = &self.kind {
            if ANTHROPIC_TYPES.contains(&kind.as_str()) {
                return Some(Dialect::Anthropic);
            }
            if kind.starts_with("response.") {
                return Some(Dialect::OpenAiResponses);
            }
            if COHERE_TYPES.contains(&kind.as_str()) {
                return Some(Dialect::Cohere);
            }
            // A whole (non-streamed) Messages body.
            if kind == "message" {
                return Some(Dialect::Anthropic);
            }
            if kind == "error" {
                return Some(if self.sequence_number {
                    Dialect::OpenAiResponses
                } else {
                    Dialect::Anthropic
                });
            }
        }
        if self.bedrock {
            return Some(Dialect::Bedrock);
        }
        if self.choices || self.chat_object {
            Some(Dialect::OpenAiChat)
        } else if self.response_object {
            Some(Dialect::OpenAiResponses)
        } else if self.gemini {
            Some(Dialect::Gemini)
        } else if self.done || (self.message && self.created_at) {
            Some(Dialect::Ollama)
        } else {
            None
        }
    }
}

struct ProbeVisitor;

impl<'de> Visitor<'de> for ProbeVisitor {
    type Value = Probe;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Probe, M::Error> {
        let mut probe = Probe::default();
        while let Some(key) = map.next_key::<Text<'de>>()? {
            match key.as_str() {
                "type" | "object" => {
                    let value: LenientText<'de> = map.next_value()?;
                    probe.see(key.as_str(), || value.as_str().map(str::to_owned));
                }
                other => {
                    map.next_value::<IgnoredAny>()?;
                    probe.see(other, || None);
                }
            }
        }
        Ok(probe)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::test_support::{frame, Recorded};
    use crate::dialect::StreamDecoder;

    /// First payloads (event name, data, NDJSON?) and the dialect each names.
    fn first_payloads() -> Vec<(Option<&'static str>, &'static str, bool, Dialect)> {
        vec![
            (
                None,
                r#"{"id":"c","choices":[]}"#,
                false,
                Dialect::OpenAiChat,
            ),
            (None, "[DONE]", false, Dialect::OpenAiChat),
            (Some("message_start"), "{}", false, Dialect::Anthropic),
            // Whole (non-streamed) bodies on one NDJSON line: not Ollama's.
            (
                None,
                r#"{"id":"msg_1","type":"message","role":"assistant","content":[]}"#,
                true,
                Dialect::Anthropic,
            ),
            (
                None,
                r#"{"id":"resp_1","object":"response","created_at":1,"output":[]}"#,
                true,
                Dialect::OpenAiResponses,
            ),
            (
                None,
                r#"{"type":"message_start","message":{}}"#,
                false,
                Dialect::Anthropic,
            ),
            (
                None,
                r#"{"type":"error","error":{}}"#,
                false,
                Dialect::Anthropic,
            ),
            (
                Some("response.created"),
                "{}",
                false,
                Dialect::OpenAiResponses,
            ),
            (
                None,
                r#"{"type":"response.created","response":{}}"#,
                false,
                Dialect::OpenAiResponses,
            ),
            (
                None,
                r#"{"type":"error","sequence_number":2}"#,
                false,
                Dialect::OpenAiResponses,
            ),
            (
                None,
                r#"{"candidates":[{"content":{}}]}"#,
                false,
                Dialect::Gemini,
            ),
            (None, r#"{"usageMetadata":{}}"#, false, Dialect::Gemini),
            (
                None,
                r#"{"model":"m","created_at":"t","message":{}}"#,
                true,
                Dialect::Ollama,
            ),
            (None, r#"{"error":"boom"}"#, true, Dialect::Ollama),
            (
                None,
                r#"{"error":{"message":"boom"}}"#,
                false,
                Dialect::OpenAiChat,
            ),
            (None, "not json", false, Dialect::OpenAiChat),
            (
                Some("messageStart"),
                r#"{"role":"assistant"}"#,
                false,
                Dialect::Bedrock,
            ),
            (Some("throttlingException"), "", false, Dialect::Bedrock),
            (
                Some("chunk"),
                r#"{"bytes":"e30="}"#,
                false,
                Dialect::Bedrock,
            ),
            (
                None,
                r#"{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"text":"Hi"}}}"#,
                true,
                Dialect::Bedrock,
            ),
            (
                Some("message-start"),
                r#"{"id":"x"}"#,
                false,
                Dialect::Cohere,
            ),
            (
                None,
                r#"{"type":"content-delta","index":0}"#,
                false,
                Dialect::Cohere,
            ),
            // Payloads with `"choices"`, which the chat decoder's parse confirms or refuses.
            (
                None,
                r#"{"type":"message_start","choices":[]}"#,
                false,
                Dialect::Anthropic,
            ),
            (
                None,
                r#"{"choices":[],"type":"error","sequence_number":1}"#,
                false,
                Dialect::OpenAiResponses,
            ),
            (
                None,
                r#"{"choices":[],"contentBlockDelta":{}}"#,
                true,
                Dialect::Bedrock,
            ),
            (
                None,
                r#"{"choices":[],"candidates":[]}"#,
                false,
                Dialect::OpenAiChat,
            ),
            (
                None,
                r#"{"choices":5,"candidates":[]}"#,
                true,
                Dialect::OpenAiChat,
            ),
            (
                None,
                r#"{"x":{"choices":[]},"done":true}"#,
                true,
                Dialect::Ollama,
            ),
            (
                None,
                r#"{"x":{"choices":[]},"candidates":[]}"#,
                false,
                Dialect::Gemini,
            ),
            (None, r#"{"choices": "#, false, Dialect::OpenAiChat),
        ]
    }

    #[test]
    fn first_payloads_name_their_dialect() {
        for (event, data, ndjson, dialect) in first_payloads() {
            assert_eq!(detect(&frame(event, data), ndjson), Some(dialect), "{data}");
        }
        assert_eq!(detect(&frame(None, "  "), false), None);
    }

    #[test]
    fn the_stream_decoder_detects_as_the_keys_say_without_probing_a_chat_chunk() {
        for (event, data, ndjson, dialect) in first_payloads() {
            let frame = frame(event, data);
            let mut decoder = StreamDecoder::new(None, false);
            decoder.detect(&frame, ndjson);
            let mut sink = Recorded::default();
            let decoded = decoder.decode(&frame, &mut sink);
            assert_eq!(decoder.dialect(), Some(dialect), "{data}");
            let mut probed = StreamDecoder::new(Some(dialect), false);
            let mut expected = Recorded::default();
            let wanted = probed.decode(&frame, &mut expected);
            assert_eq!(decoded.is_ok(), wanted.is_ok(), "{data}");
            assert_eq!(format!("{sink:?}"), format!("{expected:?}"), "{data}");
        }
    }

    #[test]
    fn a_foreign_payload_names_both_dialects() {
        let anthropic = frame(None, r#"{"type":"content_block_delta","index":0}"#);
        let error = foreign_payload(Dialect::OpenAiResponses, &anthropic).unwrap();
        assert!(error.is_malformed());
        assert!(
            error
                .to_string()
                .contains("Anthropic Messages dialect in a stream read as OpenAI Responses"),
            "{error}"
        );
        assert!(foreign_payload(Dialect::Anthropic, &anthropic).is_none());
        assert!(foreign_payload(Dialect::Anthropic, &frame(None, r#"{"x":1}"#)).is_none());
    }
}
