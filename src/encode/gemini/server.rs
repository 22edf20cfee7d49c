//! What Gemini ran, in Gemini's shapes, for the live and the non-streamed halves: a code run as
//! `executableCode` / `codeExecutionResult` parts (the wire format's parts), and web searches,
//! their citations and URL reads as the candidate's `groundingMetadata` and
//! `urlContextMetadata` — the inverse of the dialect's reading (`dialect/gemini/server_tools/`).
//!
//! A citation's span (characters of its text block) becomes a grounding support's segment in
//! UTF-8 bytes of the candidate's text joined, as Gemini counts; citations of one span in a row
//! are one support citing several chunks. The chunks are the search's own results when the
//! message is Gemini's, else one `web` chunk per cited URL.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use crate::assemble::{PartialBlock, PartialMessage};
use crate::message::{Annotation, Citation, ContentBlock, ServerToolCall, ServerToolResult};

/// What the metadata is built from: the message's text blocks with their annotations, its
/// server-side calls and their results, in order.
#[derive(Default)]
pub(super) struct Activity<'a> {
    texts: Vec<(&'a str, &'a [Annotation])>,
    calls: Vec<&'a ServerToolCall>,
    /// The results by the id of the call they answer (one lookup per call).
    results: HashMap<&'a str, &'a ServerToolResult>,
}

impl<'a> Activity<'a> {
    pub(super) fn of_blocks(blocks: &'a [ContentBlock]) -> Self {
        let mut activity = Activity::default();
        for block in blocks {
            activity.add(block);
        }
        activity
    }

    pub(super) fn of_snapshot(message: &'a PartialMessage) -> Self {
        let mut activity = Activity::default();
        for block in message.blocks() {
            match block {
                PartialBlock::Content(block) => activity.add(block),
                PartialBlock::ServerToolCall(pending) => activity.calls.push(pending.call()),
                _ => {}
            }
        }
        activity
    }

    fn add(&mut self, block: &'a ContentBlock) {
        match block {
            ContentBlock::Text {
                text, annotations, ..
            } => self.texts.push((text, annotations)),
            ContentBlock::ServerToolCall(call) => self.calls.push(call),
            ContentBlock::ServerToolResult(result) => {
                self.results.insert(&result.tool_call_id, result);
            }
            _ => {}
        }
    }

    fn result_of(&self, call: &ServerToolCall) -> Option<&'a ServerToolResult> {
        self.results.get(call.id.as_str()).copied()
    }

    fn named(&self, name: &'a str) -> impl Iterator<Item = &'a ServerToolCall> + '_ {
        self.calls
            .iter()
            .copied()
            .filter(move |call| call.name == name)
    }

    /// `groundingMetadata` for the candidate: the searches' queries, the chunks and the
    /// supports; `None` when the message searched nothing and cites nothing with a span.
    pub(super) fn grounding(&self, native: bool) -> Option<Value> {
        let mut queries = Vec::new();
        let mut chunks: Vec<Value> = Vec::new();
        for call in self.named("web_search") {
            match call.args.get("queries").or_else(|| call.args.get("query")) {
                Some(Value::Array(asked)) => queries.extend(asked.iter().cloned()),
                Some(Value::String(asked)) => queries.push(asked.as_str().into()),
                _ => {}
            }
            let output = self
                .result_of(call)
                .and_then(|result| result.output.as_ref());
            if let (true, Some(Value::Array(found))) = (native, output) {
                chunks.extend(found.iter().cloned());
            }
        }
        let mut chunks = Chunks::new(chunks);
        let supports = self.supports(native, &mut chunks);
        let chunks = chunks.list;
        if queries.is_empty() && supports.is_empty() {
            return None;
        }
        let mut metadata = Map::new();
        if !queries.is_empty() {
            metadata.insert("webSearchQueries".into(), Value::Array(queries));
        }
        if !chunks.is_empty() {
            metadata.insert("groundingChunks".into(), Value::Array(chunks));
        }
        if !supports.is_empty() {
            metadata.insert("groundingSupports".into(), Value::Array(supports));
        }
        Some(Value::Object(metadata))
    }

    fn supports(&self, native: bool, chunks: &mut Chunks) -> Vec<Value> {
        let mut supports: Vec<Value> = Vec::new();
        let mut base = 0;
        for (text, annotations) in &self.texts {
            // The span of the support being built, so the next citation of it joins it.
            let mut open: Option<(u64, u64)> = None;
            let mut walk = CharWalk::new(text);
            for citation in annotations.iter().filter_map(Annotation::as_citation) {
                let (Some(start), Some(end)) = (citation.start_index, citation.end_index) else {
                    continue;
                };
                let index = chunks.index_of(citation, native);
                let score = citation.extras.get("confidence_score").cloned();
                if open == Some((start, end)) {
                    if let Some(support) = supports.last_mut() {
                        push_to(support, "groundingChunkIndices", index.into());
                        if let Some(score) = score {
                            push_to(support, "confidenceScores", score);
                        }
                        continue;
                    }
                }
                open = Some((start, end));
                let mut segment = Map::new();
                segment.insert("startIndex".into(), (base + walk.byte_at(start)).into());
                segment.insert("endIndex".into(), (base + walk.byte_at(end)).into());
                if let Some(part) = citation.extras.get("part_index") {
                    segment.insert("partIndex".into(), part.clone());
                }
                if let Some(cited) = &citation.cited_text {
                    segment.insert("text".into(), cited.as_str().into());
                }
                let mut support = json!({"segment": segment, "groundingChunkIndices": [index]});
                if let Some(score) = score {
                    support["confidenceScores"] = json!([score]);
                }
                supports.push(support);
            }
            base += text.len();
        }
        supports
    }

    /// `urlContextMetadata` of a Gemini message that read pages: the pages as Gemini listed them.
    pub(super) fn url_context(&self, native: bool) -> Option<Value> {
        if !native {
            return None;
        }
        let pages: Vec<Value> = self
            .named("url_context")
            .filter_map(|call| self.result_of(call)?.output.as_ref()?.as_array())
            .flatten()
            .cloned()
            .collect();
        (!pages.is_empty()).then(|| json!({ "urlMetadata": pages }))
    }
}

