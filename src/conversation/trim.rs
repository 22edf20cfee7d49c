//! Trimming a conversation to the model's context, by turns or tokens, without splitting an
//! assistant message from the tool results that answer it.

use std::ops::Range;

use super::TokenCounter;
use crate::message::Message;

/// Which end of the conversation trimming keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Strategy {
    /// Keep the most recent messages (the usual choice for chat history).
    #[default]
    Last,
    /// Keep the oldest messages.
    First,
}

/// How to trim a conversation to fit the model's context: by turns, by tokens, or both.
///
/// A turn is a user message and everything up to the next one. Whatever the limits, an
/// assistant message and the tool messages that answer it are kept or dropped together, and the
/// kept messages never start with a tool message.
///
/// ```
/// use deltafold::conversation::{Conversation, Trim};
/// use deltafold::message::Message;
///
/// let mut conversation = Conversation::new();
/// conversation.push(Message::system("Be brief."))?;
/// for turn in 1..=5 {
///     conversation.push(Message::user(format!("question {turn}")))?;
///     conversation.push(Message::assistant(format!("answer {turn}")))?;
/// }
/// let recent = conversation.trim(&Trim::last_turns(2));
/// let texts: Vec<String> = recent.iter().map(|m| m.text()).collect();
/// assert_eq!(texts, ["Be brief.", "question 4", "answer 4", "question 5", "answer 5"]);
/// # Ok::<(), deltafold::conversation::ConversationError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Trim {
    /// Keep at most this many turns.
    pub max_turns: Option<usize>,
    /// Keep at most this many tokens, the kept system messages included.
    pub max_tokens: Option<usize>,
    /// Which end to keep.
    pub strategy: Strategy,
    /// Always keep the system messages at the start (they count toward the token budget).
    pub keep_system: bool,
    /// Drop kept messages before the first user message, so the kept part starts on a user turn.
    pub start_on_user: bool,
}

impl Default for Trim {
    fn default() -> Self {
        Trim {
            max_turns: None,
            max_tokens: None,
            strategy: Strategy::Last,
            keep_system: true,
            start_on_user: true,
        }
    }
}

impl Trim {
    /// No limit yet; keeps the system messages and starts on a user turn.
    pub fn new() -> Self {
        Self::default()
    }

    /// Keep the last `turns` turns.
    pub fn last_turns(turns: usize) -> Self {
        Self::new().turns(turns)
    }

    /// Keep the most recent messages that fit in `tokens`.
    pub fn max_tokens(tokens: usize) -> Self {
        Self::new().tokens(tokens)
    }

    /// Sets the turn limit.
    pub fn turns(mut self, turns: usize) -> Self {
        self.max_turns = Some(turns);
        self
    }

    /// Sets the token budget.
    pub fn tokens(mut self, tokens: usize) -> Self {
        self.max_tokens = Some(tokens);
        self
    }

    /// Sets which end to keep.
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// Whether the leading system messages are always kept.
    pub fn keep_system(mut self, keep: bool) -> Self {
        self.keep_system = keep;
        self
    }

    /// Whether the kept part must start on a user message.
    pub fn start_on_user(mut self, start_on_user: bool) -> Self {
        self.start_on_user = start_on_user;
        self
    }
}

/// Trims `messages` as `trim` says, counting tokens with `counter`; like LangChain's
/// `trim_messages`.
pub fn trim_messages(
    messages: &[Message],
    trim: &Trim,
    counter: &dyn TokenCounter,
) -> Vec<Message> {
    let head = if trim.keep_system {
        messages
            .iter()
            .take_while(|message| message.is_system())
            .count()
    } else {
        0
    };
    let (system, rest) = messages.split_at(head);
    let units = units(rest);
    let starts_with = |unit: usize, test: fn(&Message) -> bool| test(&rest[units[unit].start]);
    let cost = |unit: usize| counter.count_all(&rest[units[unit].clone()]);
    let user_units: Vec<usize> = (0..units.len())
        .filter(|&unit| starts_with(unit, Message::is_user))
        .collect();
    let fix_start = |mut start: usize, end: usize| {
        while start < end
            && (starts_with(start, Message::is_tool)
                || (trim.start_on_user && !starts_with(start, Message::is_user)))
        {
            start += 1;
        }
        start
    };
    let budget = trim
        .max_tokens
        .map(|tokens| tokens.saturating_sub(counter.count_all(system)));
    let (start, end) = match trim.strategy {
        Strategy::Last => {
            let mut start = match trim.max_turns {
                Some(0) => units.len(),
                Some(turns) if turns <= user_units.len() => user_units[user_units.len() - turns],
                _ => 0,
            };
            if let Some(budget) = budget {
                let mut used = 0;
                let mut first = units.len();
                while first > start && used + cost(first - 1) <= budget {
                    used += cost(first - 1);
                    first -= 1;
                }
                start = first;
            }
            (fix_start(start, units.len()), units.len())
        }
        Strategy::First => {
            let start = fix_start(0, units.len());
            let mut end = match trim.max_turns {
                Some(0) => start,
                Some(turns) => {
                    // Messages before the first user message belong to the first turn.
                    let on_user = start < units.len() && starts_with(start, Message::is_user);
                    let next_turn = if on_user { turns - 1 } else { turns };
                    user_units
                        .iter()
                        .filter(|&&unit| unit > start)
                        .nth(next_turn)
                        .copied()
                        .unwrap_or(units.len())
                }
                None => units.len(),
            };
            if let Some(budget) = budget {
                let mut used = 0;
                let mut last = start;
                while last < end && used + cost(last) <= budget {
                    used += cost(last);
                    last += 1;
                }
                end = last;
            }
            (start, end)
        }
    };
    let mut kept = system.to_vec();
    if start < end {
        kept.extend_from_slice(&rest[units[start].start..units[end - 1].end]);
    }
    kept
}

/// Splits messages into the pieces trimming keeps or drops whole: an assistant message with the
/// tool messages after it, a run of stray tool messages, or any other single message.
fn units(messages: &[Message]) -> Vec<Range<usize>> {
    let mut units = Vec::new();
    let mut index = 0;
    while index < messages.len() {
        let start = index;
        index += 1;
        if messages[start].is_assistant() || messages[start].is_tool() {
            while index < messages.len() && messages[index].is_tool() {
                index += 1;
            }
        }
        units.push(start..index);
    }
    units
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_keep_assistant_messages_with_their_tool_messages() {
        let messages = [
            Message::user("q"),
            Message::assistant("calls"),
            Message::tool("a", "1"),
            Message::tool("b", "2"),
            Message::tool("c", "stray"),
            Message::user("next"),
        ];
        assert_eq!(units(&messages), vec![0..1, 1..5, 5..6]);
        assert_eq!(units(&messages[2..]), vec![0..3, 3..4]);
    }
}
