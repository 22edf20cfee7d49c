//! A real HTTP/1.1 server on 127.0.0.1, inside the test process, for the HTTP and CLI tests.
//!
//! Each reply is a script: a status, a content type and other headers, and steps — write these
//! bytes, pause, cut the connection, stall. Every write goes out as its own chunk of a chunked
//! body, through a channel the connection reads one frame at a time. The server records every
//! connection and request it saw, so a test can show what did — or did not — reach it.
// Each test binary includes this file and uses a different part of it.
#![allow(dead_code)]

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures::channel::mpsc;
use futures::SinkExt;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::HeaderMap;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// One step of a reply's body.
#[derive(Debug, Clone)]
pub enum Step {
    /// Send these bytes as one chunk.
    Write(Bytes),
    /// Wait before the next step.
    Pause(Duration),
    /// Abort the connection mid-body (no terminating chunk).
    Cut,
    /// Keep the connection open without sending anything more.
    Stall,
}

/// What the server answers to one request.
#[derive(Debug, Clone)]
pub struct Reply {
    status: u16,
    content_type: Option<&'static str>,
    headers: Vec<(&'static str, String)>,
    headers_after: Duration,
    steps: Vec<Step>,
}

/// Sizes of successive writes: small, odd, uneven, so that events and even characters are split.
const WRITE_SIZES: [usize; 8] = [1, 3, 7, 2, 13, 5, 31, 11];

impl Reply {
    /// An empty reply with this status and content type.
    pub fn new(status: u16, content_type: Option<&'static str>) -> Self {
        Reply {
            status,
            content_type,
            headers: Vec::new(),
            headers_after: Duration::ZERO,
            steps: Vec::new(),
        }
    }

    /// A 200 `text/event-stream` reply sending `body` in small odd-sized writes with pauses.
    pub fn event_stream(body: &str) -> Self {
        Reply::new(200, Some("text/event-stream")).drip(body.as_bytes(), &WRITE_SIZES)
    }

    /// Appends writes of `body` cut into the given sizes (cycled), each followed by a 1 ms pause.
    pub fn drip(mut self, body: &[u8], sizes: &[usize]) -> Self {
        let mut rest = body;
        for &size in sizes.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (write, after) = rest.split_at(size.min(rest.len()));
            self.steps.push(Step::Write(Bytes::copy_from_slice(write)));
            self.steps.push(Step::Pause(Duration::from_millis(1)));
            rest = after;
        }
        self
    }

    /// Appends writes of `body` one byte at a time, each followed by `pause`.
    pub fn trickle(mut self, body: &[u8], pause: Duration) -> Self {
        for byte in body {
            self.steps
                .push(Step::Write(Bytes::copy_from_slice(&[*byte])));
            self.steps.push(Step::Pause(pause));
        }
        self
    }

    /// Adds a response header.
    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    /// Appends one write of `body`.
    pub fn write(mut self, body: impl Into<Bytes>) -> Self {
        self.steps.push(Step::Write(body.into()));
        self
    }

    /// Appends a step.
    pub fn then(mut self, step: Step) -> Self {
        self.steps.push(step);
        self
    }

    /// Sends the status line and headers only after this long.
    pub fn headers_after(mut self, delay: Duration) -> Self {
        self.headers_after = delay;
        self
    }
}

type Route = dyn Fn(&str) -> Reply + Send + Sync;

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    /// The path and the query.
    pub target: String,
    pub headers: HeaderMap,
    pub body: Bytes,
}

/// What reached a server.
#[derive(Debug, Default)]
struct Log {
    connections: AtomicUsize,
    requests: Mutex<Vec<Seen>>,
}

/// A running server; it stops when dropped.
pub struct Server {
    address: SocketAddr,
    accept_loop: JoinHandle<()>,
    log: Arc<Log>,
}

impl Server {
    /// Starts a server on 127.0.0.1 port 0 answering each request by `route(path)`, once it
    /// has read the request's body.
    pub async fn start(route: impl Fn(&str) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let route: Arc<Route> = Arc::new(route);
        let log = Arc::new(Log::default());
        let accepted = Arc::clone(&log);
        let accept_loop = tokio::spawn(async move {
            loop {
                let Ok((connection, _)) = listener.accept().await else {
                    return;
                };
                accepted.connections.fetch_add(1, Ordering::SeqCst);
                let route = Arc::clone(&route);
                let log = Arc::clone(&accepted);
                tokio::spawn(async move {
                    let service = service_fn(move |request: Request<Incoming>| {
                        let route = Arc::clone(&route);
                        let log = Arc::clone(&log);
                        async move {
                            let seen = read(request).await;
                            let reply = route(seen.target.split('?').next().unwrap_or_default());
                            log.requests.lock().unwrap().push(seen);
                            respond(reply).await
                        }
                    });
                    // A cut connection ends with an error here, on purpose.
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(connection), service)
                        .await;
                });
            }
        });
        Server {
            address,
            accept_loop,
            log,
        }
    }

    /// The URL of `path` on this server.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// The connections accepted so far.
    pub fn connections(&self) -> usize {
        self.log.connections.load(Ordering::SeqCst)
    }

    /// The requests received so far, in order.
    pub fn requests(&self) -> Vec<Seen> {
        self.log.requests.lock().unwrap().clone()
    }
}

async fn read(request: Request<Incoming>) -> Seen {
    let (parts, body) = request.into_parts();
    let body = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => Bytes::new(),
    };
    Seen {
        method: parts.method.to_string(),
        target: parts
            .uri
            .path_and_query()
            .map(ToString::to_string)
            .unwrap_or_default(),
        headers: parts.headers,
        body,
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.accept_loop.abort();
    }
}

type BodyFrames = mpsc::Receiver<Result<Frame<Bytes>, io::Error>>;

async fn respond(reply: Reply) -> Result<Response<StreamBody<BodyFrames>>, Infallible> {
    tokio::time::sleep(reply.headers_after).await;
    // No buffer beyond the one slot per sender: each write waits until the connection took
    // the previous one.
    let (mut frames, body) = mpsc::channel(0);
    tokio::spawn(async move {
        for step in reply.steps {
            match step {
                Step::Write(bytes) => {
                    if frames.send(Ok(Frame::data(bytes))).await.is_err() {
                        return;
                    }
                }
                Step::Pause(pause) => tokio::time::sleep(pause).await,
                Step::Cut => {
                    let cut = io::Error::new(io::ErrorKind::ConnectionAborted, "cut by the test");
                    let _ = frames.send(Err(cut)).await;
                    return;
                }
                Step::Stall => {
                    tokio::time::sleep(Duration::from_secs(60)).await;
                    return;
                }
            }
        }
    });
    let mut response = Response::builder().status(reply.status);
    if let Some(content_type) = reply.content_type {
        response = response.header("content-type", content_type);
    }
    for (name, value) in reply.headers {
        response = response.header(name, value);
    }
    Ok(response.body(StreamBody::new(body)).unwrap())
}
