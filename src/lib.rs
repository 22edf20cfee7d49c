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
