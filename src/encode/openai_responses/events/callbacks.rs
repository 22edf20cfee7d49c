//! Responses' answer to each kind of event: the skeleton's callbacks, mapped onto the item
//! writer's steps (text runs, calls held behind an open call, server items, the close).

use super::calls::TextKind;
use super::EventRules;
use crate::assemble::FinishedToolCall;
use crate::encode::held::{CallKey, Finished, Holding};
use crate::encode::openai_responses::items::Item;
use crate::encode::skeleton::{Channel, Choices, ImagePart, Rules, Scope};
use crate::encode::Identity;
use crate::message::{
    ServerToolCall, ServerToolResult, ServerToolStatus, ToolApprovalRequest, UsageMetadata,
};

impl Rules for EventRules {
    const CHOICES: Choices = Choices::First;

    fn identified(&mut self, identity: &Identity) {
        self.identity = Some(identity.clone());
    }

    fn writing(&mut self, scope: &Scope<'_>, out: &mut String) {
        self.source = scope.source;
        self.start(out);
    }

    fn delta(&mut self, scope: &Scope<'_>, _: u32, channel: Channel, text: &str, out: &mut String) {
        let kind = match channel {
            Channel::Text => TextKind::Text,
            Channel::Refusal => TextKind::Refusal,
            Channel::Reasoning => TextKind::Reasoning,
        };
        self.text_delta(kind, text, scope.first(), out);
    }

    fn call_started(
        &mut self,
        scope: &Scope<'_>,
        _: u32,
        index: u32,
        id: &str,
        name: &str,
        out: &mut String,
    ) {
        Holding::call_started(self, CallKey::Client(index), id, name, scope.first(), out);
    }

    fn call_arguments(&mut self, _: &Scope<'_>, _: u32, index: u32, delta: &str, out: &mut String) {
        if self.open_call == Some(CallKey::Client(index)) {
            self.arguments_delta(delta, out);
        }
    }

    fn call_finished(
        &mut self,
        scope: &Scope<'_>,
        _: u32,
        index: u32,
        call: &FinishedToolCall<'_>,
        out: &mut String,
    ) {
        let finished = Finished::Client(call);
        Holding::call_finished(self, CallKey::Client(index), finished, scope.first(), out);
    }

    fn server_call_started(
        &mut self,
        scope: &Scope<'_>,
        _: u32,
        block: u32,
        id: &str,
        name: &str,
        out: &mut String,
    ) {
        self.server_started(block, id, name, scope.first(), out);
    }

    fn server_call_arguments(
        &mut self,
        _: &Scope<'_>,
        _: u32,
        block: u32,
        delta: &str,
        out: &mut String,
    ) {
        self.server_arguments(block, delta, out);
    }

    fn server_call_finished(
        &mut self,
        scope: &Scope<'_>,
        _: u32,
        block: u32,
        call: &ServerToolCall,
        out: &mut String,
    ) {
        let finished = Finished::Server(call);
        Holding::call_finished(self, CallKey::Server(block), finished, scope.first(), out);
    }

    fn server_progress(
        &mut self,
        _: &Scope<'_>,
        _: u32,
        block: u32,
        id: &str,
        status: ServerToolStatus,
        out: &mut String,
    ) {
        self.call_progress(block, id, status, out);
    }

    fn server_partial_image(
        &mut self,
        _: &Scope<'_>,
        _: u32,
        _: u32,
        image: ImagePart<'_>,
        out: &mut String,
    ) {
        self.partial_image(image, out);
    }

    fn server_result(
        &mut self,
        scope: &Scope<'_>,
        _: u32,
        block: u32,
        _: &ServerToolResult,
        out: &mut String,
    ) {
        self.whole_block(block, scope.first(), out);
    }

    fn approval_requested(
        &mut self,
        scope: &Scope<'_>,
        _: u32,
        block: u32,
        _: &ToolApprovalRequest,
        out: &mut String,
    ) {
        self.whole_block(block, scope.first(), out);
    }

    fn usage(&mut self, usage: &UsageMetadata) {
        self.usage = Some(usage.clone());
    }

    fn choice_finished(&mut self, _: &Scope<'_>, _: u32, reason: &str, _: &mut String) {
        self.reason = Some(reason.to_owned());
    }

    fn finish(&mut self, scope: &Scope<'_>, out: &mut String) {
        self.close(scope.first(), out);
    }

    /// The closed items `response.completed` repeats, the open message's parts and text, and
    /// what the text held behind an open call will write.
    fn held_bytes(&self) -> usize {
        let open = match &self.open {
            Some(Item::Message { parts, text, .. }) => parts.bytes() + text.len(),
            _ => 0,
        };
        self.output.bytes() + open + self.held_behind_call()
    }

    fn held_behind_call(&self) -> usize {
        self.queue.written_bytes(Self::RUN_BYTES, Self::TEXT_COPIES)
    }
}
