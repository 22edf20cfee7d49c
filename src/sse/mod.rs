//! Sans-IO framing: the WHATWG `text/event-stream` decoder, and a newline-delimited JSON
//! splitter for the dialects that stream NDJSON instead (Ollama's native API).
//!
//! The decoders never touch a socket: feed them bytes with `push` and pull complete frames with
//! `next_frame`. This keeps them usable from any runtime and lets every framing rule be tested
//! byte for byte.

mod decoder;
mod error;
mod frame;
mod input;
mod ndjson;

pub use decoder::{SseDecoder, DEFAULT_MAX_EVENT_BYTES};
pub use error::FramingError;
pub use frame::Frame;
pub use ndjson::NdjsonDecoder;
