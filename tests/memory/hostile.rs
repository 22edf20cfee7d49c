//! The hostile generator of the fuzz target `hostile` (`benches/support/hostile.rs`) under
//! proptest, with the same oracles, so every run checks a few random large hostile streams;
//! and every class of issue 11 at 512 KiB, each within its bound ([`Class::peak_per_input`]: four
//! times its input for all but the three the message model makes larger).

use proptest::prelude::*;
use proptest::test_runner::RngSeed;

use deltafold::encode::Target;

use crate::counting::measure;
use crate::encoders::reencode;
use crate::support::hostile::{Case, Class, Cost, PEAK_CONSTANT, PEAK_PER_INPUT};
use crate::MIB;

/// Reads a case both ways — in one read, and pushed in reads with every event read, as a live
/// display reads it — and runs the oracles on each; both must come to the same outcome. The
/// same reads are re-encoded into a target the case picks, under the same oracles.
fn check(case: &Case) -> Result<(), String> {
    let (assembled, heap) = measure(|| deltafold::assemble(&case.bytes, case.options()));
    case.check(&assembled, cost(heap))
        .map_err(|failure| format!("in one read: {failure}"))?;
    let (pushed, heap) = measure(|| pushed_with_events(case));
    case.check(&pushed, cost(heap))
        .map_err(|failure| format!("pushed, every event read: {failure}"))?;
    let target = Target::ALL[case.bytes.len() % Target::ALL.len()];
    let ((reencoded, _), heap) = measure(|| reencode(&case.bytes, case.options(), target));
    case.check(&reencoded, cost(heap))
        .map_err(|failure| format!("re-encoded into {target}: {failure}"))?;
    let [assembled, pushed] = [assembled, pushed].map(|outcome| match outcome {
        Ok(completion) => serde_json::to_string(&completion).unwrap(),
        Err(error) => format!("{:?} {error} at {:?}", error.kind(), error.location()),
    });
    if assembled != pushed {
        return Err(format!(
            "pushed, every event read, it came to {pushed}, not {assembled}"
        ));
    }
    Ok(())
}

/// Reads of 16 KiB pushed one after another, every event read (and dropped) after each.
fn pushed_with_events(case: &Case) -> Result<deltafold::Completion, deltafold::Error> {
    let mut assembler = deltafold::Assembler::with_options(case.options());
    for read in case.bytes.chunks(16 * 1024) {
        assembler.push(read);
        while assembler.next_event()?.is_some() {}
    }
    assembler.end_input();
    while assembler.next_event()?.is_some() {}
    assembler.finish()
}

fn cost(heap: crate::counting::HeapUse) -> Cost {
    Cost {
        peak: heap.peak,
        allocated: heap.allocated,
    }
}

