//! TEMPORARY: a minimal AI SDK UI message stream mapping, only until the library's own
//! `vercel-ui` encoder target lands (helper `ui`). Delete this file then.

use deltafold::message::{ContentBlock, UsageMetadata};
use deltafold::{Error, Event, ResponseStream};
use futures::{Stream, StreamExt as _};
use serde_json::{json, Value};

#[derive(Default)]
struct State {
    open: Option<(&'static str, String)>,
    calls: Vec<String>,
    usage: Option<UsageMetadata>,
    parts: usize,
    done: bool,
}

impl State {
    fn chunk(out: &mut String, value: Value) {
        out.push_str("data: ");
        out.push_str(&value.to_string());
        out.push_str("\n\n");
    }

    fn close(&mut self, out: &mut String) {
        if let Some((kind, id)) = self.open.take() {
            Self::chunk(out, json!({"type": format!("{kind}-end"), "id": id}));
        }
    }

    fn text(&mut self, kind: &'static str, delta: &str, out: &mut String) {
        if self.open.as_ref().map(|(open, _)| *open) != Some(kind) {
            self.close(out);
            self.parts += 1;
            let id = format!("{kind}-{}", self.parts);
            Self::chunk(out, json!({"type": format!("{kind}-start"), "id": id}));
            self.open = Some((kind, id));
        }
        let id = &self.open.as_ref().expect("opened above").1;
        Self::chunk(
            out,
            json!({"type": format!("{kind}-delta"), "id": id, "delta": delta}),
        );
    }

    fn event(&mut self, event: &Event<'_>, out: &mut String) {
        match event {
            Event::Started { id, .. } => {
                Self::chunk(out, json!({"type": "start", "messageId": id}));
                Self::chunk(out, json!({"type": "start-step"}));
            }
            Event::TextDelta { text, .. } => self.text("text", text, out),
            Event::ReasoningDelta { text, .. } => self.text("reasoning", text, out),
            Event::ToolCallStarted {
                index, id, name, ..
            } => {
                self.close(out);
                let index = *index as usize;
                self.calls
                    .resize(self.calls.len().max(index + 1), String::new());
                self.calls[index] = id.to_string();
                Self::chunk(
                    out,
                    json!({"type": "tool-input-start", "toolCallId": id, "toolName": name}),
                );
            }
            Event::ToolCallArgumentsDelta { index, delta, .. } => {
                let id = &self.calls[*index as usize];
                Self::chunk(
                    out,
                    json!({"type": "tool-input-delta", "toolCallId": id, "inputTextDelta": delta}),
                );
            }
            Event::ToolCallFinished { call, .. } => {
                if let ContentBlock::ToolCall(call) = call.as_ref() {
                    Self::chunk(
                        out,
                        json!({"type": "tool-input-available", "toolCallId": call.id,
                               "toolName": call.name, "input": call.args}),
                    );
                }
            }
            Event::Usage { usage } => self.usage = Some(usage.as_ref().clone()),
            Event::Done => self.finish(out),
            _ => {}
        }
    }

    fn finish(&mut self, out: &mut String) {
        if self.done {
            return;
        }
        self.done = true;
        self.close(out);
        Self::chunk(out, json!({"type": "finish-step"}));
        let metadata = self.usage.as_ref().map(|usage| {
            json!({"usage": {
                "inputTokens": usage.input_tokens,
                "outputTokens": usage.output_tokens,
                "totalTokens": usage.total_tokens,
                "reasoningTokens": usage.output_token_details.and_then(|d| d.reasoning),
                "cachedInputTokens": usage.input_token_details.and_then(|d| d.cache_read),
            }})
        });
        Self::chunk(out, json!({"type": "finish", "messageMetadata": metadata}));
        out.push_str("data: [DONE]\n\n");
    }
}

/// TEMPORARY stand-in for `events.encode(Target::VercelUi)`.
pub fn encode(events: ResponseStream) -> impl Stream<Item = Result<String, Error>> {
    let mut state = State::default();
    events.flat_map(move |event| {
        let mut out = String::new();
        let error = match event {
            Ok(event) => {
                state.event(&event, &mut out);
                None
            }
            Err(error) => {
                state.close(&mut out);
                State::chunk(
                    &mut out,
                    json!({"type": "error", "errorText": error.to_string()}),
                );
                out.push_str("data: [DONE]\n\n");
                Some(Err(error))
            }
        };
        futures::stream::iter(std::iter::once(Ok(out)).chain(error))
    })
}
