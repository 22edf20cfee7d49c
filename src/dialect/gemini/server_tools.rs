//! What Gemini runs itself, in LangChain's standard shapes (names as LangChain's google_genai
//! translator gives them): an `executableCode` part is a `code_interpreter` server tool call
//! (`args: {code, language}`, an id generated when Gemini sends none) and the
//! `codeExecutionResult` part after it that call's result (status error for any `outcome` but
//! `OUTCOME_OK`); a `groundingMetadata` with `webSearchQueries` is a `web_search` call and its
//! result (the `groundingChunks`), and its `groundingSupports` are citations on the answer text
//! (url and title from the cited chunk, the segment's text as `cited_text`), whose byte spans the
//! assembler turns into characters; a `urlContextMetadata` is a `url_context` call and result.
//!
//! Gemini's results carry no call id: a result answers the choice's latest code. Text after a
//! server-side block goes into a block of its own (keyed by how many such blocks came before), so
//! the message keeps the order the parts streamed in.

use std::hash::{Hash, Hasher};

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::delta::{BlockKey, Delta, DeltaSink, Held, SpanCitation};
use crate::error::Error;
use crate::message::{Citation, ContentBlock, ServerToolCall, ServerToolResult, ToolStatus};

/// The outcome of code that ran.
const OUTCOME_OK: &str = "OUTCOME_OK";
/// The key of calls read from metadata, started and finished at once (code parts are keyed by
/// their segment).
const METADATA_KEY: BlockKey = BlockKey {
    item: u32::MAX,
    part: 0,
};
/// The status of a URL that was read.
const URL_OK: &str = "URL_RETRIEVAL_STATUS_SUCCESS";

/// What the dialect keeps of each choice's server-side tools between chunks.
#[derive(Debug, Default)]
pub(super) struct ServerTools {
    choices: Vec<ChoiceTools>,
    /// The number of the next generated call id.
    next_id: usize,
}

#[derive(Debug)]
struct ChoiceTools {
    choice: u32,
    /// How many server-side blocks the choice has: text after them is keyed by it.
    segment: u32,
    /// The id of the latest code, which the next result answers.
    last_code: Option<String>,
    /// Fingerprints of the metadata already mapped, so a repeated one maps once.
    grounding: Option<u64>,
    url_context: Option<u64>,
}

impl ServerTools {
    /// True once a choice had a server-side block: its text is keyed, so the general path reads
    /// every chunk.
    pub(super) fn any(&self) -> bool {
        self.choices.iter().any(|tools| tools.segment > 0)
    }

    /// The key text of `choice` goes under, once a server-side block came before it.
    pub(super) fn text_key(&self, choice: u32) -> Option<BlockKey> {
        let tools = self.choices.iter().find(|tools| tools.choice == choice)?;
        (tools.segment > 0).then_some(BlockKey {
            item: tools.segment,
            part: 0,
        })
    }

    /// An `executableCode` part: a whole call, started and finished at once.
    pub(super) fn code(
        &mut self,
        choice: u32,
        raw: &RawValue,
        thought: bool,
        signature: Option<&str>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let mut code = object(raw);
        let id = take_string(&mut code, "id").unwrap_or_else(|| self.generate_id());
        let mut args = Map::new();
        for key in ["code", "language"] {
            if let Some(value) = code.remove(key) {
                args.insert(key.to_owned(), value);
            }
        }
        mark(&mut code, thought, signature);
        self.tools(choice, sink)?.last_code = Some(id.clone());
        self.part_call(choice, id, "code_interpreter".into(), args, code, sink)
    }

    /// A `codeExecutionResult` part: the result of the choice's latest code.
    pub(super) fn code_result(
        &mut self,
        choice: u32,
        raw: &RawValue,
        thought: bool,
        signature: Option<&str>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let mut result = object(raw);
        let tools = self.tools(choice, sink)?;
        let tool_call_id = take_string(&mut result, "id")
            .or_else(|| tools.last_code.take())
            .unwrap_or_default();
        let status = match result.get("outcome").and_then(Value::as_str) {
            Some(outcome) if outcome != OUTCOME_OK => ToolStatus::Error,
            _ => ToolStatus::Success,
        };
        let output = result.remove("output");
        mark(&mut result, thought, signature);
        result.insert("block_type".into(), "code_execution_result".into());
        self.result(choice, tool_call_id, status, output, result, sink)
    }

    /// A `toolCall` part (Gemini 3 says in a part which built-in tool it runs — `toolType:
    /// FILE_SEARCH`… — with the id its `toolResponse` names): a server tool call named by the
    /// type in lower case, its `args` and its signature kept.
    pub(super) fn tool_call(
        &mut self,
        choice: u32,
        raw: &RawValue,
        thought: bool,
        signature: Option<&str>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let mut fields = object(raw);
        let id = take_string(&mut fields, "id").unwrap_or_else(|| self.generate_id());
        let name = fields
            .get("toolType")
            .and_then(Value::as_str)
            .map_or_else(|| "tool".to_owned(), str::to_ascii_lowercase);
        let args = match fields.remove("args") {
            Some(Value::Object(args)) => args,
            Some(other) => {
                fields.insert("args".into(), other);
                Map::new()
            }
            None => Map::new(),
        };
        mark(&mut fields, thought, signature);
        self.part_call(choice, id, name, args, fields, sink)
    }

