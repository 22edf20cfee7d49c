//! Tool calls one block at a time: the Anthropic encoder's side of the held queue (the rule is
//! in `encode::held`): how it writes text, opens a call's block whole or as it starts, and
//! closes it.
//!
//! Arguments that are not an object's JSON (`{"city": "Paris", }`, `["Lyon"]`) are cut where
//! the text stops being a prefix of a JSON object: the `input_json_delta`s carry the text up
//! to the first offending byte (and none when it does not open an object), nothing after it.
//! `tool_use.input` is an object, and Anthropic's SDKs parse the sum of the fragments after
//! each one (the Python SDK with jiter's partial mode) and raise on a syntax error, which ends
//! the client's whole stream; cut, the call reaches the client with what parsed of it
//! (`{"city": "Paris"}`, `{}`) and the stream goes on. What is lost is the text from the
//! offending byte on: read back, the call is the invalid call of the prefix (or, when nothing
//! opened an object, a call with `{}`). The alternatives lose more: an empty `{}` drops what
//! parsed, leaving the call out leaves a `tool_use` stop with no call to answer. The
//! non-streamed message sends `{}` as the input of an invalid call.

use super::server::cite;
use super::{delta, EventRules, OpenKind};
use crate::assemble::{FinishedToolCall, PartialJson, PartialMessage, ScanStatus};
use crate::encode::call_parts;
use crate::encode::cursor::Want;
use crate::encode::held::{CallKey, Finished, HeldQueue, Holding};

impl Holding for EventRules {
    type Kind = (OpenKind, Want);
    /// A content block: its start, the delta with the text, its stop.
    const RUN_BYTES: usize = 384;
    const TEXT_COPIES: usize = 1;

    fn queue(&mut self) -> &mut HeldQueue<Self::Kind> {
        &mut self.queue
    }

    fn open_call(&self) -> Option<CallKey> {
        match self.open.as_ref()?.kind {
            OpenKind::Call(key) => Some(key),
            _ => None,
        }
    }

    /// Writes a text, refusal or thinking delta into the open block of its kind.
    fn write_text(
        &mut self,
        (kind, want): Self::Kind,
        text: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        let index = self.open_text(kind, want, message, out);
        match kind {
            OpenKind::Thinking => delta(out, index, "thinking_delta", "thinking", text),
            OpenKind::Text | OpenKind::Call(_) => {
                if let Some(open) = &mut self.open {
                    cite(open, message, out);
                }
                delta(out, index, "text_delta", "text", text)
            }
        }
    }

    fn start_call(
        &mut self,
        key: CallKey,
        id: &str,
        name: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        match key {
            CallKey::Client(position) => self.start_tool(position, id, name, message, out),
            CallKey::Server(block) => self.start_server(block, true, message, out),
        }
    }

    fn write_finished(
        &mut self,
        key: CallKey,
        call: Finished<'_>,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        match (key, call) {
            (CallKey::Client(position), Finished::Client(call)) => {
                let (id, name, args) = call_parts(call);
                self.start_tool(position, id, name, message, out);
                self.write_arguments(&args, out);
            }
            (CallKey::Server(block), _) => self.start_server(block, false, message, out),
            (CallKey::Client(position), Finished::Server(_)) => {
                self.start_tool(position, "", "", message, out)
            }
        }
    }

    /// Opens the block of the call at `key` with its arguments so far, read from the snapshot
    /// (the finished call's, when the text is empty).
    fn write_whole(&mut self, key: CallKey, message: Option<&PartialMessage>, out: &mut String) {
        let CallKey::Client(position) = key else {
            if let CallKey::Server(block) = key {
                self.write_server_whole(block, message, out);
            }
            return;
        };
        self.start_tool(position, "", "", message, out);
        let call = message.and_then(|message| {
            message
                .tool_calls()
                .find(|call| call.position() == position)
        });
        match call {
            Some(call) if !call.arguments().is_empty() => {
                self.write_arguments(call.arguments(), out)
            }
            Some(call) => {
                if let Some(finished) = call.finished().and_then(FinishedToolCall::of) {
                    self.write_arguments(&call_parts(&finished).2, out);
                }
            }
            None => {}
        }
    }

    fn seal_call(&mut self, call: Finished<'_>, _: Option<&PartialMessage>, out: &mut String) {
        if let Finished::Server(call) = call {
            self.seal_server(call, out);
        }
    }

    fn write_block(&mut self, block: u32, message: Option<&PartialMessage>, out: &mut String) {
        self.write_result(block, message, out);
    }

    fn close_open(&mut self, message: Option<&PartialMessage>, out: &mut String) {
        EventRules::close_open(self, message, out);
    }
}

