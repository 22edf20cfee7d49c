//! The Ollama dialect and its newline-delimited framing: the native fixtures replayed, then the
//! rules — `done` ends a stream, a last line may lack its newline, a cut line is a truncation —
//! and the NDJSON decoder's independence from how the input is split.

use deltafold::framing::{FrameDecoder, NdjsonDecoder};
use proptest::prelude::*;
use serde_json::json;

use crate::{assemble, ndjson, replay_fixtures_of};

#[test]
fn every_fixture_replays_to_its_expected_message() {
    replay_fixtures_of("ollama-native");
}

#[test]
fn needs_done_and_reads_a_last_line_without_newline() {
    let line = |done: bool| json!({"model": "qwen3", "created_at": "2025-01-01T00:00:00Z", "message": {"role": "assistant", "content": "hi"}, "done": done});
    let mut body = ndjson(&[line(false)]);
    assert!(assemble(&body).unwrap_err().is_truncated());
    body.push_str(&line(true).to_string());
    let completion = assemble(&body).unwrap();
    assert!(completion.complete);
    assert_eq!(completion.into_message().text(), "hihi");
}

#[test]
fn a_last_ndjson_line_cut_short_is_a_truncation_not_a_malformed_payload() {
    let body =
        "{\"model\":\"m\",\"message\":{\"content\":\"a\"},\"done\":false}\n{\"model\":\"m\",\"mess";
    let error = assemble(body).unwrap_err();
    assert!(error.is_truncated(), "{error}");
    assert_eq!(error.partial().unwrap().message().unwrap().text(), "a");
    let broken = "{\"model\":\"m\",\"message\":{\"content\":\"a\"},\"done\":false}\n{oops}\n";
    assert!(assemble(broken).unwrap_err().is_malformed());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// However the input is split, the same lines come out, and nothing but the final line can
    /// lack its newline.
    #[test]
    fn ndjson_lines_do_not_depend_on_the_split(
        lines in prop::collection::vec("[a-z{}\" :é😀]{0,12}", 0..8),
        crlf in any::<bool>(),
        final_newline in any::<bool>(),
        cuts in prop::collection::vec(1usize..9, 0..40),
    ) {
        let end = if crlf { "\r\n" } else { "\n" };
        let mut input = lines.join(end);
        if final_newline {
            input.push_str(end);
        }
        let expected: Vec<String> = lines
            .iter()
            .filter(|line| !line.trim().is_empty())
            .cloned()
            .collect();
        let mut decoder = NdjsonDecoder::new();
        let mut got = Vec::new();
        let mut rest = input.as_bytes();
        for cut in cuts.iter().cycle().take(input.len() + 1) {
            if rest.is_empty() {
                break;
            }
            let (piece, tail) = rest.split_at((*cut).min(rest.len()));
            decoder.push(piece);
            rest = tail;
            while let Some(frame) = decoder.next_frame().unwrap() {
                got.push(frame.data.to_owned());
            }
        }
        decoder.push(rest);
        while let Some(frame) = decoder.next_frame().unwrap() {
            got.push(frame.data.to_owned());
        }
        while let Some(frame) = decoder.finish().unwrap() {
            got.push(frame.data.to_owned());
        }
        prop_assert_eq!(got, expected);
    }
}

#[test]
fn a_non_streamed_chat_answer_reads_the_same_pretty_printed_or_on_one_line() {
    let answer = json!({"model": "qwen3", "created_at": "2025-01-01T00:00:00Z", "message": {"role": "assistant", "content": "a {b}\n", "tool_calls": [{"function": {"name": "f", "arguments": {"x": "}"}}}]}, "done_reason": "stop", "done": true, "prompt_eval_count": 3, "eval_count": 2});
    let read = |body: String| {
        let completion = assemble(&body).unwrap();
        assert!(completion.complete, "{body}");
        completion.into_message()
    };
    let one_line = read(format!("{answer}\n"));
    assert_eq!(one_line.text(), "a {b}\n");
    assert_eq!(one_line.tool_calls().count(), 1);
    assert_eq!(
        read(serde_json::to_string_pretty(&answer).unwrap()),
        one_line
    );
}

#[test]
fn ndjson_keeps_skipping_a_bad_later_line_when_lenient() {
    // The framing is chosen on the first line: a complete value means NDJSON, read line by line
    // as before, so a later line that is not JSON is one skipped payload, not a framing change.
    let body = "{\"model\":\"m\",\"message\":{\"content\":\"a\"},\"done\":false}\n{\"model\":\n{\"model\":\"m\",\"message\":{\"content\":\"b\"},\"done\":true}\n";
    let completion =
        deltafold::assemble(body.as_bytes(), deltafold::Options::new().lenient(true)).unwrap();
    assert_eq!(completion.into_message().text(), "ab");
}