    /// A whole call read from one part, its id charged to the budget (the rest is the part's).
    fn part_call(
        &mut self,
        choice: u32,
        id: String,
        name: String,
        args: Map<String, Value>,
        extras: Map<String, Value>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        sink.apply(Delta::Held(Held {
            entries: 1,
            bytes: id.len(),
        }))?;
        let call = ServerToolCall {
            id,
            name,
            args,
            index: None,
            extras,
        };
        self.whole_call(choice, call, sink)
    }

    /// A `toolResponse` part: the result of the `toolCall` of its id, its `response` the output.
    pub(super) fn tool_response(
        &mut self,
        choice: u32,
        raw: &RawValue,
        thought: bool,
        signature: Option<&str>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let mut fields = object(raw);
        let tool_call_id = take_string(&mut fields, "id").unwrap_or_default();
        let output = fields.remove("response");
        mark(&mut fields, thought, signature);
        fields.insert("block_type".into(), "tool_response".into());
        self.result(
            choice,
            tool_call_id,
            ToolStatus::Success,
            output,
            fields,
            sink,
        )
    }

    /// A populated `groundingMetadata`: the search that ran, and citations on the text.
    pub(super) fn grounding(
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
    pub(super) fn url_context(
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

    /// A block that stands between texts (an image the model made): text after it goes into a
    /// block of its own, as after a server-side block.
    pub(super) fn standalone(
        &mut self,
        choice: u32,
        block: ContentBlock,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        self.next_segment(choice, sink)?;
        sink.apply(Delta::Block { choice, block })
    }

    fn whole_call(
        &mut self,
        choice: u32,
        call: ServerToolCall,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let key = self.next_segment(choice, sink)?;
        sink.apply(Delta::ServerToolStart { choice, key, call })?;
        end_call(choice, key, sink)
    }

    fn result(
        &mut self,
        choice: u32,
        tool_call_id: String,
        status: ToolStatus,
        output: Option<Value>,
        extras: Map<String, Value>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        if extras.get("block_type").and_then(Value::as_str) == Some("code_execution_result") {
            self.next_segment(choice, sink)?;
        }
        let result = ServerToolResult {
            id: None,
            tool_call_id,
            status,
            output,
            extras,
        };
        sink.apply(Delta::Block {
            choice,
            block: ContentBlock::ServerToolResult(result),
        })
    }

    /// Counts a server-side block of `choice`; the key it goes under.
    fn next_segment(&mut self, choice: u32, sink: &mut impl DeltaSink) -> Result<BlockKey, Error> {
        let tools = self.tools(choice, sink)?;
        tools.segment = tools.segment.saturating_add(1);
        Ok(BlockKey {
            item: tools.segment,
            part: 1,
        })
    }

    /// The state of `choice`, made (and charged) at first use.
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

    fn tools(&mut self, choice: u32, sink: &mut impl DeltaSink) -> Result<&mut ChoiceTools, Error> {
        match self.choices.iter().position(|tools| tools.choice == choice) {
            Some(position) => Ok(&mut self.choices[position]),
            None => {
                sink.apply(Delta::Held(Held {
                    entries: 1,
                    bytes: std::mem::size_of::<ChoiceTools>(),
                }))?;
                self.choices.push(ChoiceTools {
                    choice,
                    segment: 0,
                    last_code: None,
                    grounding: None,
                    url_context: None,
                });
                Ok(self.choices.last_mut().expect("just pushed"))
            }
        }
    }

    fn generate_id(&mut self) -> String {
        let id = format!("srvtoolu_df_{}", self.next_id);
        self.next_id += 1;
        id
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

/// The call sent whole is complete.
fn end_call(choice: u32, key: BlockKey, sink: &mut impl DeltaSink) -> Result<(), Error> {
    sink.apply(Delta::ServerToolEnd {
        choice,
        key,
        args: None,
        extras: Map::new(),
    })
}

/// Marks a part run while thinking, and keeps its signature.
fn mark(fields: &mut Map<String, Value>, thought: bool, signature: Option<&str>) {
    if thought {
        fields.insert("thought".into(), true.into());
    }
    if let Some(signature) = signature {
        fields.insert("signature".into(), signature.into());
    }
}

fn object(raw: &RawValue) -> Map<String, Value> {
    match serde_json::from_str(raw.get()) {
        Ok(Value::Object(object)) => object,
        _ => Map::new(),
    }
}

fn take_string(fields: &mut Map<String, Value>, key: &str) -> Option<String> {
    match fields.remove(key) {
        Some(Value::String(text)) if !text.is_empty() => Some(text),
        Some(Value::String(_)) | None => None,
        Some(other) => {
            fields.insert(key.to_owned(), other);
            None
        }
    }
}

fn fingerprint(raw: &str) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    raw.hash(&mut hasher);
    hasher.finish()
}
