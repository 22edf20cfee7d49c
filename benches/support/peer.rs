//! The peer: how Rust apps assemble a chat-completion stream today. `eventsource-stream` frames
//! the bytes, each event's data is parsed into a `serde_json::Value`, and the pieces are
//! accumulated by hand into `String`s and `Vec`s; at the end the tool arguments are parsed.

use std::convert::Infallible;

use eventsource_stream::Eventsource;
use futures::executor::block_on;
use futures::StreamExt;
use serde_json::Value;

/// One tool call as the peer accumulates it.
#[derive(Debug, Default, Clone)]
pub struct PeerToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
    pub args: Option<Value>,
}

/// One choice as the peer accumulates it.
#[derive(Debug, Default, Clone)]
pub struct PeerChoice {
    pub content: String,
    pub reasoning: String,
    pub tool_calls: Vec<PeerToolCall>,
    pub finish_reason: Option<String>,
}

/// The peer's final message.
#[derive(Debug, Default, Clone)]
pub struct PeerMessage {
    pub id: Option<String>,
    pub model: Option<String>,
    pub choices: Vec<PeerChoice>,
    pub usage: Option<Value>,
}

/// Assembles the stream delivered as `reads`.
pub fn assemble(reads: &[&[u8]]) -> PeerMessage {
    let mut events =
        futures::stream::iter(reads.iter().map(|read| Ok::<_, Infallible>(*read))).eventsource();
    let mut message = PeerMessage::default();
    block_on(async {
        while let Some(event) = events.next().await {
            let event = event.expect("a well-formed event stream");
            if event.data == "[DONE]" {
                break;
            }
            if let Ok(chunk) = serde_json::from_str::<Value>(&event.data) {
                absorb(&mut message, &chunk);
            }
        }
    });
    for choice in &mut message.choices {
        for call in &mut choice.tool_calls {
            call.args = serde_json::from_str(&call.arguments).ok();
        }
    }
    message
}

fn absorb(message: &mut PeerMessage, chunk: &Value) {
    if message.id.is_none() {
        message.id = chunk["id"].as_str().map(str::to_owned);
        message.model = chunk["model"].as_str().map(str::to_owned);
    }
    if let Some(usage) = chunk.get("usage").filter(|usage| !usage.is_null()) {
        message.usage = Some(usage.clone());
    }
    let Some(choices) = chunk["choices"].as_array() else {
        return;
    };
    for choice in choices {
        let index = choice["index"].as_u64().unwrap_or(0) as usize;
        if message.choices.len() <= index {
            message.choices.resize_with(index + 1, PeerChoice::default);
        }
        let slot = &mut message.choices[index];
        let delta = &choice["delta"];
        if let Some(text) = delta["content"].as_str() {
            slot.content.push_str(text);
        }
        if let Some(text) = delta["reasoning_content"].as_str() {
            slot.reasoning.push_str(text);
        }
        if let Some(calls) = delta["tool_calls"].as_array() {
            for call in calls {
                let position = call["index"].as_u64().unwrap_or(0) as usize;
                if slot.tool_calls.len() <= position {
                    slot.tool_calls
                        .resize_with(position + 1, PeerToolCall::default);
                }
                let target = &mut slot.tool_calls[position];
                if let Some(id) = call["id"].as_str() {
                    target.id.push_str(id);
                }
                let function = &call["function"];
                if let Some(name) = function["name"].as_str() {
                    target.name.push_str(name);
                }
                if let Some(arguments) = function["arguments"].as_str() {
                    target.arguments.push_str(arguments);
                }
            }
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            slot.finish_reason = Some(reason.to_owned());
        }
    }
}
