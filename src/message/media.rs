//! Media blocks (images, audio, video, files) and where their bytes are, in LangChain's standard
//! shapes; and data-URL parsing for the wire formats.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Where a media block's bytes are: at a URL, inline as base64, in the provider's file store, or
/// inline as text (plain-text documents).
///
/// Serialised as one key of the block, as LangChain's standard blocks spell it (`"url"`,
/// `"base64"`, `"file_id"`, `"text"`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MediaSource {
    /// A URL the provider fetches (`https://…`; a `data:` URL is split into base64 and MIME type
    /// when decoded from a wire format).
    Url(String),
    /// The bytes, base64-encoded, without a `data:` prefix.
    Base64(String),
    /// The id of a file uploaded to the provider's file store.
    FileId(String),
    /// The content itself, as text: only meaningful for plain-text data.
    Text(String),
}

/// An image, audio clip, video or file: its source, MIME type and provider extras.
///
/// Shaped like LangChain's standard `image`/`audio`/`video`/`file` blocks, so a block written
/// by Python's `create_image_block` and friends reads back unchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MediaBlock {
    /// Where the bytes are.
    #[serde(flatten)]
    pub source: MediaSource,
    /// The MIME type (`image/png`, `application/pdf`…); providers require it for base64 data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// An id for the block itself, when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Provider options that travel with the block: `filename` (OpenAI files), `detail`
    /// (OpenAI images), `title`, `context`, `citations`, `cache_control` (Anthropic
    /// documents)…
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extras: Map<String, Value>,
}

impl MediaBlock {
    /// A block read from `url`.
    pub fn url(url: impl Into<String>) -> Self {
        Self::from_source(MediaSource::Url(url.into()))
    }

    /// A block carrying base64 `data` of the given MIME type.
    pub fn base64(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::from_source(MediaSource::Base64(data.into())).with_mime_type(mime_type)
    }

    /// A block referring to a file in the provider's file store.
    pub fn file_id(file_id: impl Into<String>) -> Self {
        Self::from_source(MediaSource::FileId(file_id.into()))
    }

    /// A block carrying plain text inline (MIME type `text/plain`).
    pub fn text(text: impl Into<String>) -> Self {
        Self::from_source(MediaSource::Text(text.into())).with_mime_type(PLAIN_TEXT)
    }

    /// A block with `source` and nothing else set.
    pub fn from_source(source: MediaSource) -> Self {
        MediaBlock {
            source,
            mime_type: None,
            id: None,
            extras: Map::new(),
        }
    }

    /// Sets the MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the file name that providers show the model (OpenAI requires one for inline
    /// files); kept in [`extras`](Self::extras) as LangChain does.
    pub fn with_filename(self, filename: impl Into<String>) -> Self {
        self.with_extra(FILENAME, filename.into())
    }

    /// Adds a provider option to [`extras`](Self::extras).
    pub fn with_extra(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.extras.insert(key.into(), value.into());
        self
    }

    /// The file name, when one was set.
    pub fn filename(&self) -> Option<&str> {
        self.extras.get(FILENAME).and_then(Value::as_str)
    }

    /// The base64 data as a `data:` URL (`data:image/png;base64,…`), or `None` for other
    /// sources.
    pub fn data_url(&self) -> Option<String> {
        match &self.source {
            MediaSource::Base64(data) => Some(format!(
                "data:{};base64,{data}",
                self.mime_type.as_deref().unwrap_or(OCTET_STREAM)
            )),
            _ => None,
        }
    }
}

/// The MIME type of plain text.
pub(crate) const PLAIN_TEXT: &str = "text/plain";
const OCTET_STREAM: &str = "application/octet-stream";
const FILENAME: &str = "filename";

/// Splits a `data:<mime>;base64,<data>` URL into MIME type and data; `None` for any other URL.
pub(crate) fn parse_data_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (header, data) = rest.split_once(',')?;
    let mime_type = header.strip_suffix(";base64")?;
    Some((mime_type, data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ContentBlock;
    use serde_json::json;

    #[test]
    fn media_blocks_use_langchain_standard_shapes() {
        let blocks = vec![
            ContentBlock::image(
                MediaBlock::url("https://x.test/cat.png").with_extra("detail", "low"),
            ),
            ContentBlock::audio(MediaBlock::base64("UklGRg==", "audio/wav")),
            ContentBlock::video(MediaBlock::file_id("file-v1")),
            ContentBlock::file(
                MediaBlock::base64("JVBERi0=", "application/pdf").with_filename("a.pdf"),
            ),
            ContentBlock::plain_text("notes"),
        ];
        let value = serde_json::to_value(&blocks).unwrap();
        assert_eq!(
            value,
            json!([
                {"type": "image", "url": "https://x.test/cat.png", "extras": {"detail": "low"}},
                {"type": "audio", "base64": "UklGRg==", "mime_type": "audio/wav"},
                {"type": "video", "file_id": "file-v1"},
                {"type": "file", "base64": "JVBERi0=", "mime_type": "application/pdf",
                 "extras": {"filename": "a.pdf"}},
                {"type": "text-plain", "text": "notes", "mime_type": "text/plain"},
            ])
        );
        let back: Vec<ContentBlock> = serde_json::from_value(value).unwrap();
        assert_eq!(back, blocks);
    }

    #[test]
    fn a_media_block_without_a_source_is_rejected() {
        let missing = serde_json::from_value::<ContentBlock>(
            json!({"type": "image", "mime_type": "image/png"}),
        );
        assert!(missing.is_err());
    }

    #[test]
    fn data_urls_split_into_mime_type_and_data() {
        assert_eq!(
            parse_data_url("data:image/png;base64,iVBO"),
            Some(("image/png", "iVBO"))
        );
        assert_eq!(parse_data_url("https://x.test/a.png"), None);
        assert_eq!(parse_data_url("data:text/plain,hello"), None);
        let media = MediaBlock::base64("iVBO", "image/png");
        assert_eq!(
            media.data_url().as_deref(),
            Some("data:image/png;base64,iVBO")
        );
    }
}
