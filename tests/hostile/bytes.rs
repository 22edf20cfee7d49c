//! Bytes that are not text: invalid UTF-8 is reported at the exact offset of the first bad byte,
//! however the input was cut, and lenient mode does not paper over it.

use deltafold::Options;

use crate::{event, every_cut, expect_error, first_text, lenient, partial, text};

#[test]
fn invalid_utf8_is_reported_at_its_exact_offset() {
    let good = event(&text("Hel"));
    let cases: [(&[u8], &[u8], usize); 7] = [
        // (before the bad bytes, the bad bytes and after, offset of the bad byte within)
        (
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a",
            b"\xFFb\"}}]}\n\n",
            0,
        ),
        (
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a",
            b"\xC0\xAF\"}}]}\n\n",
            0,
        ),
        (
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a",
            b"\xED\xA0\x80\"}}]}\n\n",
            0,
        ),
        (
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\xC3\xA9",
            b"\xE2\x82A\"}}]}\n\n",
            0,
        ),
        (b": comment ", b"\xFE\n\n", 0),
        (b"event: ", b"\x80\ndata: {}\n\n", 0),
        // A sequence cut off by the end of the stream.
        (
            b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"",
            b"\xF0\x9F\x98",
            0,
        ),
    ];
    for (before, bad, within) in cases {
        let mut body = good.as_bytes().to_vec();
        body.extend_from_slice(before);
        let offset = body.len() + within;
        body.extend_from_slice(bad);
        for run in every_cut(&body, Options::new()) {
            let error = expect_error(run.result);
            assert!(error.is_invalid_utf8(), "{error}");
            assert_eq!(
                error.location().map(|location| location.offset),
                Some(offset as u64),
                "{}",
                String::from_utf8_lossy(&body)
            );
            assert_eq!(first_text(partial(&error)), "Hel");
        }
        // Lenient mode does not paper over bytes that are not text.
        assert!(expect_error(lenient(&body)).is_invalid_utf8());
    }
}
