//! The assembler: a sans-IO state machine that folds a stream's events into messages, with
//! live events and a snapshot of the message so far.

mod assembler;
pub(crate) mod choice;
mod event;
mod options;
pub mod partial_json;
mod state;
mod tool_call;

pub use assembler::{assemble, Assembler};
pub use choice::{PartialBlock, PartialMessage};
pub use event::Event;
pub use options::{Limits, Options};
pub use partial_json::{PartialJson, ScanStatus};
pub use tool_call::PendingToolCall;
