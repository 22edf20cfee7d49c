//! Annotations on text: a typed [`Citation`] read from any provider's citation shape, or a
//! provider annotation kept as sent ([`Annotation::NonStandard`]), in LangChain's standard
//! `citation` / `non_standard_annotation` shapes.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// One annotation on a text block: a citation, or a provider annotation without a standard
/// shape (OpenAI's `file_path`…). LangChain 1.0's `Annotation` union; more kinds will come.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Annotation {
    /// A source the model cited.
    Citation(Citation),
    /// A provider annotation that is no citation, kept as sent.
    NonStandard {
        /// The provider's annotation.
        value: Value,
    },
}

/// A source the model cited for its text: LangChain 1.0's standard `citation` annotation, read
/// from OpenAI's `url_citation` / `file_citation` / `container_file_citation`, Anthropic's
/// `char_location` / `page_location` / `content_block_location` / `web_search_result_location` /
/// `search_result_location`, and LangChain's own `citation`.
///
/// `start_index` / `end_index` are character offsets into the text of the block the citation
/// annotates (OpenAI's spans). Anthropic's `start_char_index`, page and block numbers locate the
/// cited passage in the *source* document, so they stay in [`extras`](Self::extras) under their
/// own names, as LangChain keeps them, and the Anthropic wire format sends them back from there.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Citation {
    /// The cited source's URL.
    pub url: Option<String>,
    /// The cited source's title (a web page's title, a document's title or file name).
    pub title: Option<String>,
    /// Where the cited span of the annotated text starts, in characters.
    pub start_index: Option<u64>,
    /// Where the cited span of the annotated text ends (exclusive), in characters.
    pub end_index: Option<u64>,
    /// The cited passage of the source.
    pub cited_text: Option<String>,
    /// The provider file id of the cited file.
    pub file_id: Option<String>,
    /// The tool that found the source (`web_search`…), when the provider says.
    pub tool_name: Option<String>,
    /// Every other field of the provider's annotation (`document_index`, `encrypted_index`,
    /// `start_char_index`…).
    pub extras: Map<String, Value>,
}

/// OpenAI annotation types that are citations.
const OPENAI_CITATIONS: &[&str] = &["url_citation", "file_citation", "container_file_citation"];

/// Anthropic citation types that point into a document the request gave.
const DOCUMENT_CITATIONS: &[&str] = &[
    "char_location",
    "page_location",
    "content_block_location",
    "search_result_location",
];

impl Annotation {
    /// Reads a provider's annotation: a citation when its type is one, else kept as sent.
    pub fn from_provider(value: Value) -> Annotation {
        match Citation::from_annotation(&value) {
            Some(citation) => Annotation::Citation(citation),
            None => Annotation::NonStandard { value },
        }
    }

    /// The citation, if this is one.
    pub fn as_citation(&self) -> Option<&Citation> {
        match self {
            Annotation::Citation(citation) => Some(citation),
            Annotation::NonStandard { .. } => None,
        }
    }
}

impl Citation {
    /// Reads a provider annotation; `None` when it is not a citation.
    pub fn from_annotation(annotation: &Value) -> Option<Citation> {
        let object = annotation.as_object()?;
        let kind = object.get("type").and_then(Value::as_str)?;
        let is_citation = kind == "citation"
            || kind == "web_search_result_location"
            || OPENAI_CITATIONS.contains(&kind)
            || DOCUMENT_CITATIONS.contains(&kind);
        if !is_citation {
            return None;
        }
        let mut fields = object.clone();
        fields.remove("type");
        // OpenAI Chat Completions nests the citation under its type.
        if let Some(Value::Object(inner)) = fields.remove("url_citation") {
            fields.extend(inner);
        }
        let mut citation = Citation::default();
        if let Some(Value::Object(extras)) = fields.remove("extras") {
            citation.extras.extend(extras);
        }
        let mut take = |keys: &[&str]| keys.iter().find_map(|key| take_string(&mut fields, key));
        citation.title = take(&["title", "document_title", "filename"]);
        citation.url = take(&["url"]);
        citation.file_id = take(&["file_id"]);
        citation.tool_name = take(&["tool_name"]);
        citation.cited_text = take(&["cited_text", "snippet"]);
        if kind == "web_search_result_location" && citation.tool_name.is_none() {
            citation.tool_name = Some("web_search".into());
        }
        if !DOCUMENT_CITATIONS.contains(&kind) {
            citation.start_index = take_index(&mut fields, "start_index");
            citation.end_index = take_index(&mut fields, "end_index");
        }
        citation.extras.extend(fields);
        Some(citation)
    }

    /// The citation as LangChain's standard `citation` annotation (`file_id` and `tool_name`
    /// beside its keys).
    pub fn to_annotation(&self) -> Value {
        let mut object = Map::new();
        object.insert("type".into(), "citation".into());
        let strings = [
            ("url", &self.url),
            ("title", &self.title),
            ("cited_text", &self.cited_text),
            ("file_id", &self.file_id),
            ("tool_name", &self.tool_name),
        ];
        for (key, value) in strings {
            if let Some(value) = value {
                object.insert(key.into(), value.clone().into());
            }
        }
        for (key, value) in [
            ("start_index", self.start_index),
            ("end_index", self.end_index),
        ] {
            if let Some(value) = value {
                object.insert(key.into(), value.into());
            }
        }
        if !self.extras.is_empty() {
            object.insert("extras".into(), Value::Object(self.extras.clone()));
        }
        Value::Object(object)
    }
}

