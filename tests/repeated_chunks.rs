//! Chat-completion chunks that repeat the previous chunk's bytes (the members before the choices,
//! or the whole shape of the choices around one string) are read through shortcuts. These
//! properties compare every stream with the same stream spelled so that no chunk repeats its
//! predecessor's bytes — each chunk alternates the spacing of its first member — and the strict
//! reader takes none (`object` is a number, which the full parse drops unread), which forces a
//! full parse of every chunk: the events and the final message must be the same. Then focused
//! tests of the shortcut: what follows the choices is applied, and a chunk it cannot read fails
//! as a full parse fails, applying nothing.

use deltafold::{Event, Options};

#[path = "support/replay/mod.rs"]
mod replay;
use proptest::prelude::*;

/// One chunk of a generated stream.
#[derive(Debug, Clone)]
enum Piece {
    Text { choice: u32, text: String },
    Reasoning(String),
    Refusal(String),
    ToolStart { index: u32, id: String },
    ToolArguments { index: Option<u32>, text: String },
    Finish,
    Usage,
}

/// Strings that stress the shortcut: quotes, escapes, the bytes that follow a string in a
/// chunk, control characters (escaped), non-ASCII text, and the empty string.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just(r#""},"logprobs":null,"finish_reason":null}]"#.to_owned()),
        Just("\\".to_owned()),
        Just("\"".to_owned()),
        "[a-z \"\\\\\n\t\u{1}é日😀}{,:\\]\\[]{0,12}",
    ]
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        6 => (0..2u32, text()).prop_map(|(choice, text)| Piece::Text { choice, text }),
        3 => text().prop_map(Piece::Reasoning),
        1 => text().prop_map(Piece::Refusal),
        1 => (0..3u32, "[a-z]{1,4}").prop_map(|(index, id)| Piece::ToolStart { index, id }),
        5 => (prop::option::of(0..3u32), text())
            .prop_map(|(index, text)| Piece::ToolArguments { index, text }),
        1 => Just(Piece::Finish),
        1 => Just(Piece::Usage),
    ]
}

fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