#[test]
fn every_class_holds_at_most_a_few_times_its_input() {
    let mut failures = Vec::new();
    for class in Class::ALL {
        for limited in [None, Some(MIB / 4)] {
            let case = class.case(MIB / 2, class.default_width().min(16 * 1024), limited);
            if let Err(failure) = check(&case) {
                failures.push(format!("{} ({limited:?}): {failure}", class.name()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "over their bound (mostly {PEAK_PER_INPUT} × input) + {PEAK_CONSTANT}:\n{}",
        failures.join("\n")
    );
}

/// The generator's cases: the same 32 on every run, so that a test run says the same thing
/// twice; `DELTAFOLD_HOSTILE_SEARCH=1` searches new ones (`PROPTEST_CASES` of them, 256 by
/// default; `PROPTEST_RNG_SEED` repeats a search). The bounds are within a few percent of what
/// some mixes of classes take, and searches have kept finding near misses (docs/bad-input.md,
/// "The generator's searches"): a random 32 once failed about one run in twenty, which is no
/// test.
fn generator_config() -> ProptestConfig {
    let config = ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    if std::env::var_os("DELTAFOLD_HOSTILE_SEARCH").is_some() {
        return config;
    }
    ProptestConfig {
        cases: 32,
        rng_seed: RngSeed::Fixed(0x6465_6c74_6166_6f6c),
        ..config
    }
}

proptest! {
    #![proptest_config(generator_config())]

    // Its findings are fixed: usage maps copied into every choice (kept below), the provider's
    // usage object held as parsed values (32 × its input; now as text), many empty choices
    // under a small limit (a choice is now charged its fixed overhead), text runs held behind
    // a call written as whole items at once, and 128 choices at a few KB; the seeds it found
    // are kept below as plain cases.
    #[test]
    fn generated_hostile_streams_stay_within_the_oracles(seed in prop::collection::vec(any::<u8>(), 0..48)) {
        let case = Case::from_bytes(&seed, MIB / 4);
        if let Err(failure) = check(&case) {
            return Err(TestCaseError::fail(format!(
                "{failure}\nclasses {:?}, forced {:?}, max_message_bytes {:?}, {} bytes",
                case.classes, case.forced, case.max_message_bytes, case.bytes.len()
            )));
        }
    }
}

/// Seeds the proptest above failed on once parsed trees got the response's shared room (a dense
/// class mixed with calls without ids, or with Gemini usage keys): kept as plain cases.
const FOUND_SEEDS: [&[u8]; 6] = [
    &[2, 2, 142, 0, 0, 1, 13, 74, 92],
    &[
        233, 50, 20, 0, 26, 0, 0, 1, 117, 219, 6, 57, 212, 1, 198, 220, 0, 3, 0, 5, 0, 0,
    ],
    &[
        146, 63, 18, 0, 0, 25, 103, 7, 6, 145, 39, 120, 232, 139, 229, 16, 73, 142,
    ],
    &[104, 11, 74, 0, 0, 1, 189, 26, 0, 9],
    &[224, 11, 232, 0, 0, 41, 67, 0, 0, 9, 142, 19, 108, 73],
    &[10, 86, 38, 0, 0, 1, 31, 0, 0, 1, 13, 5, 0],
];

#[test]
fn seeds_the_generator_found_stay_within_the_oracles() {
    let failures: Vec<String> = FOUND_SEEDS
        .iter()
        .filter_map(|seed| {
            let case = Case::from_bytes(seed, MIB / 4);
            check(&case).err().map(|failure| {
                format!(
                    "{seed:?}: {failure}; classes {:?}, max_message_bytes {:?}",
                    case.classes, case.max_message_bytes
                )
            })
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The open finding of the generator, found again by hand: a raw usage map of new keys in every
/// chunk, in a response of 16 choices, used to be copied into every choice's message (130 ×
/// its input held); now the counts are, and the map is held once.
#[test]
fn usage_keys_across_many_choices_are_held_once() {
    let mut out = String::new();
    Class::ChatUsageKeys.header(&mut out, 100);
    let mut event = 0;
    for _ in 0..8 {
        for (class, width) in [(Class::ChatUsageKeys, 100), (Class::CallsWithoutIds, 1)] {
            for _ in 0..200 {
                class.event(&mut out, event, width);
                event += 1;
            }
        }
    }
    Class::ChatUsageKeys.footer(&mut out);
    let (outcome, heap) =
        measure(|| deltafold::assemble(out.as_bytes(), deltafold::Options::new()));
    let completion = outcome.unwrap();
    assert_eq!(completion.choices.len(), 16);
    let with_raw = completion
        .choices
        .iter()
        .filter(|choice| {
            choice
                .message
                .usage
                .as_ref()
                .is_some_and(|usage| usage.raw.is_some())
        })
        .count();
    assert_eq!(with_raw, 1);
    // The calls without ids bound it, the map no longer does (4.1 × in all).
    let per_input = Class::CallsWithoutIds.peak_per_input();
    assert!(
        heap.peak <= per_input * out.len(),
        "peak {} for {} bytes of input (bound {per_input} ×)",
        heap.peak,
        out.len()
    );
}

/// Asserts a peak within the bound of an input of `input` bytes alone, without the allowance
/// for parsing an event.
fn assert_within_input_bound(peak: usize, input: usize) {
    let bound = PEAK_PER_INPUT * input + PEAK_CONSTANT;
    assert!(
        peak <= bound,
        "peak {peak} for {input} bytes (bound {bound})"
    );
}

/// The generator's finding of this round: a chunk whose logprobs list held 41,000 empty entries
/// (123 KB) was parsed whole into values, 5.38 MB while it was read (43.7 × the event, 32 × is
/// allowed); its entries are now read one at a time.
#[test]
fn a_long_logprobs_list_is_read_entry_by_entry() {
    // Just past a power of two, where a growing list's spare half is largest: within the bound
    // of the input alone, without the allowance for parsing an event.
    let mut stream = String::new();
    Class::EmptyLogprobs.header(&mut stream, 1);
    Class::EmptyLogprobs.event(&mut stream, 0, (1 << 15) + 1);
    Class::EmptyLogprobs.footer(&mut stream);
    let (outcome, heap) =
        measure(|| deltafold::assemble(stream.as_bytes(), deltafold::Options::new()));
    let message = outcome.unwrap().into_message();
    let entries = message
        .response_metadata
        .logprobs
        .and_then(|l| l.get("content"));
    assert_eq!(
        entries.and_then(|list| list.as_array().map(Vec::len)),
        Some((1 << 15) + 1)
    );
    assert_within_input_bound(heap.peak, stream.len());
}

/// Log probabilities whose keys never repeat, 100 new ones an event: each key is held once as
/// its text, found through an index rather than a scan of those before it (a scan made 1 MB of
/// such keys in one chunk take 15 s), and all come back in the order sent.
#[test]
fn logprobs_keys_that_never_repeat_are_held_once() {
    const EVENTS: usize = 500;
    const KEYS: usize = 100;
    let mut stream = String::new();
    Class::EmptyLogprobs.header(&mut stream, 1);
    for event in 0..EVENTS {
        stream
            .push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":{\"content\":[]");
        for key in 0..KEYS {
            stream.push_str(&format!(",\"k{event}_{key}\":[1]"));
        }
        stream.push_str("}}]}\n\n");
    }
    Class::EmptyLogprobs.footer(&mut stream);
    let (outcome, heap) =
        measure(|| deltafold::assemble(stream.as_bytes(), deltafold::Options::new()));
    let logprobs = outcome.unwrap().into_message().response_metadata.logprobs;
    let logprobs = logprobs.expect("log probabilities were sent");
    assert_eq!(logprobs.keys().count(), 1 + EVENTS * KEYS);
    assert_eq!(logprobs.keys().last(), Some("k499_99"));
    assert_eq!(logprobs.get("k250_50"), Some(serde_json::json!([1])));
    assert_within_input_bound(heap.peak, stream.len());
}

/// A chat stream over `choices` choices whose chunks carry 100 top-level fields of new keys.
fn response_fields_over_choices(choices: usize) -> String {
    let mut stream = String::new();
    for event in 0..200 {
        stream.push_str(&format!(
            "data: {{\"choices\":[{{\"index\":{},\"delta\":{{\"content\":\"a\"}}}}]",
            event % choices
        ));
        for key in 0..100 {
            stream.push_str(&format!(",\"k{event}_{key}\":1"));
        }
        stream.push_str("}\n\n");
    }
    Class::EmptyLogprobs.footer(&mut stream);
    stream
}

/// The response's other top-level fields are held once, on the first choice's message, however
/// many choices there are: copied into every message, 240 KB of new keys over 128 choices held
/// 436 MB.
#[test]
fn response_fields_of_new_keys_are_held_once_over_many_choices() {
    let [one, many] = [1, 128].map(|choices| {
        let stream = response_fields_over_choices(choices);
        let (outcome, heap) =
            measure(|| deltafold::assemble(stream.as_bytes(), deltafold::Options::new()));
        let completion = outcome.unwrap();
        assert_eq!(completion.choices.len(), choices);
        let extra = &completion.choices[0].message.response_metadata.extra;
        assert_eq!(extra.len(), 200 * 100);
        assert!(completion.choices[1..].iter().all(|choice| choice
            .message
            .response_metadata
            .extra
            .is_empty()));
        heap.peak
    });
    assert!(
        many < 2 * one,
        "peak {many} over 128 choices, {one} over one"
    );
}
