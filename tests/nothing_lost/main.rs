//! Nothing a provider sends is lost: for every stream under `fixtures/` and every recording in
//! `../shared/real-sse` (when that folder exists), every leaf value of every payload — SSE,
//! NDJSON, JSON bodies and arrays, AWS event-stream messages and the base64 payloads inside them
//! — must appear in the assembled output (the message's serde form, LangChain's dict, with its
//! metadata, extras and `non_standard` blocks, and the provider's error object), or be on the
//! drop list of `docs/dialects.md` with its reason, or on the list of known gaps, each naming the work that closes it.
//! `DELTAFOLD_HELD_OUT=dir1:dir2` adds the streams under those folders (recordings never seen).
//!
//! Strings are found as part of an output string (a delta is part of the text it joined) or,
//! reduced to their values, as part of the output's JSON (argument text kept parsed), or, escapes
//! included, as part of the output's JSON text (a fragment that begins inside an escape); numbers
//! exactly; booleans as the same key with the same value. What follows a stream's error is not
//! read and not checked.

mod found;
mod leaves;
mod payloads;
mod rules;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use deltafold::{Assembler, Completion, Error};
use serde_json::Value;

use found::{Found, Output};
use leaves::{Leaf, LeafValue};
use payloads::Payload;
use rules::Rule;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A stream to check, named as reported.
struct Stream {
    name: String,
    path: PathBuf,
}

fn streams() -> Vec<Stream> {
    let mut streams = Vec::new();
    let fixtures = root().join("fixtures");
    collect(&fixtures, &fixtures, "", &mut streams);
    let real = root().join("../shared/real-sse");
    if real.is_dir() {
        collect(&real, &real, "real-sse/", &mut streams);
    }
    // An outside check: recordings this project has never seen (SDK cassettes, other projects'
    // fixtures), named by `DELTAFOLD_HELD_OUT` (folders separated by `:`), walked the same way.
    for dir in std::env::var("DELTAFOLD_HELD_OUT")
        .unwrap_or_default()
        .split(':')
    {
        let dir = Path::new(dir);
        if !dir.as_os_str().is_empty() && dir.is_dir() {
            collect(dir, dir, "held-out/", &mut streams);
        }
    }
    streams.sort_by(|a, b| a.name.cmp(&b.name));
    streams
}

fn collect(dir: &Path, base: &Path, prefix: &str, out: &mut Vec<Stream>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, base, prefix, out);
        } else if path.extension().is_some_and(|ext| {
            matches!(
                ext.to_str(),
                Some("sse" | "ndjson" | "eventstream" | "body")
            )
        }) {
            let name = path
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.push(Stream {
                name: format!("{prefix}{name}"),
                path,
            });
        }
    }
}

/// What the library made of one stream.
struct Assembled {
    dialect: String,
    outputs: Vec<Value>,
    /// Where the stream's error stopped the reading, if it did.
    stop: Option<u64>,
}

/// Pulls every event the assembler has ready.
fn drain(assembler: &mut Assembler) -> Result<(), Error> {
    while assembler.next_event()?.is_some() {}
    Ok(())
}

fn assemble(bytes: &[u8]) -> Assembled {
    let mut assembler = Assembler::new();
    assembler.push(bytes);
    let drained = drain(&mut assembler).and_then(|()| {
        assembler.end_input();
        drain(&mut assembler)
    });
    let dialect = assembler
        .dialect()
        .map(|d| d.name().to_owned())
        .unwrap_or_default();
    let result = drained.and_then(|()| assembler.finish());
    let (completion, error): (Option<&Completion>, Option<&Error>) = match &result {
        Ok(completion) => (Some(completion), None),
        Err(error) => (error.partial(), Some(error)),
    };
    let mut outputs: Vec<Value> = completion
        .map(|completion| {
            completion
                .messages()
                .map(|message| serde_json::to_value(message).unwrap())
                .collect()
        })
        .unwrap_or_default();
    if let Some(provider) = error.and_then(Error::provider_error) {
        outputs.push(serde_json::to_value(provider).unwrap());
    }
    Assembled {
        dialect,
        outputs,
        stop: error
            .and_then(Error::location)
            .map(|location| location.offset),
    }
}

/// What became of one leaf.
enum Fate {
    Found(Found),
    Dropped(usize),
    Pending(usize),
    Lost,
}

/// One lost value, for the report.
struct Gap {
    stream: String,
    dialect: String,
    path: String,
    value: String,
}

#[derive(Default)]
struct Tally {
    streams: usize,
    payloads: usize,
    leaves: usize,
    found: BTreeMap<&'static str, usize>,
    dropped: BTreeMap<usize, usize>,
    pending: BTreeMap<usize, usize>,
    gaps: Vec<Gap>,
    /// Leaves carrying the invented marker that were not found in the output.
    invented_not_found: Vec<String>,
    /// The paths whose values were found only as JSON text (reduced to their values), for the
    /// report: argument fragments, and nothing else if the matching is as narrow as it should be.
    json_text_paths: BTreeSet<String>,
}

