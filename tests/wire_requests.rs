//! Whole requests: every fixture in `fixtures/requests/<format>/` is read, written back to its
//! own format (`decode(encode(x)) == x`) and translated to every other format as a gateway
//! does (after `Request::drop_unsupported`); each translation (a body, or the error naming what
//! the target cannot carry) and what was dropped for it (under `dropped`) must be what
//! `<name>.to.json` holds. `scripts/request-sdk-check/check.py` validates those same bodies with
//! the official SDKs' request types. `DELTAFOLD_BLESS=1` rewrites the `.to.json` files.

use std::fs;
use std::path::{Path, PathBuf};

use deltafold::message::Message;
use deltafold::wire::request::{
    anthropic, gemini, openai_chat, openai_responses, Reasoning, Request, ResponseFormat,
    ToolChoice, ToolDefinition,
};
use deltafold::wire::{WireError, WireFormat};
use serde_json::{json, Map, Value};

type Decode = fn(&Value) -> Result<Request, WireError>;
type Encode = fn(&Request) -> Result<Value, WireError>;

/// Each format: its folder, reader and writer.
const FORMATS: [(&str, Decode, Encode); 4] = [
    ("openai_chat", openai_chat::decode, openai_chat::encode),
    ("anthropic", anthropic::decode, anthropic::encode),
    (
        "openai_responses",
        openai_responses::decode,
        openai_responses::encode,
    ),
    ("gemini", gemini::decode, gemini::encode),
];

/// The format of each entry of [`FORMATS`].
const WIRE_FORMATS: [WireFormat; 4] = [
    WireFormat::OpenAiChat,
    WireFormat::Anthropic,
    WireFormat::OpenAiResponses,
    WireFormat::Gemini,
];

fn fixtures() -> Vec<(usize, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/requests");
    let mut found = Vec::new();
    for (index, (folder, ..)) in FORMATS.iter().enumerate() {
        let mut paths: Vec<PathBuf> = fs::read_dir(root.join(folder))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| !path.to_string_lossy().ends_with(".to.json"))
            .collect();
        paths.sort();
        found.extend(paths.into_iter().map(|path| (index, path)));
    }
    found
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// What a gateway does before sending a request on: it drops what the target has no field for
/// (the extra fields it can carry, such as `store` between Chat Completions and Responses, go
/// on), and a request read from Gemini (whose model is in the URL) gets a model. Returns the
/// request and what was dropped (`None` for nothing), as the `.to.json` files record it.
fn for_gateway(mut request: Request, target: WireFormat) -> (Request, Option<Value>) {
    let dropped = request.drop_unsupported(target);
    request
        .model
        .get_or_insert_with(|| "gemini-2.5-flash".into());
    let record = (!dropped.is_empty()).then(|| {
        let tools: Vec<Value> = dropped
            .native_tools
            .into_iter()
            .map(|native| native.tool)
            .collect();
        json!({"settings": dropped.settings, "native_tools": tools, "extra": dropped.extra,
               "tool_extra": dropped.tool_extra})
    });
    (request, record)
}

#[test]
fn every_request_fixture_round_trips_and_translates_as_recorded() {
    let bless = std::env::var_os("DELTAFOLD_BLESS").is_some();
    let fixtures = fixtures();
    assert!(fixtures.len() >= 12, "{} fixtures", fixtures.len());
    let mut failures = Vec::new();
    for (source, path) in fixtures {
        let (source_name, decode, encode) = FORMATS[source];
        let body = read(&path);
        let request = decode(&body).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        let again = encode(&request).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        assert_eq!(
            decode(&again).unwrap(),
            request,
            "{}: decode(encode(x)) != x",
            path.display()
        );
        let (mut translated, mut all_dropped) = (Map::new(), Map::new());
        for ((target_name, target_decode, target_encode), target) in
            FORMATS.into_iter().zip(WIRE_FORMATS)
        {
            let outcome = if target_name == source_name {
                Ok(again.clone())
            } else {
                let (sent, dropped) = for_gateway(request.clone(), target);
                if let Some(dropped) = dropped {
                    all_dropped.insert(target_name.into(), dropped);
                }
                target_encode(&sent)
            };
            let entry = match outcome {
                Ok(body) => {
                    let read_back = target_decode(&body).unwrap_or_else(|error| {
                        panic!("{} → {target_name}: {error}", path.display())
                    });
                    assert_eq!(
                        read_back.messages.len(),
                        request.messages.len(),
                        "{} → {target_name}: the conversation",
                        path.display()
                    );
                    body
                }
                Err(error) => json!({"error": error.to_string()}),
            };
            translated.insert(target_name.into(), entry);
        }
        if !all_dropped.is_empty() {
            translated.insert("dropped".into(), all_dropped.into());
        }
        let expected_path = path.with_extension("to.json");
        let translated = Value::Object(translated);
        if bless {
            let text = serde_json::to_string_pretty(&translated).unwrap() + "\n";
            fs::write(&expected_path, text).unwrap();
        } else if !expected_path.exists() || read(&expected_path) != translated {
            failures.push(expected_path.display().to_string());
        }
    }
    assert!(
        failures.is_empty(),
        "translations differ from: {failures:#?}"
    );
}

