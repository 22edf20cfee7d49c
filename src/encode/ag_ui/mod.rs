//! AG-UI (the Agent-User Interaction protocol of CopilotKit and the agent frameworks): SSE
//! `data:` lines, one event each, valid under `@ag-ui/core`'s schemas and the order its client's
//! `verifyEvents` enforces.
//!
//! `RUN_STARTED` (`threadId`, `runId`: set by [`Encoder::ag_ui`](super::Encoder::ag_ui), else
//! `deltafold` and the provider's response id) at the first content; each run of text a text
//! message (`TEXT_MESSAGE_START` with `role: "assistant"`, `_CONTENT`, `_END`), a run ending at
//! its block's end event ([`Event::TextEnd`](crate::Event::TextEnd) and the like) or at the end
//! of the stream (see `encode::runs`); a refusal is a text message whose
//! start says `metadata: {"deltafold": {"refusal": true}}`. Reasoning as `@ag-ui/core` 1.0
//! defines it: `REASONING_START`, `REASONING_MESSAGE_START` (`role: "reasoning"`),
//! `_CONTENT`, `REASONING_MESSAGE_END`, `REASONING_END`, the block's signature or opaque data as
//! a `REASONING_ENCRYPTED_VALUE` (`subtype: "message"`) before the span ends. A client tool call
//! is `TOOL_CALL_START` (`parentMessageId`: the text message before it, else the run's
//! assistant message), `TOOL_CALL_ARGS` as the arguments stream, `TOOL_CALL_END` when it
//! finishes (a call that starts without an id is written whole then). A server-side call is a
//! tool call whose events say `metadata: {"deltafold": {"providerExecuted": true}}`, its result
//! a `TOOL_CALL_RESULT` (`content`: the output as JSON text). Citations with a URL are `CUSTOM`
//! events named `source-url` (`value`: `url`, `title`) at the end of the message; an approval
//! request is a `CUSTOM` event named `tool-approval-request` (`value`: the request). The end is
//! `RUN_FINISHED` with `result.finishReason` (the provider's word) and `usage` (AG-UI's
//! `TokenUsage`: model and token counts); a failed source ends with `RUN_ERROR` (`message`).
//!
//! Only choice 0 is encoded. Lost: reasoning with no text (only a signature or opaque data: no
//! reasoning message to hang it on), progress and partial images of server calls, citations
//! without a URL, logprobs and provider extras.
//!
//! The non-streamed form, a `MESSAGES_SNAPSHOT` event, is written in [`snapshot`].

use serde_json::{json, Value};

mod snapshot;

pub(super) use snapshot::messages_snapshot;

use super::cursor::{reasoning_seal, BlockCursor, Want};
use super::runs::{Announced, Run, Runs};
use super::skeleton::{Channel, Choices, Rules, Scope};
use super::sse::{push_data, push_json_str, push_value};
use super::{cache_read_tokens, call_parts, reasoning_tokens, server_tools, Identity};
use crate::assemble::{FinishedToolCall, PartialMessage};
use crate::message::{ServerToolCall, ServerToolResult, ToolApprovalRequest, UsageMetadata};

/// The thread id written when the caller gave none.
const DEFAULT_THREAD: &str = "deltafold";
/// The run id written when the caller gave none and the source has no response id.
const GENERATED_RUN: &str = "run-df";
const PROVIDER_EXECUTED: &str = "\"metadata\":{\"deltafold\":{\"providerExecuted\":true}}";

/// The event stream's state.
#[derive(Debug, Default)]
pub(super) struct EventRules {
    /// The thread and run ids the caller gave.
    thread: Option<String>,
    run: Option<String>,
    started: bool,
    runs: Runs,
    /// The snapshot block the open reasoning run mirrors, for its signature.
    reasoning_block: Option<usize>,
    cursor: BlockCursor,
    /// The text message tool calls hang on; empty before the first.
    parent: String,
    calls: Announced,
    /// Server-side call results written, to number their messages.
    results: u32,
    usage: Option<UsageMetadata>,
    reason: Option<String>,
    model: Option<String>,
}

impl EventRules {
    /// Rules writing `thread` and `run` as the run's ids.
    pub(super) fn with_ids(thread: &str, run: &str) -> Self {
        EventRules {
            thread: Some(thread.to_owned()),
            run: Some(run.to_owned()),
            ..EventRules::default()
        }
    }

    fn thread(&self) -> &str {
        self.thread.as_deref().unwrap_or(DEFAULT_THREAD)
    }

    /// `RUN_STARTED`, once.
    fn start(&mut self, identity: &Identity, out: &mut String) {
        if self.started {
            return;
        }
        self.started = true;
        if self.run.is_none() {
            self.run = Some(identity.id_or(GENERATED_RUN).to_owned());
        }
        self.model = identity.model.clone();
        self.parent = format!("{}-assistant", self.run_id());
        self.runs.set_namespace(format!("{}-", self.run_id()));
        let mut event = String::from("{\"type\":\"RUN_STARTED\",\"threadId\":");
        push_json_str(&mut event, self.thread());
        event.push_str(",\"runId\":");
        push_json_str(&mut event, self.run_id());
        event.push('}');
        push_data(out, None, &event);
    }

