//! Re-encoding round trips: every fixture (and every shared real recording, when they sit beside
//! the repository) is re-encoded live into each target dialect, the output assembled again, and
//! the two messages compared on what the target can carry (see the table in `deltafold::encode`).

use std::path::{Path, PathBuf};

use deltafold::assemble::{PartialJson, ScanStatus};
use deltafold::encode::{Encoder, Target};
use deltafold::message::FinishKind;
use deltafold::{AiMessage, Assembler, Completion, ContentBlock, Dialect, Options};

/// Assembles `bytes`, re-encoding each event into `target` as it comes.
/// The source's completion and its re-encoded stream. The completion's id is the one the
/// encoder saw when it began: a live encoder writes the id it has then, and a source whose id
/// rotates (Responses hosts that send a new id per event, the last one authoritative) ends
/// under another.
fn assemble_and_encode(bytes: &[u8], target: Target) -> Option<(Completion, String)> {
    let mut assembler = Assembler::with_options(Options::default());
    let mut encoder = Encoder::new(target);
    let mut out = String::new();
    let mut first_id = None;
    for chunk in bytes.chunks(97) {
        assembler.push(chunk);
        loop {
            match assembler.next_event() {
                Ok(Some(event)) => {
                    let event = event.into_owned();
                    encoder.encode(&event, &assembler, &mut out);
                    if first_id.is_none() {
                        first_id.clone_from(&assembler.metadata().id);
                    }
                }
                Ok(None) => break,
                Err(_) => return None,
            }
        }
    }
    assembler.end_input();
    while let Some(event) = assembler.next_event().ok()? {
        let event = event.into_owned();
        encoder.encode(&event, &assembler, &mut out);
    }
    let mut completion = assembler.finish().ok()?;
    encoder.finish(&mut out);
    if first_id.is_some() {
        for choice in &mut completion.choices {
            choice.message.id.clone_from(&first_id);
            choice.message.response_metadata.id.clone_from(&first_id);
        }
    }
    completion.complete.then_some((completion, out))
}

fn dialect(target: Target) -> Dialect {
    match target {
        Target::OpenAiChat => Dialect::OpenAiChat,
        Target::Anthropic => Dialect::Anthropic,
        Target::OpenAiResponses => Dialect::OpenAiResponses,
        Target::Gemini => Dialect::Gemini,
        _ => unreachable!("a target without a dialect"),
    }
}

/// What a target keeps of a message, to compare before and after.
#[derive(Debug, PartialEq)]
struct Kept {
    id: Option<String>,
    model: Option<String>,
    text: String,
    reasoning: String,
    signatures: Vec<String>,
    data: Vec<String>,
    calls: Vec<(String, String, String)>,
    usage: Option<(u64, u64, u64, Option<u64>)>,
    finish: FinishKind,
}

