//! Gemini `streamGenerateContent?alt=sse`: each event one `GenerateContentResponse` with the new
//! part of one candidate (thought parts marked `thought: true`, the reasoning's
//! `thoughtSignature` on the first part after it, a tool call as one whole `functionCall` part
//! once its arguments are complete), the `finishReason` with the usage so far, and no end
//! marker; and the non-streamed `GenerateContentResponse` ([`response`](mod@response)).
//!
//! Code that ran (Gemini's, or another provider's code interpreter) is an `executableCode` part
//! when its call finishes and a `codeExecutionResult` part when its result comes, with `thought`
//! and `thoughtSignature` as the Gemini source had them; web searches, the citations on the text
//! and URL reads go on the candidate's last chunk as `groundingMetadata` and (a Gemini source's)
//! `urlContextMetadata` ([`server`]). Other server-side tools (file search, image generation, MCP
//! calls, approval requests) have no Gemini shape and are left out.

use serde_json::{json, Map, Value};

use super::cursor::{hidden_reasoning, reasoning_seal, BlockCursor, Want};
use super::skeleton::{Channel, Choices, Rules, Scope};
use super::sse::{push_json_str, push_value};
use super::{cache_read_tokens, finish, reasoning_tokens, Identity};
use crate::assemble::{FinishedToolCall, PartialBlock, PartialMessage};
use crate::message::{ContentBlock, ServerToolCall, ServerToolResult, UsageMetadata};
use crate::wire::gemini::parts::{code_execution_result, executable_code};

mod response;
mod server;

pub(super) use response::response;
use server::{is_code, Activity};

/// The provider whose server tools' `extras` are Gemini part fields.
const GEMINI: &str = "google_genai";

/// One candidate's state.
#[derive(Debug)]
struct Candidate {
    index: u32,
    cursor: BlockCursor,
    /// The snapshot block of the reasoning being written, while it is.
    reasoning: Option<Option<usize>>,
    /// A signature waiting for the next part.
    signature: Option<String>,
    /// True once its `finishReason` went out.
    finished: bool,
}

/// The chunk stream's state.
#[derive(Debug, Default)]
pub(super) struct ChunkRules {
    identity: Option<Identity>,
    /// `,"modelVersion":…,"responseId":…}` closing every chunk.
    suffix: String,
    candidates: Vec<Candidate>,
    usage: Option<UsageMetadata>,
    usage_sent: bool,
}

impl Rules for ChunkRules {
    const CHOICES: Choices = Choices::All;

    fn identified(&mut self, identity: &Identity) {
        self.suffix = String::from(",\"modelVersion\":");
        push_json_str(&mut self.suffix, identity.model());
        if let Some(id) = &identity.id {
            self.suffix.push_str(",\"responseId\":");
            push_json_str(&mut self.suffix, id);
        }
        self.suffix.push('}');
        self.identity = Some(identity.clone());
    }

    fn delta(
        &mut self,
        scope: &Scope<'_>,
        choice: u32,
        channel: Channel,
        text: &str,
        out: &mut String,
    ) {
        let message = scope.message(choice);
        let want = match channel {
            Channel::Text => Want::Text,
            Channel::Refusal => Want::Refusal,
            Channel::Reasoning => {
                let candidate = self.candidate(choice);
                if candidate.reasoning.is_none() {
                    let found = message
                        .and_then(|message| candidate.cursor.advance_to(message, Want::Reasoning));
                    candidate.reasoning = Some(found.map(|(_, at)| at));
                }
                let mut part = String::from("{\"text\":");
                push_json_str(&mut part, text);
                part.push_str(",\"thought\":true");
                self.part(out, choice, part, None);
                return;
            }
        };
        let signature = self.leave_reasoning(choice, want, message);
        let mut part = String::from("{\"text\":");
        push_json_str(&mut part, text);
        self.part(out, choice, part, signature);
    }

