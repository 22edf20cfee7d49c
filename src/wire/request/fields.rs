//! Reading a request object field by field: what is read is taken out, what is left is the
//! request's (or a nested object's) extra fields.
//!
//! Gemini's API reads JSON the protobuf way, and its Python client sends that way: a field may be
//! spelled in snake_case (`parameters_json_schema`, `thinking_budget`), and a count may come as
//! a float with no fraction (`topK: 20.0`). For Gemini, [`Fields::take`] finds a field under
//! either name and [`Fields::u64`] takes such a float.

use serde_json::{Map, Value};

use super::{malformed, ToolDefinition};
use crate::wire::{WireError, WireFormat};

/// The fields of one object not yet read.
pub(super) struct Fields {
    pub format: WireFormat,
    /// Where the object is, for errors (`the request`, `generationConfig`…).
    what: String,
    rest: Map<String, Value>,
}

impl Fields {
    /// The fields of `value`, which must be an object.
    pub fn of(value: &Value, what: &str, format: WireFormat) -> Result<Self, WireError> {
        match value {
            Value::Object(object) => Ok(Fields {
                format,
                what: what.to_owned(),
                rest: object.clone(),
            }),
            other => Err(malformed(
                format,
                format!("{what} is {other}, not an object"),
            )),
        }
    }

    /// Takes a field out (for Gemini, under its camelCase `key` or its snake_case name);
    /// `None` when absent or null.
    pub fn take(&mut self, key: &str) -> Option<Value> {
        let value = match self.rest.remove(key) {
            None if self.format == WireFormat::Gemini => self.rest.remove(&snake_case(key)),
            value => value,
        };
        value.filter(|value| !value.is_null())
    }

    fn wrong(&self, key: &str, value: &Value, expected: &str) -> WireError {
        malformed(
            self.format,
            format!("`{key}` of {} is {value}, not {expected}", self.what),
        )
    }

    pub fn string(&mut self, key: &str) -> Result<Option<String>, WireError> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(other) => Err(self.wrong(key, &other, "a string")),
        }
    }

    pub fn u64(&mut self, key: &str) -> Result<Option<u64>, WireError> {
        match self.take(key) {
            None => Ok(None),
            Some(value) => match count(&value, self.format) {
                Some(number) => Ok(Some(number)),
                None => Err(self.wrong(key, &value, "a count")),
            },
        }
    }

    pub fn i64(&mut self, key: &str) -> Result<Option<i64>, WireError> {
        match self.take(key) {
            None => Ok(None),
            Some(value) => match value.as_i64() {
                Some(number) => Ok(Some(number)),
                None => Err(self.wrong(key, &value, "an integer")),
            },
        }
    }

    pub fn f64(&mut self, key: &str) -> Result<Option<f64>, WireError> {
        match self.take(key) {
            None => Ok(None),
            Some(value) => match value.as_f64() {
                Some(number) => Ok(Some(number)),
                None => Err(self.wrong(key, &value, "a number")),
            },
        }
    }

    pub fn bool(&mut self, key: &str) -> Result<Option<bool>, WireError> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Bool(flag)) => Ok(Some(flag)),
            Some(other) => Err(self.wrong(key, &other, "true or false")),
        }
    }

    /// A nested object's fields.
    pub fn object(&mut self, key: &str) -> Result<Option<Fields>, WireError> {
        let format = self.format;
        self.take(key)
            .map(|value| Fields::of(&value, &format!("`{key}`"), format))
            .transpose()
    }

    /// A list of strings; a single string is a list of one.
    pub fn strings(&mut self, key: &str) -> Result<Vec<String>, WireError> {
        match self.take(key) {
            None => Ok(Vec::new()),
            Some(Value::String(text)) => Ok(vec![text]),
            Some(Value::Array(items)) => items
                .into_iter()
                .map(|item| match item {
                    Value::String(text) => Ok(text),
                    other => Err(self.wrong(key, &other, "a string")),
                })
                .collect(),
            Some(other) => Err(self.wrong(key, &other, "a list of strings")),
        }
    }

    /// An array field's items.
    pub fn array(&mut self, key: &str) -> Result<Vec<Value>, WireError> {
        match self.take(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(self.wrong(key, &other, "a list")),
        }
    }

    /// Errors when a field is left that the caller has no place for.
    pub fn finish(self) -> Result<(), WireError> {
        match self.rest.keys().next() {
            None => Ok(()),
            Some(key) => Err(super::unsupported(
                self.format,
                format!("`{key}` in {} (not translated)", self.what),
            )),
        }
    }

    /// The fields not read.
    pub fn into_rest(self) -> Map<String, Value> {
        self.rest
    }

    /// Reads a function definition's `name`, `description` and `strict`, the schema from
    /// `schema_key`, and keeps the rest as its extra.
    pub fn tool_definition(mut self, schema_key: &str) -> Result<ToolDefinition, WireError> {
        let parameters = self.take(schema_key);
        self.tool_with_parameters(parameters)
    }

    /// Reads a function definition's `name`, `description` and `strict` beside `parameters`
    /// (read by the caller), and keeps the rest as its extra.
    pub fn tool_with_parameters(
        mut self,
        parameters: Option<Value>,
    ) -> Result<ToolDefinition, WireError> {
        let name = self
            .string("name")?
            .ok_or_else(|| malformed(self.format, format!("{} has no `name`", self.what)))?;
        let description = self.string("description")?;
        let strict = self.bool("strict")?;
        Ok(ToolDefinition {
            name,
            description,
            parameters,
            strict,
            extra: self.rest,
        })
    }
}

/// `value` as a count: a non-negative integer, or for Gemini also a float with no fraction.
pub(super) fn count(value: &Value, format: WireFormat) -> Option<u64> {
    match (value.as_u64(), value.as_f64()) {
        (Some(number), _) => Some(number),
        (None, Some(float))
            if format == WireFormat::Gemini
                && float >= 0.0
                && float.fract() == 0.0
                && float < u64::MAX as f64 =>
        {
            Some(float as u64)
        }
        _ => None,
    }
}

/// `camelCase` as `camel_case`.
pub(super) fn snake_case(key: &str) -> String {
    let mut snake = String::with_capacity(key.len() + 4);
    for character in key.chars() {
        if character.is_ascii_uppercase() {
            snake.push('_');
            snake.push(character.to_ascii_lowercase());
        } else {
            snake.push(character);
        }
    }
    snake
}

/// A function definition's fields, with the schema under `schema_key`.
pub(super) fn tool_object(tool: &ToolDefinition, schema_key: &str) -> Map<String, Value> {
    let mut object = Map::new();
    object.insert("name".into(), tool.name.clone().into());
    if let Some(description) = &tool.description {
        object.insert("description".into(), description.clone().into());
    }
    if let Some(schema) = &tool.parameters {
        object.insert(schema_key.into(), schema.clone());
    }
    if let Some(strict) = tool.strict {
        object.insert("strict".into(), strict.into());
    }
    for (key, value) in &tool.extra {
        object.entry(key.clone()).or_insert_with(|| value.clone());
    }
    object
}

/// Sets `key` when `value` is there.
pub(super) fn put(body: &mut Map<String, Value>, key: &str, value: Option<impl Into<Value>>) {
    if let Some(value) = value {
        body.insert(key.into(), value.into());
    }
}
