//! Server-side tool calls while they stream: the call as its start named it, the argument text
//! so far (partial JSON, shown live like a client tool call's), and the parse at its end.

use serde_json::{Map, Value};

use super::PartialJson;
use crate::message::{ContentBlock, ServerToolCall};

/// A tool call the provider runs itself (web search, code execution, a remote MCP tool), as it
/// stands: its id and name are known from its start, its arguments grow until it finishes.
#[derive(Debug, Clone)]
pub struct PendingServerToolCall {
    call: ServerToolCall,
    arguments: String,
    finished: bool,
}

impl PendingServerToolCall {
    pub(super) fn new(call: ServerToolCall) -> Self {
        PendingServerToolCall {
            call,
            arguments: String::new(),
            finished: false,
        }
    }

    /// The call: id, name and extras from its start; its `args` are the parsed arguments once
    /// it [`is_finished`](Self::is_finished), those its start carried before.
    pub fn call(&self) -> &ServerToolCall {
        &self.call
    }

    /// The argument text streamed so far.
    pub fn arguments(&self) -> &str {
        &self.arguments
    }

    /// The arguments so far completed into valid JSON (the live view of a search query or of
    /// the code being written); `None` until a value has begun. Scans the text on each call.
    pub fn partial_value(&self) -> Option<Value> {
        let mut scanner = PartialJson::new();
        scanner.push_str(&self.arguments);
        scanner.value()
    }

    /// True once the provider said the call is complete.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Appends argument text; returns the byte range it occupies.
    pub(super) fn push_arguments(&mut self, fragment: &str) -> (usize, usize) {
        let start = self.arguments.len();
        self.arguments.push_str(fragment);
        (start, self.arguments.len())
    }

    /// Completes the call: `args` when the provider repeats them whole, else the streamed text
    /// parsed (text that is no JSON object is kept in `extras.partial_json`, as LangChain keeps
    /// it, and the arguments stay as the start gave them).
    pub(super) fn finish(&mut self, args: Option<Map<String, Value>>, extras: Map<String, Value>) {
        if self.finished {
            return;
        }
        self.finished = true;
        self.call.extras.extend(extras);
        if let Some(args) = args {
            self.call.args = args;
            return;
        }
        if self.arguments.trim().is_empty() {
            return;
        }
        match serde_json::from_str(&self.arguments) {
            Ok(Value::Object(args)) => self.call.args = args,
            _ => {
                let text = std::mem::take(&mut self.arguments);
                self.call.extras.insert("partial_json".into(), text.into());
            }
        }
    }

    pub(super) fn into_content(mut self) -> ContentBlock {
        self.finish(None, Map::new());
        ContentBlock::ServerToolCall(self.call)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pending() -> PendingServerToolCall {
        PendingServerToolCall::new(ServerToolCall {
            id: "srvtoolu_1".into(),
            name: "web_search".into(),
            ..ServerToolCall::default()
        })
    }

    #[test]
    fn streamed_arguments_are_shown_partial_then_parsed() {
        let mut call = pending();
        call.push_arguments("{\"query\": \"rust 1.");
        assert_eq!(call.partial_value(), Some(json!({"query": "rust 1."})));
        call.push_arguments("85\"}");
        call.finish(None, Map::new());
        assert!(call.is_finished());
        assert_eq!(call.call().args["query"], "rust 1.85");
    }

    #[test]
    fn arguments_that_are_no_object_are_kept_as_text() {
        let mut call = pending();
        call.push_arguments("{\"query\": ");
        let block = call.into_content();
        let ContentBlock::ServerToolCall(call) = block else {
            panic!("{block:?}");
        };
        assert!(call.args.is_empty());
        assert_eq!(call.extras["partial_json"], "{\"query\": ");
    }
}
