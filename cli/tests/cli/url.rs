//! `deltafold --url`: the request sent to a real HTTP server on 127.0.0.1, the live answer, error
//! statuses, redirects, compressed bodies and the time bounds.

use super::*;

/// What the test server saw of a request.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    method: String,
    authorization: Option<String>,
    content_type: Option<String>,
    body: Vec<u8>,
}

/// Serves every request on 127.0.0.1 with `respond`, reporting what it saw.
async fn serve(
    respond: fn(&Seen) -> Response<Full<Bytes>>,
) -> (SocketAddr, tokio::sync::mpsc::UnboundedReceiver<Seen>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (report, seen) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        loop {
            let (connection, _) = listener.accept().await.unwrap();
            let report = report.clone();
            let service = service_fn(move |request: Request<Incoming>| {
                let report = report.clone();
                async move {
                    let header = |name: &str| {
                        request
                            .headers()
                            .get(name)
                            .map(|value| value.to_str().unwrap().to_owned())
                    };
                    let mut seen = Seen {
                        method: request.method().to_string(),
                        authorization: header("authorization"),
                        content_type: header("content-type"),
                        body: Vec::new(),
                    };
                    seen.body = request.collect().await.unwrap().to_bytes().to_vec();
                    let response = respond(&seen);
                    report.send(seen).unwrap();
                    Ok::<_, Infallible>(response)
                }
            });
            tokio::spawn(http1::Builder::new().serve_connection(TokioIo::new(connection), service));
        }
    });
    (address, seen)
}

async fn run_async(args: &[&str]) -> Output {
    tokio::process::Command::new(BIN)
        .args(args)
        .output()
        .await
        .unwrap()
}

#[tokio::test]
async fn url_posts_the_request_and_assembles_the_live_response() {
    let (address, mut seen) = serve(|_| {
        Response::builder()
            .header("content-type", "text/event-stream")
            .body(Full::new(Bytes::from_static(DEMO.as_bytes())))
            .unwrap()
    })
    .await;
    let url = format!("http://{address}/v1/chat/completions");
    let body = r#"{"model":"demo","stream":true}"#;
    let output = run_async(&[
        "--json",
        "--url",
        &url,
        "-H",
        "Authorization: Bearer test-key",
        "--data",
        body,
    ])
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert_demo_message(&json_line(&output));
    let request = seen.recv().await.unwrap();
    assert_eq!(
        request,
        Seen {
            method: "POST".into(),
            authorization: Some("Bearer test-key".into()),
            content_type: Some("application/json".into()),
            body: body.as_bytes().to_vec(),
        }
    );
}

#[tokio::test]
async fn url_sends_the_body_of_a_data_file() {
    let (address, mut seen) = serve(|_| {
        Response::builder()
            .header("content-type", "text/event-stream")
            .body(Full::new(Bytes::from_static(DEMO.as_bytes())))
            .unwrap()
    })
    .await;
    let body = TempFile::new("request.json", r#"{"stream":true}"#);
    let output = run_async(&[
        "--events",
        "--url",
        &format!("http://{address}/"),
        "--data-file",
        body.path().to_str().unwrap(),
    ])
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output).lines().last(), Some(r#"{"type":"done"}"#));
    assert_eq!(seen.recv().await.unwrap().body, br#"{"stream":true}"#);
}

#[tokio::test]
async fn url_with_an_error_status_exits_1_naming_it() {
    let (address, _seen) = serve(|_| {
        Response::builder()
            .status(StatusCode::TOO_MANY_REQUESTS)
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from_static(
                br#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#,
            )))
            .unwrap()
    })
    .await;
    let output = run_async(&[
        "--json",
        "--url",
        &format!("http://{address}/"),
        "--data",
        "{}",
    ])
    .await;
    assert_eq!(output.status.code(), Some(1));
    let line = error_line(&output);
    assert!(line.contains("429"), "{line}");
    assert!(line.contains("Rate limit reached"), "{line}");
    assert_eq!(stdout(&output), "");
}

