//! A whole Anthropic Messages request (`POST /v1/messages`), both ways.
//!
//! Tools are `{name, description, input_schema, strict}` (and `type: custom`); a tool with
//! another `type` (`web_search_20250305`, `bash_20250124`…) is a built-in tool of this format.
//! `tool_choice` is `{type: auto | any | tool | none}`, its `disable_parallel_tool_use` the
//! opposite of [`Request::parallel_tool_calls`]. Reasoning is `thinking: {type: enabled,
//! budget_tokens}` (`{type: disabled}` for a budget of 0 or the effort `none`) and
//! `output_config.effort` beside it (without `thinking`, that effort is Anthropic's own
//! setting, kept in `extra.output_config`);
//! structured output `output_config.format: {type: json_schema, schema}` (always strict; the
//! schema's name has no field and is left out; JSON without a schema and a schema's description
//! are errors). `max_tokens` is required:
//! encoding a request without [`Request::max_output_tokens`] is an error. Anthropic takes a
//! temperature up to 1 (an error above), and always reports usage and its thinking. With
//! thinking on, its API rejects a budget under 1024 tokens or not under `max_tokens` (but for
//! interleaved thinking, a beta: not checked on a request read from Anthropic; a budget
//! converted from an effort, or the default one, is fitted under `max_tokens`), forced tool use
//! (`any`, `tool`), a temperature other than 1, `top_k` and a `top_p` under 0.95: errors here,
//! naming them.
//! `metadata.user_id` is [`Request::user_id`] (the rest of `metadata` is kept in
//! `extra.metadata`). It has no
//! seed nor penalties (errors).

use serde_json::{json, Map, Value};

use super::carry::{refuse_settings, write_extra};
use super::fields::{put, tool_object, Fields};
use super::{
    malformed, refuse, unsupported, write_tools, NativeTool, Reasoning, Request, ResponseFormat,
    ToolChoice, DEFAULT_SCHEMA_NAME,
};
use crate::wire::anthropic as messages;
use crate::wire::{WireError, WireFormat};

const FORMAT: WireFormat = WireFormat::Anthropic;

/// The efforts `output_config.effort` takes.
const EFFORTS: &[&str] = &["low", "medium", "high", "xhigh", "max"];

/// Reads a Messages request body.
pub fn decode(body: &Value) -> Result<Request, WireError> {
    let mut request = Request::new(messages::decode(body)?);
    let mut fields = Fields::of(body, "the request", FORMAT)?;
    fields.take("system");
    fields.take("messages");
    request.model = fields.string("model")?;
    for tool in fields.array("tools")? {
        let mut tool_fields = Fields::of(&tool, "a tool", FORMAT)?;
        match tool_fields.string("type")?.as_deref() {
            None | Some("custom") if tool.get("input_schema").is_some() => request
                .tools
                .push(tool_fields.tool_definition("input_schema")?),
            _ => request.native_tools.push(NativeTool {
                format: FORMAT,
                tool,
            }),
        }
    }
    if let Some(mut choice) = fields.object("tool_choice")? {
        request.tool_choice = Some(match choice.string("type")?.as_deref() {
            Some("auto") => ToolChoice::Auto,
            Some("any") => ToolChoice::Required,
            Some("none") => ToolChoice::None,
            Some("tool") => ToolChoice::Tool(
                choice
                    .string("name")?
                    .ok_or_else(|| malformed(FORMAT, "a `tool` tool_choice has no `name`"))?,
            ),
            other => return Err(malformed(FORMAT, format!("the tool_choice type {other:?}"))),
        });
        request.parallel_tool_calls = choice.bool("disable_parallel_tool_use")?.map(|off| !off);
        choice.finish()?;
    }
    request.max_output_tokens = fields.u64("max_tokens")?;
    request.stop = fields.strings("stop_sequences")?;
    request.temperature = fields.f64("temperature")?;
    request.top_p = fields.f64("top_p")?;
    request.top_k = fields.u64("top_k")?;
    if let Some(mut thinking) = fields.object("thinking")? {
        let reasoning = match thinking.string("type")?.as_deref() {
            Some("enabled") => Reasoning {
                budget_tokens: thinking.u64("budget_tokens")?,
                ..Reasoning::default()
            },
            Some("disabled") => Reasoning {
                budget_tokens: Some(0),
                ..Reasoning::default()
            },
            other => {
                return Err(unsupported(
                    FORMAT,
                    format!("the thinking type {other:?} (not translated)"),
                ))
            }
        };
        thinking.finish()?;
        request.reasoning = Some(reasoning);
    }
    if let Some(mut output) = fields.object("output_config")? {
        // With thinking, the effort is the reasoning's; without, Anthropic's own setting.
        match (output.take("effort"), request.reasoning.as_mut()) {
            (Some(Value::String(effort)), Some(reasoning)) => reasoning.effort = Some(effort),
            (Some(effort), _) => {
                request
                    .extra
                    .insert("output_config".into(), json!({"effort": effort}));
            }
            (None, _) => {}
        }
        if let Some(mut format) = output.object("format")? {
            if format.string("type")?.as_deref() != Some("json_schema") {
                return Err(malformed(
                    FORMAT,
                    "an output format that is not json_schema",
                ));
            }
            request.response_format = Some(ResponseFormat::JsonSchema {
                name: DEFAULT_SCHEMA_NAME.into(),
                description: None,
                schema: format.take("schema").unwrap_or_else(|| json!({})),
                strict: None,
            });
            format.finish()?;
        }
        output.finish()?;
    }
    if let Some(mut metadata) = fields.object("metadata")? {
        request.user_id = metadata.string("user_id")?;
        let rest = metadata.into_rest();
        if !rest.is_empty() {
            request.extra.insert("metadata".into(), rest.into());
        }
    }
    request.stream = fields.bool("stream")?;
    if request.stream == Some(true) {
        request.stream_usage = Some(true);
    }
    request.extra.extend(fields.into_rest());
    request.extra_format = Some(FORMAT);
    Ok(request)
}

