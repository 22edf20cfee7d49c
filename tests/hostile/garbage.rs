//! Garbage: random bytes, a soup of the tokens the decoder and the dialects care about, and
//! damaged fixtures of every dialect end in `Ok` or a typed error carrying the partial result,
//! and the live text deltas add up to the message.

use crate::replay::fixture::{self, OTHER_DIALECT_DIRS};
use deltafold::{Event, Options};
use proptest::prelude::*;

use crate::{assert_typed, reached, run, Run};

/// Each event's deltas add up to what the partial or final message shows.
fn assert_events_match(run: &Run) {
    if let Err(error) = &run.result {
        assert_typed(error);
    }
    let completion = reached(&run.result);
    for choice in &completion.choices {
        let streamed: String = run
            .events
            .iter()
            .filter_map(|event| match event {
                Event::TextDelta { choice: c, text } if *c == choice.index => Some(text.as_ref()),
                _ => None,
            })
            .collect();
        assert_eq!(choice.message.text(), streamed);
    }
}

/// Byte soup made of the tokens the decoder and the dialect care about.
fn soup() -> impl Strategy<Value = Vec<u8>> {
    const TOKENS: &[&[u8]] = &[
        b"data: ",
        b"data: ",
        b"event: error\n",
        b": keep-alive\n",
        b"\n",
        b"\n\n",
        b"\r\n",
        b"\r",
        b"{",
        b"}",
        b"[",
        b"]",
        b",",
        b":",
        b"\"",
        b"\\",
        b"\\u00e9",
        b"\\ud83d",
        b"0",
        b"-1",
        b"1e400",
        b"null",
        b"[DONE]",
        b"\"choices\":[{\"index\":0,\"delta\":{",
        b"\"content\":\"hi\"",
        b"\"reasoning_content\":\"hm\"",
        b"\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":",
        b"\"finish_reason\":\"stop\"",
        b"\"usage\":{\"prompt_tokens\":",
        b"\"error\":{\"message\":\"boom\"}",
        "é€😀".as_bytes(),
        b"\xFF",
        b"\xE2\x82",
        b"\xEF\xBB\xBF",
    ];
    prop::collection::vec(prop::sample::select(TOKENS), 0..40).prop_map(|tokens| tokens.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_bytes_give_ok_or_a_typed_error(
        bytes in prop::collection::vec(any::<u8>(), 0..512),
        lenient in any::<bool>(),
    ) {
        let options = Options::new().lenient(lenient);
        assert_events_match(&run([&bytes[..]], options.clone()));
        assert_events_match(&run(bytes.chunks(5), options));
    }

    #[test]
    fn token_soup_gives_ok_or_a_typed_error(bytes in soup(), lenient in any::<bool>()) {
        let options = Options::new().lenient(lenient).max_event_bytes(64).max_tool_calls(2);
        assert_events_match(&run([&bytes[..]], options.clone()));
        assert_events_match(&run(bytes.chunks(2), options));
    }
}

/// Every dialect fixture, read once.
fn fixture_bodies() -> &'static [Vec<u8>] {
    static BODIES: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    BODIES.get_or_init(|| {
        OTHER_DIALECT_DIRS
            .iter()
            .flat_map(|dir| fixture::discover(dir))
            .map(|fixture| std::fs::read(fixture.stream).unwrap())
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Damaged streams of every dialect (bytes overwritten, a cut, a splice of two fixtures)
    /// never panic, and an error always carries the partial result.
    #[test]
    fn damaged_dialect_streams_fail_cleanly(
        pick in any::<prop::sample::Index>(),
        other in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        cut in any::<prop::sample::Index>(),
        splice in any::<bool>(),
        lenient in any::<bool>(),
    ) {
        let bodies = fixture_bodies();
        let mut body = bodies[pick.index(bodies.len())].clone();
        if splice {
            let other = &bodies[other.index(bodies.len())];
            body.extend_from_slice(&other[other.len() / 2..]);
        }
        for (at, byte) in &edits {
            let at = at.index(body.len());
            body[at] = *byte;
        }
        body.truncate(cut.index(body.len() + 1));
        match deltafold::assemble(&body, Options::new().lenient(lenient)) {
            Ok(completion) => prop_assert!(completion.complete || lenient),
            Err(error) => prop_assert!(error.partial().is_some(), "{}", error),
        }
    }
}
