//! The media type of a `Content-Type` value, read once here for everyone who decides by it: the
//! framer (event stream or NDJSON) and the HTTP layer (JSON, HTML or a stream).

/// The essence of a `Content-Type` value: the type and subtype without parameters, trimmed and
/// lowercased: what a driver compares to tell an answer's framing (`text/event-stream`,
/// `application/x-ndjson`, which [`Assembler::set_content_type`](crate::Assembler::set_content_type)
/// takes as they come) from a whole JSON body or an error page.
///
/// ```
/// use deltafold::framing::media_type;
///
/// assert_eq!(media_type("Text/Event-Stream; charset=utf-8"), "text/event-stream");
/// ```
pub fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::media_type;

    #[test]
    fn parameters_case_and_whitespace_are_dropped() {
        assert_eq!(
            media_type(" Text/Event-Stream ; charset=utf-8"),
            "text/event-stream"
        );
        assert_eq!(media_type("application/json"), "application/json");
        assert_eq!(media_type(""), "");
    }
}
