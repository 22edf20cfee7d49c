//! One focused test per framing rule of the SSE decoder.

use deltafold::framing::{FrameDecoder, FramingError, SseDecoder, DEFAULT_MAX_EVENT_BYTES};

#[path = "support/owned_frame.rs"]
mod owned_frame;

use owned_frame::Owned;

fn drain(decoder: &mut SseDecoder) -> Result<Vec<Owned>, FramingError> {
    let mut frames = Vec::new();
    while let Some(frame) = decoder.next_frame()? {
        frames.push(frame.into());
    }
    Ok(frames)
}

fn finish(decoder: &mut SseDecoder) -> Result<Vec<Owned>, FramingError> {
    let mut frames = Vec::new();
    while let Some(frame) = decoder.finish()? {
        frames.push(frame.into());
    }
    Ok(frames)
}

/// Every frame of the input pushed in the given pieces, including those flushed at the end.
fn decode_chunks(chunks: &[&[u8]]) -> Result<Vec<Owned>, FramingError> {
    let mut decoder = SseDecoder::new();
    let mut frames = Vec::new();
    for chunk in chunks {
        decoder.push(chunk);
        frames.extend(drain(&mut decoder)?);
    }
    frames.extend(finish(&mut decoder)?);
    Ok(frames)
}

fn decode(input: &[u8]) -> Vec<Owned> {
    decode_chunks(&[input]).expect("valid stream")
}

fn data(frames: &[Owned]) -> Vec<&str> {
    frames.iter().map(|frame| frame.data.as_str()).collect()
}

#[test]
fn lf_cr_and_crlf_all_end_lines() {
    assert_eq!(data(&decode(b"data: a\n\n")), ["a"]);
    assert_eq!(data(&decode(b"data: a\r\r")), ["a"]);
    assert_eq!(data(&decode(b"data: a\r\n\r\n")), ["a"]);
    assert_eq!(
        data(&decode(b"data: a\rdata: b\r\ndata: c\n\r\n")),
        ["a\nb\nc"]
    );
    assert!(decode(b"data: a\n\n").iter().all(|frame| frame.terminated));
}

#[test]
fn crlf_split_across_pushes_is_one_line_end() {
    let input = b"data: a\r\n\r\ndata: b\r\n\r\n";
    for split in 0..=input.len() {
        let (head, tail) = input.split_at(split);
        assert_eq!(
            data(&decode_chunks(&[head, tail]).unwrap()),
            ["a", "b"],
            "split at {split}"
        );
    }
    let mut decoder = SseDecoder::new();
    decoder.push(b"data: a\r\n\r");
    // A CR ends the line at once: the event is not held back waiting for a possible LF.
    assert_eq!(decoder.next_frame().unwrap().unwrap().data, "a");
    decoder.push(b"\n");
    assert_eq!(decoder.next_frame().unwrap(), None);
    decoder.push(b"\n");
    assert_eq!(decoder.next_frame().unwrap(), None);
    assert_eq!(decoder.counts().frames, 1);
    // After the split CRLF, a further LF is a real (empty) line.
    decoder.push(b"data: b\r");
    assert_eq!(decoder.next_frame().unwrap(), None);
    decoder.push(b"\n");
    assert_eq!(decoder.next_frame().unwrap(), None);
    decoder.push(b"\n");
    let frame = decoder.next_frame().unwrap().unwrap();
    assert_eq!((frame.data, frame.number), ("b", 2));
}

#[test]
fn bom_is_skipped_whole_or_split() {
    let input = b"\xEF\xBB\xBFdata: a\n\n";
    for split in 0..=4 {
        let (head, tail) = input.split_at(split);
        let frames = decode_chunks(&[head, tail]).unwrap();
        assert_eq!(data(&frames), ["a"], "split at {split}");
        assert_eq!(frames[0].offset, 3);
    }
    let frames = decode_chunks(&[b"\xEF", b"\xBB", b"\xBF", b"data: a\n\n"]).unwrap();
    assert_eq!(data(&frames), ["a"]);
}

