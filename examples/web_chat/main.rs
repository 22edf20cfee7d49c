//! A chat page whose answer streams in live: the browser runs the AI SDK's own `useChat`
//! (bundled from npm), and this axum server answers its `POST /api/chat` by calling an
//! OpenAI-compatible provider with reqwest and re-encoding the provider's stream, as deltafold
//! assembles it, into the AI SDK's UI message stream.
//!
//! ```text
//! (cd examples/web_chat && npm ci && npm run build)     # bundles the page once
//! cargo run --example web_chat                          # offline: replays a recording
//! OPENAI_API_KEY=sk-... cargo run --example web_chat    # live
//! ```
//!
//! Environment: `OPENAI_API_KEY` (none: answers replay `fixtures/demo/demo.sse`, or the file
//! `REPLAY_RECORDING` names, one event per `REPLAY_PACE_MS`, default 40), `OPENAI_BASE_URL`
//! (default `https://api.openai.com/v1`), `MODEL` (default `gpt-4o-mini`), `WEB_CHAT_ADDR`
//! (default `127.0.0.1:3000`; port 0 picks a free one). The server prints
//! `listening on http://ADDRESS` once it accepts connections, and one line per answer: sent
//! whole, failed (the provider's error), or cut because the page went away (Stop).
//!
//! The tools are offered to the model so that its calls show on the page; nothing runs them.

mod replay;

use std::convert::Infallible;
use std::env;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use deltafold::encode::{EncodeExt, Target, VERCEL_UI_HEADER};
use deltafold::{Error, Options, RequestBuilderExt};
use futures::{Stream, StreamExt as _};
use serde_json::{json, Value};
use tokio::net::TcpListener;

/// Where the provider is and what the page is served from.
struct App {
    client: reqwest::Client,
    url: String,
    key: Option<String>,
    model: String,
    page: String,
    script: String,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let key = env::var("OPENAI_API_KEY")
        .ok()
        .filter(|key| !key.is_empty());
    let model = env::var("MODEL").unwrap_or_else(|_| "gpt-4o-mini".to_owned());
    let (base_url, mode) = match &key {
        Some(_) => {
            let base_url = env::var("OPENAI_BASE_URL")
                .unwrap_or_else(|_| "https://api.openai.com/v1".to_owned());
            let mode = format!("live: {model} at {base_url}");
            (base_url, mode)
        }
        None => {
            let pace = env::var("REPLAY_PACE_MS").map_or(Ok(40), |pace| pace.parse())?;
            let recording = match env::var("REPLAY_RECORDING") {
                Ok(path) => std::fs::read(path)?.into(),
                Err(_) => Bytes::from_static(replay::DEMO.as_bytes()),
            };
            (
                replay::start(recording, Duration::from_millis(pace)).await?,
                "offline: every question gets the same recorded answer (set OPENAI_API_KEY for a live model)".to_owned(),
            )
        }
    };
    let page_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/web_chat/page");
    let script = std::fs::read_to_string(page_dir.join("dist/app.js")).map_err(|error| {
        format!("the page's script is not built ({error}): run `npm ci && npm run build` in examples/web_chat")
    })?;
    // The mode as a JavaScript string literal that cannot end the <script> element.
    let mode = json!(mode).to_string().replace('<', "\\u003c");
    let page = std::fs::read_to_string(page_dir.join("index.html"))?.replace("{{MODE}}", &mode);
    let app = Arc::new(App {
        client: reqwest::Client::new(),
        url: format!("{}/chat/completions", base_url.trim_end_matches('/')),
        key,
        model,
        page,
        script,
    });

    let router = Router::new()
        .route(
            "/",
            get(|State(app): State<Arc<App>>| async move { Html(app.page.clone()) }),
        )
        .route(
            "/app.js",
            get(|State(app): State<Arc<App>>| async move {
                ([(CONTENT_TYPE, "text/javascript")], app.script.clone())
            }),
        )
        .route("/api/chat", post(chat))
        .with_state(app);
    let address = env::var("WEB_CHAT_ADDR").unwrap_or_else(|_| "127.0.0.1:3000".to_owned());
    let listener = TcpListener::bind(&address).await?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, router).await?;
    Ok(())
}

