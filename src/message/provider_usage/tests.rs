//! Tests of `ProviderUsage`: the merge rules, what is held, and the parsed and serialised forms.

use proptest::prelude::*;
use serde_json::json;

use super::*;

fn merged(reports: &[&str]) -> ProviderUsage {
    let mut usage = ProviderUsage::default();
    for report in reports {
        let members = object_members(report).unwrap();
        usage.merge(
            members
                .iter()
                .map(|(key, value)| (key.as_ref(), UsageValue::Json(value))),
        );
    }
    usage
}

#[test]
fn an_object_replaced_by_a_value_and_made_again_starts_empty() {
    let usage = merged(&[
        r#"{"a":{"x":1,"y":{"z":2}},"b":1}"#,
        r#"{"a":7}"#,
        r#"{"a":{"w":3}}"#,
    ]);
    assert_eq!(
        Value::Object(usage.to_map()),
        json!({"a": {"w": 3}, "b": 1})
    );
    assert_eq!(usage.get("a"), Some(json!({"w": 3})));
}

#[test]
fn a_number_serde_json_cannot_hold_is_kept_as_its_text() {
    let usage = merged(&[r#"{"a":1e999,"b":[1,1e999],"c":"e","d":true,"e":2.5e3}"#]);
    let text = serde_json::to_string(&usage).unwrap();
    let parsed: Value = serde_json::from_str(&text).unwrap();
    // With serde_json's `arbitrary_precision` (the CLI's build) every number is held as sent.
    #[cfg(feature = "arbitrary_precision")]
    let expected: Value =
        serde_json::from_str(r#"{"a":1e999,"b":[1,1e999],"c":"e","d":true,"e":2.5e3}"#).unwrap();
    #[cfg(not(feature = "arbitrary_precision"))]
    let expected = json!({"a": "1e999", "b": "[1,1e999]", "c": "e", "d": true, "e": 2500.0});
    assert_eq!(parsed, expected);
}

#[test]
fn keys_with_escapes_and_nested_members_round_trip() {
    let usage = merged(&[
        r#"{"k\u00e9y":1,"details":{"cached":2}}"#,
        r#"{"details":{"audio":3},"k\u00e9y":4}"#,
    ]);
    let expected = json!({"kéy": 4, "details": {"cached": 2, "audio": 3}});
    assert_eq!(Value::Object(usage.to_map()), expected);
    let text = serde_json::to_string(&usage).unwrap();
    let back: ProviderUsage = serde_json::from_str(&text).unwrap();
    assert_eq!(back, usage);
    assert_eq!(ProviderUsage::from(usage.to_map()), usage);
    assert_eq!(usage.keys().collect::<Vec<_>>(), ["kéy", "details"]);
    assert_eq!((usage.len(), usage.is_empty()), (2, false));
}

#[test]
fn new_keys_in_every_report_are_found_through_the_index() {
    let reports: Vec<String> = (0..200)
        .map(|report| {
            let members: Vec<String> = (0..50)
                .map(|key| format!("\"k{}\":{report}", (report * 50 + key) / 2))
                .collect();
            format!("{{{}}}", members.join(","))
        })
        .collect();
    let reports: Vec<&str> = reports.iter().map(String::as_str).collect();
    let usage = merged(&reports);
    assert!(usage.index.is_some());
    // Each key came twice, the second value kept.
    assert_eq!(usage.len(), 5_000);
    assert_eq!(usage.get("k0"), Some(json!(0)));
    assert_eq!(usage.get("k4999"), Some(json!(199)));
    // Key and value text, and 16 bytes a member.
    assert_eq!(usage.members.len(), 5_000);
    assert!(usage.text.len() < 5_000 * 9);
}

#[test]
fn values_that_keep_growing_are_reclaimed() {
    let mut usage = ProviderUsage::default();
    let mut grown = 0;
    for length in 1..2_000 {
        let value = format!("\"{}\"", "x".repeat(length));
        let growth = usage.merge([("a", UsageValue::Json(&value)), ("b", UsageValue::Count(1))]);
        grown += growth.bytes;
        assert!(
            usage.text.len() <= 2 * (value.len() + 2) + 4096,
            "{} bytes of text for one value of {}",
            usage.text.len(),
            value.len()
        );
    }
    // Charged what was added: both keys and first values (6 bytes), then one byte a report.
    assert_eq!(grown, 6 + 1_998);
    assert_eq!(usage.get("a").unwrap().as_str().unwrap().len(), 1_999);
}

#[test]
fn a_null_never_erases_and_the_order_first_sent_is_kept() {
    let usage = merged(&[r#"{"a":1,"b":2}"#, r#"{"b":null,"c":3,"a":4}"#]);
    assert_eq!(usage.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
    assert_eq!(
        Value::Object(usage.to_map()),
        json!({"a": 4, "b": 2, "c": 3})
    );
    assert_eq!(format!("{usage:?}"), format!("{:?}", usage.to_map()));
}

#[test]
fn objects_nested_past_the_merged_depth_are_kept_whole() {
    let deep = format!("{}1{}", r#"{"a":"#.repeat(100_000), "}".repeat(100_000));
    let usage = merged(&[&format!(r#"{{"deep":{deep},"b":2}}"#)]);
    assert_eq!(usage.get("b"), Some(json!(2)));
    let mut value = usage.get("deep").unwrap();
    for _ in 0..MERGED_DEPTH {
        value = value["a"].take();
    }
    // Past the depth `serde_json` reads, the rest is its text, and serialises as a string.
    assert!(value
        .as_str()
        .is_some_and(|text| text.starts_with(r#"{"a":"#)));
    let text = serde_json::to_string(&usage).unwrap();
    assert!(serde_json::from_str::<Value>(&text).is_ok());
}

#[test]
fn counts_are_written_as_their_digits() {
    let mut digits = [0; 20];
    for count in [0, 7, 10, 12_345, u64::MAX] {
        assert_eq!(count_text(count, &mut digits), count.to_string());
    }
}

/// Found by the generated chunks of the OpenAI chat strict reader: a shorter value written over
/// a non-ASCII one cut a character in two (a panic).
#[test]
fn a_shorter_value_replaces_a_non_ascii_one_whole() {
    let usage = merged(&[
        r#"{"tier":"😀😀","n":1}"#,
        r#"{"tier":"ab"}"#,
        r#"{"tier":"é","n":2}"#,
    ]);
    assert_eq!(Value::Object(usage.to_map()), json!({"tier": "é", "n": 2}));
    assert_eq!(usage.get("tier"), Some(json!("é")));
}

/// The merge rules on parsed values: a later value replaces an earlier one, `null` never
/// erases one, an object merges into an object and replaces anything else whole.
fn merge_values(into: &mut Map<String, Value>, report: &Map<String, Value>) {
    for (key, value) in report {
        match value {
            Value::Null => {}
            Value::Object(members) => {
                let slot = into
                    .entry(key.clone())
                    .or_insert_with(|| Value::Object(Map::new()));
                if !slot.is_object() {
                    *slot = Value::Object(Map::new());
                }
                if let Value::Object(object) = slot {
                    merge_values(object, members);
                }
            }
            other => {
                into.insert(key.clone(), other.clone());
            }
        }
    }
}

/// Reports over a few keys (so that keys repeat, in objects and across them), values long and
/// short (so that text is overwritten, appended and reclaimed), objects made, replaced and made
/// again.
fn report() -> impl Strategy<Value = Value> {
    reports_over(
        proptest::sample::select(vec!["a", "b", "ab", "ba", "total", "cost", "x_y"])
            .prop_map(str::to_owned),
    )
}

/// Reports whose top-level keys come from `key`.
fn reports_over(
    key: impl Strategy<Value = String> + Clone + 'static,
) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        (0u64..5000).prop_map(Value::from),
        "[a-z]{0,1500}".prop_map(Value::from),
    ];
    let value = leaf.prop_recursive(2, 24, 4, move |inner| {
        proptest::collection::btree_map(
            proptest::sample::select(vec!["a", "b", "c", "ab"]),
            inner,
            0..4,
        )
        .prop_map(|members| {
            Value::Object(
                members
                    .into_iter()
                    .map(|(key, value)| (key.to_owned(), value))
                    .collect(),
            )
        })
    });
    proptest::collection::btree_map(key, value, 0..6)
        .prop_map(|members| Value::Object(members.into_iter().collect()))
}

/// `reports` merged as `ProviderUsage` merges them, as a map.
fn merged_values(reports: &[Value]) -> Map<String, Value> {
    let texts: Vec<String> = reports.iter().map(Value::to_string).collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    merged(&texts).to_map()
}

/// `reports` merged by [`merge_values`], the rules on parsed values.
fn parsed_merge(reports: &[Value]) -> Map<String, Value> {
    let mut expected = Map::new();
    for report in reports {
        merge_values(&mut expected, report.as_object().unwrap());
    }
    expected
}

proptest::proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn merged_reports_equal_the_merge_of_their_values(
        reports in proptest::collection::vec(report(), 1..40),
    ) {
        proptest::prop_assert_eq!(merged_values(&reports), parsed_merge(&reports));
    }

    /// The same past `SCANNED` members (see `lookup`), where keys are found through the hash index
    /// (grown, and rebuilt when text is reclaimed).
    #[test]
    fn many_keys_merge_through_the_index_as_their_values_do(
        reports in proptest::collection::vec(reports_over("k[0-9]{1,2}"), 1..60),
    ) {
        proptest::prop_assert_eq!(merged_values(&reports), parsed_merge(&reports));
    }
}
