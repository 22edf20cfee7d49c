//! A Gemini request as a gateway serving Gemini's API receives it: what google-genai sends
//! (snake_case names, counts as floats, OpenAPI `Schema` objects read as JSON Schema), and the
//! model and streaming read from the URL path (`request::gemini::decode_with_path`).

use deltafold::message::Message;
use deltafold::wire::request::{gemini, Request, ResponseFormat};
use deltafold::wire::WireError;
use serde_json::json;

#[test]
fn the_gemini_decoder_reads_what_google_genai_sends() {
    // google-genai 3.6.1's spellings (see fixtures/requests/gemini/genai_*.json).
    let body = json!({
        "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
        "tools": [{"functionDeclarations": [
            {"name": "a", "parameters_json_schema": {"type": "object"}},
            {"name": "b", "parameters": {
                "type": "OBJECT", "required": ["x"], "property_ordering": ["x", "y"],
                "properties": {
                    "x": {"type": "STRING", "nullable": true, "min_length": "1", "example": "p"},
                    "y": {"any_of": [{"type": "INTEGER"}, {"type": "ARRAY", "items": {"type": "NUMBER"}}],
                          "nullable": true},
                    "z": {"type": "TYPE_UNSPECIFIED", "description": "anything"},
                }}},
        ]}],
        "generationConfig": {
            "topK": 20.0, "max_output_tokens": 100,
            "thinkingConfig": {"thinking_budget": 1024, "include_thoughts": true},
            "responseMimeType": "application/json",
            "responseSchema": {"type": "OBJECT", "defs": {"P": {"type": "STRING"}},
                               "properties": {"p": {"ref": "#/defs/P"}}},
        },
    });
    let request = gemini::decode(&body).unwrap();
    assert_eq!(request.tools[0].parameters, Some(json!({"type": "object"})));
    assert_eq!(
        request.tools[1].parameters,
        Some(json!({
            "type": "object", "required": ["x"], "propertyOrdering": ["x", "y"],
            "properties": {
                "x": {"type": ["string", "null"], "minLength": 1, "examples": ["p"]},
                "y": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "number"}},
                                {"type": "null"}]},
                "z": {"description": "anything"},
            }
        }))
    );
    assert_eq!(
        (request.top_k, request.max_output_tokens),
        (Some(20), Some(100))
    );
    let reasoning = request.reasoning.clone().unwrap();
    assert_eq!(
        (reasoning.budget_tokens, reasoning.summary.as_deref()),
        (Some(1024), Some("auto"))
    );
    let Some(ResponseFormat::JsonSchema { schema, .. }) = &request.response_format else {
        panic!("{:?}", request.response_format)
    };
    assert_eq!(
        schema,
        &json!({"type": "object", "$defs": {"P": {"type": "string"}},
                "properties": {"p": {"$ref": "#/$defs/P"}}})
    );
    assert!(request.extra.is_empty(), "{:?}", request.extra);
    // Both schema fields at once, a fraction where a count goes, an unknown type: malformed.
    for wrong in [
        json!({"tools": [{"functionDeclarations": [{"name": "a", "parameters": {"type": "OBJECT"},
                                                    "parametersJsonSchema": {"type": "object"}}]}]}),
        json!({"generationConfig": {"topK": 20.5}}),
        json!({"tools": [{"functionDeclarations": [{"name": "a", "parameters": {"type": "MAP"}}]}]}),
    ] {
        let mut wrong = wrong;
        wrong["contents"] = body["contents"].clone();
        assert!(
            matches!(
                gemini::decode(&wrong),
                Err(WireError::MalformedRequest { .. })
            ),
            "{wrong}"
        );
    }
}

#[test]
fn a_gemini_request_reads_its_model_and_streaming_from_the_url_path() {
    let body = json!({"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]});
    for (path, model, stream) in [
        ("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", "gemini-2.5-flash", true),
        ("/v1beta/models/gemini-2.5-flash:generateContent", "gemini-2.5-flash", false),
        ("models/m:streamGenerateContent?key=k&alt=sse", "m", true),
        ("/gemini/v1/models/m:generateContent?key=k", "m", false),
        (
            "/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro:generateContent",
            "gemini-2.5-pro",
            false,
        ),
    ] {
        let request = gemini::decode_with_path(path, &body).unwrap();
        assert_eq!(
            (request.model.as_deref(), request.stream),
            (Some(model), Some(stream)),
            "{path}"
        );
    }
    // `path` is its inverse.
    let mut request = Request::new(vec![Message::user("Hi")]);
    request.model = Some("gemini-2.5-flash".into());
    request.stream = Some(true);
    let path = gemini::path(&request).unwrap();
    let back = gemini::decode_with_path(&format!("/v1beta/{path}"), &body).unwrap();
    assert_eq!((back.model, back.stream), (request.model, request.stream));
    for wrong in [
        "/v1beta/models/m:countTokens",
        "/v1beta/models/:generateContent",
        "/v1beta/tunedModels/t:generateContent",
        "/v1beta/models/m",
        "/v1/chat/completions",
    ] {
        assert!(
            matches!(
                gemini::decode_with_path(wrong, &body),
                Err(WireError::MalformedRequest { .. })
            ),
            "{wrong}"
        );
    }
    assert_eq!(
        gemini::decode_with_path("/v1beta/models/m:streamGenerateContent", &body)
            .unwrap_err()
            .to_string(),
        "Gemini requests cannot carry a stream without `alt=sse` (a JSON array; deltafold writes events)"
    );
}
