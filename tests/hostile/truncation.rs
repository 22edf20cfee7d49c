//! Streams cut short: every fixture cut anywhere ends in `Ok` or a typed error, and what each
//! choice holds only grows as more bytes arrive: each text and reasoning block's text (a delta
//! may go to an earlier block, whose index names it), and the number of tool calls.

use std::path::{Path, PathBuf};

use deltafold::{Completion, ContentBlock};

use crate::replay::fixture;

use crate::{assemble, assert_typed, reached};

/// What one choice holds: its text blocks' texts, its reasoning blocks' texts, its tool calls.
type Held = (u32, Vec<String>, Vec<String>, usize);

/// Each choice's text and reasoning blocks and number of tool calls, to compare what arrived.
fn summary(completion: &Completion) -> Vec<Held> {
    completion
        .choices
        .iter()
        .map(|choice| {
            let (mut texts, mut reasonings, mut calls) = (Vec::new(), Vec::new(), 0);
            for block in &choice.message.content {
                match block {
                    ContentBlock::Text { text, .. } => texts.push(text.clone()),
                    ContentBlock::Reasoning { text, .. } => reasonings.push(text.clone()),
                    ContentBlock::ToolCall(_) | ContentBlock::InvalidToolCall(_) => calls += 1,
                    _ => {}
                }
            }
            (choice.index, texts, reasonings, calls)
        })
        .collect()
}

/// Each block of `before` goes on as the same block of `now`, which may have more.
fn grew(before: &[String], now: &[String]) -> bool {
    before.len() <= now.len() && before.iter().zip(now).all(|(was, is)| is.starts_with(was))
}

/// Every SSE fixture, at any depth under `fixtures/`.
fn fixture_paths() -> Vec<PathBuf> {
    fixture::discover("")
        .into_iter()
        .map(|fixture| fixture.stream)
        .filter(|path| path.extension().is_some_and(|ext| ext == "sse"))
        .collect()
}

/// Fixtures up to this size are cut at every byte offset in the default run; larger ones at a
/// sample, since each cut re-assembles its whole prefix (quadratic in debug builds).
const EXHAUSTIVE_BELOW: usize = 4096;

/// Where to cut a fixture: everywhere, or for a large one every offset within two bytes of a
/// line end or in its last 512 bytes, and every 16th offset elsewhere.
fn cut_points(bytes: &[u8], everywhere: bool) -> Vec<usize> {
    if everywhere || bytes.len() < EXHAUSTIVE_BELOW {
        return (0..=bytes.len()).collect();
    }
    let near_line_end = |at: usize| {
        bytes[at.saturating_sub(2)..(at + 3).min(bytes.len())]
            .iter()
            .any(|&byte| byte == b'\n' || byte == b'\r')
    };
    (0..=bytes.len())
        .filter(|&at| at % 16 == 0 || at + 512 >= bytes.len() || near_line_end(at))
        .collect()
}

/// Cuts a stream at each point: the result is `Ok` or a typed error, and what each choice holds
/// only grows as more bytes arrive (its text and reasoning are prefixes of the next cut's, its
/// tool calls never disappear).
fn assert_truncations_keep_what_arrived(name: &str, bytes: &[u8], cuts: &[usize]) {
    let mut before: Vec<Held> = Vec::new();
    for &cut in cuts {
        let result = assemble(&bytes[..cut]);
        if let Err(error) = &result {
            assert_typed(error);
        }
        let now = summary(reached(&result));
        for (choice, text, reasoning, calls) in &before {
            let Some((_, text_now, reasoning_now, calls_now)) =
                now.iter().find(|(index, ..)| index == choice)
            else {
                panic!("{name}: choice {choice} vanished at byte {cut}");
            };
            assert!(
                grew(text, text_now) && grew(reasoning, reasoning_now) && calls_now >= calls,
                "{name}: choice {choice} lost what arrived at byte {cut}"
            );
        }
        before = now;
    }
}

#[test]
fn every_fixture_truncated_anywhere_keeps_what_arrived() {
    let paths = fixture_paths();
    assert!(paths.len() >= 10, "found only {} fixtures", paths.len());
    for path in paths {
        let bytes = std::fs::read(&path).unwrap();
        let cuts = cut_points(&bytes, false);
        assert_truncations_keep_what_arrived(&path.display().to_string(), &bytes, &cuts);
    }
}

/// The same at every byte offset of every fixture (about half a minute in a debug build), and
/// at 256 evenly spaced offsets of each shared real recording when they sit beside the
/// repository: run on demand with `--ignored`.
#[test]
#[ignore]
fn every_fixture_truncated_at_every_byte_offset_keeps_what_arrived() {
    for path in fixture_paths() {
        let bytes = std::fs::read(&path).unwrap();
        let cuts = cut_points(&bytes, true);
        assert_truncations_keep_what_arrived(&path.display().to_string(), &bytes, &cuts);
    }
    let recordings = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/real-sse");
    for entry in std::fs::read_dir(recordings)
        .into_iter()
        .flatten()
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        let chat = !name.starts_with("anthropic__") && !name.starts_with("openai_responses__");
        if !chat || !name.ends_with(".sse") {
            continue;
        }
        let bytes = std::fs::read(entry.path()).unwrap();
        let cuts: Vec<usize> = (0..=256).map(|step| bytes.len() * step / 256).collect();
        assert_truncations_keep_what_arrived(&name, &bytes, &cuts);
    }
}
