//! The Vercel AI SDK's UI message stream (v5 and later, what `useChat` reads): SSE `data:`
//! lines, one chunk each, in the shapes of the `ai` package's `uiMessageChunkSchema`, then
//! `data: [DONE]`. An HTTP response carrying it sets [`VERCEL_UI_HEADER`].
//!
//! `start` (`messageId`: the provider's response id; `messageMetadata.model`) and `start-step`
//! at the first content; `text-start` / `text-delta` / `text-end` and `reasoning-start` /
//! `-delta` / `-end` for each run of text or reasoning, a run ending at its block's end event
//! ([`Event::TextEnd`](crate::Event::TextEnd) and the like) or at the end of the stream (see
//! `encode::runs`); a refusal is a text run whose `text-start` says
//! `providerMetadata: {"deltafold": {"refusal": true}}`. A client tool call is
//! `tool-input-start` (once its id and name are known), `tool-input-delta`s, then
//! `tool-input-available` with the parsed `input` (or `tool-input-error` with the raw text when
//! the arguments are not a JSON object). A server-side call is the same with
//! `providerExecuted: true, dynamic: true`, its result `tool-output-available` (or
//! `tool-output-error`). Citations with a URL are `source-url` chunks, at the end of the message.
//! An approval request for a remote MCP call is a data part, `data-tool-approval-request`
//! (`data`: the request). `finish-step`, then `finish` with the `finishReason` and `messageMetadata.usage` (the AI
//! SDK's names: `inputTokens`, `outputTokens`, `totalTokens`, `reasoningTokens`,
//! `cachedInputTokens`), then `[DONE]`; a failed source ends with `error` (`errorText`) and
//! `[DONE]`.
//!
//! Only choice 0 is encoded. Lost: a reasoning signature and opaque reasoning data (no chunk
//! holds them), progress and partial images of server calls, citations
//! without a URL, logprobs and provider extras.

use serde_json::{json, Map, Value};

use super::runs::{Announced, Run, Runs};
use super::skeleton::{Channel, Choices, Rules, Scope};
use super::sse::{push_data, push_json_str, push_value};
use super::{cache_read_tokens, finish, reasoning_tokens, server_tools, Identity};
use crate::assemble::{FinishedToolCall, PartialMessage};
use crate::message::{
    AiMessage, Annotation, ContentBlock, ServerToolCall, ServerToolResult, ToolApprovalRequest,
    ToolStatus, UsageMetadata,
};

/// The header (name, value) an HTTP response with this stream sets, as the AI SDK's
/// `UI_MESSAGE_STREAM_HEADERS` does: `useChat` reads the body as a UI message stream.
pub const VERCEL_UI_HEADER: (&str, &str) = ("x-vercel-ai-ui-message-stream", "v1");

const GENERATED_ID: &str = "msg-df";

/// The UI message stream's state.
#[derive(Debug, Default)]
pub(super) struct ChunkRules {
    started: bool,
    runs: Runs,
    calls: Announced,
    saw_tool_calls: bool,
    usage: Option<UsageMetadata>,
    reason: Option<String>,
}

impl ChunkRules {
    /// `start` and `start-step`, once.
    fn start(&mut self, identity: &Identity, out: &mut String) {
        if self.started {
            return;
        }
        self.started = true;
        let mut chunk = String::from("{\"type\":\"start\",\"messageId\":");
        push_json_str(&mut chunk, identity.id_or(GENERATED_ID));
        if let Some(model) = &identity.model {
            chunk.push_str(",\"messageMetadata\":{\"model\":");
            push_json_str(&mut chunk, model);
            chunk.push('}');
        }
        chunk.push('}');
        push_data(out, None, &chunk);
        push_data(out, None, "{\"type\":\"start-step\"}");
    }

    /// Ends the open run, if any.
    fn close_run(&mut self, out: &mut String) {
        if let Some(run) = self.runs.close() {
            end_run(&run, out);
        }
    }

    /// `source-url` for every citation with a URL in the message's text.
    fn sources(message: &PartialMessage, out: &mut String) {
        for (at, (url, title)) in server_tools::url_citations(message).enumerate() {
            let mut chunk =
                json!({"type": "source-url", "sourceId": format!("source-{at}"), "url": url});
            if let Some(title) = title {
                chunk["title"] = json!(title);
            }
            push_value(out, None, &chunk);
        }
    }
}

/// `tool-input-delta` for the call `id`.
fn input_delta(out: &mut String, id: &str, delta: &str) {
    out.push_str("data: {\"type\":\"tool-input-delta\",\"toolCallId\":");
    push_json_str(out, id);
    out.push_str(",\"inputTextDelta\":");
    push_json_str(out, delta);
    out.push_str("}\n\n");
}

/// `text-end` or `reasoning-end`.
fn end_run(run: &Run, out: &mut String) {
    let kind = match run.channel {
        Channel::Reasoning => "reasoning-end",
        Channel::Text | Channel::Refusal => "text-end",
    };
    chunk_with_id(out, kind, &run.id, "");
}

