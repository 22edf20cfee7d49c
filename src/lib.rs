//! deltafold turns the streamed answer of a chat model into complete, typed messages.
//!
//! Bytes flow one way: [`framing`] cuts them into events, a [`Dialect`] decodes each provider
//! payload into neutral deltas, and the [`Assembler`] folds those into one [`AiMessage`] per
//! choice, yielding live [`Event`]s on the way. All of that is sans-IO; the async
//! `AssembleExt::assemble` adapter and the reqwest integration are thin layers on top.
//!
//! ```
//! let body = concat!(
//!     "data: {\"id\":\"chatcmpl-1\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":",
//!     "{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"function\":{\"name\":\"weather\",\"arguments\":\"{\\\"ci\"}}]}}]}\n\n",
//!     "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,",
//!     "\"function\":{\"arguments\":\"ty\\\": \\\"Paris\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
//!     "data: [DONE]\n\n",
//! );
//! let message = deltafold::assemble(body.as_bytes(), deltafold::Options::new())?.into_message();
//! let call = message.tool_calls().next().unwrap();
//! assert_eq!(call.name, "weather");
//! assert_eq!(call.args["city"], "Paris");
//! # Ok::<(), deltafold::Error>(())
//! ```
//!
//! # Names
//!
//! Some words meet twice in this crate; each means one thing in its place:
//!
//! - **Frame** and **event.** A *frame* is one payload the [`framing`] layer cut out of the
//!   bytes: an SSE event, an NDJSON line, a JSON array's element, an AWS event-stream message.
//!   An [`Event`] is what the assembler yields: a text delta, a finished call. [`Location`]'s
//!   `event` field is the number of the frame (kept under that name: it is serialized and
//!   printed, and for the common SSE case the frame *is* the event).
//! - **Decoder.** The public [`framing`] decoders ([`FrameDecoder`](framing::FrameDecoder)) turn
//!   bytes into frames; a provider's payloads become deltas in a private dialect decoder that only
//!   [`Dialect`] names.
//! - **Encode.** [`encode`] writes a *response* stream again (events or a finished message, as a
//!   provider or a UI protocol would stream it); `wire::<format>::encode` writes a *request's*
//!   conversation and `wire::request` a whole request. Both go from the neutral model to bytes a
//!   peer reads, in different directions of the exchange, so each lives in its own module.
//! - **Three provider enums**, because their sets differ: [`Dialect`] is what is read (seven
//!   providers), [`encode::Target`] what a response is written as (four providers and the UI
//!   protocols), [`wire::WireFormat`] a request format (four providers and LangChain's dicts).
//!   `TryFrom` converts between them where the sets meet.
//! - **`push` and `feed`.** [`Assembler::push`] queues the events its bytes complete;
//!   [`Assembler::feed`] is for callers that want only the message and skips them.
//! - **Errors.** One [`Error`] (its [`ErrorKind`] says which) for everything that reads a stream;
//!   [`ProviderError`] is the provider's own error object inside it. The others belong to one
//!   job each and never reach a stream: [`framing::FramingError`] (a framer used alone),
//!   [`wire::WireError`] (translating a conversation), [`conversation::ConversationError`]
//!   (validating one), [`message::ParseError`] (a call or an answer read into an app's type)
//!   and [`dialect::ParseDialectError`] (a dialect's name).
#![forbid(unsafe_code)]
// On docs.rs (all features), every item that needs a feature says which.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

pub mod assemble;
pub mod conversation;
mod delta;
pub mod dialect;
pub mod encode;
mod error;
pub mod framing;
#[cfg(feature = "reqwest")]
pub mod http;
pub mod message;
pub mod stream;
mod trace;
pub mod wire;

pub use assemble::{assemble, Assembler, Event, Limits, Options};
pub use conversation::Conversation;
pub use dialect::Dialect;
pub use error::{Error, ErrorKind, Location, ProviderError};
#[cfg(feature = "reqwest")]
pub use http::{RequestBuilderExt, ResponseExt, ResponseStream};
pub use message::{
    AiMessage, Completion, Content, ContentBlock, InvalidToolCall, Message, Role, ToolCall,
    ToolMessage, UsageMetadata,
};
pub use stream::{AbortHandle, AssembleExt, AssembleStream};

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