/// Writes a Messages request body.
pub fn encode(request: &Request) -> Result<Value, WireError> {
    let max_tokens = request.max_output_tokens.ok_or_else(|| {
        unsupported(
            FORMAT,
            "a request without max_tokens (Anthropic requires it)",
        )
    })?;
    refuse_settings(request, FORMAT)?;
    if let Some(temperature) = request.temperature.filter(|value| *value > 1.0) {
        return Err(unsupported(
            FORMAT,
            format!("the temperature {temperature} (at most 1)"),
        ));
    }
    let mut body = Map::new();
    put(&mut body, "model", request.model.clone());
    body.insert("max_tokens".into(), max_tokens.into());
    let mut conversation = Value::Object(Map::new());
    messages::encode(&request.messages)?.write_into(&mut conversation);
    if let Value::Object(conversation) = conversation {
        body.extend(conversation);
    }
    let tools: Vec<Value> = request
        .tools
        .iter()
        .map(|tool| Value::Object(tool_object(tool, "input_schema")))
        .collect();
    write_tools(&mut body, tools, request, FORMAT)?;
    let choice = match (&request.tool_choice, request.parallel_tool_calls) {
        (None, None) => None,
        (choice, parallel) => {
            let mut object = match choice.as_ref().unwrap_or(&ToolChoice::Auto) {
                ToolChoice::Auto => json!({"type": "auto"}),
                ToolChoice::None => json!({"type": "none"}),
                ToolChoice::Required => json!({"type": "any"}),
                ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
            };
            if let Some(parallel) = parallel {
                object["disable_parallel_tool_use"] = (!parallel).into();
            }
            Some(object)
        }
    };
    put(&mut body, "tool_choice", choice);
    if !request.stop.is_empty() {
        body.insert("stop_sequences".into(), request.stop.clone().into());
    }
    put(&mut body, "temperature", request.temperature);
    put(&mut body, "top_p", request.top_p);
    put(&mut body, "top_k", request.top_k);
    let mut output = Map::new();
    if let Some(reasoning) = &request.reasoning {
        let budget = match reasoning.budget_tokens {
            Some(budget) => budget,
            // A budget this crate chose (an effort's, or the default) is fitted under
            // max_tokens, as the API requires; one the caller gave is not changed.
            None => reasoning
                .budget_or_converted(FORMAT)?
                .min(max_tokens.saturating_sub(1)),
        };
        let thinking = if budget == 0 {
            json!({"type": "disabled"})
        } else {
            refuse_beside_thinking(request, budget, max_tokens)?;
            json!({"type": "enabled", "budget_tokens": budget})
        };
        body.insert("thinking".into(), thinking);
        if let Some(effort) = reasoning
            .effort
            .as_deref()
            .filter(|effort| EFFORTS.contains(effort))
        {
            output.insert("effort".into(), effort.into());
        }
    }
    match &request.response_format {
        None | Some(ResponseFormat::Text) => {}
        Some(ResponseFormat::JsonObject) => {
            return Err(unsupported(FORMAT, "JSON output without a schema"))
        }
        Some(ResponseFormat::JsonSchema {
            description,
            schema,
            ..
        }) => {
            refuse(description, FORMAT, "the output schema's description")?;
            output.insert(
                "format".into(),
                json!({"type": "json_schema", "schema": schema}),
            );
        }
    }
    if !output.is_empty() {
        body.insert("output_config".into(), output.into());
    }
    if let Some(user_id) = &request.user_id {
        body.insert("metadata".into(), json!({"user_id": user_id}));
    }
    put(&mut body, "stream", request.stream);
    write_extra(&mut body, request, FORMAT)?;
    Ok(Value::Object(body))
}

/// Errors on what Anthropic's API rejects with thinking on: a budget under 1024 tokens or not
/// under `max_tokens` (unless read from Anthropic), forced tool use, a temperature other than
/// 1, `top_k`, a `top_p` under 0.95.
fn refuse_beside_thinking(
    request: &Request,
    budget: u64,
    max_tokens: u64,
) -> Result<(), WireError> {
    if budget < 1024 {
        let what = match request.reasoning.as_ref().and_then(|r| r.budget_tokens) {
            Some(_) => format!("a thinking budget of {budget} tokens (at least 1024)"),
            None => format!("thinking with max_tokens {max_tokens} (at least 1025)"),
        };
        return Err(unsupported(FORMAT, what));
    }
    // With interleaved thinking (a beta header) the budget may exceed max_tokens: a request
    // read from Anthropic goes back as its client sent it.
    if budget >= max_tokens && request.extra_format != Some(FORMAT) {
        return Err(unsupported(
            FORMAT,
            format!("a thinking budget of {budget} tokens with max_tokens {max_tokens} (under it)"),
        ));
    }
    let with = |what: String| Err(unsupported(FORMAT, format!("{what} with thinking")));
    if matches!(
        request.tool_choice,
        Some(ToolChoice::Required | ToolChoice::Tool(_))
    ) {
        return with("forced tool use".into());
    }
    if let Some(temperature) = request.temperature.filter(|value| *value != 1.0) {
        return with(format!("the temperature {temperature} (only 1)"));
    }
    if request.top_k.is_some() {
        return with("top_k".into());
    }
    match request.top_p.filter(|value| *value < 0.95) {
        Some(top_p) => with(format!("the top_p {top_p} (0.95 to 1)")),
        None => Ok(()),
    }
}
