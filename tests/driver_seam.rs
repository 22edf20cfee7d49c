//! A driver written outside the crate, over another transport, through the public API alone:
//! a hand-rolled HTTP/1.1 client on `std::net::TcpStream` (chunked transfer coding read by hand)
//! against a server on 127.0.0.1, port 0. It is what a hyper, actix or wasm driver would do —
//! the crate's own `stream` and `http` layers use the same calls: `set_content_type`, `push` and
//! `next_event` per read, `end_input` and `finish` at the end, `fail` with a transport error,
//! `Error::status` for an error status, `push_whole_body` for a JSON answer, `stop` to abort.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;

use deltafold::framing::media_type;
use deltafold::{Assembler, Completion, Error, ErrorKind, Event};

const STREAM: &str = concat!(
    "data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n",
    "data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}]}\n\n",
    "data: {\"id\":\"c1\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
    "data: [DONE]\n\n",
);

/// Serves one connection: reads the request's head, then writes `response` as it is and closes.
fn serve(response: Vec<u8>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    thread::spawn(move || {
        let (mut socket, _) = listener.accept().unwrap();
        let mut head = BufReader::new(socket.try_clone().unwrap());
        let mut line = String::new();
        while head.read_line(&mut line).unwrap() > 2 {
            line.clear();
        }
        socket.write_all(&response).unwrap();
    });
    address
}

/// A response of `status` with `content_type`, its body in chunks of the chunked coding; the
/// last chunk and the trailer only if `ended`.
fn chunked(status: &str, content_type: &str, body: &str, piece: usize, ended: bool) -> Vec<u8> {
    let mut response = format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ntransfer-encoding: chunked\r\n\r\n"
    )
    .into_bytes();
    for chunk in body.as_bytes().chunks(piece) {
        response.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        response.extend_from_slice(chunk);
        response.extend_from_slice(b"\r\n");
    }
    if ended {
        response.extend_from_slice(b"0\r\n\r\n");
    }
    response
}

/// The next chunk of a chunked body; `Ok(None)` after the last one.
fn next_chunk(reader: &mut impl BufRead) -> std::io::Result<Option<Vec<u8>>> {
    let mut size = String::new();
    reader.read_line(&mut size)?;
    let size = usize::from_str_radix(size.trim(), 16)
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::UnexpectedEof))?;
    let mut chunk = vec![0; size + 2];
    reader.read_exact(&mut chunk)?;
    chunk.truncate(size);
    Ok((size > 0).then_some(chunk))
}

/// What the driver saw: the text of the live events, and the result.
struct Driven {
    live: String,
    result: Result<Completion, Error>,
}

/// The driver: requests `address`, checks the status, and assembles the body through the
/// public API, reading every event as it comes. `abort_after` stops after that many reads.
fn drive(address: &str, abort_after: Option<usize>) -> Driven {
    let mut socket = TcpStream::connect(address).unwrap();
    socket
        .write_all(b"POST /v1/chat/completions HTTP/1.1\r\nhost: local\r\n\r\n")
        .unwrap();
    let mut reader = BufReader::new(socket);
    let mut head = Vec::new();
    let mut line = String::new();
    while reader.read_line(&mut line).unwrap() > 2 {
        head.push(std::mem::take(&mut line));
    }
    let status: u16 = head[0].split(' ').nth(1).unwrap().parse().unwrap();
    let content_type = head
        .iter()
        .find_map(|line| line.strip_prefix("content-type: "))
        .map_or_else(String::new, media_type);
    let mut live = String::new();
    if !(200..300).contains(&status) {
        let mut body = Vec::new();
        while let Ok(Some(chunk)) = next_chunk(&mut reader) {
            body.extend(chunk);
        }
        let body = String::from_utf8_lossy(&body).into_owned();
        let result = Err(Error::status(status, body));
        return Driven { live, result };
    }
    let mut assembler = Assembler::new();
    if content_type == "application/json" {
        let mut body = Vec::new();
        while let Ok(Some(chunk)) = next_chunk(&mut reader) {
            body.extend(chunk);
        }
        assembler.push_whole_body(std::str::from_utf8(&body).unwrap());
        let result = assembler.finish();
        return Driven { live, result };
    }
    assembler.set_content_type(&content_type);
    let mut reads = 0;
    loop {
        if abort_after == Some(reads) {
            let result = Ok(assembler.stop("aborted"));
            return Driven { live, result };
        }
        match next_chunk(&mut reader) {
            Ok(Some(chunk)) => assembler.push(&chunk),
            Ok(None) => assembler.end_input(),
            Err(error) => assembler.fail(
                Error::new(
                    ErrorKind::Transport,
                    format!("reading the body failed: {error}"),
                )
                .with_source(error),
            ),
        }
        reads += 1;
        loop {
            match assembler.next_event() {
                Ok(Some(Event::TextDelta { text, .. })) => live.push_str(&text),
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(error) => {
                    let result = Err(error);
                    return Driven { live, result };
                }
            }
        }
        if assembler.is_done() {
            let result = assembler.finish();
            return Driven { live, result };
        }
    }
}

