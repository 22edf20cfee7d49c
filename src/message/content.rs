//! `Content`: what a non-assistant message says, a plain string or a list of blocks, kept in the
//! form it was given so that it goes back out the same way.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::ContentBlock;

/// What a system, user, tool or chat message says: a plain string, or an ordered list of blocks
/// (text, images, files…). Which one was used is kept, so a message sent as a string goes back
/// out as a string.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// Blocks, in order.
    Blocks(Vec<ContentBlock>),
}

impl Default for Content {
    fn default() -> Self {
        Content::Text(String::new())
    }
}

impl Content {
    /// All text joined: the string itself, or the text blocks' text.
    pub fn text(&self) -> String {
        match self {
            Content::Text(text) => text.clone(),
            Content::Blocks(blocks) => {
                let mut joined = String::new();
                for block in blocks {
                    if let ContentBlock::Text { text, .. } = block {
                        joined.push_str(text);
                    }
                }
                joined
            }
        }
    }

    /// The string, when the content is plain text.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Content::Text(text) => Some(text),
            Content::Blocks(_) => None,
        }
    }

    /// The content as blocks: plain text becomes one text block (none when empty).
    pub fn blocks(&self) -> Cow<'_, [ContentBlock]> {
        match self {
            Content::Text(text) if text.is_empty() => Cow::Borrowed(&[]),
            Content::Text(text) => Cow::Owned(vec![ContentBlock::text(text.clone())]),
            Content::Blocks(blocks) => Cow::Borrowed(blocks),
        }
    }

    /// Takes the content as blocks, as [`blocks`](Self::blocks) shows them.
    pub fn into_blocks(self) -> Vec<ContentBlock> {
        match self {
            Content::Text(text) if text.is_empty() => Vec::new(),
            Content::Text(text) => vec![ContentBlock::text(text)],
            Content::Blocks(blocks) => blocks,
        }
    }

    /// Appends a block; plain text becomes blocks first.
    pub fn push(&mut self, block: ContentBlock) {
        let mut blocks = std::mem::take(self).into_blocks();
        blocks.push(block);
        *self = Content::Blocks(blocks);
    }

    /// True for an empty string or no blocks.
    pub fn is_empty(&self) -> bool {
        match self {
            Content::Text(text) => text.is_empty(),
            Content::Blocks(blocks) => blocks.is_empty(),
        }
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::Text(text.to_owned())
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::Text(text)
    }
}

impl From<Vec<ContentBlock>> for Content {
    fn from(blocks: Vec<ContentBlock>) -> Self {
        Content::Blocks(blocks)
    }
}

impl From<ContentBlock> for Content {
    fn from(block: ContentBlock) -> Self {
        Content::Blocks(vec![block])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::MediaBlock;
    use serde_json::json;

    #[test]
    fn text_joins_text_blocks_only() {
        let content = Content::Blocks(vec![
            ContentBlock::text("a"),
            ContentBlock::image(MediaBlock::url("https://x.test/i.png")),
            ContentBlock::text("b"),
        ]);
        assert_eq!(content.text(), "ab");
        assert_eq!(Content::from("plain").text(), "plain");
    }

    #[test]
    fn serialises_as_a_string_or_a_list() {
        assert_eq!(
            serde_json::to_value(Content::from("hi")).unwrap(),
            json!("hi")
        );
        let blocks = Content::from(ContentBlock::text("hi"));
        assert_eq!(
            serde_json::to_value(&blocks).unwrap(),
            json!([{"type": "text", "text": "hi"}])
        );
        let back: Content =
            serde_json::from_value(json!([{"type": "text", "text": "hi"}])).unwrap();
        assert_eq!(back, blocks);
    }

    #[test]
    fn push_turns_text_into_blocks() {
        let mut content = Content::from("look:");
        content.push(ContentBlock::image(MediaBlock::file_id("file-1")));
        assert_eq!(content.blocks().len(), 2);
        assert_eq!(content.as_str(), None);
        let mut empty = Content::default();
        empty.push(ContentBlock::text("x"));
        assert_eq!(empty, Content::Blocks(vec![ContentBlock::text("x")]));
    }
}
