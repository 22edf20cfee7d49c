//! Usage: wherever a provider reports it (a final empty-choices chunk, the last content chunk,
//! every chunk as a running total, under `x_groq`), how its details map, and what is never
//! counted (null, empty or odd values).

use deltafold::Options;
use serde_json::json;

use crate::{body, chunk_with, data, finish, message, text, usage_chunk, DONE};

#[test]
fn usage_in_a_final_empty_choices_chunk() {
    let message = message(&body(&[
        text("hi"),
        finish(0, "stop"),
        usage_chunk(
            r#"{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12,"prompt_tokens_details":{"cached_tokens":4,"audio_tokens":1},"completion_tokens_details":{"reasoning_tokens":1,"audio_tokens":0}}"#,
        ),
        DONE.into(),
    ]));
    let usage = message.usage.expect("usage");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (10, 2, 12)
    );
    let input = usage.input_token_details.expect("input details");
    assert_eq!((input.cache_read, input.audio), (Some(4), Some(1)));
    let output = usage.output_token_details.expect("output details");
    assert_eq!((output.reasoning, output.audio), (Some(1), Some(0)));
}

#[test]
fn usage_in_the_last_content_chunk() {
    let message = message(&body(&[
        text("hi"),
        chunk_with(
            r#"{"index":0,"delta":{"content":"!"},"finish_reason":"stop"}"#,
            r#""usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}"#,
        ),
        DONE.into(),
    ]));
    let usage = message.usage.expect("usage");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (7, 3, 10)
    );
}

#[test]
fn cumulative_usage_in_every_chunk_takes_the_latest_values_and_never_sums() {
    let message = message(&body(&[
        chunk_with(
            r#"{"index":0,"delta":{"content":"a"}}"#,
            r#""usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}"#,
        ),
        chunk_with(
            r#"{"index":0,"delta":{"content":"b"}}"#,
            r#""usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}"#,
        ),
        chunk_with(
            r#"{"index":0,"delta":{},"finish_reason":"stop"}"#,
            r#""usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}"#,
        ),
        DONE.into(),
    ]));
    let usage = message.usage.expect("usage");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (9, 3, 12)
    );
}

#[test]
fn groq_reports_usage_under_x_groq() {
    let message = message(&body(&[
        chunk_with(
            r#"{"index":0,"delta":{"content":"hi"}}"#,
            r#""x_groq":{"id":"req_1"}"#,
        ),
        chunk_with(
            r#"{"index":0,"delta":{},"finish_reason":"stop"}"#,
            r#""x_groq":{"id":"req_1","usage":{"queue_time":0.02,"prompt_tokens":20,"completion_tokens":5,"total_tokens":25}}"#,
        ),
        DONE.into(),
    ]));
    let usage = message.usage.expect("usage from x_groq");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (20, 5, 25)
    );
    assert_eq!(
        usage.raw.expect("raw usage").get("queue_time").unwrap(),
        json!(0.02)
    );
}

