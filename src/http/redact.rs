//! What a transport error may say about the URL: reqwest's `Display` names the URL it was
//! fetching, query included, and Gemini's API key lives in the query (`?key=…`). Errors leave
//! the `http` module with the query, fragment and any user and password taken out.

use crate::error::{Error, ErrorKind};
use crate::stream::causes;

/// Put where the query or a credential was.
const REDACTED: &str = "redacted";

/// A transport error from reqwest, its URL redacted, as a deltafold error saying what failed.
pub(super) fn transport_error(doing: &str, error: reqwest::Error) -> Error {
    let error = redact(error);
    Error::new(ErrorKind::Transport, format!("{doing}: {}", causes(&error))).with_source(error)
}

/// The error with its URL's query, fragment, user and password replaced.
fn redact(mut error: reqwest::Error) -> reqwest::Error {
    if let Some(url) = error.url_mut() {
        if url.query().is_some() {
            url.set_query(Some(REDACTED));
        }
        if url.fragment().is_some() {
            url.set_fragment(None);
        }
        if !url.username().is_empty() {
            let _ = url.set_username(REDACTED);
        }
        if url.password().is_some() {
            let _ = url.set_password(Some(REDACTED));
        }
    }
    error
}
