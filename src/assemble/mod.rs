//! The assembler: a sans-IO state machine that folds a stream's events into messages, with
//! live events and a snapshot of the message so far.
//!
//! By concept: the lifecycle ([`Assembler`]: input in, events out, how the stream ended), the
//! fold (the delta sink and the response state), the partial message and its tool-call table,
//! the event queue and the [`Event`] it renders, provider extras, the byte budget, options and
//! limits, and the incremental partial-JSON scanner behind live tool arguments.

mod assembler;
mod budget;
mod driver;
mod event;
mod event_queue;
mod extras;
mod finished_call;
mod fold;
mod lifecycle;
mod options;
mod overhead;
mod partial_json;
mod partial_message;
mod server_tools;
mod snapshot;
mod spans;
mod tool_calls;
mod whole;

pub use assembler::Assembler;
pub use event::Event;
pub use finished_call::FinishedToolCall;
pub use options::{Limits, Options};
pub use partial_json::{CompletedJson, PartialArguments, PartialJson, ScanStatus};
pub use partial_message::{PartialBlock, PartialMessage};
pub use server_tools::{PartialImage, PendingServerToolCall};
pub use tool_calls::PendingToolCall;
pub use whole::assemble;
