//! The shape of a parsed chunk's choices: whether they are one choice whose only content is
//! one string borrowed from the payload, and the bytes around that string, for the fast path
//! to recognise in the chunks that follow.

use crate::delta::{Delta, DeltaSink, ToolCallDelta};
use crate::error::Error;

/// A shape longer than this around its string is not remembered: real ones are a few dozen
/// bytes, and the cache must stay small whatever the input.
const MAX_SHAPE_BYTES: usize = 1024;

/// A shape's copy of the prefix is not kept past this with its opening: real ones are a few
/// hundred bytes, and every shape holds one.
const MAX_LINE_HEAD_BYTES: usize = 4096;

/// Which delta the one string of a shape is.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) enum StringKind {
    #[default]
    Text,
    Reasoning,
    Refusal,
    ToolArguments {
        index: Option<u32>,
    },
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

/// Choices of one choice whose only content is one string, remembered from a parsed chunk.
///
/// Its bytes are one buffer, one allocation per shape: the stream's prefix (the chunk up to
/// `"choices":`) when a line of an event stream may repeat it, then `before`, then `after`. The
/// prefix and `before` are then one slice, compared at once with such a line (see
/// `Repeats::read_repeated`).
#[derive(Debug, Default)]
pub(super) struct Shape {
    bytes: String,
    /// 0 while no prefix is known, when the prefix, `before` or `after` holds a line break, or
    /// past [`MAX_LINE_HEAD_BYTES`].
    prefix_len: usize,
    before_len: usize,
    /// Whether neither `before` nor `after` holds a line break.
    one_line: bool,
    pub(super) choice: u32,
    pub(super) kind: StringKind,
}

impl Shape {
    /// Becomes `learned`, after `prefix`.
    pub(super) fn learn(&mut self, prefix: &str, learned: Learned<'_>) {
        self.one_line = is_one_line(learned.before) && is_one_line(learned.after);
        self.before_len = learned.before.len();
        let head = self.line_prefix(prefix);
        self.bytes.clear();
        self.bytes
            .reserve(head.len() + learned.before.len() + learned.after.len());
        self.bytes.push_str(head);
        self.bytes.push_str(learned.before);
        self.bytes.push_str(learned.after);
        self.prefix_len = head.len();
        self.choice = learned.choice;
        self.kind = learned.kind;
    }

    /// Follows the stream's new prefix.
    pub(super) fn set_prefix(&mut self, prefix: &str) {
        let head = self.line_prefix(prefix);
        self.bytes.replace_range(..self.prefix_len, head);
        self.prefix_len = head.len();
    }

    /// `prefix`, if a line may repeat it with this shape's opening; else nothing.
    fn line_prefix<'p>(&self, prefix: &'p str) -> &'p str {
        let fits = prefix.len() + self.before_len <= MAX_LINE_HEAD_BYTES;
        if self.one_line && fits && is_one_line(prefix) {
            prefix
        } else {
            ""
        }
    }

    /// From the start of the choices array up to and including the string's opening quote.
    #[inline]
    pub(super) fn before(&self) -> &str {
        &self.bytes[self.prefix_len..self.prefix_len + self.before_len]
    }

    /// From after the string's closing quote up to and including the array's `]`.
    #[inline]
    pub(super) fn after(&self) -> &str {
        &self.bytes[self.prefix_len + self.before_len..]
    }

    /// The prefix and `before` as one, if a line of an event stream may repeat them.
    #[inline]
    pub(super) fn line_head(&self) -> Option<&str> {
        (self.prefix_len != 0).then(|| &self.bytes[..self.prefix_len + self.before_len])
    }
}

/// Whether `text` holds no line break.
fn is_one_line(text: &str) -> bool {
    memchr::memchr2(b'\n', b'\r', text.as_bytes()).is_none()
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