impl EventRules {
    /// The open call's arguments so far, from where they stand, as one `input_json_delta`: the
    /// part before the text stops being an object's prefix (scanned once, here).
    pub(super) fn write_arguments(&mut self, args: &str, out: &mut String) {
        if let Some(open) = &mut self.open {
            let from = open.streamed;
            let end = from + args.len();
            if open.cut_at.is_none() {
                open.cut_at = object_cut(args).map(|cut| from + cut);
            }
            if open.object.is_none() {
                open.object = args
                    .bytes()
                    .find(|byte| !is_json_space(*byte))
                    .map(|byte| byte == b'{');
            }
            open.streamed = end;
            write_before_cut(open.index, open.cut_at, from, args, out);
        }
    }

    /// A streamed argument fragment of client call `position`, into its block if it is the
    /// open one. The snapshot's argument text (as far as the assembler has read, which may be
    /// past this fragment) tells in O(1) whether it is still an object's prefix; only the
    /// fragment where it stops is scanned for the offending byte, once.
    pub(super) fn client_arguments(
        &mut self,
        position: u32,
        fragment: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        let Some(open) = self
            .open
            .as_mut()
            .filter(|open| open.kind == OpenKind::Call(CallKey::Client(position)))
        else {
            return;
        };
        let from = open.streamed;
        let call = message.and_then(|message| {
            message
                .tool_calls()
                .find(|call| call.position() == position)
        });
        let blank = open.object.is_none() && fragment.bytes().all(is_json_space);
        if let (Some(call), None, false) = (call, open.cut_at, blank) {
            let text = call.arguments();
            if open.object.is_none() {
                if let Some(first) = text.bytes().position(|byte| !is_json_space(byte)) {
                    let object = text.as_bytes()[first] == b'{';
                    open.object = Some(object);
                    open.cut_at = (!object).then_some(first);
                }
            }
            if open.cut_at.is_none() && call.partial().is_none() {
                open.cut_at = object_cut(text);
            }
        }
        open.streamed = from + fragment.len();
        write_before_cut(open.index, open.cut_at, from, fragment, out);
    }
}

/// Writes the part of `fragment` (which starts at byte `from` of the argument text) before
/// the cut.
fn write_before_cut(
    index: u32,
    cut_at: Option<usize>,
    from: usize,
    fragment: &str,
    out: &mut String,
) {
    let keep = match cut_at {
        Some(cut) => cut.saturating_sub(from).min(fragment.len()),
        None => fragment.len(),
    };
    if let Some(part) = fragment.get(..keep).filter(|part| !part.is_empty()) {
        delta(out, index, "input_json_delta", "partial_json", part);
    }
}

/// Where `text` stops being a prefix of a JSON object: its first offending byte, or its first
/// byte when it opens anything but an object; `None` while it is one (or only whitespace).
fn object_cut(text: &str) -> Option<usize> {
    let first = text.bytes().position(|byte| !is_json_space(byte))?;
    if text.as_bytes()[first] != b'{' {
        return Some(first);
    }
    let mut scan = PartialJson::new();
    scan.push_str(text);
    match scan.status() {
        ScanStatus::Invalid { offset } => Some(offset),
        _ => None,
    }
}

/// JSON's whitespace, the bytes that never make a text stop being a prefix outside a string.
fn is_json_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}
