//! Floods the limits refuse, with the partial result: endless choice indices, a huge tool
//! argument over `max_message_bytes` (and one within the limits, which assembles), content the
//! limits do not name.

use deltafold::{Assembler, Completion, ContentBlock, Error, Options};
use serde_json::{json, Value};

use crate::{drain, event, expect_error, finish, partial, stream, tool, MIB};

/// A choice index per event, forever: refused at the 129th choice (max_choices).
#[test]
fn endless_choice_indices_are_refused() {
    let mut assembler = Assembler::new();
    let error = (0..1_000_000u32)
        .find_map(|index| {
            let chunk = json!({"choices": [{"index": index, "delta": {"content": "x"}}]});
            assembler.push(event(&chunk.to_string()).as_bytes());
            drain(&mut assembler).err()
        })
        .expect("a million choices were accepted");
    assert!(error.is_limit_exceeded(), "{error}");
    assert!(error.to_string().contains("max_choices"), "{error}");
    assert_eq!(partial(&error).choices.len(), 128);
}

/// Streams one call whose arguments are `{"data": "<bytes of x>"}`, in 64 KiB fragments.
fn stream_huge_argument(bytes: usize, options: Options) -> Result<Completion, Error> {
    let mut assembler = Assembler::with_options(options);
    let open = tool(
        json!({"index": 0, "id": "big", "function": {"name": "upload", "arguments": "{\"data\": \""}}),
    );
    assembler.feed(event(&open).as_bytes())?;
    let piece = 64 * 1024;
    let middle = event(&tool(
        json!({"index": 0, "function": {"arguments": "x".repeat(piece)}}),
    ));
    for _ in 0..bytes / piece {
        assembler.feed(middle.as_bytes())?;
    }
    let close = tool(json!({"index": 0, "function": {"arguments": "\"}"}}));
    assembler.feed(stream(&[&close, &finish("tool_calls"), "[DONE]"]).as_bytes())?;
    let call = assembler.message(0).unwrap().tool_calls().next().unwrap();
    assert!(call.partial().is_some());
    assembler.finish()
}

#[test]
fn a_fifty_megabyte_tool_argument_within_the_limits_assembles() {
    let completion = stream_huge_argument(50 * MIB, Options::new()).unwrap();
    let message = completion.message().unwrap();
    let call = message.tool_calls().next().expect("a valid call");
    assert_eq!(call.args["data"].as_str().map(str::len), Some(50 * MIB));
}

#[test]
fn a_fifty_megabyte_tool_argument_over_max_message_bytes_is_refused() {
    let limit = 8 * MIB;
    let error = expect_error(stream_huge_argument(
        50 * MIB,
        Options::new().max_message_bytes(limit),
    ));
    assert!(error.is_limit_exceeded(), "{error}");
    assert!(error.to_string().contains("max_message_bytes"), "{error}");
    let message = partial(&error).message().unwrap();
    let kept = match &message.content[..] {
        [ContentBlock::InvalidToolCall(call)] => call.args.len(),
        other => panic!("expected the partial call, got {} blocks", other.len()),
    };
    assert!(
        kept <= limit && kept > limit - 64 * 1024,
        "kept {kept} bytes"
    );
}

/// Logprobs, content parts without a standard block, reasoning details and unknown fields grow
/// the message too; they must count toward `max_message_bytes` like text, or a stream of them
/// grows without bound.
#[test]
fn content_outside_text_and_arguments_still_counts_toward_max_message_bytes() {
    let limit = MIB;
    let filler = "x".repeat(16 * 1024);
    type Chunk<'a> = Box<dyn Fn(usize) -> Value + 'a>;
    let kinds: [(&str, Chunk<'_>); 4] = [
        (
            "logprobs",
            Box::new(
                |_| json!({"choices": [{"index": 0, "delta": {}, "logprobs": {"content": [{"token": filler, "logprob": -0.5}]}}]}),
            ),
        ),
        (
            "content parts",
            Box::new(
                |_| json!({"choices": [{"index": 0, "delta": {"content": [{"type": "image_url", "image_url": {"url": filler}}]}}]}),
            ),
        ),
        (
            "reasoning details",
            Box::new(
                |_| json!({"choices": [{"index": 0, "delta": {"reasoning_details": [{"type": "reasoning.encrypted", "data": filler, "index": 0}]}}]}),
            ),
        ),
        (
            "unknown fields",
            Box::new(|n| json!({"choices": [{"index": 0, "delta": {}, format!("x_{n}"): filler}]})),
        ),
    ];
    let mut unlimited = Vec::new();
    for (what, chunk) in kinds {
        let mut assembler = Assembler::with_options(Options::new().max_message_bytes(limit));
        let refused = (0..4 * limit / filler.len()).any(|n| {
            assembler.push(event(&chunk(n).to_string()).as_bytes());
            drain(&mut assembler).is_err()
        });
        if !refused {
            unlimited.push(what);
        }
    }
    assert!(
        unlimited.is_empty(),
        "4 MiB of each of {unlimited:?} passed a 1 MiB max_message_bytes"
    );
}
