//! The message model: what an assembled answer is, independent of the provider that streamed it.
//!
//! The shapes follow LangChain's `AIMessage` and Microsoft.Extensions.AI's `ChatMessage`, so that
//! an [`AiMessage`] serialises to the dict LangChain's `AIMessage.model_validate` accepts.

mod ai;
mod annotation;
mod block;
mod client_action;
mod completion;
mod content;
mod finish_reason;
mod key_index;
mod kinds;
mod logprobs;
mod media;
mod metadata;
mod parse;
mod provider_usage;
mod reasoning_form;
mod role;
mod server_tool;
mod tool_call;
mod usage;

pub use ai::AiMessage;
pub use annotation::{Annotation, Citation};
pub use block::ContentBlock;
pub use client_action::{ClientAction, CLIENT_ACTION_ITEMS};
pub use completion::{Choice, Completion};
pub use content::Content;
pub use finish_reason::{FinishKind, FinishReason};
pub use kinds::{ChatMessage, Message, SystemMessage, ToolMessage, UserMessage};
pub(crate) use logprobs::push_item;
pub use logprobs::Logprobs;
pub(crate) use media::{parse_data_url, PLAIN_TEXT};
pub use media::{MediaBlock, MediaSource};
pub use metadata::ResponseMetadata;
pub(crate) use parse::without_code_fence;
pub use parse::ParseError;
pub use provider_usage::ProviderUsage;
pub(crate) use provider_usage::{object_members, Growth, ReadUsage, UsageValue};
pub use role::Role;
pub use server_tool::{
    ServerToolCall, ServerToolResult, ServerToolStatus, ToolApprovalRequest, ToolApprovalResponse,
};
pub(crate) use tool_call::{extra_content_of, extras_from_extra_content};
pub use tool_call::{ArgsJson, InvalidToolCall, ToolCall, ToolStatus};
pub use usage::{InputTokenDetails, OutputTokenDetails, UsageMetadata};
