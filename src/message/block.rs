//! `ContentBlock`: one piece of a message's content (text, reasoning, refusal, tool calls,
//! server-side tool calls and results, media, provider blocks) in LangChain's standard
//! content-block shapes.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{
    Annotation, Citation, InvalidToolCall, MediaBlock, ServerToolCall, ServerToolResult,
    ToolApprovalRequest, ToolApprovalResponse, ToolCall,
};

/// One piece of a message's content, in the order the model produced it.
///
/// Serialises in LangChain's standard content-block shape (`{"type": "text", "text": …}`).
/// Providers keep inventing block kinds, hence `#[non_exhaustive]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ContentBlock {
    /// Answer text.
    Text {
        /// The text.
        text: String,
        /// Citations and other provider annotations on this text, in order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        annotations: Vec<Annotation>,
        /// The provider's id of the output item the text belongs to (an OpenAI Responses
        /// message's `msg_…`), LangChain's text block `id`: sent back with the text, so that a
        /// reasoning item is followed by the item it led to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// What the text is for, as the provider labels it: an OpenAI Responses message's
        /// `phase` (`commentary` for intermediate text, `final_answer`), which must be sent
        /// back with it; the key langchain-openai writes and reads.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        phase: Option<String>,
    },
    /// The model declined to answer.
    Refusal {
        /// The refusal text.
        refusal: String,
        /// The provider's id of the output item the refusal belongs to (an OpenAI Responses
        /// message's `msg_…`), as for a text block: sent back with it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// The `phase` of the message the refusal belongs to, as for a text block.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        phase: Option<String>,
    },
    /// A complete tool call.
    ToolCall(ToolCall),
    /// A tool call whose arguments did not parse as a JSON object.
    InvalidToolCall(InvalidToolCall),
    /// A tool call the provider ran itself (web search, code execution, a remote MCP tool…).
    ServerToolCall(ServerToolCall),
    /// What a server-side tool returned.
    ServerToolResult(ServerToolResult),
    /// The provider asks the app to approve a remote MCP tool call.
    ToolApprovalRequest(ToolApprovalRequest),
    /// The app's answer to an approval request, sent in a user message.
    ToolApprovalResponse(ToolApprovalResponse),
    /// An image, by URL, base64 data or provider file id.
    Image(MediaBlock),
    /// An audio clip.
    Audio(MediaBlock),
    /// A video.
    Video(MediaBlock),
    /// A file (a PDF, a spreadsheet…).
    File(MediaBlock),
    /// Plain-text data: a document given inline as text or by reference.
    #[serde(rename = "text-plain")]
    PlainText(MediaBlock),
    /// Anything the model produced that has no standard block yet, kept as sent.
    NonStandard {
        /// The provider's value (never a redacted thinking block, which reads as reasoning).
        #[serde(deserialize_with = "super::reasoning_form::not_redacted")]
        value: Value,
    },
    /// The model's reasoning (thinking) text.
    ///
    /// Written where LangChain's integrations read it (`src/message/reasoning_form.rs`):
    /// the signature and encrypted content in `extras`, a Responses item id as the block's
    /// `id`, and reasoning that is only opaque data (Anthropic's redacted thinking) as a
    /// `non_standard` `redacted_thinking` block. Untagged for serde only so that it can take
    /// either shape; it is the last variant because serde requires that of untagged ones.
    #[serde(
        untagged,
        serialize_with = "super::reasoning_form::serialize",
        deserialize_with = "super::reasoning_form::deserialize"
    )]
    Reasoning {
        /// The reasoning as shown to the user (may be a summary).
        text: String,
        /// The provider's signature over the reasoning, needed to send it back.
        signature: Option<String>,
        /// Opaque or encrypted reasoning the provider returns instead of text.
        data: Option<String>,
        /// Other provider fields that must travel with the reasoning (OpenRouter's
        /// `reasoning_details`, for example).
        extras: Map<String, Value>,
    },
}

impl ContentBlock {
    /// A text block without annotations.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text {
            text: text.into(),
            annotations: Vec::new(),
            id: None,
            phase: None,
        }
    }

    /// A reasoning block with text only.
    pub fn reasoning(text: impl Into<String>) -> Self {
        ContentBlock::Reasoning {
            text: text.into(),
            signature: None,
            data: None,
            extras: Map::new(),
        }
    }
}

