//! The streams under `fixtures/<provider>/<case>.sse` (or `.ndjson`, or Bedrock's binary
//! `.eventstream`), each beside the
//! hand-written `<case>.json` it must assemble into, and their replay: the whole body in one
//! push, one byte at a time and at random split points (fixed seeds), plus the `assemble`
//! one-call path. Every replay must match the expectation (`expect`), tell the same story in its
//! events (`story`), and give the same events as the others.

use std::path::{Path, PathBuf};

use deltafold::{Error, Options};
use serde_json::Value;

use super::{expect, story, Run};

/// The fixture folders of the dialects other than OpenAI chat completions, each replayed by the
/// tests of its dialect (`tests/dialects/`); every other folder holds chat-completion streams,
/// replayed by `tests/fixtures.rs`.
pub const OTHER_DIALECT_DIRS: [&str; 6] = [
    "anthropic",
    "openai-responses",
    "gemini",
    "ollama-native",
    "bedrock",
    "cohere",
];

/// Seeds of the random-split replays.
const SEEDS: [u64; 8] = [1, 3, 7, 17, 42, 1234, 2024, 0xDE1F];

/// A stream and the name it is reported by (its path under `fixtures/`, without extension).
pub struct Fixture {
    pub name: String,
    pub stream: PathBuf,
}

/// The `fixtures/` folder of the crate.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Every `.sse`, `.ndjson`, `.eventstream` and `.body` (a raw response body: a JSON array, a
/// non-streamed answer) file under `fixtures/<dir>` (all of `fixtures/` for `""`), at
/// any depth, sorted by name.
pub fn discover(dir: &str) -> Vec<Fixture> {
    let root = root();
    let mut pending = vec![root.join(dir)];
    let mut found = Vec::new();
    while let Some(dir) = pending.pop() {
        let entries =
            std::fs::read_dir(&dir).unwrap_or_else(|error| panic!("{}: {error}", dir.display()));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| {
                matches!(
                    ext.to_str(),
                    Some("sse" | "ndjson" | "eventstream" | "body")
                )
            }) {
                let name = path
                    .strip_prefix(&root)
                    .expect("under the root")
                    .with_extension("")
                    .to_string_lossy()
                    .replace('\\', "/");
                found.push(Fixture { name, stream: path });
            }
        }
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}

/// Replays every fixture and panics with a report of each one that fails.
pub fn assert_all_replay(fixtures: &[Fixture]) {
    let failures: Vec<String> = fixtures
        .iter()
        .filter_map(|fixture| {
            check(fixture)
                .err()
                .map(|failure| format!("{}:\n{failure}", fixture.name))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n\n{}",
        failures.len(),
        fixtures.len(),
        failures.join("\n\n")
    );
}

/// A small deterministic generator (SplitMix64), so that a failing split can be reproduced.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Splits `bytes` at random points: pieces of 1 to 48 bytes, often cutting lines, line ends and
/// multi-byte characters.
fn random_pieces(bytes: &[u8], seed: u64) -> Vec<&[u8]> {
    let mut rng = SplitMix(seed);
    let mut pieces = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let len = 1 + (rng.next() % 48) as usize;
        let end = (at + len).min(bytes.len());
        pieces.push(&bytes[at..end]);
        at = end;
    }
    pieces
}

/// Pushes the pieces one by one, pulling every event after each push, then ends the input.
fn replay<'a>(pieces: impl IntoIterator<Item = &'a [u8]>) -> Run {
    super::run(pieces, Options::new())
}

/// Replays one fixture every way; returns what is wrong.
pub fn check(fixture: &Fixture) -> Result<(), String> {
    let bytes = std::fs::read(&fixture.stream).map_err(|e| format!("  cannot read: {e}"))?;
    let expected_path = fixture.stream.with_extension("json");
    let expected_text =
        std::fs::read_to_string(&expected_path).map_err(|e| format!("  no expectation: {e}"))?;
    let expected: Value = serde_json::from_str(&expected_text)
        .map_err(|e| format!("  {} is not JSON: {e}", expected_path.display()))?;

    let mut replays: Vec<(String, Run)> = vec![
        ("whole body".into(), replay([bytes.as_slice()])),
        ("byte by byte".into(), replay(bytes.chunks(1))),
    ];
    for seed in SEEDS {
        replays.push((
            format!("random splits (seed {seed})"),
            replay(random_pieces(&bytes, seed)),
        ));
    }

    let mut problems = Vec::new();
    for (how, run) in &replays {
        let mut found = expect::check_run(run, &expected);
        story::check_events(run, &mut found);
        problems.extend(
            found
                .into_iter()
                .map(|problem| format!("  [{how}] {problem}")),
        );
    }
    // Whatever the chunking, the same events come out.
    let (_, first) = &replays[0];
    for (how, run) in &replays[1..] {
        if run.events != first.events {
            problems.push(format!(
                "  [{how}] events differ from the whole-body replay:\n    whole: {:?}\n    this:  {:?}",
                first.events, run.events
            ));
        }
    }
    // The one-call path records no events but must build the same messages.
    let one_call = deltafold::assemble(&bytes, Options::new());
    let one_call_messages = match &one_call {
        Ok(completion) => Some(completion),
        Err(error) => error.partial(),
    };
    if one_call_messages != first.completion() || one_call.is_ok() != first.result.is_ok() {
        problems.push(format!(
            "  [assemble()] differs from the push/next_event replay: {:?}",
            one_call.as_ref().map(|_| ()).map_err(Error::to_string)
        ));
    }
    // Keep the report readable: the same mismatch usually shows in every replay.
    problems.dedup_by(|later, earlier| strip_how(later) == strip_how(earlier));
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn strip_how(problem: &str) -> &str {
    problem.split_once("] ").map_or(problem, |(_, rest)| rest)
}
