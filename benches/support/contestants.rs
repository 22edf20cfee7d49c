//! deltafold driven the ways an app drives it, and a check that every contestant assembled the
//! same message.

use std::hint::black_box;

use deltafold::framing::{FrameDecoder, SseDecoder};
use deltafold::{Assembler, Completion, Event, Options};

use super::peer::PeerMessage;

/// The whole stream in one call, no events: `deltafold::assemble`.
pub fn assemble(bytes: &[u8]) -> Completion {
    deltafold::assemble(bytes, Options::new()).expect("the stream assembles")
}

/// Reads fed as they arrive, no events: `Assembler::feed` + `finish`.
pub fn feed(reads: &[&[u8]]) -> Completion {
    let mut assembler = Assembler::new();
    for read in reads {
        assembler.feed(read).expect("the stream assembles");
    }
    assembler.finish().expect("the stream assembles")
}

/// Reads pushed as they arrive, every event read (`push` + `next_event`), then `finish`.
/// Returns the bytes of delta the events carried, which the caller checks.
pub fn events(reads: &[&[u8]]) -> (Completion, usize) {
    let mut assembler = Assembler::new();
    let mut seen = 0;
    for read in reads {
        assembler.push(read);
        while let Some(event) = assembler.next_event().expect("the stream assembles") {
            seen += event_weight(&event);
        }
    }
    let completion = assembler.finish().expect("the stream assembles");
    (completion, seen)
}

/// deltafold's SSE decoder alone, over the whole body in one read; touches each payload.
pub fn framing(bytes: &[u8]) -> usize {
    let mut decoder = SseDecoder::new();
    decoder.push(bytes);
    let mut seen = 0;
    while let Some(frame) = decoder.next_frame().expect("a well-formed stream") {
        seen += frame.data.len();
    }
    seen
}

/// Dialect decoding and folding alone: payloads framed ahead (with their event names), every
/// event read, then `finish`.
pub fn pre_framed<'a>(frames: impl IntoIterator<Item = (Option<&'a str>, &'a str)>) -> usize {
    let mut assembler = Assembler::new();
    for (event, data) in frames {
        assembler.push_frame(event, data);
        while assembler
            .next_event()
            .expect("the stream assembles")
            .is_some()
        {}
    }
    let completion = assembler.finish().expect("the stream assembles");
    completion.choices.len()
}

/// What a live display would read from an event: the length of its new text.
pub fn event_weight(event: &Event<'_>) -> usize {
    match event {
        Event::TextDelta { text, .. } | Event::ReasoningDelta { text, .. } => text.len(),
        Event::ToolCallArgumentsDelta { delta, .. } => delta.len(),
        _ => 0,
    }
}

/// Text, reasoning and tool calls (id, name, arguments as JSON) of one choice.
pub type ChoiceDigest = (String, String, Vec<(String, String, String)>);

/// Text, reasoning and tool calls (with parsed arguments) of every choice, for comparing
/// contestants.
pub fn digest(completion: &Completion) -> Vec<ChoiceDigest> {
    completion
        .messages()
        .map(|message| {
            let calls = message
                .tool_calls()
                .map(|call| {
                    (
                        call.id.clone(),
                        call.name.clone(),
                        serde_json::Value::Object(call.args.clone()).to_string(),
                    )
                })
                .collect();
            (message.text(), message.reasoning(), calls)
        })
        .collect()
}

/// The same digest of the peer's message.
pub fn peer_digest(message: &PeerMessage) -> Vec<ChoiceDigest> {
    message
        .choices
        .iter()
        .map(|choice| {
            let calls = choice
                .tool_calls
                .iter()
                .map(|call| {
                    let args = call.args.clone().unwrap_or(serde_json::Value::Null);
                    (call.id.clone(), call.name.clone(), args.to_string())
                })
                .collect();
            (choice.content.clone(), choice.reasoning.clone(), calls)
        })
        .collect()
}

/// Bytes of text, reasoning, refusal, tool ids, names and argument text (as re-serialised
/// compact JSON) in a completion: the "final message's size" of the memory target.
pub fn content_bytes(completion: &Completion) -> usize {
    completion
        .messages()
        .map(|message| {
            let calls: usize = message
                .tool_calls()
                .map(|call| {
                    call.id.len()
                        + call.name.len()
                        + serde_json::Value::Object(call.args.clone())
                            .to_string()
                            .len()
                })
                .sum();
            message.text().len()
                + message.reasoning().len()
                + message.refusal().map_or(0, |refusal| refusal.len())
                + calls
        })
        .sum()
}

/// How an app reads the arguments of a streaming tool call.
#[derive(Debug, Clone, Copy)]
pub enum ArgumentReads {
    /// Only the argument deltas from the events.
    Deltas,
    /// `PendingToolCall::partial()` (prefix + O(depth) suffix) after every fragment.
    Partial,
    /// `partial_value()` (a `serde_json::Value`) every `n` fragments.
    ValueEvery(usize),
    /// The event's own `partial` after every fragment (prefix + O(depth) suffix), no lookup.
    EventPartial,
    /// The event detached (`into_owned`, as the async stream does), its `partial` applied to
    /// the text the deltas built.
    Detached,
}

/// Streams `reads` and reads the arguments as `how` says; returns a number that depends on it.
pub fn read_arguments(reads: &[&[u8]], how: ArgumentReads) -> usize {
    let mut assembler = Assembler::new();
    let mut suffix = String::new();
    let mut built = String::new();
    let mut fragments = 0usize;
    let mut seen = 0usize;
    for read in reads {
        assembler.push(read);
        loop {
            let call = match assembler.next_event().expect("the stream assembles") {
                None => break,
                Some(Event::ToolCallArgumentsDelta {
                    choice,
                    index,
                    delta,
                    partial,
                }) => {
                    seen += delta.len();
                    let detached;
                    let completion = match how {
                        ArgumentReads::EventPartial => partial.completion(),
                        ArgumentReads::Detached => {
                            detached = partial.into_owned();
                            built.push_str(&delta);
                            detached.completion_of(&built)
                        }
                        _ => {
                            fragments += 1;
                            None
                        }
                    };
                    if let Some(completion) = completion {
                        suffix.clear();
                        completion.write_suffix(&mut suffix);
                        seen += completion.prefix().len() + suffix.len();
                    }
                    matches!(
                        how,
                        ArgumentReads::Deltas
                            | ArgumentReads::Partial
                            | ArgumentReads::ValueEvery(_)
                    )
                    .then_some((choice, index))
                }
                Some(_) => None,
            };
            let Some((choice, index)) = call else {
                continue;
            };
            let pending = assembler
                .message(choice)
                .and_then(|message| message.tool_calls().nth(index as usize))
                .expect("the call that just grew");
            match how {
                ArgumentReads::Deltas | ArgumentReads::EventPartial | ArgumentReads::Detached => {}
                ArgumentReads::Partial => {
                    if let Some(partial) = pending.partial() {
                        suffix.clear();
                        partial.write_suffix(&mut suffix);
                        seen += partial.prefix().len() + suffix.len();
                    }
                }
                ArgumentReads::ValueEvery(n) => {
                    if fragments.is_multiple_of(n) {
                        seen += black_box(pending.partial_value()).is_some() as usize;
                    }
                }
            }
        }
    }
    seen + assembler
        .finish()
        .expect("the stream assembles")
        .choices
        .len()
}
