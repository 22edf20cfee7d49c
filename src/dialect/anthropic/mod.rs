//! Anthropic Messages: `message_start`, `content_block_start/delta/stop`, `message_delta`,
//! `message_stop`, `ping` and `error` events, each naming its type in the JSON too.
//!
//! Content blocks are keyed by their `index`: each becomes a block of the message, in order.
//! Thinking keeps its signature (which `signature_delta` replaces, never appends) and redacted
//! thinking its opaque data, so the message can be sent back; citations become annotations on
//! their text block. A tool call is final at its block's `content_block_stop`. Server-side tool
//! blocks (`server_tool_use`, `web_search_tool_result`, …) are kept whole as non-standard
//! blocks: they are not calls for the app to run.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::cursor::Cursor;
use super::detect;
use super::lenient::LenientText;
use super::text::Text;
use super::Dialect;
use crate::delta::{BlockKey, Delta, DeltaSink, MetadataDelta, TextKind, ToolCallDelta};
use crate::delta::{RawUsage, UsageReport};
use crate::error::{snippet, ErrorKind, ProviderError};
use crate::framing::Frame;
use crate::Error;

/// Anthropic sends one message per stream.
const CHOICE: u32 = 0;

/// What the dialect remembers between events.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    /// The latest input counts, which `message_delta` may repeat only in part.
    input: InputCounts,
    /// Blocks kept whole until their stop, by index.
    opaque: Vec<OpaqueBlock>,
    /// Tool inputs that `content_block_start` carried, used if no `input_json_delta` follows.
    start_inputs: Vec<(u32, String)>,
    /// Reused for the decoded text of a [`common_delta`] whose string has escapes.
    scratch: String,
}

#[derive(Debug, Default, Clone, Copy)]
struct InputCounts {
    input: Option<u64>,
    cache_read: Option<u64>,
    cache_creation: Option<u64>,
}

#[derive(Debug)]
struct OpaqueBlock {
    index: u32,
    block: Map<String, Value>,
    input_json: String,
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Text<'a>,
    #[serde(default)]
    index: Option<u32>,
    #[serde(borrow, default)]
    message: Option<MessageStart<'a>>,
    #[serde(borrow, default)]
    content_block: Option<&'a RawValue>,
    #[serde(borrow, default)]
    delta: Option<EventDelta<'a>>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct MessageStart<'a> {
    #[serde(borrow, default)]
    id: LenientText<'a>,
    #[serde(borrow, default)]
    model: LenientText<'a>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
    #[serde(borrow, default)]
    stop_reason: LenientText<'a>,
}

#[derive(Deserialize, Default)]
struct EventDelta<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: LenientText<'a>,
    #[serde(borrow, default)]
    text: LenientText<'a>,
    #[serde(borrow, default)]
    thinking: LenientText<'a>,
    #[serde(borrow, default)]
    signature: LenientText<'a>,
    #[serde(borrow, default)]
    partial_json: LenientText<'a>,
    #[serde(borrow, default)]
    citation: Option<&'a RawValue>,
    #[serde(borrow, default)]
    stop_reason: LenientText<'a>,
    #[serde(borrow, default)]
    stop_sequence: Option<&'a RawValue>,
    #[serde(borrow, default)]
    stop_details: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct BlockStart<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: LenientText<'a>,
    #[serde(borrow, default)]
    id: LenientText<'a>,
    #[serde(borrow, default)]
    name: LenientText<'a>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    text: LenientText<'a>,
    #[serde(borrow, default)]
    thinking: LenientText<'a>,
    #[serde(borrow, default)]
    signature: LenientText<'a>,
    #[serde(borrow, default)]
    data: LenientText<'a>,
    #[serde(default)]
    citations: Option<Vec<Value>>,
}

/// Content blocks are keyed by their `index` alone.
fn block_key(index: u32) -> BlockKey {
    BlockKey {
        item: index,
        part: 0,
    }
}

/// The delta types [`common_delta`] reads, each with its one field.
const COMMON_DELTAS: [(&str, &str); 3] = [
    ("text_delta", "text"),
    ("input_json_delta", "partial_json"),
    ("thinking_delta", "thinking"),
];

