//! An assistant's tool calls in a Chat Completions request, both ways: function calls
//! (`{id, type: "function", function: {name, arguments}}`, the arguments as a JSON string, an
//! invalid call's exactly as the model streamed them), custom tool calls (`{id, type: "custom",
//! custom: {name, input}}`, a [`ToolCall::custom`] whose free-text input is `args.__arg1`), and
//! on either the `extra_content` Gemini's OpenAI-compatible endpoint reads the call's
//! `thought_signature` from (`extra_content.google.thought_signature`; Gemini 3 refuses a turn
//! whose calls lack theirs).

use serde_json::{json, Map, Value};

use super::super::{as_object, optional_string, required_string, At, WireError};
use crate::message::{
    extra_content_of, extras_from_extra_content, ContentBlock, InvalidToolCall, ToolCall,
};

/// A tool call as the request's `tool_calls` entry.
pub(super) fn encode(call: &ToolCall) -> Value {
    let mut entry = match call.custom_input() {
        Some(input) => json!({
            "id": call.id,
            "type": "custom",
            "custom": {"name": call.name, "input": input},
        }),
        None => function_call(
            &call.id,
            &call.name,
            Value::Object(call.args.clone()).to_string(),
        ),
    };
    if let Some(extra_content) = extra_content_of(call) {
        entry["extra_content"] = extra_content;
    }
    entry
}

/// An invalid call as a function call with its arguments as streamed.
pub(super) fn encode_invalid(call: &InvalidToolCall) -> Value {
    function_call(&call.id, &call.name, call.args.clone())
}

fn function_call(id: &str, name: &str, arguments: String) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
}

/// A request's `tool_calls` entry as a block.
pub(super) fn decode(call: &Value, at: At) -> Result<ContentBlock, WireError> {
    let call = as_object(call, "a tool call", at)?;
    let id = required_string(call, "id", at)?;
    let extras = call
        .get("extra_content")
        .cloned()
        .map(extras_from_extra_content)
        .unwrap_or_default();
    if call.get("type").and_then(Value::as_str) == Some("custom") {
        let custom = as_object(
            call.get("custom").unwrap_or(&Value::Null),
            "a custom tool call's `custom`",
            at,
        )?;
        let name = required_string(custom, "name", at)?;
        let input = optional_string(custom, "input", at)?.unwrap_or_default();
        return Ok(ContentBlock::ToolCall(ToolCall {
            extras,
            ..ToolCall::custom(id, name, input)
        }));
    }
    let function = as_object(
        call.get("function").unwrap_or(&Value::Null),
        "a tool call's `function`",
        at,
    )?;
    let name = required_string(function, "name", at)?;
    let arguments = optional_string(function, "arguments", at)?.unwrap_or_default();
    Ok(match parse_arguments(&arguments) {
        Ok(args) => ContentBlock::ToolCall(ToolCall {
            id,
            name,
            args,
            extras,
        }),
        Err(error) => ContentBlock::InvalidToolCall(InvalidToolCall {
            id,
            name,
            args: arguments,
            error,
            extras,
        }),
    })
}

/// Tool arguments as the assembler reads them: blank means no arguments, anything else must be a
/// JSON object.
fn parse_arguments(arguments: &str) -> Result<Map<String, Value>, String> {
    if arguments.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(arguments) {
        Ok(Value::Object(args)) => Ok(args),
        Ok(other) => Err(format!("the arguments are {other}, not a JSON object")),
        Err(error) => Err(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::WireFormat;

    const AT: At = At {
        format: WireFormat::OpenAiChat,
        index: 0,
    };

    #[test]
    fn blank_arguments_are_no_arguments_and_others_must_be_objects() {
        assert_eq!(parse_arguments(" "), Ok(Map::new()));
        assert!(parse_arguments("[1]")
            .unwrap_err()
            .contains("not a JSON object"));
        assert!(parse_arguments("{\"a\":").is_err());
    }

    #[test]
    fn custom_calls_and_signatures_go_back_as_they_came() {
        let entries = [
            json!({"id": "call_1", "type": "custom", "custom": {"name": "apply_patch", "input": "*** Begin Patch\n\"x\""}}),
            json!({"id": "function-call-1", "type": "function",
                   "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
                   "extra_content": {"google": {"thought_signature": "CiMB"}, "other": 1}}),
        ];
        for entry in entries {
            let ContentBlock::ToolCall(call) = decode(&entry, AT).unwrap() else {
                panic!("a tool call");
            };
            assert_eq!(encode(&call), entry);
        }
        let ContentBlock::ToolCall(call) = decode(&entries_signature(), AT).unwrap() else {
            panic!("a tool call");
        };
        assert_eq!(call.signature(), Some("CiMB"));
        assert!(!call.extras.contains_key(ToolCall::EXTRA_CONTENT));
    }

    fn entries_signature() -> Value {
        json!({"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"},
               "extra_content": {"google": {"thought_signature": "CiMB"}}})
    }
}
