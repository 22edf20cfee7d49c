//! The end events of text, reasoning and refusal blocks on streams nobody here wrote: every
//! real recording under `../shared/real-sse`, read whole and byte by byte, tells the story the
//! replay harness checks (`support/replay/story.rs`): each block its deltas opened ends once,
//! before another block's events, its choice's finish and `Done`, at a position where the final
//! message holds a block of its kind.

#[path = "support/replay/mod.rs"]
mod replay;

use std::path::Path;

use deltafold::Options;

#[test]
fn every_real_recording_ends_each_text_block_it_opened() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/real-sse");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("../shared/real-sse not found; skipping");
        return;
    };
    let mut streams: Vec<_> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "sse"))
        .collect();
    streams.sort();
    assert!(streams.len() >= 30, "{} recordings", streams.len());
    let (mut problems, mut ends) = (Vec::new(), 0);
    for path in &streams {
        let bytes = std::fs::read(path).unwrap();
        for run in [
            replay::run([bytes.as_slice()], Options::new()),
            replay::run(bytes.chunks(1), Options::new()),
        ] {
            ends += run
                .events
                .iter()
                .filter(|event| {
                    matches!(
                        event,
                        deltafold::Event::TextEnd { .. }
                            | deltafold::Event::ReasoningEnd { .. }
                            | deltafold::Event::RefusalEnd { .. }
                    )
                })
                .count();
            let mut found = Vec::new();
            replay::story::check_events(&run, &mut found);
            problems.extend(
                found
                    .into_iter()
                    .map(|problem| format!("{}: {problem}", path.display())),
            );
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(
        ends >= streams.len(),
        "only {ends} end events in {} recordings",
        streams.len()
    );
}
