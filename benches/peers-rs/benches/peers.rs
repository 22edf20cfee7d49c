//! Issue 14: deltafold against the crates a Rust app would pick instead, on the same generated
//! OpenAI chat streams, timed interleaved in one run (ratios of medians):
//!
//! ```text
//! cd benches/peers-rs && cargo bench --bench peers            # the table of benches/README.md
//! cd benches/peers-rs && cargo bench --bench peers -- --quick # fewer samples: a smoke test
//! ```
//!
//! Instruction counts, unaffected by a busy machine: `--once STREAM CONTESTANT` runs one
//! contestant once on one stream (`small`, `medium`, `large`, `tool-heavy`, `reasoning-heavy`;
//! `deltafold`, `deltafold-reset`, `async-openai`) inside a function named `contestant_*`:
//!
//! ```text
//! cargo bench --bench peers --no-run
//! valgrind --tool=callgrind --toggle-collect='*contestant_*' target/release/deps/peers-HASH --once small async-openai
//! ```
//!
//! Contestants: deltafold (`assemble`, one read; `Assembler::feed` of 1–4 KiB reads; `push` of
//! 1–4 KiB reads with every event read, as a live display reads; a reused assembler for the
//! tiny streams), async-openai's typed `CreateChatCompletionStreamResponse`
//! per payload with memchr line framing (its best case) and with its own pipeline
//! (`eventsource-stream` over the reads, `[DONE]` and `keepalive` handled as its client does,
//! minus the tokio task and channel it adds), genai and deltafold over HTTP from a local
//! server, and a bare memchr scan of the bytes (the least work any SSE reader must do).

#[allow(dead_code)] // Shared with the main crate's benches; only the generators are used here.
#[path = "../../support/generate.rs"]
mod generate;
#[allow(dead_code)]
#[path = "../../support/timing.rs"]
mod timing;

use std::convert::Infallible;
use std::hint::black_box;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use async_openai::types::chat::CreateChatCompletionStreamResponse;
use bytes::Bytes;
use deltafold::http::HttpOptions;
use deltafold::{Assembler, Completion, Options, RequestBuilderExt};
use eventsource_stream::Eventsource;
use futures::StreamExt;
use generate::{ReadSize, Spec};
use timing::{median, paired_ratio, race, race_samples, show, Budget, Contestant};

/// Tiny streams run back to back in one sample, as a gateway sees them.
const TINY_STREAMS: usize = 10_000;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|arg| arg == "--once") {
        let (stream, contestant) = (&args[at + 1], &args[at + 2]);
        once(stream, contestant);
        return;
    }
    let quick = std::env::args().any(|arg| arg == "--quick");
    let budget = Budget {
        samples: if quick { 3 } else { 7 },
        sample_time: Duration::from_millis(if quick { 60 } else { 300 }),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let server = runtime.block_on(Server::start());
    let streams = streams();
    println!("| stream | size | events | deltafold one read | async-openai typed, memchr ÷ deltafold | async-openai eventsource ÷ deltafold (1–4 KiB reads) | async-openai eventsource ÷ deltafold, every event read | genai over HTTP ÷ deltafold over HTTP | memchr scan ÷ deltafold | deltafold ÷ memchr throughput |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (name, stream) in &streams {
        row(name, stream, &server, &runtime, budget);
    }
    tiny_row(&streams[0].1, budget);
}

/// One contestant once on one stream, for callgrind (see the module docs).
fn once(stream: &str, contestant: &str) {
    let (_, stream) = streams()
        .into_iter()
        .find(|(name, _)| *name == stream)
        .expect("a stream of the table");
    let bytes = &stream.bytes;
    let result = match contestant {
        "deltafold" => contestant_deltafold(bytes),
        "deltafold-reset" => {
            let mut reused = Assembler::new();
            reused.feed(bytes).expect("the stream assembles");
            reused.finish_and_reset().expect("the stream assembles");
            contestant_deltafold_reset(&mut reused, bytes)
        }
        "async-openai" => contestant_async_openai(bytes),
        other => panic!("no contestant {other}"),
    };
    println!("{contestant} on {} bytes: {result}", bytes.len());
}

