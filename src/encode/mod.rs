//! Re-encoding: events (live) or a finished message into the SSE stream or the non-streamed
//! response JSON of a chosen dialect — what translating proxies, caches and test servers need —
//! or into a UI stream protocol a browser reads (the Vercel AI SDK's UI message stream, AG-UI).
//!
//! Every target is one set of rules on one skeleton (`skeleton`): the dispatch over events is
//! written once, and a target implements a callback per kind of event. What an encoder holds is
//! within the assembler's bounds (tests/memory/encoders.rs): lookups by key, closed items kept
//! as text, and — through [`Encoder::try_encode`] — what it holds for the events still to write
//! counted against the message's budget.
//!
//! Sans-IO like the rest of the crate: an [`Encoder`] takes each [`Event`] with read access to
//! the assembler (the snapshot, for ids, names and reasoning signatures that no event carries)
//! and appends SSE text to the caller's `String`; [`Encoder::finish`] closes the stream.
//! [`EncodeExt`] does the same over an [`AssembleStream`](crate::AssembleStream), and
//! [`response_json`] writes a [`Completion`] as one provider's non-streamed response.
//!
//! ```
//! use deltafold::encode::{Encoder, Target};
//! use deltafold::Assembler;
//!
//! let body = concat!(
//!     "data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n",
//!     "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
//!     "data: [DONE]\n\n",
//! );
//! let mut assembler = Assembler::new();
//! let mut encoder = Encoder::new(Target::Anthropic);
//! let mut out = String::new();
//! assembler.push(body.as_bytes());
//! assembler.end_input();
//! while let Some(event) = assembler.next_event()? {
//!     let event = event.into_owned();
//!     encoder.encode(&event, &assembler, &mut out);
//! }
//! encoder.finish(&mut out);
//! assert!(out.starts_with("event: message_start\n"));
//! assert!(out.contains(r#""delta":{"type":"text_delta","text":"Hi"}"#));
//! assert!(out.contains(r#""stop_reason":"end_turn""#));
//! assert!(out.ends_with("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"));
//! # Ok::<(), deltafold::Error>(())
//! ```
//!
//! What each target can carry (✓ kept, ~ changed, ✗ lost); the two UI stream protocols
//! (`vercel-ui`, `ag-ui`) are for a browser, and derive the end of each text or reasoning run
//! from the event order (`runs`):
//!
//! | content | OpenAI chat | Anthropic | OpenAI Responses | Gemini | vercel-ui | ag-ui |
//! |---|---|---|---|---|---|---|
//! | text | ✓ `content` | ✓ `text` blocks | ✓ `output_text` | ✓ text parts | ✓ `text-*` | ✓ `TEXT_MESSAGE_*` |
//! | reasoning text | ✓ `reasoning_content` (DeepSeek's field) | ✓ `thinking` | ✓ reasoning summary | ✓ `thought: true` parts | ✓ `reasoning-*` | ✓ `REASONING_*` |
//! | reasoning signature | ✗ | ✓ `signature_delta` | ✗ | ✓ `thoughtSignature` | ✗ | ✓ `REASONING_ENCRYPTED_VALUE` |
//! | opaque reasoning data | ✗ | ✓ `redacted_thinking` | ✓ `encrypted_content` | ✗ | ✗ | ~ `REASONING_ENCRYPTED_VALUE` when the block has text |
//! | refusal | ✓ `refusal` | ~ text, `stop_reason: refusal` | ✓ `refusal` part | ~ text, `SAFETY` | ~ text part marked `providerMetadata.deltafold.refusal` | ~ text message marked `metadata.deltafold.refusal` |
//! | tool calls | ✓ streamed arguments | ✓ `input_json_delta` | ✓ `function_call` items | ~ whole `functionCall` parts, at the end of each call | ✓ `tool-input-*` | ✓ `TOOL_CALL_*` |
//! | invalid tool arguments | ✓ raw text | ~ streamed up to where the text stops being an object's prefix (the Anthropic SDK's partial parse raises past it; see `anthropic::calls`), `{}` in the message | ✓ raw text | ✗ sent as `{}` | ✓ `tool-input-error` with the raw text | ✓ raw text |
//! | custom tool calls (free-text input) | ✓ `type: "custom"`, input streamed | ~ `tool_use`, input `{"__arg1": …}` | ~ `function_call`, arguments `{"__arg1": …}` | ~ `functionCall`, args `{"__arg1": …}` | ~ `tool-input-*` of `{"__arg1": …}` | ~ `TOOL_CALL_*` of `{"__arg1": …}` |
//! | output item ids, message `phase` | ✗ | ✗ | ✓ the source's `msg_…` / `fc_…` ids and `phase` (ids generated otherwise) | ✗ | ✗ | ✗ |
//! | compaction blocks | ✗ | ✓ `compaction` block and its `compaction_delta`, `context_management` edits | ✗ | ✗ | ✗ | ✗ |
//! | several choices | ✓ (lower indexes opened first) | ✗ choice 0 only | ✗ choice 0 only | ✓ candidates | ✗ choice 0 only | ✗ choice 0 only |
//! | usage | ✓ cached, reasoning | ~ no reasoning count | ✓ cached, reasoning | ✓ cached, thoughts | ✓ `finish.messageMetadata.usage` | ✓ `RUN_FINISHED.usage` |
//! | finish reason | ~ `stop`/`length`/`tool_calls`/`content_filter` | ~ its own words kept, others mapped | ~ `completed` / `incomplete` + reason | ~ its own words kept, others mapped | ✓ `finishReason` mapped, the provider's word in `messageMetadata` | ✓ `result.finishReason` |
//! | id, model | ✓ | ✓ | ✓ | ✓ `responseId`, `modelVersion` | ✓ `messageId`, `messageMetadata.model` | ✓ `runId` (unless the caller sets it), usage `model` |
//! | a failed source | ✗ cut | ✗ cut | ✗ cut | ✗ cut | ✓ `error` ([`Encoder::fail`]) | ✓ `RUN_ERROR` |
//!
//! Server-side tools and citations (see each target's module for the details):
//!
//! | content | OpenAI chat | Anthropic | OpenAI Responses | Gemini | vercel-ui | ag-ui |
//! |---|---|---|---|---|---|---|
//! | server tool calls | ✗ | ✓ `server_tool_use` / `mcp_tool_use`, input streamed | ✓ `web_search_call`, `file_search_call`, `code_interpreter_call`, `image_generation_call`, `mcp_call`, `mcp_list_tools` items | ✗ | ✓ `tool-input-*`, `providerExecuted`, `dynamic` | ✓ `TOOL_CALL_*` marked `metadata.deltafold.providerExecuted` |
//! | their results | ✗ | ✓ `*_tool_result` blocks, for tools Anthropic has (web search and fetch results only from Anthropic: their blocks need its encrypted content) | ✓ inside the call's item (another provider's search results as `sources`, code output as `logs`) | ✗ | ✓ `tool-output-available` / `-error` | ✓ `TOOL_CALL_RESULT` |
//! | progress, partial images | ✗ | ✗ | ✓ | ✗ | ✗ | ✗ |
//! | approval requests | ✗ | ✗ | ✓ `mcp_approval_request` | ✗ | ~ `data-tool-approval-request` part | ~ `CUSTOM` `tool-approval-request` |
//! | citations | ~ `url_citation` annotations (those with a URL) | ✓ `citations_delta` | ✓ `output_text.annotation.added` | ✗ | ~ `source-url` (those with a URL), at the end | ~ `CUSTOM` `source-url` (those with a URL), at the end |
//!
//! A tool the target has no block or item for (web fetch and bash in Responses, file search in
//! Anthropic) is left out with its result. Everywhere lost: logprobs, other non-standard blocks,
//! provider extras (a call's and result's extras go back only to their own provider); a target's
//! required id that the source lacks is
//! generated (`…df…`). Finish reasons are mapped through [`FinishKind`](crate::message::FinishKind); a plain stop of a
//! message with tool calls becomes the target's tool-call reason. A reasoning block with no text
//! (only a signature or opaque data) is written where the next block begins.
//!
//! What the official SDKs need, found by reading every recording back through them
//! (`scripts/sdk-readback/`, whose README lists what they do by their own rule): a live stream
//! keeps the id it knows at its first event (a source that changes it at the end has the new
//! one in the non-streamed JSON only); a call that starts without an id is written whole when
//! it finishes, with the id the message gives it (`call_df_<n>`), since a started chunk, block or
//! item cannot change its id; a choice the source ended without a reason gets `stop` or the
//! tool-call reason. OpenAI's SDK raises from `get_final_completion()` on every `length` and
//! `content_filter` finish: valid values, kept.

