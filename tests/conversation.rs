//! Conversation history: validation, rendering, trimming.

use deltafold::conversation::{
    trim_messages, ApproxTokenCounter, Conversation, ConversationError, Strategy, TokenCounter,
    Trim,
};
use deltafold::message::{AiMessage, ContentBlock, Message, ToolCall, ToolMessage};
use deltafold::wire::{WireError, WireFormat};
use proptest::prelude::{any, prop, prop_assert, prop_assert_eq, proptest};
use proptest::strategy::Strategy as _;
use serde_json::{json, Map};

fn calls(ids: &[&str]) -> Message {
    Message::from(AiMessage {
        content: ids
            .iter()
            .map(|id| {
                ContentBlock::ToolCall(ToolCall {
                    id: (*id).into(),
                    name: "get_weather".into(),
                    args: Map::new(),
                    ..ToolCall::default()
                })
            })
            .collect(),
        ..AiMessage::default()
    })
}

fn texts(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .map(|message| match message {
            Message::Tool(tool) => format!("tool:{}", tool.tool_call_id),
            Message::Assistant(ai) if ai.has_tool_calls() => {
                let ids: Vec<&str> = ai.tool_calls().map(|call| call.id.as_str()).collect();
                format!("calls:{}", ids.join(","))
            }
            other => other.text(),
        })
        .collect()
}

/// Every message costs 10 tokens: budgets in tests read as message counts.
fn ten_each(_: &Message) -> usize {
    10
}

#[test]
fn a_tool_message_must_answer_a_call_of_the_assistant_message_before_it() {
    let mut conversation = Conversation::new();
    assert_eq!(
        conversation.push(Message::tool("call_1", "x")),
        Err(ConversationError::UnknownToolCall {
            index: 0,
            tool_call_id: "call_1".into()
        })
    );
    conversation.push(Message::user("Weather?")).unwrap();
    conversation.push(calls(&["a", "b"])).unwrap();
    assert_eq!(
        conversation.push(Message::tool("c", "x")),
        Err(ConversationError::UnknownToolCall {
            index: 2,
            tool_call_id: "c".into()
        })
    );
    conversation.push(Message::tool("b", "2")).unwrap();
    assert_eq!(
        conversation.push(Message::tool("b", "again")),
        Err(ConversationError::DuplicateToolResult {
            index: 3,
            tool_call_id: "b".into()
        })
    );
    assert_eq!(conversation.pending_tool_calls().collect::<Vec<_>>(), ["a"]);
    conversation.push(Message::tool("a", "1")).unwrap();
    conversation.push(Message::assistant("Done.")).unwrap();
    // A later assistant message's calls are the only ones a tool message may answer.
    assert!(matches!(
        conversation.push(Message::tool("a", "late")),
        Err(ConversationError::UnknownToolCall { index: 5, .. })
    ));
    assert_eq!(conversation.len(), 5);
}

#[test]
fn no_turn_may_come_while_calls_are_unanswered() {
    let mut conversation = Conversation::new();
    conversation.push(Message::user("Weather?")).unwrap();
    conversation.push(calls(&["a", "b"])).unwrap();
    for next in [
        Message::user("Hello?"),
        Message::assistant("More."),
        Message::system("Hurry."),
        Message::chat("critic", "Slow."),
    ] {
        assert_eq!(
            conversation.check(&next),
            Err(ConversationError::UnansweredToolCalls {
                index: 2,
                tool_call_ids: vec!["a".into(), "b".into()]
            })
        );
    }
    conversation.push(Message::tool("a", "1")).unwrap();
    let error = conversation.push(Message::user("Hello?")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "message 3 comes while tool calls [\"b\"] are unanswered"
    );
    conversation
        .push(ToolMessage::error("b", "timeout"))
        .unwrap();
    conversation.push(Message::user("Hello?")).unwrap();
}

