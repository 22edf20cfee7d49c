//! Assembles a recorded stream and prints its LangChain dict and the next request's messages
//! in the Chat Completions and Gemini formats, as one JSON line: `{"langchain", "openai_chat",
//! "gemini"}` for the conversation `[user "go", the assembled answer]` (a format that cannot carry the
//! answer gives `{"error": …}`). `scripts/sdk-readback/sendback.py` reads it with the SDKs.
//!
//! ```text
//! cargo run --example send_back -- fixtures/openai/custom_tool_call.sse
//! ```

use std::process::ExitCode;

use deltafold::message::Message;
use deltafold::wire::{gemini, openai_chat};
use serde_json::{json, Value};

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: send_back STREAM.sse");
        return ExitCode::from(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(error) => {
            eprintln!("cannot read {}: {error}", path.to_string_lossy());
            return ExitCode::FAILURE;
        }
    };
    let message = match deltafold::assemble(&bytes, deltafold::Options::new()) {
        Ok(completion) => completion.into_message(),
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    let langchain = serde_json::to_value(&message).unwrap_or(Value::Null);
    let messages = [Message::user("go"), Message::from(message)];
    let or_error = |result: Result<Value, deltafold::wire::WireError>| {
        result.unwrap_or_else(|error| json!({ "error": error.to_string() }))
    };
    let out = json!({
        "langchain": langchain,
        "openai_chat": or_error(openai_chat::encode(&messages).map(Value::from)),
        "gemini": or_error(
            gemini::encode(&messages).map(|request| json!({"contents": request.contents}))
        ),
    });
    println!("{out}");
    ExitCode::SUCCESS
}
