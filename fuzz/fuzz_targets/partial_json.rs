//! The incremental partial-JSON scanner on arbitrary text:
//! - against `serde_json` on the whole text: same value, or both reject (the scanner may call
//!   complete what `serde_json` refuses only for nesting deeper than 128 or a number beyond
//!   `f64`);
//! - against a from-scratch scan of every prefix: fed in pieces, it reports the same status and
//!   the same completion as a new scanner given the prefix at once;
//! - each completion is valid JSON and extends the one before it.
#![no_main]

use deltafold::assemble::{PartialJson, ScanStatus};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// Where `serde_json` refuses valid JSON: nesting past its recursion limit, or a number that
/// does not fit an `f64`.
fn serde_json_limit(error: &serde_json::Error) -> bool {
    let message = error.to_string();
    message.contains("recursion limit") || message.contains("number out of range")
}

fn parse(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str(text)
}

/// Whether `new` shows at least what `old` showed: equal scalars, a string that grew, an array
/// or object that kept its entries (each extended) and maybe gained more.
fn extends(old: &Value, new: &Value) -> bool {
    match (old, new) {
        (Value::String(old), Value::String(new)) => new.starts_with(old.as_str()),
        (Value::Array(old), Value::Array(new)) => {
            new.len() >= old.len() && old.iter().zip(new).all(|(old, new)| extends(old, new))
        }
        (Value::Object(old), Value::Object(new)) => old
            .iter()
            .all(|(key, old)| new.get(key).is_some_and(|new| extends(old, new))),
        _ => old == new,
    }
}

/// Whether some object in the JSON text repeats a key: `serde_json` keeps the last value, so
/// a later duplicate may legitimately replace what an earlier view showed.
fn has_duplicate_keys(text: &str) -> bool {
    use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
    use std::collections::HashSet;

    struct Walk;
    impl<'de> Visitor<'de> for Walk {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_str<E>(self, _: &str) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_unit<E>(self) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
            let mut found = false;
            while let Some(inner) = seq.next_element_seed(WalkSeed)? {
                found |= inner;
            }
            Ok(found)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            let mut keys = HashSet::new();
            let mut found = false;
            while let Some(key) = map.next_key::<String>()? {
                found |= !keys.insert(key);
                found |= map.next_value_seed(WalkSeed)?;
            }
            Ok(found)
        }
    }
    struct WalkSeed;
    impl<'de> serde::de::DeserializeSeed<'de> for WalkSeed {
        type Value = bool;
        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
            deserializer.deserialize_any(Walk)
        }
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    deserializer.deserialize_any(Walk).unwrap_or(false)
}

fn check_against_serde_json(text: &str, scanned: &PartialJson) {
    let status = scanned.status();
    match parse(text) {
        Ok(value) => {
            assert_eq!(status, ScanStatus::Complete, "serde_json accepts {text:?}");
            assert_eq!(scanned.final_value(), Some(value), "{text:?}");
        }
        Err(error) if serde_json_limit(&error) => {}
        Err(error) => assert_ne!(
            status,
            ScanStatus::Complete,
            "serde_json rejects {text:?}: {error}"
        ),
    }
    if let ScanStatus::Invalid { offset } = status {
        // The offending byte is the first one: everything before it is still a prefix.
        let before = from_scratch(&text[..floor_char_boundary(text, offset)]);
        assert!(
            !matches!(before.status(), ScanStatus::Invalid { .. }),
            "{text:?}: invalid at {offset}, but the text before it is invalid too"
        );
    }
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn from_scratch(prefix: &str) -> PartialJson {
    let mut scanner = PartialJson::new();
    scanner.push_str(prefix);
    scanner
}

/// Views of the text as it stands, compared between the incremental scanner and a new one.
fn view(scanner: &PartialJson) -> (ScanStatus, Option<String>, Option<String>) {
    (
        scanner.status(),
        scanner.completion().map(|c| c.to_string()),
        scanner.final_completion().map(|c| c.to_string()),
    )
}

fuzz_target!(|input: &[u8]| {
    let text = String::from_utf8_lossy(input);
    let text = text.as_ref();
    // Character by character: every prefix a fragment boundary could produce.
    let pieces: Vec<&str> = text
        .char_indices()
        .map(|(at, c)| &text[at..at + c.len_utf8()])
        .collect();
    // Comparing every prefix with a fresh scan is quadratic: do it for short texts, and at
    // about 64 places in long ones.
    let every = (pieces.len() / 64).max(1);

    let mut scanner = PartialJson::new();
    let mut shown: Option<Value> = None;
    let mut invalid = false;
    for (position, piece) in pieces.iter().enumerate() {
        scanner.push_str(piece);
        let prefix = scanner.as_str();
        if position % every == 0 || position + 1 == pieces.len() {
            assert_eq!(
                view(&scanner),
                view(&from_scratch(prefix)),
                "at {} bytes",
                prefix.len()
            );
        }
        let completion = scanner.completion();
        if invalid {
            assert!(
                completion.is_none(),
                "a completion after the text became invalid"
            );
            continue;
        }
        invalid = matches!(scanner.status(), ScanStatus::Invalid { .. });
        let Some(completion) = completion else {
            continue;
        };
        assert!(prefix.starts_with(completion.prefix()));
        let completed = completion.to_string();
        let value = match parse(&completed) {
            Ok(value) => value,
            Err(error) if serde_json_limit(&error) => continue,
            Err(error) => panic!("completion {completed:?} of {prefix:?} is not JSON: {error}"),
        };
        if let Some(before) = &shown {
            assert!(
                extends(before, &value) || has_duplicate_keys(&completed),
                "{before} then {value}: the view of {prefix:?} lost what was shown"
            );
        }
        shown = Some(value);
    }
    check_against_serde_json(text, &scanner);
});
