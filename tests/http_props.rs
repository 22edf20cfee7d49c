//! The HTTP layer under property tests against two real local servers (two origins): random
//! statuses, content encodings (identity, gzip, deflate, br and one no client decodes), chunk
//! splits and redirects (301/302/303/307/308, within the origin or to the other one), with the
//! same-origin redirect policy the `http` module documents. Whatever comes: no panic; a
//! success status gives the message, an error status a `Status` error naming it, an encoding
//! the client cannot decode an error naming it; nothing reaches the second origin; no
//! `Referer` is sent; and no error line shows the query's key.
#![cfg(feature = "reqwest")]

#[path = "support/server.rs"]
mod server;

use std::io::Write as _;
use std::time::Duration;

use deltafold::{ErrorKind, Options, RequestBuilderExt};
use futures::StreamExt;
use proptest::prelude::*;
use server::{Reply, Server};

const STREAM: &str = concat!(
    "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"The sky \"}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"is blue.\"}}]}\n\n",
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
    "data: [DONE]\n\n",
);

const SECRET: &str = "s3cr3t-key";

/// How the final body is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Identity,
    Gzip,
    Deflate,
    Brotli,
    /// An encoding reqwest never decodes.
    Unknown,
}

impl Encoding {
    fn header(self) -> Option<&'static str> {
        match self {
            Encoding::Identity => None,
            Encoding::Gzip => Some("gzip"),
            Encoding::Deflate => Some("deflate"),
            Encoding::Brotli => Some("br"),
            Encoding::Unknown => Some("x-squish"),
        }
    }

    fn encode(self, body: &[u8]) -> Vec<u8> {
        match self {
            Encoding::Identity | Encoding::Unknown => body.to_vec(),
            Encoding::Gzip => {
                let mut out = flate2::write::GzEncoder::new(Vec::new(), Default::default());
                out.write_all(body).unwrap();
                out.finish().unwrap()
            }
            Encoding::Deflate => {
                let mut out = flate2::write::ZlibEncoder::new(Vec::new(), Default::default());
                out.write_all(body).unwrap();
                out.finish().unwrap()
            }
            Encoding::Brotli => {
                let mut out = Vec::new();
                brotli::BrotliCompress(&mut &body[..], &mut out, &Default::default()).unwrap();
                out
            }
        }
    }
}

/// One exchange: maybe a redirect first, then the answer.
#[derive(Debug, Clone)]
struct Exchange {
    /// A redirect status and whether it points to the other origin.
    redirect: Option<(u16, bool)>,
    status: u16,
    encoding: Encoding,
    /// Sizes the body is written in (cycled).
    splits: Vec<usize>,
}

fn exchange() -> impl Strategy<Value = Exchange> {
    let redirect = prop::option::of((
        prop::sample::select(vec![301u16, 302, 303, 307, 308]),
        any::<bool>(),
    ));
    let status = prop::sample::select(vec![200u16, 201, 400, 401, 403, 404, 429, 500, 502, 503]);
    let encoding = prop::sample::select(vec![
        Encoding::Identity,
        Encoding::Gzip,
        Encoding::Deflate,
        Encoding::Brotli,
        Encoding::Unknown,
    ]);
    let splits = prop::collection::vec(1usize..64, 1..6);
    (redirect, status, encoding, splits).prop_map(|(redirect, status, encoding, splits)| Exchange {
        redirect,
        status,
        encoding,
        splits,
    })
}

/// The redirect policy of the `http` module's docs: only within the origin.
fn client() -> reqwest::Client {
    let same_origin_only = reqwest::redirect::Policy::custom(|attempt| {
        let origin = attempt.previous()[0].origin();
        if attempt.url().origin() != origin {
            attempt.error("refusing a redirect to another origin")
        } else if attempt.previous().len() > 10 {
            attempt.error("too many redirects")
        } else {
            attempt.follow()
        }
    });
    reqwest::Client::builder()
        .referer(false)
        .redirect(same_origin_only)
        .build()
        .unwrap()
}

/// Does the client decode `encoding`? (The tests turn on reqwest's decoders, as the CLI does.)
fn decoded(encoding: Encoding) -> bool {
    encoding != Encoding::Unknown
}

