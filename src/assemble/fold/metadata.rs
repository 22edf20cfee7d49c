//! What the response says about itself — its id, model, fingerprint, creation time — and the
//! provider fields with no place in the model, kept as sent: each charged once for every
//! choice's message that carries a copy.

use super::ResponseState;
use crate::assemble::extras;
use crate::delta::MetadataDelta;
use crate::error::Error;

impl ResponseState {
    pub(super) fn apply_metadata(&mut self, delta: MetadataDelta<'_>) -> Result<(), Error> {
        let metadata = &mut self.metadata;
        // The id twice: each message's own `id` is a copy.
        let taken = 2 * set_once(&mut metadata.id, delta.id)
            + set_once(&mut metadata.model_name, delta.model)
            + set_once(&mut metadata.system_fingerprint, delta.system_fingerprint)
            + set_once(&mut metadata.service_tier, delta.service_tier);
        // Azure's placeholder first chunk says `created: 0`.
        if metadata.created.is_none_or(|created| created == 0) {
            if let Some(created) = delta.created.filter(|&created| created != 0) {
                metadata.created = Some(created);
            }
        }
        self.charge_shared(taken)
    }

    /// Charges `bytes` of the response's fields once for every choice's message, as each will
    /// carry a copy: 128 choices of a 256 KB model name hold 32 MB.
    pub(super) fn charge_shared(&mut self, bytes: usize) -> Result<(), Error> {
        self.shared_bytes = self.shared_bytes.saturating_add(bytes);
        self.budget
            .charge(bytes.saturating_mul(self.choices.len().max(1)))
    }

    pub(super) fn keep_extra(
        &mut self,
        choice: Option<u32>,
        key: &str,
        raw: &str,
    ) -> Result<(), Error> {
        let extra = match choice {
            Some(index) => {
                let choice = self.choice(index)?;
                &mut self.choices[choice].extra
            }
            None => &mut self.metadata.extra,
        };
        let Some(kept) = extras::keep_extra(extra, key, raw, &self.budget) else {
            return Ok(());
        };
        match kept.as_text {
            None => self.budget.charge_tree(kept.held),
            Some(entries) => {
                self.budget.charge_held(kept.held)?;
                self.warn(format!(
                    "the provider field {key:?} ({entries} values in {} bytes) is kept as its \
                     JSON text in a string: parsed, it would hold many times its size",
                    raw.len()
                ))
            }
        }
    }
}

/// Takes the first non-empty value; returns the bytes taken.
fn set_once(field: &mut Option<String>, value: Option<&str>) -> usize {
    if field.as_deref().is_none_or(str::is_empty) {
        if let Some(value) = value.filter(|value| !value.is_empty()) {
            *field = Some(value.to_owned());
            return value.len();
        }
    }
    0
}
