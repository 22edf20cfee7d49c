//! Reasoning inside the text: DeepSeek-R1, QwQ and other open models served by Together,
//! Hugging Face, Fireworks… open their answer with `<think>…</think>`. When asked to (the option
//! is off by default), this moves that span to the reasoning block as it streams, also when a
//! tag is split across deltas.
//!
//! Only a `<think>` at the very start of a choice's text (after whitespace) opens reasoning, so
//! a model that merely mentions the tag later keeps its text. The whitespace right after either
//! tag is dropped, as the providers that split reasoning out themselves do.

use super::{Delta, DeltaSink};
use crate::error::Error;

const OPEN: &str = "<think>";
const CLOSE: &str = "</think>";
/// Leading whitespace held while waiting to see whether `<think>` follows.
const MAX_LEADING_WHITESPACE: usize = 256;

/// The extraction state of every choice of one stream.
#[derive(Debug, Default)]
pub(crate) struct ThinkTags {
    choices: Vec<ChoiceTags>,
}

#[derive(Debug)]
struct ChoiceTags {
    choice: u32,
    phase: Phase,
    /// Text held back: leading whitespace and a partial `<think>` before the reasoning, or a
    /// partial `</think>` inside it.
    held: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No visible text yet: a `<think>` may still open.
    Start,
    /// Inside the reasoning; `trim` while its leading whitespace is being dropped.
    Reasoning { trim: bool },
    /// After `</think>`: dropping whitespace before the answer.
    AnswerStart,
    /// Plain text from here on.
    Answer,
}

/// A sink that routes text through the extraction before it reaches the state.
pub(crate) struct ThinkSink<'s, S> {
    pub tags: &'s mut ThinkTags,
    pub inner: &'s mut S,
}

impl<S: DeltaSink> DeltaSink for ThinkSink<'_, S> {
    fn apply(&mut self, delta: Delta<'_>) -> Result<(), Error> {
        match delta {
            Delta::Text { choice, text } => self.tags.text(choice, text, self.inner),
            Delta::Finish { choice, .. } => {
                self.tags.flush(Some(choice), self.inner)?;
                self.inner.apply(delta)
            }
            Delta::Done => {
                self.tags.flush(None, self.inner)?;
                self.inner.apply(delta)
            }
            other => self.inner.apply(other),
        }
    }
}

impl ThinkTags {
    fn state(&mut self, choice: u32) -> &mut ChoiceTags {
        let position = match self.choices.iter().position(|c| c.choice == choice) {
            Some(position) => position,
            None => {
                self.choices.push(ChoiceTags {
                    choice,
                    phase: Phase::Start,
                    held: String::new(),
                });
                self.choices.len() - 1
            }
        };
        &mut self.choices[position]
    }

    fn text(&mut self, choice: u32, text: &str, sink: &mut impl DeltaSink) -> Result<(), Error> {
        let state = self.state(choice);
        let mut rest = text;
        loop {
            match state.phase {
                Phase::Answer => return emit_text(sink, choice, rest),
                Phase::AnswerStart => {
                    let trimmed = rest.trim_start();
                    if trimmed.is_empty() {
                        return Ok(());
                    }
                    state.phase = Phase::Answer;
                    rest = trimmed;
                }
                Phase::Start => {
                    state.held.push_str(rest);
                    let visible = state.held.trim_start();
                    if visible.starts_with(OPEN) {
                        let after = state.held.len() - visible.len() + OPEN.len();
                        let remainder = state.held.split_off(after);
                        state.held.clear();
                        state.phase = Phase::Reasoning { trim: true };
                        return self.text(choice, &remainder, sink);
                    }
                    let undecided = OPEN.starts_with(visible)
                        && state.held.len() <= MAX_LEADING_WHITESPACE + OPEN.len();
                    if undecided {
                        return Ok(());
                    }
                    state.phase = Phase::Answer;
                    let held = std::mem::take(&mut state.held);
                    return emit_text(sink, choice, &held);
                }
                Phase::Reasoning { trim } => {
                    if trim {
                        let trimmed = rest.trim_start();
                        if trimmed.is_empty() {
                            return Ok(());
                        }
                        rest = trimmed;
                        state.phase = Phase::Reasoning { trim: false };
                    }
                    if state.held.is_empty() {
                        return reasoning(state, choice, rest, sink);
                    }
                    let mut joined = std::mem::take(&mut state.held);
                    joined.push_str(rest);
                    return reasoning(state, choice, &joined, sink);
                }
            }
        }
    }

