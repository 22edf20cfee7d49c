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
    let (choices, usage) = choices_and_usage(piece);
    let obfuscation = "x".repeat(obfuscation % 3);
    format!(r#"{choices},"usage":{usage},"obfuscation":"{obfuscation}"}}"#)
}

/// The choices array, and the `usage` member's value.
fn choices_and_usage(piece: &Piece) -> (String, String) {
    let one = |choice: u32, delta: &str, finish: &str| {
        format!(
            r#"[{{"index":{choice},"delta":{delta},"logprobs":null,"finish_reason":{finish}}}]"#
        )
    };
    match piece {
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
    }
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

/// Events that repeat the stream's chunks with another string are taken whole from a fed read,
/// without framing them first. These properties feed streams spelled every way an event
/// stream allows around such events — and a few ways it does not — in random reads, and compare
/// the result (messages, or the error, where it is placed and what it keeps) with pushing the
/// same reads and pulling every event, which frames each event before decoding it.
mod taken_whole {
    use super::{choices_and_usage, piece, replay, Piece};
    use deltafold::{Assembler, Error, Limits, Options};
    use proptest::prelude::*;

    /// How one event is written around its payload.
    #[derive(Debug, Clone, Copy)]
    enum Spelling {
        Plain,
        NoSpace,
        Crlf,
        TrailingSpace,
        /// Two `data:` lines, cut after the payload's opening brace: the payload holds a line
        /// feed where JSON allows whitespace.
        TwoLines,
        /// A line feed after the opening brace with no `data:` after it: a broken event.
        BareLineFeed,
        /// A comment line before the event.
        Comment,
    }

    fn spelling() -> impl Strategy<Value = Spelling> {
        prop_oneof![
            12 => Just(Spelling::Plain),
            1 => Just(Spelling::NoSpace),
            1 => Just(Spelling::Crlf),
            1 => Just(Spelling::TrailingSpace),
            1 => Just(Spelling::TwoLines),
            1 => Just(Spelling::BareLineFeed),
            1 => Just(Spelling::Comment),
        ]
    }

    /// The members after the choices: none, the `usage: null` most servers send, or one more.
    fn payload(piece: &Piece, tail: u8) -> String {
        let (choices, usage) = choices_and_usage(piece);
        let tail = match tail {
            0 if usage == "null" => "}".to_owned(),
            0 | 1 => format!(r#","usage":{usage}}}"#),
            _ => format!(r#","usage":{usage},"obfuscation":"x"}}"#),
        };
        format!(
            r#"{{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":{choices}{tail}"#
        )
    }

    /// The piece with a string that needs no escape.
    fn plain(piece: &Piece) -> Piece {
        let text = "plain".to_owned();
        match piece {
            Piece::Text { choice, .. } => Piece::Text {
                choice: *choice,
                text,
            },
            Piece::Reasoning(_) => Piece::Reasoning(text),
            Piece::Refusal(_) => Piece::Refusal(text),
            Piece::ToolArguments { index, .. } => Piece::ToolArguments {
                index: *index,
                text,
            },
            other => other.clone(),
        }
    }

    fn event(payload: &str, spelling: Spelling) -> String {
        match spelling {
            Spelling::Plain => format!("data: {payload}\n\n"),
            Spelling::NoSpace => format!("data:{payload}\n\n"),
            Spelling::Crlf => format!("data: {payload}\r\n\r\n"),
            Spelling::TrailingSpace => format!("data: {payload} \n\n"),
            Spelling::TwoLines => format!("data: {{\ndata: {}\n\n", &payload[1..]),
            Spelling::BareLineFeed => format!("data: {{\n{}\n\n", &payload[1..]),
            Spelling::Comment => format!(": ping\ndata: {payload}\n\n"),
        }
    }

    fn describe(result: Result<deltafold::Completion, Error>) -> String {
        match result {
            Ok(completion) => serde_json::to_string(&completion).unwrap(),
            Err(error) => format!(
                "{:?} {error} at {:?}, keeping {}",
                error.kind(),
                error.location(),
                serde_json::to_string(&error.partial()).unwrap()
            ),
        }
    }

    fn fed(reads: &[&[u8]], options: Options) -> String {
        let mut assembler = Assembler::with_options(options);
        for read in reads {
            if let Err(error) = assembler.feed(read) {
                return describe(Err(error));
            }
        }
        describe(assembler.finish())
    }

    /// Every event and the result, pushed in `reads` with every event read after each.
    fn pushed_with_events(reads: &[&[u8]], options: Options) -> (Vec<String>, String) {
        let run = replay::run(reads.iter().copied(), options);
        let events = run
            .events
            .iter()
            .map(|event| format!("{event:?}"))
            .collect();
        (events, describe(run.result))
    }

    /// Pushed a byte at a time, no event is taken whole: each reaches the line loop unfinished,
    /// which then goes on with it.
    fn pushed_bytewise(body: &[u8], options: Options) -> (Vec<String>, String) {
        let bytes: Vec<&[u8]> = body.chunks(1).collect();
        pushed_with_events(&bytes, options)
    }

    /// Lenient or not; limits that some streams reach: the message's a block and up to a few
    /// hundred bytes, an event's about one chunk.
    fn options() -> impl Strategy<Value = Options> {
        (
            any::<bool>(),
            prop::option::of(0usize..300),
            prop::option::of(150usize..400),
        )
            .prop_map(|(lenient, message, event)| {
                let mut options = Options::new().lenient(lenient);
                if let Some(bytes) = message {
                    let blocks = Limits::CHOICE_OVERHEAD + Limits::BLOCK_OVERHEAD;
                    options = options.max_message_bytes(blocks + bytes);
                }
                if let Some(bytes) = event {
                    options = options.max_event_bytes(bytes);
                }
                options
            })
    }

    fn text_stream(events: usize) -> String {
        (0..events)
            .map(|n| {
                let piece = Piece::Text {
                    choice: 0,
                    text: format!("text {n}"),
                };
                event(&payload(&piece, 1), Spelling::Plain)
            })
            .collect()
    }

    /// Every limit the text of a stream's events crosses, each at an event taken whole.
    #[test]
    fn the_message_limit_fails_an_event_taken_whole_as_a_framed_one() {
        let body = text_stream(40);
        let reads = [body.as_bytes()];
        let least = Limits::CHOICE_OVERHEAD + Limits::BLOCK_OVERHEAD;
        let mut failed = 0;
        for bytes in least..least + 300 {
            let options = Options::new().max_message_bytes(bytes);
            let fed = fed(&reads, options.clone());
            failed += usize::from(fed.starts_with("LimitExceeded"));
            let pushed = pushed_with_events(&reads, options.clone());
            assert_eq!(fed, pushed.1, "max_message_bytes {bytes}");
            assert_eq!(
                pushed,
                pushed_bytewise(body.as_bytes(), options),
                "max_message_bytes {bytes}"
            );
        }
        assert!(failed > 250, "{failed} limits reached");
    }

    /// The last event, taken whole, one byte longer than the events before it: a limit it
    /// reaches exactly, one it passes by a byte, and one that all the events pass.
    #[test]
    fn the_event_limit_holds_for_events_taken_whole_at_its_bound() {
        let body = text_stream(11);
        let line = body.lines().rfind(|line| !line.is_empty()).unwrap().len();
        let reads = [body.as_bytes()];
        for bytes in line - 1..=line + 1 {
            let options = Options::new().max_event_bytes(bytes);
            let pushed = pushed_with_events(&reads, options.clone());
            assert_eq!(
                fed(&reads, options.clone()),
                pushed.1,
                "max_event_bytes {bytes}"
            );
            assert_eq!(
                pushed,
                pushed_bytewise(body.as_bytes(), options),
                "max_event_bytes {bytes}"
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn events_taken_whole_read_as_framed_ones(
            runs in prop::collection::vec((piece(), 0..3u8, spelling(), 1..6usize, any::<bool>()), 1..16),
            cuts in prop::collection::vec(1usize..3000, 1..8),
            options in options(),
        ) {
            // Runs of one piece, so that shapes repeat as in a real stream, most opened by the
            // piece with a plain string, whose shape can be learned.
            let mut body: String = runs
                .iter()
                .map(|(piece, tail, spelling, times, opened)| {
                    let opening = match opened {
                        true => event(&payload(&plain(piece), *tail), Spelling::Plain),
                        false => String::new(),
                    };
                    opening + &event(&payload(piece, *tail), *spelling).repeat(*times)
                })
                .collect();
            body += "data: [DONE]\n\n";
            let mut reads = Vec::new();
            let mut rest = body.as_bytes();
            for cut in cuts.iter().cycle() {
                if rest.is_empty() {
                    break;
                }
                let (read, after) = rest.split_at((*cut).min(rest.len()));
                reads.push(read);
                rest = after;
            }
            let pushed = pushed_with_events(&reads, options.clone());
            prop_assert_eq!(&fed(&reads, options.clone()), &pushed.1);
            prop_assert_eq!(pushed, pushed_bytewise(body.as_bytes(), options));
        }
    }
}
