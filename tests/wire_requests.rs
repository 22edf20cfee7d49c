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
    // What Anthropic takes beside thinking: no forced tool, a temperature of 1, a top_p of 0.95.
    request.tool_choice = Some(ToolChoice::Auto);
    request.max_output_tokens = Some(4000);
    request.temperature = Some(1.0);
    request.top_p = Some(0.95);
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

/// The request of `body` in `format`, encoded to `target`: the body, or the error's text.
fn translate(body: Value, format: usize, target: usize) -> Result<Value, String> {
    let request = FORMATS[format].1(&body).unwrap();
    FORMATS[target].2(&request).map_err(|error| error.to_string())
}

#[test]
fn extras_go_as_they_are_to_their_own_format_and_only_where_they_have_a_field() {
    let chat = json!({
        "model": "gpt-4.1", "max_tokens": 100, "store": true, "metadata": {"team": "a"},
        "user": "u-1", "logprobs": true, "stream": true,
        "stream_options": {"include_usage": true, "include_obfuscation": false},
        "messages": [{"role": "user", "content": "Hi"}],
    });
    // Its own format: as they came.
    let same = translate(chat.clone(), 0, 0).unwrap();
    assert_eq!(
        (same["logprobs"].clone(), same["store"].clone()),
        (json!(true), json!(true))
    );
    assert_eq!(
        same["stream_options"],
        json!({"include_usage": true, "include_obfuscation": false})
    );
    // Responses shares all but `logprobs`; Anthropic and Gemini none.
    assert_eq!(
        translate(chat.clone(), 0, 2).unwrap_err(),
        "OpenAI Responses requests cannot carry the OpenAI Chat Completions field `logprobs` \
         (not translated; Request::drop_unsupported drops it)"
    );
    assert_eq!(
        translate(chat.clone(), 0, 1).unwrap_err(),
        "Anthropic Messages requests cannot carry the OpenAI Chat Completions fields `logprobs`, \
         `metadata`, `store`, `stream_options.include_obfuscation`, `user` (not translated; \
         Request::drop_unsupported drops it)"
    );
    let mut request = openai_chat::decode(&chat).unwrap();
    let dropped = request.drop_unsupported(WireFormat::OpenAiResponses);
    assert_eq!(
        dropped.extra,
        json!({"logprobs": true}).as_object().unwrap().clone()
    );
    let body = openai_responses::encode(&request).unwrap();
    assert_eq!(
        (&body["store"], &body["metadata"], &body["user"]),
        (&json!(true), &json!({"team": "a"}), &json!("u-1"))
    );
    assert_eq!(
        body["stream_options"],
        json!({"include_obfuscation": false})
    );
    // A container's member is named as such: Gemini's generationConfig.
    let gemini_body = json!({
        "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
        "generationConfig": {"responseModalities": ["TEXT"], "maxOutputTokens": 10},
    });
    assert_eq!(
        translate(gemini_body, 3, 1).unwrap_err(),
        "Anthropic Messages requests cannot carry the Gemini field `generationConfig.responseModalities` \
         (not translated; Request::drop_unsupported drops it)"
    );
    // Fields added to a request built by hand are the caller's: written as they are.
    let mut built = Request::new(vec![Message::user("Hi")]);
    built.max_output_tokens = Some(10);
    built.extra.insert("service_tier".into(), "auto".into());
    assert_eq!(anthropic::encode(&built).unwrap()["service_tier"], "auto");
}

#[test]
fn a_function_tools_extra_fields_stay_in_their_format() {
    let body = json!({
        "model": "claude-sonnet-4-5", "max_tokens": 100,
        "messages": [{"role": "user", "content": "Hi"}],
        "tools": [{"name": "get_weather", "input_schema": {"type": "object"},
                   "cache_control": {"type": "ephemeral"}}],
    });
    assert_eq!(
        translate(body.clone(), 1, 1).unwrap()["tools"][0]["cache_control"],
        json!({"type": "ephemeral"})
    );
    assert_eq!(
        translate(body.clone(), 1, 3).unwrap_err(),
        "Gemini requests cannot carry the Anthropic Messages tool `cache_control` of \
         `get_weather` (not translated; Request::drop_unsupported drops it)"
    );
    let mut request = anthropic::decode(&body).unwrap();
    let dropped = request.drop_unsupported(WireFormat::Gemini);
    assert_eq!(
        Value::Object(dropped.tool_extra),
        json!({"get_weather": {"cache_control": {"type": "ephemeral"}}})
    );
    let sent = gemini::encode(&request).unwrap();
    assert_eq!(
        sent["tools"][0]["functionDeclarations"][0],
        json!({"name": "get_weather", "parametersJsonSchema": {"type": "object"}})
    );
}

