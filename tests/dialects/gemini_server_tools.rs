//! Gemini's server-side tools: code execution streamed as live server-tool events in part order,
//! and the recordings of research for issue 12 (`../research12/gemini`, read when the folder is
//! there), whose code, searches and URL reads must all be typed blocks with citations that quote
//! the very text they span.

use std::path::Path;

use deltafold::{Assembler, ContentBlock, Event};
use serde_json::Value;

use crate::assemble;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/gemini")
            .join(name),
    )
    .unwrap()
}

#[test]
fn code_execution_streams_as_server_tool_events_in_part_order() {
    let mut assembler = Assembler::new();
    assembler.push(&fixture("code_execution_failed_thought_and_order.sse"));
    assembler.end_input();
    let mut seen = Vec::new();
    while let Some(event) = assembler.next_event().unwrap() {
        match event.into_owned() {
            Event::ServerToolCallStarted {
                block, id, name, ..
            } => seen.push(format!("started {block} {id} {name}")),
            Event::ServerToolCallFinished { block, call, .. } => seen.push(format!(
                "finished {block} {}",
                Value::Object(call.args.clone())
            )),
            Event::ServerToolResult { block, result, .. } => seen.push(format!(
                "result {block} {} {:?}",
                result.tool_call_id, result.status
            )),
            Event::TextDelta { .. } => seen.push("text".to_owned()),
            _ => {}
        }
    }
    seen.dedup();
    assert_eq!(
        seen,
        [
            "started 0 srvtoolu_df_0 code_interpreter",
            r#"finished 0 {"code":"    print(1/0)\n    ","language":"PYTHON"}"#,
            "result 1 srvtoolu_df_0 Error",
            "text",
            "started 3 srvtoolu_df_1 code_interpreter",
            r#"finished 3 {"code":"print(7 / 2)\n","language":"PYTHON"}"#,
            "result 4 srvtoolu_df_1 Success",
            "text",
        ]
    );
}

#[test]
fn recorded_code_search_and_url_context_streams_are_typed_blocks() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../research12/gemini");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!(
            "{} not found; skipping the recorded Gemini streams",
            dir.display()
        );
        return;
    };
    let mut checked = 0;
    for entry in entries {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("sse") {
            continue;
        }
        let body = std::fs::read_to_string(&path).unwrap();
        let message = assemble(&body).unwrap().into_message();
        let name = path.file_name().unwrap().to_string_lossy();
        let mut calls = 0;
        let mut results = 0;
        let mut citations = 0;
        for block in &message.content {
            match block {
                ContentBlock::ServerToolCall(_) => calls += 1,
                ContentBlock::ServerToolResult(_) => results += 1,
                ContentBlock::NonStandard { .. } => panic!("{name}: {block:?} left non_standard"),
                ContentBlock::Text { text, .. } => {
                    for citation in block.citations() {
                        let chars: Vec<char> = text.chars().collect();
                        let (start, end) = (
                            citation.start_index.unwrap() as usize,
                            citation.end_index.unwrap() as usize,
                        );
                        let spanned: String = chars[start..end].iter().collect();
                        assert_eq!(Some(spanned.as_str()), citation.cited_text.as_deref());
                        citations += 1;
                    }
                }
                _ => {}
            }
        }
        assert!(
            calls > 0 && calls == results,
            "{name}: {calls} calls, {results} results"
        );
        let expected_citations = match &*name {
            "google_search_grounding_supports.sse" => 11,
            "url_context_grounding.sse" => 2,
            _ => 0,
        };
        assert_eq!(citations, expected_citations, "{name}");
        checked += 1;
    }
    assert_eq!(checked, 3, "recordings in {}", dir.display());
}
