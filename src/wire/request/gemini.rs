//! A whole Gemini `generateContent` / `streamGenerateContent` request body, both ways.
//!
//! Functions are the `functionDeclarations` of one `tools` entry (the schema read from
//! `parametersJsonSchema`, or from `parameters`, an OpenAPI `Schema` read as JSON Schema; written
//! as `parametersJsonSchema`, which takes any JSON Schema); other `tools` entries (`googleSearch`, `codeExecution`…) are built-in tools of
//! this format. `toolConfig.functionCallingConfig` holds the tool choice (`ANY` with one allowed
//! name is that tool). The settings are in `generationConfig`: `maxOutputTokens`,
//! `stopSequences`, `temperature`, `topP`, `topK`, `seed`, `presencePenalty`,
//! `frequencyPenalty`, `candidateCount`, `thinkingConfig` (`thinkingBudget`, `-1` for
//! a dynamic budget; `thinkingLevel`; `includeThoughts` is the summary `auto`), and
//! `responseMimeType` with `responseJsonSchema` (or `responseSchema`, read as JSON Schema) for JSON output; its other
//! fields are kept in `extra.generationConfig`. Field names may be snake_case and counts floats
//! with no fraction, as google-genai sends them. The model and streaming are in the URL ([`path`],
//! [`decode_with_path`]). Gemini cannot carry a schema's description, strict tool schemas, turning off
//! parallel calls, nor verbosity (errors); a schema's name is left out.

use serde_json::{json, Map, Value};

use super::carry::{refuse_settings, write_extra};
use super::fields::{count, put, tool_object, Fields};
use super::gemini_schema::to_json_schema;
use super::{
    malformed, refuse, unsupported, write_tools, NativeTool, Reasoning, Request, ResponseFormat,
    ToolChoice, DEFAULT_SCHEMA_NAME,
};
use crate::wire::gemini as contents;
use crate::wire::{WireError, WireFormat};

const FORMAT: WireFormat = WireFormat::Gemini;

/// The `thinkingLevel` values, lowercase as efforts.
const LEVELS: &[&str] = &["minimal", "low", "medium", "high", "xhigh"];

/// The URL path of the request: `models/{model}:streamGenerateContent?alt=sse` when streaming,
/// `models/{model}:generateContent` otherwise.
pub fn path(request: &Request) -> Result<String, WireError> {
    let model = request
        .model
        .as_deref()
        .ok_or_else(|| unsupported(FORMAT, "a request without a model (it names the URL)"))?;
    let model = model.strip_prefix("models/").unwrap_or(model);
    Ok(match request.stream {
        Some(true) => format!("models/{model}:streamGenerateContent?alt=sse"),
        _ => format!("models/{model}:generateContent"),
    })
}

/// Reads a request from its URL path and body, as a gateway that serves Gemini's API receives
/// it: the model and streaming from the path (`/v1beta/models/{model}:streamGenerateContent?alt=sse`,
/// `…/models/{model}:generateContent`, after any prefix: Vertex AI's
/// `…/publishers/google/models/{model}:…` too), the rest from the body ([`decode`]). Another
/// method or resource is a [`WireError::MalformedRequest`]; a stream without `alt=sse` (a JSON
/// array) is a [`WireError::UnsupportedSetting`], deltafold's Gemini answers being events.
///
/// ```
/// use deltafold::wire::request::gemini;
///
/// let body = serde_json::json!({"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]});
/// let request = gemini::decode_with_path(
///     "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=k",
///     &body,
/// )?;
/// assert_eq!(request.model.as_deref(), Some("gemini-2.5-flash"));
/// assert_eq!(request.stream, Some(true));
/// assert_eq!(gemini::path(&request)?, "models/gemini-2.5-flash:streamGenerateContent?alt=sse");
/// # Ok::<(), deltafold::wire::WireError>(())
/// ```
pub fn decode_with_path(path: &str, body: &Value) -> Result<Request, WireError> {
    let (route, query) = path.split_once('?').unwrap_or((path, ""));
    let wrong = || {
        malformed(
            FORMAT,
            format!(
                "the URL path {path:?} is not …/models/{{model}}:generateContent or \
                 …:streamGenerateContent"
            ),
        )
    };
    let (resource, method) = route.rsplit_once(':').ok_or_else(wrong)?;
    let (collection, model) = resource.rsplit_once('/').ok_or_else(wrong)?;
    if !(collection == "models" || collection.ends_with("/models")) || model.is_empty() {
        return Err(wrong());
    }
    let stream = match method {
        "generateContent" => false,
        "streamGenerateContent" if query.split('&').any(|pair| pair == "alt=sse") => true,
        "streamGenerateContent" => {
            return Err(unsupported(
                FORMAT,
                "a stream without `alt=sse` (a JSON array; deltafold writes events)",
            ))
        }
        _ => return Err(wrong()),
    };
    let mut request = decode(body)?;
    request.model = Some(model.to_owned());
    request.stream = Some(stream);
    Ok(request)
}

