//! The async adapter over in-memory streams: chunking, draining order, errors, fusing, drop.

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use deltafold::{AssembleExt, Completion, Error, Event, Options};
use futures::executor::block_on;
use futures::stream::{self, FusedStream, StreamExt};

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
            Event::ChoiceFinished { .. } => "finished",
            Event::Usage { .. } => "usage",
            Event::Done => "done",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        ["started", "text", "text", "finished", "usage", "done"]
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