/// The grounding chunks, and the chunk of each `web` URI (one lookup per citation).
struct Chunks {
    list: Vec<Value>,
    by_uri: HashMap<String, usize>,
}

impl Chunks {
    fn new(list: Vec<Value>) -> Self {
        let mut by_uri = HashMap::new();
        for (index, chunk) in list.iter().enumerate() {
            if let Some(uri) = chunk["web"]["uri"].as_str() {
                by_uri.entry(uri.to_owned()).or_insert(index);
            }
        }
        Chunks { list, by_uri }
    }

    /// The chunk a citation cites: its own index into the search's results (a Gemini
    /// citation), else the `web` chunk of its URL, added the first time.
    fn index_of(&mut self, citation: &Citation, native: bool) -> usize {
        let own = citation
            .extras
            .get("grounding_chunk_index")
            .and_then(Value::as_u64)
            .and_then(|index| usize::try_from(index).ok())
            .filter(|index| native && *index < self.list.len());
        if let Some(index) = own {
            return index;
        }
        let uri = citation.url.as_deref().unwrap_or_default();
        if let Some(index) = self.by_uri.get(uri) {
            return *index;
        }
        let mut web = json!({ "uri": uri });
        if let Some(title) = &citation.title {
            web["title"] = title.as_str().into();
        }
        self.list.push(json!({ "web": web }));
        self.by_uri.insert(uri.to_owned(), self.list.len() - 1);
        self.list.len() - 1
    }
}

fn push_to(support: &mut Value, key: &str, value: Value) {
    match support.get_mut(key).and_then(Value::as_array_mut) {
        Some(list) => list.push(value),
        None => support[key] = json!([value]),
    }
}

/// Byte offsets of characters of one text, found by walking forward from the last one asked
/// (citations come in text order, so a block is walked about once; one behind starts over).
struct CharWalk<'t> {
    text: &'t str,
    chars: u64,
    bytes: usize,
}

impl<'t> CharWalk<'t> {
    fn new(text: &'t str) -> Self {
        CharWalk {
            text,
            chars: 0,
            bytes: 0,
        }
    }

    /// The byte offset of character `at` (the text's length past its end).
    fn byte_at(&mut self, at: u64) -> usize {
        if at < self.chars {
            (self.chars, self.bytes) = (0, 0);
        }
        for character in self.text[self.bytes..].chars() {
            if self.chars == at {
                break;
            }
            self.chars += 1;
            self.bytes += character.len_utf8();
        }
        self.bytes
    }
}

/// True for the calls the Gemini stream writes as parts: code runs.
pub(super) fn is_code(call: &ServerToolCall) -> bool {
    call.name == "code_interpreter"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_become_utf8_bytes_walking_forward_or_starting_over() {
        let mut walk = CharWalk::new("déjà vu ✓");
        assert_eq!(walk.byte_at(0), 0);
        assert_eq!(walk.byte_at(2), 3);
        assert_eq!(walk.byte_at(4), 6);
        // Behind the last one asked: walked again from the start.
        assert_eq!(walk.byte_at(1), 1);
        assert_eq!(walk.byte_at(9), 13);
        assert_eq!(walk.byte_at(50), 13);
    }

    #[test]
    fn citations_of_one_span_are_one_support_and_urls_one_chunk_each() {
        let cite = |url: &str, start: u64, end: u64| {
            Annotation::Citation(Citation {
                url: Some(url.into()),
                title: Some("T".into()),
                cited_text: Some("été".into()),
                start_index: Some(start),
                end_index: Some(end),
                ..Citation::default()
            })
        };
        let blocks = vec![
            ContentBlock::text("Un "),
            ContentBlock::Text {
                text: "été chaud.".into(),
                annotations: vec![
                    cite("https://a.test", 0, 3),
                    cite("https://b.test", 0, 3),
                    cite("https://a.test", 4, 9),
                ],
                id: None,
                phase: None,
            },
        ];
        let grounding = Activity::of_blocks(&blocks).grounding(false).unwrap();
        assert_eq!(
            grounding,
            json!({
                "groundingChunks": [
                    {"web": {"uri": "https://a.test", "title": "T"}},
                    {"web": {"uri": "https://b.test", "title": "T"}},
                ],
                "groundingSupports": [
                    {"segment": {"startIndex": 3, "endIndex": 8, "text": "été"}, "groundingChunkIndices": [0, 1]},
                    {"segment": {"startIndex": 9, "endIndex": 14, "text": "été"}, "groundingChunkIndices": [0]},
                ],
            })
        );
    }
}
