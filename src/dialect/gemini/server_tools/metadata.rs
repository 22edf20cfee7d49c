//! What Gemini reports beside the parts, in its metadata, as server tools: a `groundingMetadata`
//! with `webSearchQueries` is a `web_search` call and its result (the `groundingChunks`), and its
//! `groundingSupports` are citations on the answer text (url and title from the cited chunk, the
//! segment's text as `cited_text`), whose byte spans the assembler turns into characters; a
//! `urlContextMetadata` is a `url_context` call and result.
//!
//! Apart from the parts (`mod.rs`) because metadata is not streamed in order with the text:
//! Gemini repeats it on later chunks (each object is mapped once, by a fingerprint), and its
//! calls are keyed apart, so the text goes on in its block.

use std::hash::{Hash, Hasher};

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{end_call, object, ChoiceTools, ServerTools};
use crate::delta::{BlockKey, Delta, DeltaSink, SpanCitation};
use crate::error::Error;
use crate::message::{Citation, ServerToolCall, ToolStatus};

/// The key of calls read from metadata, started and finished at once (code parts are keyed by
/// their segment).
const METADATA_KEY: BlockKey = BlockKey {
    item: u32::MAX,
    part: 0,
};
/// The status of a URL that was read.
const URL_OK: &str = "URL_RETRIEVAL_STATUS_SUCCESS";

impl ServerTools {
    /// A populated `groundingMetadata`: the search that ran, and citations on the text.
    pub(in crate::dialect::gemini) fn grounding(
        &mut self,
        choice: u32,
        raw: &RawValue,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        if !self.first_time(choice, raw, |tools| &mut tools.grounding, sink)? {
            return Ok(());
        }
        let mut metadata = object(raw);
        let chunks = match metadata.remove("groundingChunks") {
            Some(Value::Array(chunks)) => chunks,
            _ => Vec::new(),
        };
        let spans = citations(&metadata, &chunks);
        if let Some(Value::Array(queries)) = metadata.remove("webSearchQueries") {
            if !queries.is_empty() {
                let id = self.generate_id();
                let args = Map::from_iter([("queries".to_owned(), Value::Array(queries))]);
                self.call_and_result(choice, id, "web_search", args, Value::Array(chunks), sink)?;
            }
        }
        if spans.is_empty() {
            return Ok(());
        }
        sink.apply(Delta::SpanCitations { choice, spans })
    }

    /// A populated `urlContextMetadata`: the pages read, as a `url_context` call and result.
    pub(in crate::dialect::gemini) fn url_context(
        &mut self,
        choice: u32,
        raw: &RawValue,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        if !self.first_time(choice, raw, |tools| &mut tools.url_context, sink)? {
            return Ok(());
        }
        let Some(Value::Array(pages)) = object(raw).remove("urlMetadata") else {
            return Ok(());
        };
        let urls: Vec<Value> = pages
            .iter()
            .filter_map(|page| page.get("retrievedUrl").cloned())
            .collect();
        let args = Map::from_iter([("urls".to_owned(), Value::Array(urls))]);
        let id = self.generate_id();
        self.call_and_result(choice, id, "url_context", args, Value::Array(pages), sink)
    }

    /// A call that ran and its result, both sent whole in one chunk.
    fn call_and_result(
        &mut self,
        choice: u32,
        id: String,
        name: &str,
        args: Map<String, Value>,
        output: Value,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let failed = name == "url_context"
            && output.as_array().is_some_and(|pages| {
                pages.iter().any(|page| {
                    page.get("urlRetrievalStatus").and_then(Value::as_str) != Some(URL_OK)
                })
            });
        let status = if failed {
            ToolStatus::Error
        } else {
            ToolStatus::Success
        };
        let call = ServerToolCall {
            id: id.clone(),
            name: name.to_owned(),
            args,
            index: None,
            extras: Map::new(),
        };
        // Metadata, not parts: the text goes on in its block, as it would without them.
        sink.apply(Delta::ServerToolStart {
            choice,
            key: METADATA_KEY,
            call,
        })?;
        end_call(choice, METADATA_KEY, sink)?;
        let block_type = match name {
            "url_context" => "url_context_metadata",
            _ => "grounding_metadata",
        };
        let extras = Map::from_iter([("block_type".to_owned(), block_type.into())]);
        self.result(choice, id, status, Some(output), extras, sink)
    }

    /// True the first time `raw` comes for the choice's metadata `slot`: Gemini repeats a
    /// metadata object on later chunks, and it is mapped once.
    fn first_time(
        &mut self,
        choice: u32,
        raw: &RawValue,
        slot: fn(&mut ChoiceTools) -> &mut Option<u64>,
        sink: &mut impl DeltaSink,
    ) -> Result<bool, Error> {
        let fingerprint = fingerprint(raw.get());
        let seen = slot(self.tools(choice, sink)?);
        let first = *seen != Some(fingerprint);
        *seen = Some(fingerprint);
        Ok(first)
    }
}

/// The supports of a grounding metadata as cited spans: one citation per chunk a support cites,
/// with the chunk's url and title (a web page, a retrieved document or a map place).
fn citations(metadata: &Map<String, Value>, chunks: &[Value]) -> Vec<SpanCitation> {
    let Some(Value::Array(supports)) = metadata.get("groundingSupports") else {
        return Vec::new();
    };
    let mut spans = Vec::with_capacity(supports.len());
    for support in supports {
        let segment = support.get("segment");
        let field = |key: &str| segment.and_then(|segment| segment.get(key));
        let offset = |key: &str| {
            field(key)
                .and_then(Value::as_u64)
                .and_then(|offset| usize::try_from(offset).ok())
        };
        let text = field("text").and_then(Value::as_str);
        let start = offset("startIndex").unwrap_or(0);
        let end = offset("endIndex").unwrap_or(start);
        let indices = support
            .get("groundingChunkIndices")
            .and_then(Value::as_array);
        let scores = support.get("confidenceScores").and_then(Value::as_array);
        let mut cited = Vec::new();
        for (position, index) in indices.into_iter().flatten().enumerate() {
            let Some(chunk) = index
                .as_u64()
                .and_then(|index| chunks.get(usize::try_from(index).ok()?))
            else {
                continue;
            };
            let (source, tool) = ["web", "retrievedContext", "maps"]
                .into_iter()
                .find_map(|kind| Some((chunk.get(kind)?, kind)))
                .unwrap_or((&Value::Null, ""));
            let string = |key: &str| source.get(key).and_then(Value::as_str).map(str::to_owned);
            let mut extras = Map::new();
            extras.insert("grounding_chunk_index".into(), index.clone());
            if let Some(score) = scores.and_then(|scores| scores.get(position)) {
                extras.insert("confidence_score".into(), score.clone());
            }
            if let Some(part) = field("partIndex") {
                extras.insert("part_index".into(), part.clone());
            }
            cited.push(Citation {
                url: string("uri"),
                title: string("title"),
                cited_text: text.map(str::to_owned),
                tool_name: (tool == "web").then(|| "web_search".to_owned()),
                ..Citation::default()
            });
            if let Some(citation) = cited.last_mut() {
                citation.extras = extras;
            }
        }
        if !cited.is_empty() {
            spans.push(SpanCitation {
                start,
                end,
                text: text.map(str::to_owned),
                citations: cited,
            });
        }
    }
    spans
}

fn fingerprint(raw: &str) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    raw.hash(&mut hasher);
    hasher.finish()
}