/// Reads a `generateContent` request body (the model and streaming, named by the URL, are
/// left `None`; [`decode_with_path`] reads them too).
pub fn decode(body: &Value) -> Result<Request, WireError> {
    let mut request = Request::new(contents::decode(body)?);
    let mut fields = Fields::of(body, "the request", FORMAT)?;
    fields.take("systemInstruction");
    fields.take("contents");
    for tool in fields.array("tools")? {
        let mut tool_fields = Fields::of(&tool, "a tool", FORMAT)?;
        let declarations = tool_fields.array("functionDeclarations")?;
        for declaration in declarations {
            let mut declaration = Fields::of(&declaration, "a function declaration", FORMAT)?;
            let parameters =
                match (
                    declaration.take("parametersJsonSchema"),
                    declaration.take("parameters"),
                ) {
                    (Some(_), Some(_)) => return Err(malformed(
                        FORMAT,
                        "a function declaration has both `parameters` and `parametersJsonSchema`",
                    )),
                    (Some(schema), None) => Some(schema),
                    (None, schema) => schema.as_ref().map(to_json_schema).transpose()?,
                };
            request
                .tools
                .push(declaration.tool_with_parameters(parameters)?);
        }
        let rest = tool_fields.into_rest();
        if !rest.is_empty() {
            request.native_tools.push(NativeTool {
                format: FORMAT,
                tool: rest.into(),
            });
        }
    }
    if let Some(mut config) = fields.object("toolConfig")? {
        if let Some(mut calling) = config.object("functionCallingConfig")? {
            let names = calling.strings("allowedFunctionNames")?;
            request.tool_choice = match (calling.string("mode")?.as_deref(), names.as_slice()) {
                (None | Some("AUTO"), []) => Some(ToolChoice::Auto),
                (Some("NONE"), []) => Some(ToolChoice::None),
                (Some("ANY"), []) => Some(ToolChoice::Required),
                (Some("ANY"), [name]) => Some(ToolChoice::Tool(name.clone())),
                (mode, names) => {
                    return Err(unsupported(
                        FORMAT,
                        format!("the function calling mode {mode:?} with the names {names:?}"),
                    ))
                }
            };
            calling.finish()?;
        }
        config.finish()?;
    }
    if let Some(mut config) = fields.object("generationConfig")? {
        request.max_output_tokens = config.u64("maxOutputTokens")?;
        request.stop = config.strings("stopSequences")?;
        request.temperature = config.f64("temperature")?;
        request.top_p = config.f64("topP")?;
        request.top_k = config.u64("topK")?;
        request.seed = config.i64("seed")?;
        request.presence_penalty = config.f64("presencePenalty")?;
        request.frequency_penalty = config.f64("frequencyPenalty")?;
        request.choices = config.u64("candidateCount")?;
        if let Some(thinking) = config.object("thinkingConfig")? {
            request.reasoning = Some(decode_thinking(thinking)?);
        }
        request.response_format = decode_output(&mut config)?;
        let rest = config.into_rest();
        if !rest.is_empty() {
            request.extra.insert("generationConfig".into(), rest.into());
        }
    }
    request.extra.extend(fields.into_rest());
    request.extra_format = Some(FORMAT);
    Ok(request)
}

fn decode_thinking(mut thinking: Fields) -> Result<Reasoning, WireError> {
    let budget = match thinking.take("thinkingBudget") {
        None => None,
        Some(value) if value.as_f64() == Some(-1.0) => None,
        Some(value) => Some(count(&value, FORMAT).ok_or_else(|| {
            malformed(
                FORMAT,
                format!("the thinking budget {value} is not a count"),
            )
        })?),
    };
    let reasoning = Reasoning {
        effort: thinking
            .string("thinkingLevel")?
            .map(|level| level.to_ascii_lowercase()),
        budget_tokens: budget,
        summary: thinking
            .bool("includeThoughts")?
            .filter(|include| *include)
            .map(|_| "auto".to_owned()),
    };
    thinking.finish()?;
    Ok(reasoning)
}

