//! A whole Responses request (`POST /v1/responses`), both ways.
//!
//! Tools are `{type: function, name, description, parameters, strict}`; other tool types
//! (`web_search`, `file_search`, `mcp`, `custom`…) are built-in tools of this format.
//! `instructions` is read as a leading system message; system messages are written as `input`
//! items. Reasoning is `reasoning: {effort, summary}`; the output format and verbosity are
//! `text: {format, verbosity}`. Responses cannot carry stop sequences nor `top_k` (errors), and
//! reads back only `message`, `function_call` and `function_call_output` input items.

use serde_json::{json, Map, Value};

use super::fields::{put, tool_object, Fields};
use super::{
    budget_to_effort, check_native_tools, malformed, refuse, responses_input, unsupported,
    write_extra, NativeTool, Reasoning, Request, ResponseFormat, ToolChoice,
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
                .push(tool_fields.tool_definition(&["parameters"])?);
        } else {
            request.native_tools.push(NativeTool {
                format: FORMAT,
                tool,
            });
        }
    }
    request.tool_choice = fields
        .take("tool_choice")
        .map(
            |choice| match (choice.as_str(), &choice["type"], &choice["name"]) {
                (Some("auto"), ..) => Ok(ToolChoice::Auto),
                (Some("none"), ..) => Ok(ToolChoice::None),
                (Some("required"), ..) => Ok(ToolChoice::Required),
                (None, Value::String(kind), Value::String(name)) if kind == "function" => {
                    Ok(ToolChoice::Tool(name.clone()))
                }
                _ => Err(unsupported(
                    FORMAT,
                    format!("the tool_choice {choice} (not translated)"),
                )),
            },
        )
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
    request.stream = fields.bool("stream")?;
    if request.stream == Some(true) {
        request.stream_usage = Some(true);
    }
    request.extra = fields.into_rest();
    Ok(request)
}

fn decode_format(mut format: Fields) -> Result<ResponseFormat, WireError> {
    let result = match format.string("type")?.as_deref() {
        Some("text") => ResponseFormat::Text,
        Some("json_object") => ResponseFormat::JsonObject,
        Some("json_schema") => ResponseFormat::JsonSchema {
            name: format.string("name")?.unwrap_or_default(),
            description: format.string("description")?,
            schema: format.take("schema").unwrap_or_else(|| json!({})),
            strict: format.bool("strict")?,
        },
        other => return Err(malformed(FORMAT, format!("the text format type {other:?}"))),
    };
    format.finish()?;
    Ok(result)
}

/// Writes a Responses request body.
pub fn encode(request: &Request) -> Result<Value, WireError> {
    if !request.stop.is_empty() {
        return Err(unsupported(FORMAT, "stop sequences"));
    }
    refuse(&request.top_k, FORMAT, "top_k")?;
    let mut body = Map::new();
    put(&mut body, "model", request.model.clone());
    body.insert(
        "input".into(),
        Value::Array(items::encode(&request.messages)?),
    );
    let mut tools: Vec<Value> = request
        .tools
        .iter()
        .map(|tool| {
            let mut object = tool_object(tool, "parameters");
            object.insert("type".into(), "function".into());
            Value::Object(object)
        })
        .collect();
    tools.extend(check_native_tools(request, FORMAT)?);
    if !tools.is_empty() {
        body.insert("tools".into(), tools.into());
    }
    put(
        &mut body,
        "tool_choice",
        request.tool_choice.as_ref().map(|choice| match choice {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::None => json!("none"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Tool(name) => json!({"type": "function", "name": name}),
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
        request.response_format.as_ref().map(|format| match format {
            ResponseFormat::Text => json!({"type": "text"}),
            ResponseFormat::JsonObject => json!({"type": "json_object"}),
            ResponseFormat::JsonSchema {
                name,
                description,
                schema,
                strict,
            } => {
                let mut object = Map::new();
                object.insert("type".into(), "json_schema".into());
                object.insert("name".into(), name.clone().into());
                put(&mut object, "description", description.clone());
                object.insert("schema".into(), schema.clone());
                put(&mut object, "strict", *strict);
                Value::Object(object)
            }
        }),
    );
    if !text.is_empty() {
        body.insert("text".into(), text.into());
    }
    put(&mut body, "stream", request.stream);
    write_extra(&mut body, &request.extra);
    Ok(Value::Object(body))
}