/// The marker of values our own fixtures invent for fields, events, blocks and items no
/// provider sends (yet): each must be found in the output, never dropped or pending.
const INVENTED: &str = "df-invented";

fn check(stream: &Stream, drops: &[Rule], pending: &[Rule], tally: &mut Tally) {
    let bytes = std::fs::read(&stream.path).unwrap();
    let eventstream = stream.name.ends_with(".eventstream");
    let assembled = assemble(&bytes);
    let mut output = Output::new(&assembled.outputs);
    tally.streams += 1;
    let mut read = Vec::new();
    for payload in payloads::read(&bytes, eventstream) {
        if assembled.stop.is_some_and(|stop| payload.end as u64 > stop) {
            continue;
        }
        tally.payloads += 1;
        let leaves = leaves::of(&payload, eventstream);
        read.push((payload, leaves));
    }
    // The last payload each path occurs in: a value at that path in an earlier payload was
    // replaced by a later one (a running total, a rotating id). The last payload each member of
    // an object with an `id` occurs in: the same item sent again. The first payload of each
    // type.
    let mut last: HashMap<&str, usize> = HashMap::new();
    let mut last_owned: HashMap<(&str, &str), usize> = HashMap::new();
    let mut first_of_type: HashMap<&str, usize> = HashMap::new();
    for (index, (payload, leaves)) in read.iter().enumerate() {
        for leaf in leaves {
            last.insert(&leaf.path, index);
            if let Some(owner) = &leaf.owner {
                last_owned.insert((owner, leaf.member()), index);
            }
        }
        if let Some(kind) = payload_type(payload) {
            first_of_type.entry(kind).or_insert(index);
        }
    }
    let seen = Seen {
        last,
        last_owned,
        first_of_type,
        read: &read,
    };
    for (index, (_, leaves)) in read.iter().enumerate() {
        for leaf in leaves {
            tally.leaves += 1;
            let value = leaf.value.text();
            let fate = match output.find(&leaf.path, &leaf.value) {
                Some(found) => Fate::Found(found),
                None => {
                    let unfound = Unfound {
                        dialect: &assembled.dialect,
                        leaf,
                        value: &value,
                        index,
                        seen: &seen,
                        output: &output,
                    };
                    match drops.iter().position(|rule| rule.covers(&unfound)) {
                        Some(rule) => Fate::Dropped(rule),
                        None => match pending.iter().position(|rule| rule.covers(&unfound)) {
                            Some(rule) => Fate::Pending(rule),
                            None => Fate::Lost,
                        },
                    }
                }
            };
            let invented = matches!(&leaf.value, LeafValue::Str(text) if text.contains(INVENTED));
            match fate {
                Fate::Found(how) => {
                    if how == Found::JsonText {
                        tally
                            .json_text_paths
                            .insert(format!("{} {}", assembled.dialect, leaf.path));
                    }
                    *tally.found.entry(found_name(how)).or_default() += 1;
                    continue;
                }
                Fate::Dropped(rule) => *tally.dropped.entry(rule).or_default() += 1,
                Fate::Pending(rule) => *tally.pending.entry(rule).or_default() += 1,
                Fate::Lost => tally.gaps.push(Gap {
                    stream: stream.name.clone(),
                    dialect: assembled.dialect.clone(),
                    path: leaf.path.clone(),
                    value: value.chars().take(80).collect(),
                }),
            }
            if invented {
                tally
                    .invented_not_found
                    .push(format!("{}: {} = {value}", stream.name, leaf.path));
            }
        }
    }
}

/// The payload's type: its `type` member, else its frame's event name.
fn payload_type(payload: &Payload) -> Option<&str> {
    payload
        .json
        .get("type")
        .and_then(Value::as_str)
        .or(payload.event.as_deref())
}

/// What the stream's payloads say of their leaves, for the rules' conditions.
struct Seen<'a> {
    /// The last payload each path occurs in.
    last: HashMap<&'a str, usize>,
    /// The last payload each member of an object with an `id` occurs in, by id and member.
    last_owned: HashMap<(&'a str, &'a str), usize>,
    /// The first payload of each type.
    first_of_type: HashMap<&'a str, usize>,
    /// The payloads and their leaves.
    read: &'a [(Payload, Vec<Leaf>)],
}

/// A leaf the output does not hold, as the rules ask about it.
struct Unfound<'a> {
    dialect: &'a str,
    leaf: &'a Leaf,
    value: &'a str,
    /// Its payload's position in the stream.
    index: usize,
    seen: &'a Seen<'a>,
    output: &'a Output,
}