#[test]
fn late_system_messages_are_refused_only_where_the_format_forbids_them() {
    let messages = [
        Message::system("Be brief."),
        Message::user("Hi"),
        Message::system("Now be verbose."),
    ];
    let anywhere = Conversation::from_messages(messages.clone()).unwrap();
    assert_eq!(anywhere.validate_for(WireFormat::OpenAiChat), Ok(()));
    assert_eq!(anywhere.validate_for(WireFormat::LangChain), Ok(()));
    let misplaced = ConversationError::MisplacedSystemMessage {
        index: 2,
        format: WireFormat::Anthropic,
    };
    assert_eq!(anywhere.validate_for(WireFormat::Anthropic), Err(misplaced));
    assert_eq!(
        anywhere.to_anthropic(),
        Err(WireError::MisplacedSystem {
            format: WireFormat::Anthropic,
            index: 2
        })
    );

    let mut anthropic = Conversation::for_format(WireFormat::Anthropic);
    anthropic.push(messages[0].clone()).unwrap();
    anthropic
        .push(Message::system(
            "Two system messages at the start are fine.",
        ))
        .unwrap();
    anthropic.push(messages[1].clone()).unwrap();
    assert_eq!(
        anthropic.push(messages[2].clone()),
        Err(ConversationError::MisplacedSystemMessage {
            index: 3,
            format: WireFormat::Anthropic
        })
    );
    assert_eq!(anthropic.format(), Some(WireFormat::Anthropic));
}

#[test]
fn from_messages_allows_unanswered_calls_at_the_end_and_extend_stops_at_the_first_error() {
    let conversation =
        Conversation::from_messages([Message::user("Weather?"), calls(&["a"])]).unwrap();
    assert_eq!(conversation.pending_tool_calls().collect::<Vec<_>>(), ["a"]);

    let mut conversation = Conversation::new();
    let result = conversation.extend([
        Message::user("Weather?"),
        calls(&["a"]),
        Message::user("too early"),
        Message::tool("a", "1"),
    ]);
    assert!(matches!(
        result,
        Err(ConversationError::UnansweredToolCalls { index: 2, .. })
    ));
    assert_eq!(texts(conversation.messages()), ["Weather?", "calls:a"]);
}