#[test]
fn drop_unsupported_removes_what_the_target_has_no_field_for_and_leaves_the_rest() {
    let gemini_body = json!({
        "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
        "tools": [{"googleSearch": {}}],
        "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
        "generationConfig": {"topK": 40, "seed": 3, "stopSequences": ["###"],
                             "temperature": 1.5, "thinkingConfig": {"includeThoughts": true}},
    });
    let mut request = gemini::decode(&gemini_body).unwrap();
    request.model = Some("gpt-5".into());
    let dropped = request.drop_unsupported(WireFormat::OpenAiResponses);
    assert_eq!(
        Value::Object(dropped.settings),
        json!({"stop": ["###"], "top_k": 40, "seed": 3})
    );
    assert_eq!(dropped.native_tools.len(), 1);
    assert_eq!(dropped.extra.keys().collect::<Vec<_>>(), ["safetySettings"]);
    let body = openai_responses::encode(&request).unwrap();
    assert_eq!(body["temperature"], 1.5);
    assert_eq!(body["reasoning"]["summary"], "auto"); // Responses has a field for it
                                                      // Nothing left to drop; what would change the request's meaning is still an error.
    request.max_output_tokens = Some(100);
    assert!(request
        .drop_unsupported(WireFormat::Anthropic)
        .settings
        .is_empty());
    assert_eq!(
        anthropic::encode(&request).unwrap_err().to_string(),
        "Anthropic Messages requests cannot carry the temperature 1.5 (at most 1)"
    );
    assert!(request
        .drop_unsupported(WireFormat::OpenAiResponses)
        .is_empty());
}

#[test]
fn anthropic_refuses_what_its_api_rejects_beside_thinking() {
    let body = |extra: Value| {
        let mut body = json!({
            "model": "gpt-5", "max_completion_tokens": 4000, "reasoning_effort": "low",
            "messages": [{"role": "user", "content": "Hi"}],
            "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
        });
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        translate(body, 0, 1).map(|_| ())
    };
    assert_eq!(body(json!({})), Ok(()));
    let prefix = "Anthropic Messages requests cannot carry";
    for (extra, what) in [
        (json!({"tool_choice": "required"}), "forced tool use"),
        (json!({"temperature": 0.2}), "the temperature 0.2 (only 1)"),
        (json!({"top_p": 0.5}), "the top_p 0.5 (0.95 to 1)"),
        (
            json!({"max_completion_tokens": 1024}),
            "thinking with max_tokens 1024 (at least 1025)",
        ),
    ] {
        let what = if what.starts_with("thinking with max_tokens") {
            what.to_owned()
        } else {
            format!("{what} with thinking")
        };
        assert_eq!(body(extra), Err(format!("{prefix} {what}")));
    }
    // The effort's budget (2048 for `low`) is fitted under a smaller max_tokens.
    let fitted = translate(
        json!({"model": "gpt-5", "max_completion_tokens": 2048, "reasoning_effort": "low",
               "messages": [{"role": "user", "content": "Hi"}]}),
        0,
        1,
    )
    .unwrap();
    assert_eq!(fitted["thinking"]["budget_tokens"], 2047);
    // Without thinking, each of them goes.
    assert_eq!(
        body(json!({"reasoning_effort": "none", "tool_choice": "required", "temperature": 0.2})),
        Ok(())
    );
    let mut request = Request::new(vec![Message::user("Hi")]);
    request.max_output_tokens = Some(4000);
    request.top_k = Some(5);
    let mut reasoning = Reasoning::default();
    reasoning.budget_tokens = Some(512);
    request.reasoning = Some(reasoning);
    assert_eq!(
        anthropic::encode(&request).unwrap_err().to_string(),
        format!("{prefix} a thinking budget of 512 tokens (at least 1024)")
    );
    request.reasoning.as_mut().unwrap().budget_tokens = Some(1024);
    assert_eq!(
        anthropic::encode(&request).unwrap_err().to_string(),
        format!("{prefix} top_k with thinking")
    );
    // Interleaved thinking (a beta header) lets the budget exceed max_tokens: an Anthropic
    // client's request goes back as it came.
    let interleaved = json!({
        "model": "claude-sonnet-4-5", "max_tokens": 1024,
        "thinking": {"type": "enabled", "budget_tokens": 4096},
        "messages": [{"role": "user", "content": "Hi"}],
    });
    assert_eq!(
        translate(interleaved, 1, 1).unwrap()["thinking"]["budget_tokens"],
        4096
    );
}

