//! A whole Responses request (`POST /v1/responses`), both ways.
//!
//! Tools are `{type: function, name, description, parameters, strict}`; other tool types
//! (`web_search`, `file_search`, `mcp`, `custom`…) are built-in tools of this format.
//! `instructions` is read as a leading system message; system messages are written as `input`
//! items. Reasoning is `reasoning: {effort, summary}`; the output format and verbosity are
//! `text: {format, verbosity}`; `safety_identifier` is [`Request::user_id`]. Responses cannot
//! carry stop sequences, `top_k`, a seed, penalties nor several answers (errors), and reads back
//! only `message`, `function_call` and `function_call_output` input items.

use serde_json::{json, Map, Value};

use super::carry::{refuse_settings, write_extra};
use super::fields::{put, tool_object, Fields};
use super::openai_shared::{
    decode_json_schema, decode_tool_choice, encode_response_format, encode_tool_choice,
};
use super::{
    budget_to_effort, malformed, responses_input, write_tools, NativeTool, Reasoning, Request,
    ResponseFormat,
};
use crate::wire::openai_responses as items;
use crate::wire::{WireError, WireFormat};

const FORMAT: WireFormat = WireFormat::OpenAiResponses;

/// Reads a Responses request body.
pub fn decode(body: &Value) -> Result<Request, WireError> {
    let mut fields = Fields::of(body, "the request", FORMAT)?;
    let instructions = fields.string("instructions")?;
    let mut request = Request::new(responses_input::decode(instructions, fields.take("input"))?);
    request.model = fields.string("model")?;
    for tool in fields.array("tools")? {
        let mut tool_fields = Fields::of(&tool, "a tool", FORMAT)?;
        if tool_fields.string("type")?.as_deref() == Some("function") {
            request
                .tools
                .push(tool_fields.tool_definition("parameters")?);
        } else {
            request.native_tools.push(NativeTool {
                format: FORMAT,
                tool,
            });
        }
    }
    request.tool_choice = fields
        .take("tool_choice")
        .map(|choice| decode_tool_choice(&choice, |choice| &choice["name"], FORMAT))
        .transpose()?;
    request.parallel_tool_calls = fields.bool("parallel_tool_calls")?;
    request.max_output_tokens = fields.u64("max_output_tokens")?;
    request.temperature = fields.f64("temperature")?;
    request.top_p = fields.f64("top_p")?;
    if let Some(mut reasoning) = fields.object("reasoning")? {
        request.reasoning = Some(Reasoning {
            effort: reasoning.string("effort")?,
            budget_tokens: None,
            summary: reasoning.string("summary")?,
        });
        reasoning.finish()?;
    }
    if let Some(mut text) = fields.object("text")? {
        request.verbosity = text.string("verbosity")?;
        if let Some(format) = text.object("format")? {
            request.response_format = Some(decode_format(format)?);
        }
        text.finish()?;
    }
    request.user_id = fields.string("safety_identifier")?;
    request.stream = fields.bool("stream")?;
    if request.stream == Some(true) {
        request.stream_usage = Some(true);
    }
    request.extra = fields.into_rest();
    request.extra_format = Some(FORMAT);
    Ok(request)
}

fn decode_format(mut format: Fields) -> Result<ResponseFormat, WireError> {
    let result = match format.string("type")?.as_deref() {
        Some("text") => ResponseFormat::Text,
        Some("json_object") => ResponseFormat::JsonObject,
        Some("json_schema") => decode_json_schema(&mut format)?,
        other => return Err(malformed(FORMAT, format!("the text format type {other:?}"))),
    };
    format.finish()?;
    Ok(result)
}

/// Writes a Responses request body.
pub fn encode(request: &Request) -> Result<Value, WireError> {
    refuse_settings(request, FORMAT)?;
    let mut body = Map::new();
    put(&mut body, "model", request.model.clone());
    body.insert(
        "input".into(),
        Value::Array(items::encode(&request.messages)?),
    );
    let tools: Vec<Value> = request
        .tools
        .iter()
        .map(|tool| {
            let mut object = tool_object(tool, "parameters");
            object.insert("type".into(), "function".into());
            // Both are required members of a Responses function tool (the SDK's
            // `FunctionToolParam`), nullable: `null` leaves them to the API's default, as
            // leaving them out of a chat tool does.
            for key in ["parameters", "strict"] {
                object.entry(key).or_insert(Value::Null);
            }
            Value::Object(object)
        })
        .collect();
    write_tools(&mut body, tools, request, FORMAT)?;
    put(
        &mut body,
        "tool_choice",
        request.tool_choice.as_ref().map(|choice| {
            encode_tool_choice(choice, |name| json!({"type": "function", "name": name}))
        }),
    );
    put(
        &mut body,
        "parallel_tool_calls",
        request.parallel_tool_calls,
    );
    put(&mut body, "max_output_tokens", request.max_output_tokens);
    put(&mut body, "temperature", request.temperature);
    put(&mut body, "top_p", request.top_p);
    if let Some(reasoning) = &request.reasoning {
        let mut object = Map::new();
        let budget_effort = reasoning
            .budget_tokens
            .map(|budget| budget_to_effort(budget).to_owned());
        put(
            &mut object,
            "effort",
            reasoning.effort.clone().or(budget_effort),
        );
        put(&mut object, "summary", reasoning.summary.clone());
        body.insert("reasoning".into(), object.into());
    }
    let mut text = Map::new();
    put(&mut text, "verbosity", request.verbosity.clone());
    put(
        &mut text,
        "format",
        request
            .response_format
            .as_ref()
            .map(|format| encode_response_format(format, false)),
    );
    if !text.is_empty() {
        body.insert("text".into(), text.into());
    }
    put(&mut body, "safety_identifier", request.user_id.clone());
    put(&mut body, "stream", request.stream);
    write_extra(&mut body, request, FORMAT)?;
    Ok(Value::Object(body))
}
