//! An upstream error relayed as the error body of each format: every pair of (upstream error,
//! status) × target format must be what `fixtures/error_bodies/relayed.json` holds, which
//! `scripts/request-sdk-check/error_bodies.py` serves to the official SDKs (they must raise their
//! error for the status with the upstream message). `DELTAFOLD_BLESS=1` rewrites the file.

use std::fs;
use std::path::Path;

use deltafold::wire::{error_body, WireError, WireFormat};
use deltafold::ProviderError;
use serde_json::{json, Value};

/// Errors as each provider sends them, with their status.
fn upstream() -> Vec<(&'static str, u16, Value)> {
    vec![
        (
            "openai_rate_limit",
            429,
            json!({"error": {"message": "Rate limit reached for gpt-4.1", "type": "requests",
                             "param": null, "code": "rate_limit_exceeded"}}),
        ),
        (
            "openai_bad_param",
            400,
            json!({"error": {"message": "Invalid 'messages[0].role'", "type": "invalid_request_error",
                             "param": "messages[0].role", "code": "invalid_value"}}),
        ),
        (
            "anthropic_overloaded",
            529,
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"},
                   "request_id": "req_1"}),
        ),
        (
            "gemini_not_found",
            404,
            json!({"error": {"code": 404, "message": "models/x is not found", "status": "NOT_FOUND"}}),
        ),
        (
            "gemini_internal",
            500,
            json!({"error": {"code": 500, "message": "Internal error encountered.",
                             "status": "INTERNAL"}}),
        ),
    ]
}

#[test]
fn an_upstream_error_is_written_in_each_formats_error_shape() {
    let targets = [
        ("openai_chat", WireFormat::OpenAiChat),
        ("openai_responses", WireFormat::OpenAiResponses),
        ("anthropic", WireFormat::Anthropic),
        ("gemini", WireFormat::Gemini),
    ];
    let mut relayed = serde_json::Map::new();
    for (name, status, raw) in upstream() {
        let error = ProviderError::from_value(raw.clone());
        let mut bodies = serde_json::Map::new();
        bodies.insert("status".into(), status.into());
        for (target_name, target) in targets {
            bodies.insert(
                target_name.into(),
                error_body::encode(target, &error, status).unwrap(),
            );
        }
        relayed.insert(name.into(), bodies.into());
    }
    let relayed = Value::Object(relayed);
    // The same family gets the error as it came; another keeps the message.
    assert_eq!(
        relayed["anthropic_overloaded"]["anthropic"]["request_id"],
        "req_1"
    );
    assert_eq!(
        relayed["openai_bad_param"]["openai_responses"]["error"]["code"],
        "invalid_value"
    );
    assert_eq!(
        relayed["openai_bad_param"]["gemini"],
        json!({"error": {"code": 400, "message": "Invalid 'messages[0].role'",
                         "status": "INVALID_ARGUMENT"}})
    );
    assert_eq!(
        relayed["gemini_not_found"]["anthropic"],
        json!({"type": "error", "error": {"type": "not_found_error",
                                          "message": "models/x is not found"}})
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/error_bodies/relayed.json");
    if std::env::var_os("DELTAFOLD_BLESS").is_some() {
        fs::write(
            &path,
            serde_json::to_string_pretty(&relayed).unwrap() + "\n",
        )
        .unwrap();
    }
    let expected: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(relayed, expected, "{}", path.display());
    let error = ProviderError::from_value(json!({"error": {"message": "x"}}));
    assert!(matches!(
        error_body::encode(WireFormat::LangChain, &error, 400),
        Err(WireError::UnsupportedSetting { .. })
    ));
}