    fn run_id(&self) -> &str {
        self.run.as_deref().unwrap_or(GENERATED_RUN)
    }

    /// Ends the open run, if any.
    fn close_run(&mut self, message: Option<&PartialMessage>, out: &mut String) {
        if let Some(run) = self.runs.close() {
            self.end_run(&run, message, out);
        }
    }

    /// Ends `run`, with its signature when it is reasoning.
    fn end_run(&mut self, run: &Run, message: Option<&PartialMessage>, out: &mut String) {
        let mirrored = self.reasoning_block.take();
        if run.channel == Channel::Reasoning {
            simple(out, "REASONING_MESSAGE_END", &run.id);
            let seal = message
                .zip(mirrored)
                .map(|(message, at)| reasoning_seal(message, at));
            if let Some((signature, data)) = seal {
                if let Some(value) = signature.or(data) {
                    let mut event = String::from(
                        "{\"type\":\"REASONING_ENCRYPTED_VALUE\",\"subtype\":\"message\",\"entityId\":",
                    );
                    push_json_str(&mut event, &run.id);
                    event.push_str(",\"encryptedValue\":");
                    push_json_str(&mut event, value);
                    event.push('}');
                    push_data(out, None, &event);
                }
            }
            simple(out, "REASONING_END", &run.id);
        } else {
            simple(out, "TEXT_MESSAGE_END", &run.id);
        }
    }

    /// `TOOL_CALL_START`, with the provider-executed mark for a server-side call.
    fn call_start(&self, id: &str, name: &str, server: bool, out: &mut String) {
        let mut event = String::from("{\"type\":\"TOOL_CALL_START\",\"toolCallId\":");
        push_json_str(&mut event, id);
        event.push_str(",\"toolCallName\":");
        push_json_str(&mut event, name);
        event.push_str(",\"parentMessageId\":");
        push_json_str(&mut event, &self.parent);
        if server {
            event.push(',');
            event.push_str(PROVIDER_EXECUTED);
        }
        event.push('}');
        push_data(out, None, &event);
    }

    /// `CUSTOM` `source-url` for every citation with a URL in the message's text.
    fn sources(message: &PartialMessage, out: &mut String) {
        for (url, title) in server_tools::url_citations(message) {
            let mut value = json!({ "url": url });
            if let Some(title) = title {
                value["title"] = json!(title);
            }
            push_value(
                out,
                None,
                &json!({"type": "CUSTOM", "name": "source-url", "value": value}),
            );
        }
    }
}

/// `{"type":kind,"messageId":id}`, or with the id under `toolCallId` for a tool call's events.
fn simple(out: &mut String, kind: &str, id: &str) {
    let key = if kind.starts_with("TOOL_CALL") {
        "toolCallId"
    } else {
        "messageId"
    };
    out.push_str("data: {\"type\":\"");
    out.push_str(kind);
    out.push_str("\",\"");
    out.push_str(key);
    out.push_str("\":");
    push_json_str(out, id);
    out.push_str("}\n\n");
}

/// `{"type":kind,"<key>":id,"delta":delta}`.
fn content(out: &mut String, kind: &str, key: &str, id: &str, delta: &str) {
    out.push_str("data: {\"type\":\"");
    out.push_str(kind);
    out.push_str("\",\"");
    out.push_str(key);
    out.push_str("\":");
    push_json_str(out, id);
    out.push_str(",\"delta\":");
    push_json_str(out, delta);
    out.push_str("}\n\n");
}

impl Rules for EventRules {
    const CHOICES: Choices = Choices::First;

    fn writing(&mut self, scope: &Scope<'_>, out: &mut String) {
        self.start(scope.identity, out);
    }