mod ag_ui;
mod anthropic;
mod cursor;
mod finish;
mod gemini;
mod held;
mod identity;
mod limit;
mod openai_chat;
mod openai_responses;
mod runs;
mod server_tools;
mod skeleton;
mod sse;
mod stream;
mod target;
mod vercel_ui;

use serde_json::Value;

use crate::assemble::{Assembler, Event, FinishedToolCall, PartialBlock, PartialMessage};
use crate::message::{AiMessage, Completion, ContentBlock, ServerToolCall, UsageMetadata};

use identity::Identity;
use skeleton::Skeleton;

pub use stream::{EncodeCompletion, EncodeExt, EncodeStream};
pub use target::Target;
pub use vercel_ui::VERCEL_UI_HEADER;

/// Turns events into one dialect's SSE stream, as they arrive.
///
/// Feed every event with the assembler it came from ([`encode`](Self::encode)), then call
/// [`finish`](Self::finish) once: it closes what is open and writes the terminal events the
/// target needs, unless [`Event::Done`] already did. A caller that must show the client a cut
/// stream (the source failed) does not call `finish`.
#[derive(Debug)]
pub struct Encoder {
    inner: Inner,
}

/// One skeleton per target: the dispatch over events is the skeleton's, the rules the target's.
#[derive(Debug)]
enum Inner {
    OpenAiChat(Skeleton<openai_chat::ChunkRules>),
    Anthropic(Skeleton<anthropic::EventRules>),
    OpenAiResponses(Skeleton<openai_responses::EventRules>),
    Gemini(Skeleton<gemini::ChunkRules>),
    VercelUi(Skeleton<vercel_ui::ChunkRules>),
    AgUi(Skeleton<ag_ui::EventRules>),
}