    /// A call goes out whole when it finishes (see the module doc).
    fn call_started(&mut self, _: &Scope<'_>, _: u32, _: u32, _: &str, _: &str, _: &mut String) {}

    fn call_arguments(&mut self, _: &Scope<'_>, _: u32, _: u32, _: &str, _: &mut String) {}

    fn call_finished(
        &mut self,
        scope: &Scope<'_>,
        choice: u32,
        index: u32,
        call: &FinishedToolCall<'_>,
        out: &mut String,
    ) {
        let message = scope.message(choice);
        // The call's own signature (Gemini 3 signs its function calls), else the one a
        // thought before it left.
        let signature = self
            .leave_reasoning(choice, Want::ToolCall(index), message)
            .or_else(|| {
                call.tool_call()
                    .and_then(crate::message::ToolCall::signature)
                    .map(str::to_owned)
            });
        let part = json!({ "functionCall": function_call(call) }).to_string();
        self.part(out, choice, trim_brace(part), signature);
    }

    fn server_call_finished(
        &mut self,
        scope: &Scope<'_>,
        choice: u32,
        block: u32,
        call: &ServerToolCall,
        out: &mut String,
    ) {
        if !is_code(call) {
            return;
        }
        let native = scope.source == Some(GEMINI);
        let message = scope.message(choice);
        // The reasoning's signature waits for the next text part: a code part's signature
        // is its own.
        let waiting = self.leave_reasoning(choice, Want::Block(block as usize), message);
        self.candidate(choice).signature = waiting;
        let part = executable_code(call, native).to_string();
        self.part(out, choice, trim_brace(part), None);
    }

    fn server_result(
        &mut self,
        scope: &Scope<'_>,
        choice: u32,
        block: u32,
        result: &ServerToolResult,
        out: &mut String,
    ) {
        let native = scope.source == Some(GEMINI);
        let message = scope.message(choice);
        let call = message.and_then(|message| call_named(message, &result.tool_call_id));
        if let (true, Some("url_context"), Some(pages)) = (
            native,
            call.map(|call| call.name.as_str()),
            result.output.as_ref(),
        ) {
            // Gemini says which pages it read on the chunk before the answer they ground, so
            // the call comes before that text.
            let chunk = json!({"candidates": [{
                "content": {"role": "model", "parts": []},
                "urlContextMetadata": {"urlMetadata": pages},
                "index": choice,
            }]});
            self.push_chunk(out, chunk);
        }
        if call.is_some_and(is_code) {
            let waiting = self.leave_reasoning(choice, Want::Block(block as usize), message);
            self.candidate(choice).signature = waiting;
            let part = code_execution_result(result, native).to_string();
            self.part(out, choice, trim_brace(part), None);
        }
    }

    fn usage(&mut self, usage: &UsageMetadata) {
        self.usage = Some(usage.clone());
        self.usage_sent = false;
    }

    fn choice_finished(&mut self, scope: &Scope<'_>, choice: u32, reason: &str, out: &mut String) {
        let native = scope.source == Some(GEMINI);
        let message = scope.message(choice);
        let mut signature = self.leave_reasoning(choice, Want::Text, message);
        if let Some(message) = message {
            let candidate = self.candidate(choice);
            for at in candidate.cursor.rest(message) {
                if let Some((Some(hidden), _)) = hidden_reasoning(&message.blocks()[at]) {
                    signature.get_or_insert_with(|| hidden.to_owned());
                }
            }
        }
        self.candidate(choice).finished = true;
        let refused = message.is_some_and(|message| !message.refusal().is_empty());
        let reason = finish::gemini(reason, scope.has_tool_calls(choice), refused);
        let parts = match signature {
            Some(signature) => json!([{ "thoughtSignature": signature }]),
            None => json!([]),
        };
        let mut chunk = json!({
            "candidates": [{
                "content": {"role": "model", "parts": parts},
                "finishReason": reason,
                "index": choice,
            }],
        });
        if let Some(message) = message {
            let activity = Activity::of_snapshot(message);
            metadata(&mut chunk["candidates"][0], &activity, native, false);
        }
        if let Some(usage) = &self.usage {
            chunk["usageMetadata"] = usage_json(usage);
            self.usage_sent = true;
        }
        self.push_chunk(out, chunk);
    }

    /// Writes the usage if it changed since the last chunk that carried it.
    fn finish(&mut self, _: &Scope<'_>, out: &mut String) {
        // Gemini has no end marker: a candidate the source never finished is stopped here.
        let unfinished: Vec<u32> = self
            .candidates
            .iter()
            .filter(|candidate| !candidate.finished)
            .map(|candidate| candidate.index)
            .collect();
        for index in unfinished {
            let mut chunk = json!({"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "STOP", "index": index}]});
            if let Some(usage) = &self.usage {
                chunk["usageMetadata"] = usage_json(usage);
                self.usage_sent = true;
            }
            self.push_chunk(out, chunk);
        }
        if let (Some(usage), false) = (&self.usage, self.usage_sent) {
            let chunk = json!({ "usageMetadata": usage_json(usage) });
            self.push_chunk(out, chunk);
        }
    }
}

impl ChunkRules {
    fn candidate(&mut self, index: u32) -> &mut Candidate {
        let at = match self
            .candidates
            .iter()
            .position(|candidate| candidate.index == index)
        {
            Some(at) => at,
            None => {
                self.candidates.push(Candidate {
                    index,
                    cursor: BlockCursor::default(),
                    reasoning: None,
                    signature: None,
                    finished: false,
                });
                self.candidates.len() - 1
            }
        };
        &mut self.candidates[at]
    }

    /// Ends the candidate's reasoning, if it was writing one: its signature goes on the next
    /// part. Moves the cursor past the block the next part mirrors.
    fn leave_reasoning(
        &mut self,
        choice: u32,
        next: Want,
        message: Option<&PartialMessage>,
    ) -> Option<String> {
        let candidate = self.candidate(choice);
        if let (Some(mirrors), Some(message)) = (candidate.reasoning.take(), message) {
            if let Some((Some(signature), _)) = mirrors.map(|at| reasoning_seal(message, at)) {
                candidate.signature = Some(signature.to_owned());
            }
        }
        if let Some(message) = message {
            if let Some((passed, _)) = candidate.cursor.advance_to(message, next) {
                for at in passed {
                    if let Some((Some(hidden), _)) = hidden_reasoning(&message.blocks()[at]) {
                        candidate.signature.get_or_insert_with(|| hidden.to_owned());
                    }
                }
            }
        }
        candidate.signature.take()
    }

    /// Writes a chunk with one part; `part` is its JSON without the closing brace.
    fn part(&mut self, out: &mut String, choice: u32, mut part: String, signature: Option<String>) {
        if let Some(signature) = signature {
            part.push_str(",\"thoughtSignature\":");
            push_json_str(&mut part, &signature);
        }
        out.push_str("data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[");
        out.push_str(&part);
        out.push_str("}]},\"index\":");
        out.push_str(&choice.to_string());
        out.push_str("}]");
        out.push_str(&self.suffix);
        out.push_str("\n\n");
    }

    fn push_chunk(&self, out: &mut String, mut chunk: Value) {
        if let Some(identity) = &self.identity {
            chunk["modelVersion"] = json!(identity.model());
            if let Some(id) = &identity.id {
                chunk["responseId"] = json!(id);
            }
        }
        push_value(out, None, &chunk);
    }
}

/// The server-side call of the snapshot with this id.
fn call_named<'m>(message: &'m PartialMessage, id: &str) -> Option<&'m ServerToolCall> {
    message.blocks().iter().rev().find_map(|block| match block {
        PartialBlock::ServerToolCall(pending) if pending.call().id == id => Some(pending.call()),
        PartialBlock::Content(ContentBlock::ServerToolCall(call)) if call.id == id => Some(call),
        _ => None,
    })
}

/// Puts what the message searched (and, with `pages`, the pages it read) on its candidate.
fn metadata(candidate: &mut Value, activity: &Activity<'_>, native: bool, pages: bool) {
    if let Some(grounding) = activity.grounding(native) {
        candidate["groundingMetadata"] = grounding;
    }
    if let Some(pages) = activity.url_context(native).filter(|_| pages) {
        candidate["urlContextMetadata"] = pages;
    }
}

/// `{…}` without its closing brace, for a part that may get a signature appended.
fn trim_brace(mut json: String) -> String {
    json.pop();
    json
}

/// Gemini's `functionCall`: arguments that are not an object cannot be carried, and become `{}`.
fn function_call(call: &FinishedToolCall<'_>) -> Value {
    let empty = Map::new();
    let args = call.tool_call().map_or(&empty, |call| &call.args);
    json!({"id": call.id(), "name": call.name(), "args": args})
}

/// `usageMetadata`: candidates are the output tokens without the thoughts — when the output
/// counted them. A source whose total is input + output + reasoning (xAI) counted the reasoning
/// apart: its output is the candidates already (Gemini's total is prompt + candidates + thoughts).
fn usage_json(usage: &UsageMetadata) -> Value {
    let thoughts = reasoning_tokens(usage).unwrap_or(0);
    let counted_apart = thoughts > 0
        && usage.input_tokens + usage.output_tokens < usage.total_tokens
        && usage.input_tokens + usage.output_tokens + thoughts == usage.total_tokens;
    let candidates = if counted_apart {
        usage.output_tokens
    } else {
        usage.output_tokens.saturating_sub(thoughts)
    };
    let mut json = json!({
        "promptTokenCount": usage.input_tokens,
        "candidatesTokenCount": candidates,
        "totalTokenCount": usage.total_tokens,
    });
    if thoughts > 0 {
        json["thoughtsTokenCount"] = json!(thoughts);
    }
    if let Some(cached) = cache_read_tokens(usage) {
        json["cachedContentTokenCount"] = json!(cached);
    }
    json
}
