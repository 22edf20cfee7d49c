//! What Chat Completions and Responses spell alike: the tool choice words and a JSON schema
//! output format's fields.

use serde_json::{Map, Value};

use super::fields::{put, Fields};
use super::{unsupported, ResponseFormat, ToolChoice};
use crate::wire::{WireError, WireFormat};

/// Reads `auto` / `none` / `required`, or `{type: function, …}` whose `name_of` is the name.
pub(super) fn decode_tool_choice(
    choice: &Value,
    name_of: fn(&Value) -> &Value,
    format: WireFormat,
) -> Result<ToolChoice, WireError> {
    match (choice.as_str(), &choice["type"], name_of(choice)) {
        (Some("auto"), ..) => Ok(ToolChoice::Auto),
        (Some("none"), ..) => Ok(ToolChoice::None),
        (Some("required"), ..) => Ok(ToolChoice::Required),
        (None, Value::String(kind), Value::String(name)) if kind == "function" => {
            Ok(ToolChoice::Tool(name.clone()))
        }
        _ => Err(unsupported(
            format,
            format!("the tool_choice {choice} (not translated)"),
        )),
    }
}

/// Writes the tool choice; `named` spells the choice of one function.
pub(super) fn encode_tool_choice(choice: &ToolChoice, named: fn(&str) -> Value) -> Value {
    match choice {
        ToolChoice::Auto => "auto".into(),
        ToolChoice::None => "none".into(),
        ToolChoice::Required => "required".into(),
        ToolChoice::Tool(name) => named(name),
    }
}

/// Reads a JSON schema format's `name`, `description`, `schema` and `strict`.
pub(super) fn decode_json_schema(fields: &mut Fields) -> Result<ResponseFormat, WireError> {
    Ok(ResponseFormat::JsonSchema {
        name: fields.string("name")?.unwrap_or_default(),
        description: fields.string("description")?,
        schema: fields
            .take("schema")
            .unwrap_or_else(|| Value::Object(Map::new())),
        strict: fields.bool("strict")?,
    })
}

/// Writes the output format: a JSON schema's fields go under `json_schema` (Chat Completions'
/// `response_format`) or beside `type` (Responses' `text.format`).
pub(super) fn encode_response_format(format: &ResponseFormat, nested: bool) -> Value {
    let kind = match format {
        ResponseFormat::Text => "text",
        ResponseFormat::JsonObject => "json_object",
        ResponseFormat::JsonSchema { .. } => "json_schema",
    };
    let mut object = Map::new();
    object.insert("type".into(), kind.into());
    if let ResponseFormat::JsonSchema {
        name,
        description,
        schema,
        strict,
    } = format
    {
        let mut fields = Map::new();
        fields.insert("name".into(), name.clone().into());
        put(&mut fields, "description", description.clone());
        fields.insert("schema".into(), schema.clone());
        put(&mut fields, "strict", *strict);
        if nested {
            object.insert("json_schema".into(), fields.into());
        } else {
            object.extend(fields);
        }
    }
    Value::Object(object)
}