/// The choices array and the members after it.
fn choices_and_tail(piece: &Piece, obfuscation: usize) -> String {
    let one = |choice: u32, delta: &str, finish: &str| {
        format!(
            r#"[{{"index":{choice},"delta":{delta},"logprobs":null,"finish_reason":{finish}}}]"#
        )
    };
    let (choices, usage) = match piece {
        Piece::Text { choice, text } => (
            one(
                *choice,
                &format!(r#"{{"content":{}}}"#, quoted(text)),
                "null",
            ),
            "null".to_owned(),
        ),
        Piece::Reasoning(text) => (
            one(
                0,
                &format!(r#"{{"reasoning_content":{}}}"#, quoted(text)),
                "null",
            ),
            "null".to_owned(),
        ),
        Piece::Refusal(text) => (
            one(0, &format!(r#"{{"refusal":{}}}"#, quoted(text)), "null"),
            "null".to_owned(),
        ),
        Piece::ToolStart { index, id } => (
            one(
                0,
                &format!(
                    r#"{{"tool_calls":[{{"index":{index},"id":"{id}","type":"function","function":{{"name":"f{index}","arguments":""}}}}]}}"#
                ),
                "null",
            ),
            "null".to_owned(),
        ),
        Piece::ToolArguments { index, text } => {
            let index = index.map_or(String::new(), |index| format!(r#""index":{index},"#));
            (
                one(
                    0,
                    &format!(
                        r#"{{"tool_calls":[{{{index}"function":{{"arguments":{}}}}}]}}"#,
                        quoted(text)
                    ),
                    "null",
                ),
                "null".to_owned(),
            )
        }
        Piece::Finish => (one(0, "{}", r#""stop""#), "null".to_owned()),
        Piece::Usage => (
            "[]".to_owned(),
            r#"{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}"#.to_owned(),
        ),
    };
    let obfuscation = "x".repeat(obfuscation % 3);
    format!(r#"{choices},"usage":{usage},"obfuscation":"{obfuscation}"}}"#)
}

/// The stream as a server sends it; `spaced` alternates the spacing after the opening brace so
/// that no chunk starts with its predecessor's bytes, and spells `object` as a number, which
/// only the full parse reads (and drops).
fn stream(pieces: &[Piece], spaced: bool) -> Vec<u8> {
    let mut body = String::new();
    let object = if spaced {
        "0"
    } else {
        "\"chat.completion.chunk\""
    };
    for (position, piece) in pieces.iter().enumerate() {
        let space = if spaced && position % 2 == 1 { " " } else { "" };
        body += &format!(
            "data: {{{space}\"id\":\"c1\",\"object\":{object},\"created\":1,\"model\":\"m\",\"choices\":{}\n\n",
            choices_and_tail(piece, position)
        );
    }
    body += "data: [DONE]\n\n";
    body.into_bytes()
}

/// Every event (owned) and the final result, as a comparable string.
fn run(bytes: &[u8]) -> (Vec<Event<'static>>, String) {
    let run = replay::run([bytes], Options::new());
    let result = match run.result {
        Ok(completion) => serde_json::to_string(&completion.choices).unwrap(),
        Err(error) => format!("error: {error}"),
    };
    (run.events, result)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn repeated_chunks_read_as_a_full_parse_reads_them(pieces in prop::collection::vec(piece(), 1..40)) {
        let repeated = run(&stream(&pieces, false));
        let parsed_in_full = run(&stream(&pieces, true));
        prop_assert_eq!(repeated, parsed_in_full);
    }
}

/// A chunk of a known shape whose string is cut short, or followed by something else, is not
/// read through the shortcut: it fails exactly where a full parse fails.
#[test]
fn a_broken_chunk_of_a_known_shape_fails_as_a_full_parse_does() {
    let good = |text: &str| {
        format!(r#"data: {{"id":"c1","choices":[{{"index":0,"delta":{{"content":"{text}"}}}}]}}"#)
            + "\n\n"
    };
    for broken in [
        r#"data: {"id":"c1","choices":[{"index":0,"delta":{"content":"unterminated}}]}"#,
        r#"data: {"id":"c1","choices":[{"index":0,"delta":{"content":"a\q"}}]}"#,
        r#"data: {"id":"c1","choices":[{"index":0,"delta":{"content":"a"}}]}}"#,
        "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\u{1}\"}}]}",
    ] {
        let body = [good("a"), good("b"), format!("{broken}\n\n")].concat();
        let error = deltafold::assemble(body.as_bytes(), Options::new()).unwrap_err();
        let location = error.location().expect("a located error");
        assert_eq!(location.event, 3, "{broken}: {error}");
        assert_eq!(
            error.partial().unwrap().message().unwrap().text(),
            "ab",
            "{broken}"
        );
    }
}

/// Chunks that repeat the previous chunk's bytes before `"choices":` are read from their choices
/// on; these check that the shortcut reads everything after the choices and rejects what a full
/// parse rejects, applying nothing of a rejected chunk.
mod repeated_prefix {
    use deltafold::{Assembler, ErrorKind, Options};

    const PREFIX: &str =
        r#"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":"#;

    fn chunk(choices: &str, after: &str) -> String {
        format!("data: {PREFIX}{choices}{after}\n\n")
    }

    fn text(content: &str) -> String {
        format!(r#"[{{"index":0,"delta":{{"content":"{content}"}}}}]"#)
    }

    #[test]
    fn members_after_the_choices_are_applied() {
        let body = [
            chunk(&text("a"), "}"),
            chunk(&text("b"), r#","obfuscation":"xy"}"#),
            chunk(
                r#"[{"index":0,"delta":{},"finish_reason":"stop"}]"#,
                r#","usage":{"prompt_tokens":3,"completion_tokens":2},"provider":"P"}"#,
            ),
            "data: [DONE]\n\n".to_owned(),
        ]
        .concat();
        let message = deltafold::assemble(body.as_bytes(), Options::new())
            .unwrap()
            .into_message();
        assert_eq!(message.text(), "ab");
        assert_eq!(message.usage.unwrap().total_tokens, 5);
        assert_eq!(message.response_metadata.extra["provider"], "P");
        assert_eq!(message.response_metadata.finish_reason, "stop");
    }

    #[test]
    fn trailing_garbage_after_a_repeated_prefix_is_malformed() {
        let body = [chunk(&text("a"), "}"), chunk(&text("b"), "}garbage")].concat();
        let error = deltafold::assemble(body.as_bytes(), Options::new()).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Malformed, "{error}");
        assert_eq!(error.location().unwrap().event, 2);
        assert_eq!(error.partial().unwrap().message().unwrap().text(), "a");
    }

    #[test]
    fn a_rejected_chunk_applies_nothing_in_lenient_mode() {
        let body = [
            chunk(&text("a"), "}"),
            chunk(&text("LOST"), r#","usage":}"#),
            chunk(
                r#"[{"index":0,"delta":{"content":"c"},"finish_reason":"stop"}]"#,
                "}",
            ),
            "data: [DONE]\n\n".to_owned(),
        ]
        .concat();
        let mut assembler = Assembler::with_options(Options::new().lenient(true));
        assembler.feed(body.as_bytes()).unwrap();
        let message = assembler.finish().unwrap().into_message();
        assert_eq!(message.text(), "ac");
        assert_eq!(message.response_metadata.warnings.len(), 1);
    }
}
