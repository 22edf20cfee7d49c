//! What Gemini runs itself, in LangChain's standard shapes (names as LangChain's google_genai
//! translator gives them): an `executableCode` part is a `code_interpreter` server tool call
//! (`args: {code, language}`, an id generated when Gemini sends none) and the
//! `codeExecutionResult` part after it that call's result (status error for any `outcome` but
//! `OUTCOME_OK`); a `toolCall` part and its `toolResponse` are a built-in tool's call and result.
//! What Gemini reports in its metadata (search grounding, URL context) is mapped in [`metadata`].
//!
//! Gemini's results carry no call id: a result answers the choice's latest code. Text after a
//! server-side block goes into a block of its own (keyed by how many such blocks came before), so
//! the message keeps the order the parts streamed in.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::delta::{BlockKey, Delta, DeltaSink, Held};
use crate::error::Error;
use crate::message::{ContentBlock, ServerToolCall, ServerToolResult, ToolStatus};

mod metadata;

/// The outcome of code that ran.
const OUTCOME_OK: &str = "OUTCOME_OK";

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