#[inline(never)]
fn contestant_deltafold(bytes: &[u8]) -> usize {
    deltafold_one_read(bytes)
}

#[inline(never)]
fn contestant_deltafold_reset(reused: &mut Assembler, bytes: &[u8]) -> usize {
    reused.feed(bytes).expect("the stream assembles");
    reused
        .finish_and_reset()
        .expect("the stream assembles")
        .choices
        .len()
}

#[inline(never)]
fn contestant_async_openai(bytes: &[u8]) -> usize {
    async_openai_memchr(bytes)
}

/// The streams of the issue.
fn streams() -> Vec<(&'static str, generate::Stream)> {
    vec![
        ("small", Spec::text(6).generate()),
        ("medium", Spec::text(1000).generate()),
        ("large", Spec::issue3().generate()),
        ("tool-heavy", Spec::one_tool_call(50_000).generate()),
        (
            "reasoning-heavy",
            Spec::new("reasoning-heavy".into(), 16_000, 1000, 0, 0, 1).generate(),
        ),
    ]
}

fn row(
    name: &str,
    stream: &generate::Stream,
    server: &Server,
    runtime: &tokio::runtime::Runtime,
    budget: Budget,
) {
    let bytes = &stream.bytes;
    let reads = ReadSize::Network.split(bytes);
    let path = server.serve(bytes.clone());
    let genai = genai_client(server.addr, &path);
    let http = reqwest::Client::new();
    let url = format!("http://{}{path}chat/completions", server.addr);
    check(stream, &reads, runtime, &genai, &http, &url);
    let mut contestants = vec![
        Contestant::new("deltafold", || deltafold_one_read(bytes)),
        Contestant::new("async-openai memchr", || async_openai_memchr(bytes)),
        Contestant::new("deltafold 1-4 KiB", || deltafold_reads(&reads)),
        Contestant::new("async-openai eventsource", || {
            async_openai_eventsource(&reads)
        }),
        Contestant::new("deltafold events", || deltafold_events(&reads)),
        Contestant::new("deltafold http", || {
            runtime.block_on(deltafold_http(&http, &url)).choices.len()
        }),
        Contestant::new("genai http", || {
            runtime.block_on(genai_http(&genai)).text.len()
        }),
        Contestant::new("memchr", || memchr::memchr_iter(b'\n', bytes).count()),
    ];
    let times = race(&mut contestants, budget);
    let [one, memchr_typed, reads_time, eventsource, events, http_time, genai_time, scan] =
        times[..]
    else {
        unreachable!("eight contestants")
    };
    println!(
        "| {name} | {} | {} | {} ({:.0} MB/s) | {:.2}× | {:.2}× | {:.2}× | {:.2}× ({} vs {}) | {:.3} | {:.1} % |",
        size(bytes.len()),
        stream.payloads.len(),
        show(one),
        timing::mb_per_s(bytes.len(), one),
        ratio(memchr_typed, one),
        ratio(eventsource, reads_time),
        ratio(eventsource, events),
        ratio(genai_time, http_time),
        show(genai_time),
        show(http_time),
        ratio(scan, one),
        100.0 * ratio(scan, one),
    );
}