/// `{"type":kind,"id":id` + `rest` + `}` as one event.
fn chunk_with_id(out: &mut String, kind: &str, id: &str, rest: &str) {
    out.push_str("data: {\"type\":\"");
    out.push_str(kind);
    out.push_str("\",\"id\":");
    push_json_str(out, id);
    out.push_str(rest);
    out.push_str("}\n\n");
}

impl Rules for ChunkRules {
    const CHOICES: Choices = Choices::First;

    fn writing(&mut self, scope: &Scope<'_>, out: &mut String) {
        self.start(scope.identity, out);
    }

    fn delta(&mut self, _: &Scope<'_>, _: u32, channel: Channel, text: &str, out: &mut String) {
        let (prefix, start, delta) = match channel {
            Channel::Reasoning => ("reasoning", "reasoning-start", "reasoning-delta"),
            Channel::Text | Channel::Refusal => ("text", "text-start", "text-delta"),
        };
        let entered = self.runs.enter(channel, prefix);
        if let Some(run) = entered.closed {
            end_run(&run, out);
        }
        if entered.opened {
            let marker = if channel == Channel::Refusal {
                ",\"providerMetadata\":{\"deltafold\":{\"refusal\":true}}"
            } else {
                ""
            };
            chunk_with_id(out, start, self.runs.id(), marker);
        }
        let mut rest = String::with_capacity(text.len() + 12);
        rest.push_str(",\"delta\":");
        push_json_str(&mut rest, text);
        chunk_with_id(out, delta, self.runs.id(), &rest);
    }

    fn block_ended(&mut self, _: &Scope<'_>, _: u32, _: Channel, _: u32, out: &mut String) {
        self.close_run(out);
    }

    fn call_started(
        &mut self,
        _: &Scope<'_>,
        _: u32,
        index: u32,
        id: &str,
        name: &str,
        out: &mut String,
    ) {
        self.saw_tool_calls = true;
        // A call without its id or name yet is written whole when it finishes: the part's id
        // and type (`tool-{name}`) cannot change later.
        if id.is_empty() || name.is_empty() {
            return;
        }
        self.calls.client_started(index, id);
        push_value(
            out,
            None,
            &json!({"type": "tool-input-start", "toolCallId": id, "toolName": name}),
        );
    }

    fn call_arguments(&mut self, _: &Scope<'_>, _: u32, index: u32, delta: &str, out: &mut String) {
        if let Some(id) = self.calls.client(index) {
            input_delta(out, id, delta);
        }
    }

    fn call_finished(
        &mut self,
        _: &Scope<'_>,
        _: u32,
        _: u32,
        call: &FinishedToolCall<'_>,
        out: &mut String,
    ) {
        self.saw_tool_calls = true;
        let chunk = match call {
            FinishedToolCall::ToolCall(call) => json!({
                "type": "tool-input-available", "toolCallId": call.id, "toolName": call.name,
                "input": call.args_json(),
            }),
            FinishedToolCall::InvalidToolCall(call) => json!({
                "type": "tool-input-error", "toolCallId": call.id, "toolName": call.name,
                "input": call.args,
                "errorText": call.error,
            }),
        };
        push_value(out, None, &chunk);
    }

    fn server_call_started(
        &mut self,
        _: &Scope<'_>,
        _: u32,
        block: u32,
        id: &str,
        name: &str,
        out: &mut String,
    ) {
        self.calls.server_started(block, id);
        push_value(
            out,
            None,
            &json!({"type": "tool-input-start", "toolCallId": id, "toolName": name,
                    "providerExecuted": true, "dynamic": true}),
        );
    }

    fn server_call_arguments(
        &mut self,
        scope: &Scope<'_>,
        _: u32,
        block: u32,
        delta: &str,
        out: &mut String,
    ) {
        // Code streamed as text, not JSON, is left for the finished call's `input`.
        if let (Some(id), false) = (
            self.calls.server_streaming(block),
            scope.streams_raw_code(block),
        ) {
            input_delta(out, id, delta);
        }
    }

    fn server_call_finished(
        &mut self,
        _: &Scope<'_>,
        _: u32,
        block: u32,
        call: &ServerToolCall,
        out: &mut String,
    ) {
        self.calls.server_finished(block, &call.id);
        push_value(
            out,
            None,
            &json!({"type": "tool-input-available", "toolCallId": call.id, "toolName": call.name,
                    "input": Value::Object(call.args.clone()), "providerExecuted": true,
                    "dynamic": true}),
        );
    }

    fn server_result(
        &mut self,
        _: &Scope<'_>,
        _: u32,
        _: u32,
        result: &ServerToolResult,
        out: &mut String,
    ) {
        // The AI SDK takes an output only for a call its stream announced.
        if !self.calls.has_server(&result.tool_call_id) {
            return;
        }
        let output = result.output.clone().unwrap_or(Value::Null);
        let chunk = match result.status {
            ToolStatus::Error => json!({
                "type": "tool-output-error", "toolCallId": result.tool_call_id,
                "errorText": output.to_string(), "providerExecuted": true, "dynamic": true,
            }),
            _ => json!({
                "type": "tool-output-available", "toolCallId": result.tool_call_id,
                "output": output, "providerExecuted": true, "dynamic": true,
            }),
        };
        push_value(out, None, &chunk);
    }

