//! Gemini requests: hand-checked bodies, assembled streams sent back with their parts and thought
//! signatures where Gemini streamed them, other providers' blocks, errors, and round trips.

use std::path::{Path, PathBuf};

use deltafold::conversation::Conversation;
use deltafold::message::{
    AiMessage, ContentBlock, MediaBlock, Message, ServerToolCall, ToolApprovalResponse, ToolCall,
    ToolMessage,
};
use deltafold::wire::gemini::{self, GeminiRequest};
use deltafold::wire::{WireError, WireFormat};
use serde_json::{json, Map, Value};

fn assembled(path: &Path) -> AiMessage {
    let body = std::fs::read(path).unwrap();
    deltafold::assemble(&body, deltafold::Options::new())
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()))
        .into_message()
}

fn fixture(dir: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(dir)
        .join(name)
}

/// The model turn `message` goes back as.
fn model_turn(message: AiMessage) -> Value {
    let request = gemini::encode(&[Message::user("go"), Message::from(message)]).unwrap();
    request.contents[1].clone()
}

/// The parts of candidate 0 as streamed, with what the message model merges merged: adjacent
/// text of one kind (a part with its own signature starts anew), and grounding left out.
fn streamed_parts(sse: &str) -> Vec<Value> {
    let mut parts: Vec<Value> = Vec::new();
    for line in sse.lines() {
        let Some(data) = line.strip_prefix("data: ") else {
            continue;
        };
        let chunk: Value = serde_json::from_str(data).unwrap();
        let streamed = chunk["candidates"][0]["content"]["parts"].as_array();
        for part in streamed.into_iter().flatten() {
            let text = part.get("text").and_then(Value::as_str);
            let merged = match (parts.last_mut(), text) {
                (Some(last), Some(text))
                    if last.get("text").is_some()
                        && last.get("thought") == part.get("thought")
                        && part.get("thoughtSignature").is_none() =>
                {
                    let joined = format!("{}{text}", last["text"].as_str().unwrap());
                    last["text"] = joined.into();
                    true
                }
                _ => false,
            };
            if !merged {
                parts.push(part.clone());
            }
        }
    }
    parts
}

#[test]
fn a_conversation_with_media_tools_and_a_failed_call_is_the_documented_body() {
    let call = |id: &str, city: &str| {
        ContentBlock::ToolCall(ToolCall {
            id: id.into(),
            name: "get_weather".into(),
            args: json!({"city": city}).as_object().unwrap().clone(),
            ..ToolCall::default()
        })
    };
    let messages = vec![
        Message::system("You are a weather bot."),
        Message::user(vec![
            ContentBlock::text("Weather in Paris and Tokyo? My sky:"),
            ContentBlock::image(MediaBlock::base64("iVBORw0KGgo=", "image/png")),
            ContentBlock::file(
                MediaBlock::url("https://generativelanguage.googleapis.com/v1beta/files/abc")
                    .with_mime_type("application/pdf"),
            ),
        ]),
        Message::from(AiMessage {
            content: vec![
                ContentBlock::text("Let me check."),
                call("fc_1", "Paris"),
                call("fc_2", "Tokyo"),
            ],
            ..AiMessage::default()
        }),
        Message::tool("fc_1", "18°C, sunny"),
        Message::Tool(ToolMessage::error("fc_2", "timeout")),
        Message::user("And tomorrow?"),
    ];
    let conversation = Conversation::from_messages(messages.clone()).unwrap();
    let request = conversation.to_gemini().unwrap();
    let mut body = json!({"generationConfig": {"thinkingConfig": {"includeThoughts": true}}});
    request.clone().write_into(&mut body);
    assert_eq!(
        body,
        json!({
            "generationConfig": {"thinkingConfig": {"includeThoughts": true}},
            "systemInstruction": {"parts": [{"text": "You are a weather bot."}]},
            "contents": [
                {"role": "user", "parts": [
                    {"text": "Weather in Paris and Tokyo? My sky:"},
                    {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
                    {"fileData": {"mimeType": "application/pdf", "fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc"}},
                ]},
                {"role": "model", "parts": [
                    {"text": "Let me check."},
                    {"functionCall": {"id": "fc_1", "name": "get_weather", "args": {"city": "Paris"}}},
                    {"functionCall": {"id": "fc_2", "name": "get_weather", "args": {"city": "Tokyo"}}},
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"id": "fc_1", "name": "get_weather", "response": {"output": "18°C, sunny"}}},
                    {"functionResponse": {"id": "fc_2", "name": "get_weather", "response": {"error": "timeout"}}},
                ]},
                {"role": "user", "parts": [{"text": "And tomorrow?"}]},
            ],
        })
    );
    // And back: the same conversation, tool messages named after their function, model turns
    // marked as Gemini's.
    let decoded = gemini::decode(&body).unwrap();
    assert_eq!(decoded.len(), messages.len());
    for (index, (back, sent)) in decoded.iter().zip(&messages).enumerate() {
        match (back, sent) {
            (Message::Assistant(back), Message::Assistant(sent)) => {
                assert_eq!(back.content, sent.content, "message {index}");
                assert_eq!(
                    back.response_metadata.model_provider.as_deref(),
                    Some("google_genai")
                );
            }
            (Message::Tool(back), Message::Tool(sent)) => {
                assert_eq!(back.name.as_deref(), Some("get_weather"));
                assert_eq!(
                    (&back.tool_call_id, &back.content, back.status),
                    (&sent.tool_call_id, &sent.content, sent.status)
                );
            }
            (back, sent) => assert_eq!(back, sent, "message {index}"),
        }
    }
    assert_eq!(gemini::encode(&decoded).unwrap(), request);
}

