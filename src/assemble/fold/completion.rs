//! The end of the fold: the response state built into a [`Completion`], each choice's message
//! carrying the response's metadata and counts, the provider's usage object on the first.

use super::ResponseState;
use serde_json::Map;

use crate::message::{AiMessage, Choice, Completion, ResponseMetadata, UsageMetadata};

impl ResponseState {
    /// Builds the messages; `incomplete` marks each one with why it is not the whole answer.
    pub(crate) fn into_completion(mut self, incomplete: Option<String>) -> Completion {
        for choice in 0..self.choices.len() {
            self.finish_tool_calls(choice);
        }
        let mut metadata = std::mem::take(&mut self.metadata);
        self.conclude_metadata(&mut metadata, incomplete.clone());
        let response_usage = self.usage.as_ref().map(UsageMetadata::counts);
        // The provider's other top-level fields, like its raw usage map below, go to the first
        // choice's message alone: a map of new keys in every chunk would otherwise be held once
        // per choice (240 KB of them over 128 choices held 436 MB).
        let mut response_extra = std::mem::take(&mut metadata.extra);
        let first = self.choices.iter().map(|choice| choice.index).min();
        let mut choices = Vec::with_capacity(self.choices.len());
        let mut partials = self.choices.into_iter().peekable();
        while let Some(partial) = partials.next() {
            // Every message carries the rest of the response's metadata (the last one takes it)
            // and token counts.
            let mut response_metadata = if partials.peek().is_some() {
                metadata.clone()
            } else {
                std::mem::take(&mut metadata)
            };
            if Some(partial.index) == first {
                response_metadata.extra = std::mem::take(&mut response_extra);
            }
            let usage = response_usage.clone();
            choices.push(Choice {
                index: partial.index,
                message: partial.into_message(AiMessage {
                    id: response_metadata.id.clone(),
                    usage,
                    response_metadata,
                    ..AiMessage::default()
                }),
            });
        }
        choices.sort_by_key(|choice| choice.index);
        if let Some(first) = choices.first_mut() {
            first.message.usage = self.usage.take();
        }
        Completion {
            choices,
            complete: incomplete.is_none(),
            usage: response_usage,
        }
    }

    /// The message of one choice built from what arrived so far, as [`into_completion`]
    /// would build it now, leaving the state as it is: a copy of the message.
    ///
    /// [`into_completion`]: Self::into_completion
    pub(crate) fn message_so_far(&self, choice: u32) -> Option<AiMessage> {
        let partial = self
            .choices
            .iter()
            .find(|partial| partial.index == choice)?;
        let first = self.choices.iter().map(|partial| partial.index).min() == Some(choice);
        let mut metadata = self.metadata.clone();
        self.conclude_metadata(&mut metadata, None);
        let usage = if first {
            self.usage.clone()
        } else {
            metadata.extra = Map::new();
            self.usage.as_ref().map(UsageMetadata::counts)
        };
        Some(partial.clone().into_message(AiMessage {
            id: metadata.id.clone(),
            usage,
            response_metadata: metadata,
            ..AiMessage::default()
        }))
    }

    /// What every message's metadata gets at the end: the provider's name, why the answer is
    /// incomplete, and how many warnings were only counted.
    fn conclude_metadata(&self, metadata: &mut ResponseMetadata, incomplete: Option<String>) {
        metadata.model_provider = (!self.provider.is_empty()).then(|| self.provider.to_owned());
        metadata.incomplete = incomplete;
        if self.warnings_dropped > 0 {
            metadata
                .warnings
                .push(format!("… and {} more warnings", self.warnings_dropped));
        }
    }
}