/// `useChat`'s request: the conversation so far as UI messages. The answer: the provider's
/// stream as a UI message stream.
async fn chat(State(app): State<Arc<App>>, Json(chat): Json<Value>) -> Response {
    let mut request = app
        .client
        .post(&app.url)
        .header(CONTENT_TYPE, "application/json")
        .body(provider_request(&app.model, &chat).to_string());
    if let Some(key) = &app.key {
        request = request.bearer_auth(key);
    }
    match request.send_and_assemble(Options::new()).await {
        Ok(events) => {
            let headers = [
                ("content-type", "text/event-stream"),
                ("cache-control", "no-cache"),
                VERCEL_UI_HEADER,
            ];
            let chunks = logged(events.encode(Target::VercelUi));
            (headers, Body::from_stream(chunks)).into_response()
        }
        Err(error) => (StatusCode::BAD_GATEWAY, error.to_string()).into_response(),
    }
}

/// The Chat Completions request for the conversation: each UI message's text parts, and the
/// two tools of the recording.
fn provider_request(model: &str, chat: &Value) -> Value {
    let messages: Vec<Value> = chat["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|message| {
            let text: String = message["parts"]
                .as_array()?
                .iter()
                .filter(|part| part["type"] == "text")
                .filter_map(|part| part["text"].as_str())
                .collect();
            (!text.is_empty()).then(|| json!({"role": message["role"], "content": text}))
        })
        .collect();
    let tool = |name: &str, description: &str, properties: Value, required: &[&str]| {
        json!({"type": "function", "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        }})
    };
    json!({
        "model": model,
        "stream": true,
        "stream_options": {"include_usage": true},
        "messages": messages,
        "tools": [
            tool("get_weather", "The weather forecast for a city",
                 json!({"city": {"type": "string"}, "country": {"type": "string"},
                        "when": {"type": "string"}, "units": {"type": "string"}}),
                 &["city"]),
            tool("get_local_time", "The local time in a time zone",
                 json!({"timezone": {"type": "string"}}), &["timezone"]),
        ],
    })
}

/// The answer's chunks for the page, with a line on stdout when the answer ends: sent whole,
/// failed (the page has the provider's error as the stream's `error` chunk, and the response
/// ends cleanly after it), or cut because the page went away (its Stop button aborts the
/// request; dropping the stream closes the provider's connection).
fn logged(
    chunks: impl Stream<Item = Result<String, Error>>,
) -> impl Stream<Item = Result<String, Infallible>> {
    struct Answer {
        chunks: usize,
        end: Option<Result<(), String>>,
    }
    impl Answer {
        fn end(&mut self, end: Result<(), String>) {
            self.end = Some(end);
        }
    }
    impl Drop for Answer {
        fn drop(&mut self) {
            let chunks = self.chunks;
            match &self.end {
                Some(Ok(())) => println!("answer sent whole: {chunks} chunks"),
                Some(Err(error)) => println!("answer failed after {chunks} chunks: {error}"),
                None => println!("answer cut after {chunks} chunks: the page went away"),
            }
        }
    }
    let answer = Answer {
        chunks: 0,
        end: None,
    };
    futures::stream::unfold(
        (Box::pin(chunks), answer),
        |(mut chunks, mut answer)| async move {
            match chunks.next().await {
                Some(Ok(chunk)) => {
                    answer.chunks += 1;
                    Some((Ok(chunk), (chunks, answer)))
                }
                Some(Err(error)) => {
                    answer.end(Err(error.to_string()));
                    None
                }
                None => {
                    answer.end(Ok(()));
                    None
                }
            }
        },
    )
}
