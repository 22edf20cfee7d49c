//! `Citation`: the typed view of a source the model cited, read from any provider's annotation.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::ContentBlock;

/// A source the model cited for a span of its text, read from any provider's annotation.
///
/// Text blocks keep each annotation exactly as the provider sent it
/// (`ContentBlock::Text::annotations`), so nothing is lost and the message can be sent back to
/// the same provider; a `Citation` is the typed view of one of them:
/// [`ContentBlock::citations`] reads OpenAI's `url_citation` / `file_citation`, Anthropic's
/// `char_location` / `page_location` / `web_search_result_location` / `search_result_location`,
/// and LangChain's standard `citation`. Fields without a typed home are kept in
/// [`extra`](Self::extra).
///
/// Serialises as LangChain's standard `citation` annotation (with `file_id` and `tool_name`
/// beside its keys and [`extra`](Self::extra) as `extras`), and reads back from it unchanged.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Citation {
    /// The cited source's title (a web page's title, a document's title or file name).
    pub title: Option<String>,
    /// The cited source's URL.
    pub url: Option<String>,
    /// The provider file id of the cited file.
    pub file_id: Option<String>,
    /// The tool that found the source (`web_search`…), when the provider says.
    pub tool_name: Option<String>,
    /// The cited passage.
    pub snippet: Option<String>,
    /// Where the cited span starts: a character index into the block's text for OpenAI and
    /// LangChain, into the cited document for Anthropic's `char_location`.
    pub start: Option<u64>,
    /// Where the cited span ends (exclusive), counted like [`start`](Self::start).
    pub end: Option<u64>,
    /// Every other field of the annotation (`document_index`, `encrypted_index`…).
    pub extra: Map<String, Value>,
}

/// Annotation types that are citations, across providers.
const CITATION_TYPES: &[&str] = &[
    "citation",
    "url_citation",
    "file_citation",
    "container_file_citation",
    "char_location",
    "page_location",
    "content_block_location",
    "web_search_result_location",
    "search_result_location",
];

impl Citation {
    /// Reads a provider annotation; `None` when it is not a citation.
    pub fn from_annotation(annotation: &Value) -> Option<Citation> {
        let object = annotation.as_object()?;
        let kind = object.get("type").and_then(Value::as_str)?;
        if !CITATION_TYPES.contains(&kind) {
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
            citation.extra.extend(extras);
        }
        let mut take = |keys: &[&str]| keys.iter().find_map(|key| take_string(&mut fields, key));
        citation.title = take(&["title", "document_title", "filename"]);
        citation.url = take(&["url"]);
        citation.file_id = take(&["file_id"]);
        citation.tool_name = take(&["tool_name"]);
        citation.snippet = take(&["cited_text", "snippet"]);
        if kind == "search_result_location" {
            citation.url = citation.url.or_else(|| take_string(&mut fields, "source"));
        }
        if kind == "web_search_result_location" && citation.tool_name.is_none() {
            citation.tool_name = Some("web_search".into());
        }
        citation.start = take_index(&mut fields, &["start_index", "start_char_index"]);
        citation.end = take_index(&mut fields, &["end_index", "end_char_index"]);
        citation.extra.extend(fields);
        Some(citation)
    }

    /// The citation as LangChain's standard `citation` annotation.
    pub fn to_annotation(&self) -> Value {
        let mut object = Map::new();
        object.insert("type".into(), "citation".into());
        let strings = [
            ("title", &self.title),
            ("url", &self.url),
            ("file_id", &self.file_id),
            ("tool_name", &self.tool_name),
            ("cited_text", &self.snippet),
        ];
        for (key, value) in strings {
            if let Some(value) = value {
                object.insert(key.into(), value.clone().into());
            }
        }
        for (key, value) in [("start_index", self.start), ("end_index", self.end)] {
            if let Some(value) = value {
                object.insert(key.into(), value.into());
            }
        }
        if !self.extra.is_empty() {
            object.insert("extras".into(), Value::Object(self.extra.clone()));
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

fn take_index(fields: &mut Map<String, Value>, keys: &[&str]) -> Option<u64> {
    keys.iter().find_map(|key| {
        let index = fields.get(*key)?.as_u64()?;
        fields.remove(*key);
        Some(index)
    })
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

impl ContentBlock {
    /// A text block citing `citations`, stored as LangChain `citation` annotations.
    pub fn text_with_citations(
        text: impl Into<String>,
        citations: impl IntoIterator<Item = Citation>,
    ) -> Self {
        ContentBlock::Text {
            text: text.into(),
            annotations: citations
                .into_iter()
                .map(|citation| citation.to_annotation())
                .collect(),
        }
    }

    /// The citations among a text block's annotations, typed; empty for other blocks.
    pub fn citations(&self) -> Vec<Citation> {
        match self {
            ContentBlock::Text { annotations, .. } => annotations
                .iter()
                .filter_map(Citation::from_annotation)
                .collect(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        assert_eq!((citation.start, citation.end), (Some(3), Some(9)));
        assert!(citation.extra.is_empty());
    }

    #[test]
    fn reads_anthropic_locations_and_keeps_the_rest() {
        let citation = Citation::from_annotation(&json!({
            "type": "char_location", "cited_text": "the sky is blue", "document_index": 0,
            "document_title": "Notes", "start_char_index": 0, "end_char_index": 15
        }))
        .unwrap();
        assert_eq!(citation.snippet.as_deref(), Some("the sky is blue"));
        assert_eq!(citation.title.as_deref(), Some("Notes"));
        assert_eq!((citation.start, citation.end), (Some(0), Some(15)));
        assert_eq!(
            citation.extra,
            json!({"document_index": 0}).as_object().unwrap().clone()
        );

        let web = Citation::from_annotation(&json!({
            "type": "web_search_result_location", "url": "https://w.test", "title": "W",
            "cited_text": "…", "encrypted_index": "Eo8B"
        }))
        .unwrap();
        assert_eq!(web.tool_name.as_deref(), Some("web_search"));
        assert_eq!(web.extra["encrypted_index"], "Eo8B");
    }

    #[test]
    fn other_annotations_are_not_citations() {
        assert_eq!(
            Citation::from_annotation(&json!({"type": "highlight"})),
            None
        );
        assert_eq!(Citation::from_annotation(&json!("citation")), None);
    }

    #[test]
    fn round_trips_through_the_langchain_shape() {
        let citation = Citation {
            title: Some("Doc".into()),
            file_id: Some("file-1".into()),
            tool_name: Some("file_search".into()),
            snippet: Some("quoted".into()),
            start: Some(1),
            end: Some(7),
            extra: json!({"index": 2}).as_object().unwrap().clone(),
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
        assert_eq!(block.citations(), vec![citation]);
    }
}