fn kept(message: &AiMessage, target: Target) -> Kept {
    let refusal_as_text = matches!(target, Target::Anthropic | Target::Gemini);
    let mut text = String::new();
    let mut signatures = Vec::new();
    let mut data = Vec::new();
    let mut calls = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::Text { text: more, .. } => text.push_str(more),
            ContentBlock::Refusal { refusal, .. } if refusal_as_text => text.push_str(refusal),
            ContentBlock::Refusal { refusal, .. } => text.push_str(&format!("[refusal]{refusal}")),
            ContentBlock::Reasoning {
                signature,
                data: opaque,
                extras,
                ..
            } => {
                signatures.extend(signature.clone());
                // The encrypted content a Responses source's `response.completed` renewed
                // after the block ended: a live stream wrote the earlier one, which only the
                // Responses target's closing event can renew in turn.
                let written = extras
                    .get(ContentBlock::EARLIER_DATA)
                    .and_then(serde_json::Value::as_str)
                    .filter(|_| target != Target::OpenAiResponses);
                data.extend(written.map(str::to_owned).or_else(|| opaque.clone()));
            }
            ContentBlock::ToolCall(call) => calls.push((
                call.id.clone(),
                call.name.clone(),
                serde_json::Value::Object(call.args.clone()).to_string(),
            )),
            ContentBlock::InvalidToolCall(call) if target == Target::Anthropic => calls.push((
                call.id.clone(),
                call.name.clone(),
                object_prefix(&call.args),
            )),
            ContentBlock::InvalidToolCall(call) if target != Target::Gemini => {
                calls.push((call.id.clone(), call.name.clone(), call.args.clone()))
            }
            ContentBlock::InvalidToolCall(call) => {
                calls.push((call.id.clone(), call.name.clone(), "{}".to_owned()))
            }
            _ => {}
        }
    }
    // Gemini puts a thought's signature on the part after it: on a function call it reads back
    // as that call's; a call's own signature (Gemini 3) goes out on its part.
    if target == Target::Gemini {
        for block in &message.content {
            if let ContentBlock::ToolCall(call) = block {
                signatures.extend(call.signature().map(str::to_owned));
            }
        }
    }
    match target {
        // Neither carries a signature; Gemini keeps one per candidate, the last.
        Target::OpenAiChat | Target::OpenAiResponses => signatures.clear(),
        Target::Gemini => signatures = signatures.pop().into_iter().collect(),
        _ => {}
    }
    if matches!(target, Target::OpenAiChat | Target::Gemini) {
        data.clear();
    }
    let usage = message.usage.as_ref().map(|usage| {
        let reasoning = usage
            .output_token_details
            .and_then(|details| details.reasoning);
        (
            usage.input_tokens,
            usage.output_tokens,
            usage.total_tokens,
            reasoning.filter(|&n| n > 0),
        )
    });
    // Anthropic and Responses always send usage: zeros when the source had none.
    let usage = match target {
        Target::Anthropic | Target::OpenAiResponses => usage.or(Some((0, 0, 0, None))),
        _ => usage,
    };
    // Anthropic has no total: it is input + output again. Gemini counts thoughts outside the
    // candidates and deltafold reads them back into the output, so a source that counted its
    // reasoning apart (xAI: total = input + output + reasoning) comes back with output + reasoning.
    let usage = match target {
        Target::Gemini => usage.map(|(input, output, total, reasoning)| {
            let thoughts = reasoning.unwrap_or(0);
            let apart = thoughts > 0 && input + output + thoughts == total;
            (
                input,
                if apart { output + thoughts } else { output },
                total,
                reasoning,
            )
        }),
        Target::Anthropic => {
            usage.map(|(input, output, _, reasoning)| (input, output, input + output, reasoning))
        }
        _ => usage,
    };
    let metadata = &message.response_metadata;
    // The message's kind: refusal text under a plain stop is a refusal (targets without a
    // refusal field say it in their stop reason).
    let finish = finish_kind(message.finish_kind(), message.has_tool_calls());
    Kept {
        id: metadata.id.clone().or_else(|| message.id.clone()),
        model: metadata.model_name.clone(),
        text,
        reasoning: message.reasoning(),
        signatures,
        data,
        calls,
        usage,
        // What the target cannot say becomes its plain stop.
        finish: match finish {
            FinishKind::Other | FinishKind::Error => {
                finish_kind(Some(FinishKind::Stop), message.has_tool_calls())
            }
            FinishKind::ToolCalls if target == Target::OpenAiResponses => FinishKind::ToolCalls,
            kind => kind,
        },
    }
}

/// What Anthropic keeps of invalid arguments: the text up to where it stops being a prefix of
/// a JSON object (`{"a": 1, ` of `{"a": 1, }`, nothing of `["a"]`), read back as a call with
/// that object when it parses (`{}` for nothing), else as the invalid call of the prefix.
fn object_prefix(args: &str) -> String {
    let first = args.find(|c: char| !c.is_ascii_whitespace());
    let cut = match first {
        Some(first) if !args[first..].starts_with('{') => first,
        None => args.len(),
        Some(_) => {
            let mut scan = PartialJson::new();
            scan.push_str(args);
            match scan.status() {
                ScanStatus::Invalid { offset } => offset,
                _ => args.len(),
            }
        }
    };
    let prefix = &args[..cut];
    match serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(prefix) {
        Ok(args) => serde_json::Value::Object(args).to_string(),
        Err(_) if prefix.trim().is_empty() => "{}".to_owned(),
        Err(_) => prefix.to_owned(),
    }
}

/// A finish reason's kind as the targets can say it: a plain stop with tool calls is a tool-call
/// stop, a refusal a filter stop, no reason at all another one.
fn finish_kind(kind: Option<FinishKind>, has_tool_calls: bool) -> FinishKind {
    match kind {
        Some(FinishKind::Stop) if has_tool_calls => FinishKind::ToolCalls,
        Some(FinishKind::Refusal) => FinishKind::ContentFilter,
        Some(kind) => kind,
        None => FinishKind::Other,
    }
}

