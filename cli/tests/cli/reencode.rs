//! `deltafold --to` and `--json-as`: the answer re-encoded into another provider's SSE as it
//! arrives (from a file, stdin or `--url`), or printed as that provider's non-streamed JSON.

use deltafold::{Assembler, Dialect, Options};

use super::*;

/// Every target, by its CLI name, with the dialect that reads its output back.
const TARGETS: [(&str, Dialect); 4] = [
    ("openai", Dialect::OpenAiChat),
    ("anthropic", Dialect::Anthropic),
    ("openai-responses", Dialect::OpenAiResponses),
    ("gemini", Dialect::Gemini),
];

const DEMO_TEXT: &str =
    "I'll check tonight's forecast for Lisbon and the local time there at once.";

/// `sse` assembled again, read strictly as `dialect`: it must be a complete, valid stream.
fn reassemble(sse: &str, dialect: Dialect) -> deltafold::AiMessage {
    let mut assembler = Assembler::with_options(Options::new().dialect(dialect));
    assembler.push(sse.as_bytes());
    assembler.end_input();
    while assembler.next_event().unwrap().is_some() {}
    let completion = assembler.finish().unwrap();
    assert!(completion.complete, "{dialect:?}: the stream did not end");
    completion.into_message()
}

/// The demo's content, whatever the target: text, reasoning and the two tool calls in order.
fn assert_demo_content(message: &deltafold::AiMessage, target: &str) {
    assert_eq!(message.text(), DEMO_TEXT, "{target}");
    assert!(
        message
            .reasoning()
            .starts_with("The user wants to know whether it is warm enough"),
        "{target}"
    );
    let calls: Vec<(&str, &str, Value)> = message
        .tool_calls()
        .map(|call| {
            (
                call.id.as_str(),
                call.name.as_str(),
                Value::Object(call.args.clone()),
            )
        })
        .collect();
    assert_eq!(
        calls,
        vec![
            (
                "call_wx_01",
                "get_weather",
                json!({"city": "Lisbon", "country": "PT", "when": "tonight", "units": "celsius"})
            ),
            (
                "call_tm_02",
                "get_local_time",
                json!({"timezone": "Europe/Lisbon"})
            ),
        ],
        "{target}"
    );
}

fn demo_file() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/demo/demo.sse")
        .to_str()
        .unwrap()
        .to_owned()
}

#[test]
fn to_reencodes_a_file_into_every_target_and_the_output_reads_back() {
    let file = demo_file();
    for (target, dialect) in TARGETS {
        let output = run(&["--to", target, &file]);
        assert!(output.status.success(), "{target}: {}", stderr(&output));
        assert_eq!(stderr(&output), "", "{target}");
        let sse = stdout(&output);
        assert!(
            sse.ends_with("\n\n"),
            "{target}: events end with a blank line"
        );
        assert_demo_content(&reassemble(&sse, dialect), target);
    }
}

