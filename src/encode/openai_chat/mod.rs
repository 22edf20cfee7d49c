//! OpenAI chat completions: each event one `chat.completion.chunk` (the response's id, created
//! and model written once into a prefix every chunk repeats), usage in a last chunk with no
//! choices, then `data: [DONE]`; and the non-streamed `chat.completion`.
//!
//! Citations with a URL go out as `annotations` (`url_citation`, their spans in the one
//! content string): live in a chunk just before the choice's finish reason, non-streamed on the
//! message. A custom tool call (free-text input, held as `{"__arg1": input}`) goes out as one
//! (`type: "custom"`, its input streamed: [`custom`]). Server-side tool activity (calls, results, approval requests) has no place in chat
//! completions and is left out.

mod custom;

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::{json, Map, Value};

use super::server_tools::chat_annotations;
use super::skeleton::{Channel, Choices, Rules, Scope};
use super::sse::{push_data, push_json_str};
use super::{cache_read_tokens, call_parts, finish, reasoning_tokens, Identity};
use crate::assemble::{FinishedToolCall, PartialBlock, PartialMessage};
use crate::message::{AiMessage, ContentBlock, ToolCall, UsageMetadata};
use custom::{streams_custom, CustomInput};

const GENERATED_ID: &str = "chatcmpl-df";

/// The chunk stream's state.
#[derive(Debug, Default)]
pub(super) struct ChunkRules {
    /// `{"id":…,"object":"chat.completion.chunk","created":…,"model":…,"choices":[`.
    prefix: String,
    /// Choices whose first chunk (with `role`) went out, in index order (a choice opens those
    /// below it). Sets, not lists: each is looked up per chunk.
    opened: BTreeSet<u32>,
    /// Choices whose finish reason went out.
    finished: HashSet<u32>,
    /// Choices that asked for a tool call.
    calling: HashSet<u32>,
    /// Calls (choice, position) whose first chunk went out.
    started: HashSet<(u32, u32)>,
    /// The started custom calls' input as it streams, by (choice, position).
    custom: HashMap<(u32, u32), CustomInput>,
    usage: Option<UsageMetadata>,
}

impl Rules for ChunkRules {
    const CHOICES: Choices = Choices::All;

    fn identified(&mut self, identity: &Identity) {
        self.prefix = chunk_prefix(identity);
    }

    fn delta(
        &mut self,
        scope: &Scope<'_>,
        choice: u32,
        channel: Channel,
        text: &str,
        out: &mut String,
    ) {
        self.open_below(scope, choice, out);
        let field = match channel {
            Channel::Text => "content",
            Channel::Reasoning => "reasoning_content",
            Channel::Refusal => "refusal",
        };
        self.delta_chunk(out, choice, field, text);
    }

    fn call_started(
        &mut self,
        scope: &Scope<'_>,
        choice: u32,
        index: u32,
        id: &str,
        name: &str,
        out: &mut String,
    ) {
        self.open_below(scope, choice, out);
        self.calling.insert(choice);
        // A call without an id yet is written whole when it finishes, with the id the
        // message gives it: a chunk's id cannot be changed later.
        if !id.is_empty() {
            self.started.insert((choice, index));
            if streams_custom(scope.message(choice), index) {
                self.custom.insert((choice, index), CustomInput::default());
                self.custom_chunk(out, choice, index, Some((id, name)), "");
            } else {
                self.call_chunk(out, choice, index, id, name, "");
            }
        }
    }

    fn call_arguments(
        &mut self,
        _: &Scope<'_>,
        choice: u32,
        index: u32,
        delta: &str,
        out: &mut String,
    ) {
        if !self.started.contains(&(choice, index)) {
            return;
        }
        if let Some(input) = self.custom.get_mut(&(choice, index)) {
            if let Some(piece) = input.piece(delta) {
                self.custom_chunk(out, choice, index, None, &piece);
            }
            return;
        }
        let mut body = format!("\"tool_calls\":[{{\"index\":{index},\"function\":{{\"arguments\":");
        push_json_str(&mut body, delta);
        body.push_str("}}]");
        self.chunk(out, choice, &body, None);
    }

    fn call_finished(
        &mut self,
        scope: &Scope<'_>,
        choice: u32,
        index: u32,
        call: &FinishedToolCall<'_>,
        out: &mut String,
    ) {
        self.open_below(scope, choice, out);
        self.calling.insert(choice);
        self.custom.remove(&(choice, index));
        if self.started.insert((choice, index)) {
            let (id, name, arguments) = call_parts(call);
            match call.tool_call().and_then(ToolCall::custom_input) {
                Some(input) => self.custom_chunk(out, choice, index, Some((id, name)), input),
                None => self.call_chunk(out, choice, index, id, name, &arguments),
            }
        }
    }

