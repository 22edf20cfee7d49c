//! Sans-IO decoder for the WHATWG `text/event-stream` format.
//!
//! The decoder never touches a socket: feed it bytes with [`SseDecoder::push`] and pull
//! complete events with [`SseDecoder::next_frame`]. This keeps it usable from any runtime and
//! lets every framing rule be tested byte for byte.

mod decoder;
mod error;
mod frame;

pub use decoder::{SseDecoder, DEFAULT_MAX_EVENT_BYTES};
pub use error::FramingError;
pub use frame::Frame;
