//! The serde form of [`AiMessage`]: LangChain's `AIMessage` dict, with `content_blocks` for a
//! lossless round trip and LangChain's own fields (`content`, `tool_calls`, `additional_kwargs`…)
//! for Python, which loads it with `AIMessage.model_validate`.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::reasoning_items::{items_continued, BlocksOut};
use crate::message::{
    AiMessage, ContentBlock, InvalidToolCall, MediaBlock, MediaSource, ProviderUsage,
    ResponseMetadata, ToolCall, UsageMetadata,
};

/// LangChain's `AIMessage` dict, as read.
#[derive(Deserialize)]
struct LangChainAiMessage {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    content: Value,
    #[serde(default)]
    additional_kwargs: Map<String, Value>,
    #[serde(default)]
    response_metadata: ResponseMetadata,
    #[serde(default)]
    tool_calls: Vec<LangChainToolCall>,
    #[serde(default)]
    invalid_tool_calls: Vec<LangChainInvalidToolCall>,
    #[serde(default)]
    usage_metadata: Option<UsageMetadata>,
    #[serde(default)]
    content_blocks: Option<Vec<ContentBlock>>,
}

/// [`LangChainAiMessage`] as written: the message's own parts borrowed, not copied, so that
/// writing a large message holds little beyond it.
#[derive(Serialize)]
struct LangChainAiMessageOut<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    id: &'a Option<String>,
    name: &'a Option<String>,
    content: String,
    additional_kwargs: Map<String, Value>,
    response_metadata: MetadataOut<'a>,
    tool_calls: ToolCallsOut<'a>,
    invalid_tool_calls: InvalidToolCallsOut<'a>,
    usage_metadata: Option<UsageMetadata>,
    content_blocks: BlocksOut<'a>,
}

/// `response_metadata` as written: the message's own, borrowed, and beside it the members
/// LangChain reads there that the message holds elsewhere — the provider's raw usage written
/// from its text (a large usage object is neither copied nor built into a tree of values).
#[derive(Serialize)]
struct MetadataOut<'a> {
    #[serde(flatten)]
    metadata: Cow<'a, ResponseMetadata>,
    /// [`OUTPUT_VERSION_KEY`].
    output_version: &'static str,
    /// [`FINISH_KIND_KEY`], in [`AiMessageDict`] only.
    #[serde(skip_serializing_if = "Option::is_none")]
    finish_kind: Option<&'static str>,
    /// [`RAW_USAGE_KEY`].
    #[serde(skip_serializing_if = "Option::is_none")]
    token_usage: Option<&'a ProviderUsage>,
}

impl<'a> MetadataOut<'a> {
    fn new(message: &'a AiMessage, finish_kind: Option<&'static str>) -> Self {
        let token_usage = message.usage.as_ref().and_then(|usage| usage.raw.as_ref());
        // A message read from a dict may hold these keys among its extras: written once.
        let written = [OUTPUT_VERSION_KEY, FINISH_KIND_KEY, RAW_USAGE_KEY];
        let extra = &message.response_metadata.extra;
        let metadata = if written.iter().any(|key| extra.contains_key(*key)) {
            let mut metadata = message.response_metadata.clone();
            metadata
                .extra
                .retain(|key, _| !written.contains(&key.as_str()));
            Cow::Owned(metadata)
        } else {
            Cow::Borrowed(&message.response_metadata)
        };
        MetadataOut {
            metadata,
            output_version: "v1",
            finish_kind,
            token_usage,
        }
    }
}

/// LangChain's `AIMessage` dict with the provider-neutral finish kind in its metadata
/// (`response_metadata.finish_kind`); see [`ai_message_out`](super::ai_message_out).
pub struct AiMessageDict<'a>(pub(super) &'a AiMessage);

impl Serialize for AiMessageDict<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let kind = self.0.finish_kind().map(|kind| kind.as_str());
        write_dict(self.0, kind, serializer)
    }
}

/// The message's tool calls in LangChain's form, written one by one as they are met.
struct ToolCallsOut<'a>(&'a AiMessage);

impl Serialize for ToolCallsOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.tool_calls().map(|call| LangChainToolCallOut {
            name: &call.name,
            args: &call.args,
            id: Some(&call.id),
            kind: "tool_call",
        }))
    }
}

