//! Gemini's `Schema` (an OpenAPI 3.0 subset: `parameters`, `responseSchema`) read as the JSON
//! Schema every other format takes (and Gemini's `parametersJsonSchema` / `responseJsonSchema`).
//!
//! The types are uppercase enum names (`OBJECT`, `STRING`; `TYPE_UNSPECIFIED` is no type),
//! written lowercase; `nullable: true` adds `null` to the type (or an `anyOf` branch);
//! `example` becomes `examples: [example]`; `defs` / `ref` are `$defs` / `$ref`. Keywords may
//! come in snake_case (google-genai sends `any_of`, `max_items`, `property_ordering`), read as
//! their camelCase JSON Schema names; counts sent as strings (protobuf's int64) become numbers.
//! Gemini's own `propertyOrdering` is kept (JSON Schema ignores a keyword it does not know).

use serde_json::{json, Map, Value};

use super::fields::count;
use super::malformed;
use crate::wire::{WireError, WireFormat};

const FORMAT: WireFormat = WireFormat::Gemini;

/// The keywords whose value is a count.
const COUNTS: &[&str] = &[
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
];

/// The JSON Schema that Gemini's `Schema` object `schema` stands for.
pub(super) fn to_json_schema(schema: &Value) -> Result<Value, WireError> {
    let Value::Object(object) = schema else {
        return Err(malformed(
            FORMAT,
            format!("the schema {schema} is not an object"),
        ));
    };
    let mut out = Map::new();
    let mut nullable = false;
    for (key, value) in object {
        let key = camel_case(key);
        match key.as_str() {
            "type" => {
                if let Some(kind) = json_type(value)? {
                    out.insert(key, kind.into());
                }
            }
            "nullable" => nullable = value.as_bool() == Some(true),
            "properties" | "defs" | "$defs" => {
                let Value::Object(members) = value else {
                    return Err(malformed(
                        FORMAT,
                        format!("the schema's `{key}` is {value}"),
                    ));
                };
                let mut converted = Map::new();
                for (name, member) in members {
                    converted.insert(name.clone(), to_json_schema(member)?);
                }
                let key = if key == "properties" {
                    key
                } else {
                    "$defs".into()
                };
                out.insert(key, converted.into());
            }
            "items" => {
                out.insert(key, to_json_schema(value)?);
            }
            "additionalProperties" if value.is_object() => {
                out.insert(key, to_json_schema(value)?);
            }
            "anyOf" => {
                let Value::Array(branches) = value else {
                    return Err(malformed(
                        FORMAT,
                        format!("the schema's `anyOf` is {value}"),
                    ));
                };
                let branches = branches
                    .iter()
                    .map(to_json_schema)
                    .collect::<Result<Vec<_>, _>>()?;
                out.insert(key, branches.into());
            }
            "ref" | "$ref" => {
                let target = value.as_str().unwrap_or_default();
                let target = match target.strip_prefix("#/defs/") {
                    Some(name) => format!("#/$defs/{name}"),
                    None => target.to_owned(),
                };
                out.insert("$ref".into(), target.into());
            }
            "example" => {
                out.insert("examples".into(), json!([value]));
            }
            _ if COUNTS.contains(&key.as_str()) => {
                let number = match value {
                    Value::String(text) => text.parse::<u64>().ok(),
                    other => count(other, FORMAT),
                }
                .ok_or_else(|| malformed(FORMAT, format!("the schema's `{key}` is {value}")))?;
                out.insert(key, number.into());
            }
            _ => {
                out.insert(key, value.clone());
            }
        }
    }
    if nullable {
        add_null(&mut out);
    }
    Ok(Value::Object(out))
}

/// A Gemini type name as JSON Schema's; `None` for no type.
fn json_type(kind: &Value) -> Result<Option<&'static str>, WireError> {
    let name = kind.as_str().unwrap_or_default().to_ascii_uppercase();
    Ok(Some(match name.as_str() {
        "TYPE_UNSPECIFIED" => return Ok(None),
        "STRING" => "string",
        "NUMBER" => "number",
        "INTEGER" => "integer",
        "BOOLEAN" => "boolean",
        "ARRAY" => "array",
        "OBJECT" => "object",
        "NULL" => "null",
        _ => return Err(malformed(FORMAT, format!("the schema type {kind}"))),
    }))
}

/// Lets a schema also be `null`: in its `type`, else in its `anyOf` (without either it already
/// allows anything).
fn add_null(schema: &mut Map<String, Value>) {
    if let Some(kind) = schema.get_mut("type") {
        if kind != "null" {
            *kind = json!([kind.take(), "null"]);
        }
    } else if let Some(Value::Array(branches)) = schema.get_mut("anyOf") {
        branches.push(json!({"type": "null"}));
    }
}

/// `snake_case` as `snakeCase`.
fn camel_case(key: &str) -> String {
    let mut camel = String::with_capacity(key.len());
    let mut upper = false;
    for character in key.chars() {
        match character {
            '_' if !camel.is_empty() => upper = true,
            _ if upper => {
                camel.push(character.to_ascii_uppercase());
                upper = false;
            }
            _ => camel.push(character),
        }
    }
    camel
}
