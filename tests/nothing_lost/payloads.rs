//! The payloads of a recorded stream, read with the test's own small readers (not the
//! library's framers, so that a framing bug cannot hide a value): server-sent events, JSON
//! values (NDJSON, pretty-printed bodies), a JSON array, and AWS event-stream messages whose
//! headers are framing and whose payload is JSON.

use serde_json::Value;

/// One payload and where it sits in the stream.
pub struct Payload {
    /// Byte offset of the end of the payload's frame in the stream.
    pub end: usize,
    /// The frame's event name: SSE `event:`, the event stream's `:event-type` /
    /// `:exception-type`.
    pub event: Option<String>,
    /// Other framing fields that carry a value (SSE `id:`, event-stream headers), as `(name,
    /// value)`; each is a leaf of its own (`@name`).
    pub fields: Vec<(String, String)>,
    /// The JSON payload.
    pub json: Value,
}

/// Reads every payload of `bytes`, choosing the framing as the library does: a binary
/// event-stream prelude, a first non-blank `{` (JSON values) or `[` (a JSON array), else SSE.
/// Payloads that are not JSON (`[DONE]`, a deliberately malformed event) are not payloads.
pub fn read(bytes: &[u8], eventstream: bool) -> Vec<Payload> {
    if eventstream {
        return event_stream(bytes);
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match bytes.iter().find(|byte| !byte.is_ascii_whitespace()) {
        Some(b'{') => json_values(bytes),
        Some(b'[') => json_array(bytes),
        _ => server_sent_events(bytes),
    }
}

fn json_values(bytes: &[u8]) -> Vec<Payload> {
    let mut payloads = Vec::new();
    let mut values = serde_json::Deserializer::from_slice(bytes).into_iter::<Value>();
    // A cut or malformed last value ends the payloads.
    while let Some(Ok(json)) = values.next() {
        payloads.push(plain(values.byte_offset(), json));
    }
    payloads
}

fn json_array(bytes: &[u8]) -> Vec<Payload> {
    // A cut array is read up to its last whole element.
    let text = String::from_utf8_lossy(bytes);
    let mut payloads = Vec::new();
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    let mut start = None;
    for (at, byte) in text.bytes().enumerate() {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => {
                if depth == 1 && start.is_none() {
                    start = Some(at);
                }
                depth += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 1 {
                    if let Some(from) = start.take() {
                        if let Ok(json) = serde_json::from_str(&text[from..=at]) {
                            payloads.push(plain(at + 1, json));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    payloads
}

fn plain(end: usize, json: Value) -> Payload {
    Payload {
        end,
        event: None,
        fields: Vec::new(),
        json,
    }
}

fn server_sent_events(bytes: &[u8]) -> Vec<Payload> {
    let text = String::from_utf8_lossy(bytes);
    let mut payloads = Vec::new();
    let (mut event, mut data, mut fields) = (None, None::<String>, Vec::new());
    let mut at = 0;
    let mut dispatch = |end,
                        event: &mut Option<String>,
                        data: &mut Option<String>,
                        fields: &mut Vec<(String, String)>| {
        let (event, fields) = (event.take(), std::mem::take(fields));
        if let Some(data) = data.take() {
            if let Ok(json) = serde_json::from_str(&data) {
                payloads.push(Payload {
                    end,
                    event,
                    fields,
                    json,
                });
            }
        }
    };
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        at += line.len();
        if content.is_empty() {
            dispatch(at, &mut event, &mut data, &mut fields);
        } else if !content.starts_with(':') {
            let (name, value) = content.split_once(':').unwrap_or((content, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match name {
                "data" => match &mut data {
                    Some(data) => {
                        data.push('\n');
                        data.push_str(value);
                    }
                    None => data = Some(value.to_owned()),
                },
                "event" => event = Some(value.to_owned()),
                "id" | "retry" => fields.push((name.to_owned(), value.to_owned())),
                _ => {}
            }
        }
    }
    dispatch(at, &mut event, &mut data, &mut fields);
    payloads
}

/// AWS event-stream messages: `total_len`, `headers_len`, prelude CRC, headers, payload, CRC.
/// The CRCs are not checked here: a message the library rejects is past its error's offset.
fn event_stream(bytes: &[u8]) -> Vec<Payload> {
    let mut payloads = Vec::new();
    let mut at = 0;
    while bytes.len() >= at + 16 {
        let word = |from: usize| u32::from_be_bytes(bytes[from..from + 4].try_into().unwrap());
        let (total, headers_len) = (word(at) as usize, word(at + 4) as usize);
        if total < 16 + headers_len || bytes.len() < at + total {
            break;
        }
        let headers = &bytes[at + 12..at + 12 + headers_len];
        let body = &bytes[at + 12 + headers_len..at + total - 4];
        let (mut event, mut fields) = (None, Vec::new());
        for (name, value) in headers_of(headers) {
            match name.as_str() {
                ":event-type" | ":exception-type" => event = Some(value),
                _ => fields.push((name, value)),
            }
        }
        if let Ok(json) = serde_json::from_slice(body) {
            payloads.push(Payload {
                end: at + total,
                event,
                fields,
                json,
            });
        }
        at += total;
    }
    payloads
}

/// The headers of one event-stream message, each value as text (a string header as it is, the
/// others in decimal or hex).
fn headers_of(mut bytes: &[u8]) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    while let Some((&name_len, rest)) = bytes.split_first() {
        let Some((name, rest)) = rest.split_at_checked(name_len as usize) else {
            break;
        };
        let Some((&kind, rest)) = rest.split_first() else {
            break;
        };
        let name = String::from_utf8_lossy(name).into_owned();
        let fixed = |len: usize| rest.split_at_checked(len);
        let (value, rest) = match kind {
            0 => ("true".to_owned(), rest),
            1 => ("false".to_owned(), rest),
            6 | 7 => {
                let Some((len, rest)) = rest.split_at_checked(2) else {
                    break;
                };
                let len = u16::from_be_bytes([len[0], len[1]]) as usize;
                let Some((value, rest)) = rest.split_at_checked(len) else {
                    break;
                };
                (String::from_utf8_lossy(value).into_owned(), rest)
            }
            _ => {
                let len = match kind {
                    2 => 1,
                    3 => 2,
                    4 => 4,
                    5 | 8 => 8,
                    _ => 16,
                };
                let Some((value, rest)) = fixed(len) else {
                    break;
                };
                (
                    value.iter().map(|byte| format!("{byte:02x}")).collect(),
                    rest,
                )
            }
        };
        headers.push((name, value));
        bytes = rest;
    }
    headers
}

/// Decodes standard base64 (with or without padding); `None` when `text` is not base64.
pub fn base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for byte in text.trim_end_matches('=').bytes() {
        let value = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}
