//! Sans-IO framing: cuts a byte stream into payloads. The WHATWG `text/event-stream` decoder,
//! a newline-delimited JSON splitter for the dialects that stream NDJSON instead (Ollama's
//! native API), the input buffer both share, and the choice between them from a content type
//! or the first bytes.
//!
//! The decoders never touch a socket: feed them bytes with `push` and pull complete frames with
//! `next_frame`. This keeps them usable from any runtime and lets every framing rule be tested
//! byte for byte.

mod error;
mod frame;
mod framer;
mod input;
mod ndjson;
mod sse;

pub use error::FramingError;
pub use frame::Frame;
pub(crate) use framer::{Framer, Framing};
pub use ndjson::NdjsonDecoder;
pub use sse::{SseDecoder, DEFAULT_MAX_EVENT_BYTES};
