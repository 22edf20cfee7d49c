//! Assembles a recorded stream file into its final message and prints it as one JSON line:
//! the smallest whole program around `deltafold::assemble`.
//!
//! ```text
//! cargo run --release --example assemble_file -- answer.sse
//! ```

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: assemble_file STREAM.sse");
        return ExitCode::from(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(error) => {
            eprintln!("cannot read {}: {error}", path.to_string_lossy());
            return ExitCode::FAILURE;
        }
    };
    let completion = match deltafold::assemble(&bytes, deltafold::Options::new()) {
        Ok(completion) => completion,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    let mut out = std::io::stdout().lock();
    let printed = serde_json::to_writer(&mut out, &completion.into_message())
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(out));
    match printed {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("cannot write the message: {error}");
            ExitCode::FAILURE
        }
    }
}