fn take_string(fields: &mut Map<String, Value>, key: &str) -> Option<String> {
    match fields.remove(key) {
        Some(Value::String(text)) => Some(text),
        Some(other) => {
            fields.insert(key.to_owned(), other);
            None
        }
        None => None,
    }
}

fn take_index(fields: &mut Map<String, Value>, key: &str) -> Option<u64> {
    let index = fields.get(key)?.as_u64()?;
    fields.remove(key);
    Some(index)
}

impl Serialize for Citation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_annotation().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Citation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Citation::from_annotation(&value)
            .ok_or_else(|| serde::de::Error::custom("not a citation annotation"))
    }
}

/// LangChain's `non_standard_annotation` type tag.
const NON_STANDARD: &str = "non_standard_annotation";

impl Serialize for Annotation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Annotation::Citation(citation) => citation.serialize(serializer),
            Annotation::NonStandard { value } => {
                serde_json::json!({"type": NON_STANDARD, "value": value}).serialize(serializer)
            }
        }
    }
}

impl<'de> Deserialize<'de> for Annotation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut value = Value::deserialize(deserializer)?;
        if value.get("type").and_then(Value::as_str) == Some(NON_STANDARD) {
            let inner = value.get_mut("value").map(Value::take);
            return Ok(Annotation::NonStandard {
                value: inner.unwrap_or(Value::Null),
            });
        }
        Ok(Annotation::from_provider(value))
    }
}

impl From<Citation> for Annotation {
    fn from(citation: Citation) -> Self {
        Annotation::Citation(citation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ContentBlock;
    use serde_json::json;

    #[test]
    fn reads_openai_chat_url_citations() {
        let citation = Citation::from_annotation(&json!({
            "type": "url_citation",
            "url_citation": {"url": "https://x.test", "title": "X", "start_index": 3, "end_index": 9}
        }))
        .unwrap();
        assert_eq!(citation.url.as_deref(), Some("https://x.test"));
        assert_eq!(citation.title.as_deref(), Some("X"));
        assert_eq!(
            (citation.start_index, citation.end_index),
            (Some(3), Some(9))
        );
        assert!(citation.extras.is_empty());
    }

    #[test]
    fn anthropic_document_positions_stay_in_extras() {
        let citation = Citation::from_annotation(&json!({
            "type": "char_location", "cited_text": "the sky is blue", "document_index": 0,
            "document_title": "Notes", "start_char_index": 0, "end_char_index": 15
        }))
        .unwrap();
        assert_eq!(citation.cited_text.as_deref(), Some("the sky is blue"));
        assert_eq!(citation.title.as_deref(), Some("Notes"));
        assert_eq!((citation.start_index, citation.end_index), (None, None));
        assert_eq!(
            citation.extras,
            json!({"document_index": 0, "start_char_index": 0, "end_char_index": 15})
                .as_object()
                .unwrap()
                .clone()
        );

        let web = Citation::from_annotation(&json!({
            "type": "web_search_result_location", "url": "https://w.test", "title": "W",
            "cited_text": "…", "encrypted_index": "Eo8B"
        }))
        .unwrap();
        assert_eq!(web.tool_name.as_deref(), Some("web_search"));
        assert_eq!(web.extras["encrypted_index"], "Eo8B");
    }

    #[test]
    fn other_annotations_are_kept_as_non_standard() {
        assert_eq!(
            Citation::from_annotation(&json!({"type": "highlight"})),
            None
        );
        assert_eq!(Citation::from_annotation(&json!("citation")), None);
        let file_path = json!({"type": "file_path", "file_id": "file-1", "index": 4});
        let annotation = Annotation::from_provider(file_path.clone());
        assert_eq!(
            annotation,
            Annotation::NonStandard {
                value: file_path.clone()
            }
        );
        let value = serde_json::to_value(&annotation).unwrap();
        assert_eq!(
            value,
            json!({"type": "non_standard_annotation", "value": file_path})
        );
        assert_eq!(
            serde_json::from_value::<Annotation>(value).unwrap(),
            annotation
        );
    }

    #[test]
    fn round_trips_through_the_langchain_shape() {
        let citation = Citation {
            title: Some("Doc".into()),
            file_id: Some("file-1".into()),
            tool_name: Some("file_search".into()),
            cited_text: Some("quoted".into()),
            start_index: Some(1),
            end_index: Some(7),
            extras: json!({"index": 2}).as_object().unwrap().clone(),
            ..Citation::default()
        };
        let value = serde_json::to_value(&citation).unwrap();
        assert_eq!(
            value,
            json!({"type": "citation", "title": "Doc", "file_id": "file-1",
                   "tool_name": "file_search", "cited_text": "quoted", "start_index": 1,
                   "end_index": 7, "extras": {"index": 2}})
        );
        assert_eq!(serde_json::from_value::<Citation>(value).unwrap(), citation);
        let block = ContentBlock::text_with_citations("hello", [citation.clone()]);
        assert_eq!(block.citations(), vec![&citation]);
    }
}