impl Encoder {
    /// An encoder into `target`.
    pub fn new(target: Target) -> Self {
        let inner = match target {
            Target::OpenAiChat => Inner::OpenAiChat(Default::default()),
            Target::Anthropic => Inner::Anthropic(Default::default()),
            Target::OpenAiResponses => Inner::OpenAiResponses(Default::default()),
            Target::Gemini => Inner::Gemini(Default::default()),
            Target::VercelUi => Inner::VercelUi(Default::default()),
            Target::AgUi => Inner::AgUi(Default::default()),
        };
        Encoder { inner }
    }

    /// An AG-UI encoder whose `RUN_STARTED` and `RUN_FINISHED` carry the thread and run ids
    /// the client sent (AG-UI's `RunAgentInput`), rather than `deltafold` and the provider's
    /// response id.
    pub fn ag_ui(thread_id: &str, run_id: &str) -> Self {
        let rules = ag_ui::EventRules::with_ids(thread_id, run_id);
        Encoder {
            inner: Inner::AgUi(Skeleton::new(rules)),
        }
    }

    /// Appends to `out` what `event` becomes (possibly nothing). `snapshot` is the assembler
    /// the event came from, read for ids, names and signatures.
    pub fn encode(&mut self, event: &Event<'_>, snapshot: &Assembler, out: &mut String) {
        match &mut self.inner {
            Inner::OpenAiChat(encoder) => encoder.encode(event, snapshot, out),
            Inner::Anthropic(encoder) => encoder.encode(event, snapshot, out),
            Inner::OpenAiResponses(encoder) => encoder.encode(event, snapshot, out),
            Inner::Gemini(encoder) => encoder.encode(event, snapshot, out),
            Inner::VercelUi(encoder) => encoder.encode(event, snapshot, out),
            Inner::AgUi(encoder) => encoder.encode(event, snapshot, out),
        }
    }

    /// Closes the stream: appends the terminal events not written yet (none after
    /// [`Event::Done`]). Calling it again appends nothing.
    pub fn finish(&mut self, out: &mut String) {
        match &mut self.inner {
            Inner::OpenAiChat(encoder) => encoder.finish(out),
            Inner::Anthropic(encoder) => encoder.finish(out),
            Inner::OpenAiResponses(encoder) => encoder.finish(out),
            Inner::Gemini(encoder) => encoder.finish(out),
            Inner::VercelUi(encoder) => encoder.finish(out),
            Inner::AgUi(encoder) => encoder.finish(out),
        }
    }

    /// Ends a stream whose source failed: the UI targets write their error event (vercel-ui
    /// `error` and `[DONE]`, ag-ui `RUN_ERROR`); the provider targets write nothing, so that their client sees
    /// the cut. Nothing after [`finish`](Self::finish) or a previous `fail`.
    pub fn fail(&mut self, error: &str, out: &mut String) {
        match &mut self.inner {
            Inner::OpenAiChat(encoder) => encoder.fail(error, out),
            Inner::Anthropic(encoder) => encoder.fail(error, out),
            Inner::OpenAiResponses(encoder) => encoder.fail(error, out),
            Inner::Gemini(encoder) => encoder.fail(error, out),
            Inner::VercelUi(encoder) => encoder.fail(error, out),
            Inner::AgUi(encoder) => encoder.fail(error, out),
        }
    }
}