#[test]
fn bom_only_at_the_start() {
    // Anywhere else a BOM is part of the field name, so the field is unknown.
    assert_eq!(decode(b"data: a\n\n\xEF\xBB\xBFdata: b\n\n").len(), 1);
    assert!(decode(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\n").is_empty());
    // A lone BOM prefix that turns out not to be one is ordinary (invalid) input.
    assert_eq!(
        decode_chunks(&[b"\xEF\xBB", b"data"]),
        Err(FramingError::InvalidUtf8 { offset: 0 })
    );
}

#[test]
fn comments_are_ignored_and_counted() {
    let mut decoder = SseDecoder::new();
    decoder.push(b": ping\n\n:\ndata: x\n: inside\n\n");
    let frames = drain(&mut decoder).unwrap();
    assert_eq!(data(&frames), ["x"]);
    assert_eq!(
        frames[0].offset, 10,
        "leading comments are not part of the event"
    );
    assert_eq!(decoder.comments(), 3);
}

#[test]
fn one_leading_space_of_a_value_is_removed() {
    assert_eq!(data(&decode(b"data:a\n\n")), ["a"]);
    assert_eq!(data(&decode(b"data: a\n\n")), ["a"]);
    assert_eq!(data(&decode(b"data:  a \n\n")), [" a "]);
    assert_eq!(data(&decode(b"data:\ta\n\n")), ["\ta"]);
    assert_eq!(data(&decode(b"data: a: b\n\n")), ["a: b"]);
}

#[test]
fn data_lines_are_joined_with_lf() {
    assert_eq!(data(&decode(b"data: a\ndata:\ndata: c\n\n")), ["a\n\nc"]);
    assert_eq!(
        data(&decode(b"data: YHOO\ndata: +2\ndata: 10\n\n")),
        ["YHOO\n+2\n10"]
    );
    let frames = decode(b"data: a\ndata: b\n\ndata: c\n\ndata: d\ndata: e\ndata: f\n\n");
    assert_eq!(data(&frames), ["a\nb", "c", "d\ne\nf"]);
}

#[test]
fn data_with_empty_value_dispatches_empty_string() {
    assert_eq!(data(&decode(b"data\n\n")), [""]);
    assert_eq!(data(&decode(b"data:\n\n")), [""]);
    assert_eq!(data(&decode(b"data: \n\n")), [""]);
    assert_eq!(data(&decode(b"data\ndata\n\n")), ["\n"]);
}

#[test]
fn event_type_is_per_event() {
    let frames = decode(b"event: add\ndata: 1\n\ndata: 2\n\nevent: a\nevent: b\ndata\n\n");
    let events: Vec<_> = frames.iter().map(|frame| frame.event.as_deref()).collect();
    assert_eq!(events, [Some("add"), None, Some("b")]);
    assert_eq!(decode(b"event:\ndata: x\n\n")[0].event, None);
}

#[test]
fn last_event_id_persists_across_events() {
    let frames =
        decode(b"data: a\n\nid: 1\ndata: b\n\ndata: c\n\nid\ndata: d\n\nid: 2\n\ndata: e\n\n");
    let ids: Vec<_> = frames.iter().map(|frame| frame.id.as_deref()).collect();
    assert_eq!(ids, [None, Some("1"), Some("1"), Some(""), Some("2")]);
}

#[test]
fn id_containing_nul_is_ignored() {
    let frames = decode(b"id: 1\ndata: a\n\nid: x\0y\ndata: b\n\n");
    let ids: Vec<_> = frames.iter().map(|frame| frame.id.as_deref()).collect();
    assert_eq!(ids, [Some("1"), Some("1")]);
}

#[test]
fn retry_takes_only_ascii_digits() {
    let frames = decode(b"retry: 3000\ndata: a\n\ndata: b\n\nretry: 10\nretry: x\ndata: c\n\n");
    let retries: Vec<_> = frames.iter().map(|frame| frame.retry).collect();
    assert_eq!(retries, [Some(3000), None, Some(10)]);
    for bad in [
        "3s",
        "-1",
        "+1",
        "",
        "1 ",
        "  1",
        "1.5",
        "99999999999999999999999",
    ] {
        let input = format!("retry:{bad}\ndata: a\n\n");
        assert_eq!(decode(input.as_bytes())[0].retry, None, "retry:{bad}");
    }
    assert_eq!(decode(b"retry:0\ndata\n\n")[0].retry, Some(0));
}

#[test]
fn unknown_fields_are_ignored() {
    let frames = decode(b"foo: bar\ndata: a\nDATA: b\ndata : c\nbare\n\n");
    assert_eq!(data(&frames), ["a"]);
    assert_eq!(
        (frames[0].event.as_deref(), frames[0].id.as_deref()),
        (None, None)
    );
    assert!(decode(b"foo: bar\n\n").is_empty());
}

#[test]
fn empty_data_dispatches_nothing_but_resets_event_type() {
    let frames = decode(b"event: x\nid: 7\nretry: 5\n\n\n\ndata: a\n\n");
    assert_eq!(frames.len(), 1);
    let frame = &frames[0];
    assert_eq!(frame.number, 1);
    assert_eq!(frame.event, None);
    assert_eq!(frame.retry, None);
    assert_eq!(frame.id.as_deref(), Some("7"));
}

#[test]
fn finish_after_a_terminated_event_returns_nothing() {
    let mut decoder = SseDecoder::new();
    decoder.push(b"data: a\n\n");
    assert_eq!(drain(&mut decoder).unwrap().len(), 1);
    assert_eq!(decoder.finish().unwrap(), None);
    assert_eq!(decoder.finish().unwrap(), None);
    assert_eq!(decoder.next_frame().unwrap(), None);
}

#[test]
fn finish_flushes_the_unterminated_event() {
    for input in [&b"data: a\n"[..], b"data: a", b"data: a\r", b"data: a\r\n"] {
        let mut decoder = SseDecoder::new();
        decoder.push(input);
        assert_eq!(decoder.next_frame().unwrap(), None);
        let frame = decoder.finish().unwrap().expect("pending event");
        assert_eq!(
            (frame.data, frame.terminated, frame.number),
            ("a", false, 1)
        );
        assert_eq!(decoder.finish().unwrap(), None);
        assert_eq!(decoder.next_frame().unwrap(), None);
        assert_eq!(decoder.counts().bytes_consumed, input.len() as u64);
    }
    assert_eq!(data(&decode(b"data: a\ndata: b")), ["a\nb"]);
    assert!(decode(b"").is_empty());
    assert!(decode(b"id: 5").is_empty());
    assert!(decode(b"data: a\n\n: trailing comment")
        .iter()
        .all(|frame| frame.terminated));
}

#[test]
fn finish_drains_buffered_events_first() {
    let mut decoder = SseDecoder::new();
    decoder.push(b"data: a\n\ndata: b");
    let frames = finish(&mut decoder).unwrap();
    let summary: Vec<_> = frames
        .iter()
        .map(|frame| (frame.data.as_str(), frame.terminated))
        .collect();
    assert_eq!(summary, [("a", true), ("b", false)]);
}

#[test]
fn push_after_finish_is_ignored() {
    let mut decoder = SseDecoder::new();
    decoder.push(b"data: a");
    assert!(decoder.finish().unwrap().is_some());
    decoder.push(b"\n\ndata: b\n\n");
    assert_eq!(decoder.next_frame().unwrap(), None);
    assert_eq!(decoder.counts().bytes_pushed, 18);
    assert_eq!(decoder.counts().bytes_consumed, 7);
}

#[test]
fn offsets_numbers_and_counters() {
    let input = b": c\n\ndata: a\n\nid: 1\ndata: b\r\n\r\n";
    let mut decoder = SseDecoder::new();
    decoder.push(&input[..18]);
    assert_eq!(decoder.counts().bytes_pushed, 18);
    assert_eq!(decoder.counts().bytes_consumed, 0);
    let first: Owned = decoder.next_frame().unwrap().unwrap().into();
    assert_eq!((first.number, first.offset), (1, 5));
    assert_eq!(decoder.next_frame().unwrap(), None);
    assert_eq!(
        decoder.counts().bytes_consumed,
        14,
        "a partial line is not consumed"
    );
    decoder.push(&input[18..]);
    let second: Owned = decoder.next_frame().unwrap().unwrap().into();
    assert_eq!((second.number, second.offset), (2, 14));
    assert_eq!(decoder.counts().bytes_consumed, input.len() as u64);
    assert_eq!(decoder.counts().bytes_pushed, input.len() as u64);
    assert_eq!(decoder.counts().frames, 2);
    assert_eq!(decoder.comments(), 1);
}

#[test]
fn invalid_utf8_is_reported_before_the_line_ends() {
    let mut decoder = SseDecoder::new();
    decoder.push(b"data: ok\n\ndata: ab\xFF and more");
    // Events that ended before the bad byte still come out.
    assert_eq!(decoder.next_frame().unwrap().unwrap().data, "ok");
    assert_eq!(
        decoder.next_frame(),
        Err(FramingError::InvalidUtf8 { offset: 18 })
    );
}

#[test]
fn utf8_split_across_pushes_is_accepted() {
    let mut decoder = SseDecoder::new();
    decoder.push(b"data: \xE2\x82");
    assert_eq!(decoder.next_frame().unwrap(), None);
    decoder.push(b"\xAC\n\n");
    assert_eq!(decoder.next_frame().unwrap().unwrap().data, "\u{20AC}");
}

#[test]
fn invalid_utf8_offset_is_the_start_of_the_bad_sequence() {
    assert_eq!(
        decode_chunks(&[b"data: \xE2\x82", b"A\n\n"]),
        Err(FramingError::InvalidUtf8 { offset: 6 })
    );
    assert_eq!(
        decode_chunks(&[b"data: x\xED\xA0\x80\n\n"]),
        Err(FramingError::InvalidUtf8 { offset: 7 }),
        "surrogate"
    );
    assert_eq!(
        decode_chunks(&[b"data: a\r", b"\xFF"]),
        Err(FramingError::InvalidUtf8 { offset: 8 })
    );
}

#[test]
fn incomplete_utf8_at_finish_is_an_error() {
    let mut decoder = SseDecoder::new();
    decoder.push(b"data: a\xE2\x82");
    assert_eq!(decoder.next_frame().unwrap(), None);
    assert_eq!(
        decoder.finish(),
        Err(FramingError::InvalidUtf8 { offset: 7 })
    );
}

#[test]
fn decoder_is_poisoned_after_an_error() {
    let mut decoder = SseDecoder::new();
    decoder.push(b"data: \xFF\n\n");
    let error = FramingError::InvalidUtf8 { offset: 6 };
    assert_eq!(decoder.next_frame(), Err(error.clone()));
    decoder.push(b"data: fine\n\n");
    for _ in 0..3 {
        assert_eq!(decoder.next_frame(), Err(error.clone()));
        assert_eq!(decoder.finish(), Err(error.clone()));
    }
    assert_eq!(decoder.counts().buffered_bytes, 0);
    assert_eq!(decoder.counts().frames, 0);
}

#[test]
fn endless_line_fails_fast_in_bounded_memory() {
    const PIECE: usize = 64 * 1024;
    const GIB: usize = 1024 * 1024 * 1024;
    let max = DEFAULT_MAX_EVENT_BYTES;
    let mut decoder = SseDecoder::new();
    let mut piece = vec![b'a'; PIECE];
    piece[..6].copy_from_slice(b"data: ");
    let mut pushed = 0;
    let error = loop {
        assert!(pushed < GIB, "no error after 1 GiB");
        decoder.push(&piece);
        piece[..6].fill(b'a');
        pushed += PIECE;
        match decoder.next_frame() {
            Ok(frame) => assert_eq!(frame, None),
            Err(error) => break error,
        }
        assert!(decoder.counts().buffered_bytes <= max + PIECE);
    };
    assert_eq!(error, FramingError::EventTooLarge { offset: 0, max });
    assert!(
        pushed > max && pushed <= max + PIECE,
        "failed after {pushed} bytes"
    );
    assert_eq!(decoder.counts().buffered_bytes, 0);
    decoder.push(&piece);
    assert_eq!(decoder.counts().buffered_bytes, 0);
    assert_eq!(decoder.next_frame(), Err(error));
}

#[test]
fn event_size_counts_all_its_lines_from_the_first() {
    // "data: abcd" is 10 bytes: the limit is inclusive.
    let mut decoder = SseDecoder::with_max_event_bytes(10);
    decoder.push(b"data: abcd\n\n");
    assert_eq!(decoder.next_frame().unwrap().unwrap().data, "abcd");
    let mut decoder = SseDecoder::with_max_event_bytes(9);
    decoder.push(b"data: abcd\n\n");
    assert_eq!(
        decoder.next_frame(),
        Err(FramingError::EventTooLarge { offset: 0, max: 9 })
    );
    // Each line is short, the event is not.
    let mut decoder = SseDecoder::with_max_event_bytes(20);
    decoder.push(b"data: 0\n\nid: 1\ndata: 0123456789\n\n");
    assert!(decoder.next_frame().unwrap().is_some());
    assert_eq!(
        decoder.next_frame(),
        Err(FramingError::EventTooLarge { offset: 9, max: 20 })
    );
}

#[test]
fn comments_between_events_are_not_part_of_an_event() {
    let mut decoder = SseDecoder::with_max_event_bytes(20);
    decoder.push(b": 345678901234567890\ndata: 0123456789\n\n: again 9012345678\n\n");
    assert_eq!(decoder.next_frame().unwrap().unwrap().offset, 21);
    assert_eq!(decoder.next_frame().unwrap(), None);
    assert_eq!(decoder.comments(), 2);
}

#[test]
fn one_huge_comment_line_counts_against_the_limit() {
    let mut decoder = SseDecoder::with_max_event_bytes(100);
    decoder.push(b"data: a\n\n: ");
    assert!(decoder.next_frame().unwrap().is_some());
    for _ in 0..10 {
        decoder.push(&[b'x'; 32]);
        if let Err(error) = decoder.next_frame() {
            assert_eq!(
                error,
                FramingError::EventTooLarge {
                    offset: 9,
                    max: 100
                }
            );
            return;
        }
    }
    panic!("a 300-byte comment line passed a 100-byte limit");
}

#[test]
fn default_and_debug() {
    let debug = format!("{:?}", SseDecoder::default());
    assert!(debug.contains(&format!("max_event_bytes: {DEFAULT_MAX_EVENT_BYTES}")));
    let mut decoder = SseDecoder::new();
    decoder.push(b"data: secret\n");
    assert!(!format!("{decoder:?}").contains("secret"));
}