/// 10,000 tiny streams back to back: a new assembler per stream, a reused one (`reset`), and
/// async-openai both ways.
fn tiny_row(stream: &generate::Stream, budget: Budget) {
    let bytes = &stream.bytes;
    let reads = ReadSize::Network.split(bytes);
    let mut reused = Assembler::new();
    let mut contestants = vec![
        Contestant::new("deltafold", || {
            (0..TINY_STREAMS).map(|_| deltafold_one_read(bytes)).sum()
        }),
        Contestant::new("deltafold finish_and_reset", || {
            (0..TINY_STREAMS)
                .map(|_| {
                    reused.feed(bytes).expect("the stream assembles");
                    reused
                        .finish_and_reset()
                        .expect("the stream assembles")
                        .choices
                        .len()
                })
                .sum()
        }),
        Contestant::new("async-openai memchr", || {
            (0..TINY_STREAMS).map(|_| async_openai_memchr(bytes)).sum()
        }),
        Contestant::new("async-openai eventsource", || {
            (0..TINY_STREAMS)
                .map(|_| async_openai_eventsource(&reads))
                .sum()
        }),
    ];
    // The host's speed drifts over seconds: many short samples, each contestant's next to the
    // others', and the median of their ratios sample by sample.
    let paired = Budget {
        samples: budget.samples * 5,
        sample_time: Duration::ZERO,
    };
    let samples = race_samples(&mut contestants, paired);
    let [fresh, reset, memchr_typed, eventsource] = &samples[..] else {
        unreachable!("four contestants")
    };
    println!(
        "| {TINY_STREAMS} tiny streams ({} each) | {} | | {} (reset: {}) | {:.2}× (÷ reset: {:.2}×) | {:.2}× (÷ reset: {:.2}×) | — | — | — | — |",
        size(bytes.len()),
        size(bytes.len() * TINY_STREAMS),
        show(median(fresh.clone())),
        show(median(reset.clone())),
        paired_ratio(memchr_typed, fresh),
        paired_ratio(memchr_typed, reset),
        paired_ratio(eventsource, fresh),
        paired_ratio(eventsource, reset),
    );
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

fn size(bytes: usize) -> String {
    if bytes >= 1_000_000 {
        format!("{:.2} MB", bytes as f64 / 1e6)
    } else {
        format!("{:.1} KB", bytes as f64 / 1e3)
    }
}

/// Every contestant assembled the same text, reasoning (where it reads any) and arguments.
fn check(
    stream: &generate::Stream,
    reads: &[&[u8]],
    runtime: &tokio::runtime::Runtime,
    genai: &genai::Client,
    http: &reqwest::Client,
    url: &str,
) {
    let completion = deltafold::assemble(&stream.bytes, Options::new()).expect("assembles");
    let message = completion.messages().next().expect("one choice");
    let text = message.text();
    let arguments: Vec<serde_json::Value> = message
        .tool_calls()
        .map(|call| serde_json::Value::Object(call.args.clone()))
        .collect();
    let typed = async_openai_message(&stream.bytes);
    assert_eq!(typed.text, text, "async-openai's text");
    assert_eq!(typed.arguments, arguments, "async-openai's arguments");
    assert_eq!(
        async_openai_eventsource(reads),
        async_openai_memchr(&stream.bytes)
    );
    let over_http = runtime.block_on(deltafold_http(http, url));
    assert_eq!(
        over_http.messages().next().expect("one choice").text(),
        text
    );
    let peer = runtime.block_on(genai_http(genai));
    assert_eq!(peer.text, text, "genai's text");
    assert_eq!(peer.reasoning, message.reasoning(), "genai's reasoning");
    assert_eq!(peer.arguments, arguments, "genai's arguments");
}

#[inline(never)]
fn deltafold_one_read(bytes: &[u8]) -> usize {
    deltafold::assemble(bytes, Options::new())
        .expect("the stream assembles")
        .choices
        .len()
}

#[inline(never)]
fn deltafold_reads(reads: &[&[u8]]) -> usize {
    let mut assembler = Assembler::new();
    for read in reads {
        assembler.feed(read).expect("the stream assembles");
    }
    assembler
        .finish()
        .expect("the stream assembles")
        .choices
        .len()
}

/// As a live display reads a stream: each read pushed, every event it completes read.
fn deltafold_events(reads: &[&[u8]]) -> usize {
    let mut assembler = Assembler::new();
    let mut events = 0;
    for read in reads {
        assembler.push(read);
        while let Some(event) = assembler.next_event().expect("the stream assembles") {
            black_box(&event);
            events += 1;
        }
    }
    events
        + assembler
            .finish()
            .expect("the stream assembles")
            .choices
            .len()
}

async fn deltafold_http(client: &reqwest::Client, url: &str) -> Completion {
    client
        .post(url)
        .send_and_assemble(HttpOptions::default())
        .await
        .expect("the response")
        .completion()
        .await
        .expect("the stream assembles")
}

/// What a hand-written async-openai loop keeps: text and tool calls by index (its delta type
/// has no `reasoning_content`, so reasoning is parsed past and dropped).
#[derive(Debug, Default, PartialEq)]
struct TypedMessage {
    text: String,
    refusal: String,
    calls: Vec<(String, String, String)>,
    arguments: Vec<serde_json::Value>,
    finish: Option<String>,
    usage_tokens: u32,
}

impl TypedMessage {
    fn absorb(&mut self, chunk: CreateChatCompletionStreamResponse) {
        if let Some(usage) = chunk.usage {
            self.usage_tokens = usage.total_tokens;
        }
        for choice in chunk.choices {
            if choice.index != 0 {
                continue;
            }
            let delta = choice.delta;
            if let Some(text) = delta.content {
                self.text.push_str(&text);
            }
            if let Some(refusal) = delta.refusal {
                self.refusal.push_str(&refusal);
            }
            for call in delta.tool_calls.into_iter().flatten() {
                let index = call.index as usize;
                if self.calls.len() <= index {
                    self.calls.resize_with(index + 1, Default::default);
                }
                let slot = &mut self.calls[index];
                if let Some(id) = call.id {
                    slot.0.push_str(&id);
                }
                if let Some(function) = call.function {
                    if let Some(name) = function.name {
                        slot.1.push_str(&name);
                    }
                    if let Some(arguments) = function.arguments {
                        slot.2.push_str(&arguments);
                    }
                }
            }
            if let Some(reason) = choice.finish_reason {
                self.finish = Some(format!("{reason:?}"));
            }
        }
    }

    fn finish(mut self) -> Self {
        self.arguments = self
            .calls
            .iter()
            .map(|call| serde_json::from_str(&call.2).unwrap_or(serde_json::Value::Null))
            .collect();
        self
    }
}

/// async-openai's best case: the body checked as UTF-8 once, `data:` lines found with memchr,
/// each payload deserialized into its typed chunk.
fn async_openai_message(bytes: &[u8]) -> TypedMessage {
    let body = std::str::from_utf8(bytes).expect("UTF-8");
    let mut message = TypedMessage::default();
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', body.as_bytes()) {
        let line = &body[start..end];
        start = end + 1;
        let Some(data) = line.strip_prefix("data:") else {
            continue;
        };
        let data = data.strip_prefix(' ').unwrap_or(data);
        if data == "[DONE]" {
            break;
        }
        let chunk: CreateChatCompletionStreamResponse =
            serde_json::from_str(data).expect("a typed chunk");
        message.absorb(chunk);
    }
    message.finish()
}