    fn usage(&mut self, usage: &UsageMetadata) {
        self.usage = Some(usage.clone());
    }

    fn choice_finished(&mut self, scope: &Scope<'_>, choice: u32, reason: &str, out: &mut String) {
        self.open_below(scope, choice, out);
        if let Some(message) = scope.message(choice) {
            self.annotations(out, message, choice);
        }
        let reason = finish::openai_chat(reason, scope.has_tool_calls(choice));
        self.finished.insert(choice);
        self.chunk(out, choice, "", Some(reason));
    }

    fn finish(&mut self, scope: &Scope<'_>, out: &mut String) {
        // A choice the source ended without a reason still needs one: the chat completion's
        // `finish_reason` is required.
        let unfinished: Vec<u32> = self
            .opened
            .iter()
            .copied()
            .filter(|choice| !self.finished.contains(choice))
            .collect();
        for choice in unfinished {
            let reason = finish::openai_chat("", self.calling.contains(&choice));
            self.finished.insert(choice);
            self.chunk(out, choice, "", Some(reason));
        }
        if let Some(usage) = &self.usage {
            if self.prefix.is_empty() {
                self.prefix = chunk_prefix(scope.identity);
            }
            let mut chunk = self.prefix.clone();
            chunk.push_str("],\"usage\":");
            chunk.push_str(&usage_json(usage).to_string());
            chunk.push('}');
            push_data(out, None, &chunk);
        }
        push_data(out, None, "[DONE]");
    }
}

impl ChunkRules {
    /// Opens the choices below `choice` that have not opened: clients take a choice's index
    /// for its position in `choices` (the OpenAI SDK's stream state does), so a choice that
    /// comes first opens those below it, even before they arrive. At most the assembler's
    /// `max_choices` of them: a lone choice at index 3,000,000 once wrote three million empty
    /// chunks.
    fn open_below(&mut self, scope: &Scope<'_>, choice: u32, out: &mut String) {
        if self.opened.contains(&choice) {
            return;
        }
        let Some(snapshot) = scope.snapshot() else {
            return;
        };
        let most = u32::try_from(snapshot.options().limits().max_choices).unwrap_or(u32::MAX);
        for below in 0..choice.min(most) {
            if !self.opened.contains(&below) {
                self.chunk(out, below, "", None);
            }
        }
    }

    /// A chunk with the citations of the choice's text, when it has some.
    fn annotations(&mut self, out: &mut String, message: &PartialMessage, choice: u32) {
        let blocks = message.blocks().iter().filter_map(|block| match block {
            PartialBlock::Content(content) => Some(content),
            _ => None,
        });
        let annotations = chat_annotations(blocks);
        if !annotations.is_empty() {
            let body = format!("\"annotations\":{}", Value::Array(annotations));
            self.chunk(out, choice, &body, None);
        }
    }

    /// The first chunk of a call: id, name and `arguments` (empty, or whole for a call written
    /// at its end).
    fn call_chunk(
        &mut self,
        out: &mut String,
        choice: u32,
        index: u32,
        id: &str,
        name: &str,
        arguments: &str,
    ) {
        let mut body = format!("\"tool_calls\":[{{\"index\":{index},\"id\":");
        push_json_str(&mut body, id);
        body.push_str(",\"type\":\"function\",\"function\":{\"name\":");
        push_json_str(&mut body, name);
        body.push_str(",\"arguments\":");
        push_json_str(&mut body, arguments);
        body.push_str("}}]");
        self.chunk(out, choice, &body, None);
    }

    /// A chunk of a custom call: its first (with id and name) or a piece of its input.
    fn custom_chunk(
        &mut self,
        out: &mut String,
        choice: u32,
        index: u32,
        first: Option<(&str, &str)>,
        input: &str,
    ) {
        let mut body = format!("\"tool_calls\":[{{\"index\":{index},");
        if let Some((id, _)) = first {
            body.push_str("\"id\":");
            push_json_str(&mut body, id);
            body.push(',');
        }
        body.push_str("\"type\":\"custom\",\"custom\":{");
        if let Some((_, name)) = first {
            body.push_str("\"name\":");
            push_json_str(&mut body, name);
            body.push(',');
        }
        body.push_str("\"input\":");
        push_json_str(&mut body, input);
        body.push_str("}}]");
        self.chunk(out, choice, &body, None);
    }

    /// A chunk whose delta holds one string field.
    fn delta_chunk(&mut self, out: &mut String, choice: u32, field: &str, text: &str) {
        let mut body = String::with_capacity(field.len() + text.len() + 8);
        body.push('"');
        body.push_str(field);
        body.push_str("\":");
        push_json_str(&mut body, text);
        self.chunk(out, choice, &body, None);
    }

