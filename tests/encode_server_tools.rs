//! Server-side tool activity and citations through re-encoding: every fixture (and recording,
//! when they sit beside the repository) with server tools or citations is re-encoded live and
//! non-streamed into Anthropic, Responses and Gemini and decoded again; the blocks each target
//! has a place for come back with the same ids, names, arguments, status and citations — and,
//! into the source's own provider, the same outputs.

use std::path::{Path, PathBuf};

use deltafold::encode::{message_json, Encoder, Target};
use deltafold::message::{Annotation, ToolStatus};
use deltafold::{AiMessage, Assembler, ContentBlock, Dialect, Options};
use serde_json::Value;

/// A server block or citation as the comparison sees it.
#[derive(Debug, PartialEq)]
enum Shape {
    Call {
        id: String,
        name: String,
        args: Value,
    },
    Result {
        call: String,
        error: bool,
        output: Option<Value>,
    },
    Approval {
        id: String,
        name: String,
        args: Value,
    },
    Citation {
        url: Option<String>,
        title: Option<String>,
        cited_text: Option<String>,
        span: Option<(u64, Option<u64>)>,
    },
}

/// `after` with the spans `before` has no span for left out: Responses requires one, and writes
/// zeros for a citation without (Anthropic's web search citations).
fn without_new_spans(mut after: Vec<Shape>, before: &[Shape]) -> Vec<Shape> {
    for (after, before) in after.iter_mut().zip(before) {
        if let (Shape::Citation { span, .. }, Shape::Citation { span: None, .. }) = (after, before)
        {
            *span = None;
        }
    }
    after
}

/// The tools each target has a block or item for (`same`: the source is the target's provider).
fn carried(target: Target, name: &str, same: bool) -> bool {
    match target {
        // Searches and URL reads are Gemini's grounding metadata, which says nothing of another
        // provider's calls (their ids, their arguments).
        Target::Gemini => {
            name == "code_interpreter" || (same && matches!(name, "web_search" | "url_context"))
        }
        Target::Anthropic => matches!(
            name,
            "web_search"
                | "web_fetch"
                | "code_interpreter"
                | "bash_code_execution"
                | "text_editor_code_execution"
                | "remote_mcp"
        ),
        _ => matches!(
            name,
            "web_search"
                | "file_search"
                | "code_interpreter"
                | "image_generation"
                | "remote_mcp"
                | "mcp_list_tools"
        ),
    }
}

/// Whether `target` keeps the result of a call named `name`: into Anthropic from another
/// provider only a code run's output and an MCP result have a shape the SDK takes (a web
/// search result needs Anthropic's own `encrypted_content`).
fn result_carried(target: Target, name: &str, same: bool) -> bool {
    carried(target, name, same)
        && (same
            || target != Target::Anthropic
            || matches!(name, "code_interpreter" | "code_execution" | "remote_mcp"))
}

