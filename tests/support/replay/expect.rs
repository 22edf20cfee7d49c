//! Compares a run with its hand-written expectation: the messages in the LangChain `AIMessage`
//! shape `AiMessage` serialises to (an array of them, in choice order, for several choices), or,
//! for a stream that must fail, `{"error": {"kind", "contains", "location"?, "provider"?},
//! "partial": …}`.
//!
//! One rule for every comparison: exact on every field, a `null` field equal to a missing one,
//! except for the wording the library owns, where the expectation gives a part of the text — the
//! `error` of an invalid tool call, `response_metadata.incomplete` and each entry of
//! `response_metadata.warnings` (their number stays exact). That is the rule `fixtures/README.md`
//! documents, so an expectation can be written from the stream and the assembly rules without
//! copying the library's sentences.

use std::collections::BTreeSet;

use deltafold::{Completion, Error};
use serde_json::{json, Map, Value};

use super::Run;

/// Checks one run against the expectation; returns what is wrong.
pub fn check_run(run: &Run, expected: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    match (&run.result, expected.get("error")) {
        (Ok(completion), None) => {
            if !completion.complete {
                problems.push("the completion is marked incomplete".into());
            }
            compare_messages(completion, expected, &mut problems);
        }
        (Err(error), Some(want)) => {
            check_error(error, want, &mut problems);
            match error.partial() {
                Some(partial) => {
                    if partial.complete {
                        problems.push("the partial result is marked complete".into());
                    }
                    compare_messages(partial, &expected["partial"], &mut problems);
                }
                None => problems.push("the error carries no partial result".into()),
            }
        }
        (Ok(_), Some(want)) => problems.push(format!("expected an error {want}, got a completion")),
        (Err(error), None) => problems.push(format!("unexpected error: {error}")),
    }
    problems
}

fn check_error(error: &Error, want: &Value, problems: &mut Vec<String>) {
    let kind = error.kind().as_str();
    if want["kind"] != kind {
        problems.push(format!("error kind {kind}, expected {}", want["kind"]));
    }
    let shown = error.to_string();
    let contains = want["contains"].as_str().unwrap_or_default();
    if contains.is_empty() || !shown.contains(contains) {
        problems.push(format!("error {shown:?} does not contain {contains:?}"));
    }
    if let Some(location) = want.get("location") {
        let got = error
            .location()
            .map(|at| json!({"event": at.event, "offset": at.offset}));
        if got.as_ref() != Some(location) {
            problems.push(format!("error location {got:?}, expected {location}"));
        }
    }
    if let Some(provider) = want.get("provider") {
        match error.provider_error() {
            Some(sent) => {
                let got = json!({"code": sent.code, "type": sent.kind, "message": sent.message});
                for key in ["code", "type", "message"] {
                    if provider.get(key).unwrap_or(&Value::Null) != &got[key] {
                        problems.push(format!(
                            "provider error {key} {}, expected {}",
                            got[key], provider[key]
                        ));
                    }
                }
            }
            None => problems.push("no provider error object".into()),
        }
    }
}

/// Compares the serialised messages with the expected message, or array of messages.
fn compare_messages(completion: &Completion, expected: &Value, problems: &mut Vec<String>) {
    let actual: Vec<Value> = completion
        .messages()
        .map(|message| serde_json::to_value(message).expect("a message serialises"))
        .collect();
    let indexes: Vec<u32> = completion
        .choices
        .iter()
        .map(|choice| choice.index)
        .collect();
    if indexes.windows(2).any(|pair| pair[0] >= pair[1]) {
        problems.push(format!("choices are not in index order: {indexes:?}"));
    }
    let expected: Vec<Value> = match expected {
        Value::Array(messages) => messages.clone(),
        message => vec![message.clone()],
    };
    if actual.len() != expected.len() {
        problems.push(format!(
            "{} messages, expected {}: {}",
            actual.len(),
            expected.len(),
            Value::Array(actual.clone())
        ));
        return;
    }
    for (position, (got, want)) in actual.iter().zip(&expected).enumerate() {
        let mut diffs = Vec::new();
        compare(&format!("[{position}]"), got, want, &mut diffs);
        if !diffs.is_empty() {
            problems.push(format!(
                "message {position} differs:\n      {}\n    got: {got}",
                diffs.join("\n      ")
            ));
        }
    }
}

/// Fields whose text belongs to the library: the expectation gives a part of it.
fn compared_by_substring(path: &str, object: &Map<String, Value>, key: &str) -> bool {
    let invalid_call = object.get("type").and_then(Value::as_str) == Some("invalid_tool_call");
    (key == "error" && invalid_call) || (key == "incomplete" && path.ends_with("response_metadata"))
}

fn compare(path: &str, got: &Value, want: &Value, diffs: &mut Vec<String>) {
    match (got, want) {
        (Value::Object(got), Value::Object(want)) => {
            let keys: BTreeSet<&String> = got.keys().chain(want.keys()).collect();
            for key in keys {
                let at = format!("{path}.{key}");
                let got_value = got.get(key).unwrap_or(&Value::Null);
                let want_value = want.get(key).unwrap_or(&Value::Null);
                if compared_by_substring(path, want, key) || compared_by_substring(path, got, key) {
                    contains_text(&at, got_value, want_value, diffs);
                } else if key == "warnings" && path.ends_with("response_metadata") {
                    compare_warnings(&at, got_value, want_value, diffs);
                } else {
                    compare(&at, got_value, want_value, diffs);
                }
            }
        }
        (Value::Array(got), Value::Array(want)) => {
            if got.len() != want.len() {
                diffs.push(format!(
                    "{path}: {} items, expected {}: got {}",
                    got.len(),
                    want.len(),
                    Value::Array(got.clone())
                ));
                return;
            }
            for (index, (got, want)) in got.iter().zip(want).enumerate() {
                compare(&format!("{path}[{index}]"), got, want, diffs);
            }
        }
        (got, want) if got == want => {}
        // With serde_json's `arbitrary_precision` (the CLI's build, unified into a workspace
        // test) a number is held as written: `6e-7` sent, `6e-07` in a file Python wrote.
        (Value::Number(got), Value::Number(want))
            if got.to_string().parse::<f64>().ok() == want.to_string().parse::<f64>().ok() => {}
        (got, want) => diffs.push(format!("{path}: got {got}, expected {want}")),
    }
}

/// Both missing, or `got` a text containing the non-empty expected text.
fn contains_text(path: &str, got: &Value, want: &Value, diffs: &mut Vec<String>) {
    match (got.as_str(), want.as_str()) {
        (Some(got), Some(want)) if !want.is_empty() && got.contains(want) => {}
        (None, None) if got.is_null() && want.is_null() => {}
        _ => diffs.push(format!(
            "{path}: got {got}, expected text containing {want}"
        )),
    }
}

/// As many warnings as expected, each containing its expected text.
fn compare_warnings(path: &str, got: &Value, want: &Value, diffs: &mut Vec<String>) {
    let empty = Vec::new();
    let got = got.as_array().unwrap_or(&empty);
    let want = want.as_array().unwrap_or(&empty);
    if got.len() != want.len() {
        diffs.push(format!(
            "{path}: {} warnings, expected {}: {got:?}",
            got.len(),
            want.len()
        ));
        return;
    }
    for (index, (got, want)) in got.iter().zip(want).enumerate() {
        contains_text(&format!("{path}[{index}]"), got, want, diffs);
    }
}