/// The `content_block_delta` events that make up nearly all of a stream, in the exact shape
/// Anthropic sends them (`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta",
/// "text":"…"}}`, with or without spaces before the closing braces), read without serde: their
/// block index and the delta the general parse would have produced. `None` for anything else,
/// which the general parse then reads (or reports).
fn common_delta<'a>(data: &'a str, scratch: &'a mut String) -> Option<(u32, EventDelta<'a>)> {
    let mut cursor = Cursor::new(data);
    if !cursor.eat(r#"{"type":"content_block_delta","index":"#) {
        return None;
    }
    let index = u32::try_from(cursor.count()?).ok()?;
    if !cursor.eat(r#","delta":{"type":""#) {
        return None;
    }
    let (kind, field) = COMMON_DELTAS
        .into_iter()
        .find(|(kind, _)| cursor.eat(kind))?;
    if !(cursor.eat(r#"",""#) && cursor.eat(field) && cursor.eat(r#"":"#)) {
        return None;
    }
    let text = cursor.string(scratch)?;
    for _ in 0..2 {
        cursor.skip_whitespace();
        if !cursor.eat("}") {
            return None;
        }
    }
    if !cursor.at_end() {
        return None;
    }
    let scratch: &'a String = scratch;
    let text = LenientText(Some(Text(text.resolve(scratch).into())));
    let mut delta = EventDelta {
        kind: LenientText(Some(Text(kind.into()))),
        ..EventDelta::default()
    };
    match field {
        "text" => delta.text = text,
        "partial_json" => delta.partial_json = text,
        _ => delta.thinking = text,
    }
    Some((index, delta))
}

impl Decoder {
    /// Decodes one payload (`data`: trimmed, not empty).
    pub(crate) fn decode(
        &mut self,
        frame: &Frame<'_>,
        data: &str,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let mut scratch = std::mem::take(&mut self.scratch);
        let common = common_delta(data, &mut scratch)
            .map(|(index, delta)| self.block_delta(index, block_key(index), delta, sink));
        self.scratch = scratch;
        if let Some(decoded) = common {
            return decoded;
        }
        let event: Event<'_> = match serde_json::from_str(data) {
            Ok(event) => event,
            Err(error) => {
                if let Some(mismatch) = detect::foreign_payload(Dialect::Anthropic, frame) {
                    return Err(mismatch);
                }
                return Err(super::malformed_payload(error, data));
            }
        };
        let index = event.index.unwrap_or(0);
        let key = block_key(index);
        match event.kind.as_str() {
            "message_start" => self.message_start(event.message, sink),
            "content_block_start" => match event.content_block {
                Some(block) => self.block_start(index, key, block, sink),
                None => Ok(()),
            },
            "content_block_delta" => match event.delta {
                Some(delta) => self.block_delta(index, key, delta, sink),
                None => Ok(()),
            },
            "content_block_stop" => self.block_stop(index, sink),
            "message_delta" => self.message_delta(event.delta, event.usage, sink),
            "message_stop" => sink.apply(Delta::Done),
            "error" => {
                let value = serde_json::from_str(data).unwrap_or(Value::Null);
                sink.apply(Delta::Error(ProviderError::from_value(value)))
            }
            // `ping`, and event types newer than this decoder.
            _ => match detect::foreign_payload(Dialect::Anthropic, frame) {
                Some(mismatch) => Err(mismatch),
                None => Ok(()),
            },
        }
    }

    fn message_start(
        &mut self,
        message: Option<MessageStart<'_>>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let Some(message) = message else {
            return sink.apply(Delta::Choice { choice: CHOICE });
        };
        let usage = message.usage.and_then(|raw| self.usage(raw));
        sink.apply(Delta::Metadata(MetadataDelta {
            id: message.id.as_str(),
            model: message.model.as_str(),
            service_tier: usage
                .as_ref()
                .and_then(|usage| usage.raw.as_ref()?.text("service_tier")),
            ..MetadataDelta::default()
        }))?;
        sink.apply(Delta::Choice { choice: CHOICE })?;
        if let Some(usage) = usage {
            sink.apply(Delta::Usage(usage))?;
        }
        if let Some(reason) = message.stop_reason.as_str() {
            sink.apply(Delta::Finish {
                choice: CHOICE,
                reason,
            })?;
        }
        Ok(())
    }

    fn block_start(
        &mut self,
        index: u32,
        key: BlockKey,
        raw: &RawValue,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let block: BlockStart<'_> = serde_json::from_str(raw.get()).map_err(|error| {
            Error::new(
                ErrorKind::Malformed,
                format!("{error} in content block {}", snippet(raw.get())),
            )
        })?;
        let choice = CHOICE;
        match block.kind.as_str().unwrap_or_default() {
            "text" => {
                if let Some(text) = block.text.as_str() {
                    sink.apply(Delta::BlockText {
                        choice,
                        key,
                        kind: TextKind::Text,
                        text,
                    })?;
                }
                for citation in block.citations.into_iter().flatten() {
                    sink.apply(Delta::Annotation {
                        choice,
                        key: Some(key),
                        value: citation,
                    })?;
                }
                Ok(())
            }
            "thinking" => {
                if let Some(text) = block.thinking.as_str() {
                    sink.apply(Delta::BlockText {
                        choice,
                        key,
                        kind: TextKind::Reasoning,
                        text,
                    })?;
                }
                if let Some(signature) = block.signature.as_str() {
                    sink.apply(Delta::ReasoningSignature {
                        choice,
                        key: Some(key),
                        signature,
                    })?;
                }
                Ok(())
            }
            "redacted_thinking" => match block.data.as_str() {
                Some(data) => sink.apply(Delta::ReasoningData {
                    choice,
                    key: Some(key),
                    data,
                }),
                None => Ok(()),
            },
            "tool_use" => {
                if let Some(input) = block.input.map(RawValue::get) {
                    let trimmed = input.trim();
                    if trimmed != "{}" && trimmed != "null" && !trimmed.is_empty() {
                        self.start_inputs.push((index, trimmed.to_owned()));
                    }
                }
                sink.apply(Delta::ToolCall(ToolCallDelta {
                    choice,
                    index: Some(index),
                    id: block.id.as_str(),
                    name: block.name.as_str(),
                    arguments: "",
                }))
            }
            _ => {
                if let Ok(Value::Object(block)) = serde_json::from_str(raw.get()) {
                    self.opaque.retain(|opaque| opaque.index != index);
                    self.opaque.push(OpaqueBlock {
                        index,
                        block,
                        input_json: String::new(),
                    });
                }
                Ok(())
            }
        }
    }

    fn block_delta(
        &mut self,
        index: u32,
        key: BlockKey,
        delta: EventDelta<'_>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let choice = CHOICE;
        match delta.kind.as_str().unwrap_or_default() {
            "text_delta" => match delta.text.as_str() {
                Some(text) => sink.apply(Delta::BlockText {
                    choice,
                    key,
                    kind: TextKind::Text,
                    text,
                }),
                None => Ok(()),
            },
            "thinking_delta" => match delta.thinking.as_str() {
                Some(text) => sink.apply(Delta::BlockText {
                    choice,
                    key,
                    kind: TextKind::Reasoning,
                    text,
                }),
                None => Ok(()),
            },
            "signature_delta" => match delta.signature.as_str() {
                Some(signature) => sink.apply(Delta::ReasoningSignature {
                    choice,
                    key: Some(key),
                    signature,
                }),
                None => Ok(()),
            },
            "input_json_delta" => {
                let fragment = delta.partial_json.as_str().unwrap_or_default();
                if let Some(opaque) = self.opaque.iter_mut().find(|o| o.index == index) {
                    opaque.input_json.push_str(fragment);
                    return Ok(());
                }
                self.start_inputs.retain(|(start, _)| *start != index);
                sink.apply(Delta::ToolCall(ToolCallDelta {
                    choice,
                    index: Some(index),
                    id: None,
                    name: None,
                    arguments: fragment,
                }))
            }
            "citations_delta" => match delta.citation {
                Some(citation) => match serde_json::from_str(citation.get()) {
                    Ok(value) => sink.apply(Delta::Annotation {
                        choice,
                        key: Some(key),
                        value,
                    }),
                    Err(_) => Ok(()),
                },
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }

    fn block_stop(&mut self, index: u32, sink: &mut impl DeltaSink) -> Result<(), Error> {
        if let Some(position) = self.opaque.iter().position(|o| o.index == index) {
            let OpaqueBlock {
                mut block,
                input_json,
                ..
            } = self.opaque.remove(position);
            if !input_json.trim().is_empty() {
                let input = serde_json::from_str(&input_json).unwrap_or(Value::String(input_json));
                block.insert("input".to_owned(), input);
            }
            return sink.apply(Delta::NonStandard {
                choice: CHOICE,
                value: Value::Object(block),
            });
        }
        let start_input = self
            .start_inputs
            .iter()
            .position(|(start, _)| *start == index)
            .map(|position| self.start_inputs.remove(position).1);
        sink.apply(Delta::ToolCallEnd {
            choice: CHOICE,
            index,
            arguments: start_input.as_deref(),
        })
    }

    fn message_delta(
        &mut self,
        delta: Option<EventDelta<'_>>,
        usage: Option<&RawValue>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        if let Some(usage) = usage.and_then(|raw| self.usage(raw)) {
            sink.apply(Delta::Usage(usage))?;
        }
        let Some(delta) = delta else {
            return Ok(());
        };
        for (key, value) in [
            ("stop_sequence", delta.stop_sequence),
            ("stop_details", delta.stop_details),
        ] {
            if let Some(value) = value {
                sink.apply(Delta::Extra {
                    choice: None,
                    key,
                    value,
                })?;
            }
        }
        match delta.stop_reason.as_str() {
            Some(reason) => sink.apply(Delta::Finish {
                choice: CHOICE,
                reason,
            }),
            None => Ok(()),
        }
    }

    /// Maps a usage object: `input_tokens` counts cached tokens too (input + cache reads +
    /// cache writes), as LangChain and the Anthropic SDK's totals do.
    fn usage(&mut self, raw: &RawValue) -> Option<UsageReport<'static>> {
        let usage = super::text::tolerant_object(raw.get())?;
        let count = |key: &str| usage.get(key).and_then(Value::as_u64);
        let counts = &mut self.input;
        for (field, value) in [
            (&mut counts.input, count("input_tokens")),
            (&mut counts.cache_read, count("cache_read_input_tokens")),
            (
                &mut counts.cache_creation,
                count("cache_creation_input_tokens"),
            ),
        ] {
            if value.is_some() {
                *field = value;
            }
        }
        let input_tokens = match (counts.input, counts.cache_read, counts.cache_creation) {
            (None, None, None) => None,
            (input, read, creation) => Some(
                input
                    .unwrap_or(0)
                    .saturating_add(read.unwrap_or(0))
                    .saturating_add(creation.unwrap_or(0)),
            ),
        };
        let reasoning = usage
            .get("output_tokens_details")
            .and_then(|details| details.get("thinking_tokens"))
            .and_then(Value::as_u64);
        Some(UsageReport {
            input_tokens,
            output_tokens: count("output_tokens"),
            total_tokens: None,
            input_audio: None,
            cache_read: counts.cache_read,
            cache_creation: counts.cache_creation,
            output_audio: None,
            reasoning,
            raw: Some(RawUsage::Object(usage)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index and the delta's fields, as a comparable tuple.
    fn fields(index: Option<u32>, delta: &EventDelta<'_>) -> [Option<String>; 5] {
        [
            index.map(|index| index.to_string()),
            delta.kind.as_str().map(str::to_owned),
            delta.text.as_str().map(str::to_owned),
            delta.thinking.as_str().map(str::to_owned),
            delta.partial_json.as_str().map(str::to_owned),
        ]
    }

    #[test]
    fn common_deltas_read_as_the_general_parse_reads_them() {
        let payloads = [
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#,
            r#"{"type":"content_block_delta","index":7,"delta":{"type":"text_delta","text":"a \"b\" \\ \n \u00e9 \ud83d\ude00"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"q\": ["}   }"#,
            r#"{"type":"content_block_delta","index":4294967295,"delta":{"type":"thinking_delta","thinking":""}  } "#,
        ];
        for payload in payloads {
            let mut scratch = String::new();
            let (index, fast) = common_delta(payload, &mut scratch).expect(payload);
            let general: Event<'_> = serde_json::from_str(payload).unwrap();
            assert_eq!(general.kind.as_str(), "content_block_delta");
            assert_eq!(
                fields(Some(index), &fast),
                fields(general.index, &general.delta.unwrap()),
                "{payload}"
            );
        }
    }

    #[test]
    fn other_payloads_are_left_to_the_general_parse() {
        let payloads = [
            // Other spacing or member order.
            r#"{ "type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#,
            r#"{"type":"content_block_delta","delta":{"type":"text_delta","text":"Hi"},"index":0}"#,
            // Other delta types, or more members.
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi","x":1}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"},"x":1}"#,
            // What the general parse refuses.
            r#"{"type":"content_block_delta","index":4294967296,"delta":{"type":"text_delta","text":"Hi"}}"#,
            r#"{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"Hi"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\ud83d"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}"#,
        ];
        for payload in payloads {
            assert!(
                common_delta(payload, &mut String::new()).is_none(),
                "{payload}"
            );
        }
    }
}