#[test]
fn a_chunked_event_stream_is_assembled_with_its_live_events() {
    let address = serve(chunked("200 OK", "text/event-stream", STREAM, 7, true));
    let driven = drive(&address, None);
    let message = driven.result.unwrap().into_message();
    assert_eq!(driven.live, "Hello");
    assert_eq!(message.text(), "Hello");
    assert_eq!(message.response_metadata.finish_reason, "stop");
}

#[test]
fn a_connection_lost_mid_stream_is_a_transport_error_with_the_partial() {
    let cut = &STREAM[..STREAM.find("lo\"").unwrap()];
    let address = serve(chunked("200 OK", "text/event-stream", cut, 16, false));
    let driven = drive(&address, None);
    let error = driven.result.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Transport);
    assert!(error.detail().starts_with("reading the body failed"));
    assert!(std::error::Error::source(&error).is_some());
    assert_eq!(error.location().map(|at| at.event), Some(1), "{error:?}");
    assert_eq!(error.partial().unwrap().message().unwrap().text(), "Hel");
    assert_eq!(driven.live, "Hel");
}

#[test]
fn an_error_status_is_a_status_error_with_the_providers_error() {
    let body = r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#;
    let address = serve(chunked(
        "429 Too Many Requests",
        "application/json",
        body,
        10,
        true,
    ));
    let error = drive(&address, None).result.unwrap_err();
    assert!(error.is_status());
    assert_eq!(error.status_code(), Some(429));
    assert_eq!(error.body(), Some(body));
    let provider = error.provider_error().unwrap();
    assert_eq!(provider.code.as_deref(), Some("rate_limit_exceeded"));
    assert_eq!(provider.message, "Rate limit reached");
}

#[test]
fn a_json_answer_is_taken_whole() {
    let body = "{\n \"id\": \"c2\",\n \"choices\": [{\"index\": 0, \"message\": {\"role\": \"assistant\", \"content\": \"Hi there\"}, \"finish_reason\": \"stop\"}]\n}";
    let address = serve(chunked(
        "200 OK",
        "application/json; charset=utf-8",
        body,
        9,
        true,
    ));
    let message = drive(&address, None).result.unwrap().into_message();
    assert_eq!(message.text(), "Hi there");
    assert_eq!(message.id.as_deref(), Some("c2"));
}

#[test]
fn an_abort_keeps_what_arrived_marked_incomplete() {
    let address = serve(chunked("200 OK", "text/event-stream", STREAM, 40, true));
    // Three reads: the first event and the start of the second.
    let driven = drive(&address, Some(3));
    let completion = driven.result.unwrap();
    assert!(!completion.complete);
    let message = completion.into_message();
    assert_eq!(driven.live, "Hel");
    assert_eq!(message.text(), "Hel");
    assert_eq!(
        message.response_metadata.incomplete.as_deref(),
        Some("aborted")
    );
}
