//! One event of tiny values (issue 25, item 7) and many calls over many choices (item 6): what
//! reading them holds is judged against the input alone, without the allowance per event the
//! other oracles give a parse, and writing the completion as JSON holds little beyond it.

use deltafold::message::ContentBlock;
use serde_json::Value;

use crate::counting::measure;
use crate::support::hostile::{Class, PARSED_ALLOWANCE, PEAK_CONSTANT, PEAK_PER_INPUT};

/// One event of `items` empty `{}` in `class`, framed as a whole stream.
fn one_dense_event(class: Class, items: usize) -> String {
    let mut stream = String::new();
    class.header(&mut stream, 1);
    class.event(&mut stream, 0, items);
    class.footer(&mut stream);
    stream
}

#[test]
fn one_event_of_two_million_tiny_values_holds_a_few_times_its_size() {
    for class in [
        Class::DenseField,
        Class::DenseChoiceField,
        Class::DenseGeminiArgs,
    ] {
        let stream = one_dense_event(class, 1 << 21);
        let (outcome, heap) =
            measure(|| deltafold::assemble(stream.as_bytes(), deltafold::Options::new()));
        let bound = PEAK_PER_INPUT * stream.len() + PEAK_CONSTANT;
        assert!(
            heap.peak <= bound,
            "{}: peak {} for {} bytes (bound {bound})",
            class.name(),
            heap.peak,
            stream.len()
        );
        let message = outcome.unwrap().into_message();
        // Nothing lost: the value is kept as its text, the arguments as an invalid call's.
        let list = format!("[{}]", vec!["{}"; 1 << 21].join(","));
        match class {
            Class::DenseGeminiArgs => {
                let call = message.invalid_tool_calls().next().unwrap();
                assert_eq!(call.args, format!("{{\"a\":{list}}}"));
                assert!(call.error.contains("2097154 values"), "{}", call.error);
            }
            Class::DenseField => {
                let kept = &message.response_metadata.extra["x"];
                assert_eq!(kept, &Value::String(list));
                assert!(message.response_metadata.warnings[0].contains("\"x\""));
            }
            _ => {
                let kept = message
                    .extra
                    .get("x")
                    .or(message.response_metadata.extra.get("x"));
                assert_eq!(
                    kept,
                    Some(&Value::String(list)),
                    "{:?}",
                    message.extra.keys()
                );
            }
        }
        let (written, heap) = measure(|| serde_json::to_writer(std::io::sink(), &message));
        written.unwrap();
        assert!(
            heap.peak <= stream.len() + PEAK_CONSTANT,
            "{}: writing the message held {} for {} bytes",
            class.name(),
            heap.peak,
            stream.len()
        );
    }
}

#[test]
fn a_dense_value_under_the_allowance_is_parsed_as_sent() {
    let stream = one_dense_event(Class::DenseField, 1024);
    let completion = deltafold::assemble(stream.as_bytes(), deltafold::Options::new()).unwrap();
    let message = completion.into_message();
    let kept = &message.response_metadata.extra["x"];
    assert_eq!(kept.as_array().map(Vec::len), Some(1024));
    assert!(message.response_metadata.warnings.is_empty());
}

#[test]
fn writing_calls_over_many_choices_holds_little_beyond_the_completion() {
    let case = Class::ManyChoicesCalls.case(2 << 20, 1, None);
    let completion = deltafold::assemble(&case.bytes, deltafold::Options::new()).unwrap();
    assert_eq!(completion.choices.len(), 128);
    let calls: usize = completion
        .messages()
        .map(|message| message.tool_calls().count())
        .sum();
    assert!(calls > 16_000, "{calls}");
    assert!(completion
        .messages()
        .flat_map(|message| &message.content)
        .all(|block| matches!(block, ContentBlock::ToolCall(_))));
    // The LangChain dict borrows the message: no copy of its blocks or arguments, no list of
    // its calls.
    for message in completion.messages() {
        let (written, heap) = measure(|| serde_json::to_writer(std::io::sink(), message));
        written.unwrap();
        assert!(heap.peak <= 4096, "writing one message held {}", heap.peak);
    }
}

