//! Writes the generated streams to files for the Python peers (`benches/peers/peer.py`) and
//! for whole-process timing of the `deltafold` binary.
//!
//! ```text
//! cargo bench --bench write_streams               # into target/bench-streams/
//! cargo bench --bench write_streams -- DIRECTORY
//! ```

#[allow(dead_code)] // Shared by several bench targets; each uses part of it.
mod support;

use std::path::PathBuf;

use support::generate::Spec;

fn main() {
    let dir = std::env::args()
        .skip(1)
        .find(|arg| !arg.starts_with("--"))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-streams"));
    std::fs::create_dir_all(&dir).expect("the output directory can be created");
    let specs = [
        Spec::issue3(),
        Spec::issue3_quarter(),
        Spec::issue3_sixteenth(),
        Spec::text(10_000),
        Spec::reasoning(10_000),
        Spec::one_tool_call(10_000),
        Spec::parallel_tools(10_000),
        Spec::two_choices(10_000),
    ];
    for spec in specs {
        let stream = spec.generate();
        let path = dir.join(format!("{}.sse", spec.name));
        std::fs::write(&path, &stream.bytes).expect("the stream file can be written");
        println!(
            "{}  {:.2} MB, {} events, {} deltas",
            path.display(),
            stream.bytes.len() as f64 / 1e6,
            stream.events.len(),
            stream.deltas()
        );
    }
}
