//! [`ProviderError`]: the error object a provider sends, in the stream or as an HTTP error
//! body, read from its common shapes with every member kept. Apart from [`Error`](super::Error),
//! which only carries one.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// An error object sent by the provider, in the stream or as an HTTP error body.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, thiserror::Error)]
#[error("{}", self.summary())]
pub struct ProviderError {
    /// The provider's error code (`rate_limit_exceeded`, `429`…).
    pub code: Option<String>,
    /// The provider's error type (`invalid_request_error`…).
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// The human-readable message.
    pub message: String,
    /// The request parameter at fault, if named.
    pub param: Option<String>,
    /// The error object as sent.
    pub raw: Value,
}

impl ProviderError {
    /// Reads an error object in the common shapes: `{"error": {...}}`, `{"message", "code",
    /// "type"}`, or a bare string.
    pub fn from_value(value: Value) -> Self {
        let inner = match &value {
            Value::Object(object) => match object.get("error") {
                Some(inner @ (Value::Object(_) | Value::String(_))) => inner,
                _ => &value,
            },
            _ => &value,
        };
        let text = |key: &str| match inner.get(key) {
            Some(Value::String(text)) => Some(text.clone()),
            Some(Value::Number(number)) => Some(number.to_string()),
            _ => None,
        };
        let message = match inner {
            Value::String(text) => text.clone(),
            _ => text("message")
                .or_else(|| text("detail"))
                .unwrap_or_else(|| inner.to_string()),
        };
        ProviderError {
            code: text("code").or_else(|| text("status")),
            kind: text("type"),
            message,
            param: text("param"),
            raw: value,
        }
    }

    /// The members of the error object that no field above holds — Groq's
    /// `failed_generation` (the call the model wrote, which the message says to look at),
    /// Cohere's `error_type`, a `status_code` — in the order sent: the ones of the object the
    /// message came from, then the ones beside its `{"error": …}` wrapper.
    pub fn details(&self) -> Vec<(&str, &Value)> {
        let Value::Object(outer) = &self.raw else {
            return Vec::new();
        };
        let (inner, beside) = match outer.get("error") {
            Some(Value::Object(inner)) => (Some(inner), Some(outer)),
            Some(Value::String(_)) => (None, Some(outer)),
            _ => (Some(outer), None),
        };
        let used = |key: &str| match key {
            "message" | "type" | "param" => true,
            "code" => self.code.is_some(),
            "status" => self.code.is_some() && !inner.is_some_and(|i| i.contains_key("code")),
            "detail" => !inner.is_some_and(|i| i.contains_key("message")),
            _ => false,
        };
        let inner = inner.into_iter().flatten().filter(|(key, _)| !used(key));
        let beside = beside
            .into_iter()
            .flatten()
            .filter(|(key, _)| *key != "error");
        inner
            .chain(beside)
            .map(|(key, value)| (key.as_str(), value))
            .collect()
    }

    fn summary(&self) -> String {
        let label = self.code.as_deref().or(self.kind.as_deref());
        let mut summary = match label {
            Some(label) => format!("{label}: {}", self.message),
            None => self.message.clone(),
        };
        let details = self.details();
        for (position, (key, value)) in details.iter().enumerate() {
            summary.push_str(if position == 0 { " (" } else { ", " });
            summary.push_str(key);
            summary.push_str(": ");
            match value {
                Value::String(text) => summary.push_str(text),
                other => summary.push_str(&other.to_string()),
            }
        }
        if !details.is_empty() {
            summary.push(')');
        }
        summary
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn provider_errors_are_read_from_the_common_shapes() {
        let nested = ProviderError::from_value(
            json!({"error": {"message": "slow down", "type": "rate_limit", "code": "429"}}),
        );
        assert_eq!(nested.message, "slow down");
        assert_eq!(nested.code.as_deref(), Some("429"));
        assert_eq!(nested.kind.as_deref(), Some("rate_limit"));
        let flat = ProviderError::from_value(json!({"message": "bad", "code": 400}));
        assert_eq!(flat.code.as_deref(), Some("400"));
        let bare = ProviderError::from_value(json!({"error": "overloaded"}));
        assert_eq!(bare.message, "overloaded");
    }

    #[test]
    fn the_fields_no_member_holds_are_details_and_shown() {
        let groq =
            ProviderError::from_value(json!({"error": {"message": "Tool call validation failed",
            "type": "invalid_request_error", "code": "tool_use_failed",
            "failed_generation": "{\"name\": \"get_user\"}", "status_code": 400}}));
        assert_eq!(
            groq.details(),
            [
                ("failed_generation", &json!("{\"name\": \"get_user\"}")),
                ("status_code", &json!(400))
            ]
        );
        assert_eq!(
            groq.to_string(),
            "tool_use_failed: Tool call validation failed (failed_generation: {\"name\": \
             \"get_user\"}, status_code: 400)"
        );
        // Beside a bare `{"error": "…"}`, a status used as the code, a `detail` as the message.
        let cohere = ProviderError::from_value(
            json!({"error": "overloaded", "error_type": "server_error", "finish_reason": "ERROR"}),
        );
        assert_eq!(
            cohere.to_string(),
            "overloaded (error_type: server_error, finish_reason: ERROR)"
        );
        let gemini = ProviderError::from_value(
            json!({"error": {"status": "UNAVAILABLE", "message": "try later", "code": 503}}),
        );
        assert_eq!(gemini.details(), [("status", &json!("UNAVAILABLE"))]);
        let plain = ProviderError::from_value(json!({"status": "429", "detail": "slow"}));
        assert!(plain.details().is_empty());
        assert_eq!(plain.to_string(), "429: slow");
    }
}