/// What `target` keeps of `message`; outputs only when `same` (the source's own provider).
fn shapes(message: &AiMessage, target: Target, same: bool) -> Vec<Shape> {
    let names: std::collections::HashMap<&str, &str> = message
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::ServerToolCall(call) => Some((call.id.as_str(), call.name.as_str())),
            _ => None,
        })
        .collect();
    let mut shapes = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::ServerToolCall(call) if carried(target, &call.name, same) => {
                let mut args = Value::Object(call.args.clone());
                // Gemini's code part holds the code and its language, a Responses
                // `code_interpreter_call` the code: another provider's other arguments stay.
                if call.name == "code_interpreter"
                    && !same
                    && matches!(target, Target::Gemini | Target::OpenAiResponses)
                {
                    args = serde_json::json!({"code": call.args.get("code")});
                }
                // Responses' web search action always has a type.
                if target == Target::OpenAiResponses && call.name == "web_search" {
                    args.as_object_mut().unwrap().remove("type");
                }
                shapes.push(Shape::Call {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    args,
                })
            }
            ContentBlock::ServerToolResult(result)
                if names
                    .get(result.tool_call_id.as_str())
                    .is_some_and(|name| result_carried(target, name, same)) =>
            {
                // Anthropic tells a failed run by its `return_code`, which is no status.
                let code = names.get(result.tool_call_id.as_str()) == Some(&"code_interpreter");
                let status_kept = same || target != Target::Anthropic || !code;
                shapes.push(Shape::Result {
                    call: result.tool_call_id.clone(),
                    error: result.status == ToolStatus::Error && status_kept,
                    output: result.output.clone().filter(|_| same),
                })
            }
            ContentBlock::ToolApprovalRequest(request) if target == Target::OpenAiResponses => {
                shapes.push(Shape::Approval {
                    id: request.id.clone(),
                    name: request.name.clone(),
                    args: Value::Object(request.args.clone()),
                })
            }
            ContentBlock::Text { annotations, .. } => {
                for annotation in annotations {
                    if let Annotation::Citation(citation) = annotation {
                        // A Gemini citation is a grounding support, which has a span.
                        if target == Target::Gemini && citation.start_index.is_none() {
                            continue;
                        }
                        shapes.push(Shape::Citation {
                            url: citation.url.clone().filter(|url| !url.is_empty()),
                            title: citation.title.clone().filter(|title| !title.is_empty()),
                            cited_text: citation.cited_text.clone().filter(|text| !text.is_empty()),
                            span: citation
                                .start_index
                                .map(|start| (start, citation.end_index)),
                        })
                    }
                }
            }
            _ => {}
        }
    }
    shapes
}

fn dialect(target: Target) -> Dialect {
    match target {
        Target::Anthropic => Dialect::Anthropic,
        Target::Gemini => Dialect::Gemini,
        _ => Dialect::OpenAiResponses,
    }
}

/// The source's message and `target`'s live re-encoding of it.
fn encode_live(bytes: &[u8], target: Target) -> Option<(AiMessage, String)> {
    let mut assembler = Assembler::new();
    let mut encoder = Encoder::new(target);
    let mut out = String::new();
    for chunk in bytes.chunks(61) {
        assembler.push(chunk);
        while let Some(event) = assembler.next_event().ok()? {
            let event = event.into_owned();
            encoder.encode(&event, &assembler, &mut out);
        }
    }
    assembler.end_input();
    while let Some(event) = assembler.next_event().ok()? {
        let event = event.into_owned();
        encoder.encode(&event, &assembler, &mut out);
    }
    encoder.finish(&mut out);
    let completion = assembler.finish().ok()?;
    let message = completion.choices.into_iter().next()?.message;
    Some((message, out))
}

/// Checks one stream into both targets, live and non-streamed; returns the blocks compared.
fn check(path: &Path) -> usize {
    let bytes = std::fs::read(path).unwrap();
    let mut compared = 0;
    for target in [Target::Anthropic, Target::OpenAiResponses, Target::Gemini] {
        let Some((original, sse)) = encode_live(&bytes, target) else {
            return compared;
        };
        let provider = original.response_metadata.model_provider.as_deref();
        let same = match target {
            Target::Anthropic => provider == Some("anthropic"),
            Target::Gemini => provider == Some("google_genai"),
            _ => provider == Some("openai"),
        };
        let before = shapes(&original, target, same);
        let options = Options::default().dialect(dialect(target));
        let live = deltafold::assemble(sse.as_bytes(), options.clone())
            .unwrap_or_else(|error| panic!("{} → {target}: {error}\n{sse}", path.display()));
        let live = &live.choices[0].message;
        assert_eq!(
            without_new_spans(shapes(live, target, same), &before),
            before,
            "{} → {target} live\n{sse}",
            path.display()
        );
        // A one-line body read as NDJSON needs its line ended to count as complete.
        let json = message_json(target, &original).to_string() + "\n";
        let whole = deltafold::assemble(json.as_bytes(), options)
            .unwrap_or_else(|error| panic!("{} → {target}: {error}\n{json}", path.display()));
        assert_eq!(
            without_new_spans(shapes(&whole.choices[0].message, target, same), &before),
            before,
            "{} → {target} non-streamed\n{json}",
            path.display()
        );
        compared += before.len();
    }
    compared
}

