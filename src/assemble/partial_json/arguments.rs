//! [`PartialArguments`]: a tool call's arguments as an argument-delta event sees them, completed
//! into valid JSON without copying them — borrowed from the assembler, or detached with its
//! closing characters alone.

use std::borrow::Cow;
use std::fmt;

use super::{CompletedJson, PartialJson};

/// Nesting a detached view keeps its closers for: as deep as `serde_json` parses.
const MAX_DETACHED_DEPTH: usize = 128;

/// A tool call's arguments so far as valid JSON, carried by
/// [`Event::ToolCallArgumentsDelta`](crate::Event::ToolCallArgumentsDelta): the text as it
/// stands (borrowed, never copied) and how it is completed — a prefix of it plus a few closing
/// characters, following [`PartialJson`]'s rules. Taking one costs O(1); writing its completion
/// O(nesting depth) beyond the prefix, so a display that redraws after every delta does no work
/// for the arguments it already had.
///
/// ```
/// use deltafold::{Assembler, Event};
///
/// let mut assembler = Assembler::new();
/// assembler.push(concat!(
///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",",
///     "\"function\":{\"name\":\"weather\",\"arguments\":\"{\\\"city\\\": \\\"Pa\"}}]}}]}\n\n",
/// ).as_bytes());
/// while let Some(event) = assembler.next_event()? {
///     if let Event::ToolCallArgumentsDelta { partial, .. } = event {
///         assert_eq!(partial.to_string(), r#"{"city": "Pa"}"#);
///         assert_eq!(partial.value(), Some(serde_json::json!({"city": "Pa"})));
///     }
/// }
/// # Ok::<(), deltafold::Error>(())
/// ```
///
/// The text is the call's as the event is read: when one payload carried several fragments of
/// a call, the view of its first delta already holds the later ones. Detached
/// ([`Event::into_owned`](crate::Event::into_owned), the events of an
/// [`AssembleStream`](crate::AssembleStream)) it keeps only where the completion cuts the text
/// and what closes it, fixed in size; complete the text you built from the deltas with
/// [`completion_of`](Self::completion_of). For a delta whose payload also carried later
/// fragments of its call, that view already cuts past the text built so far and gives `None`:
/// skip that redraw, the call's next delta catches up.
///
/// A display that keeps no text of its own reads the call on the snapshot instead, also in
/// O(nesting depth): `events.assembler().message(choice)` then
/// [`tool_call_at(index)`](crate::assemble::PartialMessage::tool_call_at) and
/// [`partial()`](crate::assemble::PendingToolCall::partial) — the arguments as they stand,
/// possibly ahead of this delta when one payload carried several fragments of the call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PartialArguments<'a> {
    /// The arguments so far; `None` once detached.
    text: Option<&'a str>,
    /// How the text is completed; `None` while nothing can be shown (or, detached, when the
    /// completion was deeper than [`MAX_DETACHED_DEPTH`]).
    closing: Option<Closing<'a>>,
}

/// Where a completion cuts the text and what it appends.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Closing<'a> {
    prefix_len: usize,
    close_string: bool,
    /// Closers of the open containers, outermost first.
    closers: Cow<'a, [u8]>,
}

impl<'a> PartialArguments<'a> {
    /// The view of `arguments` as they stand.
    pub(crate) fn of(arguments: &'a PartialJson) -> Self {
        PartialArguments {
            text: Some(arguments.as_str()),
            closing: arguments.completion().map(|completion| Closing {
                prefix_len: completion.prefix.len(),
                close_string: completion.close_string,
                closers: Cow::Borrowed(completion.closers),
            }),
        }
    }

    /// The argument text so far, exactly as streamed; `None` once detached.
    pub fn text(&self) -> Option<&'a str> {
        self.text
    }

    /// The arguments as valid JSON: `None` while nothing can be shown yet (see [`PartialJson`])
    /// or once detached.
    pub fn completion(&self) -> Option<CompletedJson<'_>> {
        self.completion_of(self.text?)
    }

    /// The completion applied to `text`, the same arguments as the app built them from the
    /// deltas — what a detached view still gives. `None` as for
    /// [`completion`](Self::completion), or when `text` is shorter than the part the completion
    /// keeps.
    pub fn completion_of<'t>(&'t self, text: &'t str) -> Option<CompletedJson<'t>> {
        let closing = self.closing.as_ref()?;
        Some(CompletedJson {
            prefix: text.get(..closing.prefix_len)?,
            close_string: closing.close_string,
            closers: &closing.closers,
        })
    }

    /// Parses the completion (O(length) — for a display, write it instead).
    pub fn value(&self) -> Option<serde_json::Value> {
        self.completion()?.parse()
    }

    /// Detaches the view: the closing characters are copied (at most 128 of them — a deeper
    /// completion is dropped), never the text.
    pub fn into_owned(self) -> PartialArguments<'static> {
        PartialArguments {
            text: None,
            closing: self
                .closing
                .filter(|closing| closing.closers.len() <= MAX_DETACHED_DEPTH)
                .map(|closing| Closing {
                    prefix_len: closing.prefix_len,
                    close_string: closing.close_string,
                    closers: Cow::Owned(closing.closers.into_owned()),
                }),
        }
    }
}

/// The completion, or nothing when there is none (or the view is detached).
impl fmt::Display for PartialArguments<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.completion() {
            Some(completion) => completion.fmt(f),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_detached_view_completes_the_text_built_from_the_deltas() {
        let mut arguments = PartialJson::new();
        let mut built = String::new();
        for fragment in [r#"{"a": [1, {"b": "x"#, r#"y"}], "c"#] {
            arguments.push_str(fragment);
            built.push_str(fragment);
        }
        let view = PartialArguments::of(&arguments);
        assert_eq!(view.to_string(), r#"{"a": [1, {"b": "xy"}]}"#);
        let detached = view.clone().into_owned();
        assert_eq!(detached.text(), None);
        assert_eq!(detached.completion(), None);
        assert_eq!(
            detached.completion_of(&built).map(|c| c.to_string()),
            Some(r#"{"a": [1, {"b": "xy"}]}"#.to_owned())
        );
        assert_eq!(detached.completion_of("{"), None, "shorter than the prefix");
    }

    #[test]
    fn a_detached_view_keeps_no_more_than_128_closers() {
        let mut deep = PartialJson::new();
        deep.push_str(&"[".repeat(129));
        assert!(PartialArguments::of(&deep).completion().is_some());
        assert_eq!(PartialArguments::of(&deep).into_owned().closing, None);
        let mut deep_enough = PartialJson::new();
        deep_enough.push_str(&"[".repeat(128));
        let view = PartialArguments::of(&deep_enough).into_owned();
        let text = "[".repeat(128);
        assert_eq!(
            view.completion_of(&text).map(|c| c.to_string()),
            Some(format!("{text}{}", "]".repeat(128)))
        );
    }
}