fn errors_of(body: Value, format: usize) -> String {
    let request = FORMATS[format].1(&body).unwrap();
    FORMATS
        .iter()
        .filter_map(|(name, _, encode)| {
            encode(&request)
                .err()
                .map(|error| format!("{name}: {error}"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn what_a_target_cannot_carry_is_an_error_naming_it() {
    let anthropic_only = json!({
        "model": "claude-sonnet-4-5", "max_tokens": 100, "top_k": 5, "stop_sequences": ["x"],
        "messages": [{"role": "user", "content": "Hi"}],
    });
    assert_eq!(
        errors_of(anthropic_only, 1),
        "openai_chat: OpenAI Chat Completions requests cannot carry top_k\n\
         openai_responses: OpenAI Responses requests cannot carry stop sequences"
    );
    let hot = json!({"model": "gpt-4.1", "temperature": 1.5, "messages": [{"role": "user", "content": "Hi"}]});
    assert_eq!(
        errors_of(hot, 0),
        "anthropic: Anthropic Messages requests cannot carry a request without max_tokens (Anthropic requires it)"
    );
    let mut request = Request::new(vec![Message::user("Hi")]);
    request.max_output_tokens = Some(10);
    request.temperature = Some(1.5);
    assert_eq!(
        anthropic::encode(&request).unwrap_err(),
        WireError::UnsupportedSetting {
            format: WireFormat::Anthropic,
            what: "the temperature 1.5 (at most 1)".into()
        }
    );
}

#[test]
fn a_neutral_request_reads_the_same_from_every_format() {
    let mut request = Request::new(vec![Message::system("Be brief."), Message::user("Hi")]);
    request.model = Some("m".into());
    request.tools = vec![ToolDefinition::new(
        "get_weather",
        json!({"type": "object", "properties": {"city": {"type": "string"}}}),
    )];
    request.tool_choice = Some(ToolChoice::Tool("get_weather".into()));
    request.max_output_tokens = Some(1000);
    request.temperature = Some(0.5);
    request.top_p = Some(0.9);
    let mut reasoning = Reasoning::default();
    reasoning.budget_tokens = Some(2048);
    request.reasoning = Some(reasoning);
    request.response_format = Some(ResponseFormat::JsonSchema {
        name: "response".into(),
        description: None,
        schema: json!({"type": "object"}),
        strict: None,
    });
    request.stream = Some(true);
    request.stream_usage = Some(true);
    for (name, decode, encode) in FORMATS {
        let body = encode(&request).unwrap_or_else(|error| panic!("{name}: {error}"));
        let mut back = decode(&body).unwrap();
        assert!(
            back.extra_format.is_some(),
            "{name}: a decoded request's extras have a format"
        );
        back.extra_format = None;
        // What each format says in its own words: an effort for OpenAI, the URL for Gemini.
        match name {
            "openai_chat" | "openai_responses" => {
                assert_eq!(
                    back.reasoning.as_ref().unwrap().effort.as_deref(),
                    Some("low")
                );
                back.reasoning = request.reasoning.clone();
            }
            "gemini" => {
                assert_eq!((back.model.take(), back.stream), (None, None));
                back.model = request.model.clone();
                back.stream = request.stream;
                back.stream_usage = request.stream_usage;
            }
            _ => {}
        }
        assert_eq!(back, request, "{name}");
    }
}

#[test]
fn gemini_names_the_model_and_streaming_in_the_url() {
    let mut request = Request::new(vec![Message::user("Hi")]);
    assert!(gemini::path(&request).is_err());
    request.model = Some("models/gemini-2.5-flash".into());
    assert_eq!(
        gemini::path(&request).unwrap(),
        "models/gemini-2.5-flash:generateContent"
    );
    request.stream = Some(true);
    assert_eq!(
        gemini::path(&request).unwrap(),
        "models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    let body = gemini::encode(&request).unwrap();
    assert_eq!(body.get("model"), None);
    assert_eq!(body.get("stream"), None);
}

#[test]
fn an_effort_and_a_budget_convert_both_ways() {
    use deltafold::wire::request::{budget_to_effort, effort_to_budget};
    for effort in ["none", "minimal", "low", "medium", "high", "xhigh"] {
        assert_eq!(budget_to_effort(effort_to_budget(effort).unwrap()), effort);
    }
    assert_eq!(budget_to_effort(3000), "medium");
    assert_eq!(effort_to_budget("max"), None);
    // An effort Anthropic's budget cannot stand for is named, not guessed.
    let mut request = Request::new(vec![Message::user("Hi")]);
    request.max_output_tokens = Some(100);
    let mut reasoning = Reasoning::default();
    reasoning.effort = Some("max".into());
    request.reasoning = Some(reasoning);
    assert_eq!(
        anthropic::encode(&request).unwrap_err().to_string(),
        "Anthropic Messages requests cannot carry the reasoning effort \"max\""
    );
}

/// A Responses function tool requires `parameters` and `strict` (nullable, the SDK's
/// `FunctionToolParam`): a tool that has neither is written with `null` for both, which the API
/// reads as not given (its default), and reads back as it was.
#[test]
fn a_responses_tool_names_parameters_and_strict_even_when_unset() {
    let mut request = Request::new(vec![Message::user("Hi")]);
    let mut tool = ToolDefinition::new("now", json!({}));
    tool.parameters = None;
    request.tools = vec![tool];
    let body = openai_responses::encode(&request).unwrap();
    assert_eq!(
        body["tools"][0],
        json!({"name": "now", "parameters": null, "strict": null, "type": "function"})
    );
    let back = openai_responses::decode(&body).unwrap();
    assert_eq!(back.tools, request.tools);
}