fn streams(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "sse"))
        .collect();
    found.sort();
    found
}

#[test]
fn server_tools_and_citations_come_back_from_anthropic_and_responses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut compared = 0;
    for name in [
        "anthropic/server_tools.sse",
        "anthropic/web_search.sse",
        "anthropic/citations.sse",
        "openai-responses/server_tools.sse",
        "openai-responses/annotations.sse",
        "gemini/code_execution.sse",
        "gemini/code_execution_failed_thought_and_order.sse",
        "gemini/grounding_non_ascii_byte_offsets.sse",
        "gemini/url_context_failed_page_off_by_one.sse",
    ] {
        let count = check(&root.join(name));
        assert!(count > 0, "{name}: nothing compared");
        compared += count;
    }
    assert!(compared >= 20, "{compared} blocks compared");
}

#[test]
fn recordings_with_server_tools_come_back_too() {
    let research = Path::new(env!("CARGO_MANIFEST_DIR")).join("../research12");
    for dir in ["anthropic", "openai_responses", "gemini"] {
        for path in streams(&research.join(dir)) {
            check(&path);
        }
    }
    for path in streams(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/real-sse")) {
        check(&path);
    }
}

/// A Gemini stream with code runs, searches and URL reads re-encoded into Gemini, live and
/// non-streamed, reads back as the very same blocks: code parts with `thought`, outcome and
/// output, the search's queries and chunks, the citations and their spans.
#[test]
fn gemini_server_tools_come_back_from_gemini_whole() {
    let mut paths: Vec<PathBuf> = [
        "code_execution.sse",
        "code_execution_failed_thought_and_order.sse",
        "grounding_non_ascii_byte_offsets.sse",
        "url_context_failed_page_off_by_one.sse",
    ]
    .iter()
    .map(|name| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/gemini")
            .join(name)
    })
    .collect();
    let fixtures = paths.len();
    paths.extend(streams(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../research12/gemini"),
    ));
    let mut fixture_server_blocks = 0;
    for (number, path) in paths.into_iter().enumerate() {
        let bytes = std::fs::read(&path).unwrap();
        let (original, sse) = encode_live(&bytes, Target::Gemini).unwrap();
        let options = Options::default().dialect(Dialect::Gemini);
        let live = deltafold::assemble(sse.as_bytes(), options.clone()).unwrap();
        assert_eq!(
            live.choices[0].message.content,
            original.content,
            "{} live\n{sse}",
            path.display()
        );
        let json = message_json(Target::Gemini, &original).to_string() + "\n";
        let whole = deltafold::assemble(json.as_bytes(), options).unwrap();
        assert_eq!(
            whole.choices[0].message.content,
            original.content,
            "{} non-streamed\n{json}",
            path.display()
        );
        if number >= fixtures {
            continue;
        }
        fixture_server_blocks += original
            .content
            .iter()
            .filter(|block| {
                matches!(
                    block,
                    ContentBlock::ServerToolCall(_) | ContentBlock::ServerToolResult(_)
                )
            })
            .count();
    }
    assert_eq!(
        fixture_server_blocks, 10,
        "the fixtures' server blocks; the research recordings are only checked when present"
    );
}

/// A server call's live progress and partial images, as an app showing them sees them.
fn live_server_events(bytes: &[u8], dialect: Dialect) -> Vec<String> {
    let mut assembler = Assembler::with_options(Options::default().dialect(dialect));
    assembler.push(bytes);
    assembler.end_input();
    let mut seen = Vec::new();
    // A cut recording reports what came before the cut.
    while let Ok(Some(event)) = assembler.next_event() {
        match event {
            deltafold::Event::ServerToolCallProgress { id, status, .. } => {
                seen.push(format!("{id} {status:?}"))
            }
            deltafold::Event::ServerToolPartialImage {
                id,
                index,
                mime_type,
                data,
                ..
            } => seen.push(format!("{id} partial {index} {mime_type} {data}")),
            _ => {}
        }
    }
    seen
}

