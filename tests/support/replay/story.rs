//! Checks that the events of a run tell the same story as its messages, so that a live display
//! built from the events ends up showing the final message. A text delta for an earlier block
//! of a block-keyed dialect (an Anthropic `index` that later blocks already follow) goes on in
//! that block, where its `TextDelta` event, which names no block, shows it at the end; the
//! choice's finish then brings a `TextReplaced` with the whole text. A stream cut before that
//! leaves the events with the message's pieces in arrival order ([`same_pieces`]). Every text,
//! reasoning or refusal block the deltas open ends (`TextEnd`…) before the events of another
//! block of its choice, its choice's finish and `Done` ([`BlockEnds`]).

use std::collections::BTreeMap;

use deltafold::{AiMessage, Completion, ContentBlock, Event};
use serde_json::{Map, Value};

use super::Run;

/// What the events of one choice add up to.
#[derive(Default)]
struct Replayed {
    text: String,
    reasoning: String,
    refusal: String,
    /// Per tool-call position: how often it started, its argument text, its final blocks.
    calls: BTreeMap<u32, ReplayedCall>,
    finished: Vec<String>,
}

#[derive(Default)]
struct ReplayedCall {
    started: usize,
    arguments: String,
    finished: Vec<ContentBlock>,
}

/// Checks the events of a run against its messages (the final ones or the error's partial):
/// the stream begins with `Started` and (when it completed) ends with one `Done`; the deltas add
/// up to the text, reasoning, refusal and arguments of each choice; every tool call starts once,
/// in position order, and finishes once with its final block before its choice finishes; the
/// `ChoiceFinished` events give the finish reasons; the last `Usage` is the final usage.
pub fn check_events(run: &Run, problems: &mut Vec<String>) {
    let Some(completion) = run.completion() else {
        return;
    };
    let succeeded = run.result.is_ok();
    let mut choices: BTreeMap<u32, Replayed> = BTreeMap::new();
    let mut last_usage = None;
    let mut done = 0;
    let mut ends = BlockEnds::default();
    for (position, event) in run.events.iter().enumerate() {
        ends.check(position, event, completion, problems);
        if matches!(event, Event::Started { .. }) != (position == 0) {
            problems.push(format!(
                "event {position} {event:?}: Started must come first, once"
            ));
        }
        if done > 0 {
            problems.push(format!("event {position} {event:?} after Done"));
        }
        match event {
            Event::TextDelta { choice, text } => choices.entry(*choice).or_default().text += text,
            Event::TextReplaced { choice, text } => {
                choices.entry(*choice).or_default().text = text.to_string()
            }
            Event::ReasoningReplaced { choice, text } => {
                choices.entry(*choice).or_default().reasoning = text.to_string()
            }
            Event::RefusalReplaced { choice, text } => {
                choices.entry(*choice).or_default().refusal = text.to_string()
            }
            Event::ReasoningDelta { choice, text } => {
                choices.entry(*choice).or_default().reasoning += text
            }
            Event::RefusalDelta { choice, text } => {
                choices.entry(*choice).or_default().refusal += text
            }
            Event::ToolCallStarted { choice, index, .. } => {
                let calls = &mut choices.entry(*choice).or_default().calls;
                if !calls.contains_key(index) && *index as usize != calls.len() {
                    problems.push(format!(
                        "event {position}: call {index} of choice {choice} started out of order"
                    ));
                }
                calls.entry(*index).or_default().started += 1;
            }
            Event::ToolCallArgumentsDelta {
                choice,
                index,
                delta,
                ..
            } => {
                let call = choices.entry(*choice).or_default().calls.entry(*index);
                let call = call.or_default();
                if call.started == 0 || !call.finished.is_empty() {
                    problems.push(format!(
                        "event {position}: arguments for call {index} of choice {choice} outside its start and finish"
                    ));
                }
                call.arguments += delta;
            }
            Event::ToolCallFinished {
                choice,
                index,
                call,
            } => {
                let slot = choices.entry(*choice).or_default().calls.entry(*index);
                slot.or_default().finished.push(call.clone().into_content());
            }
            Event::Usage { usage } => last_usage = Some(usage.clone().into_owned()),
            Event::ChoiceFinished { choice, reason } => {
                let replayed = choices.entry(*choice).or_default();
                if replayed.calls.values().any(|call| call.finished.is_empty()) {
                    problems.push(format!(
                        "event {position}: choice {choice} finished before its tool calls"
                    ));
                }
                replayed.finished.push(reason.to_string());
            }
            Event::Done => done += 1,
            _ => {}
        }
    }
    if succeeded && done != 1 {
        problems.push(format!("{done} Done events for a completed stream"));
    }
    if !succeeded && done != 0 {
        problems.push("a Done event in a failed stream".into());
    }
    for choice in &completion.choices {
        let replayed = choices.remove(&choice.index).unwrap_or_default();
        check_choice(
            choice.index,
            &choice.message,
            &replayed,
            succeeded,
            problems,
        );
    }
    if let Some(extra) = choices.keys().next() {
        problems.push(format!("events for choice {extra}, which has no message"));
    }
    check_usage(completion, last_usage.as_ref(), problems);
}

