use std::time::Duration;

use crate::dialect::Dialect;

/// Bounds on what one stream may make deltafold hold. Exceeding one is an
/// [`ErrorKind::LimitExceeded`](crate::ErrorKind::LimitExceeded) error that still carries the
/// partial message — never unbounded memory.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Bytes of one server-sent event (all its lines). Default 16 MiB.
    pub max_event_bytes: usize,
    /// Bytes of text, reasoning, refusal and tool arguments across all choices. Default 256 MiB.
    pub max_message_bytes: usize,
    /// Tool calls in one message. Default 1024.
    pub max_tool_calls: usize,
    /// Choices in one response. Default 128.
    pub max_choices: usize,
    /// Bytes of an HTTP error body read into the error. Default 64 KiB.
    pub max_error_body_bytes: usize,
    /// HTTP only: how long the body may stay silent. Default 120 s; `None` waits forever.
    pub idle_timeout: Option<Duration>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_event_bytes: crate::sse::DEFAULT_MAX_EVENT_BYTES,
            max_message_bytes: 256 * 1024 * 1024,
            max_tool_calls: 1024,
            max_choices: 128,
            max_error_body_bytes: 64 * 1024,
            idle_timeout: Some(Duration::from_secs(120)),
        }
    }
}

/// How to assemble: the dialect, strictness and limits. Built fluently:
///
/// ```
/// use std::time::Duration;
/// use deltafold::Options;
///
/// let options = Options::new()
///     .lenient(true)
///     .max_tool_calls(64)
///     .idle_timeout(Some(Duration::from_secs(30)));
/// assert!(options.is_lenient());
/// assert_eq!(options.limits().max_tool_calls, 64);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    lenient: bool,
    dialect: Dialect,
    limits: Limits,
}

impl Options {
    /// Strict, OpenAI chat-completion dialect, default limits.
    pub fn new() -> Self {
        Self::default()
    }

    /// Lenient mode: a truncated stream yields its message marked incomplete instead of an error,
    /// and a malformed payload is skipped with a warning on the message.
    pub fn lenient(mut self, lenient: bool) -> Self {
        self.lenient = lenient;
        self
    }

    /// The wire dialect of the stream.
    pub fn dialect(mut self, dialect: Dialect) -> Self {
        self.dialect = dialect;
        self
    }

    /// Replaces all limits at once.
    pub fn with_limits(self, limits: Limits) -> Self {
        Options { limits, ..self }
    }

    /// See [`Limits::max_event_bytes`].
    pub fn max_event_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_event_bytes = bytes;
        self
    }

    /// See [`Limits::max_message_bytes`].
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_message_bytes = bytes;
        self
    }

    /// See [`Limits::max_tool_calls`].
    pub fn max_tool_calls(mut self, calls: usize) -> Self {
        self.limits.max_tool_calls = calls;
        self
    }

    /// See [`Limits::max_choices`].
    pub fn max_choices(mut self, choices: usize) -> Self {
        self.limits.max_choices = choices;
        self
    }

    /// See [`Limits::max_error_body_bytes`].
    pub fn max_error_body_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_error_body_bytes = bytes;
        self
    }

    /// See [`Limits::idle_timeout`].
    pub fn idle_timeout(mut self, timeout: Option<std::time::Duration>) -> Self {
        self.limits.idle_timeout = timeout;
        self
    }

    /// Whether lenient mode is on.
    pub fn is_lenient(&self) -> bool {
        self.lenient
    }

    /// The configured dialect.
    pub fn selected_dialect(&self) -> Dialect {
        self.dialect
    }

    /// The configured limits.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }
}
