//! The OpenAI Responses request items a conversation is sent back as, from answers assembled from
//! streams written from the provider's documented shapes: the output item ids that must follow
//! a reasoning item (`msg_…`, `fc_…`) and a message's `phase` go back as they came.

use deltafold::message::{AiMessage, Message, ToolMessage};
use deltafold::wire::langchain;
use deltafold::wire::openai_responses::{self, EncodeOptions};
use serde_json::{json, Value};

fn assembled(fixture: &str) -> AiMessage {
    let path = format!(
        "{}/fixtures/openai-responses/{fixture}.sse",
        env!("CARGO_MANIFEST_DIR")
    );
    let body = std::fs::read(path).unwrap();
    deltafold::assemble(&body, deltafold::Options::new())
        .unwrap()
        .into_message()
}

/// The turn of `phase_and_item_ids`: a question, the answer (reasoning, commentary, a call), the
/// call's result.
fn turn(answer: AiMessage) -> Vec<Message> {
    vec![
        Message::user("What is in src?"),
        Message::Assistant(answer),
        Message::Tool(ToolMessage::new("call_ls01", "lib.rs\nmain.rs")),
    ]
}

#[test]
fn reasoning_is_followed_by_its_items_with_their_ids_and_the_phase() {
    let input = openai_responses::encode(&turn(assembled("phase_and_item_ids"))).unwrap();
    assert_eq!(
        input,
        vec![
            json!({"type": "message", "role": "user", "content": "What is in src?"}),
            json!({"type": "reasoning", "id": "rs_phase01", "encrypted_content": "gAAAAB-phase", "summary": [{"type": "summary_text", "text": "Need the file list."}]}),
            json!({"type": "message", "role": "assistant", "id": "msg_phase01", "status": "completed", "phase": "commentary", "content": [{"type": "output_text", "text": "Let me look at the files.", "annotations": []}]}),
            json!({"type": "function_call", "id": "fc_phase01", "call_id": "call_ls01", "name": "list_files", "arguments": "{\"dir\":\"src\"}"}),
            json!({"type": "function_call_output", "call_id": "call_ls01", "output": "lib.rs\nmain.rs"}),
        ]
    );
    // Without `store`, the reasoning goes back whole (it has its encrypted content), and so do
    // the ids that must follow it.
    let stateless = openai_responses::encode_with(
        &turn(assembled("phase_and_item_ids")),
        &EncodeOptions::new().store(false),
    )
    .unwrap();
    assert_eq!(stateless, input);
}

#[test]
fn without_their_reasoning_items_go_back_without_ids_but_keep_the_phase() {
    let mut answer = assembled("phase_and_item_ids");
    answer
        .content
        .retain(|block| !matches!(block, deltafold::ContentBlock::Reasoning { .. }));
    let input = openai_responses::encode(&turn(answer)).unwrap();
    assert_eq!(
        input[1],
        json!({"type": "message", "role": "assistant", "content": "Let me look at the files.", "phase": "commentary"})
    );
    assert_eq!(
        input[2],
        json!({"type": "function_call", "call_id": "call_ls01", "name": "list_files", "arguments": "{\"dir\":\"src\"}"})
    );
}

#[test]
fn the_ids_and_phase_survive_the_langchain_dict_both_ways() {
    let answer = assembled("phase_and_item_ids");
    let dict = langchain::message_to_dict(&Message::Assistant(answer.clone()));
    assert_eq!(
        dict["data"]["additional_kwargs"]["__openai_function_call_ids__"],
        json!({"call_ls01": "fc_phase01"})
    );
    assert_eq!(
        dict["data"]["content_blocks"][1],
        json!({"type": "text", "text": "Let me look at the files.", "id": "msg_phase01", "phase": "commentary"})
    );
    assert_eq!(
        langchain::message_from_dict(&dict).unwrap(),
        Message::Assistant(answer)
    );
    // A dict LangChain wrote itself (no `content_blocks`) gives the calls their item ids back.
    let mut data = dict["data"].clone();
    data.as_object_mut().unwrap().remove("content_blocks");
    let read = langchain::message_from_dict(&json!({"type": "ai", "data": data})).unwrap();
    let Message::Assistant(read) = read else {
        panic!("an assistant message");
    };
    let call = read.tool_calls().next().unwrap();
    assert_eq!(call.item_id(), Some("fc_phase01"));
    assert_eq!(
        read.extra.get("__openai_function_call_ids__"),
        None::<&Value>
    );
}