/// Runs the binary, failing the test instead of hanging. The guard is far above what a run takes
/// (the dripped demo is ~1,900 writes 1 ms apart: 2–5 s on a loaded 2-core machine) and far
/// below a stall (60 s).
async fn run_guarded(args: &[&str]) -> Output {
    tokio::time::timeout(Duration::from_secs(50), run_async(args))
        .await
        .expect("the binary did not finish within 50 s")
}

#[tokio::test]
async fn url_refuses_a_redirect_to_another_origin_and_sends_it_nothing() {
    // Another port is another origin.
    let elsewhere = server::Server::start(|_| server::Reply::event_stream(DEMO)).await;
    let target = elsewhere.url("/collect?from=redirect");
    let origin = server::Server::start(move |_| {
        server::Reply::new(307, None).header("location", target.clone())
    })
    .await;
    let url = origin.url("/v1beta/models/m:streamGenerateContent?alt=sse&key=SECRET-KEY");
    let output = run_guarded(&[
        "--json",
        "--url",
        &url,
        "-H",
        "x-api-key: SECRET-HEADER",
        "-H",
        "Authorization: Bearer SECRET-TOKEN",
        "--data",
        r#"{"secret":"body"}"#,
    ])
    .await;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let line = error_line(&output);
    assert!(line.contains("another origin"), "{line}");
    assert!(line.contains(&elsewhere.url("")), "{line}");
    assert_eq!(stdout(&output), "");
    assert_eq!(elsewhere.connections(), 0, "the other origin was contacted");
    assert!(elsewhere.requests().is_empty());
    let sent = origin.requests();
    assert_eq!(sent.len(), 1);
    assert!(sent[0].headers.get("referer").is_none());
}

/// reqwest's error `Display` names the URL with its query; the CLI's error line shows it
/// redacted, for a connection refused and for a redirect refused, so a Gemini `?key=` never
/// reaches the terminal or a log.
#[tokio::test]
async fn an_error_line_never_shows_the_query_of_the_url() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let refused = format!(
        "http://127.0.0.1:{closed}/v1beta/models/m:streamGenerateContent?alt=sse&key=SECRET-KEY"
    );
    let elsewhere = server::Server::start(|_| server::Reply::event_stream(DEMO)).await;
    let target = elsewhere.url("/collect?key=SECRET-KEY");
    let origin = server::Server::start(move |_| {
        server::Reply::new(302, None).header("location", target.clone())
    })
    .await;
    let redirected = origin.url("/stream?key=SECRET-KEY");
    for url in [refused, redirected] {
        let output = run_guarded(&["--json", "--url", &url]).await;
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        let line = error_line(&output);
        assert!(line.contains("127.0.0.1"), "{line}");
        assert!(!line.contains("SECRET"), "{line}");
    }
    assert_eq!(elsewhere.connections(), 0);
}

