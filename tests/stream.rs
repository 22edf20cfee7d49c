//! The async adapter over in-memory streams: chunking, draining order, errors, fusing, drop.

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use deltafold::{AssembleExt, Completion, Error, Event, Options};
use futures::executor::block_on;
use futures::stream::{self, FusedStream, StreamExt};
use futures::FutureExt;

/// A text answer with CRLF line ends and multi-byte characters, then a usage report.
const TEXT_BODY: &str = concat!(
    "data: {\"id\":\"chatcmpl-7\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\r\n\r\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Grüße, \"}}]}\r\n\r\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"世界 🌍\"}}]}\r\n\r\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\r\n\r\n",
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":4,\"total_tokens\":9}}\r\n\r\n",
    "data: [DONE]\r\n\r\n",
);

const TEXT: &str = "Grüße, 世界 🌍";

type Read<B> = Result<B, io::Error>;

/// Everything a stream produced: its events, its error (if any), and `completion()` afterwards.
struct Outcome {
    events: Vec<Event<'static>>,
    error: Option<Error>,
    completion: Result<Completion, Error>,
}

fn run<B: AsRef<[u8]>>(reads: Vec<Read<B>>, options: Options) -> Outcome {
    block_on(async {
        let mut stream = stream::iter(reads).assemble_with(options);
        let mut events = Vec::new();
        let mut error = None;
        while let Some(item) = stream.next().await {
            match item {
                Ok(event) => events.push(event),
                Err(err) => {
                    assert!(error.is_none(), "a second error after {err}");
                    error = Some(err);
                }
            }
        }
        Outcome {
            events,
            error,
            completion: stream.completion().await,
        }
    })
}

fn chunks_of(body: &[u8], cuts: &[usize]) -> Vec<Read<Bytes>> {
    let mut reads = Vec::new();
    let mut start = 0;
    for &cut in cuts.iter().chain([body.len()].iter()) {
        reads.push(Ok(Bytes::copy_from_slice(&body[start..cut])));
        start = cut;
    }
    reads
}