/// The message's invalid tool calls in LangChain's form, written one by one as they are met.
struct InvalidToolCallsOut<'a>(&'a AiMessage);

impl Serialize for InvalidToolCallsOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.invalid_tool_calls().map(|call| {
            LangChainInvalidToolCallOut {
                name: Some(&call.name),
                args: Some(&call.args),
                id: Some(&call.id),
                error: Some(&call.error),
                kind: "invalid_tool_call",
            }
        }))
    }
}

#[derive(Serialize)]
struct LangChainToolCallOut<'a> {
    name: &'a str,
    args: &'a Map<String, Value>,
    id: Option<&'a str>,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct LangChainInvalidToolCallOut<'a> {
    name: Option<&'a str>,
    args: Option<&'a str>,
    id: Option<&'a str>,
    error: Option<&'a str>,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Deserialize)]
struct LangChainToolCall {
    name: String,
    #[serde(default)]
    args: Map<String, Value>,
    #[serde(default)]
    id: Option<String>,
}

#[derive(Deserialize)]
struct LangChainInvalidToolCall {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    args: Option<String>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

/// Where LangChain reads which shape `content` has: `"v1"` says it holds LangChain 1.0's standard
/// blocks, which `AIMessage.content_blocks` then shows as they are. Without it LangChain runs
/// the `model_provider`'s translator over them, which expects the provider's own blocks and
/// turns standard ones (`reasoning`, `server_tool_call`…) into `non_standard` wrappers.
const OUTPUT_VERSION_KEY: &str = "output_version";

/// Where LangChain's OpenAI integration keeps the provider's raw usage.
const RAW_USAGE_KEY: &str = "token_usage";

/// Where the dict of an assembled answer keeps its [`FinishKind`](crate::message::FinishKind).
const FINISH_KIND_KEY: &str = "finish_kind";

/// Where langchain-google-genai keeps the `thoughtSignature` of each function call, by tool-call
/// id (`additional_kwargs`), which it sends back with the calls of the next request.
const GEMINI_SIGNATURES_KEY: &str = "__gemini_function_call_thought_signatures__";

/// Where langchain-openai keeps the Responses output item id (`fc_…`) of each function call, by
/// tool-call id (`additional_kwargs`), which it sends back with the calls of the next request.
const OPENAI_CALL_IDS_KEY: &str = "__openai_function_call_ids__";

/// The `extras` of each tool call kept in `additional_kwargs` by tool-call id, under the key
/// LangChain's integrations use for it.
const CALL_EXTRAS_IN_KWARGS: [(&str, &str); 2] = [
    (GEMINI_SIGNATURES_KEY, ToolCall::SIGNATURE),
    (OPENAI_CALL_IDS_KEY, ToolCall::ITEM_ID),
];

/// Where langchain-openai keeps a chat completion's spoken answer (`{id, data, expires_at,
/// transcript}`, OpenAI's `ChatCompletionAudio`); it sends the `id` back in the next request.
const AUDIO_KEY: &str = "audio";

/// An audio block that came as a chat completion's spoken answer (it has an id or a transcript)
/// in langchain-openai's `additional_kwargs.audio` shape.
fn spoken_answer(block: &ContentBlock) -> Option<Value> {
    let ContentBlock::Audio(media) = block else {
        return None;
    };
    if media.id.is_none() && !media.extras.contains_key("transcript") {
        return None;
    }
    let mut audio = Map::new();
    if let Some(id) = &media.id {
        audio.insert("id".into(), id.clone().into());
    }
    if let MediaSource::Base64(data) = &media.source {
        audio.insert("data".into(), data.clone().into());
    }
    for key in ["expires_at", "transcript"] {
        if let Some(value) = media.extras.get(key) {
            audio.insert(key.into(), value.clone());
        }
    }
    Some(Value::Object(audio))
}

/// The audio block of a dict langchain-openai wrote (`additional_kwargs.audio`).
fn audio_block(audio: Value) -> Option<ContentBlock> {
    let Value::Object(mut audio) = audio else {
        return None;
    };
    let data = match audio.remove("data") {
        Some(Value::String(data)) => data,
        _ => String::new(),
    };
    let mut media = MediaBlock::from_source(MediaSource::Base64(data));
    if let Some(Value::String(id)) = audio.remove("id") {
        media.id = Some(id);
    }
    media.extras = audio;
    Some(ContentBlock::Audio(media))
}

impl Serialize for AiMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        write_dict(self, None, serializer)
    }
}