fn decode_output(config: &mut Fields) -> Result<Option<ResponseFormat>, WireError> {
    let schema = match (
        config.take("responseJsonSchema"),
        config.take("responseSchema"),
    ) {
        (Some(_), Some(_)) => {
            return Err(malformed(
                FORMAT,
                "the generationConfig has both `responseSchema` and `responseJsonSchema`",
            ))
        }
        (Some(schema), None) => Some(schema),
        (None, schema) => schema.as_ref().map(to_json_schema).transpose()?,
    };
    Ok(
        match (config.string("responseMimeType")?.as_deref(), schema) {
            (None, None) => None,
            (Some("text/plain"), None) => Some(ResponseFormat::Text),
            (Some("application/json"), None) => Some(ResponseFormat::JsonObject),
            (Some("application/json"), Some(schema)) => Some(ResponseFormat::JsonSchema {
                name: DEFAULT_SCHEMA_NAME.into(),
                description: None,
                schema,
                strict: None,
            }),
            (mime, _) => {
                return Err(unsupported(
                    FORMAT,
                    format!("the response type {mime:?} (not translated)"),
                ))
            }
        },
    )
}

/// Writes a `generateContent` request body.
pub fn encode(request: &Request) -> Result<Value, WireError> {
    refuse_settings(request, FORMAT)?;
    if request.parallel_tool_calls == Some(false) {
        return Err(unsupported(FORMAT, "turning off parallel tool calls"));
    }
    let mut body = Value::Object(Map::new());
    contents::encode(&request.messages)?.write_into(&mut body);
    let Value::Object(mut body) = body else {
        unreachable!("the body is an object")
    };
    let mut declarations = Vec::new();
    for tool in &request.tools {
        if tool.strict == Some(true) {
            return Err(unsupported(
                FORMAT,
                format!("the strict schema of {}", tool.name),
            ));
        }
        let mut declaration = tool_object(tool, "parametersJsonSchema");
        declaration.remove("strict");
        declarations.push(Value::Object(declaration));
    }
    let mut tools = Vec::new();
    if !declarations.is_empty() {
        tools.push(json!({"functionDeclarations": declarations}));
    }
    write_tools(&mut body, tools, request, FORMAT)?;
    if let Some(choice) = &request.tool_choice {
        let calling = match choice {
            ToolChoice::Auto => json!({"mode": "AUTO"}),
            ToolChoice::None => json!({"mode": "NONE"}),
            ToolChoice::Required => json!({"mode": "ANY"}),
            ToolChoice::Tool(name) => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
        };
        body.insert(
            "toolConfig".into(),
            json!({"functionCallingConfig": calling}),
        );
    }
    let mut config = Map::new();
    put(&mut config, "maxOutputTokens", request.max_output_tokens);
    if !request.stop.is_empty() {
        config.insert("stopSequences".into(), request.stop.clone().into());
    }
    put(&mut config, "temperature", request.temperature);
    put(&mut config, "topP", request.top_p);
    put(&mut config, "topK", request.top_k);
    if let Some(seed) = request.seed {
        if i32::try_from(seed).is_err() {
            return Err(unsupported(
                FORMAT,
                format!("the seed {seed} (a 32-bit integer)"),
            ));
        }
        config.insert("seed".into(), seed.into());
    }
    put(&mut config, "presencePenalty", request.presence_penalty);
    put(&mut config, "frequencyPenalty", request.frequency_penalty);
    put(&mut config, "candidateCount", request.choices);
    if let Some(reasoning) = &request.reasoning {
        config.insert("thinkingConfig".into(), encode_thinking(reasoning)?.into());
    }
    match &request.response_format {
        None => {}
        Some(ResponseFormat::Text) => {
            config.insert("responseMimeType".into(), "text/plain".into());
        }
        Some(ResponseFormat::JsonObject) => {
            config.insert("responseMimeType".into(), "application/json".into());
        }
        Some(ResponseFormat::JsonSchema {
            description,
            schema,
            ..
        }) => {
            refuse(description, FORMAT, "the output schema's description")?;
            config.insert("responseMimeType".into(), "application/json".into());
            config.insert("responseJsonSchema".into(), schema.clone());
        }
    }
    if !config.is_empty() {
        body.insert("generationConfig".into(), config.into());
    }
    write_extra(&mut body, request, FORMAT)?;
    Ok(Value::Object(body))
}

fn encode_thinking(reasoning: &Reasoning) -> Result<Map<String, Value>, WireError> {
    let mut thinking = Map::new();
    match (reasoning.budget_tokens, reasoning.effort.as_deref()) {
        (Some(budget), _) => {
            thinking.insert("thinkingBudget".into(), budget.into());
        }
        (None, Some("none")) => {
            thinking.insert("thinkingBudget".into(), 0.into());
        }
        (None, Some(effort)) if LEVELS.contains(&effort) => {
            thinking.insert("thinkingLevel".into(), effort.to_ascii_uppercase().into());
        }
        (None, Some(effort)) => {
            return Err(unsupported(
                FORMAT,
                format!("the reasoning effort {effort:?}"),
            ))
        }
        (None, None) => {
            thinking.insert("thinkingBudget".into(), (-1).into());
        }
    }
    if reasoning.summary.is_some() {
        thinking.insert("includeThoughts".into(), true.into());
    }
    Ok(thinking)
}