/// Re-encodes `path` into every target and compares; returns how many round trips ran.
fn round_trip(path: &Path) -> usize {
    let bytes = std::fs::read(path).unwrap();
    let mut checked = 0;
    for target in Target::PROVIDERS {
        let Some((original, sse)) = assemble_and_encode(&bytes, target) else {
            return checked;
        };
        let options = Options::default().dialect(dialect(target));
        let again = deltafold::assemble(sse.as_bytes(), options)
            .unwrap_or_else(|error| panic!("{} → {target}: {error}\n{sse}", path.display()));
        assert!(again.complete, "{} → {target}: incomplete", path.display());
        let several = matches!(target, Target::OpenAiChat | Target::Gemini);
        let choices = if several {
            original.choices.len()
        } else {
            1.min(original.choices.len())
        };
        assert_eq!(
            again.choices.len(),
            choices,
            "{} → {target}: choices\n{sse}",
            path.display()
        );
        for after in &again.choices {
            // The choice it came from: the same index, or for one-choice targets the first
            // one streamed, which the original's order does not tell.
            let after = kept(&after.message, target);
            let mut candidates = original
                .choices
                .iter()
                .map(|choice| kept(&choice.message, target));
            let mut before = if several {
                let index = again
                    .choices
                    .iter()
                    .position(|choice| kept(&choice.message, target) == after)
                    .unwrap_or(0);
                kept(
                    &original
                        .choices
                        .iter()
                        .find(|choice| choice.index == again.choices[index].index)
                        .unwrap()
                        .message,
                    target,
                )
            } else {
                candidates
                    .find(|before| before.text == after.text)
                    .unwrap_or_else(|| kept(&original.choices[0].message, target))
            };
            if before.id.is_none() {
                before.id = after.id.clone();
            }
            if before.model.is_none() {
                before.model = after.model.clone();
            }
            assert_eq!(before, after, "{} → {target}\n{sse}", path.display());
        }
        checked += 1;
    }
    checked
}

/// Streams whose live events cannot be re-encoded in the message's order: text deltas that
/// interleave two Anthropic blocks go on in their blocks (the index names the block, as the
/// Anthropic SDK has it), but a `TextDelta` event names no block, so a target's stream written
/// from the events has the pieces in arrival order, and the `TextReplaced` the choice's finish
/// brings cannot take back what was written (`tests/hostile/fuzz_regressions.rs`,
/// `tests/memory/bounded.rs` and the fixture's replay check what the message and the events
/// hold).
const INTERLEAVED: &[&str] = &["interleaved_blocks.sse"];

fn streams(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(streams(&path));
        } else if path
            .extension()
            .is_some_and(|ext| ext == "sse" || ext == "ndjson")
            && !path
                .file_name()
                .is_some_and(|name| INTERLEAVED.iter().any(|skip| name == *skip))
        {
            found.push(path);
        }
    }
    found.sort();
    found
}

#[test]
fn every_fixture_survives_a_round_trip_through_every_target() {
    let fixtures = streams(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"));
    assert!(fixtures.len() > 50);
    let checked: usize = fixtures.iter().map(|path| round_trip(path)).sum();
    // Only the streams that fail or are cut are left out.
    assert!(checked >= 4 * 50, "{checked} round trips");
}

#[test]
fn every_real_recording_survives_a_round_trip_through_every_target() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/real-sse");
    let recordings = streams(&dir);
    let checked: usize = recordings.iter().map(|path| round_trip(path)).sum();
    assert!(
        recordings.is_empty() || checked >= 4 * 30,
        "{checked} round trips"
    );
}

/// An OpenAI chat stream of `n` reasoning, `n` text and `n` argument deltas.
fn stream_of(n: usize) -> String {
    let chunk = |delta: &str| {
        format!("data: {{\"id\":\"c\",\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{delta}}}]}}\n\n")
    };
    let mut body = String::new();
    for _ in 0..n {
        body.push_str(&chunk(r#"{"reasoning_content":"think "}"#));
    }
    for _ in 0..n {
        body.push_str(&chunk(r#"{"content":"word "}"#));
    }
    body.push_str(&chunk(
        r#"{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"["}}]}"#,
    ));
    for _ in 0..n {
        body.push_str(&chunk(
            r#"{"tool_calls":[{"index":0,"function":{"arguments":"1,"}}]}"#,
        ));
    }
    body.push_str(&chunk(
        r#"{"tool_calls":[{"index":0,"function":{"arguments":"1]"}}]}"#,
    ));
    body.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n");
    body
}

/// The encoder's work is linear: every target writes a bounded number of bytes per delta, so
/// the output grows as the input does (n, 2n, 4n deltas), never with the square of it — no
/// delta re-sends the text or the arguments so far. (The whole text is written once more in
/// the closing events of Responses, also linear.)
#[test]
fn the_output_grows_linearly_with_the_input() {
    for target in Target::PROVIDERS {
        let sizes: Vec<(usize, usize)> = [250, 500, 1000]
            .into_iter()
            .map(|n| {
                let input = stream_of(n);
                let (_, out) = assemble_and_encode(input.as_bytes(), target).unwrap();
                (input.len(), out.len())
            })
            .collect();
        let per_input_byte: Vec<f64> = sizes
            .iter()
            .map(|&(input, output)| output as f64 / input as f64)
            .collect();
        // The ratio of output to input stays the same as the input doubles and doubles again
        // (sequence numbers gaining a digit account for the slack).
        for ratio in &per_input_byte[1..] {
            assert!(
                (ratio / per_input_byte[0] - 1.0).abs() < 0.1,
                "{target}: output per input byte {per_input_byte:?} for {sizes:?}"
            );
        }
    }
}
