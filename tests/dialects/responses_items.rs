//! This year's Responses items (`fixtures/openai-responses/new_items`): a shell call whose
//! commands stream and an apply_patch call whose diff streams give a live event per piece and
//! keep what streamed until their item is done; a server-run tool search is a server tool call
//! and its result; the rest is kept whole.

use deltafold::message::{ClientAction, ContentBlock};
use deltafold::{Event, Options};
use serde_json::json;

fn fixture() -> Vec<u8> {
    let path = format!(
        "{}/fixtures/openai-responses/new_items.sse",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(path).unwrap()
}

/// The provider item deltas of a run, by block.
fn item_deltas(events: &[Event<'_>]) -> Vec<(u32, String)> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::ProviderItemDelta { block, delta, .. } => Some((*block, delta.to_string())),
            _ => None,
        })
        .collect()
}

#[test]
fn streamed_commands_and_diffs_are_live_events() {
    let body = fixture();
    // Byte by byte, so that every piece is read on its own.
    let run = crate::replay::run(body.chunks(1), Options::new());
    assert_eq!(
        item_deltas(&run.events),
        [
            (0, "ls ".to_owned()),
            (0, "-la".to_owned()),
            (0, "cat ".to_owned()),
            (0, "Cargo.toml".to_owned()),
            (1, "@@\n-old line\n".to_owned()),
            (1, "+new line\n".to_owned()),
        ]
    );
    let message = run.result.unwrap().into_message();
    let actions: Vec<(&str, &str)> = message
        .content
        .iter()
        .filter_map(ClientAction::from_block)
        .map(|action| (action.kind, action.call_id))
        .collect();
    assert_eq!(
        actions,
        [
            ("shell_call", "call_sh01"),
            ("apply_patch_call", "call_ap01"),
            ("computer_call", "call_cu01")
        ]
    );
    let batch = message
        .content
        .iter()
        .filter_map(ClientAction::from_block)
        .find(|action| action.kind == "computer_call")
        .and_then(|action| action.action())
        .unwrap();
    assert_eq!(batch[1], json!({"type": "type", "text": "hello"}));
}

#[test]
fn a_stream_cut_before_the_item_is_done_keeps_what_streamed() {
    let body = String::from_utf8(fixture()).unwrap();
    let cut = body
        .find("event: response.shell_call_command.done")
        .unwrap();
    let run = crate::replay::run([&body.as_bytes()[..cut]], Options::new());
    let partial = run.completion().unwrap().message().unwrap();
    let ContentBlock::NonStandard { value } = &partial.content[0] else {
        panic!("{:?}", partial.content);
    };
    assert_eq!(value["action"]["commands"], json!(["ls -la"]));
    assert_eq!(value["call_id"], "call_sh01");
}

#[test]
fn a_tool_search_the_app_runs_is_an_action_answered_with_its_tools() {
    let item = json!({"type": "tool_search_call", "id": "tsc_2", "call_id": "call_ts2", "execution": "client", "status": "completed", "arguments": {"goal": "weather"}});
    let body = crate::sse(&[
        crate::created(),
        json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}}),
    ]);
    let message = crate::assemble(&body).unwrap().into_message();
    let action = ClientAction::from_block(&message.content[0]).unwrap();
    assert_eq!(
        (action.kind, action.call_id),
        ("tool_search_call", "call_ts2")
    );
    assert_eq!(action.action(), Some(&json!({"goal": "weather"})));
}