    /// Releases what a choice (or, with `None`, every choice) holds back: the stream or the
    /// choice ended, so a partial tag is just text.
    pub(crate) fn flush(
        &mut self,
        choice: Option<u32>,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        for state in &mut self.choices {
            if choice.is_some_and(|choice| choice != state.choice) || state.held.is_empty() {
                continue;
            }
            let held = std::mem::take(&mut state.held);
            let index = state.choice;
            match state.phase {
                Phase::Reasoning { .. } => sink.apply(Delta::Reasoning {
                    choice: index,
                    text: &held,
                })?,
                _ => {
                    state.phase = Phase::Answer;
                    emit_text(sink, index, &held)?
                }
            }
        }
        Ok(())
    }
}

/// Reasoning text up to `</think>`; a partial closing tag at the end is held back.
fn reasoning(
    state: &mut ChoiceTags,
    choice: u32,
    text: &str,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    if let Some(at) = text.find(CLOSE) {
        sink.apply(Delta::Reasoning {
            choice,
            text: &text[..at],
        })?;
        state.phase = Phase::AnswerStart;
        let after = &text[at + CLOSE.len()..];
        let trimmed = after.trim_start();
        if trimmed.is_empty() {
            return Ok(());
        }
        state.phase = Phase::Answer;
        return emit_text(sink, choice, trimmed);
    }
    let keep = partial_suffix(text, CLOSE);
    let (now, later) = text.split_at(text.len() - keep);
    state.held.push_str(later);
    sink.apply(Delta::Reasoning { choice, text: now })
}

fn emit_text(sink: &mut impl DeltaSink, choice: u32, text: &str) -> Result<(), Error> {
    sink.apply(Delta::Text { choice, text })
}

/// Length of the longest end of `text` that begins `tag` (a tag split across deltas).
fn partial_suffix(text: &str, tag: &str) -> usize {
    (1..tag.len().min(text.len() + 1))
        .rev()
        .find(|&len| {
            text.is_char_boundary(text.len() - len) && tag.starts_with(&text[text.len() - len..])
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Collects what comes out, merging consecutive pieces of the same kind.
    #[derive(Default)]
    struct Collected(Vec<(&'static str, String)>);

    impl DeltaSink for Collected {
        fn apply(&mut self, delta: Delta<'_>) -> Result<(), Error> {
            let (kind, text) = match delta {
                Delta::Text { text, .. } => ("text", text),
                Delta::Reasoning { text, .. } => ("reasoning", text),
                _ => return Ok(()),
            };
            if text.is_empty() {
                return Ok(());
            }
            match self.0.last_mut() {
                Some((last, joined)) if *last == kind => joined.push_str(text),
                _ => self.0.push((kind, text.to_owned())),
            }
            Ok(())
        }
    }

    fn split(pieces: &[&str]) -> Vec<(&'static str, String)> {
        let mut tags = ThinkTags::default();
        let mut out = Collected::default();
        let mut sink = ThinkSink {
            tags: &mut tags,
            inner: &mut out,
        };
        for piece in pieces {
            sink.apply(Delta::Text {
                choice: 0,
                text: piece,
            })
            .unwrap();
        }
        sink.apply(Delta::Done).unwrap();
        out.0
    }

    fn owned(expected: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
        expected
            .iter()
            .map(|(k, t)| (*k, (*t).to_owned()))
            .collect()
    }

    #[test]
    fn moves_the_leading_think_span_to_reasoning_however_it_is_split() {
        let stream = "\n<think>\nLet me see: 2 < 3.\n</think>\n\nYes, 2 < 3. <think> stays.";
        let expected = owned(&[
            ("reasoning", "Let me see: 2 < 3.\n"),
            ("text", "Yes, 2 < 3. <think> stays."),
        ]);
        for size in 1..stream.len() {
            let pieces: Vec<&str> = stream
                .as_bytes()
                .chunks(size)
                .map(|chunk| std::str::from_utf8(chunk).unwrap())
                .collect();
            assert_eq!(split(&pieces), expected, "pieces of {size}");
        }
    }

    #[test]
    fn text_without_a_leading_tag_is_untouched() {
        assert_eq!(
            split(&["Hello", " <think>x</think>"]),
            owned(&[("text", "Hello <think>x</think>")])
        );
        assert_eq!(split(&["  <thi", "s is"]), owned(&[("text", "  <this is")]));
        assert_eq!(split(&["<thi"]), owned(&[("text", "<thi")]));
    }

    #[test]
    fn an_unclosed_think_stays_reasoning_including_a_partial_close() {
        assert_eq!(
            split(&["<think>still thinking</th"]),
            owned(&[("reasoning", "still thinking</th")])
        );
    }

    #[test]
    fn multibyte_text_is_split_on_char_boundaries() {
        assert_eq!(
            split(&["<think>思考", "</think>答案😀"]),
            owned(&[("reasoning", "思考"), ("text", "答案😀")])
        );
    }
}
