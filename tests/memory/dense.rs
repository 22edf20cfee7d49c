//! One event of tiny values (issue 25, item 7) and many calls over many choices (item 6): what
//! reading them holds is judged against the input alone, without the allowance per event the
//! other oracles give a parse, and writing the completion as JSON holds little beyond it.

use deltafold::message::ContentBlock;
use serde_json::Value;

use crate::counting::measure;
use crate::support::hostile::{Class, PEAK_CONSTANT, PEAK_PER_INPUT};

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