async fn run(exchange: Exchange) {
    let body = exchange.encoding.encode(STREAM.as_bytes());
    let (status, encoding, splits) = (exchange.status, exchange.encoding, exchange.splits);
    let final_reply = move || {
        let content_type = if status < 300 {
            "text/event-stream"
        } else {
            "application/json"
        };
        let mut reply = Reply::new(status, Some(content_type));
        if let Some(name) = encoding.header() {
            reply = reply.header("content-encoding", name);
        }
        reply.drip(&body, &splits)
    };
    let other = Server::start({
        let final_reply = final_reply.clone();
        move |_| final_reply()
    })
    .await;
    let other_final = other.url("/final");
    let redirect = exchange.redirect;
    let origin = Server::start(move |path| match (path, redirect) {
        ("/start", Some((code, cross))) => {
            let location = if cross {
                other_final.clone()
            } else {
                "/final".to_owned()
            };
            Reply::new(code, None).header("location", location)
        }
        _ => final_reply(),
    })
    .await;
    let url = format!("{}?key={SECRET}", origin.url("/start"));
    let sent = client()
        .post(url)
        .header("x-api-key", SECRET)
        .header("content-type", "application/json")
        .body("{\"stream\":true}")
        .send_and_assemble(Options::new());
    let outcome = match tokio::time::timeout(Duration::from_secs(5), sent)
        .await
        .expect("no answer within 5 s: a hang")
    {
        Ok(mut stream) => {
            let mut failed = None;
            while let Some(event) = stream.next().await {
                if let Err(error) = event {
                    failed = Some(error);
                    break;
                }
            }
            match failed {
                Some(error) => Err(error),
                None => stream.completion().await,
            }
        }
        Err(error) => Err(error),
    };

    // Nothing reached the other origin, and no request carried a referer.
    assert_eq!(
        other.connections(),
        0,
        "{redirect:?}: the other origin was contacted"
    );
    for seen in origin.requests() {
        assert!(seen.headers.get("referer").is_none(), "{seen:?}");
    }
    let cross = matches!(redirect, Some((_, true)));
    match outcome {
        Ok(completion) => {
            assert!(!cross, "a cross-origin redirect was followed");
            assert!(status < 300 && decoded(encoding), "{status} {encoding:?}");
            assert_eq!(completion.into_message().text(), "The sky is blue.");
        }
        Err(error) => {
            let line = error.to_string();
            assert!(!line.contains(SECRET), "the key leaked: {line}");
            let mut source = std::error::Error::source(&error);
            while let Some(cause) = source {
                assert!(
                    !cause.to_string().contains(SECRET),
                    "the key leaked: {cause}"
                );
                source = cause.source();
            }
            if cross {
                assert_eq!(error.kind(), ErrorKind::Transport, "{line}");
                assert!(line.contains("another origin"), "{line}");
            } else if status >= 300 {
                assert_eq!(error.kind(), ErrorKind::Status, "{line}");
                assert!(line.contains(&status.to_string()), "{line}");
            } else {
                assert!(!decoded(encoding), "{encoding:?}: {line}");
                assert_eq!(error.kind(), ErrorKind::Malformed, "{line}");
                assert!(line.contains(encoding.header().unwrap()), "{line}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_status_encoding_split_and_redirect_gives_a_typed_outcome_and_leaks_nothing(exchange in exchange()) {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(run(exchange));
    }
}

/// A transport error's line and its sources name the URL without its query: reqwest's own
/// `Display` would show `?key=…`.
#[tokio::test]
async fn a_transport_error_never_shows_the_query() {
    // A port nothing listens on: bind one, then close it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url =
        format!("http://user:pass@127.0.0.1:{port}/v1/models/g:stream?alt=sse&key={SECRET}#frag");
    let sent = reqwest::Client::new()
        .post(url)
        .send_and_assemble(Options::new())
        .await;
    let Err(error) = sent else {
        panic!("nothing listens there, yet the request was answered");
    };
    assert_eq!(error.kind(), ErrorKind::Transport, "{error}");
    let line = error.to_string();
    assert!(line.contains("127.0.0.1"), "{line}");
    assert!(line.contains("redacted"), "{line}");
    let mut texts = vec![line, format!("{error:?}")];
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        texts.push(cause.to_string());
        source = cause.source();
    }
    for text in texts {
        assert!(!text.contains(SECRET) && !text.contains("pass"), "{text}");
    }
}