#[inline(never)]
fn async_openai_memchr(bytes: &[u8]) -> usize {
    let message = async_openai_message(bytes);
    message.text.len() + message.arguments.len()
}

/// async-openai's own pipeline, as `Client::chat().create_stream` runs it on a response body:
/// `eventsource-stream` over the reads, `[DONE]` ends it, `keepalive` events are skipped, each
/// event's data deserialized into the typed chunk.
#[inline(never)]
fn async_openai_eventsource(reads: &[&[u8]]) -> usize {
    let mut events = futures::stream::iter(
        reads
            .iter()
            .map(|read| Ok::<_, Infallible>(Bytes::copy_from_slice(read))),
    )
    .eventsource();
    let mut message = TypedMessage::default();
    futures::executor::block_on(async {
        while let Some(event) = events.next().await {
            let event = event.expect("a well-formed event stream");
            if event.data == "[DONE]" {
                break;
            }
            if event.event == "keepalive" {
                continue;
            }
            let chunk: CreateChatCompletionStreamResponse =
                serde_json::from_str(&event.data).expect("a typed chunk");
            message.absorb(chunk);
        }
    });
    let message = message.finish();
    message.text.len() + message.arguments.len()
}

/// What genai's stream leaves once it ends, captured by genai itself.
struct GenaiMessage {
    text: String,
    reasoning: String,
    arguments: Vec<serde_json::Value>,
}

