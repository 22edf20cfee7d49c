//! The whole pipeline from raw bytes (framing, dialect detection, every dialect, assembler): it
//! never panics, every error is typed and carries its place and the partial message, the
//! outcome does not depend on how the bytes are cut into pushes, and the live events add up to
//! the message.
#![no_main]

use deltafold::{
    Assembler, Completion, ContentBlock, Dialect, ErrorKind, Event, Location, Options,
};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, PartialEq)]
struct Failure {
    kind: ErrorKind,
    location: Option<Location>,
    partial: Option<Completion>,
}

#[derive(Debug, PartialEq)]
struct Outcome {
    events: Vec<Event<'static>>,
    result: Result<Completion, Failure>,
}

/// Appends an event, merging it into the previous one when both are deltas of the same text
/// or the same tool call: how the deltas were grouped depends on the cuts, their sum must not.
fn join(events: &mut Vec<Event<'static>>, event: Event<'static>) {
    match (events.last_mut(), event) {
        (
            Some(Event::TextDelta { choice, text }),
            Event::TextDelta {
                choice: c,
                text: more,
            },
        )
        | (
            Some(Event::ReasoningDelta { choice, text }),
            Event::ReasoningDelta {
                choice: c,
                text: more,
            },
        )
        | (
            Some(Event::RefusalDelta { choice, text }),
            Event::RefusalDelta {
                choice: c,
                text: more,
            },
        ) if *choice == c => text.to_mut().push_str(&more),
        (
            Some(Event::ToolCallArgumentsDelta {
                choice,
                index,
                delta,
                partial,
            }),
            Event::ToolCallArgumentsDelta {
                choice: c,
                index: i,
                delta: more,
                partial: later,
            },
        ) if *choice == c && *index == i => {
            delta.to_mut().push_str(&more);
            *partial = later;
        }
        (_, event) => events.push(event),
    }
}

fn failure(error: deltafold::Error) -> Failure {
    Failure {
        kind: error.kind(),
        location: error.location(),
        partial: error.into_partial(),
    }
}

fn drain(assembler: &mut Assembler, events: &mut Vec<Event<'static>>) -> Result<(), Failure> {
    while let Some(event) = assembler.next_event().map_err(failure)? {
        join(events, event.into_owned());
    }
    Ok(())
}

fn run<'a>(pieces: impl IntoIterator<Item = &'a [u8]>, options: &Options) -> Outcome {
    let mut assembler = Assembler::with_options(options.clone());
    let mut events = Vec::new();
    for piece in pieces {
        assembler.push(piece);
        if let Err(failure) = drain(&mut assembler, &mut events) {
            return Outcome {
                events,
                result: Err(failure),
            };
        }
    }
    assembler.end_input();
    if let Err(failure) = drain(&mut assembler, &mut events) {
        return Outcome {
            events,
            result: Err(failure),
        };
    }
    let result = assembler.finish().map_err(failure);
    Outcome { events, result }
}

/// One tool call as the live events told it.
struct Told {
    index: u32,
    /// The argument deltas, joined.
    streamed: String,
    /// The call as its last `ToolCallFinished` event carried it, unless arguments came after.
    finished: Option<ContentBlock>,
    /// Arguments came after a `ToolCallFinished`: another one must follow.
    reopened: bool,
}

/// The message's text and the live text are the same; or, in a failed stream, hold the same
/// characters as many times each: a delta to an earlier Anthropic (or Responses, Bedrock,
/// Cohere) block goes on in that block, where the live `TextDelta` events, which name no block,
/// show it at the end, and the replacement that fixes that comes when the choice finishes.
fn same_pieces(message: &str, live: &str, failed: bool) {
    assert!(failed || message == live, "{message:?} vs live {live:?}");
    if message != live {
        let sorted = |text: &str| {
            let mut chars: Vec<char> = text.chars().collect();
            chars.sort_unstable();
            chars
        };
        assert_eq!(sorted(message), sorted(live), "{message:?} vs live {live:?}");
    }
}