    fn delta(&mut self, scope: &Scope<'_>, _: u32, channel: Channel, text: &str, out: &mut String) {
        let message = scope.first();
        let prefix = if channel == Channel::Reasoning {
            "reasoning"
        } else {
            "text"
        };
        let entered = self.runs.enter(channel, prefix);
        if let Some(run) = entered.closed {
            self.end_run(&run, message, out);
        }
        if entered.opened {
            let id = self.runs.id().to_owned();
            match channel {
                Channel::Reasoning => {
                    self.reasoning_block = message
                        .and_then(|message| self.cursor.advance_to(message, Want::Reasoning))
                        .map(|(_, at)| at);
                    simple(out, "REASONING_START", &id);
                    let mut event =
                        String::from("{\"type\":\"REASONING_MESSAGE_START\",\"messageId\":");
                    push_json_str(&mut event, &id);
                    event.push_str(",\"role\":\"reasoning\"}");
                    push_data(out, None, &event);
                }
                Channel::Text | Channel::Refusal => {
                    let mut event = String::from("{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":");
                    push_json_str(&mut event, &id);
                    event.push_str(",\"role\":\"assistant\"");
                    if channel == Channel::Refusal {
                        event.push_str(",\"metadata\":{\"deltafold\":{\"refusal\":true}}");
                    }
                    event.push('}');
                    push_data(out, None, &event);
                    self.parent = id;
                }
            }
        }
        let kind = match channel {
            Channel::Reasoning => "REASONING_MESSAGE_CONTENT",
            Channel::Text | Channel::Refusal => "TEXT_MESSAGE_CONTENT",
        };
        content(out, kind, "messageId", self.runs.id(), text);
    }

    fn block_ended(&mut self, scope: &Scope<'_>, _: u32, _: Channel, _: u32, out: &mut String) {
        self.close_run(scope.first(), out);
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
        // A call without its id or name yet is written whole when it finishes.
        if id.is_empty() || name.is_empty() {
            return;
        }
        self.calls.client_started(index, id);
        self.call_start(id, name, false, out);
    }

    fn call_arguments(&mut self, _: &Scope<'_>, _: u32, index: u32, delta: &str, out: &mut String) {
        if let Some(id) = self.calls.client(index) {
            content(out, "TOOL_CALL_ARGS", "toolCallId", id, delta);
        }
    }

    fn call_finished(
        &mut self,
        _: &Scope<'_>,
        _: u32,
        index: u32,
        call: &FinishedToolCall<'_>,
        out: &mut String,
    ) {
        let (id, name, arguments) = call_parts(call);
        if id.is_empty() && name.is_empty() {
            return;
        }
        if self.calls.client(index).is_none() {
            self.call_start(id, name, false, out);
            content(out, "TOOL_CALL_ARGS", "toolCallId", id, &arguments);
        }
        simple(out, "TOOL_CALL_END", id);
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
        self.call_start(id, name, true, out);
    }

    fn server_call_arguments(
        &mut self,
        scope: &Scope<'_>,
        _: u32,
        block: u32,
        delta: &str,
        out: &mut String,
    ) {
        // Code streamed as text, not JSON, is written whole when the call finishes.
        if let (Some(id), false) = (
            self.calls.server_streaming(block),
            scope.streams_raw_code(block),
        ) {
            content(out, "TOOL_CALL_ARGS", "toolCallId", id, delta);
        }
    }

    fn server_call_finished(
        &mut self,
        scope: &Scope<'_>,
        _: u32,
        block: u32,
        call: &ServerToolCall,
        out: &mut String,
    ) {
        let streamed = self.calls.server_streaming(block).is_some()
            && !server_tools::streams_raw_code(scope.source, &call.name);
        if !self.calls.server_finished(block, &call.id) {
            self.call_start(&call.id, &call.name, true, out);
        }
        if !streamed {
            let arguments = Value::Object(call.args.clone()).to_string();
            content(out, "TOOL_CALL_ARGS", "toolCallId", &call.id, &arguments);
        }
        simple(out, "TOOL_CALL_END", &call.id);
    }

    fn server_result(
        &mut self,
        _: &Scope<'_>,
        _: u32,
        _: u32,
        result: &ServerToolResult,
        out: &mut String,
    ) {
        // A result mints a tool message for a call the stream announced.
        if !self.calls.has_server(&result.tool_call_id) {
            return;
        }
        let output = result.output.clone().unwrap_or(Value::Null);
        let message_id = format!("{}-result-{}", self.run_id(), self.results);
        self.results += 1;
        push_value(
            out,
            None,
            &json!({"type": "TOOL_CALL_RESULT", "messageId": message_id,
                    "toolCallId": result.tool_call_id, "content": output.to_string(),
                    "role": "tool", "metadata": {"deltafold": {"providerExecuted": true}}}),
        );
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
            &json!({"type": "CUSTOM", "name": "tool-approval-request", "value": request}),
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
        let message = scope.first();
        self.close_run(message, out);
        if let Some(message) = message {
            Self::sources(message, out);
        }
        let mut event =
            json!({"type": "RUN_FINISHED", "threadId": self.thread(), "runId": self.run_id()});
        if let Some(reason) = self.reason.as_deref().filter(|reason| !reason.is_empty()) {
            event["result"] = json!({ "finishReason": reason });
        }
        if let Some(usage) = &self.usage {
            event["usage"] = json!([usage_json(usage, self.model.as_deref())]);
        }
        push_value(out, None, &event);
    }

    fn fail(&mut self, scope: &Scope<'_>, error: &str, out: &mut String) {
        self.start(scope.identity, out);
        let mut event = String::from("{\"type\":\"RUN_ERROR\",\"message\":");
        push_json_str(&mut event, error);
        event.push('}');
        push_data(out, None, &event);
    }
}

/// The usage as AG-UI's `TokenUsage`.
fn usage_json(usage: &UsageMetadata, model: Option<&str>) -> Value {
    let mut json = json!({
        "inputTokens": usage.input_tokens,
        "outputTokens": usage.output_tokens,
        "totalTokens": usage.total_tokens,
    });
    if let Some(model) = model {
        json["model"] = json!(model);
    }
    if let Some(reasoning) = reasoning_tokens(usage) {
        json["reasoningTokens"] = json!(reasoning);
    }
    if let Some(cached) = cache_read_tokens(usage) {
        json["cachedInputTokens"] = json!(cached);
    }
    json
}