/// The events of each call, in order, calls by their first event.
fn by_call(events: &[String]) -> Vec<Vec<&str>> {
    let mut calls: Vec<(&str, Vec<&str>)> = Vec::new();
    for event in events {
        let id = event.split(' ').next().unwrap_or_default();
        match calls.iter_mut().find(|(call, _)| *call == id) {
            Some((_, seen)) => seen.push(event),
            None => calls.push((id, vec![event])),
        }
    }
    calls.into_iter().map(|(_, seen)| seen).collect()
}

/// A Responses stream with a web search, an image generation and a code run, each reporting
/// its progress, written from OpenAI's documented events.
fn responses_with_progress() -> Vec<u8> {
    let events = [
        r#"{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","model":"gpt-5","status":"in_progress"}}"#,
        r#"{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"ws_1","type":"web_search_call","status":"in_progress"}}"#,
        r#"{"type":"response.web_search_call.in_progress","sequence_number":2,"output_index":0,"item_id":"ws_1"}"#,
        r#"{"type":"response.web_search_call.searching","sequence_number":3,"output_index":0,"item_id":"ws_1"}"#,
        r#"{"type":"response.web_search_call.completed","sequence_number":4,"output_index":0,"item_id":"ws_1"}"#,
        r#"{"type":"response.output_item.done","sequence_number":5,"output_index":0,"item":{"id":"ws_1","type":"web_search_call","status":"completed","action":{"type":"search","query":"otters"}}}"#,
        r#"{"type":"response.output_item.added","sequence_number":6,"output_index":1,"item":{"id":"ig_1","type":"image_generation_call","status":"in_progress"}}"#,
        r#"{"type":"response.image_generation_call.in_progress","sequence_number":7,"output_index":1,"item_id":"ig_1"}"#,
        r#"{"type":"response.image_generation_call.generating","sequence_number":8,"output_index":1,"item_id":"ig_1"}"#,
        r#"{"type":"response.image_generation_call.partial_image","sequence_number":9,"output_index":1,"item_id":"ig_1","partial_image_index":0,"partial_image_b64":"UklGRgAA","output_format":"webp"}"#,
        r#"{"type":"response.image_generation_call.partial_image","sequence_number":10,"output_index":1,"item_id":"ig_1","partial_image_index":1,"partial_image_b64":"UklGRgAAAAAA","output_format":"webp"}"#,
        r#"{"type":"response.image_generation_call.completed","sequence_number":11,"output_index":1,"item_id":"ig_1"}"#,
        r#"{"type":"response.output_item.done","sequence_number":12,"output_index":1,"item":{"id":"ig_1","type":"image_generation_call","status":"completed","output_format":"webp","result":"UklGRgAAAAAAAAAA"}}"#,
        r#"{"type":"response.output_item.added","sequence_number":13,"output_index":2,"item":{"id":"ci_1","type":"code_interpreter_call","status":"in_progress","code":"","container_id":"cntr_1","outputs":null}}"#,
        r#"{"type":"response.code_interpreter_call.in_progress","sequence_number":14,"output_index":2,"item_id":"ci_1"}"#,
        r#"{"type":"response.code_interpreter_call_code.delta","sequence_number":15,"output_index":2,"item_id":"ci_1","delta":"print(6*7)"}"#,
        r#"{"type":"response.code_interpreter_call_code.done","sequence_number":16,"output_index":2,"item_id":"ci_1","code":"print(6*7)"}"#,
        r#"{"type":"response.code_interpreter_call.interpreting","sequence_number":17,"output_index":2,"item_id":"ci_1"}"#,
        r#"{"type":"response.code_interpreter_call.completed","sequence_number":18,"output_index":2,"item_id":"ci_1"}"#,
        r#"{"type":"response.output_item.done","sequence_number":19,"output_index":2,"item":{"id":"ci_1","type":"code_interpreter_call","status":"completed","code":"print(6*7)","container_id":"cntr_1","outputs":[{"type":"logs","logs":"42\n"}]}}"#,
        r#"{"type":"response.completed","sequence_number":20,"response":{"id":"resp_1","model":"gpt-5","status":"completed","usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15}}}"#,
    ];
    sse_of(&events)
}

