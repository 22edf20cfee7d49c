//! The options of the reqwest integration: the assembly [`Options`], plus the bounds only a
//! transport can enforce — how long a response may take and how much of an error body is read.
//! They live here, not in [`Limits`](crate::Limits), because the sans-IO core never waits and
//! never sees a status line.

use std::time::Duration;

use crate::assemble::Options;

/// How to send and assemble over HTTP: how to assemble the body, and its time and size bounds.
///
/// Every [`Options`] converts into one with the default bounds, so
/// `request.send_and_assemble(Options::new())` works as it is:
///
/// ```
/// use std::time::Duration;
/// use deltafold::http::HttpOptions;
/// use deltafold::Options;
///
/// let options = HttpOptions::from(Options::new().lenient(true))
///     .idle_timeout(Some(Duration::from_secs(30)))
///     .deadline(Some(Duration::from_secs(600)));
/// assert!(options.assembly.is_lenient());
/// assert_eq!(options.deadline, Some(Duration::from_secs(600)));
/// assert_eq!(options.max_error_body_bytes, 64 * 1024);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpOptions {
    /// How the body is assembled: dialect, strictness, the core's limits.
    pub assembly: Options,
    /// How long the body may stay silent; it also bounds the wait for the response headers.
    /// Default 120 s; `None` waits forever. Exceeding it is an
    /// [`IdleTimeout`](crate::ErrorKind::IdleTimeout) error.
    pub idle_timeout: Option<Duration>,
    /// How long the whole exchange may take, from the call to the last byte of the answer: the
    /// bound on a server that trickles bytes just faster than the idle timeout. Default `None`,
    /// so a long answer (a reasoning model's) is never cut. Exceeding it is a
    /// [`DeadlineExceeded`](crate::ErrorKind::DeadlineExceeded) error with the partial message.
    pub deadline: Option<Duration>,
    /// Bytes of an error body (a non-success status, an HTML page) read into the error.
    /// Default 64 KiB.
    pub max_error_body_bytes: usize,
    /// How long reading an error body may take; then the status is reported with the part of
    /// the body read so far. Default 5 s.
    pub error_body_timeout: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            assembly: Options::default(),
            idle_timeout: Some(Duration::from_secs(120)),
            deadline: None,
            max_error_body_bytes: 64 * 1024,
            error_body_timeout: Duration::from_secs(5),
        }
    }
}

impl From<Options> for HttpOptions {
    fn from(assembly: Options) -> Self {
        HttpOptions {
            assembly,
            ..HttpOptions::default()
        }
    }
}

impl HttpOptions {
    /// Default assembly options and bounds.
    pub fn new() -> Self {
        Self::default()
    }

    /// See [`idle_timeout`](Self#structfield.idle_timeout).
    pub fn idle_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// See [`deadline`](Self#structfield.deadline).
    pub fn deadline(mut self, deadline: Option<Duration>) -> Self {
        self.deadline = deadline;
        self
    }

    /// See [`max_error_body_bytes`](Self#structfield.max_error_body_bytes).
    pub fn max_error_body_bytes(mut self, bytes: usize) -> Self {
        self.max_error_body_bytes = bytes;
        self
    }

    /// See [`error_body_timeout`](Self#structfield.error_body_timeout).
    pub fn error_body_timeout(mut self, timeout: Duration) -> Self {
        self.error_body_timeout = timeout;
        self
    }
}
