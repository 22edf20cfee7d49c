//! Cohere's citations as typed [`Citation`]s: a `citation-start` names a span of the answer
//! (`start`, `end` in characters of the text, `text` the cited words) and the sources behind it
//! (`document` ones with their `id`, `title`, `url`, `snippet`…, or `tool` ones with their
//! `tool_output`): one citation per source, on the text block the span is in (a `PLAN` citation
//! on the tool plan's).

use serde_json::{Map, Value};

use crate::message::Citation;

/// The citations of one `citation-start`; none for a value that is no object.
pub(super) fn citations(value: Value) -> Vec<Citation> {
    let Value::Object(mut citation) = value else {
        return Vec::new();
    };
    let index = |citation: &mut Map<String, Value>, key: &str| {
        let index = citation.get(key)?.as_u64()?;
        citation.remove(key);
        Some(index)
    };
    let start = index(&mut citation, "start");
    let end = index(&mut citation, "end");
    let text = match citation.remove("text") {
        Some(Value::String(text)) => Some(text),
        Some(other) => {
            citation.insert("text".into(), other);
            None
        }
        None => None,
    };
    let sources = match citation.remove("sources") {
        Some(Value::Array(sources)) if !sources.is_empty() => sources,
        _ => vec![Value::Null],
    };
    // `type` (TEXT_CONTENT, PLAN…) and anything newer stay with each citation.
    let rest: Map<String, Value> = citation
        .into_iter()
        .map(|(key, value)| match key.as_str() {
            "type" => ("citation_type".to_owned(), value),
            _ => (key, value),
        })
        .collect();
    sources
        .into_iter()
        .map(|source| {
            let mut cited = Citation {
                start_index: start,
                end_index: end,
                cited_text: text.clone(),
                extras: rest.clone(),
                ..Citation::default()
            };
            read_source(&mut cited, source);
            cited
        })
        .collect()
}

/// The source's title, url and id into the citation; its other fields into `extras`.
fn read_source(citation: &mut Citation, source: Value) {
    let Value::Object(mut source) = source else {
        return;
    };
    let kind = source.remove("type");
    if let Some(Value::Object(mut document)) = source.remove("document") {
        citation.title = take_string(&mut document, "title");
        citation.url = take_string(&mut document, "url");
        document.remove("id");
        if !document.is_empty() {
            citation
                .extras
                .insert("document".into(), Value::Object(document));
        }
    }
    if let Some(kind) = kind {
        citation.extras.insert("source_type".into(), kind);
    }
    if let Some(id) = source.remove("id") {
        citation.extras.insert("source_id".into(), id);
    }
    citation.extras.extend(source);
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_source_is_a_citation_of_the_span() {
        let cited = citations(json!({"start": 0, "end": 16, "text": "Emperor penguins",
            "sources": [
                {"type": "document", "id": "doc:0",
                 "document": {"id": "doc:0", "title": "penguins.txt", "snippet": "Emperor…"}},
                {"type": "tool", "id": "web_1:0", "tool_output": {"url": "https://p.test"}}
            ],
            "type": "TEXT_CONTENT"}));
        assert_eq!(cited.len(), 2);
        assert_eq!(cited[0].title.as_deref(), Some("penguins.txt"));
        assert_eq!(
            (cited[0].start_index, cited[0].end_index),
            (Some(0), Some(16))
        );
        assert_eq!(cited[0].cited_text.as_deref(), Some("Emperor penguins"));
        assert_eq!(cited[0].extras["document"], json!({"snippet": "Emperor…"}));
        assert_eq!(cited[0].extras["source_id"], "doc:0");
        assert_eq!(cited[0].extras["citation_type"], "TEXT_CONTENT");
        assert_eq!(cited[1].extras["source_type"], "tool");
        assert_eq!(cited[1].extras["tool_output"]["url"], "https://p.test");
        assert!(citations(json!("nothing")).is_empty());
    }
}