#[test]
fn live_progress_and_partial_images_are_re_encoded_into_responses() {
    let mut sources = vec![("documented".to_owned(), responses_with_progress())];
    let research = Path::new(env!("CARGO_MANIFEST_DIR")).join("../research12");
    for dir in ["openai_responses", "xai"] {
        for path in streams(&research.join(dir)) {
            sources.push((path.display().to_string(), std::fs::read(&path).unwrap()));
        }
    }
    let mut reported = 0;
    for (name, bytes) in sources {
        let before = live_server_events(&bytes, Dialect::OpenAiResponses);
        let Some((_, sse)) = encode_live(&bytes, Target::OpenAiResponses) else {
            assert_ne!(name, "documented");
            continue;
        };
        let after = live_server_events(sse.as_bytes(), Dialect::OpenAiResponses);
        // Items come one after another: calls the source ran side by side report call by call.
        assert_eq!(by_call(&after), by_call(&before), "{name}\n{sse}");
        reported += before.len();
        if name == "documented" {
            assert_eq!(
                before,
                [
                    "ws_1 InProgress",
                    "ws_1 Searching",
                    "ws_1 Completed",
                    "ig_1 InProgress",
                    "ig_1 Generating",
                    "ig_1 partial 0 image/webp UklGRgAA",
                    "ig_1 partial 1 image/webp UklGRgAAAAAA",
                    "ig_1 Completed",
                    "ci_1 InProgress",
                    "ci_1 Interpreting",
                    "ci_1 Completed",
                ]
            );
        }
    }
    assert!(reported >= 11, "{reported} live server events compared");
}

/// One SSE event per payload, named by its `type` when it has one.
fn sse_of(payloads: &[&str]) -> Vec<u8> {
    payloads
        .iter()
        .map(|payload| {
            let kind: Value = serde_json::from_str(payload).unwrap();
            match kind["type"].as_str() {
                Some(kind) => format!("event: {kind}\ndata: {payload}\n\n"),
                None => format!("data: {payload}\n\n"),
            }
        })
        .collect::<String>()
        .into_bytes()
}

/// The items of a live Responses stream as their `output_item.done` events carry them, and
/// whether each item was done before the next one was added.
fn responses_items(sse: &str) -> (Vec<Value>, bool) {
    let mut items = Vec::new();
    let mut open = false;
    let mut one_at_a_time = true;
    for line in sse.lines() {
        let Some(payload) = line.strip_prefix("data: ") else {
            continue;
        };
        let event: Value = serde_json::from_str(payload).unwrap();
        match event["type"].as_str() {
            Some("response.output_item.added") => {
                one_at_a_time &= !open;
                open = true;
            }
            Some("response.output_item.done") => {
                open = false;
                items.push(event["item"].clone());
            }
            _ => {}
        }
    }
    (items, one_at_a_time)
}