#[tokio::test]
async fn url_follows_a_same_origin_redirect_without_a_referer() {
    let server = server::Server::start(|path| match path {
        "/old" => server::Reply::new(307, None).header("location", "/new"),
        _ => server::Reply::event_stream(DEMO),
    })
    .await;
    let body = r#"{"stream":true}"#;
    let url = server.url("/old?key=SECRET-KEY");
    let output = run_guarded(&["--json", "--url", &url, "--data", body]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert_demo_message(&json_line(&output));
    let sent = server.requests();
    let targets: Vec<&str> = sent.iter().map(|seen| seen.target.as_str()).collect();
    assert_eq!(targets, ["/old?key=SECRET-KEY", "/new"]);
    // A 307 keeps the method and the body; the origin is the same, so that is fine.
    assert_eq!(sent[1].method, "POST");
    assert_eq!(sent[1].body, body.as_bytes());
    assert!(
        sent.iter()
            .all(|seen| seen.headers.get("referer").is_none()),
        "{sent:?}"
    );
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// HTTP's `deflate` is the zlib format.
fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

fn brotli(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = brotli::CompressorWriter::new(Vec::new(), 4096, 9, 22);
    encoder.write_all(bytes).unwrap();
    encoder.into_inner()
}

#[tokio::test]
async fn url_decodes_gzip_deflate_and_brotli_bodies() {
    for (encoding, compress) in [
        ("gzip", gzip as fn(&[u8]) -> Vec<u8>),
        ("deflate", deflate),
        ("br", brotli),
    ] {
        let compressed = compress(DEMO.as_bytes());
        let server = server::Server::start(move |_| {
            server::Reply::new(200, Some("text/event-stream"))
                .header("content-encoding", encoding)
                .drip(&compressed, &[97, 13, 251])
        })
        .await;
        let output = run_guarded(&["--json", "--url", &server.url("/"), "--data", "{}"]).await;
        assert!(output.status.success(), "{encoding}: {}", stderr(&output));
        assert_demo_message(&json_line(&output));
        let asked = server.requests()[0].headers["accept-encoding"].clone();
        assert!(asked.to_str().unwrap().contains(encoding), "{asked:?}");
    }
}

#[tokio::test]
async fn url_deadline_and_idle_timeout_flags_bound_the_wait() {
    let events = demo_events();
    let first = events[..5].concat();
    let rest = events[5..].concat();
    let server = server::Server::start(move |path| {
        let reply = server::Reply::new(200, Some("text/event-stream")).write(first.clone());
        match path {
            // Under any idle timeout, but never done.
            "/trickle" => reply.trickle(rest.as_bytes(), Duration::from_millis(20)),
            _ => reply.then(server::Step::Stall),
        }
    })
    .await;
    let trickle = server.url("/trickle");
    let output = run_guarded(&["--json", "--url", &trickle, "--deadline", "0.5"]).await;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let line = error_line(&output);
    assert!(line.contains("deadline exceeded"), "{line}");
    let partial = json_line(&output);
    assert!(partial["additional_kwargs"]["reasoning_content"]
        .as_str()
        .unwrap()
        .starts_with("The user"));
    assert!(partial["response_metadata"]["incomplete"].is_string());

    let stall = server.url("/stall");
    let output = run_guarded(&["--json", "--url", &stall, "--idle-timeout", "0.3"]).await;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(error_line(&output).contains("idle timeout"));
}

#[test]
fn time_flags_take_positive_seconds_and_need_url() {
    for args in [
        &["--deadline", "5"][..],
        &["--idle-timeout", "5"],
        &["--url", "http://127.0.0.1:1/", "--deadline", "0"],
        &["--url", "http://127.0.0.1:1/", "--idle-timeout", "-1"],
        &["--url", "http://127.0.0.1:1/", "--idle-timeout", "soon"],
    ] {
        let output = run(args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
    }
}

/// Control characters a hostile or broken server may send in its error text.
const CONTROLS: &str = "\x1b]0;owned\x07 \x1b[2J\x1b[31mred\r\x08\x7f";

/// The escaped form of [`CONTROLS`].
const ESCAPED: &str = "\\u{1b}]0;owned\\u{7} \\u{1b}[2J\\u{1b}[31mred\\u{d}\\u{8}\\u{7f}";

fn assert_clean(line: &str) {
    assert!(
        !line.chars().any(|c| c.is_control() && c != '\n'),
        "{line:?}"
    );
    assert!(line.contains(ESCAPED), "{line:?}");
}

#[test]
fn a_provider_error_in_a_file_reaches_stderr_without_control_characters() {
    let message = serde_json::to_string(&json!({"error": {"message": CONTROLS}})).unwrap();
    let file = TempFile::new("controls.sse", &format!("data: {message}\n\n"));
    let output = run(&["--json", file.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let line = error_line(&output);
    assert!(line.contains("provider error"), "{line}");
    assert_clean(&line);
}

#[tokio::test]
async fn an_http_error_body_reaches_stderr_without_control_characters() {
    let server = server::Server::start(|path| match path {
        "/json" => server::Reply::new(400, Some("application/json"))
            .write(serde_json::to_string(&json!({"error": {"message": CONTROLS}})).unwrap()),
        _ => server::Reply::new(502, Some("text/plain")).write(format!("upstream {CONTROLS}")),
    })
    .await;
    for path in ["/json", "/plain"] {
        let output = run_guarded(&["--url", &server.url(path), "--data", "{}"]).await;
        assert_eq!(output.status.code(), Some(1));
        assert_clean(&error_line(&output));
    }
}
