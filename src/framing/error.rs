//! Why an event stream could not be decoded.

/// A violation of the event-stream framing that makes the rest of the stream unusable.
///
/// Offsets are absolute byte positions in the input stream (counting a skipped BOM), so a
/// report can be matched against a capture of the raw response.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FramingError {
    /// The stream is not UTF-8, which the event-stream format requires.
    #[error("invalid UTF-8 at byte {offset}")]
    InvalidUtf8 {
        /// Offset of the first byte that does not belong to a valid UTF-8 sequence.
        offset: u64,
    },
    /// One event (or a comment line between events) grew past the configured bound; the
    /// decoder refuses to buffer more rather than let a broken server exhaust memory.
    #[error("event starting at byte {offset} exceeds the maximum of {max} bytes")]
    EventTooLarge {
        /// Offset where the offending event's first line starts.
        offset: u64,
        /// The limit that was exceeded.
        max: usize,
    },
    /// A binary event-stream message (or its prelude) whose CRC-32 does not match: the bytes
    /// were damaged, or the stream is not an event stream.
    #[error("bad {part} CRC in the event-stream message at byte {offset}")]
    BadChecksum {
        /// Offset of the message's first byte.
        offset: u64,
        /// `"prelude"` or `"message"`: which of the two CRCs failed.
        part: &'static str,
    },
    /// A binary event-stream message whose lengths or headers do not add up.
    #[error("malformed event-stream message at byte {offset}: {reason}")]
    MalformedMessage {
        /// Offset of the message's first byte.
        offset: u64,
        /// What does not add up.
        reason: &'static str,
    },
    /// The input ended inside a binary event-stream message.
    #[error("the input ended inside the event-stream message at byte {offset}")]
    TruncatedMessage {
        /// Offset of the unfinished message's first byte.
        offset: u64,
    },
}

#[cfg(test)]
mod tests {
    use super::FramingError;

    #[test]
    fn messages_name_the_offset_and_limit() {
        assert_eq!(
            FramingError::InvalidUtf8 { offset: 7 }.to_string(),
            "invalid UTF-8 at byte 7"
        );
        assert_eq!(
            FramingError::EventTooLarge { offset: 3, max: 10 }.to_string(),
            "event starting at byte 3 exceeds the maximum of 10 bytes"
        );
    }
}
