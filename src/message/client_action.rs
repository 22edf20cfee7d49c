//! Actions the model asks the *app* to carry out on a provider-defined tool (OpenAI Responses'
//! `computer_call`, `local_shell_call`, `shell_call`, `apply_patch_call`, and a
//! `tool_search_call` the app runs): kept as the provider
//! sent them in non-standard blocks, as LangChain keeps them, and read through [`ClientAction`]
//! so the app can see the action and its `call_id` and answer it with a tool message.

use serde::Serialize;
use serde_json::{Map, Value};

use super::ContentBlock;

/// The item types that are actions the app carries out, each answered by `<type>_output` (a
/// tool search by `tool_search_output`).
pub const CLIENT_ACTION_ITEMS: &[&str] = &[
    "computer_call",
    "local_shell_call",
    "shell_call",
    "apply_patch_call",
    "tool_search_call",
];

/// A view of one client-executed action of an assistant message: answer it with a
/// [`ToolMessage`](super::ToolMessage) whose `tool_call_id` is [`call_id`](Self::call_id).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClientAction<'a> {
    /// The item type (`computer_call`, `local_shell_call`…).
    pub kind: &'a str,
    /// The id the answer quotes.
    pub call_id: &'a str,
    /// The whole item: `action` (a click, a command…), `operation` (a patch),
    /// `pending_safety_checks`…
    pub item: &'a Map<String, Value>,
}

impl<'a> ClientAction<'a> {
    /// The action a block asks for, if it is one.
    pub fn from_block(block: &'a ContentBlock) -> Option<Self> {
        let ContentBlock::NonStandard {
            value: Value::Object(item),
        } = block
        else {
            return None;
        };
        let kind = item.get("type").and_then(Value::as_str)?;
        let call_id = item.get("call_id").and_then(Value::as_str)?;
        CLIENT_ACTION_ITEMS.contains(&kind).then_some(ClientAction {
            kind,
            call_id,
            item,
        })
    }

    /// The action itself: `action`, a `computer_call`'s batch of `actions`, an
    /// `apply_patch_call`'s `operation`, a tool search's `arguments`.
    pub fn action(&self) -> Option<&'a Value> {
        ["action", "actions", "operation", "arguments"]
            .iter()
            .find_map(|key| self.item.get(*key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_computer_call_is_an_action_for_the_app() {
        let block = ContentBlock::NonStandard {
            value: json!({"type": "computer_call", "id": "cu_1", "call_id": "call_1", "action": {"type": "click", "x": 1, "y": 2}, "pending_safety_checks": []}),
        };
        let action = ClientAction::from_block(&block).unwrap();
        assert_eq!((action.kind, action.call_id), ("computer_call", "call_1"));
        assert_eq!(action.action().unwrap()["type"], "click");
        let other = ContentBlock::NonStandard {
            value: json!({"type": "compaction", "call_id": "x"}),
        };
        assert!(ClientAction::from_block(&other).is_none());
    }
}