fn check_usage(
    completion: &Completion,
    last_usage: Option<&deltafold::UsageMetadata>,
    problems: &mut Vec<String>,
) {
    if let Some(message) = completion.message() {
        // The events carry the counts; the raw provider object is only on the message.
        let counts = message
            .usage
            .clone()
            .map(|usage| deltafold::UsageMetadata { raw: None, ..usage });
        if last_usage != counts.as_ref() {
            problems.push(format!(
                "the last Usage event {last_usage:?} is not the final usage {:?}",
                message.usage
            ));
        }
    }
}

/// The live text of a cut stream whose deltas went to an earlier keyed block: the message's
/// characters, as many times each, in arrival order.
fn same_pieces(live: &str, message: &str) -> bool {
    let sorted = |text: &str| {
        let mut chars: Vec<char> = text.chars().collect();
        chars.sort_unstable();
        chars
    };
    live == message || (live.len() == message.len() && sorted(live) == sorted(message))
}

fn check_choice(
    index: u32,
    message: &AiMessage,
    replayed: &Replayed,
    succeeded: bool,
    problems: &mut Vec<String>,
) {
    for (what, live, said) in [
        ("text", &replayed.text, message.text()),
        ("reasoning", &replayed.reasoning, message.reasoning()),
        (
            "refusal",
            &replayed.refusal,
            message.refusal().unwrap_or_default(),
        ),
    ] {
        if *live != said && (succeeded || !same_pieces(live, &said)) {
            problems.push(format!(
                "choice {index}: {what} deltas add up to {live:?}, the message says {said:?}"
            ));
        }
    }
    let reason = message.response_metadata.finish_reason.as_str();
    let expected_finishes: Vec<String> = if reason.is_empty() {
        Vec::new()
    } else {
        vec![reason.to_owned()]
    };
    if replayed.finished != expected_finishes {
        problems.push(format!(
            "choice {index}: ChoiceFinished events {:?}, finish reason {reason:?}",
            replayed.finished
        ));
    }
    check_calls(index, message, replayed, succeeded, problems);
}

fn check_calls(
    index: u32,
    message: &AiMessage,
    replayed: &Replayed,
    succeeded: bool,
    problems: &mut Vec<String>,
) {
    let calls: Vec<&ContentBlock> = message
        .content
        .iter()
        .filter(|block| {
            matches!(
                block,
                ContentBlock::ToolCall(_) | ContentBlock::InvalidToolCall(_)
            )
        })
        .collect();
    if calls.len() != replayed.calls.len() {
        problems.push(format!(
            "choice {index}: {} tool calls started by events, {} in the message",
            replayed.calls.len(),
            calls.len()
        ));
        return;
    }
    for (position, (block, (call_index, call))) in calls.iter().zip(&replayed.calls).enumerate() {
        if *call_index as usize != position || call.started != 1 {
            problems.push(format!(
                "choice {index}: call {call_index} started {} times (position {position})",
                call.started
            ));
        }
        match block {
            ContentBlock::ToolCall(done) => {
                let parsed = if call.arguments.trim().is_empty() {
                    Some(Map::new())
                } else {
                    serde_json::from_str::<Map<String, Value>>(&call.arguments).ok()
                };
                if parsed.as_ref() != Some(&done.args) {
                    problems.push(format!(
                        "choice {index}: argument deltas of call {position} add up to {:?}, which does not parse to {:?}",
                        call.arguments, done.args
                    ));
                }
            }
            ContentBlock::InvalidToolCall(invalid) if call.arguments != invalid.args => {
                problems.push(format!(
                    "choice {index}: argument deltas of call {position} add up to {:?}, the invalid call keeps {:?}",
                    call.arguments, invalid.args
                ));
            }
            _ => {}
        }
        let finishes_expected = if succeeded {
            1
        } else {
            call.finished.len().min(1)
        };
        if call.finished.len() != finishes_expected {
            problems.push(format!(
                "choice {index}: call {position} finished {} times",
                call.finished.len()
            ));
        }
        if let Some(finished) = call.finished.first() {
            if finished != *block {
                problems.push(format!(
                    "choice {index}: ToolCallFinished carried {finished:?}, the message has {block:?}"
                ));
            }
        }
    }
}