    /// Writes one chunk for `choice`: `delta_body` inside the delta object (the role added to
    /// the choice's first), and the finish reason.
    fn chunk(&mut self, out: &mut String, choice: u32, delta_body: &str, reason: Option<&str>) {
        out.push_str("data: ");
        out.push_str(&self.prefix);
        out.push_str("{\"index\":");
        out.push_str(&choice.to_string());
        out.push_str(",\"delta\":{");
        if self.opened.insert(choice) {
            out.push_str("\"role\":\"assistant\"");
            if !delta_body.is_empty() {
                out.push(',');
            }
        }
        out.push_str(delta_body);
        out.push_str("},\"logprobs\":null,\"finish_reason\":");
        match reason {
            Some(reason) => push_json_str(out, reason),
            None => out.push_str("null"),
        }
        out.push_str("}]}\n\n");
    }
}

fn chunk_prefix(identity: &Identity) -> String {
    let mut prefix = String::from("{\"id\":");
    push_json_str(&mut prefix, identity.id_or(GENERATED_ID));
    prefix.push_str(",\"object\":\"chat.completion.chunk\",\"created\":");
    prefix.push_str(&identity.created.unwrap_or(0).to_string());
    prefix.push_str(",\"model\":");
    push_json_str(&mut prefix, identity.model());
    prefix.push_str(",\"choices\":[");
    prefix
}

/// The `usage` object: prompt tokens include cached ones, completion tokens reasoning.
fn usage_json(usage: &UsageMetadata) -> Value {
    let mut json = json!({
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
    });
    if let Some(cached) = cache_read_tokens(usage) {
        json["prompt_tokens_details"] = json!({ "cached_tokens": cached });
    }
    if let Some(reasoning) = reasoning_tokens(usage) {
        json["completion_tokens_details"] = json!({ "reasoning_tokens": reasoning });
    }
    json
}

/// The non-streamed `chat.completion`.
pub(super) fn response(choices: &[(u32, &AiMessage)]) -> Value {
    let identity = choices
        .first()
        .map(|(_, message)| Identity::of_message(message))
        .unwrap_or_default();
    let mut response = json!({
        "id": identity.id_or(GENERATED_ID),
        "object": "chat.completion",
        "created": identity.created.unwrap_or(0),
        "model": identity.model(),
        "choices": choices.iter().map(|(index, message)| choice(*index, message)).collect::<Vec<_>>(),
    });
    let usage = choices
        .iter()
        .find_map(|(_, message)| message.usage.as_ref());
    if let Some(usage) = usage {
        response["usage"] = usage_json(usage);
    }
    let metadata = choices
        .first()
        .map(|(_, message)| &message.response_metadata);
    if let Some(fingerprint) = metadata.and_then(|metadata| metadata.system_fingerprint.as_ref()) {
        response["system_fingerprint"] = json!(fingerprint);
    }
    response
}

fn choice(index: u32, message: &AiMessage) -> Value {
    let text = message.text();
    let reasoning = message.reasoning();
    let mut body = Map::new();
    body.insert("role".into(), json!("assistant"));
    body.insert(
        "content".into(),
        if text.is_empty() {
            Value::Null
        } else {
            json!(text)
        },
    );
    body.insert("refusal".into(), json!(message.refusal()));
    if !reasoning.is_empty() {
        body.insert("reasoning_content".into(), json!(reasoning));
    }
    let calls: Vec<Value> = message
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::ToolCall(call) => Some(match call.custom_input() {
                Some(input) => {
                    json!({"id": call.id, "type": "custom", "custom": {"name": call.name, "input": input}})
                }
                None => function_call(
                    &call.id,
                    &call.name,
                    &Value::Object(call.args.clone()).to_string(),
                ),
            }),
            ContentBlock::InvalidToolCall(call) => {
                Some(function_call(&call.id, &call.name, &call.args))
            }
            _ => None,
        })
        .collect();
    if !calls.is_empty() {
        body.insert("tool_calls".into(), Value::Array(calls));
    }
    let annotations = chat_annotations(&message.content);
    if !annotations.is_empty() {
        body.insert("annotations".into(), Value::Array(annotations));
    }
    let reason = message.response_metadata.finish_reason.as_str();
    json!({
        "index": index,
        "message": body,
        "logprobs": message.response_metadata.logprobs,
        "finish_reason": finish::openai_chat(reason, message.has_tool_calls()),
    })
}

fn function_call(id: &str, name: &str, arguments: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
}