#[test]
fn to_writes_each_targets_own_opening_and_closing_events() {
    let file = demo_file();
    let sse = |target| stdout(&run(&["--to", target, &file]));
    let openai = sse("openai");
    assert!(openai.starts_with("data: {"), "{openai}");
    assert!(openai.contains(r#""object":"chat.completion.chunk""#));
    assert!(openai.ends_with("data: [DONE]\n\n"));
    let anthropic = sse("anthropic");
    assert!(anthropic.starts_with("event: message_start\n"));
    assert!(anthropic.ends_with("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"));
    let responses = sse("openai-responses");
    assert!(responses.starts_with("event: response.created\n"));
    assert!(responses.contains("event: response.completed\n"));
    let gemini = sse("gemini");
    assert!(gemini.starts_with("data: {\"candidates\":"), "{gemini}");
    assert!(gemini.contains(r#""finishReason":"STOP""#));
}

#[test]
fn to_writes_stdin_re_encoded_as_it_arrives() {
    let (mut child, mut stdin, received, reader) = spawn_reading_lines(&["--to", "anthropic", "-"]);
    let events = demo_events();
    stdin.write_all(events[..3].concat().as_bytes()).unwrap();
    stdin.flush().unwrap();
    // The opening events and the first reasoning are out while stdin is still open.
    let first: Vec<String> = (0..8)
        .map(|_| received.recv_timeout(Duration::from_secs(20)).unwrap())
        .collect();
    assert_eq!(first[0], "event: message_start", "{first:?}");
    assert_eq!(first[3], "event: content_block_start", "{first:?}");
    assert_eq!(first[6], "event: content_block_delta", "{first:?}");
    assert!(first[7].contains(r#""thinking":"The user""#), "{first:?}");
    stdin.write_all(events[3..].concat().as_bytes()).unwrap();
    drop(stdin);
    let status = child.wait().unwrap();
    reader.join().unwrap();
    assert!(status.success());
    let mut sse = first.join("\n");
    for line in received.try_iter() {
        sse.push('\n');
        sse.push_str(&line);
    }
    sse.push('\n');
    assert_demo_content(&reassemble(&sse, Dialect::Anthropic), "anthropic");
}

#[tokio::test]
async fn to_reencodes_a_live_url_response() {
    let server = server::Server::start(|_| server::Reply::event_stream(DEMO)).await;
    let url = server.url("/v1/chat/completions");
    let output = tokio::process::Command::new(BIN)
        .args(["--to", "openai-responses", "--url", &url, "--data", "{}"])
        .output()
        .await
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let sse = stdout(&output);
    assert!(sse.starts_with("event: response.created\n"), "{sse}");
    assert_demo_content(
        &reassemble(&sse, Dialect::OpenAiResponses),
        "openai-responses",
    );
}

#[test]
fn a_truncated_source_is_left_cut_and_exits_1() {
    let file = TempFile::new("truncated-to.sse", &truncated_demo());
    for (target, closing) in [
        ("openai", "data: [DONE]"),
        ("anthropic", "message_stop"),
        ("openai-responses", "response.completed"),
    ] {
        let output = run(&["--to", target, file.path().to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(1), "{target}");
        assert!(error_line(&output).contains("truncated"), "{target}");
        let sse = stdout(&output);
        assert!(
            sse.contains(DEMO_TEXT.split(' ').next().unwrap()),
            "{target}"
        );
        assert!(!sse.contains(closing), "{target}: {sse}");
    }
}

#[test]
fn json_as_prints_each_providers_response_json() {
    let file = demo_file();
    let response = |target| json_line(&run(&["--json-as", target, &file]));

    let openai = response("openai");
    assert_eq!(openai["object"], "chat.completion");
    assert_eq!(openai["id"], "chatcmpl-demo-7f3a9c");
    let choice = &openai["choices"][0];
    assert_eq!(choice["message"]["content"], DEMO_TEXT);
    assert_eq!(
        choice["message"]["tool_calls"][1]["function"]["name"],
        "get_local_time"
    );
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert_eq!(openai["usage"]["total_tokens"], 281);

    let anthropic = response("anthropic");
    assert_eq!(anthropic["type"], "message");
    assert_eq!(anthropic["role"], "assistant");
    let kinds: Vec<&str> = anthropic["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|block| block["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["thinking", "text", "tool_use", "tool_use"]);
    assert_eq!(anthropic["content"][2]["input"]["city"], "Lisbon");
    assert_eq!(anthropic["stop_reason"], "tool_use");

    let responses = response("openai-responses");
    assert_eq!(responses["object"], "response");
    assert_eq!(responses["status"], "completed");
    let kinds: Vec<&str> = responses["output"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["reasoning", "message", "function_call", "function_call"]
    );

    let gemini = response("gemini");
    let parts = &gemini["candidates"][0]["content"]["parts"];
    assert_eq!(parts[0]["thought"], true);
    assert_eq!(parts[1]["text"], DEMO_TEXT);
    assert_eq!(parts[3]["functionCall"]["name"], "get_local_time");
    assert_eq!(gemini["usageMetadata"]["totalTokenCount"], 281);
}

#[test]
fn json_as_reads_stdin_and_json_stays_langchains_dict() {
    let output = run_with_stdin(&["--json-as", "anthropic", "-"], DEMO);
    assert!(output.status.success());
    assert_eq!(json_line(&output)["type"], "message");
    let langchain = json_line(&run(&["--json", &demo_file()]));
    assert_demo_message(&langchain);
}

#[test]
fn reencoding_flags_reject_unknown_targets_and_other_outputs() {
    for args in [
        &["--to", "klingon", "x.sse"][..],
        &["--json-as", "ollama", "x.sse"],
        &["--to", "openai", "--json", "x.sse"],
        &["--to", "openai", "--events", "x.sse"],
        &["--json-as", "gemini", "--json", "x.sse"],
        &["--to", "openai", "--json-as", "gemini", "x.sse"],
    ] {
        let output = run(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
    }
    let unknown = stderr(&run(&["--to", "klingon", "x.sse"]));
    assert!(
        unknown.contains("openai, anthropic, openai-responses, gemini, vercel-ui or ag-ui"),
        "{unknown}"
    );
}

/// One-byte refusal and text turns behind an open call, into Responses: the parts would be
/// written at once when the call ends, many times what was read (it wrote 150 MB in one go
/// for 9.7 MB); the run stops with the stream's limit error, not an output error.
#[test]
fn to_stops_text_held_behind_a_call_before_it_writes_it_at_once() {
    let mut stream = String::from("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"\"}}]}}]}\n\n");
    for _ in 0..20_000 {
        stream.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"r\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"t\"}}]}\n\n");
    }
    stream.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n");
    let output = run_with_stdin(&["--to", "openai-responses"], &stream);
    assert!(!output.status.success());
    let error = stderr(&output);
    assert!(
        error.starts_with(
            "deltafold: limit exceeded: re-encoding into openai-responses would write"
        ),
        "{error}"
    );
    assert!(
        stdout(&output).len() < stream.len(),
        "{}",
        stdout(&output).len()
    );
}