/// Dense arguments in every call (issue 25): each call's list of `{}` is under the allowance
/// one value gets, but the response's parsed values share one room (twice everything else held,
/// past 8 MiB), so what the message holds stays within the tool-call classes' allowance past
/// that room (it held 23 ×), and a call past the room keeps its text as an invalid call that
/// says why.
#[test]
fn dense_arguments_in_many_calls_share_the_responses_room() {
    let options = deltafold::Options::new().max_tool_calls(1 << 16);
    for width in [256, 1024, 4096] {
        let case = Class::DenseGeminiArgs.case(1 << 20, width, None);
        let (outcome, heap) = measure(|| deltafold::assemble(&case.bytes, options.clone()));
        // Wide lists in calls of a few KB: within the other tool-call classes' allowance, not
        // the class's own (which allows for calls of a few `{}`, where a call's own cost is
        // larger than its input).
        let bound = Class::CallsWithoutIds.peak_per_input() * case.bytes.len()
            + PEAK_CONSTANT
            + PARSED_ALLOWANCE;
        assert!(
            heap.peak <= bound,
            "width {width}: peak {} for {} bytes (bound {bound})",
            heap.peak,
            case.bytes.len()
        );
        let message = outcome.unwrap().into_message();
        let args = format!("{{\"a\":[{}]}}", vec!["{}"; width].join(","));
        let parsed = message.tool_calls().count();
        let kept = message.invalid_tool_calls().count();
        assert!(
            parsed > 0 && kept > 0,
            "width {width}: {parsed} parsed, {kept} kept as text"
        );
        for call in message.invalid_tool_calls() {
            assert_eq!(call.args, args);
            assert!(call.error.contains("room for"), "{}", call.error);
        }
        for call in message.tool_calls() {
            assert_eq!(call.args["a"].as_array().map(Vec::len), Some(width));
        }
    }
}

/// Under a message limit the parsed trees count against it: the same stream under 22 KiB is
/// refused with its partial, holding a few times the limit (it held 397 KB).
#[test]
fn dense_arguments_count_against_the_message_limit() {
    let max = 22 * 1024;
    let case = Class::DenseGeminiArgs.case(1 << 20, 1024, Some(max));
    let (outcome, heap) = measure(|| deltafold::assemble(&case.bytes, case.options()));
    let error = outcome.unwrap_err();
    assert!(error.is_limit_exceeded(), "{error}");
    assert!(error.partial().is_some());
    let bound = 4 * max + 32 * case.largest_event + PEAK_CONSTANT;
    assert!(heap.peak <= bound, "peak {} (bound {bound})", heap.peak);
}

/// Ordinary arguments are never judged dense, however many calls carry them: the room grows
/// with what the message holds besides.
#[test]
fn ordinary_arguments_in_many_calls_are_all_parsed() {
    let mut stream = String::new();
    for call in 0..8000 {
        stream.push_str(&format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{call},\"id\":\"call_{call}\",\"function\":{{\"name\":\"get_weather\",\"arguments\":\"{{\\\"city\\\":\\\"Paris\\\",\\\"days\\\":[1,2,3],\\\"unit\\\":\\\"c\\\"}}\"}}}}]}}}}]}}\n\n"
        ));
    }
    stream.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n");
    let options = deltafold::Options::new().max_tool_calls(1 << 16);
    let message = deltafold::assemble(stream.as_bytes(), options)
        .unwrap()
        .into_message();
    assert_eq!(message.tool_calls().count(), 8000);
    assert_eq!(message.invalid_tool_calls().count(), 0);
}

/// Tool arguments of tens of thousands of short values are ordinary (a table, a list of ids):
/// they are parsed as sent, never refused as dense (at a room of 256 KiB both became an
/// invalid call), and what reading them holds stays within the room parsed trees get.
#[test]
fn long_arguments_of_short_values_are_parsed() {
    // 19 digits, within 64 bits: past them a build without `arbitrary_precision` refuses the
    // arguments (a tool must not get another number than sent).
    let numbers = (0..10_002)
        .map(|n| format!("{}", 1_000_000_000_000_000_000u64 + n))
        .collect::<Vec<_>>()
        .join(",");
    let strings = (0..16_002)
        .map(|n| format!("\\\"{n:089}\\\""))
        .collect::<Vec<_>>()
        .join(",");
    for list in [numbers, strings] {
        let args = format!("{{\\\"a\\\":[{list}]}}");
        let stream = format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":0,\"id\":\"call_1\",\"function\":{{\"name\":\"rows\",\"arguments\":\"{args}\"}}}}]}}}}]}}\n\n\
             data: {{\"choices\":[{{\"index\":0,\"delta\":{{}},\"finish_reason\":\"tool_calls\"}}]}}\n\ndata: [DONE]\n\n"
        );
        let (outcome, heap) =
            measure(|| deltafold::assemble(stream.as_bytes(), deltafold::Options::new()));
        let message = outcome.unwrap().into_message();
        assert_eq!(message.invalid_tool_calls().count(), 0);
        let call = message.tool_calls().next().unwrap();
        let sent: serde_json::Value = serde_json::from_str(&args.replace("\\\"", "\"")).unwrap();
        assert_eq!(call.args["a"], sent["a"]);
        let bound = PEAK_PER_INPUT * stream.len() + PEAK_CONSTANT + PARSED_ALLOWANCE;
        assert!(
            heap.peak <= bound,
            "peak {} for {} bytes",
            heap.peak,
            stream.len()
        );
    }
}
