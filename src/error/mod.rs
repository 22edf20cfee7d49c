//! The one error type. Every failure says what went wrong and where (event number, byte offset),
//! and carries the partial result assembled so far: what arrived is never lost. The provider's
//! own error object, which an error may carry, is read in [`provider`].

use std::error::Error as StdError;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::message::Completion;

mod provider;

pub use self::provider::ProviderError;

/// Why assembly stopped. Query it with [`Error::kind`] or the `is_*` methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading the body failed (connection reset, TLS, I/O).
    Transport,
    /// The server answered with a non-success HTTP status.
    Status,
    /// The provider reported an error inside the stream.
    Provider,
    /// An event's payload is not what the dialect expects (invalid JSON, wrong types).
    Malformed,
    /// The byte stream is not UTF-8.
    InvalidUtf8,
    /// A configured limit was exceeded.
    LimitExceeded,
    /// The stream ended before the answer was complete.
    Truncated,
    /// No bytes arrived within the idle timeout.
    IdleTimeout,
    /// The answer did not complete within the overall deadline.
    DeadlineExceeded,
}

impl ErrorKind {
    /// The kind's name in snake case (`"invalid_utf8"`, `"limit_exceeded"`…): how the Python
    /// package's `Error.kind` and machine-readable reports spell it.
    ///
    /// ```
    /// assert_eq!(deltafold::ErrorKind::LimitExceeded.as_str(), "limit_exceeded");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Transport => "transport",
            ErrorKind::Status => "status",
            ErrorKind::Provider => "provider",
            ErrorKind::Malformed => "malformed",
            ErrorKind::InvalidUtf8 => "invalid_utf8",
            ErrorKind::LimitExceeded => "limit_exceeded",
            ErrorKind::Truncated => "truncated",
            ErrorKind::IdleTimeout => "idle_timeout",
            ErrorKind::DeadlineExceeded => "deadline_exceeded",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            ErrorKind::Transport => "transport error",
            ErrorKind::Status => "HTTP error",
            ErrorKind::Provider => "provider error",
            ErrorKind::Malformed => "malformed event",
            ErrorKind::InvalidUtf8 => "invalid UTF-8",
            ErrorKind::LimitExceeded => "limit exceeded",
            ErrorKind::Truncated => "truncated stream",
            ErrorKind::IdleTimeout => "idle timeout",
            ErrorKind::DeadlineExceeded => "deadline exceeded",
        }
    }
}

/// Where in the stream an error happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Location {
    /// 1-based number of the event being processed (0 before the first).
    pub event: u64,
    /// Byte offset in the stream.
    pub offset: u64,
}

/// The error of every deltafold operation.
///
/// Opaque on purpose, like `serde_json::Error` and `reqwest::Error`: ask it what it is
/// ([`kind`](Self::kind), [`is_truncated`](Self::is_truncated)…), where it happened
/// ([`location`](Self::location)), and take back what was assembled before it
/// ([`partial`](Self::partial), [`into_partial`](Self::into_partial)).
pub struct Error {
    inner: Box<Inner>,
}

struct Inner {
    kind: ErrorKind,
    detail: String,
    location: Option<Location>,
    partial: Option<Completion>,
    provider: Option<ProviderError>,
    status: Option<u16>,
    body: Option<String>,
    source: Option<Box<dyn StdError + Send + Sync>>,
}

impl Error {
    /// An error of `kind` saying what went wrong: for a driver of the [`Assembler`] over a
    /// transport of its own, to fail the stream with what went wrong there
    /// ([`Assembler::fail`]).
    ///
    /// ```
    /// use deltafold::{Error, ErrorKind};
    ///
    /// let error = Error::new(ErrorKind::Transport, "the connection was reset")
    ///     .with_source(std::io::Error::from(std::io::ErrorKind::ConnectionReset));
    /// assert!(error.is_transport());
    /// assert_eq!(error.detail(), "the connection was reset");
    /// assert_eq!(error.to_string(), "transport error: the connection was reset");
    /// assert!(std::error::Error::source(&error).is_some());
    /// ```
    ///
    /// [`Assembler`]: crate::Assembler
    /// [`Assembler::fail`]: crate::Assembler::fail
    pub fn new(kind: ErrorKind, detail: impl Into<String>) -> Self {
        Error {
            inner: Box::new(Inner {
                kind,
                detail: detail.into(),
                location: None,
                partial: None,
                provider: None,
                status: None,
                body: None,
                source: None,
            }),
        }
    }

    pub(crate) fn provider(error: ProviderError) -> Self {
        let mut err = Error::new(ErrorKind::Provider, error.to_string());
        err.inner.provider = Some(error);
        err
    }

    /// An [`ErrorKind::Status`] error: the server answered `status` (not a success) with
    /// `body`, read within whatever bound the transport sets. A body that is a JSON error object
    /// (or string) is read as the provider's error, in the shapes
    /// [`ProviderError::from_value`] knows.
    ///
    /// ```
    /// let error = deltafold::Error::status(429, r#"{"error":{"message":"slow down","code":"rate_limit_exceeded"}}"#);
    /// assert!(error.is_status());
    /// assert_eq!(error.status_code(), Some(429));
    /// assert_eq!(error.provider_error().unwrap().message, "slow down");
    /// assert_eq!(error.to_string(), "HTTP error: status 429: rate_limit_exceeded: slow down");
    /// ```
    pub fn status(status: u16, body: impl Into<String>) -> Self {
        let body = body.into();
        let provider = serde_json::from_str::<Value>(&body)
            .ok()
            .filter(|value| value.is_object() || value.is_string())
            .map(ProviderError::from_value);
        let detail = match &provider {
            Some(provider) => format!("status {status}: {provider}"),
            None if body.trim().is_empty() => format!("status {status}"),
            None => format!("status {status}: {}", first_line(&body, 200)),
        };
        let mut err = Error::new(ErrorKind::Status, detail);
        err.inner.status = Some(status);
        err.inner.body = Some(body);
        err.inner.provider = provider;
        err
    }