impl ContentBlock {
    /// The key of a reasoning block's `extras` that keeps the encrypted content its item's
    /// `output_item.done` carried, when the OpenAI Responses `response.completed` repeats the
    /// item with another encryption of the same reasoning (then `data`, as in the OpenAI SDK's
    /// final response).
    pub const EARLIER_DATA: &'static str = "item_done_encrypted_content";

    /// A refusal block, with no item id.
    pub fn refusal(refusal: impl Into<String>) -> Self {
        ContentBlock::Refusal {
            refusal: refusal.into(),
            id: None,
            phase: None,
        }
    }

    /// A text block citing `citations`.
    pub fn text_with_citations(
        text: impl Into<String>,
        citations: impl IntoIterator<Item = Citation>,
    ) -> Self {
        ContentBlock::Text {
            text: text.into(),
            annotations: citations.into_iter().map(Annotation::Citation).collect(),
            id: None,
            phase: None,
        }
    }

    /// The citations among a text block's annotations; empty for other blocks.
    pub fn citations(&self) -> Vec<&Citation> {
        let annotations = match self {
            ContentBlock::Text { annotations, .. } => annotations.as_slice(),
            _ => &[],
        };
        annotations
            .iter()
            .filter_map(Annotation::as_citation)
            .collect()
    }
}

impl ContentBlock {
    /// An image block.
    pub fn image(media: MediaBlock) -> Self {
        ContentBlock::Image(media)
    }

    /// An audio block.
    pub fn audio(media: MediaBlock) -> Self {
        ContentBlock::Audio(media)
    }

    /// A video block.
    pub fn video(media: MediaBlock) -> Self {
        ContentBlock::Video(media)
    }

    /// A file block (a PDF, a spreadsheet…).
    pub fn file(media: MediaBlock) -> Self {
        ContentBlock::File(media)
    }

    /// A plain-text document given inline.
    pub fn plain_text(text: impl Into<String>) -> Self {
        ContentBlock::PlainText(MediaBlock::text(text))
    }

    /// The block its MIME type says: an image (`image/…`), audio (`audio/…`), video
    /// (`video/…`), else a file.
    ///
    /// ```
    /// use deltafold::message::{ContentBlock, MediaBlock};
    ///
    /// let block = ContentBlock::by_mime_type(MediaBlock::base64("iVBORw0KGgo=", "image/png"));
    /// assert!(matches!(block, ContentBlock::Image(_)));
    /// ```
    pub fn by_mime_type(media: MediaBlock) -> Self {
        let kind = media.mime_type.as_deref().unwrap_or_default();
        if kind.starts_with("image/") {
            ContentBlock::Image(media)
        } else if kind.starts_with("audio/") {
            ContentBlock::Audio(media)
        } else if kind.starts_with("video/") {
            ContentBlock::Video(media)
        } else {
            ContentBlock::File(media)
        }
    }

    /// The media of an image, audio, video, file or plain-text block, to change.
    pub fn media_mut(&mut self) -> Option<&mut MediaBlock> {
        match self {
            ContentBlock::Image(media)
            | ContentBlock::Audio(media)
            | ContentBlock::Video(media)
            | ContentBlock::File(media)
            | ContentBlock::PlainText(media) => Some(media),
            _ => None,
        }
    }

    /// The media of an image, audio, video, file or plain-text block.
    pub fn media(&self) -> Option<&MediaBlock> {
        match self {
            ContentBlock::Image(media)
            | ContentBlock::Audio(media)
            | ContentBlock::Video(media)
            | ContentBlock::File(media)
            | ContentBlock::PlainText(media) => Some(media),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_use_langchain_type_tags() {
        let blocks = vec![
            ContentBlock::reasoning("hm"),
            ContentBlock::text("hi"),
            ContentBlock::refusal("no"),
            ContentBlock::ToolCall(ToolCall {
                id: "c1".into(),
                name: "f".into(),
                args: Map::new(),
                ..ToolCall::default()
            }),
            ContentBlock::NonStandard {
                value: json!({"x": 1}),
            },
        ];
        let value = serde_json::to_value(&blocks).unwrap();
        assert_eq!(
            value,
            json!([
                {"type": "reasoning", "reasoning": "hm"},
                {"type": "text", "text": "hi"},
                {"type": "refusal", "refusal": "no"},
                {"type": "tool_call", "id": "c1", "name": "f", "args": {}},
                {"type": "non_standard", "value": {"x": 1}},
            ])
        );
        let back: Vec<ContentBlock> = serde_json::from_value(value).unwrap();
        assert_eq!(back, blocks);
    }
}
