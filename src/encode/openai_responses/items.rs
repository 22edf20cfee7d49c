//! The shapes both halves write: output items (message, reasoning, function call, server-side
//! tool items) in their final form, the `response` object and its usage.

use serde_json::{json, Value};

use crate::encode::server_tools::responses_item;
use crate::encode::sse::push_json_str;
use crate::encode::{cache_read_tokens, reasoning_tokens, Identity};
use crate::message::{ContentBlock, ServerToolCall, UsageMetadata};

const GENERATED_ID: &str = "resp_df";

/// An output item as it streams; its final form goes into `response.completed`.
#[derive(Debug)]
pub(super) enum Item {
    /// A message with one part being written (`refusal` tells its kind).
    Message {
        id: String,
        /// The source message's `phase` (`commentary`, `final_answer`).
        phase: Option<String>,
        refusal: bool,
        parts: JsonList,
        text: String,
        /// The snapshot's text block the part mirrors, for its citations.
        mirrors: Option<usize>,
        /// The part's annotations written so far, and how many of the block's were read.
        annotations: Vec<Value>,
        annotated: usize,
    },
    Reasoning {
        id: String,
        text: String,
        mirrors: Option<usize>,
        data: Option<String>,
    },
    Call {
        id: String,
        call_id: String,
        name: String,
        arguments: String,
    },
    /// A server-side tool's item (`web_search_call`, `mcp_call`…), done once its result is in.
    Server(Box<ServerItem>),
}

/// A server-side tool's item as it streams.
#[derive(Debug)]
pub(super) struct ServerItem {
    pub(super) kind: &'static str,
    pub(super) call: ServerToolCall,
    pub(super) result: Option<ContentBlock>,
    /// The source's extras are native to Responses.
    pub(super) native: bool,
    /// Code or MCP arguments went out as deltas.
    pub(super) streamed: bool,
}

/// JSON values as text, comma-separated, in pieces of up to about 64 KiB: a message item's finished
/// parts, and the closed items `response.completed` repeats. Held as text (as parsed values,
/// a one-byte part held about 400 bytes, the closed items 50 times the message), and never
/// reallocated whole as it grows (a doubling `String` holds up to three times its text then).
#[derive(Debug, Default)]
pub(super) struct JsonList {
    pieces: Vec<String>,
    bytes: usize,
    count: usize,
}

const PIECE: usize = 64 * 1024;

/// Where a value pushed whole lies in a [`JsonList`]: one piece, a byte range in it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Place {
    piece: usize,
    start: usize,
    end: usize,
}

impl JsonList {
    /// Appends one value's JSON text.
    pub(super) fn push(&mut self, item: &str) {
        self.push_at(item);
    }

    /// Appends one value's JSON text and says where it lies, to [`rewrite`](Self::rewrite) it.
    pub(super) fn push_at(&mut self, item: &str) -> Place {
        self.begin();
        self.append(item);
        let piece = self.pieces.len() - 1;
        let end = self.pieces[piece].len();
        Place {
            piece,
            start: end - item.len(),
            end,
        }
    }

    /// Rewrites values pushed with [`push_at`](Self::push_at), given in the order they were
    /// pushed: `rewrite` gets each one's text and returns its new text, or `None` to keep it.
    /// Each piece that changes is copied once, however many of its values change.
    pub(super) fn rewrite<B>(
        &mut self,
        places: Vec<(Place, B)>,
        mut rewrite: impl FnMut(&str, B) -> Option<String>,
    ) {
        let mut places = places.into_iter().peekable();
        while let Some(&(Place { piece: index, .. }, _)) = places.peek() {
            let old = &self.pieces[index];
            let mut new = String::new();
            let mut copied = 0;
            while let Some((place, value)) = places.next_if(|(place, _)| place.piece == index) {
                if let Some(text) = rewrite(&old[place.start..place.end], value) {
                    new.push_str(&old[copied..place.start]);
                    new.push_str(&text);
                    copied = place.end;
                }
            }
            if copied > 0 {
                new.push_str(&old[copied..]);
                self.bytes = self.bytes - old.len() + new.len();
                self.pieces[index] = new;
            }
        }
    }

    /// Appends one value written as `head`, the values of `list`, `tail`.
    pub(super) fn push_around(&mut self, head: &str, list: &JsonList, tail: &str) {
        self.begin();
        self.append(head);
        for piece in &list.pieces {
            self.append(piece);
        }
        self.append(tail);
    }

    /// The number of values.
    pub(super) fn len(&self) -> usize {
        self.count
    }

    pub(super) fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The bytes of text.
    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Writes the values, comma-separated, into `out`.
    pub(super) fn write_into(&self, out: &mut String) {
        for piece in &self.pieces {
            out.push_str(piece);
        }
    }

