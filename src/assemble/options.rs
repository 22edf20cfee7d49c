//! How to assemble one stream: strict or lenient, the dialect, the `<think>` filter, and the
//! [`Limits`] the sans-IO core enforces. Transport settings (timeouts, deadlines, the error-body
//! bound) belong to the transport: `http::HttpOptions` for reqwest.

use crate::dialect::Dialect;

/// Bounds on what one stream may make deltafold hold, enforced by the assembler itself whatever
/// feeds it. Exceeding one is an [`ErrorKind::LimitExceeded`](crate::ErrorKind::LimitExceeded)
/// error that still carries the partial message — never unbounded memory.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Bytes of one server-sent event (all its lines). Default 16 MiB.
    pub max_event_bytes: usize,
    /// Bytes the assembled response may hold across all choices. Default 256 MiB. Everything
    /// kept is counted: text, reasoning, refusal, tool arguments, tool-call ids (three times:
    /// the call, its finished block and the id index) and names (twice), finish reasons,
    /// response ids, models and warnings (once for every choice, as each message carries a
    /// copy), and provider values (logprobs, extras, usage keys, reasoning entries,
    /// annotations, content without a standard block) — plus
    /// [`BLOCK_OVERHEAD`](Self::BLOCK_OVERHEAD) for every content block and
    /// [`ENTRY_OVERHEAD`](Self::ENTRY_OVERHEAD) for every JSON value kept and
    /// [`CHOICE_OVERHEAD`](Self::CHOICE_OVERHEAD) for every choice, so that the limit bounds
    /// the memory held within a small factor even for a stream of empty items.
    pub max_message_bytes: usize,
    /// Tool calls in one message. Default 1024.
    pub max_tool_calls: usize,
    /// Choices in one response. Default 128.
    pub max_choices: usize,
}

impl Limits {
    /// What [`max_message_bytes`](Self::max_message_bytes) counts for one content block
    /// beyond its text: the size of its slot while it streams plus its slot in the built
    /// message.
    pub const BLOCK_OVERHEAD: usize = super::overhead::BLOCK_OVERHEAD;
    /// What [`max_message_bytes`](Self::max_message_bytes) counts for one JSON value kept (a
    /// logprobs entry, a usage key, an extra, a nested value…) beyond its text: the size of a
    /// value, of a key and of a map's index slots.
    pub const ENTRY_OVERHEAD: usize = super::budget::ENTRY_OVERHEAD;
    /// What [`max_message_bytes`](Self::max_message_bytes) counts for one choice beyond what
    /// it holds: the size of its message while it streams and once built, and of its slot in
    /// the index of choices sent out of order.
    pub const CHOICE_OVERHEAD: usize = super::overhead::CHOICE_OVERHEAD;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_event_bytes: crate::framing::DEFAULT_MAX_EVENT_BYTES,
            max_message_bytes: 256 * 1024 * 1024,
            max_tool_calls: 1024,
            max_choices: 128,
        }
    }
}

/// How to assemble: the dialect, strictness and limits. Built fluently:
///
/// ```
/// use deltafold::Options;
///
/// let options = Options::new().lenient(true).max_tool_calls(64);
/// assert!(options.is_lenient());
/// assert_eq!(options.limits().max_tool_calls, 64);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    lenient: bool,
    /// `None`: detected from the first payload.
    dialect: Option<Dialect>,
    think_tags: bool,
    limits: Limits,
}

impl Options {
    /// Strict, dialect detected from the stream, default limits.
    pub fn new() -> Self {
        Self::default()
    }

    /// Lenient mode: a truncated stream yields its message marked incomplete instead of an error,
    /// and a malformed payload is skipped with a warning on the message.
    pub fn lenient(mut self, lenient: bool) -> Self {
        self.lenient = lenient;
        self
    }

    /// The wire dialect of the stream, instead of detecting it from the first payload. A
    /// payload of another dialect is then a [`Malformed`](crate::ErrorKind::Malformed) error.
    pub fn dialect(mut self, dialect: Dialect) -> Self {
        self.dialect = Some(dialect);
        self
    }

    /// Moves reasoning that a model writes into its text between `<think>` and `</think>`
    /// (DeepSeek-R1, QwQ… on Together, Hugging Face, Fireworks) to the reasoning block as it
    /// streams. Off by default, so text stays as the provider sent it. Only a `<think>` at the
    /// start of the text opens reasoning; the whitespace after either tag is dropped.
    ///
    /// ```
    /// use deltafold::Options;
    ///
    /// let body = concat!(
    ///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"<think>\\nHm.</thi\"}}]}\n\n",
    ///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"nk>\\n\\nYes.\"},\"finish_reason\":\"stop\"}]}\n\n",
    ///     "data: [DONE]\n\n",
    /// );
    /// let message = deltafold::assemble(body.as_bytes(), Options::new().think_tags(true))?
    ///     .into_message();
    /// assert_eq!(message.reasoning(), "Hm.");
    /// assert_eq!(message.text(), "Yes.");
    /// # Ok::<(), deltafold::Error>(())
    /// ```
    pub fn think_tags(mut self, extract: bool) -> Self {
        self.think_tags = extract;
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

    /// Whether lenient mode is on.
    pub fn is_lenient(&self) -> bool {
        self.lenient
    }

    /// The dialect chosen with [`dialect`](Self::dialect); `None` when it is detected.
    pub fn selected_dialect(&self) -> Option<Dialect> {
        self.dialect
    }

    /// Whether `<think>` spans in the text become reasoning.
    pub fn extracts_think_tags(&self) -> bool {
        self.think_tags
    }

    /// The configured limits.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }
}