    /// Adds what the reader of the error should also know, in parentheses after the cause (why
    /// an error body was not read whole, say).
    ///
    /// ```
    /// let error = deltafold::Error::status(502, "").with_note("the error body was cut short");
    /// assert_eq!(error.detail(), "status 502 (the error body was cut short)");
    /// ```
    pub fn with_note(mut self, note: &str) -> Self {
        self.inner.detail = format!("{} ({note})", self.inner.detail);
        self
    }

    /// Adds the lower-level error that caused this one, returned by
    /// [`source`](StdError::source).
    pub fn with_source(mut self, source: impl Into<Box<dyn StdError + Send + Sync>>) -> Self {
        self.inner.source = Some(source.into());
        self
    }

    pub(crate) fn at(mut self, location: Location) -> Self {
        self.inner.location.get_or_insert(location);
        self
    }

    /// Adds the result assembled before the error (see [`partial`](Self::partial)): for a
    /// driver that ends a stream with an error of its own, after
    /// [`Assembler::stop`](crate::Assembler::stop) gave it what arrived.
    pub fn with_partial(mut self, partial: Completion) -> Self {
        self.inner.partial = Some(partial);
        self
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// The cause, without kind and location: what [`new`](Self::new) was given.
    pub fn detail(&self) -> &str {
        &self.inner.detail
    }

    /// Where in the stream it happened, when it happened inside one.
    pub fn location(&self) -> Option<Location> {
        self.inner.location
    }

    /// What was assembled before the error, each message marked incomplete.
    pub fn partial(&self) -> Option<&Completion> {
        self.inner.partial.as_ref()
    }

    /// Takes the partial result out of the error.
    pub fn into_partial(self) -> Option<Completion> {
        self.inner.partial
    }

    /// The provider's error object, for [`ErrorKind::Provider`] and for HTTP errors whose body
    /// was one.
    pub fn provider_error(&self) -> Option<&ProviderError> {
        self.inner.provider.as_ref()
    }

    /// The HTTP status, for [`ErrorKind::Status`].
    pub fn status_code(&self) -> Option<u16> {
        self.inner.status
    }

    /// The start of the HTTP error body (read within the configured bounds of bytes and time).
    pub fn body(&self) -> Option<&str> {
        self.inner.body.as_deref()
    }

    /// Reading the body failed.
    pub fn is_transport(&self) -> bool {
        self.kind() == ErrorKind::Transport
    }

    /// The server answered with a non-success status.
    pub fn is_status(&self) -> bool {
        self.kind() == ErrorKind::Status
    }

    /// The provider reported an error in the stream.
    pub fn is_provider(&self) -> bool {
        self.kind() == ErrorKind::Provider
    }

    /// An event's payload could not be read.
    pub fn is_malformed(&self) -> bool {
        self.kind() == ErrorKind::Malformed
    }

    /// The bytes are not UTF-8.
    pub fn is_invalid_utf8(&self) -> bool {
        self.kind() == ErrorKind::InvalidUtf8
    }

    /// A limit was exceeded.
    pub fn is_limit_exceeded(&self) -> bool {
        self.kind() == ErrorKind::LimitExceeded
    }

    /// The stream ended early.
    pub fn is_truncated(&self) -> bool {
        self.kind() == ErrorKind::Truncated
    }

    /// The connection went quiet for longer than the idle timeout.
    pub fn is_idle_timeout(&self) -> bool {
        self.kind() == ErrorKind::IdleTimeout
    }

    /// The answer took longer than the overall deadline.
    pub fn is_deadline_exceeded(&self) -> bool {
        self.kind() == ErrorKind::DeadlineExceeded
    }
}

fn first_line(text: &str, max_chars: usize) -> String {
    let line = text.trim().lines().next().unwrap_or_default();
    match line.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

/// A short, single-line excerpt of a payload for error messages.
pub(crate) fn snippet(text: &str) -> String {
    format!("{:?}", first_line(text, 80))
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.inner.kind.describe(), self.inner.detail)?;
        if let Some(location) = self.inner.location {
            write!(f, " (event {}, byte {})", location.event, location.offset)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("Error");
        debug
            .field("kind", &self.inner.kind)
            .field("detail", &self.inner.detail);
        if let Some(location) = &self.inner.location {
            debug.field("location", location);
        }
        if let Some(status) = &self.inner.status {
            debug.field("status", status);
        }
        if let Some(provider) = &self.inner.provider {
            debug.field("provider", provider);
        }
        if let Some(source) = &self.inner.source {
            debug.field("source", source);
        }
        debug
            .field("partial", &self.inner.partial.is_some())
            .finish()
    }
}

impl StdError for Error {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match &self.inner.source {
            Some(source) => Some(source.as_ref()),
            None => self
                .inner
                .provider
                .as_ref()
                .map(|provider| provider as &(dyn StdError + 'static)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn display_names_kind_cause_and_place() {
        let err =
            Error::new(ErrorKind::Malformed, "expected value at line 1 column 2").at(Location {
                event: 3,
                offset: 120,
            });
        assert_eq!(
            err.to_string(),
            "malformed event: expected value at line 1 column 2 (event 3, byte 120)"
        );
        assert!(err.is_malformed());
        assert!(err.partial().is_none());
    }

    #[test]
    fn source_chain_reaches_the_provider_error() {
        let err = Error::provider(ProviderError::from_value(json!({"message": "boom"})));
        assert_eq!(err.source().unwrap().to_string(), "boom");
    }
}