fn genai_client(addr: SocketAddr, path: &str) -> genai::Client {
    use genai::resolver::{AuthData, Endpoint, ServiceTargetResolver};
    let endpoint = format!("http://{addr}{path}");
    let resolver = ServiceTargetResolver::from_resolver_fn(
        move |target: genai::ServiceTarget| -> Result<genai::ServiceTarget, genai::resolver::Error> {
            Ok(genai::ServiceTarget {
                endpoint: Endpoint::from_owned(endpoint.clone()),
                auth: AuthData::from_single("local"),
                ..target
            })
        },
    );
    genai::Client::builder()
        .with_service_target_resolver(resolver)
        .build()
        .expect("a genai client")
}

async fn genai_http(client: &genai::Client) -> GenaiMessage {
    use genai::chat::{ChatMessage, ChatOptions, ChatRequest, ChatStreamEvent};
    let request = ChatRequest::new(vec![ChatMessage::user("go")]);
    let options = ChatOptions::default()
        .with_capture_content(true)
        .with_capture_reasoning_content(true)
        .with_capture_tool_calls(true);
    let mut response = client
        .exec_chat_stream("gpt-4o-mini", request, Some(&options))
        .await
        .expect("genai's stream");
    let mut message = GenaiMessage {
        text: String::new(),
        reasoning: String::new(),
        arguments: Vec::new(),
    };
    while let Some(event) = response.stream.next().await {
        if let ChatStreamEvent::End(end) = event.expect("genai's event") {
            message.reasoning = end.captured_reasoning_content.unwrap_or_default();
            if let Some(content) = end.captured_content {
                for part in content.into_parts() {
                    match part {
                        genai::chat::ContentPart::Text(text) => message.text.push_str(&text),
                        genai::chat::ContentPart::ToolCall(call) => {
                            message.arguments.push(call.fn_arguments)
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    black_box(message)
}

/// A local HTTP server: `/s/N/chat/completions` answers with stream N as `text/event-stream`.
struct Server {
    addr: SocketAddr,
    bodies: Arc<std::sync::Mutex<Vec<Bytes>>>,
}

impl Server {
    async fn start() -> Server {
        use hyper::service::service_fn;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a local port");
        let addr = listener.local_addr().expect("its address");
        let bodies: Arc<std::sync::Mutex<Vec<Bytes>>> = Arc::default();
        let served = Arc::clone(&bodies);
        tokio::spawn(async move {
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    continue;
                };
                let served = Arc::clone(&served);
                tokio::spawn(async move {
                    let service =
                        service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                            let served = Arc::clone(&served);
                            async move {
                                let index: usize = request
                                    .uri()
                                    .path()
                                    .split('/')
                                    .nth(2)
                                    .and_then(|n| n.parse().ok())
                                    .unwrap_or(0);
                                let body = served.lock().expect("bodies")[index].clone();
                                Ok::<_, Infallible>(
                                    hyper::Response::builder()
                                        .header("content-type", "text/event-stream")
                                        .body(http_body_util::Full::new(body))
                                        .expect("a response"),
                                )
                            }
                        });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(socket), service)
                        .await;
                });
            }
        });
        Server { addr, bodies }
    }

    /// Serves `body`; returns the path prefix (an endpoint ending in `/`).
    fn serve(&self, body: Vec<u8>) -> String {
        let mut bodies = self.bodies.lock().expect("bodies");
        bodies.push(Bytes::from(body));
        format!("/s/{}/", bodies.len() - 1)
    }
}