/// Writes `message` as LangChain's `AIMessage` dict, with `finish_kind` in its metadata if given.
fn write_dict<S: Serializer>(
    message: &AiMessage,
    finish_kind: Option<&'static str>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut additional_kwargs = message.extra.clone();
    if message
        .content
        .iter()
        .any(|b| matches!(b, ContentBlock::Reasoning { .. }))
    {
        additional_kwargs.insert("reasoning_content".into(), message.reasoning().into());
    }
    if let Some(refusal) = message.refusal() {
        additional_kwargs.insert("refusal".into(), refusal.into());
    }
    for (kwarg, extra) in CALL_EXTRAS_IN_KWARGS {
        let by_call: Map<String, Value> = message
            .tool_calls()
            .filter_map(|call| Some((call.id.clone(), call.extras.get(extra)?.clone())))
            .collect();
        if !by_call.is_empty() {
            additional_kwargs.insert(kwarg.into(), Value::Object(by_call));
        }
    }
    if let Some(audio) = message.content.iter().find_map(spoken_answer) {
        additional_kwargs.insert(AUDIO_KEY.into(), audio);
    }
    // `content_blocks`, which `AIMessage` takes as its content, holds standard blocks
    // (`output_version`); the raw usage goes in the metadata, the counts in
    // `usage_metadata`.
    let response_metadata = MetadataOut::new(message, finish_kind);
    let usage_metadata = message.usage.as_ref().map(UsageMetadata::counts);
    LangChainAiMessageOut {
        kind: "ai",
        id: &message.id,
        name: &message.name,
        content: message.text(),
        additional_kwargs,
        response_metadata,
        tool_calls: ToolCallsOut(message),
        invalid_tool_calls: InvalidToolCallsOut(message),
        usage_metadata,
        content_blocks: BlocksOut(&message.content),
    }
    .serialize(serializer)
}

impl<'de> Deserialize<'de> for AiMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = LangChainAiMessage::deserialize(deserializer)?;
        if wire.kind != "ai" && wire.kind != "AIMessageChunk" {
            return Err(serde::de::Error::custom(format!(
                "expected an AI message (type \"ai\"), found type {:?}",
                wire.kind
            )));
        }
        let mut response_metadata = wire.response_metadata;
        if response_metadata.extra.get(OUTPUT_VERSION_KEY) == Some(&Value::from("v1")) {
            response_metadata.extra.remove(OUTPUT_VERSION_KEY);
        }
        let mut usage = wire.usage_metadata;
        if let Some(usage) = usage.as_mut() {
            if let Some(Value::Object(raw)) = response_metadata.extra.remove(RAW_USAGE_KEY) {
                usage.raw = Some(raw.into());
            }
        }
        let mut extra = wire.additional_kwargs;
        let reasoning = extra.remove("reasoning_content");
        let refusal = extra.remove("refusal");
        let call_extras: Vec<(&str, Map<String, Value>)> = CALL_EXTRAS_IN_KWARGS
            .iter()
            .filter_map(|(kwarg, extra_key)| match extra.remove(*kwarg) {
                Some(Value::Object(by_call)) => Some((*extra_key, by_call)),
                _ => None,
            })
            .collect();
        let audio = extra.remove(AUDIO_KEY);
        let content = match wire.content_blocks {
            Some(mut blocks) => {
                items_continued(&mut blocks);
                blocks
            }
            None => {
                let mut blocks = blocks_from_langchain_fields(
                    wire.content,
                    reasoning,
                    refusal,
                    wire.tool_calls,
                    wire.invalid_tool_calls,
                    &call_extras,
                );
                blocks.extend(audio.and_then(audio_block));
                blocks
            }
        };
        Ok(AiMessage {
            id: wire.id,
            name: wire.name,
            content,
            usage,
            response_metadata,
            extra,
        })
    }
}