/// xAI runs searches side by side (its recordings add the second item before the first is
/// done); written from the documented events. Responses allows one item at a time, so the
/// first search's item, which waits for its result, holds the second back until it has it.
#[test]
fn searches_run_side_by_side_keep_their_sources_in_responses() {
    let bytes = sse_of(&[
        r#"{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","model":"grok-4-fast","output":[]}}"#,
        r#"{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"ws_a","type":"web_search_call","status":"in_progress","action":{"type":"search","query":"","sources":[]}}}"#,
        r#"{"type":"response.output_item.added","sequence_number":2,"output_index":1,"item":{"id":"ws_b","type":"web_search_call","status":"in_progress","action":{"type":"search","query":"","sources":[]}}}"#,
        r#"{"type":"response.output_item.done","sequence_number":3,"output_index":0,"item":{"id":"ws_a","type":"web_search_call","status":"completed","action":{"type":"search","query":"otters","sources":[{"type":"url","url":"https://a.example/"}]}}}"#,
        r#"{"type":"response.output_item.done","sequence_number":4,"output_index":1,"item":{"id":"ws_b","type":"web_search_call","status":"completed","action":{"type":"search","query":"beavers","sources":[{"type":"url","url":"https://b.example/"}]}}}"#,
        r#"{"type":"response.output_item.added","sequence_number":5,"output_index":2,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}}"#,
        r#"{"type":"response.content_part.added","sequence_number":6,"item_id":"msg_1","output_index":2,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}"#,
        r#"{"type":"response.output_text.delta","sequence_number":7,"item_id":"msg_1","output_index":2,"content_index":0,"delta":"Both swim."}"#,
        r#"{"type":"response.output_text.done","sequence_number":8,"item_id":"msg_1","output_index":2,"content_index":0,"text":"Both swim."}"#,
        r#"{"type":"response.content_part.done","sequence_number":9,"item_id":"msg_1","output_index":2,"content_index":0,"part":{"type":"output_text","text":"Both swim.","annotations":[]}}"#,
        r#"{"type":"response.output_item.done","sequence_number":10,"output_index":2,"item":{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Both swim.","annotations":[]}]}}"#,
        r#"{"type":"response.completed","sequence_number":11,"response":{"id":"resp_1","object":"response","status":"completed","model":"grok-4-fast","output":[],"usage":{"input_tokens":3,"output_tokens":2,"total_tokens":5}}}"#,
    ]);
    let (original, sse) = encode_live(&bytes, Target::OpenAiResponses).unwrap();
    let (items, one_at_a_time) = responses_items(&sse);
    assert!(one_at_a_time, "{sse}");
    let searches: Vec<(&str, &Value)> = items
        .iter()
        .filter(|item| item["type"] == "web_search_call")
        .map(|item| {
            (
                item["id"].as_str().unwrap(),
                &item["action"]["sources"][0]["url"],
            )
        })
        .collect();
    assert_eq!(
        searches,
        [
            ("ws_a", &Value::from("https://a.example/")),
            ("ws_b", &Value::from("https://b.example/"))
        ],
        "{sse}"
    );
    let again = deltafold::assemble(
        sse.as_bytes(),
        Options::default().dialect(Dialect::OpenAiResponses),
    )
    .unwrap();
    let again = &again.choices[0].message;
    assert_eq!(again.text(), "Both swim.");
    // Each search's result right after its call, as one item at a time writes them.
    let mut expected = shapes(&original, Target::OpenAiResponses, true);
    expected.swap(1, 2);
    assert_eq!(shapes(again, Target::OpenAiResponses, true), expected);
}

/// Another provider's search results and code output go into the Responses item in its own
/// shapes: the results' URLs as the action's `sources`, the output as `logs`.
#[test]
fn other_providers_results_fill_the_responses_item() {
    let anthropic = sse_of(&[
        r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\": \"otters\"}"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","title":"Otters","url":"https://a.example/","encrypted_content":"EqQ","page_age":null}]}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":5}}"#,
        r#"{"type":"message_stop"}"#,
    ]);
    let gemini = sse_of(&[
        r#"{"candidates":[{"content":{"parts":[{"executableCode":{"language":"PYTHON","code":"print(1+1)\n"}}],"role":"model"},"index":0}],"modelVersion":"gemini-2.5-pro","responseId":"r1"}"#,
        r#"{"candidates":[{"content":{"parts":[{"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"2\n"}}],"role":"model"},"index":0}],"modelVersion":"gemini-2.5-pro","responseId":"r1"}"#,
        r#"{"candidates":[{"content":{"parts":[{"text":"It is 2."}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":5,"totalTokenCount":10},"modelVersion":"gemini-2.5-pro","responseId":"r1"}"#,
    ]);
    for (bytes, field, expected) in [
        (
            anthropic,
            "/action/sources",
            serde_json::json!([{"type": "url", "url": "https://a.example/"}]),
        ),
        (
            gemini,
            "/outputs",
            serde_json::json!([{"type": "logs", "logs": "2\n"}]),
        ),
    ] {
        let (original, sse) = encode_live(&bytes, Target::OpenAiResponses).unwrap();
        let (items, _) = responses_items(&sse);
        assert_eq!(items[0].pointer(field), Some(&expected), "{sse}");
        let whole = message_json(Target::OpenAiResponses, &original);
        assert_eq!(
            whole.pointer(&format!("/output/0{field}")),
            Some(&expected),
            "{whole}"
        );
    }
}
