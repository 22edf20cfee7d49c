//! What a target format carries of a request: the settings some formats have no field for,
//! and the extra fields (those no typed field holds) — the format they came in writes them as
//! they are, another writes those it has the same field for. The encoders refuse the rest,
//! naming it; [`Request::drop_unsupported`] removes it for a gateway that would rather send
//! what it can.

use serde_json::{Map, Value};

use super::{unsupported, NativeTool, Request};
use crate::wire::{WireError, WireFormat};

use WireFormat::{Anthropic, Gemini, OpenAiChat, OpenAiResponses};

/// A setting only some formats have a field for.
struct Setting {
    /// Its [`Request`] field.
    name: &'static str,
    /// How an error names it.
    label: &'static str,
    /// The formats that carry it.
    formats: &'static [WireFormat],
    /// Whether the request has it.
    present: fn(&Request) -> bool,
    /// Removes it from the request.
    take: fn(&mut Request) -> Value,
}

const SETTINGS: &[Setting] = &[
    Setting {
        name: "stop",
        label: "stop sequences",
        formats: &[OpenAiChat, Anthropic, Gemini],
        present: |request| !request.stop.is_empty(),
        take: |request| std::mem::take(&mut request.stop).into(),
    },
    Setting {
        name: "top_k",
        label: "top_k",
        formats: &[Anthropic, Gemini],
        present: |request| request.top_k.is_some(),
        take: |request| request.top_k.take().into(),
    },
    Setting {
        name: "seed",
        label: "a seed",
        formats: &[OpenAiChat, Gemini],
        present: |request| request.seed.is_some(),
        take: |request| request.seed.take().into(),
    },
    Setting {
        name: "presence_penalty",
        label: "a presence penalty",
        formats: &[OpenAiChat, Gemini],
        present: |request| request.presence_penalty.is_some(),
        take: |request| request.presence_penalty.take().into(),
    },
    Setting {
        name: "frequency_penalty",
        label: "a frequency penalty",
        formats: &[OpenAiChat, Gemini],
        present: |request| request.frequency_penalty.is_some(),
        take: |request| request.frequency_penalty.take().into(),
    },
    Setting {
        name: "choices",
        label: "several answers",
        formats: &[OpenAiChat, Gemini],
        present: |request| request.choices.is_some_and(|choices| choices != 1),
        take: |request| request.choices.take().into(),
    },
    Setting {
        name: "user_id",
        label: "an end user's id",
        formats: &[OpenAiChat, OpenAiResponses, Anthropic],
        present: |request| request.user_id.is_some(),
        take: |request| request.user_id.take().into(),
    },
    Setting {
        name: "verbosity",
        label: "verbosity",
        formats: &[OpenAiChat, OpenAiResponses],
        present: |request| request.verbosity.is_some(),
        take: |request| request.verbosity.take().into(),
    },
    Setting {
        name: "reasoning.summary",
        label: "a reasoning summary",
        formats: &[Anthropic, OpenAiResponses, Gemini],
        present: |request| {
            request
                .reasoning
                .as_ref()
                .is_some_and(|reasoning| reasoning.summary.is_some())
        },
        take: |request| {
            request
                .reasoning
                .as_mut()
                .and_then(|reasoning| reasoning.summary.take())
                .into()
        },
    },
];

/// Errors on the first setting of the request `format` has no field for.
pub(super) fn refuse_settings(request: &Request, format: WireFormat) -> Result<(), WireError> {
    match SETTINGS
        .iter()
        .find(|setting| (setting.present)(request) && !setting.formats.contains(&format))
    {
        Some(setting) => Err(unsupported(format, setting.label)),
        None => Ok(()),
    }
}

