//! How a stream ends: `[DONE]` (and nothing after it counts), every choice finished, a finish
//! sent twice; and how it ends early: truncated, with the partial message, or, in lenient mode,
//! an incomplete message.

use deltafold::{Assembler, ErrorKind, Event, Options};

use crate::{
    body, completion, data, delta, described, every_cut, failure, finish, partial_message, replay,
    run, run_with, text, tools, DONE,
};

#[test]
fn done_ends_the_stream_and_anything_after_it_is_ignored() {
    let stream = body(&[
        text("kept"),
        DONE.into(),
        text(" ignored"),
        finish(0, "length"),
        data("{not json"),
    ]);
    let mut assembler = Assembler::new();
    assembler.push(stream.as_bytes());
    let mut events = Vec::new();
    replay::drain_into(&mut assembler, &mut events).expect("nothing after [DONE] is read");
    assert!(assembler.is_done());
    assembler.push(text(" pushed later").as_bytes());
    replay::drain_into(&mut assembler, &mut events).expect("input after [DONE] is ignored");
    assert_eq!(
        described(&events),
        [
            "started chatcmpl-1 gpt-test",
            "text 0 kept",
            "text_end 0 0",
            "done"
        ]
    );
    let completion = assembler.finish().expect("a clean stream");
    assert!(completion.complete);
    let message = completion.into_message();
    assert_eq!(message.text(), "kept");
    assert!(message.response_metadata.finish_reason.is_none());

    // Whatever follows `[DONE]`, however the bytes are cut: text, errors, garbage, invalid
    // UTF-8, another `[DONE]`.
    let head = body(&[text("Hello"), finish(0, "stop"), DONE.into()]);
    let tails: [&[u8]; 6] = [
        b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" late\"}}]}\n\n",
        b"data: {\"error\":{\"message\":\"late\"}}\n\n",
        b"event: error\ndata: late\n\n",
        b"data: not json\n\n",
        b"\xFF\xFE garbage",
        b"data: [DONE]\n\ndata: [DONE]\n\n",
    ];
    for tail in tails {
        let mut stream = head.as_bytes().to_vec();
        stream.extend_from_slice(tail);
        for run in every_cut(&stream, Options::new()) {
            let completion = run
                .result
                .unwrap_or_else(|error| panic!("{}: {error}", String::from_utf8_lossy(tail)));
            assert!(completion.complete);
            assert_eq!(completion.message().unwrap().text(), "Hello");
            assert_eq!(run.events.last(), Some(&Event::Done));
        }
    }
}

#[test]
fn a_stream_whose_choices_all_finished_is_complete_without_done() {
    let run = run(&body(&[text("all"), finish(0, "stop")]));
    assert_eq!(
        described(&run.events).last().map(String::as_str),
        Some("done")
    );
    assert!(run.result.expect("complete").complete);
}

#[test]
fn a_final_done_without_its_blank_line_is_a_clean_end() {
    let stream = format!("{}{}data: [DONE]", text("ok"), finish(0, "stop"));
    let completion = completion(&stream);
    assert!(completion.complete);
    assert_eq!(completion.into_message().text(), "ok");
}

#[test]
fn duplicated_finish_chunks_finish_the_choice_and_its_calls_once() {
    let events = described(
        &run(&body(&[
            tools(&[r#"{"index":0,"id":"call_1","function":{"name":"f","arguments":"{}"}}"#]),
            finish(0, "tool_calls"),
            finish(0, "tool_calls"),
            finish(0, "stop"),
            DONE.into(),
        ]))
        .events,
    );
    assert_eq!(
        events,
        [
            "started chatcmpl-1 gpt-test",
            "tool_started 0.0 call_1 f",
            "tool_args 0.0 {}",
            "tool_finished 0.0 f {}",
            "choice_finished 0 tool_calls",
            "done",
        ]
    );
}

#[test]
fn a_stream_cut_before_done_and_the_finish_is_truncated_with_the_partial() {
    let error = failure(&body(&[text("cut"), text(" here")]));
    assert_eq!(error.kind(), ErrorKind::Truncated);
    assert!(error.to_string().contains("choice 0"), "{error}");
    let partial = partial_message(&error);
    assert_eq!(partial.text(), "cut here");
    assert!(partial
        .response_metadata
        .incomplete
        .as_deref()
        .is_some_and(|why| why.contains("truncated")));
}

#[test]
fn truncation_names_the_unfinished_choice_and_keeps_every_partial_message() {
    let error = failure(&body(&[
        delta(0, r#"{"content":"done"}"#),
        delta(1, r#"{"content":"still going"}"#),
        finish(0, "stop"),
    ]));
    assert_eq!(error.kind(), ErrorKind::Truncated);
    assert!(
        error.to_string().contains("while choice 1 was unfinished"),
        "{error}"
    );
    let partial = error.partial().expect("the partial result");
    let summary: Vec<(String, String, bool)> = partial
        .messages()
        .map(|message| {
            (
                message.text(),
                message.response_metadata.finish_reason.to_string(),
                message.response_metadata.incomplete.is_some(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("done".to_string(), "stop".to_string(), true),
            ("still going".to_string(), String::new(), true),
        ]
    );
}

#[test]
fn lenient_mode_returns_a_truncated_stream_as_an_incomplete_message() {
    let completion = run_with(
        &body(&[text("cut"), text(" here")]),
        Options::new().lenient(true),
    )
    .result
    .expect("lenient mode returns the message");
    assert!(!completion.complete);
    let message = completion.message().unwrap();
    assert_eq!(message.text(), "cut here");
    assert!(message
        .response_metadata
        .incomplete
        .as_deref()
        .is_some_and(|why| why.contains("without [DONE]")));
}

#[test]
fn a_final_event_without_its_blank_line_is_processed_then_the_stream_is_truncated() {
    let stream = format!(
        "{}{}",
        text("almost"),
        finish(0, "stop").trim_end_matches('\n')
    );
    let error = failure(&stream);
    assert_eq!(error.kind(), ErrorKind::Truncated);
    let partial = partial_message(&error);
    assert_eq!(partial.text(), "almost");
    assert_eq!(partial.response_metadata.finish_reason, "stop");

    let lenient = run_with(&stream, Options::new().lenient(true))
        .result
        .expect("lenient mode returns the message");
    assert!(!lenient.complete);
    assert_eq!(
        lenient.message().unwrap().response_metadata.finish_reason,
        "stop"
    );
}

#[test]
fn a_stream_cut_inside_an_events_payload_is_truncated_not_malformed() {
    let stream = format!(
        "{}data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"lo",
        text("kept")
    );
    let error = failure(&stream);
    assert_eq!(error.kind(), ErrorKind::Truncated, "{error}");
    assert_eq!(partial_message(&error).text(), "kept");
}
