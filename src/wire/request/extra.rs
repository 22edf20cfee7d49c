//! A request's extra fields (those no typed field holds) on their way out: the format they came
//! in writes them as they are; another format writes those it has the same field for and
//! refuses the rest, which [`Request::drop_unsupported_extras`] removes for a gateway that
//! chooses to drop them.

use serde_json::{Map, Value};

use super::{unsupported, Request};
use crate::wire::{WireError, WireFormat};

/// The fields Chat Completions and Responses both take, spelled and meant alike (their SDKs'
/// `CompletionCreateParams` and `ResponseCreateParams`); `a.b` is member `b` of field `a`.
const OPENAI_SHARED: &[&str] = &[
    "metadata",
    "prompt_cache_key",
    "prompt_cache_retention",
    "safety_identifier",
    "service_tier",
    "store",
    "stream_options.include_obfuscation",
    "user",
];

/// The fields that hold settings rather than being one (a typed setting may be written into
/// them too): what cannot be carried is named member by member.
const CONTAINERS: &[&str] = &["generationConfig", "output_config", "stream_options"];

/// Whether a request in `target` takes the field at `path` of one read from `source`.
fn carried(source: WireFormat, target: WireFormat, path: &str) -> bool {
    let openai = |format| matches!(format, WireFormat::OpenAiChat | WireFormat::OpenAiResponses);
    source == target || (openai(source) && openai(target) && OPENAI_SHARED.contains(&path))
}

/// `extra` split into what `target` carries and what it does not (an object field member by
/// member when some of its members are carried).
fn split(
    extra: &Map<String, Value>,
    source: Option<WireFormat>,
    target: WireFormat,
) -> (Map<String, Value>, Map<String, Value>) {
    let Some(source) = source else {
        // Fields a caller added to a request built by hand are the caller's.
        return (extra.clone(), Map::new());
    };
    let (mut kept, mut refused) = (Map::new(), Map::new());
    for (key, value) in extra {
        if carried(source, target, key) {
            kept.insert(key.clone(), value.clone());
            continue;
        }
        let Value::Object(members) = value else {
            refused.insert(key.clone(), value.clone());
            continue;
        };
        let (mut kept_members, mut refused_members) = (Map::new(), Map::new());
        for (member, value) in members {
            let side = if carried(source, target, &format!("{key}.{member}")) {
                &mut kept_members
            } else {
                &mut refused_members
            };
            side.insert(member.clone(), value.clone());
        }
        if !kept_members.is_empty() {
            kept.insert(key.clone(), kept_members.into());
        }
        if !refused_members.is_empty() || members.is_empty() {
            refused.insert(key.clone(), refused_members.into());
        }
    }
    (kept, refused)
}

/// How an error names the fields of `refused`: a container's members, other fields whole.
fn names(refused: &Map<String, Value>) -> Vec<String> {
    let mut names = Vec::new();
    for (key, value) in refused {
        match value {
            Value::Object(members) if CONTAINERS.contains(&key.as_str()) && !members.is_empty() => {
                names.extend(members.keys().map(|member| format!("`{key}.{member}`")));
            }
            _ => names.push(format!("`{key}`")),
        }
    }
    names
}

/// Writes the request's extra fields that `format` carries on `body`, merging an object into
/// the one the encoder wrote (Gemini's `generationConfig`, Chat's `stream_options`; typed
/// fields win); an error names those it does not carry.
pub(super) fn write_extra(
    body: &mut Map<String, Value>,
    request: &Request,
    format: WireFormat,
) -> Result<(), WireError> {
    let (kept, refused) = split(&request.extra, request.extra_format, format);
    if let Some(source) = request.extra_format.filter(|_| !refused.is_empty()) {
        let names = names(&refused);
        let noun = if names.len() == 1 { "field" } else { "fields" };
        return Err(unsupported(
            format,
            format!(
                "the {source} {noun} {} (Request::drop_unsupported_extras drops them)",
                names.join(", ")
            ),
        ));
    }
    for (key, value) in kept {
        match (body.get_mut(&key), value) {
            (Some(Value::Object(written)), Value::Object(more)) => {
                for (inner, value) in more {
                    written.entry(inner).or_insert(value);
                }
            }
            (Some(_), _) => {}
            (None, value) => {
                body.insert(key, value);
            }
        }
    }
    Ok(())
}

impl Request {
    /// Removes the extra fields `target` cannot carry and returns them (LiteLLM's
    /// `drop_params`): for a gateway that sends on what it can and logs or ignores the rest.
    /// Without it, encoding a request whose extras `target` cannot carry is a
    /// [`WireError::UnsupportedSetting`] naming them. Typed settings are left alone.
    ///
    /// ```
    /// use deltafold::wire::request::{openai_chat, openai_responses};
    /// use deltafold::wire::WireFormat;
    ///
    /// let mut request = openai_chat::decode(&serde_json::json!({
    ///     "model": "gpt-4.1", "store": true, "n": 2,
    ///     "messages": [{"role": "user", "content": "Hi"}],
    /// }))?;
    /// assert!(openai_responses::encode(&request).is_err()); // `n` has no home there
    /// let dropped = request.drop_unsupported_extras(WireFormat::OpenAiResponses);
    /// assert_eq!(dropped, serde_json::json!({"n": 2}).as_object().unwrap().clone());
    /// assert_eq!(openai_responses::encode(&request)?["store"], true); // a field both take
    /// # Ok::<(), deltafold::wire::WireError>(())
    /// ```
    pub fn drop_unsupported_extras(&mut self, target: WireFormat) -> Map<String, Value> {
        let (kept, refused) = split(&self.extra, self.extra_format, target);
        self.extra = kept;
        refused
    }
}