/// Rebuilds blocks from a dict that LangChain itself wrote (no `content_blocks`). Content parts
/// this model does not know (a provider's `tool_use`…) are kept as `non_standard` blocks.
fn blocks_from_langchain_fields(
    content: Value,
    reasoning: Option<Value>,
    refusal: Option<Value>,
    tool_calls: Vec<LangChainToolCall>,
    invalid_tool_calls: Vec<LangChainInvalidToolCall>,
    call_extras: &[(&str, Map<String, Value>)],
) -> Vec<ContentBlock> {
    let mut blocks = Vec::new();
    if let Some(Value::String(reasoning)) = reasoning {
        blocks.push(ContentBlock::reasoning(reasoning));
    }
    match content {
        Value::String(text) if !text.is_empty() => blocks.push(ContentBlock::text(text)),
        Value::Array(parts) => {
            for part in parts {
                match part {
                    Value::String(text) => blocks.push(ContentBlock::text(text)),
                    part => blocks.push(
                        serde_json::from_value(part.clone())
                            .unwrap_or(ContentBlock::NonStandard { value: part }),
                    ),
                }
            }
        }
        _ => {}
    }
    if let Some(Value::String(refusal)) = refusal {
        blocks.push(ContentBlock::refusal(refusal));
    }
    let extras_of = |id: &str| -> Map<String, Value> {
        call_extras
            .iter()
            .filter_map(|(key, by_call)| Some(((*key).to_owned(), by_call.get(id)?.clone())))
            .collect()
    };
    blocks.extend(tool_calls.into_iter().map(|call| {
        let id = call.id.unwrap_or_default();
        let extras = extras_of(&id);
        ContentBlock::ToolCall(ToolCall {
            id,
            name: call.name,
            args: call.args,
            extras,
        })
    }));
    blocks.extend(invalid_tool_calls.into_iter().map(|call| {
        let id = call.id.unwrap_or_default();
        let extras = extras_of(&id);
        ContentBlock::InvalidToolCall(InvalidToolCall {
            id,
            name: call.name.unwrap_or_default(),
            args: call.args.unwrap_or_default(),
            error: call.error.unwrap_or_default(),
            extras,
        })
    }));
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{FinishReason, InputTokenDetails};
    use serde_json::json;

    fn sample() -> AiMessage {
        let mut args = Map::new();
        args.insert("city".into(), json!("Paris"));
        AiMessage {
            id: Some("chatcmpl-1".into()),
            name: None,
            content: vec![
                ContentBlock::reasoning("think"),
                ContentBlock::text("Hello"),
                ContentBlock::ToolCall(ToolCall {
                    id: "call_1".into(),
                    name: "weather".into(),
                    args,
                    ..ToolCall::default()
                }),
                ContentBlock::InvalidToolCall(InvalidToolCall {
                    id: "call_2".into(),
                    name: "weather".into(),
                    args: "{\"city\":".into(),
                    error: "EOF while parsing".into(),
                    ..InvalidToolCall::default()
                }),
            ],
            usage: Some(UsageMetadata {
                input_tokens: 5,
                output_tokens: 7,
                total_tokens: 12,
                input_token_details: Some(InputTokenDetails {
                    cache_read: Some(2),
                    ..Default::default()
                }),
                output_token_details: None,
                raw: Some(
                    json!({"prompt_tokens": 5, "completion_tokens": 7})
                        .as_object()
                        .cloned()
                        .unwrap()
                        .into(),
                ),
            }),
            response_metadata: ResponseMetadata {
                finish_reason: FinishReason::TOOL_CALLS,
                model_name: Some("gpt-4o".into()),
                ..Default::default()
            },
            extra: json!({"trace": "t-1"}).as_object().cloned().unwrap(),
        }
    }

    #[test]
    fn serialises_to_the_langchain_dict() {
        let value = serde_json::to_value(sample()).unwrap();
        assert_eq!(value["type"], "ai");
        assert_eq!(value["content"], "Hello");
        assert_eq!(value["additional_kwargs"]["reasoning_content"], "think");
        assert_eq!(value["additional_kwargs"]["trace"], "t-1");
        assert_eq!(
            value["tool_calls"],
            json!([{"name": "weather", "args": {"city": "Paris"}, "id": "call_1", "type": "tool_call"}])
        );
        assert_eq!(value["invalid_tool_calls"][0]["type"], "invalid_tool_call");
        assert_eq!(
            value["usage_metadata"]["input_token_details"]["cache_read"],
            2
        );
        assert!(value["usage_metadata"].get("raw").is_none());
        assert_eq!(
            value["response_metadata"]["token_usage"]["prompt_tokens"],
            5
        );
        assert_eq!(value["response_metadata"]["finish_reason"], "tool_calls");
        assert_eq!(value["content_blocks"][0]["type"], "reasoning");
    }

    #[test]
    fn round_trips_losslessly() {
        let message = sample();
        let json = serde_json::to_string(&message).unwrap();
        let back: AiMessage = serde_json::from_str(&json).unwrap();
        assert_eq!(back, message);
    }

    #[test]
    fn reads_a_dict_written_by_langchain_without_content_blocks() {
        let back: AiMessage = serde_json::from_value(json!({
            "type": "ai",
            "content": "Hi",
            "additional_kwargs": {"reasoning_content": "r"},
            "tool_calls": [{"name": "f", "args": {"x": 1}, "id": "c", "type": "tool_call"}],
            "invalid_tool_calls": [],
            "response_metadata": {"finish_reason": "stop"},
        }))
        .unwrap();
        assert_eq!(back.text(), "Hi");
        assert_eq!(back.reasoning(), "r");
        assert_eq!(back.tool_calls().next().unwrap().name, "f");
        assert_eq!(back.response_metadata.finish_reason, "stop");
    }

    #[test]
    fn unknown_content_parts_are_kept_as_non_standard_blocks() {
        let back: AiMessage = serde_json::from_value(json!({
            "type": "ai",
            "content": [{"type": "text", "text": "Hi"}, {"type": "tool_use", "id": "t", "name": "f", "input": {}}],
        }))
        .unwrap();
        assert_eq!(back.text(), "Hi");
        assert!(
            matches!(&back.content[1], ContentBlock::NonStandard { value } if value["type"] == "tool_use")
        );
    }

    #[test]
    fn gemini_call_signatures_go_where_langchain_google_genai_reads_them() {
        let mut call = ToolCall {
            id: "call_df_0".into(),
            name: "getWeather".into(),
            ..ToolCall::default()
        };
        call.extras
            .insert(ToolCall::SIGNATURE.into(), "CiMB".into());
        let message = AiMessage {
            content: vec![ContentBlock::ToolCall(call)],
            ..AiMessage::default()
        };
        let value = serde_json::to_value(&message).unwrap();
        assert_eq!(
            value["additional_kwargs"][GEMINI_SIGNATURES_KEY],
            json!({"call_df_0": "CiMB"})
        );
        assert_eq!(
            value["content_blocks"][0]["extras"],
            json!({"signature": "CiMB"})
        );
        let back: AiMessage = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(back, message);
        let mut written_by_langchain = value;
        written_by_langchain
            .as_object_mut()
            .unwrap()
            .remove("content_blocks");
        let back: AiMessage = serde_json::from_value(written_by_langchain).unwrap();
        assert_eq!(back.tool_calls().next().unwrap().signature(), Some("CiMB"));
        assert!(back.extra.is_empty());
    }

    #[test]
    fn rejects_other_message_types() {
        let err = serde_json::from_value::<AiMessage>(json!({"type": "human", "content": "x"}))
            .unwrap_err();
        assert!(err.to_string().contains("human"));
    }

    #[test]
    fn a_spoken_answer_is_also_langchain_openai_s_additional_kwargs_audio() {
        let mut audio = MediaBlock::from_source(MediaSource::Base64("AAEC".into()));
        audio.id = Some("audio_1".into());
        audio.extras.insert("transcript".into(), "Hi".into());
        audio
            .extras
            .insert("expires_at".into(), 1_735_693_200.into());
        let message = AiMessage {
            content: vec![ContentBlock::Audio(audio.clone())],
            ..AiMessage::default()
        };
        let value = serde_json::to_value(&message).unwrap();
        assert_eq!(
            value["additional_kwargs"]["audio"],
            json!({"id": "audio_1", "data": "AAEC", "expires_at": 1_735_693_200, "transcript": "Hi"})
        );
        let back: AiMessage = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(back.content, message.content);
        assert!(back.extra.is_empty());
        // A dict langchain-openai wrote itself: the audio comes from `additional_kwargs`.
        let mut written = value;
        written.as_object_mut().unwrap().remove("content_blocks");
        let read: AiMessage = serde_json::from_value(written).unwrap();
        assert_eq!(read.content, vec![ContentBlock::Audio(audio)]);
    }
}