fn text_of(events: &[Event<'_>]) -> String {
    events
        .iter()
        .filter_map(|event| match event {
            Event::TextDelta { text, .. } => Some(text.as_ref()),
            _ => None,
        })
        .collect()
}

#[test]
fn whole_body_yields_events_in_order_and_the_message() {
    let outcome = run(chunks_of(TEXT_BODY.as_bytes(), &[]), Options::new());
    assert!(outcome.error.is_none());
    let kinds: Vec<&str> = outcome
        .events
        .iter()
        .map(|event| match event {
            Event::Started { .. } => "started",
            Event::TextDelta { .. } => "text",
            Event::TextEnd { .. } => "text end",
            Event::ChoiceFinished { .. } => "finished",
            Event::Usage { .. } => "usage",
            Event::Done => "done",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        ["started", "text", "text", "text end", "finished", "usage", "done"]
    );
    assert_eq!(text_of(&outcome.events), TEXT);
    let completion = outcome.completion.unwrap();
    assert!(completion.complete);
    let message = completion.into_message();
    assert_eq!(message.text(), TEXT);
    assert_eq!(message.response_metadata.finish_reason, "stop");
    assert_eq!(message.usage.unwrap().total_tokens, 9);
}

#[test]
fn every_chunk_boundary_gives_the_same_events_and_message() {
    let body = TEXT_BODY.as_bytes();
    let reference = run(chunks_of(body, &[]), Options::new());
    let reference_message = reference.completion.unwrap().into_message();
    // The cuts below include ones inside a multi-byte character and between `\r` and `\n`.
    let inside_emoji = TEXT_BODY.find('🌍').unwrap() + 2;
    let inside_crlf = TEXT_BODY.find("\r\n").unwrap() + 1;
    assert!(!TEXT_BODY.is_char_boundary(inside_emoji));
    assert_eq!(&body[inside_crlf - 1..=inside_crlf], b"\r\n");
    for cut in 1..body.len() {
        let outcome = run(chunks_of(body, &[cut]), Options::new());
        assert!(outcome.error.is_none(), "cut at {cut}");
        assert_eq!(outcome.events, reference.events, "cut at {cut}");
        let message = outcome.completion.unwrap().into_message();
        assert_eq!(message, reference_message, "cut at {cut}");
    }
}

#[test]
fn one_byte_reads_assemble_the_same_message() {
    let reads: Vec<Read<Vec<u8>>> = TEXT_BODY.bytes().map(|byte| Ok(vec![byte])).collect();
    let outcome = run(reads, Options::new());
    assert!(outcome.error.is_none());
    assert_eq!(text_of(&outcome.events), TEXT);
    assert_eq!(outcome.completion.unwrap().into_message().text(), TEXT);
}

#[test]
fn every_common_byte_container_is_accepted() {
    let (head, tail) = TEXT_BODY.split_at(101);
    let slices: Vec<Read<&[u8]>> = vec![Ok(head.as_bytes()), Ok(tail.as_bytes())];
    let strings: Vec<Read<String>> = vec![Ok(head.to_owned()), Ok(tail.to_owned())];
    let buffers: Vec<Read<BytesMut>> = vec![Ok(BytesMut::from(head)), Ok(BytesMut::from(tail))];
    for message in [
        run(slices, Options::new()),
        run(strings, Options::new()),
        run(buffers, Options::new()),
    ]
    .map(|outcome| outcome.completion.unwrap().into_message())
    {
        assert_eq!(message.text(), TEXT);
    }
}

#[test]
fn input_is_read_only_after_the_previous_read_was_handed_out() {
    let reads_taken = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&reads_taken);
    let events: Vec<&str> = TEXT_BODY.split_inclusive("\r\n\r\n").collect();
    let mut stream = stream::iter(
        events
            .into_iter()
            .map(|event| Ok::<_, io::Error>(event.as_bytes())),
    )
    .inspect(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    })
    .assemble();
    block_on(async {
        let first = stream.next().await.unwrap().unwrap();
        assert!(matches!(first, Event::Started { .. }));
        assert_eq!(reads_taken.load(Ordering::SeqCst), 1);
        let second = stream.next().await.unwrap().unwrap();
        assert!(matches!(second, Event::TextDelta { ref text, .. } if text == "Grüße, "));
        assert_eq!(reads_taken.load(Ordering::SeqCst), 2);
        // Between events, the snapshot holds the message so far.
        assert_eq!(stream.assembler().message(0).unwrap().text(), "Grüße, ");
    });
}

#[test]
fn completion_after_some_events_covers_the_whole_stream() {
    let reads = chunks_of(TEXT_BODY.as_bytes(), &[120, 200, 260]);
    let completion = block_on(async {
        let mut stream = stream::iter(reads).assemble();
        for _ in 0..2 {
            stream.next().await.unwrap().unwrap();
        }
        stream.completion().await
    })
    .unwrap();
    assert!(completion.complete);
    let message = completion.into_message();
    assert_eq!(message.text(), TEXT);
    assert_eq!(message.usage.unwrap().total_tokens, 9);
}

#[test]
fn completion_without_reading_events() {
    let reads = chunks_of(TEXT_BODY.as_bytes(), &[7, 77, 177]);
    let completion = block_on(stream::iter(reads).assemble().completion()).unwrap();
    assert_eq!(completion.into_message().text(), TEXT);
}

