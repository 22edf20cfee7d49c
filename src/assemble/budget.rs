//! The byte budget of one response: text, reasoning, refusal, tool arguments and provider
//! values held, checked against `max_message_bytes` so a stream cannot grow memory unbounded.

use serde_json::Value;

use crate::error::{Error, ErrorKind};

/// Bytes held so far against the limit.
#[derive(Debug)]
pub(crate) struct ContentBudget {
    used: usize,
    max: usize,
}

impl ContentBudget {
    pub(crate) fn new(max_message_bytes: usize) -> Self {
        ContentBudget {
            used: 0,
            max: max_message_bytes,
        }
    }

    /// Counts `bytes` more; an error once the total exceeds the limit.
    pub(crate) fn charge(&mut self, bytes: usize) -> Result<(), Error> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.max {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "text, reasoning and tool arguments exceed {} bytes (max_message_bytes)",
                    self.max
                ),
            ));
        }
        Ok(())
    }
}

/// The size of a provider value as JSON text, counted against the budget like text.
pub(crate) fn json_size(value: &Value) -> usize {
    serde_json::to_string(value).map_or(0, |text| text.len())
}
