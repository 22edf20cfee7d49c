//! Conversation history: the messages an app sends back every turn, kept valid (tool results
//! paired with the calls they answer) and trimmed to fit the model's context.

mod history;
mod tokens;
mod trim;
mod validate;

pub use history::Conversation;
pub use tokens::{ApproxTokenCounter, TokenCounter};
pub use trim::{trim_messages, Strategy, Trim};
pub use validate::ConversationError;