#[test]
fn a_json_object_result_is_the_response_itself() {
    let call = ContentBlock::ToolCall(ToolCall {
        id: "fc_1".into(),
        name: "lookup".into(),
        ..ToolCall::default()
    });
    let messages = [
        Message::user("x"),
        Message::from(AiMessage {
            content: vec![call],
            ..AiMessage::default()
        }),
        Message::tool("fc_1", r#"{"rows": [1, 2]}"#),
    ];
    let request = gemini::encode(&messages).unwrap();
    assert_eq!(
        request.contents[2]["parts"][0]["functionResponse"]["response"],
        json!({"rows": [1, 2]})
    );
}

#[test]
fn thinking_goes_back_with_its_signature_on_the_part_after_it() {
    let path = fixture("gemini", "thinking.sse");
    let sse = std::fs::read_to_string(&path).unwrap();
    let turn = model_turn(assembled(&path));
    assert_eq!(turn["parts"], json!(streamed_parts(&sse)));
    assert_eq!(
        turn["parts"][1],
        json!({"text": "2 + 3 = 5.", "thoughtSignature": "CiQB0e2Kb1sg"})
    );
}

#[test]
fn parallel_calls_keep_the_one_signature_on_the_first_call_and_send_no_generated_ids() {
    let path = fixture("gemini", "parallel_function_calls.sse");
    let sse = std::fs::read_to_string(&path).unwrap();
    let message = assembled(&path);
    let ids: Vec<String> = message.tool_calls().map(|call| call.id.clone()).collect();
    assert!(ids.iter().all(|id| id.starts_with("call_df_")), "{ids:?}");
    let mut conversation = Conversation::new();
    conversation.push(Message::user("Weather?")).unwrap();
    conversation.push(message).unwrap();
    conversation.push(Message::tool(&ids[0], "18°C")).unwrap();
    conversation.push(Message::tool(&ids[1], "22°C")).unwrap();
    let request = conversation.to_gemini().unwrap();
    // Exactly the streamed parts: the first call signed, the second not, no ids.
    assert_eq!(request.contents[1]["parts"], json!(streamed_parts(&sse)));
    assert_eq!(
        request.contents[2],
        json!({"role": "user", "parts": [
            {"functionResponse": {"name": "get_weather", "response": {"output": "18°C"}}},
            {"functionResponse": {"name": "get_weather", "response": {"output": "22°C"}}},
        ]})
    );
    // Read back, the responses answer the calls in order, by name.
    let decoded = gemini::decode(&serde_json::to_value(&request).unwrap()).unwrap();
    let answered: Vec<&str> = decoded
        .iter()
        .filter_map(Message::as_tool)
        .map(|tool| tool.tool_call_id.as_str())
        .collect();
    let made: Vec<&str> = decoded.iter().flat_map(Message::tool_call_ids).collect();
    assert_eq!(answered, made);
    assert_eq!(gemini::encode(&decoded).unwrap(), request);
}

/// Every Gemini fixture and recording with code, searches or URL reads: the model turn is the
/// streamed parts, code parts with `thought` and signatures where they were, grounding left out.
#[test]
fn assembled_gemini_streams_go_back_as_their_streamed_parts() {
    let mut paths: Vec<PathBuf> = [
        "code_execution.sse",
        "code_execution_failed_thought_and_order.sse",
        "thinking.sse",
        "parallel_function_calls.sse",
        "text.sse",
        "citations.sse",
        "grounding_empty_until_the_end.sse",
        "url_context_failed_page_off_by_one.sse",
        "image_output_signed.sse",
        "builtin_tool_parts.sse",
    ]
    .iter()
    .map(|name| fixture("gemini", name))
    .collect();
    let fixtures = paths.len();
    let research = Path::new(env!("CARGO_MANIFEST_DIR")).join("../research12/gemini");
    if let Ok(entries) = std::fs::read_dir(&research) {
        paths.extend(entries.map(|entry| entry.unwrap().path()));
    }
    let mut fixture_code_parts = 0;
    for (number, path) in paths.into_iter().enumerate() {
        let sse = std::fs::read_to_string(&path).unwrap();
        let message = assembled(&path);
        let turn = model_turn(message.clone());
        assert_eq!(
            turn["parts"],
            json!(streamed_parts(&sse)),
            "{}",
            path.display()
        );
        if number < fixtures {
            fixture_code_parts += turn["parts"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|part| part.get("executableCode").is_some())
                .count();
        }
        // Read back, the message is the same but for the grounding it had.
        let request = gemini::encode(&[Message::user("go"), Message::from(message.clone())]);
        let decoded = gemini::decode(&serde_json::to_value(request.unwrap()).unwrap()).unwrap();
        let kept: Vec<ContentBlock> = message
            .content
            .into_iter()
            .filter_map(without_grounding)
            .collect();
        assert_eq!(
            decoded[1].as_assistant().unwrap().content,
            kept,
            "{}",
            path.display()
        );
    }
    assert_eq!(
        fixture_code_parts, 3,
        "the fixtures' code parts; the research recordings are only checked when present"
    );
}

/// The block as the Gemini request keeps it: grounding calls and results are not sent,
/// citations neither.
fn without_grounding(block: ContentBlock) -> Option<ContentBlock> {
    match block {
        // Code runs and Gemini 3's built-in tool parts (with their `toolType`) go back.
        ContentBlock::ServerToolCall(call)
            if call.name != "code_interpreter" && !call.extras.contains_key("toolType") =>
        {
            None
        }
        ContentBlock::ServerToolResult(result)
            if !matches!(
                result.extras.get("block_type").and_then(Value::as_str),
                Some("code_execution_result" | "tool_response")
            ) =>
        {
            None
        }
        ContentBlock::Text { text, .. } => Some(ContentBlock::text(text)),
        other => Some(other),
    }
}

#[test]
fn other_providers_server_tools_and_reasoning_are_left_out() {
    let anthropic = assembled(&fixture("anthropic", "server_tools.sse"));
    assert!(anthropic
        .content
        .iter()
        .any(|block| matches!(block, ContentBlock::ServerToolCall(_))));
    let turn = model_turn(anthropic.clone());
    for part in turn["parts"].as_array().unwrap() {
        assert!(
            part.get("text").is_some() || part.get("functionCall").is_some(),
            "{part}"
        );
        assert!(part.get("thoughtSignature").is_none(), "{part}");
        assert!(part.get("thought").is_none(), "{part}");
    }
    assert_eq!(
        turn["parts"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|part| part["text"].as_str())
            .collect::<String>(),
        anthropic.text()
    );
    let responses = assembled(&fixture("openai-responses", "server_tools.sse"));
    let code = responses.content.iter().any(
        |block| matches!(block, ContentBlock::ServerToolCall(call) if call.name == "code_interpreter"),
    );
    assert!(code, "the Responses fixture runs code");
    let turn = model_turn(responses);
    assert!(turn["parts"]
        .as_array()
        .unwrap()
        .iter()
        .all(|part| part.get("executableCode").is_none()
            && part.get("codeExecutionResult").is_none()));
    // A hand-built code run (no provider recorded) is Gemini's.
    let own = AiMessage {
        content: vec![ContentBlock::ServerToolCall(ServerToolCall {
            id: "srvtoolu_df_0".into(),
            name: "code_interpreter".into(),
            args: json!({"code": "print(1)", "language": "PYTHON"})
                .as_object()
                .unwrap()
                .clone(),
            ..ServerToolCall::default()
        })],
        ..AiMessage::default()
    };
    assert_eq!(
        model_turn(own)["parts"],
        json!([{"executableCode": {"language": "PYTHON", "code": "print(1)"}}])
    );
}

#[test]
fn what_gemini_cannot_carry_is_an_error_naming_the_message() {
    let unsupported = |messages: &[Message], needle: &str| match gemini::encode(messages) {
        Err(WireError::Unsupported {
            format: WireFormat::Gemini,
            index,
            what,
        }) => {
            assert!(what.contains(needle), "{what}");
            index
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(
        unsupported(&[Message::chat("critic", "meh")], "\"critic\""),
        0
    );
    let approval = Message::user(vec![ContentBlock::ToolApprovalResponse(
        ToolApprovalResponse {
            approval_request_id: "mcpr_1".into(),
            approve: true,
            reason: None,
        },
    )]);
    assert_eq!(unsupported(&[Message::user("a"), approval], "approval"), 1);
    let no_mime = Message::user(vec![ContentBlock::image(MediaBlock::from_source(
        deltafold::message::MediaSource::Base64("iVBO".into()),
    ))]);
    assert_eq!(unsupported(&[no_mime], "MIME type"), 0);
    let foreign = Message::from(AiMessage {
        content: vec![ContentBlock::NonStandard {
            value: json!({"type": "search_result", "source": "s"}),
        }],
        ..AiMessage::default()
    });
    assert_eq!(unsupported(&[foreign], "`search_result`"), 0);
    assert_eq!(
        gemini::encode(&[Message::user("a"), Message::system("late")]),
        Err(WireError::MisplacedSystem {
            format: WireFormat::Gemini,
            index: 1
        })
    );
    let mut conversation = Conversation::for_format(WireFormat::Gemini);
    conversation.push(Message::user("a")).unwrap();
    assert!(conversation.push(Message::system("late")).is_err());
}

#[test]
fn malformed_requests_are_errors_with_the_content_index() {
    let malformed = |request: Value| match gemini::decode(&request) {
        Err(WireError::Malformed { index, reason, .. }) => (index, reason),
        other => panic!("{other:?}"),
    };
    assert!(malformed(json!({})).1.contains("`contents`"));
    let (index, reason) = malformed(json!({"contents": [
        {"role": "user", "parts": [{"text": "a"}]},
        {"role": "tool", "parts": []},
    ]}));
    assert_eq!(index, 1);
    assert!(reason.contains("\"tool\""), "{reason}");
    let (_, reason) = malformed(json!({"contents": [
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]},
    ]}));
    assert!(reason.contains("no earlier call"), "{reason}");
    let (_, reason) = malformed(json!({"contents": [{"role": "model", "parts": [{"text": 3}]}]}));
    assert!(reason.contains("`text`"), "{reason}");
}

#[test]
fn a_signature_with_no_part_of_its_own_goes_on_an_empty_text_part() {
    let signed = |text: &str, signature: &str| ContentBlock::Reasoning {
        text: text.into(),
        signature: Some(signature.into()),
        data: None,
        extras: Map::new(),
    };
    let call = ContentBlock::ToolCall(ToolCall {
        id: "fc_1".into(),
        name: "f".into(),
        extras: json!({"signature": "CALL"}).as_object().unwrap().clone(),
        ..ToolCall::default()
    });
    let message = AiMessage {
        content: vec![
            signed("plan", "THINK"),
            call,
            ContentBlock::text("done"),
            signed("", "LAST"),
        ],
        ..AiMessage::default()
    };
    let turn = model_turn(message.clone());
    assert_eq!(
        turn["parts"],
        json!([
            {"text": "plan", "thought": true},
            {"text": "", "thoughtSignature": "THINK"},
            {"functionCall": {"id": "fc_1", "name": "f", "args": {}}, "thoughtSignature": "CALL"},
            {"text": "done"},
            {"text": "", "thoughtSignature": "LAST"},
        ])
    );
    let request: Value = serde_json::to_value(GeminiRequest {
        system_instruction: None,
        contents: vec![turn],
    })
    .unwrap();
    let back = gemini::decode(&request).unwrap();
    assert_eq!(back[0].as_assistant().unwrap().content, message.content);
}

/// What langchain-core 1.8.3 writes (`messages_to_dict`) for a Gemini answer that ran code,
/// after `AIMessage.model_validate` loaded deltafold's `--json` of
/// `fixtures/gemini/code_execution_failed_thought_and_order.sse`: its `content_blocks` are the
/// standard `server_tool_call` / `server_tool_result` blocks. Read back, it goes to Gemini as the
/// parts the stream had.
#[test]
fn a_langchain_gemini_answer_with_code_goes_back_as_gemini_parts() {
    let written = json!({"type": "ai", "data": {"content": [
        {"type": "server_tool_call", "id": "srvtoolu_df_0", "name": "code_interpreter", "args": {"code": "    print(1/0)\n    ", "language": "PYTHON"}, "extras": {"thought": true}},
        {"type": "server_tool_result", "tool_call_id": "srvtoolu_df_0", "status": "error", "output": "ZeroDivisionError: division by zero\n", "extras": {"outcome": "OUTCOME_FAILED", "thought": true, "block_type": "code_execution_result"}},
        {"type": "text", "text": "Dividing by zero fails, so here is 7 ÷ 2 in Python:\n"},
        {"type": "server_tool_call", "id": "srvtoolu_df_1", "name": "code_interpreter", "args": {"code": "print(7 / 2)\n", "language": "PYTHON"}},
        {"type": "server_tool_result", "tool_call_id": "srvtoolu_df_1", "status": "success", "output": "3.5\n", "extras": {"outcome": "OUTCOME_OK", "block_type": "code_execution_result"}},
        {"type": "text", "text": "The result is **3.5** — déjà vu."}],
        "additional_kwargs": {}, "response_metadata": {"finish_reason": "STOP", "model_name": "gemini-2.5-pro", "id": "resp-ce2", "model_provider": "google_genai", "output_version": "v1"},
        "type": "ai", "name": null, "id": "resp-ce2", "tool_calls": [], "invalid_tool_calls": [],
        "usage_metadata": {"input_tokens": 240, "output_tokens": 80, "total_tokens": 320, "output_token_details": {"reasoning": 50}}}});
    let message = deltafold::wire::langchain::message_from_dict(&written).unwrap();
    let path = fixture("gemini", "code_execution_failed_thought_and_order.sse");
    assert_eq!(
        message.as_assistant().unwrap().content,
        assembled(&path).content
    );
    let request = gemini::encode(&[Message::user("7 / 2?"), message]).unwrap();
    let sse = std::fs::read_to_string(path).unwrap();
    assert_eq!(request.contents[1]["parts"], json!(streamed_parts(&sse)));
}

/// Parts deltafold keeps whole (an image the model made, with its signature) go back as they
/// came; `system_instruction` is read in the REST API's snake case too; media options Gemini
/// reads travel, another provider's file id is refused.
#[test]
fn whole_parts_go_back_as_they_came() {
    let image = json!({"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}, "thoughtSignature": "SW1hZ2U="});
    let request = json!({
        "system_instruction": {"parts": [{"text": "Draw."}]},
        "contents": [
            {"role": "user", "parts": [
                {"text": "A cat, like this one:"},
                {"fileData": {"mimeType": "video/mp4", "fileUri": "https://x.test/files/v"}, "videoMetadata": {"startOffset": "1s"}},
            ]},
            {"role": "model", "parts": [{"text": "Here:"}, image.clone()]},
        ],
    });
    let messages = gemini::decode(&request).unwrap();
    assert_eq!(messages[0], Message::system("Draw."));
    let Message::User(user) = &messages[1] else {
        panic!("{:?}", messages[1]);
    };
    let ContentBlock::Video(video) = &user.content.blocks()[1] else {
        panic!("{:?}", user.content);
    };
    assert_eq!(video.extras["videoMetadata"], json!({"startOffset": "1s"}));
    // A model's image is an image block, its signature kept on it.
    assert_eq!(
        messages[2].as_assistant().unwrap().content[1],
        ContentBlock::image(
            MediaBlock::base64("iVBORw0KGgo=", "image/png").with_extra("signature", "SW1hZ2U=")
        )
    );
    let back = serde_json::to_value(gemini::encode(&messages).unwrap()).unwrap();
    assert_eq!(back["contents"], request["contents"]);
    assert_eq!(back["systemInstruction"], request["system_instruction"]);
    let foreign_file = Message::user(vec![ContentBlock::file(MediaBlock::file_id("file-abc"))]);
    let error = gemini::encode(&[foreign_file]).unwrap_err();
    assert!(error.to_string().contains("\"file-abc\""), "{error}");
}

/// An Anthropic conversation's thinking signature is Anthropic's: translated to Gemini, no part
/// carries it as a `thoughtSignature` (Gemini refuses a signature it did not make). It leaked
/// onto the function call before the Anthropic reader named the provider.
#[test]
fn an_anthropic_signature_never_becomes_a_gemini_thought_signature() {
    let wire = json!({"messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Call the tool.", "signature": "EqQBCkYIBxgCKkB"},
            {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Paris"}}
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "18°C"}
        ]}
    ]});
    let messages = deltafold::wire::anthropic::decode(&wire).unwrap();
    let request = serde_json::to_value(gemini::encode(&messages).unwrap()).unwrap();
    assert!(
        !request.to_string().contains("EqQBCkYIBxgCKkB"),
        "{request:#}"
    );
    assert!(request.to_string().contains("functionCall"), "{request:#}");
}