#[test]
fn a_conversation_renders_in_every_format() {
    let conversation = Conversation::from_messages([
        Message::system("Be brief."),
        Message::user("Weather in Paris?"),
        calls(&["call_1"]),
        Message::tool("call_1", "18°C"),
        Message::assistant("18°C."),
    ])
    .unwrap();
    let openai = conversation.to_openai_chat().unwrap();
    assert_eq!(openai.len(), 5);
    assert_eq!(openai[2]["tool_calls"][0]["id"], "call_1");
    assert_eq!(
        openai[3],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "18°C"})
    );
    let anthropic = conversation.to_anthropic().unwrap();
    assert_eq!(anthropic.system, Some(json!("Be brief.")));
    assert_eq!(anthropic.messages.len(), 4);
    assert_eq!(anthropic.messages[2]["content"][0]["tool_use_id"], "call_1");
    let langchain = conversation.to_langchain();
    let types: Vec<&str> = langchain
        .iter()
        .map(|dict| dict["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["system", "human", "ai", "tool", "ai"]);
}

/// System, then four turns; the third has two tool calls, the fourth is a plain question.
fn four_turns() -> Conversation {
    Conversation::from_messages([
        Message::system("Be brief."),
        Message::user("q1"),
        Message::assistant("a1"),
        Message::user("q2"),
        Message::assistant("a2"),
        Message::user("q3"),
        calls(&["c1", "c2"]),
        Message::tool("c1", "r1"),
        Message::tool("c2", "r2"),
        Message::assistant("a3"),
        Message::user("q4"),
        Message::assistant("a4"),
    ])
    .unwrap()
}

#[test]
fn keeps_the_system_message_and_the_last_turns() {
    let conversation = four_turns();
    assert_eq!(
        texts(conversation.trim(&Trim::last_turns(2)).messages()),
        [
            "Be brief.",
            "q3",
            "calls:c1,c2",
            "tool:c1",
            "tool:c2",
            "a3",
            "q4",
            "a4"
        ]
    );
    assert_eq!(
        texts(conversation.trim(&Trim::last_turns(1)).messages()),
        ["Be brief.", "q4", "a4"]
    );
    assert_eq!(
        texts(conversation.trim(&Trim::last_turns(0)).messages()),
        ["Be brief."]
    );
    assert_eq!(conversation.trim(&Trim::last_turns(9)), conversation);
    assert_eq!(
        texts(
            conversation
                .trim(&Trim::last_turns(1).keep_system(false))
                .messages()
        ),
        ["q4", "a4"]
    );
}

#[test]
fn fits_a_token_budget_without_splitting_tool_calls_from_their_results() {
    let conversation = four_turns();
    let trim = |tokens| {
        texts(
            conversation
                .trim_with(&Trim::max_tokens(tokens), &ten_each)
                .messages(),
        )
    };
    // System (10) + q4, a4.
    assert_eq!(trim(30), ["Be brief.", "q4", "a4"]);
    // 40 would reach a3 alone: a turn must start on a user message.
    assert_eq!(trim(40), ["Be brief.", "q4", "a4"]);
    // 70 would reach into the tool block (c2, c1 …) but not the assistant message that made
    // the calls: the whole block stays out.
    assert_eq!(trim(70), ["Be brief.", "q4", "a4"]);
    // 80 fits the block and its question.
    assert_eq!(
        trim(90),
        [
            "Be brief.",
            "q3",
            "calls:c1,c2",
            "tool:c1",
            "tool:c2",
            "a3",
            "q4",
            "a4"
        ]
    );
    // A budget smaller than the system message keeps the system message only.
    assert_eq!(trim(5), ["Be brief."]);
}

#[test]
fn never_starts_on_a_tool_message_even_when_not_asked_to_start_on_a_user_turn() {
    let conversation = four_turns();
    let trim = Trim::max_tokens(60).start_on_user(false);
    let kept = texts(conversation.trim_with(&trim, &ten_each).messages());
    assert_eq!(kept, ["Be brief.", "a3", "q4", "a4"]);
    let kept = texts(
        conversation
            .trim_with(
                &Trim::max_tokens(40).start_on_user(false).keep_system(false),
                &ten_each,
            )
            .messages(),
    );
    assert_eq!(kept, ["a3", "q4", "a4"]);
}

#[test]
fn strategy_first_keeps_the_oldest_turns() {
    let conversation = four_turns();
    let first = Trim::new().strategy(Strategy::First);
    assert_eq!(
        texts(conversation.trim(&first.clone().turns(2)).messages()),
        ["Be brief.", "q1", "a1", "q2", "a2"]
    );
    // 40 tokens: system, q1, a1, q2.
    assert_eq!(
        texts(
            conversation
                .trim_with(&first.clone().tokens(40), &ten_each)
                .messages()
        ),
        ["Be brief.", "q1", "a1", "q2"]
    );
    assert_eq!(
        texts(
            conversation
                .trim_with(&first.tokens(80), &ten_each)
                .messages()
        ),
        // 80 tokens reach q3 and the assistant message of its calls, but not the results:
        // the calls stay out with them.
        ["Be brief.", "q1", "a1", "q2", "a2", "q3"]
    );
}

#[test]
fn turn_and_token_limits_combine() {
    let conversation = four_turns();
    let both = Trim::last_turns(3).tokens(50);
    assert_eq!(
        texts(conversation.trim_with(&both, &ten_each).messages()),
        ["Be brief.", "q4", "a4"]
    );
}

#[test]
fn trimming_keeps_unanswered_calls_pending() {
    let mut conversation = four_turns();
    conversation.push(Message::user("q5")).unwrap();
    conversation.push(calls(&["c3"])).unwrap();
    let trimmed = conversation.trim(&Trim::last_turns(1));
    assert_eq!(texts(trimmed.messages()), ["Be brief.", "q5", "calls:c3"]);
    assert_eq!(trimmed.pending_tool_calls().collect::<Vec<_>>(), ["c3"]);
    let mut trimmed = trimmed;
    trimmed.push(Message::tool("c3", "r3")).unwrap();
}

#[test]
fn the_default_counter_estimates_like_langchain() {
    let conversation = four_turns();
    let counter = ApproxTokenCounter::default();
    // "system" + "Be brief." = 15 chars → 4 tokens, + 3.
    assert_eq!(counter.count(&conversation.messages()[0]), 7);
    let total = counter.count_all(conversation.messages());
    let kept = conversation.trim(&Trim::max_tokens(total - 1));
    assert!(kept.len() < conversation.len());
    assert!(counter.count_all(kept.messages()) < total);
    assert_eq!(conversation.trim(&Trim::max_tokens(total)), conversation);
}

/// A random valid conversation: optional system messages, then turns of a user message and
/// assistant messages, some with tool calls answered by tool messages.
fn conversation() -> impl proptest::strategy::Strategy<Value = Vec<Message>> {
    let turn = prop::collection::vec(0usize..3, 1..4);
    (
        0usize..3,
        prop::collection::vec((any::<bool>(), turn), 0..8),
    )
        .prop_map(|(systems, turns)| {
            let mut messages: Vec<Message> = (0..systems)
                .map(|i| Message::system(format!("s{i}")))
                .collect();
            let mut call = 0;
            for (index, (leading_assistant, replies)) in turns.into_iter().enumerate() {
                if !(index == 0 && leading_assistant) {
                    messages.push(Message::user(format!("u{index}")));
                } else {
                    messages.push(Message::assistant("greeting"));
                }
                for tools in replies {
                    let ids: Vec<String> = (0..tools)
                        .map(|_| {
                            call += 1;
                            format!("c{call}")
                        })
                        .collect();
                    if ids.is_empty() {
                        messages.push(Message::assistant("text"));
                    } else {
                        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
                        messages.push(calls(&refs));
                        messages.extend(ids.iter().map(|id| Message::tool(id.as_str(), "r")));
                    }
                }
            }
            messages
        })
}

proptest! {
    #[test]
    fn trimming_keeps_the_rules(
        messages in conversation(),
        turns in prop::option::of(0usize..6),
        tokens in prop::option::of(0usize..200),
        first in any::<bool>(),
        keep_system in any::<bool>(),
        start_on_user in any::<bool>(),
    ) {
        let original = Conversation::from_messages(messages.clone()).unwrap();
        let mut trim = Trim::new()
            .strategy(if first { Strategy::First } else { Strategy::Last })
            .keep_system(keep_system)
            .start_on_user(start_on_user);
        trim.max_turns = turns;
        trim.max_tokens = tokens;
        let kept = trim_messages(&messages, &trim, &ten_each);

        // Valid as a conversation: every tool message answers a call just before it.
        let rebuilt = Conversation::from_messages(kept.clone());
        prop_assert!(rebuilt.is_ok(), "{:?}", rebuilt);
        let head = if keep_system { messages.iter().take_while(|m| m.is_system()).count() } else { 0 };
        prop_assert_eq!(&kept[..head.min(kept.len())], &messages[..head]);
        let rest = &kept[head..];
        if let Some(first_kept) = rest.first() {
            prop_assert!(!first_kept.is_tool());
            if start_on_user {
                prop_assert!(first_kept.is_user());
            }
        }
        // An assistant message is kept with every tool message that answers it.
        for (index, message) in rest.iter().enumerate().filter(|(_, m)| !m.is_tool()) {
            let answered = rest[index + 1..].iter().take_while(|m| m.is_tool()).count();
            prop_assert_eq!(answered, message.tool_call_ids().count());
        }
        // The kept part is one contiguous run, at the chosen end.
        let original_rest = &messages[head..];
        if !rest.is_empty() {
            let found = original_rest.windows(rest.len()).position(|window| window == rest);
            prop_assert!(found.is_some());
            if !first {
                prop_assert!(original_rest.ends_with(rest));
            }
        }
        if let Some(budget) = tokens {
            prop_assert!(ten_each.count_all(rest) + ten_each.count_all(&messages[..head]) <= budget.max(10 * head));
        }
        if let Some(turns) = turns {
            prop_assert!(rest.iter().filter(|m| m.is_user()).count() <= turns);
        }
        prop_assert!(original.trim_with(&trim, &ten_each).messages() == kept.as_slice());
    }
}