/// The live events must add up to each message: text, reasoning and refusal deltas (and the
/// replacements, which a delta to an earlier block of a block-keyed dialect brings when its
/// choice finishes) to the message's texts — in a stream cut before that, the same pieces in
/// arrival order (see `same_pieces`); for each tool call, the final block equals the one its last
/// `ToolCallFinished` carried (a dialect may replace streamed arguments with a final copy);
/// arguments after that event must be followed by another `ToolCallFinished` in a complete
/// stream (else the message shows a call the events contradict); a call no event finished holds
/// exactly the streamed arguments.
fn check_events_add_up(outcome: &Outcome) {
    let completion = match &outcome.result {
        Ok(completion) => completion,
        Err(failure) => {
            assert!(
                failure.location.is_some(),
                "{:?} without a place",
                failure.kind
            );
            failure
                .partial
                .as_ref()
                .expect("every stream error carries the partial result")
        }
    };
    for choice in &completion.choices {
        let (mut text, mut reasoning, mut refusal) = (String::new(), String::new(), String::new());
        let mut calls: Vec<Told> = Vec::new();
        for event in &outcome.events {
            match event {
                Event::TextDelta { choice: c, text: t } if *c == choice.index => text.push_str(t),
                Event::ReasoningDelta { choice: c, text: t } if *c == choice.index => {
                    reasoning.push_str(t)
                }
                Event::RefusalDelta { choice: c, text: t } if *c == choice.index => {
                    refusal.push_str(t)
                }
                // A final text replaced what the deltas built: the live view starts over.
                Event::TextReplaced { choice: c, text: t } if *c == choice.index => {
                    text = t.to_string()
                }
                Event::ReasoningReplaced { choice: c, text: t } if *c == choice.index => {
                    reasoning = t.to_string()
                }
                Event::RefusalReplaced { choice: c, text: t } if *c == choice.index => {
                    refusal = t.to_string()
                }
                Event::ToolCallStarted {
                    choice: c, index, ..
                } if *c == choice.index => calls.push(Told {
                    index: *index,
                    streamed: String::new(),
                    finished: None,
                    reopened: false,
                }),
                Event::ToolCallArgumentsDelta {
                    choice: c,
                    index,
                    delta,
                    ..
                } if *c == choice.index => {
                    let call = calls.iter_mut().find(|call| call.index == *index);
                    let call = call.expect("arguments after their call started");
                    call.reopened |= call.finished.take().is_some();
                    call.streamed.push_str(delta);
                }
                Event::ToolCallFinished {
                    choice: c,
                    index,
                    call: block,
                } if *c == choice.index => {
                    let call = calls.iter_mut().find(|call| call.index == *index);
                    let call = call.expect("a call finished before it started");
                    call.finished = Some(block.clone().into_content());
                    call.reopened = false;
                }
                _ => {}
            }
        }
        let message = &choice.message;
        let failed = outcome.result.is_err();
        same_pieces(&message.text(), &text, failed);
        same_pieces(&message.reasoning(), &reasoning, failed);
        same_pieces(&message.refusal().unwrap_or_default(), &refusal, failed);
        let blocks: Vec<&ContentBlock> = message
            .content
            .iter()
            .filter(|block| {
                matches!(
                    block,
                    ContentBlock::ToolCall(_) | ContentBlock::InvalidToolCall(_)
                )
            })
            .collect();
        assert_eq!(blocks.len(), calls.len(), "one ToolCallStarted per call");
        for (block, told) in blocks.iter().zip(&calls) {
            match (&told.finished, block) {
                (Some(finished), _) => assert_eq!(*block, finished),
                // `finish` records no events: a stream that ended incomplete finishes its
                // calls unseen.
                (None, _) if told.reopened => assert!(
                    !completion.complete,
                    "arguments {:?} came after the call finished and it never finished again",
                    told.streamed
                ),
                (None, ContentBlock::InvalidToolCall(call)) => {
                    assert_eq!(call.args, told.streamed)
                }
                (None, ContentBlock::ToolCall(call)) if told.streamed.trim().is_empty() => {
                    assert!(call.args.is_empty())
                }
                (None, ContentBlock::ToolCall(call)) => {
                    let parsed: serde_json::Value =
                        serde_json::from_str(&told.streamed).expect("a valid call parsed");
                    assert_eq!(parsed, serde_json::Value::Object(call.args.clone()));
                }
                _ => unreachable!(),
            }
        }
    }
}

/// Option sets tried on every input: the defaults (strict, framing and dialect detected);
/// lenient with `<think>` extraction and limits small enough that most inputs hit one; and
/// strict with the dialect forced (not detected), the dialect named by the input's first byte,
/// so that every decoder meets every kind of payload. Taken from the input itself, so that a
/// crash reproduces and minimises from its file alone.
fn option_sets(input: &[u8]) -> [Options; 3] {
    let forced =
        Dialect::ALL[usize::from(input.first().copied().unwrap_or(0)) % Dialect::ALL.len()];
    [
        Options::new(),
        Options::new()
            .lenient(true)
            .think_tags(true)
            .max_event_bytes(256)
            .max_message_bytes(64)
            .max_tool_calls(2)
            .max_choices(2),
        Options::new().dialect(forced),
    ]
}

fuzz_target!(|input: &[u8]| {
    for options in option_sets(input) {
        let whole = run([input], &options);
        check_events_add_up(&whole);
        assert_eq!(run(input.chunks(7), &options), whole, "7-byte pushes");
        if input.len() <= 2048 {
            assert_eq!(
                run(input.chunks(1), &options),
                whole,
                "byte-at-a-time pushes"
            );
        }
    }
});