#[test]
fn a_seed_and_penalties_go_between_chat_and_gemini() {
    let chat = json!({
        "model": "gpt-4.1", "seed": 42, "presence_penalty": 0.5, "frequency_penalty": -0.5,
        "messages": [{"role": "user", "content": "Hi"}],
    });
    let gemini_body = translate(chat.clone(), 0, 3).unwrap();
    assert_eq!(
        gemini_body["generationConfig"],
        json!({"seed": 42, "presencePenalty": 0.5, "frequencyPenalty": -0.5})
    );
    let back = gemini::decode(&gemini_body).unwrap();
    assert_eq!(
        (back.seed, back.presence_penalty, back.frequency_penalty),
        (Some(42), Some(0.5), Some(-0.5))
    );
    let mut request = openai_chat::decode(&chat).unwrap();
    assert_eq!(openai_chat::encode(&request).unwrap()["seed"], 42);
    assert_eq!(
        openai_responses::encode(&request).unwrap_err().to_string(),
        "OpenAI Responses requests cannot carry a seed"
    );
    request.seed = Some(1 << 40);
    assert_eq!(
        gemini::encode(&request).unwrap_err().to_string(),
        "Gemini requests cannot carry the seed 1099511627776 (a 32-bit integer)"
    );
}

#[test]
fn the_number_of_answers_and_the_end_users_id_go_where_they_have_a_field() {
    let chat = json!({
        "model": "gpt-4.1", "max_tokens": 100, "n": 2, "safety_identifier": "hash-1",
        "messages": [{"role": "user", "content": "Hi"}],
    });
    let gemini_body = translate(chat.clone(), 0, 3);
    assert_eq!(
        gemini_body.unwrap_err(),
        "Gemini requests cannot carry an end user's id"
    );
    let mut request = openai_chat::decode(&chat).unwrap();
    request.user_id = None;
    assert_eq!(
        gemini::encode(&request).unwrap()["generationConfig"]["candidateCount"],
        2
    );
    assert_eq!(
        anthropic::encode(&request).unwrap_err().to_string(),
        "Anthropic Messages requests cannot carry several answers"
    );
    request.choices = Some(1); // one answer is what every format gives
    assert!(anthropic::encode(&request).is_ok());
    // OpenAI's safety_identifier is Anthropic's metadata.user_id; metadata's other members stay.
    let claude = json!({
        "model": "claude-sonnet-4-5", "max_tokens": 100,
        "metadata": {"user_id": "hash-1"},
        "messages": [{"role": "user", "content": "Hi"}],
    });
    for target in [0, 2] {
        assert_eq!(
            translate(claude.clone(), 1, target).unwrap()["safety_identifier"],
            "hash-1"
        );
    }
    assert_eq!(
        translate(chat, 0, 1).unwrap_err(),
        "Anthropic Messages requests cannot carry several answers"
    );
    let mut request =
        openai_responses::decode(&json!({"input": "Hi", "safety_identifier": "h"})).unwrap();
    request.max_output_tokens = Some(10);
    assert_eq!(
        anthropic::encode(&request).unwrap()["metadata"],
        json!({"user_id": "h"})
    );
    assert_eq!(
        translate(
            json!({"model": "c", "max_tokens": 5, "metadata": {"user_id": "u", "tier": "x"},
                   "messages": [{"role": "user", "content": "Hi"}]}),
            1,
            1
        )
        .unwrap()["metadata"],
        json!({"user_id": "u", "tier": "x"})
    );
}

/// The JSON pointer of every member and item of `value` below `prefix`.
fn pointers(value: &Value, prefix: &str, out: &mut Vec<String>) {
    let children: Vec<(String, &Value)> = match value {
        Value::Object(object) => object
            .iter()
            .map(|(key, member)| (key.replace('~', "~0").replace('/', "~1"), member))
            .collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| (i.to_string(), item))
            .collect(),
        _ => Vec::new(),
    };
    for (step, child) in children {
        let pointer = format!("{prefix}/{step}");
        out.push(pointer.clone());
        pointers(child, &pointer, out);
    }
}

/// No value in any member of a request — wrong types, negative or fractional counts, nesting
/// — makes a decoder, an encoder or `drop_unsupported` panic: each is read or refused.
#[test]
fn a_member_of_any_type_is_read_or_refused_never_a_panic() {
    let odd = [
        json!(null),
        json!(-1),
        json!(1.5),
        json!(u64::MAX),
        json!("x"),
        json!([]),
        json!({}),
        json!([[]]),
        json!({"type": "OBJECT", "properties": {"a": {"type": 7}}}),
    ];
    let mut cases = 0;
    for (source, path) in fixtures() {
        let body = read(&path);
        let mut paths = Vec::new();
        pointers(&body, "", &mut paths);
        for pointer in paths {
            for value in &odd {
                let mut changed = body.clone();
                *changed.pointer_mut(&pointer).unwrap() = value.clone();
                cases += 1;
                let Ok(request) = FORMATS[source].1(&changed) else {
                    continue;
                };
                for ((_, _, encode), target) in FORMATS.into_iter().zip(WIRE_FORMATS) {
                    let _ = encode(&request);
                    let mut dropped = request.clone();
                    dropped.drop_unsupported(target);
                    let _ = encode(&dropped);
                }
            }
        }
    }
    assert!(cases > 4000, "{cases} cases");
}