#[test]
fn transport_error_comes_after_the_events_with_the_partial_message_then_nothing() {
    let cut = TEXT_BODY
        .find("data: {\"choices\":[{\"index\":0,\"delta\":{},")
        .unwrap()
        + 10;
    let reads: Vec<Read<Bytes>> = vec![
        Ok(Bytes::copy_from_slice(&TEXT_BODY.as_bytes()[..cut])),
        Err(io::Error::new(
            io::ErrorKind::ConnectionReset,
            "connection reset by peer",
        )),
        Ok(Bytes::from_static(b"never read")),
    ];
    block_on(async {
        let mut stream = stream::iter(reads).assemble();
        let mut text = String::new();
        let error = loop {
            match stream.next().await.expect("an error before the end") {
                Ok(Event::TextDelta { text: delta, .. }) => text.push_str(&delta),
                Ok(_) => {}
                Err(error) => break error,
            }
        };
        assert_eq!(text, TEXT);
        assert!(error.is_transport(), "{error:?}");
        assert!(
            error.to_string().contains("connection reset by peer"),
            "{error}"
        );
        let location = error.location().unwrap();
        assert_eq!(location.event, 3);
        let source = std::error::Error::source(&error).unwrap();
        assert_eq!(source.to_string(), "connection reset by peer");
        let partial = error.partial().unwrap();
        assert!(!partial.complete);
        assert_eq!(partial.message().unwrap().text(), TEXT);

        assert!(stream.is_terminated());
        assert!(stream.next().await.is_none());
        assert!(stream.next().await.is_none());
        let again = stream.completion().await.unwrap_err();
        assert!(again.is_transport());
    });
}

#[test]
fn malformed_payload_stops_the_stream() {
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\ndata: {not json}\n\ndata: [DONE]\n\n";
    let outcome = run(chunks_of(body.as_bytes(), &[30]), Options::new());
    assert_eq!(text_of(&outcome.events), "ok");
    let error = outcome.error.unwrap();
    assert!(error.is_malformed(), "{error:?}");
    assert_eq!(error.location().unwrap().event, 2);
    assert_eq!(error.partial().unwrap().message().unwrap().text(), "ok");
    assert!(outcome.completion.unwrap_err().is_malformed());
}

#[test]
fn input_ending_early_is_truncated_or_incomplete_when_lenient() {
    let cut = TEXT_BODY
        .find("data: {\"choices\":[{\"index\":0,\"delta\":{},")
        .unwrap();
    let strict = run(
        chunks_of(&TEXT_BODY.as_bytes()[..cut], &[50]),
        Options::new(),
    );
    let error = strict.error.unwrap();
    assert!(error.is_truncated(), "{error:?}");
    assert_eq!(error.partial().unwrap().message().unwrap().text(), TEXT);

    let lenient = run(
        chunks_of(&TEXT_BODY.as_bytes()[..cut], &[50]),
        Options::new().lenient(true),
    );
    assert!(lenient.error.is_none());
    assert!(!lenient.events.contains(&Event::Done));
    let completion = lenient.completion.unwrap();
    assert!(!completion.complete);
    assert_eq!(completion.into_message().text(), TEXT);
}

#[test]
fn nothing_is_read_after_done() {
    fn after_done() -> impl futures::Stream<Item = Read<Bytes>> {
        stream::poll_fn(|_| panic!("the input was read after [DONE]"))
    }
    let reads = stream::iter(chunks_of(TEXT_BODY.as_bytes(), &[90])).chain(after_done());
    let events: Vec<_> = block_on(reads.assemble().collect());
    assert_eq!(events.last().unwrap().as_ref().unwrap(), &Event::Done);

    let reads = stream::iter(chunks_of(TEXT_BODY.as_bytes(), &[90])).chain(after_done());
    let completion = block_on(reads.assemble().completion()).unwrap();
    assert_eq!(completion.into_message().text(), TEXT);
}

#[test]
fn dropping_mid_stream_releases_the_input() {
    let guard = Arc::new(());
    let held = Arc::clone(&guard);
    let reads = stream::iter(chunks_of(TEXT_BODY.as_bytes(), &[150])).map(move |read| {
        let _held = &held;
        read
    });
    let mut stream = reads.assemble();
    block_on(async {
        stream.next().await.unwrap().unwrap();
    });
    assert_eq!(Arc::strong_count(&guard), 2);
    drop(stream);
    assert_eq!(Arc::strong_count(&guard), 1);
}

#[cfg(feature = "eventsource-stream")]
#[test]
fn eventsource_stream_events_are_assembled() {
    use deltafold::stream::AssembleEventsExt;
    use eventsource_stream::Eventsource;

    let reads = stream::iter(chunks_of(TEXT_BODY.as_bytes(), &[33, 150, 151]));
    let outcome = block_on(async {
        let mut stream = reads.eventsource().assemble_events();
        let mut events = Vec::new();
        while let Some(event) = stream.next().await {
            events.push(event.unwrap());
        }
        (events, stream.completion().await)
    });
    assert_eq!(text_of(&outcome.0), TEXT);
    assert_eq!(outcome.0.last(), Some(&Event::Done));
    assert_eq!(outcome.1.unwrap().into_message().text(), TEXT);
}

