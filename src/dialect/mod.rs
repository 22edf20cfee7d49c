//! Dialects: each turns one provider's payloads into neutral deltas. The assembler behind them
//! is shared, so a provider is a decoder and nothing more.
//!
//! The dialect of a stream is detected from its first payload (and the framing: an NDJSON stream
//! is Ollama's native API unless its payloads say otherwise; Bedrock's event names and Cohere's
//! hyphenated event types name theirs) unless
//! [`Options::dialect`](crate::Options::dialect) names it. A payload of another dialect later in
//! the stream is a [`Malformed`](crate::ErrorKind::Malformed) error that names both.
//!
//! ```
//! use deltafold::{Assembler, Dialect};
//!
//! let body = concat!(
//!     "event: message_start\n",
//!     "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"model\":\"claude-sonnet-4-5\",",
//!     "\"usage\":{\"input_tokens\":10,\"cache_read_input_tokens\":90,\"output_tokens\":1}}}\n\n",
//!     "event: content_block_start\n",
//!     "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
//!     "event: content_block_delta\n",
//!     "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi!\"}}\n\n",
//!     "event: message_delta\n",
//!     "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":3}}\n\n",
//!     "event: message_stop\n",
//!     "data: {\"type\":\"message_stop\"}\n\n",
//! );
//! let mut assembler = Assembler::new();
//! assembler.feed(body.as_bytes())?;
//! assert_eq!(assembler.dialect(), Some(Dialect::Anthropic));
//! let message = assembler.finish()?.into_message();
//! assert_eq!(message.text(), "Hi!");
//! assert_eq!(message.response_metadata.finish_reason, "end_turn");
//! // Anthropic's input tokens leave cache reads out; deltafold counts them in.
//! assert_eq!(message.usage.unwrap().input_tokens, 100);
//! # Ok::<(), deltafold::Error>(())
//! ```

// One folder per dialect, each with the same skeleton (see `decoder`): `mod.rs` its decoder and
// general path, `payload.rs` its serde payload types, `fast.rs` its fast path.
mod anthropic;
mod bedrock;
mod cohere;
mod cursor;
mod decoder;
mod detect;
mod gemini;
mod lenient;
mod ollama;
mod openai_chat;
mod openai_responses;
mod payload;
mod registry;
mod stream_decoder;
#[cfg(test)]
mod test_support;
mod text;
mod tolerant;
mod usage;

pub use registry::{Dialect, ParseDialectError};
pub(crate) use stream_decoder::StreamDecoder;
