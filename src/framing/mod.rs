//! Sans-IO framing: cuts a byte stream into payloads. The WHATWG `text/event-stream` decoder,
//! a newline-delimited JSON splitter for the dialects that stream NDJSON instead (Ollama's
//! native API), a JSON-array / JSON-value splitter (Gemini without `alt=sse`, non-streamed
//! answers), the input buffer they share, and the choice between them from a content type
//! (whose media type is read here for the HTTP layer too) or the first bytes. AWS's binary
//! event stream (Bedrock) has a decoder of its own, with its CRC-32.
//!
//! Every framer implements one trait, [`FrameDecoder`] (in the manner of tokio-util's
//! `codec::Decoder`): feed it bytes with `push`, pull complete frames with `next_frame`, end
//! with `finish`, read where it stands with `counts`. The decoders never touch a socket, which
//! keeps them usable from any runtime and lets every framing rule be tested byte for byte.

mod decoder;
mod error;
mod eventstream;
mod frame;
mod framer;
mod input;
mod json_array;
mod lent;
mod media_type;
mod ndjson;
mod sniff;
mod sse;

pub use decoder::{FrameCounts, FrameDecoder, DEFAULT_MAX_EVENT_BYTES};
pub use error::FramingError;
pub use eventstream::EventStreamDecoder;
pub use frame::Frame;
pub(crate) use framer::Framer;
pub use json_array::{JsonArrayDecoder, JsonShape};
pub(crate) use lent::Lent;
pub use media_type::media_type;
pub use ndjson::NdjsonDecoder;
pub use sniff::Framing;
pub use sse::SseDecoder;
