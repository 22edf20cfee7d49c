//! The fixtures as a whole: every stream of the OpenAI chat-completion providers under
//! `fixtures/<provider>/<case>.sse` replayed whole, byte by byte and at random split points, and
//! checked against the hand-written `<case>.json` beside it (the format and the comparison rule
//! are in `support/replay/expect.rs`); and the check that every provider has fixtures and every
//! stream its expectation. The other dialects' folders are replayed by their own tests in
//! `tests/dialects/`, with the same harness.

#[path = "support/replay/mod.rs"]
mod replay;

use std::path::{Path, PathBuf};

use replay::fixture::{self, OTHER_DIALECT_DIRS};

#[test]
fn every_chat_completion_fixture_replays_to_its_expected_message() {
    let fixtures: Vec<_> = fixture::discover("")
        .into_iter()
        .filter(|fixture| {
            let dir = fixture.name.split('/').next().unwrap_or_default();
            !OTHER_DIALECT_DIRS.contains(&dir)
        })
        .collect();
    assert!(
        fixtures.len() >= 30,
        "found only {} chat-completion fixtures under fixtures/",
        fixtures.len()
    );
    fixture::assert_all_replay(&fixtures);
}

#[test]
fn every_provider_has_fixtures_and_every_stream_its_expectation() {
    let root = fixture::root();
    for (provider, framing) in [
        ("openai", "sse"),
        ("deepseek", "sse"),
        ("openrouter", "sse"),
        ("azure", "sse"),
        ("groq", "sse"),
        ("mistral", "sse"),
        ("gemini-compat", "sse"),
        ("ollama", "sse"),
        ("anthropic", "sse"),
        ("openai-responses", "sse"),
        ("gemini", "sse"),
        ("ollama-native", "ndjson"),
    ] {
        let dir = root.join(provider);
        let streams = files_with_extension(&dir, framing);
        assert!(!streams.is_empty(), "no fixture for {provider}");
        for expectation in files_with_extension(&dir, "json") {
            assert!(
                expectation.with_extension(framing).is_file()
                    || expectation.with_extension("body").is_file(),
                "{} has no stream",
                expectation.display()
            );
        }
    }
    for fixture in fixture::discover("") {
        assert!(
            fixture.stream.with_extension("json").is_file(),
            "{} has no expected .json",
            fixture.name
        );
    }
}

fn files_with_extension(dir: &Path, extension: &str) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|entry| entry.expect("directory entry").path())
                .filter(|path| path.extension().is_some_and(|ext| ext == extension))
                .collect()
        })
        .unwrap_or_default()
}