/// `completion` as `target`'s non-streamed response: `chat.completion`, an Anthropic `message`,
/// a Responses `response` or a Gemini `GenerateContentResponse`. Targets with one answer per
/// response (Anthropic, Responses) take the first choice.
///
/// ```
/// use deltafold::encode::{response_json, Target};
/// use deltafold::{AiMessage, Completion, ContentBlock};
/// use deltafold::message::Choice;
///
/// let mut message = AiMessage::default();
/// message.content.push(ContentBlock::text("Hi"));
/// message.response_metadata.finish_reason = "stop".into();
/// let completion = Completion { choices: vec![Choice { index: 0, message }], complete: true, usage: None };
/// let json = response_json(Target::Gemini, &completion);
/// assert_eq!(json["candidates"][0]["content"]["parts"][0]["text"], "Hi");
/// assert_eq!(json["candidates"][0]["finishReason"], "STOP");
/// ```
pub fn response_json(target: Target, completion: &Completion) -> Value {
    let choices: Vec<(u32, &AiMessage)> = completion
        .choices
        .iter()
        .map(|choice| (choice.index, &choice.message))
        .collect();
    message_choices_json(target, &choices)
}

/// One message as `target`'s non-streamed response (choice 0).
pub fn message_json(target: Target, message: &AiMessage) -> Value {
    message_choices_json(target, &[(0, message)])
}

fn message_choices_json(target: Target, choices: &[(u32, &AiMessage)]) -> Value {
    let first = choices.first().map(|(_, message)| *message);
    let empty = AiMessage::default();
    match target {
        Target::OpenAiChat => openai_chat::response(choices),
        Target::Anthropic => anthropic::response(first.unwrap_or(&empty)),
        Target::OpenAiResponses => openai_responses::response(first.unwrap_or(&empty)),
        Target::Gemini => gemini::response(choices),
        Target::VercelUi => vercel_ui::ui_message(first.unwrap_or(&empty)),
        Target::AgUi => ag_ui::messages_snapshot(first.unwrap_or(&empty)),
    }
}

/// Tokens spent on reasoning, when reported.
fn reasoning_tokens(usage: &UsageMetadata) -> Option<u64> {
    usage
        .output_token_details
        .and_then(|details| details.reasoning)
}

/// Tokens read from the prompt cache, when reported.
fn cache_read_tokens(usage: &UsageMetadata) -> Option<u64> {
    usage
        .input_token_details
        .and_then(|details| details.cache_read)
}

/// A finished call's id, name and arguments text (an invalid call's raw text).
fn call_parts<'c>(call: &'c FinishedToolCall<'_>) -> (&'c str, &'c str, String) {
    match call {
        FinishedToolCall::ToolCall(call) => (&call.id, &call.name, call.args_json().to_string()),
        FinishedToolCall::InvalidToolCall(call) => (&call.id, &call.name, call.args.clone()),
    }
}

/// The choice an event belongs to; `None` for the response-wide ones.
fn choice_of(event: &Event<'_>) -> Option<u32> {
    match event {
        Event::Started { .. } | Event::Usage { .. } | Event::Done => None,
        Event::TextDelta { choice, .. }
        | Event::ReasoningDelta { choice, .. }
        | Event::RefusalDelta { choice, .. }
        | Event::TextReplaced { choice, .. }
        | Event::ReasoningReplaced { choice, .. }
        | Event::RefusalReplaced { choice, .. }
        | Event::TextEnd { choice, .. }
        | Event::ReasoningEnd { choice, .. }
        | Event::RefusalEnd { choice, .. }
        | Event::ToolCallStarted { choice, .. }
        | Event::ToolCallArgumentsDelta { choice, .. }
        | Event::ToolCallFinished { choice, .. }
        | Event::ServerToolCallStarted { choice, .. }
        | Event::ServerToolCallArgumentsDelta { choice, .. }
        | Event::ServerToolCallFinished { choice, .. }
        | Event::ServerToolCallProgress { choice, .. }
        | Event::ServerToolPartialImage { choice, .. }
        | Event::ServerToolResult { choice, .. }
        | Event::ToolApprovalRequested { choice, .. }
        | Event::ProviderItemDelta { choice, .. }
        | Event::ChoiceFinished { choice, .. } => Some(*choice),
    }
}

/// The server-side call at `block` of the snapshot: the call, its argument text so far and
/// whether it has finished.
fn server_call_at(
    message: Option<&PartialMessage>,
    block: u32,
) -> Option<(&ServerToolCall, &str, bool)> {
    match message?.blocks().get(block as usize)? {
        PartialBlock::ServerToolCall(pending) => {
            Some((pending.call(), pending.arguments(), pending.is_finished()))
        }
        PartialBlock::Content(ContentBlock::ServerToolCall(call)) => Some((call, "", true)),
        _ => None,
    }
}
