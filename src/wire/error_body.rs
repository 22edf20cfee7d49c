//! An upstream provider's error as the error body of the format a gateway's client speaks, so
//! that the client's SDK raises its own error with the upstream message.
//!
//! ```
//! use deltafold::wire::{error_body, WireFormat};
//! use deltafold::ProviderError;
//!
//! // Anthropic answered 429 to a request a gateway received in OpenAI's format.
//! let upstream = ProviderError::from_value(serde_json::json!({
//!     "type": "error",
//!     "error": {"type": "rate_limit_error", "message": "Number of requests has exceeded your rate limit"},
//! }));
//! let body = error_body::encode(WireFormat::OpenAiChat, &upstream, 429)?;
//! assert_eq!(body, serde_json::json!({"error": {
//!     "message": "Number of requests has exceeded your rate limit",
//!     "type": "rate_limit_error", "param": null, "code": null,
//! }}));
//! # Ok::<(), deltafold::wire::WireError>(())
//! ```
//!
//! The shapes: OpenAI (Chat Completions and Responses) `{"error": {"message", "type", "param",
//! "code"}}`; Anthropic `{"type": "error", "error": {"type", "message"}}`; Gemini `{"error":
//! {"code", "message", "status"}}`. An error already in the target's shape (the same provider
//! family: Chat Completions and Responses are one) is written as it came, every member kept.
//! Otherwise the message is kept and the type is the target's word for the HTTP status (the
//! SDKs choose their exception by status; keep relaying the upstream status): 400
//! `invalid_request_error` / `INVALID_ARGUMENT`, 401 `authentication_error` /
//! `UNAUTHENTICATED`, 403 `permission_error` / `PERMISSION_DENIED`, 404 `not_found_error` /
//! `NOT_FOUND`, 429 `rate_limit_error` / `RESOURCE_EXHAUSTED`, 503 and 529 (Anthropic's
//! overloaded) `overloaded_error` / `UNAVAILABLE`, other 5xx `server_error` (OpenAI) /
//! `api_error` (Anthropic) / `INTERNAL`. The other provider's code and members have no meaning
//! in the target's vocabulary and are not written (the caller still has them:
//! [`ProviderError::raw`]); OpenAI's `param` is.

use serde_json::{json, Value};

use super::{WireError, WireFormat};
use crate::error::ProviderError;

/// The provider family whose error shape `raw` has.
fn family_of(raw: &Value) -> Option<WireFormat> {
    let error = raw.get("error")?;
    if raw.get("type").and_then(Value::as_str) == Some("error") && error.get("type").is_some() {
        Some(WireFormat::Anthropic)
    } else if error.get("status").is_some_and(Value::is_string)
        && error.get("code").is_some_and(Value::is_number)
    {
        Some(WireFormat::Gemini)
    } else if error.get("message").is_some_and(Value::is_string) {
        Some(WireFormat::OpenAiChat)
    } else {
        None
    }
}

/// The family a format's errors belong to (Responses answers errors as Chat Completions does).
fn family(format: WireFormat) -> WireFormat {
    match format {
        WireFormat::OpenAiResponses => WireFormat::OpenAiChat,
        other => other,
    }
}

/// `error`, which came with the HTTP `status`, as the error body clients of `format` read; a
/// [`WireError::UnsupportedSetting`] for LangChain, which has no error body.
pub fn encode(format: WireFormat, error: &ProviderError, status: u16) -> Result<Value, WireError> {
    if family_of(&error.raw) == Some(family(format)) {
        return Ok(error.raw.clone());
    }
    let message = error.message.clone();
    Ok(match family(format) {
        WireFormat::OpenAiChat => json!({"error": {
            "message": message,
            "type": openai_type(status),
            "param": error.param,
            "code": Value::Null,
        }}),
        WireFormat::Anthropic => json!({
            "type": "error",
            "error": {"type": anthropic_type(status), "message": message},
        }),
        WireFormat::Gemini => json!({"error": {
            "code": status,
            "message": message,
            "status": gemini_status(status),
        }}),
        other => {
            return Err(WireError::UnsupportedSetting {
                format: other,
                what: "an error body".into(),
            })
        }
    })
}

/// The words the three families use for the common statuses: OpenAI's, Anthropic's, Gemini's.
fn words(status: u16) -> Option<(&'static str, &'static str, &'static str)> {
    Some(match status {
        400 => (
            "invalid_request_error",
            "invalid_request_error",
            "INVALID_ARGUMENT",
        ),
        401 => (
            "authentication_error",
            "authentication_error",
            "UNAUTHENTICATED",
        ),
        403 => ("permission_error", "permission_error", "PERMISSION_DENIED"),
        404 => ("not_found_error", "not_found_error", "NOT_FOUND"),
        429 => ("rate_limit_error", "rate_limit_error", "RESOURCE_EXHAUSTED"),
        503 | 529 => ("overloaded_error", "overloaded_error", "UNAVAILABLE"),
        _ => return None,
    })
}

fn openai_type(status: u16) -> &'static str {
    match words(status) {
        Some((word, _, _)) => word,
        None if status >= 500 => "server_error",
        None => "invalid_request_error",
    }
}

fn anthropic_type(status: u16) -> &'static str {
    match words(status) {
        Some((_, word, _)) => word,
        None if status >= 500 => "api_error",
        None => "invalid_request_error",
    }
}

fn gemini_status(status: u16) -> &'static str {
    match words(status) {
        Some((_, _, word)) => word,
        None if status == 504 => "DEADLINE_EXCEEDED",
        None if status >= 500 => "INTERNAL",
        None => "FAILED_PRECONDITION",
    }
}
