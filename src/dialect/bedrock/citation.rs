//! A Converse `citation` delta as a typed citation, read as LangChain's bedrock_converse
//! translator reads it. Apart from the decoder, which only hands the delta's fields here.

use serde_json::{Map, Value};

use crate::message::Citation;

/// A Converse `citation` delta (`CitationsDelta`: `title`, `source`, `sourceContent: [{text}]`,
/// `location`) as a typed citation, as LangChain's bedrock_converse translator reads it: the
/// source texts joined are the cited text, a `web` location's url the url; the location (a span
/// of the *source* document, or a page or chunk of it) and the rest stay in `extras`. Like
/// Anthropic's, a Converse citation covers its whole text block: it has no span of the answer.
pub(super) fn converse_citation(mut fields: Map<String, Value>) -> Citation {
    let mut citation = Citation::default();
    if let Some(Value::String(title)) = fields.remove("title") {
        citation.title = Some(title);
    }
    if let Some(Value::Array(contents)) = fields.get("sourceContent") {
        let texts: Option<Vec<&str>> = contents
            .iter()
            .map(|content| content.get("text").and_then(Value::as_str))
            .collect();
        if let Some(texts) = texts {
            citation.cited_text = Some(texts.concat());
            fields.remove("sourceContent");
        }
    }
    citation.url = fields
        .get("location")
        .and_then(|location| location.get("web"))
        .and_then(|web| web.get("url"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    citation.extras = fields;
    citation
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn converse_citations_join_their_source_texts_and_keep_the_location() {
        let fields = json!({"title": "Rust", "source": "web-1",
            "sourceContent": [{"text": "Rust is "}, {"text": "fast."}],
            "location": {"web": {"url": "https://rust.test/", "domain": "rust.test"}}});
        let citation = converse_citation(fields.as_object().unwrap().clone());
        assert_eq!(citation.title.as_deref(), Some("Rust"));
        assert_eq!(citation.cited_text.as_deref(), Some("Rust is fast."));
        assert_eq!(citation.url.as_deref(), Some("https://rust.test/"));
        assert_eq!(citation.extras["source"], "web-1");
        assert_eq!(citation.extras["location"]["web"]["domain"], "rust.test");
        assert!(!citation.extras.contains_key("sourceContent"));
        assert_eq!((citation.start_index, citation.end_index), (None, None));
    }
}
