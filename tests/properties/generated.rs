//! Generated chat-completion streams: each assembles to the message it was generated from, and
//! cutting, re-framing or framing it elsewhere changes nothing.

use super::*;

/// Characters that stress the pipeline: multi-byte UTF-8, JSON escapes, control characters,
/// a BOM and a line separator in the middle of text.
fn content_char() -> impl Strategy<Value = char> {
    prop_oneof![
        6 => prop::char::range('a', 'z'),
        2 => Just(' '),
        1 => prop::sample::select(vec!['"', '\\', '/', '\n', '\r', '\t', '\u{0}', '\u{1f}']),
        2 => prop::sample::select(vec!['é', 'ß', '中', '€', '😀', '𝄞', '\u{2028}', '\u{feff}']),
        1 => any::<char>(),
    ]
}

fn fragment() -> impl Strategy<Value = String> {
    prop::collection::vec(content_char(), 0..10).prop_map(|chars| chars.into_iter().collect())
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        fragment().prop_map(Value::String),
        any::<i64>().prop_map(Value::from),
        // Multiples of 1/8 print and parse back exactly.
        any::<i32>().prop_map(|n| Value::from(f64::from(n) / 8.0)),
        any::<bool>().prop_map(Value::Bool),
        Just(Value::Null),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(fragment(), inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// Cuts text at the given points, moved forward to character boundaries.
fn cut_text(text: &str, cuts: &[Index]) -> Vec<String> {
    let mut points: Vec<usize> = cuts
        .iter()
        .map(|cut| {
            let mut at = cut.index(text.len() + 1);
            while !text.is_char_boundary(at) {
                at += 1;
            }
            at
        })
        .collect();
    points.sort_unstable();
    let mut fragments = Vec::new();
    let mut start = 0;
    for point in points {
        fragments.push(text[start..point].to_owned());
        start = point;
    }
    fragments.push(text[start..].to_owned());
    fragments
}

fn call_plan(position: usize) -> impl Strategy<Value = CallPlan> {
    (
        "[a-zA-Z0-9]{4,12}",
        "[a-z_]{1,12}",
        prop::collection::btree_map(fragment(), json_value(), 0..5),
        prop::collection::vec(any::<Index>(), 0..8),
    )
        .prop_map(move |(id, name, args, cuts)| {
            let args: Map<String, Value> = args.into_iter().collect();
            let text = Value::Object(args.clone()).to_string();
            CallPlan {
                id: format!("call_{position}_{id}"),
                name,
                args,
                fragments: cut_text(&text, &cuts),
            }
        })
}

fn choice_plan() -> impl Strategy<Value = ChoicePlan> {
    (
        prop::collection::vec(fragment(), 0..5),
        prop::collection::vec(fragment(), 0..8),
        0usize..3,
        prop::sample::select(&["stop", "length", "content_filter"][..]),
        any::<bool>(),
    )
        .prop_flat_map(|(reasoning, text, calls, reason, finish_inline)| {
            let calls: Vec<_> = (0..calls).map(call_plan).collect();
            (
                Just(reasoning),
                Just(text),
                calls,
                Just(reason),
                Just(finish_inline),
            )
        })
        .prop_map(
            |(reasoning, text, calls, reason, finish_inline)| ChoicePlan {
                finish_reason: if calls.is_empty() {
                    reason
                } else {
                    "tool_calls"
                },
                reasoning,
                text,
                calls,
                finish_inline,
            },
        )
}

fn stream_plan() -> impl Strategy<Value = StreamPlan> {
    (
        "chatcmpl-[a-zA-Z0-9]{6}",
        prop::sample::select(&["gpt-4o", "deepseek-reasoner", "mistral-small-latest"][..]),
        prop::collection::vec(choice_plan(), 1..3),
        prop::collection::vec(any::<Index>(), 1..16),
        prop::option::of((0u64..100_000, 0u64..100_000)),
        prop::collection::vec(prop::bool::weighted(0.2), 1..32),
    )
        .prop_map(|(id, model, choices, turns, usage, escapes)| StreamPlan {
            id,
            model: model.to_owned(),
            choices,
            turns,
            usage,
            escapes,
        })
}

/// Writes a JSON string, sending the characters `escape` picks as `\u` escapes (surrogate
/// pairs beyond the BMP) and the others raw where JSON allows it.
fn json_string(text: &str, escape: &mut impl Iterator<Item = bool>) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        let forced = escape.next().unwrap_or(false);
        match c {
            '"' if !forced => out.push_str("\\\""),
            '\\' if !forced => out.push_str("\\\\"),
            '\n' if !forced => out.push_str("\\n"),
            c if forced || u32::from(c) < 0x20 => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// What a choice sends, one chunk's delta each.
enum Step<'a> {
    Reasoning(&'a str),
    Text(&'a str),
    ToolCall {
        index: usize,
        call: &'a CallPlan,
        fragment: usize,
    },
}

impl StreamPlan {
    fn steps(choice: &ChoicePlan) -> Vec<Step<'_>> {
        let mut steps: Vec<Step<'_>> = Vec::new();
        steps.extend(choice.reasoning.iter().map(|text| Step::Reasoning(text)));
        steps.extend(choice.text.iter().map(|text| Step::Text(text)));
        for (index, call) in choice.calls.iter().enumerate() {
            steps.extend((0..call.fragments.len()).map(|fragment| Step::ToolCall {
                index,
                call,
                fragment,
            }));
        }
        steps
    }

    /// Renders the stream as an OpenAI server would send it.
    fn render(&self) -> Vec<u8> {
        let mut escape = self.escapes.iter().copied().cycle();
        let escape = &mut escape;
        let mut out = String::new();
        let head = format!(
            "{{\"id\":{},\"object\":\"chat.completion.chunk\",\"created\":1735689600,\"model\":{},",
            json_string(&self.id, escape),
            json_string(&self.model, escape)
        );
        let mut chunk = |choices: String, usage: Option<String>| {
            out.push_str("data: ");
            out.push_str(&head);
            out.push_str(&format!("\"choices\":[{choices}]"));
            if let Some(usage) = usage {
                out.push_str(&format!(",\"usage\":{usage}"));
            }
            out.push_str("}\n\n");
        };
        let mut queues: Vec<std::collections::VecDeque<Step<'_>>> = self
            .choices
            .iter()
            .map(|choice| Self::steps(choice).into())
            .collect();
        for (index, _) in self.choices.iter().enumerate() {
            chunk(
                format!("{{\"index\":{index},\"delta\":{{\"role\":\"assistant\",\"content\":\"\"}},\"logprobs\":null,\"finish_reason\":null}}"),
                None,
            );
        }
        let mut turns = self.turns.iter().cycle();
        let mut finished = vec![false; self.choices.len()];
        while finished.iter().any(|done| !done) {
            let pending: Vec<usize> = (0..self.choices.len()).filter(|&c| !finished[c]).collect();
            let index = pending[turns.next().map_or(0, |turn| turn.index(pending.len()))];
            let plan = &self.choices[index];
            let step = queues[index].pop_front();
            let last = queues[index].is_empty();
            let delta = match step {
                Some(Step::Reasoning(text)) => {
                    format!("{{\"reasoning_content\":{}}}", json_string(text, escape))
                }
                Some(Step::Text(text)) => format!("{{\"content\":{}}}", json_string(text, escape)),
                Some(Step::ToolCall {
                    index: call_index,
                    call,
                    fragment,
                }) => {
                    let arguments = json_string(&call.fragments[fragment], escape);
                    if fragment == 0 {
                        format!(
                            "{{\"content\":null,\"tool_calls\":[{{\"index\":{call_index},\"id\":{},\"type\":\"function\",\"function\":{{\"name\":{},\"arguments\":{arguments}}}}}]}}",
                            json_string(&call.id, escape),
                            json_string(&call.name, escape)
                        )
                    } else {
                        format!("{{\"tool_calls\":[{{\"index\":{call_index},\"function\":{{\"arguments\":{arguments}}}}}]}}")
                    }
                }
                None => "{}".to_owned(),
            };
            let finish = if last && (plan.finish_inline || step.is_none()) {
                finished[index] = true;
                format!("\"{}\"", plan.finish_reason)
            } else {
                "null".to_owned()
            };
            chunk(
                format!("{{\"index\":{index},\"delta\":{delta},\"logprobs\":null,\"finish_reason\":{finish}}}"),
                None,
            );
        }
        if let Some((prompt, completion)) = self.usage {
            chunk(
                String::new(),
                Some(format!(
                    "{{\"prompt_tokens\":{prompt},\"completion_tokens\":{completion},\"total_tokens\":{}}}",
                    prompt + completion
                )),
            );
        }
        out.push_str("data: [DONE]\n\n");
        out.into_bytes()
    }
}

/// Checks a completion against the plan it was generated from.
fn check_against_plan(plan: &StreamPlan, completion: &Completion) -> Result<(), TestCaseError> {
    prop_assert!(completion.complete);
    prop_assert_eq!(completion.choices.len(), plan.choices.len());
    for (index, (choice, expected)) in completion.choices.iter().zip(&plan.choices).enumerate() {
        prop_assert_eq!(choice.index as usize, index);
        let message = &choice.message;
        prop_assert_eq!(message.reasoning(), expected.reasoning.concat());
        prop_assert_eq!(message.text(), expected.text.concat());
        let calls: Vec<(String, String, Map<String, Value>)> = message
            .tool_calls()
            .map(|call| (call.id.clone(), call.name.clone(), call.args.clone()))
            .collect();
        let expected_calls: Vec<(String, String, Map<String, Value>)> = expected
            .calls
            .iter()
            .map(|call| (call.id.clone(), call.name.clone(), call.args.clone()))
            .collect();
        prop_assert_eq!(calls, expected_calls);
        prop_assert_eq!(message.invalid_tool_calls().count(), 0);
        let metadata = &message.response_metadata;
        prop_assert_eq!(metadata.finish_reason.as_str(), expected.finish_reason);
        prop_assert_eq!(metadata.id.as_deref(), Some(plan.id.as_str()));
        prop_assert_eq!(metadata.model_name.as_deref(), Some(plan.model.as_str()));
        let usage = message
            .usage
            .as_ref()
            .map(|usage| (usage.input_tokens, usage.output_tokens, usage.total_tokens));
        prop_assert_eq!(
            usage,
            plan.usage
                .map(|(prompt, completion)| (prompt, completion, prompt + completion))
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn a_generated_stream_assembles_to_its_plan(plan in stream_plan()) {
        let outcome = run([&plan.render()[..]]);
        match &outcome.result {
            Ok(completion) => check_against_plan(&plan, completion)?,
            Err(failure) => prop_assert!(false, "{:?}", failure),
        }
        check_events_add_up(&outcome)?;
    }

    #[test]
    fn cutting_a_generated_stream_anywhere_changes_nothing(
        plan in stream_plan(),
        cuts in prop::collection::vec(any::<Index>(), 0..32),
    ) {
        let bytes = plan.render();
        prop_assert_eq!(run(split(&bytes, &cuts)), run([&bytes[..]]));
    }

    #[test]
    fn keep_alives_and_line_ends_change_nothing_in_a_generated_stream(
        plan in stream_plan(),
        eol in prop::sample::select(&["\r\n", "\r"][..]),
        keep_alives in prop::collection::vec(prop::option::of(0usize..3), 1..8),
        cuts in prop::collection::vec(any::<Index>(), 0..8),
    ) {
        let bytes = plan.render();
        let reframed = reframe(&bytes, eol, &keep_alives);
        prop_assert_eq!(
            run(split(&reframed, &cuts)).without_offsets(),
            run([&bytes[..]]).without_offsets()
        );
    }

    #[test]
    fn eventsource_stream_framing_assembles_alike(
        plan in stream_plan(),
        eol in prop::sample::select(&["\n", "\r\n"][..]),
        cuts in prop::collection::vec(any::<Index>(), 0..16),
    ) {
        let bytes = reframe(&plan.render(), eol, &[None]);
        let pieces = split(&bytes, &cuts);
        prop_assert_eq!(run_eventsource(&pieces), run(pieces.iter().copied()));
    }
}
