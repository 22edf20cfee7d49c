//! A whole Chat Completions request (`POST /v1/chat/completions`), both ways.
//!
//! Tools are `{type: function, function: {name, description, parameters, strict}}`; other tool
//! types (`custom`) are built-in tools of this format. `max_tokens` (deprecated) is read like
//! `max_completion_tokens`, which is what is written; `stop` may be a string. `response_format`
//! is `text`, `json_object` or `json_schema`. `seed`, `presence_penalty`, `frequency_penalty`,
//! `n` and `safety_identifier` are typed (other formats have them). Chat Completions cannot
//! carry `top_k`, a reasoning summary, nor another format's built-in tools (errors).

use serde_json::{json, Map, Value};

use super::carry::{refuse_settings, write_extra};
use super::fields::{put, tool_object, Fields};
use super::openai_shared::{
    decode_json_schema, decode_tool_choice, encode_response_format, encode_tool_choice,
};
use super::{malformed, unsupported, write_tools, NativeTool, Reasoning, Request, ResponseFormat};
use crate::wire::openai_chat as messages;
use crate::wire::{WireError, WireFormat};

const FORMAT: WireFormat = WireFormat::OpenAiChat;

/// Reads a Chat Completions request body.
pub fn decode(body: &Value) -> Result<Request, WireError> {
    let mut fields = Fields::of(body, "the request", FORMAT)?;
    let wire_messages = fields.array("messages")?;
    let mut request = Request::new(messages::decode(&wire_messages)?);
    request.model = fields.string("model")?;
    for tool in fields.array("tools")? {
        let mut tool_fields = Fields::of(&tool, "a tool", FORMAT)?;
        match (
            tool_fields.string("type")?.as_deref(),
            tool_fields.object("function")?,
        ) {
            (Some("function"), Some(function)) => {
                tool_fields.finish()?;
                request.tools.push(function.tool_definition("parameters")?);
            }
            _ => request.native_tools.push(NativeTool {
                format: FORMAT,
                tool,
            }),
        }
    }
    request.tool_choice = fields
        .take("tool_choice")
        .map(|choice| decode_tool_choice(&choice, |choice| &choice["function"]["name"], FORMAT))
        .transpose()?;
    request.parallel_tool_calls = fields.bool("parallel_tool_calls")?;
    let max_completion_tokens = fields.u64("max_completion_tokens")?;
    request.max_output_tokens = max_completion_tokens.or(fields.u64("max_tokens")?);
    request.stop = fields.strings("stop")?;
    request.temperature = fields.f64("temperature")?;
    request.top_p = fields.f64("top_p")?;
    request.reasoning = fields.string("reasoning_effort")?.map(|effort| Reasoning {
        effort: Some(effort),
        ..Reasoning::default()
    });
    request.response_format = fields
        .object("response_format")?
        .map(decode_response_format)
        .transpose()?;
    request.verbosity = fields.string("verbosity")?;
    request.seed = fields.i64("seed")?;
    request.presence_penalty = fields.f64("presence_penalty")?;
    request.frequency_penalty = fields.f64("frequency_penalty")?;
    request.choices = fields.u64("n")?;
    request.user_id = fields.string("safety_identifier")?;
    request.stream = fields.bool("stream")?;
    if let Some(mut options) = fields.object("stream_options")? {
        request.stream_usage = options.bool("include_usage")?;
        let rest = options.into_rest();
        if !rest.is_empty() {
            request.extra.insert("stream_options".into(), rest.into());
        }
    }
    request.extra.extend(fields.into_rest());
    request.extra_format = Some(FORMAT);
    Ok(request)
}

fn decode_response_format(mut format: Fields) -> Result<ResponseFormat, WireError> {
    let result = match format.string("type")?.as_deref() {
        Some("text") => ResponseFormat::Text,
        Some("json_object") => ResponseFormat::JsonObject,
        Some("json_schema") => {
            let mut schema = format.object("json_schema")?.ok_or_else(|| {
                malformed(FORMAT, "a json_schema response_format has no `json_schema`")
            })?;
            let result = decode_json_schema(&mut schema)?;
            schema.finish()?;
            result
        }
        other => {
            return Err(unsupported(
                FORMAT,
                format!("the response_format type {other:?} (not translated)"),
            ))
        }
    };
    format.finish()?;
    Ok(result)
}

/// Writes a Chat Completions request body.
pub fn encode(request: &Request) -> Result<Value, WireError> {
    refuse_settings(request, FORMAT)?;
    let mut body = Map::new();
    put(&mut body, "model", request.model.clone());
    body.insert(
        "messages".into(),
        Value::Array(messages::encode(&request.messages)?),
    );
    let tools: Vec<Value> = request
        .tools
        .iter()
        .map(|tool| json!({"type": "function", "function": tool_object(tool, "parameters")}))
        .collect();
    write_tools(&mut body, tools, request, FORMAT)?;
    put(
        &mut body,
        "tool_choice",
        request.tool_choice.as_ref().map(|choice| {
            encode_tool_choice(
                choice,
                |name| json!({"type": "function", "function": {"name": name}}),
            )
        }),
    );
    put(
        &mut body,
        "parallel_tool_calls",
        request.parallel_tool_calls,
    );
    put(
        &mut body,
        "max_completion_tokens",
        request.max_output_tokens,
    );
    if !request.stop.is_empty() {
        body.insert("stop".into(), request.stop.clone().into());
    }
    put(&mut body, "temperature", request.temperature);
    put(&mut body, "top_p", request.top_p);
    if let Some(reasoning) = &request.reasoning {
        body.insert(
            "reasoning_effort".into(),
            reasoning.effort_or_converted().into(),
        );
    }
    put(
        &mut body,
        "response_format",
        request
            .response_format
            .as_ref()
            .map(|format| encode_response_format(format, true)),
    );
    put(&mut body, "verbosity", request.verbosity.clone());
    put(&mut body, "seed", request.seed);
    put(&mut body, "presence_penalty", request.presence_penalty);
    put(&mut body, "frequency_penalty", request.frequency_penalty);
    put(&mut body, "n", request.choices);
    put(&mut body, "safety_identifier", request.user_id.clone());
    put(&mut body, "stream", request.stream);
    if let Some(include_usage) = request.stream_usage {
        body.insert(
            "stream_options".into(),
            json!({"include_usage": include_usage}),
        );
    }
    write_extra(&mut body, request, FORMAT)?;
    Ok(Value::Object(body))
}
