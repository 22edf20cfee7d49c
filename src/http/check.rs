//! What came back, checked before anything is assembled: an error status becomes a status
//! error with the start of its body (read within its own bounds of bytes and time), a body the
//! client left encoded or an HTML page a malformed-answer error, and anything else a body to
//! read with what its `Content-Type` says it is. Apart from the assembling in `mod.rs`, which
//! only takes a checked body.

use reqwest::header::{CONTENT_ENCODING, CONTENT_TYPE};
use reqwest::StatusCode;

use super::body::{ReadEnd, ResponseBody};
use super::options::HttpOptions;
use super::time::Deadline;
use crate::error::{Error, ErrorKind};
use crate::framing::media_type;

/// What the `Content-Type` says the body is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum BodyKind {
    /// An event stream, or NDJSON: the assembler frames it by its media type.
    Stream(String),
    Json,
    Html,
}

impl BodyKind {
    /// Servers that stream sometimes send no or a wrong type, so anything not recognisably
    /// JSON or HTML is read as a stream.
    fn of(response: &reqwest::Response) -> Self {
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default();
        let media_type = media_type(content_type);
        if media_type == "application/json" || media_type.ends_with("+json") {
            BodyKind::Json
        } else if media_type == "text/html" {
            BodyKind::Html
        } else {
            BodyKind::Stream(media_type)
        }
    }
}

/// The `Content-Encoding` of a body the client left encoded. reqwest removes the header when it
/// decodes, so one still there (other than `identity`) is one it cannot decode.
fn undecoded_encoding(response: &reqwest::Response) -> Option<String> {
    let encoding = response.headers().get(CONTENT_ENCODING)?;
    let encoding = String::from_utf8_lossy(encoding.as_bytes())
        .trim()
        .to_ascii_lowercase();
    (!encoding.is_empty() && encoding != "identity").then_some(encoding)
}

fn undecodable(encoding: &str) -> String {
    format!(
        "cannot decode a body with Content-Encoding {encoding:?}: the client decodes only \
         what reqwest's gzip, deflate and brotli features turn on"
    )
}

/// Checks the status, the encoding and the content type: the body, and what it is, when it is
/// an answer to read.
pub(super) async fn checked_body(
    response: reqwest::Response,
    options: &HttpOptions,
    deadline: Option<Deadline>,
) -> Result<(ResponseBody, BodyKind), Error> {
    let status = response.status();
    let kind = BodyKind::of(&response);
    let encoding = undecoded_encoding(&response);
    let mut body = ResponseBody::new(response, options.idle_timeout, deadline);
    if !status.is_success() {
        return Err(status_error(status, &mut body, encoding, options).await);
    }
    if let Some(encoding) = encoding {
        return Err(Error::new(ErrorKind::Malformed, undecodable(&encoding)));
    }
    if kind == BodyKind::Html {
        let (page, _) = read_error_body(&mut body, options).await;
        let page = page.split_whitespace().collect::<Vec<_>>().join(" ");
        let start: String = page.chars().take(80).collect();
        let cut = if start.len() < page.len() { "…" } else { "" };
        return Err(Error::new(
            ErrorKind::Malformed,
            format!(
                "expected an event stream but the server sent an HTML page (status {status}): {:?}",
                format!("{start}{cut}")
            ),
        ));
    }
    Ok((body, kind))
}

/// The error of a non-success status, with the start of its body.
async fn status_error(
    status: StatusCode,
    body: &mut ResponseBody,
    encoding: Option<String>,
    options: &HttpOptions,
) -> Error {
    if let Some(encoding) = encoding {
        let note = format!("error body not read: {}", undecodable(&encoding));
        return Error::status(status.as_u16(), "").with_note(&note);
    }
    let (text, cut_short) = read_error_body(body, options).await;
    let error = Error::status(status.as_u16(), text);
    match cut_short {
        Some(why) => error.with_note(&why),
        None => error,
    }
}

/// Reads the start of an error body within its bounds of bytes and time. The second value
/// says why the read stopped before the end of the body when time ran out.
async fn read_error_body(
    body: &mut ResponseBody,
    options: &HttpOptions,
) -> (String, Option<String>) {
    let mut bytes = Vec::new();
    let timeout = options.error_body_timeout;
    let read = tokio::time::timeout(
        timeout,
        body.read_up_to(options.max_error_body_bytes, &mut bytes),
    )
    .await;
    let cut_short = match read {
        Err(_) => Some(format!(
            "the rest of the error body did not arrive within {timeout:?} (error_body_timeout)"
        )),
        Ok(ReadEnd::Failed(error)) if error.is_idle_timeout() || error.is_deadline_exceeded() => {
            Some(format!("the error body was cut short: {}", error.detail()))
        }
        Ok(_) => None,
    };
    (utf8_prefix(&bytes), cut_short)
}

/// The bytes as text, dropping a character cut at the end by the read bound.
fn utf8_prefix(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(error) if error.error_len().is_none() => {
            String::from_utf8_lossy(&bytes[..error.valid_up_to()]).into_owned()
        }
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}
