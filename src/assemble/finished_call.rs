//! [`FinishedToolCall`]: what a tool call that finished streaming became — a call with parsed
//! arguments or an invalid one — as [`Event::ToolCallFinished`](crate::Event) carries it.

use std::borrow::Cow;

use serde::Serialize;

use crate::message::{ContentBlock, InvalidToolCall, ToolCall};

/// A finished tool call: a [`ToolCall`] whose arguments parsed as a JSON object, or an
/// [`InvalidToolCall`] with the raw text and the reason. Borrowed from the assembler in an
/// event; its serde form is the message's content block (`type`: `tool_call` or
/// `invalid_tool_call`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FinishedToolCall<'a> {
    /// The arguments parsed as a JSON object.
    ToolCall(Cow<'a, ToolCall>),
    /// The arguments are not a JSON object.
    InvalidToolCall(Cow<'a, InvalidToolCall>),
}

impl<'a> FinishedToolCall<'a> {
    /// The finished call in `block`; `None` for any other kind of block.
    pub(crate) fn of(block: &'a ContentBlock) -> Option<Self> {
        match block {
            ContentBlock::ToolCall(call) => Some(FinishedToolCall::ToolCall(Cow::Borrowed(call))),
            ContentBlock::InvalidToolCall(call) => {
                Some(FinishedToolCall::InvalidToolCall(Cow::Borrowed(call)))
            }
            _ => None,
        }
    }

    /// The call id.
    pub fn id(&self) -> &str {
        match self {
            FinishedToolCall::ToolCall(call) => &call.id,
            FinishedToolCall::InvalidToolCall(call) => &call.id,
        }
    }

    /// The tool name.
    pub fn name(&self) -> &str {
        match self {
            FinishedToolCall::ToolCall(call) => &call.name,
            FinishedToolCall::InvalidToolCall(call) => &call.name,
        }
    }

    /// The call with parsed arguments; `None` when they did not parse.
    pub fn tool_call(&self) -> Option<&ToolCall> {
        match self {
            FinishedToolCall::ToolCall(call) => Some(call),
            FinishedToolCall::InvalidToolCall(_) => None,
        }
    }

    /// Detaches the call from the assembler, copying it.
    pub fn into_owned(self) -> FinishedToolCall<'static> {
        match self {
            FinishedToolCall::ToolCall(call) => {
                FinishedToolCall::ToolCall(Cow::Owned(call.into_owned()))
            }
            FinishedToolCall::InvalidToolCall(call) => {
                FinishedToolCall::InvalidToolCall(Cow::Owned(call.into_owned()))
            }
        }
    }

    /// The call as the message's content block holds it.
    pub fn into_content(self) -> ContentBlock {
        match self {
            FinishedToolCall::ToolCall(call) => ContentBlock::ToolCall(call.into_owned()),
            FinishedToolCall::InvalidToolCall(call) => {
                ContentBlock::InvalidToolCall(call.into_owned())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_as_the_content_block() {
        let mut call = ToolCall {
            id: "c1".into(),
            name: "f".into(),
            ..ToolCall::default()
        };
        call.args.insert("a".into(), 1.into());
        let invalid = InvalidToolCall {
            id: "c2".into(),
            name: "g".into(),
            args: "{".into(),
            error: "EOF".into(),
            ..InvalidToolCall::default()
        };
        for block in [
            ContentBlock::ToolCall(call),
            ContentBlock::InvalidToolCall(invalid),
        ] {
            let finished = FinishedToolCall::of(&block).unwrap();
            assert_eq!(
                serde_json::to_value(&finished).unwrap(),
                serde_json::to_value(&block).unwrap()
            );
            assert_eq!(finished.into_owned().into_content(), block);
        }
    }
}