/// The fields Chat Completions and Responses both take, spelled and meant alike (their SDKs'
/// `CompletionCreateParams` and `ResponseCreateParams`); `a.b` is member `b` of field `a`.
const OPENAI_SHARED: &[&str] = &[
    "metadata",
    "prompt_cache_key",
    "prompt_cache_retention",
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

/// Whether `format` writes the extra fields of a request's function tools: only the format
/// they came in (no other has a field of the same meaning), or any for a request built by hand.
fn carries_tool_extra(request: &Request, format: WireFormat) -> bool {
    request.extra_format.is_none_or(|source| source == format)
}

/// Errors on the first function tool with extra fields `format` does not carry.
pub(super) fn refuse_tool_extra(request: &Request, format: WireFormat) -> Result<(), WireError> {
    if carries_tool_extra(request, format) {
        return Ok(());
    }
    match (
        request.extra_format,
        request.tools.iter().find(|tool| !tool.extra.is_empty()),
    ) {
        (Some(source), Some(tool)) => {
            let mut names: Vec<String> = tool.extra.keys().map(|key| format!("`{key}`")).collect();
            names.sort_unstable();
            Err(unsupported(
                format,
                format!(
                    "the {source} tool {} of `{}` (not translated; Request::drop_unsupported \
                     drops it)",
                    names.join(", "),
                    tool.name
                ),
            ))
        }
        _ => Ok(()),
    }
}

/// How an error names the fields of `refused`: a container's members, other fields whole;
/// sorted, so the text does not depend on key order.
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
    names.sort_unstable();
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
                "the {source} {noun} {} (not translated; Request::drop_unsupported drops it)",
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

/// What [`Request::drop_unsupported`] removed.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Dropped {
    /// The settings, by their [`Request`] field name (`top_k`, `stop`, `reasoning.summary`…).
    pub settings: Map<String, Value>,
    /// Another format's built-in tools.
    pub native_tools: Vec<NativeTool>,
    /// The extra fields, as [`Request::extra`] held them.
    pub extra: Map<String, Value>,
    /// The extra fields of function tools ([`ToolDefinition::extra`](super::ToolDefinition::extra)), by tool name.
    pub tool_extra: Map<String, Value>,
}

impl Dropped {
    /// Whether nothing was removed.
    pub fn is_empty(&self) -> bool {
        self.settings.is_empty()
            && self.native_tools.is_empty()
            && self.extra.is_empty()
            && self.tool_extra.is_empty()
    }
}

impl Request {
    /// Removes and returns what `target` has no field for (LiteLLM's `drop_params`): the
    /// settings only other formats carry (stop sequences for Responses, `top_k` for OpenAI, a
    /// seed or penalties for Anthropic and Responses, verbosity, a reasoning summary for Chat
    /// Completions), another format's built-in tools, the extra fields `target` does not
    /// share with their format, and the function tools' extra fields (Anthropic's
    /// `cache_control`…) in another format. For a gateway that sends on what it can and logs the rest;
    /// without it, encoding is a [`WireError::UnsupportedSetting`] naming the first. What
    /// cannot go without changing the request's meaning is left, and still an error: a
    /// temperature above Anthropic's 1, no `max_tokens` for Anthropic, strict tool schemas or
    /// parallel calls turned off for Gemini, JSON without a schema for Anthropic, a schema's
    /// description.
    ///
    /// ```
    /// use deltafold::wire::request::{openai_chat, openai_responses};
    /// use deltafold::wire::WireFormat;
    ///
    /// let mut request = openai_chat::decode(&serde_json::json!({
    ///     "model": "gpt-4.1", "store": true, "logprobs": true, "stop": ["###"],
    ///     "messages": [{"role": "user", "content": "Hi"}],
    /// }))?;
    /// assert!(openai_responses::encode(&request).is_err()); // no stop sequences, no `logprobs`
    /// let dropped = request.drop_unsupported(WireFormat::OpenAiResponses);
    /// assert_eq!(dropped.settings["stop"], serde_json::json!(["###"]));
    /// assert_eq!(dropped.extra["logprobs"], true);
    /// assert_eq!(openai_responses::encode(&request)?["store"], true); // a field both take
    /// # Ok::<(), deltafold::wire::WireError>(())
    /// ```
    pub fn drop_unsupported(&mut self, target: WireFormat) -> Dropped {
        let mut dropped = Dropped::default();
        for setting in SETTINGS {
            if (setting.present)(self) && !setting.formats.contains(&target) {
                dropped
                    .settings
                    .insert(setting.name.into(), (setting.take)(self));
            }
        }
        let (native_tools, kept) = std::mem::take(&mut self.native_tools)
            .into_iter()
            .partition(|tool| tool.format != target);
        self.native_tools = kept;
        dropped.native_tools = native_tools;
        let (kept, refused) = split(&self.extra, self.extra_format, target);
        self.extra = kept;
        dropped.extra = refused;
        if !carries_tool_extra(self, target) {
            for tool in &mut self.tools {
                if !tool.extra.is_empty() {
                    let extra = std::mem::take(&mut tool.extra);
                    dropped.tool_extra.insert(tool.name.clone(), extra.into());
                }
            }
        }
        dropped
    }
}