impl rules::Leaf for Unfound<'_> {
    fn dialect(&self) -> &str {
        self.dialect
    }

    fn path(&self) -> &str {
        &self.leaf.path
    }

    fn value(&self) -> &str {
        self.value
    }

    fn earlier(&self) -> bool {
        self.seen.last[self.leaf.path.as_str()] > self.index
    }

    fn superseded(&self) -> bool {
        self.leaf.owner.as_deref().is_some_and(|owner| {
            self.seen
                .last_owned
                .get(&(owner, self.leaf.member()))
                .is_some_and(|&last| last > self.index)
        })
    }

    fn replaced(&self) -> bool {
        self.leaf.owner.as_deref().is_some_and(|owner| {
            self.seen
                .last_owned
                .get(&(owner, "text"))
                .is_some_and(|&last| last > self.index)
        })
    }

    fn rotating(&self, paths: &[String]) -> bool {
        let output_index = |payload: &Payload| payload.json.get("output_index").cloned();
        let Some(position) = output_index(&self.seen.read[self.index].0) else {
            return false;
        };
        // The payloads of the same response: from its `response.created` to the next one.
        let starts = |payload: &Payload| payload_type(payload) == Some("response.created");
        let read = self.seen.read;
        let start = read[..=self.index]
            .iter()
            .rposition(|(payload, _)| starts(payload))
            .unwrap_or(0);
        let end = read[self.index + 1..]
            .iter()
            .position(|(payload, _)| starts(payload))
            .map_or(read.len(), |at| self.index + 1 + at);
        read[start..end].iter().any(|(payload, leaves)| {
            output_index(payload).as_ref() == Some(&position)
                && leaves
                    .iter()
                    .any(|other| paths.contains(&other.path) && other.value.text() != self.value)
        })
    }

    fn rounded(&self) -> bool {
        let LeafValue::Num(rounded) = &self.leaf.value else {
            return false;
        };
        // An earlier value of the same member (the deltas' `logprob`) that the output keeps.
        self.seen.read[..self.index].iter().any(|(_, leaves)| {
            leaves.iter().any(|earlier| {
                earlier.member() == self.leaf.member()
                    && matches!(&earlier.value, LeafValue::Num(kept)
                        if found::rounds_to(kept, rounded) && self.output.has_number(kept))
            })
        })
    }

    fn after(&self, types: &[String]) -> bool {
        types.iter().any(|kind| {
            self.seen
                .first_of_type
                .get(kind.as_str())
                .is_some_and(|&first| first < self.index)
        })
    }
}

fn found_name(found: Found) -> &'static str {
    match found {
        Found::String => "as text",
        Found::JsonText => "as JSON text",
        Found::Number => "as a number",
        Found::Bool => "as a key and boolean",
    }
}

#[test]
fn every_value_of_every_stream_is_kept_or_on_the_drop_list() {
    let drops = rules::drop_list(&root());
    let pending = rules::pending(&root());
    let mut tally = Tally::default();
    for stream in streams() {
        check(&stream, &drops, &pending, &mut tally);
    }
    eprintln!(
        "{} leaf values in {} payloads of {} streams: found {:?}; dropped on purpose {}; known gaps {}; lost {}",
        tally.leaves,
        tally.payloads,
        tally.streams,
        tally.found,
        tally.dropped.values().sum::<usize>(),
        tally.pending.values().sum::<usize>(),
        tally.gaps.len(),
    );
    eprintln!("found only as JSON text, at: {:?}", tally.json_text_paths);
    let by_rule: Vec<String> = tally
        .dropped
        .iter()
        .map(|(&rule, count)| format!("{}: {count}", drops[rule].line))
        .collect();
    eprintln!(
        "dropped, by line of docs/dialects.md: {}",
        by_rule.join(", ")
    );
    let mut by_path: BTreeMap<(String, String), Vec<&Gap>> = BTreeMap::new();
    for gap in &tally.gaps {
        by_path
            .entry((gap.dialect.clone(), gap.path.clone()))
            .or_default()
            .push(gap);
    }
    let report: Vec<String> = by_path
        .iter()
        .map(|((dialect, path), gaps)| {
            let examples: Vec<String> = gaps
                .iter()
                .take(3)
                .map(|gap| format!("{:?} in {}", gap.value, gap.stream))
                .collect();
            format!(
                "{dialect} | {path} | {} lost: {}",
                gaps.len(),
                examples.join("; ")
            )
        })
        .collect();
    assert!(
        tally.gaps.is_empty(),
        "{} values lost, at {} paths (dialect | path | examples):\n{}",
        tally.gaps.len(),
        report.len(),
        report.join("\n")
    );
    assert!(
        tally.invented_not_found.is_empty(),
        "invented values hidden by a list:\n{}",
        tally.invented_not_found.join("\n")
    );
    let stale: Vec<String> = pending
        .iter()
        .enumerate()
        .filter(|(index, _)| !tally.pending.contains_key(index))
        .map(|(_, rule)| {
            format!(
                "line {}: {} ({})",
                rule.line,
                rule.paths.join(", "),
                rule.why
            )
        })
        .collect();
    // Some pending gaps are only in the real recordings: without them, a line cannot be stale.
    let all_read = root().join("../shared/real-sse").is_dir();
    assert!(
        stale.is_empty() || !all_read,
        "known gaps no longer found (fixed: delete these lines of known_gaps.txt):\n{}",
        stale.join("\n")
    );
}