    fn begin(&mut self) {
        if self.count > 0 {
            self.append(",");
        }
        self.count += 1;
    }

    fn append(&mut self, text: &str) {
        match self.pieces.last_mut() {
            Some(piece) if piece.len() + text.len() <= piece.capacity() => piece.push_str(text),
            _ => {
                // As large as all before it, up to a piece: a list of one short value (most
                // messages) allocates about its size, a long one no more than twice its text.
                let size = self.bytes.clamp(64, PIECE).max(text.len());
                let mut piece = String::with_capacity(size);
                piece.push_str(text);
                self.pieces.push(piece);
            }
        }
        self.bytes += text.len();
    }
}

/// What a finished message item's JSON text is around its parts; `phase` is the source
/// message's (`commentary`, `final_answer`).
pub(super) fn message_item_head(id: &str, phase: Option<&str>) -> String {
    let mut head = String::from("{\"id\":");
    push_json_str(&mut head, id);
    head.push_str(",\"type\":\"message\",\"role\":\"assistant\",\"status\":\"completed\",");
    if let Some(phase) = phase {
        head.push_str("\"phase\":");
        push_json_str(&mut head, phase);
        head.push(',');
    }
    head.push_str("\"content\":[");
    head
}

/// What closes a message item's JSON text after its parts.
pub(super) const MESSAGE_ITEM_TAIL: &str = "]}";

pub(super) fn empty_part(refusal: bool) -> Value {
    if refusal {
        json!({"type": "refusal", "refusal": ""})
    } else {
        json!({"type": "output_text", "text": "", "annotations": [], "logprobs": []})
    }
}

pub(super) fn item_id(item: &Item) -> &str {
    match item {
        Item::Message { id, .. } | Item::Reasoning { id, .. } | Item::Call { id, .. } => id,
        Item::Server(item) => &item.call.id,
    }
}

pub(super) fn item_json(item: Item) -> Value {
    match item {
        Item::Message {
            id, phase, parts, ..
        } => {
            let mut item = JsonList::default();
            item.push_around(
                &message_item_head(&id, phase.as_deref()),
                &parts,
                MESSAGE_ITEM_TAIL,
            );
            let mut json = String::with_capacity(item.bytes());
            item.write_into(&mut json);
            serde_json::from_str(&json).unwrap_or_default()
        }
        Item::Reasoning { id, text, data, .. } => {
            let summary = if text.is_empty() {
                json!([])
            } else {
                json!([{"type": "summary_text", "text": text}])
            };
            let mut item = json!({"id": id, "type": "reasoning", "summary": summary});
            if let Some(data) = data {
                item["encrypted_content"] = json!(data);
            }
            item
        }
        Item::Call {
            id,
            call_id,
            name,
            arguments,
        } => {
            json!({"id": id, "type": "function_call", "call_id": call_id, "name": name, "arguments": arguments, "status": "completed"})
        }
        Item::Server(item) => responses_item(
            item.kind,
            &item.call.id,
            &item.call,
            item.result.as_ref(),
            true,
            item.native,
        ),
    }
}

/// The output item a text or refusal block came as in an OpenAI Responses source (its
/// `msg_…` id and `phase`), which the item written for it carries again.
pub(super) fn message_item(block: Option<&ContentBlock>) -> (Option<&str>, Option<&str>) {
    match block {
        Some(ContentBlock::Text { id, phase, .. } | ContentBlock::Refusal { id, phase, .. }) => {
            (id.as_deref(), phase.as_deref())
        }
        _ => (None, None),
    }
}

/// A `response` object without output or usage: the fields the SDK's model requires.
pub(super) fn response_shell(identity: &Identity, status: &str) -> Value {
    json!({
        "id": identity.id_or(GENERATED_ID),
        "object": "response",
        "created_at": identity.created.unwrap_or(0),
        "status": status,
        "model": identity.model(),
        "output": [],
        "error": null,
        "incomplete_details": null,
        "instructions": null,
        "metadata": {},
        "parallel_tool_calls": true,
        "temperature": null,
        "tool_choice": "auto",
        "tools": [],
        "top_p": null,
    })
}

/// Tokens written to the prompt cache; 0 when not reported (the SDK's model requires it).
fn cache_write_tokens(usage: &UsageMetadata) -> u64 {
    usage
        .input_token_details
        .and_then(|details| details.cache_creation)
        .unwrap_or(0)
}

pub(super) fn usage_json(usage: &UsageMetadata) -> Value {
    json!({
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {
            "cached_tokens": cache_read_tokens(usage).unwrap_or(0),
            "cache_write_tokens": cache_write_tokens(usage),
        },
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning_tokens(usage).unwrap_or(0)},
        "total_tokens": usage.total_tokens,
    })
}
