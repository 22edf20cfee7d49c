//! A stand-in for an OpenAI-compatible chat server, on 127.0.0.1, for the agent-loop example
//! and its test.
//!
//! It replays two recorded streams: to a conversation that ends on the user's question, the
//! model's two parallel `get_weather` calls (`weather_tool_calls.sse`); to a conversation that
//! ends on tool results, the final answer (`weather_answer.sse`) — but only after checking that
//! the request carries, in the Chat Completions format, the assistant message with both calls
//! and one tool message answering each. Anything else gets a 400 with an OpenAI error body.
//! Each event goes out in two writes, a pause apart, as a real server's chunks would.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt as _;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{HeaderValue, CACHE_CONTROL, CONTENT_TYPE};
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// The model's answer to the question: two parallel tool calls.
pub const TOOL_CALLS: &str = include_str!("weather_tool_calls.sse");
/// The model's answer once it has the tool results.
pub const ANSWER: &str = include_str!("weather_answer.sse");

/// The calls the recorded stream makes, which the second request must carry back.
pub const EXPECTED_CALLS: [(&str, &str); 2] = [("call_paris", "Paris"), ("call_tokyo", "Tokyo")];

/// One request the server received and what it answered.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// The request body.
    pub request: Value,
    /// The status of the reply.
    pub status: u16,
    /// Why the request was refused, for a 400.
    pub refusal: Option<String>,
}

/// The running server; stops when dropped.
pub struct ReplayServer {
    address: SocketAddr,
    exchanges: Arc<Mutex<Vec<Exchange>>>,
    task: JoinHandle<()>,
}

impl ReplayServer {
    /// Starts the server on a free port, pausing `pause` between writes of a stream.
    pub async fn start(pause: Duration) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let exchanges = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&exchanges);
        let task = tokio::spawn(async move {
            while let Ok((connection, _)) = listener.accept().await {
                let log = Arc::clone(&log);
                let service = service_fn(move |request| answer(request, Arc::clone(&log), pause));
                tokio::spawn(async move {
                    let connection = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(connection), service);
                    // A client that hangs up early is not the server's problem.
                    let _ = connection.await;
                });
            }
        });
        Ok(ReplayServer {
            address,
            exchanges,
            task,
        })
    }

    /// The chat-completions endpoint.
    pub fn url(&self) -> String {
        format!("http://{}/v1/chat/completions", self.address)
    }

    /// The requests so far, in order.
    pub fn exchanges(&self) -> Vec<Exchange> {
        self.exchanges
            .lock()
            .map(|exchanges| exchanges.clone())
            .unwrap_or_default()
    }
}

impl Drop for ReplayServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

type Body = BoxBody<Bytes, Infallible>;

async fn answer(
    request: Request<Incoming>,
    log: Arc<Mutex<Vec<Exchange>>>,
    pause: Duration,
) -> Result<Response<Body>, Infallible> {
    let bytes = match request.into_body().collect().await {
        Ok(body) => body.to_bytes(),
        Err(error) => {
            return Ok(refuse(format!(
                "the request body could not be read: {error}"
            )))
        }
    };
    let request: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let verdict = replay_for(&request);
    let response = match &verdict {
        Ok(recording) => stream(recording, pause),
        Err(reason) => refuse(reason.clone()),
    };
    if let Ok(mut exchanges) = log.lock() {
        exchanges.push(Exchange {
            request,
            status: response.status().as_u16(),
            refusal: verdict.err(),
        });
    }
    Ok(response)
}

/// Which recording answers `request`, or why it is refused.
fn replay_for(request: &Value) -> Result<&'static str, String> {
    let messages = request["messages"]
        .as_array()
        .ok_or("the body has no `messages` array")?;
    let question = messages.iter().position(|message| {
        message["role"] == "user"
            && message["content"]
                .as_str()
                .is_some_and(|text| text.contains("Paris") && text.contains("Tokyo"))
    });
    if question.is_none() {
        return Err("no user message asks about Paris and Tokyo".into());
    }
    match messages.last().map(|last| &last["role"]) {
        Some(role) if role == "user" => Ok(TOOL_CALLS),
        Some(role) if role == "tool" => check_tool_round(messages).map(|()| ANSWER),
        other => Err(format!(
            "the last message's role is {other:?}, not user or tool"
        )),
    }
}

/// The assistant message with both calls, in the Chat Completions shape, then one tool message
/// per call.
fn check_tool_round(messages: &[Value]) -> Result<(), String> {
    let at = messages
        .iter()
        .rposition(|message| message["role"] == "assistant")
        .ok_or("no assistant message before the tool messages")?;
    let calls = messages[at]["tool_calls"]
        .as_array()
        .ok_or("the assistant message has no `tool_calls` array")?;
    if calls.len() != EXPECTED_CALLS.len() {
        return Err(format!("expected 2 tool calls, found {}", calls.len()));
    }
    for (call, (id, city)) in calls.iter().zip(EXPECTED_CALLS) {
        if call["id"] != id
            || call["type"] != "function"
            || call["function"]["name"] != "get_weather"
        {
            return Err(format!(
                "expected the function call {id} to get_weather, found {call}"
            ));
        }
        let arguments = call["function"]["arguments"]
            .as_str()
            .ok_or_else(|| format!("the arguments of {id} must be a JSON string"))?;
        let arguments: Value = serde_json::from_str(arguments)
            .map_err(|error| format!("the arguments of {id} are not JSON: {error}"))?;
        if arguments != json!({"city": city}) {
            return Err(format!("the arguments of {id} are {arguments}"));
        }
    }
    let results = &messages[at + 1..];
    let mut answered: Vec<&str> = Vec::new();
    for result in results {
        let id = result["tool_call_id"].as_str().unwrap_or_default();
        if result["role"] != "tool" || !result["content"].is_string() {
            return Err(format!(
                "expected a tool message with string content, found {result}"
            ));
        }
        if !EXPECTED_CALLS.iter().any(|(expected, _)| *expected == id) || answered.contains(&id) {
            return Err(format!("the tool message for {id:?} answers no open call"));
        }
        answered.push(id);
    }
    if answered.len() != EXPECTED_CALLS.len() {
        return Err(format!("only {answered:?} of the calls are answered"));
    }
    Ok(())
}

/// A 200 event stream replaying `recording`, each event split in two writes.
fn stream(recording: &'static str, pause: Duration) -> Response<Body> {
    let mut writes = Vec::new();
    for event in recording.split_inclusive("\n\n") {
        let mut middle = event.len() / 2;
        while !event.is_char_boundary(middle) {
            middle += 1;
        }
        writes.extend([&event[..middle], &event[middle..]]);
    }
    let frames = futures::stream::iter(writes).then(move |write| async move {
        tokio::time::sleep(pause).await;
        Ok::<_, Infallible>(Frame::data(Bytes::from_static(write.as_bytes())))
    });
    let mut response = Response::new(BodyExt::boxed(StreamBody::new(frames)));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// A 400 with the error body OpenAI sends.
fn refuse(reason: String) -> Response<Body> {
    let body = json!({"error": {"message": reason, "type": "invalid_request_error",
                                "param": "messages", "code": null}});
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *response.status_mut() = StatusCode::BAD_REQUEST;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