/// The text block each choice's deltas opened and no end event closed yet, by its kind.
#[derive(Default)]
struct BlockEnds {
    open: BTreeMap<u32, &'static str>,
}

impl BlockEnds {
    /// Checks one event against the blocks open before it: a delta of another kind, the events
    /// of a tool call, provider item or server-side tool, the choice's finish and `Done` come
    /// only once the open block ended; an end closes an open block of its kind, at a position
    /// where the final message holds a block of that kind.
    fn check(
        &mut self,
        position: usize,
        event: &Event<'_>,
        completion: &Completion,
        problems: &mut Vec<String>,
    ) {
        let closed = |open: &BTreeMap<u32, &str>, choice: &u32, problems: &mut Vec<String>| {
            if let Some(kind) = open.get(choice) {
                problems.push(format!(
                    "event {position} {event:?}: the {kind} block of choice {choice} is still open"
                ));
            }
        };
        match event {
            Event::TextDelta { choice, .. } => self.opened(position, *choice, "text", problems),
            Event::ReasoningDelta { choice, .. } => {
                self.opened(position, *choice, "reasoning", problems)
            }
            Event::RefusalDelta { choice, .. } => {
                self.opened(position, *choice, "refusal", problems)
            }
            Event::TextEnd { choice, block } => {
                self.ended(position, *choice, *block, "text", completion, problems)
            }
            Event::ReasoningEnd { choice, block } => {
                self.ended(position, *choice, *block, "reasoning", completion, problems)
            }
            Event::RefusalEnd { choice, block } => {
                self.ended(position, *choice, *block, "refusal", completion, problems)
            }
            Event::ToolCallStarted { choice, .. }
            | Event::ToolCallArgumentsDelta { choice, .. }
            | Event::ToolCallFinished { choice, .. }
            | Event::ServerToolCallStarted { choice, .. }
            | Event::ServerToolCallArgumentsDelta { choice, .. }
            | Event::ServerToolCallFinished { choice, .. }
            | Event::ServerToolCallProgress { choice, .. }
            | Event::ServerToolPartialImage { choice, .. }
            | Event::ServerToolResult { choice, .. }
            | Event::ToolApprovalRequested { choice, .. }
            | Event::ProviderItemDelta { choice, .. }
            | Event::ChoiceFinished { choice, .. } => closed(&self.open, choice, problems),
            Event::Done => {
                for choice in self.open.keys() {
                    closed(&self.open, choice, problems);
                }
            }
            _ => {}
        }
    }

    fn opened(
        &mut self,
        position: usize,
        choice: u32,
        kind: &'static str,
        problems: &mut Vec<String>,
    ) {
        if let Some(open) = self.open.insert(choice, kind) {
            if open != kind {
                problems.push(format!(
                    "event {position}: a {kind} delta of choice {choice} while its {open} block is open"
                ));
            }
        }
    }

    fn ended(
        &mut self,
        position: usize,
        choice: u32,
        block: u32,
        kind: &'static str,
        completion: &Completion,
        problems: &mut Vec<String>,
    ) {
        if self.open.remove(&choice) != Some(kind) {
            problems.push(format!(
                "event {position}: the end of a {kind} block of choice {choice} that was not open"
            ));
        }
        let held = completion
            .choices
            .iter()
            .find(|held| held.index == choice)
            .and_then(|held| held.message.content.get(block as usize));
        let fits = matches!(
            (held, kind),
            (Some(ContentBlock::Text { .. }), "text")
                | (Some(ContentBlock::Reasoning { .. }), "reasoning")
                | (Some(ContentBlock::Refusal { .. }), "refusal")
        );
        if !fits {
            problems.push(format!(
                "event {position}: the end of a {kind} block at {block} of choice {choice}, where the message holds {held:?}"
            ));
        }
    }
}