/// [`TEXT_BODY`] with what proxies send after the end: a comment and a stray usage chunk.
/// Where the event after the first text delta of [`TEXT_BODY`] starts.
fn after_first_text() -> usize {
    TEXT_BODY
        .find("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"世")
        .unwrap()
}

fn body_with_trailer() -> String {
    format!("{TEXT_BODY}: keep-alive\n\ndata: {{\"choices\":[]}}\n\n")
}

#[test]
fn tee_forwards_every_read_unchanged_to_the_end_and_assembles_a_copy() {
    let body = body_with_trailer();
    let reads = chunks_of(body.as_bytes(), &[1, 40, 41, 200, 300]);
    let expected: Vec<Bytes> = reads
        .iter()
        .map(|read| read.as_ref().unwrap().clone())
        .collect();
    let (forward, completion) = stream::iter(reads).tee(Options::new());
    let forwarded: Vec<Bytes> = block_on(forward.map(Result::unwrap).collect());
    assert_eq!(
        forwarded, expected,
        "every read, in order, the trailer after [DONE] included"
    );
    let completion = block_on(completion).unwrap();
    assert!(completion.complete);
    let message = completion.into_message();
    assert_eq!(message.text(), TEXT);
    assert_eq!(message.usage.unwrap().total_tokens, 9);
}

#[test]
fn tee_completion_waits_for_the_forwarding_half() {
    let (mut forward, mut completion) =
        stream::iter(chunks_of(TEXT_BODY.as_bytes(), &[100])).tee(Options::new());
    let waker = futures::task::noop_waker();
    let mut cx = std::task::Context::from_waker(&waker);
    assert!(
        completion.poll_unpin(&mut cx).is_pending(),
        "nothing was forwarded yet"
    );
    block_on(async {
        while forward.next().await.is_some() {
            // Not ready before the forwarding half has seen the end of its input.
        }
    });
    let std::task::Poll::Ready(result) = completion.poll_unpin(&mut cx) else {
        panic!("the forwarding half ended: the completion is ready");
    };
    assert_eq!(result.unwrap().into_message().text(), TEXT);
}

#[test]
fn tee_dropped_early_resolves_with_the_partial_marked_incomplete() {
    let reads = || stream::iter(chunks_of(TEXT_BODY.as_bytes(), &[after_first_text()]));
    // Strict: a truncation error carrying what arrived.
    let (mut forward, completion) = reads().tee(Options::new());
    block_on(forward.next()).unwrap().unwrap();
    drop(forward);
    let error = block_on(completion).unwrap_err();
    assert!(error.is_truncated(), "{error}");
    let partial = error.into_partial().unwrap();
    assert!(!partial.complete);
    let message = partial.into_message();
    assert_eq!(message.text(), "Grüße, ");
    assert!(message
        .response_metadata
        .incomplete
        .unwrap()
        .contains("dropped"));
    // Lenient: the same partial as a result.
    let (mut forward, completion) = reads().tee(Options::new().lenient(true));
    block_on(forward.next()).unwrap().unwrap();
    drop(forward);
    let completion = block_on(completion).unwrap();
    assert!(!completion.complete);
    assert_eq!(completion.into_message().text(), "Grüße, ");
}

#[test]
fn tee_dropped_after_the_end_of_the_answer_is_complete() {
    let body = body_with_trailer();
    let reads = chunks_of(body.as_bytes(), &[TEXT_BODY.len()]);
    let (mut forward, completion) = stream::iter(reads).tee(Options::new());
    block_on(forward.next()).unwrap().unwrap();
    drop(forward);
    let completion = block_on(completion).unwrap();
    assert!(completion.complete);
    assert_eq!(completion.into_message().text(), TEXT);
}

#[test]
fn tee_forwards_an_input_error_unchanged_and_fails_the_completion_with_the_partial() {
    let mut reads = chunks_of(TEXT_BODY.as_bytes(), &[after_first_text()]);
    reads.truncate(1);
    reads.push(Err(io::Error::new(
        io::ErrorKind::ConnectionReset,
        "reset by peer",
    )));
    let (forward, completion) = stream::iter(reads).tee(Options::new());
    let forwarded: Vec<Read<Bytes>> = block_on(forward.collect());
    assert_eq!(forwarded.len(), 2);
    let forwarded_error = forwarded[1].as_ref().unwrap_err();
    assert_eq!(forwarded_error.kind(), io::ErrorKind::ConnectionReset);
    let error = block_on(completion).unwrap_err();
    assert!(error.is_transport(), "{error}");
    assert!(error.to_string().contains("reset by peer"), "{error}");
    assert_eq!(
        error.into_partial().unwrap().into_message().text(),
        "Grüße, "
    );
}

#[test]
fn tee_whose_completion_was_dropped_still_forwards_everything() {
    let reads = chunks_of(TEXT_BODY.as_bytes(), &[10, 20]);
    let (forward, completion) = stream::iter(reads).tee(Options::new());
    drop(completion);
    let forwarded: Vec<Bytes> = block_on(forward.map(Result::unwrap).collect());
    assert_eq!(forwarded.concat(), TEXT_BODY.as_bytes());
}

#[test]
fn abort_returns_the_message_so_far_marked_aborted_and_releases_the_input() {
    let guard = Arc::new(());
    let held = Arc::clone(&guard);
    let reads = stream::iter(chunks_of(TEXT_BODY.as_bytes(), &[150, 200])).map(move |read| {
        let _held = &held;
        read
    });
    let mut stream = reads.assemble();
    block_on(async {
        while let Some(event) = stream.next().await {
            if let Event::TextDelta { .. } = event.unwrap() {
                break;
            }
        }
    });
    let completion = stream.abort();
    assert_eq!(Arc::strong_count(&guard), 1, "the input is dropped");
    assert!(!completion.complete);
    let message = completion.into_message();
    assert_eq!(message.text(), "Grüße, ");
    assert_eq!(
        message.response_metadata.incomplete.as_deref(),
        Some("aborted")
    );
}

#[test]
fn abort_after_the_end_of_the_answer_is_the_complete_answer() {
    let mut stream = stream::iter(chunks_of(TEXT_BODY.as_bytes(), &[])).assemble();
    block_on(async { while stream.next().await.is_some() {} });
    let completion = stream.abort();
    assert!(completion.complete);
    let message = completion.into_message();
    assert_eq!(message.text(), TEXT);
    assert_eq!(message.response_metadata.incomplete, None);
}

#[test]
fn the_text_of_a_structured_answer_reads_as_json_while_it_streams() {
    let deltas = [
        "```json\n{\"title\": \"Dune\", ",
        "\"tags\": [\"sf\", \"cla",
        "ssic\"]}\n```",
    ];
    let mut body = String::new();
    for delta in deltas {
        let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": delta}}]});
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    body.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    let mut stream = stream::iter(chunks_of(body.as_bytes(), &[])).assemble();
    let mut views = Vec::new();
    block_on(async {
        while let Some(event) = stream.next().await {
            if let Event::TextDelta { .. } = event.unwrap() {
                views.push(stream.assembler().message(0).unwrap().text_partial_json());
            }
        }
    });
    let expected = [
        serde_json::json!({"title": "Dune"}),
        serde_json::json!({"title": "Dune", "tags": ["sf", "cla"]}),
        serde_json::json!({"title": "Dune", "tags": ["sf", "classic"]}),
    ];
    assert_eq!(views, expected.map(Some));
    #[derive(serde::Deserialize)]
    struct Book {
        title: String,
        tags: Vec<String>,
    }
    let book: Book = block_on(stream.completion())
        .unwrap()
        .into_message()
        .parse_text()
        .unwrap();
    assert_eq!((book.title.as_str(), book.tags.len()), ("Dune", 2));
}