    fn approval_requested(
        &mut self,
        _: &Scope<'_>,
        _: u32,
        _: u32,
        request: &ToolApprovalRequest,
        out: &mut String,
    ) {
        push_value(
            out,
            None,
            &json!({"type": "data-tool-approval-request", "id": request.id, "data": request}),
        );
    }

    fn usage(&mut self, usage: &UsageMetadata) {
        self.usage = Some(usage.clone());
    }

    fn choice_finished(&mut self, _: &Scope<'_>, _: u32, reason: &str, _: &mut String) {
        self.reason = Some(reason.to_owned());
    }

    fn finish(&mut self, scope: &Scope<'_>, out: &mut String) {
        self.start(scope.identity, out);
        self.close_run(out);
        if let Some(message) = scope.first() {
            Self::sources(message, out);
        }
        push_data(out, None, "{\"type\":\"finish-step\"}");
        let reason = self.reason.as_deref().unwrap_or_default();
        let mut chunk = json!({
            "type": "finish",
            "finishReason": finish::ai_sdk(reason, self.saw_tool_calls),
        });
        let mut metadata = Map::new();
        if !reason.is_empty() {
            metadata.insert("finishReason".into(), json!(reason));
        }
        if let Some(usage) = &self.usage {
            metadata.insert("usage".into(), usage_json(usage));
        }
        if !metadata.is_empty() {
            chunk["messageMetadata"] = Value::Object(metadata);
        }
        push_value(out, None, &chunk);
        push_data(out, None, "[DONE]");
    }

    fn fail(&mut self, scope: &Scope<'_>, error: &str, out: &mut String) {
        self.start(scope.identity, out);
        self.close_run(out);
        let mut chunk = String::from("{\"type\":\"error\",\"errorText\":");
        push_json_str(&mut chunk, error);
        chunk.push('}');
        push_data(out, None, &chunk);
        push_data(out, None, "[DONE]");
    }
}

/// The usage in the AI SDK's `LanguageModelUsage` names.
fn usage_json(usage: &UsageMetadata) -> Value {
    let mut json = json!({
        "inputTokens": usage.input_tokens,
        "outputTokens": usage.output_tokens,
        "totalTokens": usage.total_tokens,
    });
    if let Some(reasoning) = reasoning_tokens(usage) {
        json["reasoningTokens"] = json!(reasoning);
    }
    if let Some(cached) = cache_read_tokens(usage) {
        json["cachedInputTokens"] = json!(cached);
    }
    json
}

/// The `UIMessage` the stream folds into, as the AI SDK's `readUIMessageStream` builds it: the
/// non-streamed form, for an app that stores or sends the whole message.
pub(super) fn ui_message(message: &AiMessage) -> Value {
    let mut parts = vec![json!({"type": "step-start"})];
    let mut sources = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::Text {
                text, annotations, ..
            } => {
                parts.push(json!({"type": "text", "text": text, "state": "done"}));
                sources.extend(annotations.iter().filter_map(source_url));
            }
            ContentBlock::Reasoning { text, .. } => {
                parts.push(json!({"type": "reasoning", "text": text, "state": "done"}))
            }
            ContentBlock::Refusal { refusal, .. } => parts.push(json!({
                "type": "text", "text": refusal, "state": "done",
                "providerMetadata": {"deltafold": {"refusal": true}},
            })),
            ContentBlock::ToolCall(call) => parts.push(json!({
                "type": format!("tool-{}", call.name), "toolCallId": call.id,
                "state": "input-available", "input": Value::Object(call.args.clone()),
            })),
            ContentBlock::InvalidToolCall(call) => parts.push(json!({
                "type": format!("tool-{}", call.name), "toolCallId": call.id,
                "state": "output-error", "rawInput": call.args, "errorText": call.error,
            })),
            _ => {}
        }
    }
    for (at, mut source) in sources.into_iter().enumerate() {
        source["sourceId"] = json!(format!("source-{at}"));
        parts.push(source);
    }
    let identity = Identity::of_message(message);
    let mut metadata = Map::new();
    if let Some(model) = &identity.model {
        metadata.insert("model".into(), json!(model));
    }
    let reason = message.response_metadata.finish_reason.as_str();
    if !reason.is_empty() {
        metadata.insert("finishReason".into(), json!(reason));
    }
    if let Some(usage) = &message.usage {
        metadata.insert("usage".into(), usage_json(usage));
    }
    json!({
        "id": identity.id_or(GENERATED_ID),
        "role": "assistant",
        "metadata": metadata,
        "parts": parts,
    })
}

/// A citation with a URL as a `source-url` part (its `sourceId` set by the caller).
fn source_url(annotation: &Annotation) -> Option<Value> {
    let Annotation::Citation(citation) = annotation else {
        return None;
    };
    let mut source = json!({"type": "source-url", "url": citation.url.as_ref()?});
    if let Some(title) = &citation.title {
        source["title"] = json!(title);
    }
    Some(source)
}
