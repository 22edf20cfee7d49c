//! One dispatched event, borrowed from the decoder.

/// A complete event, borrowing the decoder's buffers until the next call into the decoder.
///
/// Borrowing keeps the hot path free of per-event allocations; copy out (e.g.
/// `frame.data.to_owned()`) whatever must outlive the next call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    /// The `event:` field of this event; `None` when absent or empty, which both mean
    /// `"message"` to an `EventSource`.
    pub event: Option<&'a str>,
    /// The `data:` lines joined with `'\n'`, without a trailing `'\n'`.
    pub data: &'a str,
    /// The last event ID buffer; per WHATWG it persists across events until an `id:` field
    /// changes it (`Some("")` after an empty `id:`). `None` if no `id:` was ever accepted.
    pub id: Option<&'a str>,
    /// The reconnection time in milliseconds from a valid `retry:` field of this event.
    pub retry: Option<u64>,
    /// 1-based index of this event among the events dispatched from the stream.
    pub number: u64,
    /// Byte offset in the input stream where this event's first line starts.
    pub offset: u64,
    /// `false` only for an event flushed by `finish` that never saw its closing blank line,
    /// which a consumer may want to treat as a truncated response.
    pub terminated: bool,
}
