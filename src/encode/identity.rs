//! The response's identity — id, model, creation time — that every target writes: read from
//! the snapshot once, at the first event that writes, and frozen from there (or from a finished
//! message, for a non-streamed response). Apart from the dispatch, which only freezes it.

use crate::assemble::{Assembler, Event};
use crate::message::AiMessage;

/// Response-level facts every target writes: read once from the first event and the snapshot.
#[derive(Debug, Default, Clone)]
pub(super) struct Identity {
    pub(super) id: Option<String>,
    pub(super) model: Option<String>,
    pub(super) created: Option<i64>,
}

impl Identity {
    /// From the snapshot's metadata, read at the first event that writes anything: by then
    /// it holds what the first payloads said (the very first may lack the id).
    pub(super) fn read(snapshot: &Assembler) -> Identity {
        let metadata = snapshot.metadata();
        Identity {
            id: metadata.id.clone(),
            model: metadata.model_name.clone(),
            created: metadata.created,
        }
    }

    /// True for an event that may write output, and so needs the identity: not the start,
    /// nor a usage report, which only update state.
    pub(super) fn needed_for(event: &Event<'_>) -> bool {
        !matches!(event, Event::Started { .. } | Event::Usage { .. })
    }

    pub(super) fn of_message(message: &AiMessage) -> Identity {
        let metadata = &message.response_metadata;
        Identity {
            id: message.id.clone().or_else(|| metadata.id.clone()),
            model: metadata.model_name.clone(),
            created: metadata.created,
        }
    }

    pub(super) fn id_or(&self, generated: &'static str) -> &str {
        self.id.as_deref().unwrap_or(generated)
    }

    pub(super) fn model(&self) -> &str {
        self.model.as_deref().unwrap_or_default()
    }
}