#[test]
fn null_empty_or_missing_usage_never_erases_an_earlier_report() {
    let message = message(&body(&[
        chunk_with(
            r#"{"index":0,"delta":{"content":"a"}}"#,
            r#""usage":{"prompt_tokens":10,"completion_tokens":4,"total_tokens":14,"cost":0.5,"prompt_tokens_details":{"cached_tokens":3}}"#,
        ),
        chunk_with(r#"{"index":0,"delta":{"content":"b"}}"#, r#""usage":null"#),
        chunk_with(r#"{"index":0,"delta":{"content":"c"}}"#, r#""usage":{}"#),
        chunk_with(
            r#"{"index":0,"delta":{},"finish_reason":"stop"}"#,
            r#""usage":{"prompt_tokens":null,"completion_tokens":null,"total_tokens":null,"cost":null,"prompt_tokens_details":null}"#,
        ),
        text("d"),
        DONE.into(),
    ]));
    let usage = message.usage.expect("usage");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (10, 4, 14)
    );
    assert_eq!(usage.input_token_details.unwrap().cache_read, Some(3));
    let raw = usage.raw.expect("raw usage");
    assert_eq!(raw.get("cost"), Some(json!(0.5)));
    assert_eq!(
        raw.get("prompt_tokens_details"),
        Some(json!({"cached_tokens": 3}))
    );
}

#[test]
fn deepseek_prompt_cache_hit_tokens_are_cache_reads() {
    let message = message(&body(&[
        text("hi"),
        chunk_with(
            r#"{"index":0,"delta":{"content":""},"finish_reason":"stop"}"#,
            r#""usage":{"prompt_tokens":100,"completion_tokens":5,"total_tokens":105,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36}"#,
        ),
        DONE.into(),
    ]));
    let usage = message.usage.expect("usage");
    assert_eq!(usage.input_token_details.unwrap().cache_read, Some(64));
    assert_eq!(
        usage.raw.unwrap().get("prompt_cache_miss_tokens").unwrap(),
        json!(36)
    );
}

#[test]
fn cache_write_tokens_are_cache_creation() {
    let message = message(&body(&[
        text("hi"),
        finish(0, "stop"),
        usage_chunk(
            r#"{"prompt_tokens":200,"completion_tokens":5,"total_tokens":205,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":150}}"#,
        ),
        DONE.into(),
    ]));
    let details = message.usage.unwrap().input_token_details.unwrap();
    assert_eq!(
        (details.cache_read, details.cache_creation),
        (Some(0), Some(150))
    );
}

#[test]
fn total_tokens_is_the_sum_when_the_provider_sends_none() {
    let message = message(&body(&[
        text("hi"),
        finish(0, "stop"),
        usage_chunk(r#"{"prompt_tokens":8,"completion_tokens":3}"#),
        DONE.into(),
    ]));
    assert_eq!(message.usage.unwrap().total_tokens, 11);
}

#[test]
fn huge_negative_and_fractional_usage_numbers_are_not_counted() {
    let mut wrong = Vec::new();
    for odd in [
        "1e400",
        "1180591620717411303424",
        "-5",
        "3.5",
        "\"12\"",
        "null",
        "[]",
    ] {
        let chunk = format!(
            r#"{{"choices":[],"usage":{{"prompt_tokens":7,"completion_tokens":{odd},"total_tokens":9,"completion_tokens_details":{{"reasoning_tokens":{odd}}}}}}}"#
        );
        let stream = body(&[text("a"), finish(0, "stop"), data(&chunk), DONE.into()]);
        let completion = deltafold::assemble(stream.as_bytes(), Options::new())
            .unwrap_or_else(|error| panic!("usage with {odd} failed the stream: {error}"));
        let message = completion.message().unwrap();
        assert_eq!(message.text(), "a");
        let counted = message.usage.as_ref().map(|usage| {
            (
                usage.input_tokens,
                usage.output_tokens,
                usage.total_tokens,
                usage
                    .output_token_details
                    .and_then(|details| details.reasoning),
            )
        });
        if counted != Some((7, 0, 9, None)) {
            wrong.push(format!("{odd}: {counted:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "the valid counts beside an odd one must stay and the odd one must not count: {wrong:?}"
    );
}

#[test]
fn a_usage_that_is_not_an_object_is_ignored() {
    for usage in ["1e400", "\"lots\"", "[1, 2]", "-1", "{}"] {
        let chunk = format!(r#"{{"choices":[],"usage":{usage},"created":{usage}}}"#);
        let stream = body(&[text("a"), finish(0, "stop"), data(&chunk), DONE.into()]);
        let completion = deltafold::assemble(stream.as_bytes(), Options::new())
            .unwrap_or_else(|error| panic!("usage {usage} failed the stream: {error}"));
        assert_eq!(completion.message().unwrap().usage, None, "usage {usage}");
    }
}

#[test]
fn counts_that_are_not_unsigned_integers_are_absent_and_a_report_of_none_is_no_usage() {
    let variants = [
        r#"{"prompt_tokens":"12","completion_tokens":"3","total_tokens":"15"}"#,
        r#"{"prompt_tokens":-12,"completion_tokens":-3,"total_tokens":-15}"#,
        r#"{"prompt_tokens":12.5,"completion_tokens":3.5,"total_tokens":16.0}"#,
        r#"{"prompt_tokens":1e999,"completion_tokens":1e999,"total_tokens":1e999}"#,
    ];
    for usage in variants {
        let message = message(&body(&[
            text("hi"),
            finish(0, "stop"),
            usage_chunk(usage),
            DONE.into(),
        ]));
        assert_eq!(message.usage, None, "{usage}");
        // The object is kept as sent, beside the usage it is not.
        let kept = &message.response_metadata.extra["usage"];
        assert!(kept.get("prompt_tokens").is_some(), "{usage}: {kept}");
    }
    // One valid count among odd ones: that count, the others absent (not 0 over a real value).
    let message = message(&body(&[
        text("hi"),
        usage_chunk(r#"{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}"#),
        usage_chunk(r#"{"prompt_tokens":"x","completion_tokens":5,"total_tokens":-1}"#),
        finish(0, "stop"),
        DONE.into(),
    ]));
    let usage = message.usage.expect("usage");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (7, 5, 12)
    );
}
