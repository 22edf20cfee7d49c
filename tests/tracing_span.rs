//! The `tracing` feature: the span of a stream, seen by a subscriber that records every field.
//!
//! A binary of its own whose tests run one at a time: `tracing` caches each callsite's interest,
//! and a callsite first reached on a thread without a subscriber while another thread installs
//! one can stay disabled for good, so these tests must not share a binary with streams run
//! without a subscriber.

use std::collections::BTreeMap;
use std::io;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use deltafold::{AssembleExt, Options};
use futures::executor::block_on;
use futures::stream::{self, StreamExt};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event as TraceEvent, Level, Metadata, Subscriber};

/// A text answer, then a usage report.
const TEXT_BODY: &str = concat!(
    "data: {\"id\":\"chatcmpl-7\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Grüße, \"}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"世界 🌍\"}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":4,\"total_tokens\":9}}\n\n",
    "data: [DONE]\n\n",
);

/// One test at a time (see the module's doc).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The fields recorded on spans, and the levels and messages of events.
#[derive(Default)]
struct Seen {
    span_names: Vec<&'static str>,
    fields: BTreeMap<String, String>,
    events: Vec<(Level, String)>,
}

struct Recorder(Arc<Mutex<Seen>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let mut seen = self.0.lock().unwrap();
        seen.span_names.push(span.metadata().name());
        span.record(&mut Fields(&mut seen.fields));
        Id::from_u64(seen.span_names.len() as u64)
    }
    fn record(&self, _: &Id, values: &Record<'_>) {
        values.record(&mut Fields(&mut self.0.lock().unwrap().fields));
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &TraceEvent<'_>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        let message = fields.remove("message").unwrap_or_default();
        let level = *event.metadata().level();
        self.0.lock().unwrap().events.push((level, message));
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

fn traced(run: impl FnOnce()) -> Seen {
    let _alone = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    let seen = Arc::new(Mutex::new(Seen::default()));
    tracing::subscriber::with_default(Recorder(Arc::clone(&seen)), run);
    Arc::try_unwrap(seen).ok().unwrap().into_inner().unwrap()
}

fn reads(body: &str) -> impl futures::Stream<Item = Result<Bytes, io::Error>> + Unpin {
    stream::iter(vec![Ok(Bytes::copy_from_slice(body.as_bytes()))])
}

/// Reads every event (and error) of `body`, then asks for the completion.
fn read_to_the_end(body: &str) {
    block_on(async {
        let mut stream = reads(body).assemble_with(Options::new());
        while stream.next().await.is_some() {}
        let _ = stream.completion().await;
    });
}

#[test]
fn a_stream_read_to_its_end_has_one_span_with_the_gen_ai_attributes() {
    let seen = traced(|| read_to_the_end(TEXT_BODY));
    assert_eq!(seen.span_names, ["gen_ai.stream"]);
    let field = |name: &str| seen.fields.get(name).map(String::as_str);
    assert_eq!(field("gen_ai.system"), Some("openai"));
    assert_eq!(field("gen_ai.response.model"), Some("gpt-4o"));
    assert_eq!(field("gen_ai.response.id"), Some("chatcmpl-7"));
    assert_eq!(field("gen_ai.response.finish_reasons"), Some(r#"["stop"]"#));
    assert_eq!(field("gen_ai.usage.input_tokens"), Some("5"));
    assert_eq!(field("gen_ai.usage.output_tokens"), Some("4"));
    let first_token: f64 = field("deltafold.time_to_first_token_ms")
        .unwrap()
        .parse()
        .unwrap();
    assert!(first_token >= 0.0);
    assert!(seen.events.is_empty());
}

#[test]
fn completion_alone_fills_the_attributes_and_an_error_is_an_event() {
    let seen = traced(|| {
        block_on(reads(TEXT_BODY).assemble().completion()).unwrap();
    });
    let field = |name: &str| seen.fields.get(name).map(String::as_str);
    assert_eq!(field("gen_ai.usage.output_tokens"), Some("4"));
    assert_eq!(field("gen_ai.response.finish_reasons"), Some(r#"["stop"]"#));

    let after_first_text = TEXT_BODY
        .find("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"世")
        .unwrap();
    let cut = &TEXT_BODY[..after_first_text + 10];
    let seen = traced(|| read_to_the_end(cut));
    // The stream's error, once: `completion()` repeating it afterwards is not a second one.
    assert_eq!(seen.events.len(), 1, "{:?}", seen.events);
    assert_eq!(seen.events[0].0, Level::ERROR);
    assert!(seen.events[0].1.contains("truncated"), "{:?}", seen.events);
}
