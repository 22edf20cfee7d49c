//! The shape of a parsed chunk's choices: whether they are one choice whose only content is
//! one string borrowed from the payload, and the bytes around that string, for the fast path
//! to recognise in the chunks that follow.

use crate::delta::{Delta, DeltaSink, ToolCallDelta};
use crate::Error;

/// A shape longer than this around its string is not remembered: real ones are a few dozen
/// bytes, and the cache must stay small whatever the input.
const MAX_SHAPE_BYTES: usize = 1024;

/// Which delta the one string of a shape is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum StringKind {
    Text,
    Reasoning,
    Refusal,
    ToolArguments { index: Option<u32> },
}

impl StringKind {
    pub(super) fn delta(self, choice: u32, text: &str) -> Delta<'_> {
        match self {
            StringKind::Text => Delta::Text { choice, text },
            StringKind::Reasoning => Delta::Reasoning { choice, text },
            StringKind::Refusal => Delta::Refusal { choice, text },
            StringKind::ToolArguments { index } => Delta::ToolCall(ToolCallDelta {
                choice,
                index,
                id: None,
                name: None,
                arguments: text,
            }),
        }
    }
}

/// A shape found in a parsed chunk, borrowed from it.
pub(super) struct Learned<'r> {
    pub(super) before: &'r str,
    pub(super) after: &'r str,
    pub(super) choice: u32,
    pub(super) kind: StringKind,
}

/// Passes the deltas of one chunk's choices on, noting whether they are exactly "this choice
/// exists" and one string delta of it whose text was borrowed from the payload.
pub(super) struct Recorder<'s, S> {
    inner: &'s mut S,
    deltas: usize,
    choice: Option<u32>,
    /// The string delta: its kind, choice, and where its text lies in memory.
    string: Option<(StringKind, u32, usize, usize)>,
}

impl<'s, S: DeltaSink> Recorder<'s, S> {
    pub(super) fn new(inner: &'s mut S) -> Self {
        Recorder {
            inner,
            deltas: 0,
            choice: None,
            string: None,
        }
    }

    /// The shape of the recorded choices within `rest`, whose array ends at `choices_end`.
    pub(super) fn shape<'r>(&self, rest: &'r str, choices_end: usize) -> Option<Learned<'r>> {
        let (kind, choice, address, len) = self.string?;
        if self.deltas != 2 || self.choice != Some(choice) {
            return None;
        }
        // Borrowed text lies inside the payload, between the quotes of its literal; owned
        // (unescaped) text lies elsewhere and cannot be located.
        let start = address.checked_sub(rest.as_ptr() as usize)?;
        let end = start.checked_add(len)?;
        let bytes = rest.as_bytes();
        let quoted = start >= 1
            && end < choices_end
            && choices_end <= bytes.len()
            && bytes[start - 1] == b'"'
            && bytes[end] == b'"';
        let before = rest.get(..start)?;
        let after = rest.get(end + 1..choices_end)?;
        (quoted && before.len() + after.len() <= MAX_SHAPE_BYTES).then_some(Learned {
            before,
            after,
            choice,
            kind,
        })
    }
}

impl<S: DeltaSink> DeltaSink for Recorder<'_, S> {
    fn apply(&mut self, delta: Delta<'_>) -> Result<(), Error> {
        self.deltas += 1;
        let string = match &delta {
            Delta::Choice { choice } => {
                self.choice = Some(*choice);
                None
            }
            Delta::Text { choice, text } => Some((StringKind::Text, *choice, *text)),
            Delta::Reasoning { choice, text } => Some((StringKind::Reasoning, *choice, *text)),
            Delta::Refusal { choice, text } => Some((StringKind::Refusal, *choice, *text)),
            Delta::ToolCall(ToolCallDelta {
                choice,
                index,
                id: None,
                name: None,
                arguments,
            }) => Some((
                StringKind::ToolArguments { index: *index },
                *choice,
                *arguments,
            )),
            _ => None,
        };
        if let Some((kind, choice, text)) = string {
            self.string = Some((kind, choice, text.as_ptr() as usize, text.len()));
        }
        self.inner.apply(delta)
    }
}