#[test]
fn an_item_the_stream_never_showed_is_read_once_from_the_closing_event() {
    let message = assembled("unstreamed_item");
    assert_eq!(message.text(), "The 2024 edition shipped with Rust 1.85.");
    let input = openai_responses::encode(&[Message::Assistant(message)]).unwrap();
    let kinds: Vec<&str> = input
        .iter()
        .map(|item| item["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["reasoning", "message", "web_search_call"]);
    assert_eq!(input[1]["id"], "msg_gap01");
}

#[test]
fn this_years_items_go_back_as_they_came() {
    let message = assembled("new_items");
    let mut turn = vec![Message::user("Fix the build."), Message::Assistant(message)];
    turn.push(Message::Tool(ToolMessage::new(
        "call_sh01",
        "Cargo.toml\nsrc",
    )));
    turn.push(Message::Tool(ToolMessage::new("call_ap01", "patched")));
    let input = openai_responses::encode(&turn).unwrap();
    let kinds: Vec<&str> = input
        .iter()
        .map(|item| item["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "message",
            "shell_call",
            "apply_patch_call",
            "tool_search_call",
            "tool_search_output",
            "compaction",
            "computer_call",
            "message",
            "shell_call_output",
            "apply_patch_call_output",
        ]
    );
    assert_eq!(
        input[3],
        json!({"type": "tool_search_call", "id": "tsc_01", "execution": "server", "status": "completed", "arguments": {"goal": "find the weather tool"}})
    );
    assert_eq!(input[4]["id"], "tso_01");
    assert_eq!(input[4]["tools"][0]["name"], "get_weather");
    assert_eq!(
        input[5],
        json!({"id": "cmp_01", "type": "compaction", "encrypted_content": "gAAAAC-compacted"})
    );
    assert_eq!(input[7]["phase"], "final_answer");
}

#[test]
fn a_refusal_goes_back_with_its_item_id_and_phase_and_the_closing_encryption() {
    let message = assembled("rotating_encryption_refusal");
    let input = openai_responses::encode(&[Message::Assistant(message)]).unwrap();
    assert_eq!(
        input,
        [
            json!({"type": "reasoning", "id": "rs_rot01", "encrypted_content": "gAAAAB-rot-final", "summary": [{"type": "summary_text", "text": "The request is for malware."}]}),
            json!({"type": "message", "role": "assistant", "id": "msg_rot01", "status": "completed", "phase": "final_answer", "content": [{"type": "refusal", "refusal": "I can't help with that."}]}),
        ]
    );
}

#[test]
fn a_cut_answer_goes_back_with_the_ids_its_deltas_named() {
    let body = std::fs::read(format!(
        "{}/fixtures/openai-responses/cut_after_commentary.sse",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let error = deltafold::assemble(&body, deltafold::Options::new()).unwrap_err();
    let partial = error.partial().and_then(|c| c.message()).cloned().unwrap();
    let input = openai_responses::encode(&[Message::Assistant(partial)]).unwrap();
    assert_eq!(input[0]["id"], "rs_cutc01");
    assert_eq!(input[1]["id"], "msg_cutc01");
    assert_eq!(input[1]["phase"], "commentary");
    assert_eq!(
        input[2],
        json!({"type": "function_call", "id": "fc_cutc01", "call_id": "call_cat01", "name": "read_file", "arguments": "{\"path\":\"Cargo"})
    );
}
