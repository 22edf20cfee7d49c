//! The fixture corpus: every `fixtures/**/*.sse` that is an OpenAI chat-completion stream which
//! the floor, the peer and deltafold all read.

use std::path::{Path, PathBuf};

use super::{floor, peer};

/// One fixture, with its payloads pre-split for the floor.
pub struct Fixture {
    /// Path relative to the crate.
    pub name: String,
    /// The raw stream.
    pub bytes: Vec<u8>,
    /// Its `data:` payloads.
    pub payloads: Vec<String>,
}

/// The fixtures found now (they are discovered at bench start, not compiled in), and the ones
/// skipped with why.
pub fn load() -> (Vec<Fixture>, Vec<(String, String)>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    collect(&root.join("fixtures"), &mut paths);
    paths.sort();
    let mut fixtures = Vec::new();
    let mut skipped = Vec::new();
    for path in paths {
        let name = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string();
        match check(&path) {
            Ok(fixture) => fixtures.push(Fixture { name, ..fixture }),
            Err(why) => skipped.push((name, why)),
        }
    }
    (fixtures, skipped)
}

fn collect(dir: &Path, paths: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, paths);
        } else if path.extension().is_some_and(|ext| ext == "sse") {
            paths.push(path);
        }
    }
}

fn check(path: &Path) -> Result<Fixture, String> {
    let bytes = std::fs::read(path).map_err(|error| error.to_string())?;
    let body = std::str::from_utf8(&bytes).map_err(|_| "not UTF-8".to_owned())?;
    let payloads: Vec<String> = floor::split_payloads(body)
        .into_iter()
        .filter(|payload| !payload.trim().is_empty())
        .collect();
    let mut has_choices = false;
    for payload in &payloads {
        if payload == "[DONE]" {
            continue;
        }
        let chunk: floor::Chunk<'_> = serde_json::from_str(payload)
            .map_err(|error| format!("not an OpenAI chat chunk: {error}"))?;
        has_choices |= !chunk.choices.is_empty();
    }
    if !has_choices {
        return Err("no chunk has choices (another dialect?)".into());
    }
    let completion = deltafold::assemble(&bytes, deltafold::Options::new())
        .map_err(|error| format!("deltafold rejects it (strict): {error}"))?;
    if completion.choices.is_empty() {
        return Err("no message".into());
    }
    peer_survives(&bytes)?;
    Ok(Fixture {
        name: String::new(),
        bytes,
        payloads,
    })
}

/// eventsource-stream panics on some valid streams (a byte-order mark at the start); those
/// fixtures cannot be raced against the peer.
fn peer_survives(bytes: &[u8]) -> Result<(), String> {
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let outcome = std::panic::catch_unwind(|| peer::assemble(&[bytes]));
    std::panic::set_hook(quiet);
    match outcome {
        Ok(_) => Ok(()),
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            Err(format!(
                "the peer (eventsource-stream) panics: {}",
                message.chars().take(80).collect::<String>()
            ))
        }
    }
}
