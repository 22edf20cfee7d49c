//! Anthropic's answer to each kind of event: the skeleton's callbacks, mapped onto the block
//! writer's steps (text runs, calls held behind an open call, server blocks, the close).

use super::{response, EventRules, OpenKind};
use crate::assemble::FinishedToolCall;
use crate::encode::cursor::Want;
use crate::encode::held::{CallKey, Finished, Holding};
use crate::encode::server_tools::anthropic_expressible;
use crate::encode::skeleton::{Channel, Choices, Rules, Scope};
use crate::encode::Identity;
use crate::message::{ServerToolCall, ServerToolResult, UsageMetadata};

impl Rules for EventRules {
    const CHOICES: Choices = Choices::First;

    fn identified(&mut self, identity: &Identity) {
        self.identity = Some(identity.clone());
    }

    fn writing(&mut self, scope: &Scope<'_>, _: &mut String) {
        self.source = scope.source;
    }

    fn delta(&mut self, scope: &Scope<'_>, _: u32, channel: Channel, text: &str, out: &mut String) {
        let kind = match channel {
            Channel::Text => (OpenKind::Text, Want::Text),
            Channel::Refusal => (OpenKind::Text, Want::Refusal),
            Channel::Reasoning => (OpenKind::Thinking, Want::Reasoning),
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

    fn call_arguments(
        &mut self,
        scope: &Scope<'_>,
        _: u32,
        index: u32,
        delta: &str,
        out: &mut String,
    ) {
        self.client_arguments(index, delta, scope.first(), out);
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
        if !anthropic_expressible(&call.name) {
            return;
        }
        self.server_names.insert(call.id.clone(), call.name.clone());
        let finished = Finished::Server(call);
        Holding::call_finished(self, CallKey::Server(block), finished, scope.first(), out);
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

    fn usage(&mut self, usage: &UsageMetadata) {
        self.usage = Some(usage.clone());
    }

    fn choice_finished(&mut self, scope: &Scope<'_>, _: u32, reason: &str, _: &mut String) {
        self.stop_reason = Some(reason.to_owned());
        let metadata = scope.snapshot().map(|snapshot| snapshot.metadata());
        self.container = metadata.and_then(response::container);
        self.context_management = metadata.and_then(response::context_management);
    }

    fn finish(&mut self, scope: &Scope<'_>, out: &mut String) {
        self.close(scope.first(), out);
    }

    fn held_bytes(&self) -> usize {
        self.held_behind_call()
    }

    fn held_behind_call(&self) -> usize {
        self.queue.written_bytes(Self::RUN_BYTES, Self::TEXT_COPIES)
    }
}
