//! The floor: the work no assembler can skip. `serde_json` deserialises every payload into a
//! borrowed chunk struct; the SSE framing is already done (the payloads are pre-split `&str`s)
//! and nothing is accumulated. Bytes in → final message out is compared against this.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, Visitor};

/// A JSON string borrowed from the payload when it has no escapes, owned when it has.
///
/// serde's `#[serde(borrow)]` does not reach a `Cow<str>` inside an `Option` (it would always
/// allocate), hence this newtype, as in the library's own dialect code.
#[derive(Debug, Default)]
pub struct Str<'a>(pub Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StrVisitor;
        impl<'de> Visitor<'de> for StrVisitor {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Borrowed(text)))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(text.to_owned())))
            }
        }
        deserializer.deserialize_str(StrVisitor)
    }
}

/// A `chat.completion.chunk`, borrowed.
#[derive(Debug, serde::Deserialize)]
pub struct Chunk<'a> {
    #[serde(borrow)]
    pub id: Option<Str<'a>>,
    #[serde(borrow)]
    pub object: Option<Str<'a>>,
    pub created: Option<i64>,
    #[serde(borrow)]
    pub model: Option<Str<'a>>,
    #[serde(borrow)]
    pub system_fingerprint: Option<Str<'a>>,
    #[serde(borrow, default)]
    pub choices: Vec<Choice<'a>>,
    pub usage: Option<Usage>,
}

/// One entry of `choices`.
#[derive(Debug, serde::Deserialize)]
pub struct Choice<'a> {
    pub index: u32,
    #[serde(borrow)]
    pub delta: Option<ChunkDelta<'a>>,
    #[serde(borrow)]
    pub finish_reason: Option<Str<'a>>,
}

/// A choice's `delta`.
#[derive(Debug, serde::Deserialize)]
pub struct ChunkDelta<'a> {
    #[serde(borrow)]
    pub role: Option<Str<'a>>,
    #[serde(borrow)]
    pub content: Option<Str<'a>>,
    #[serde(borrow)]
    pub reasoning_content: Option<Str<'a>>,
    #[serde(borrow)]
    pub refusal: Option<Str<'a>>,
    #[serde(borrow)]
    pub tool_calls: Option<Vec<ToolCall<'a>>>,
}

/// One entry of `delta.tool_calls`.
#[derive(Debug, serde::Deserialize)]
pub struct ToolCall<'a> {
    pub index: u32,
    #[serde(borrow)]
    pub id: Option<Str<'a>>,
    #[serde(borrow)]
    pub function: Option<Function<'a>>,
}

/// A tool call's `function`.
#[derive(Debug, serde::Deserialize)]
pub struct Function<'a> {
    #[serde(borrow)]
    pub name: Option<Str<'a>>,
    #[serde(borrow)]
    pub arguments: Option<Str<'a>>,
}

/// The final usage report.
#[derive(Debug, serde::Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
}

/// Deserialises every payload (skipping `[DONE]`) and returns a number that depends on all of
/// them, so that nothing can be optimised away.
pub fn floor(payloads: &[&str]) -> usize {
    let mut seen = 0;
    for payload in payloads {
        if *payload == "[DONE]" {
            continue;
        }
        let chunk: Chunk<'_> = serde_json::from_str(payload).expect("a valid chunk");
        seen += chunk.choices.len() + std::hint::black_box(&chunk).created.is_some() as usize;
    }
    seen
}

/// Splits an SSE body into its `data:` payloads — done outside any timed loop. Handles the
/// line endings and multi-line events the fixture corpus uses.
pub fn split_payloads(body: &str) -> Vec<String> {
    let mut payloads = Vec::new();
    let mut data: Option<String> = None;
    for line in body.split_inclusive('\n') {
        let line = line.trim_end_matches(['\n', '\r']);
        if line.is_empty() {
            if let Some(payload) = data.take() {
                payloads.push(payload);
            }
            continue;
        }
        if let Some(value) = line.strip_prefix("data:") {
            let value = value.strip_prefix(' ').unwrap_or(value);
            match &mut data {
                Some(payload) => {
                    payload.push('\n');
                    payload.push_str(value);
                }
                None => data = Some(value.to_owned()),
            }
        }
    }
    payloads.extend(data);
    payloads
}
