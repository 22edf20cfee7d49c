//! Usage reports: the token counts a provider sends, mapped to neutral names by its dialect, and
//! the rule that folds them into the message's [`UsageMetadata`].

use std::borrow::Cow;

use super::Held;
use crate::message::{object_members, Growth, ProviderUsage, ReadUsage, UsageMetadata, UsageValue};

impl UsageReport<'_> {
    /// Folds this report into the usage so far. Providers report running totals, so each field
    /// takes the latest value present; a missing or `null` field never erases an earlier one and
    /// nothing is summed. Returns what the raw map grew by (the keys it did not have), so the
    /// assembler can charge it: a provider sending new keys in every report grows it each time.
    pub(crate) fn fold_into(self, usage: &mut UsageMetadata) -> Held {
        let mut input = usage.input_token_details.unwrap_or_default();
        let mut output = usage.output_token_details.unwrap_or_default();
        overwrite(&mut usage.input_tokens, self.input_tokens);
        overwrite(&mut usage.output_tokens, self.output_tokens);
        overwrite_opt(&mut input.audio, self.input_audio);
        overwrite_opt(&mut input.cache_read, self.cache_read);
        overwrite_opt(&mut input.cache_creation, self.cache_creation);
        overwrite_opt(&mut output.audio, self.output_audio);
        overwrite_opt(&mut output.reasoning, self.reasoning);
        match self.total_tokens {
            Some(total) => usage.total_tokens = total,
            None if self.input_tokens.is_some() || self.output_tokens.is_some() => {
                usage.total_tokens = usage.input_tokens.saturating_add(usage.output_tokens);
            }
            None => {}
        }
        usage.input_token_details = (!input.is_empty()).then_some(input);
        usage.output_token_details = (!output.is_empty()).then_some(output);
        let growth = match self.raw {
            Some(RawUsage::Members(members)) => merge_members(
                usage.raw.get_or_insert_with(ProviderUsage::default),
                &members,
            ),
            Some(RawUsage::Read { read, text }) => match &mut usage.raw {
                // The first report: the object read is the merge's result already.
                None => {
                    let (object, growth) = read.finish();
                    usage.raw = Some(object);
                    growth
                }
                Some(raw) => match object_members(text) {
                    Some(members) => merge_members(raw, &members),
                    None => Growth::default(),
                },
            },
            Some(RawUsage::Scalars(scalars)) => usage
                .raw
                .get_or_insert_with(ProviderUsage::default)
                .merge(scalars.iter().map(|(key, scalar)| (*key, scalar.value()))),
            None => Growth::default(),
        };
        Held {
            entries: growth.entries,
            bytes: growth.bytes,
        }
    }
}

/// Merges a report's members into the object so far.
fn merge_members(raw: &mut ProviderUsage, members: &[UsageMember<'_>]) -> Growth {
    // A nested object's text covers its members' keys and values.
    let text = members.iter().map(|(key, value)| key.len() + value.len());
    raw.reserve(text.sum(), members.len());
    raw.merge(
        members
            .iter()
            .map(|(key, value)| (key.as_ref(), UsageValue::Json(value))),
    )
}

fn overwrite(field: &mut u64, value: Option<u64>) {
    if let Some(value) = value {
        *field = value;
    }
}

fn overwrite_opt(field: &mut Option<u64>, value: Option<u64>) {
    if value.is_some() {
        *field = value;
    }
}

/// One usage report from a provider, already mapped to neutral names: each field is `None` when
/// the report did not carry it (or carried `null` or a value that is not a token count).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct UsageReport<'a> {
    /// Prompt tokens.
    pub input_tokens: Option<u64>,
    /// Generated tokens.
    pub output_tokens: Option<u64>,
    /// Total tokens.
    pub total_tokens: Option<u64>,
    /// Audio prompt tokens.
    pub input_audio: Option<u64>,
    /// Prompt tokens read from cache.
    pub cache_read: Option<u64>,
    /// Prompt tokens written to cache.
    pub cache_creation: Option<u64>,
    /// Audio output tokens.
    pub output_audio: Option<u64>,
    /// Reasoning tokens.
    pub reasoning: Option<u64>,
    /// The provider's object as sent.
    pub raw: Option<RawUsage<'a>>,
}

/// An object's member: its key (borrowed unless it had escapes) with its value's JSON text.
pub(crate) type UsageMember<'a> = (Cow<'a, str>, &'a str);

/// An object's members, in order.
pub(crate) type UsageMembers<'a> = Vec<UsageMember<'a>>;

/// The provider's usage object, as a report carries it.
#[derive(Debug, Clone)]
pub(crate) enum RawUsage<'a> {
    /// The object's members, each key with its value's JSON text, borrowed from the payload:
    /// most dialects read their counts from them.
    Members(UsageMembers<'a>),
    /// An object whose members are all counts or plain strings, read member by member.
    Scalars(&'a [(&'a str, Scalar<'a>)]),
    /// An object read straight into the provider's usage object as it was read; `text` is its
    /// JSON, merged member by member when an earlier report came first.
    Read { read: ReadUsage, text: &'a str },
}

/// Equal when the same members carry the same text; an object read is equal to the members it
/// was read from.
impl PartialEq for RawUsage<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (RawUsage::Scalars(one), RawUsage::Scalars(other)) => one == other,
            (RawUsage::Scalars(_), _) | (_, RawUsage::Scalars(_)) => false,
            _ => match (self.listed(), other.listed()) {
                (Some(one), Some(other)) => {
                    one.len() == other.len()
                        && one
                            .iter()
                            .zip(other.iter())
                            .all(|((a, x), (b, y))| a == b && x == y)
                }
                _ => false,
            },
        }
    }
}

impl<'a> RawUsage<'a> {
    /// The top-level members, listed; `None` for scalars.
    fn listed(&self) -> Option<Cow<'_, [UsageMember<'a>]>> {
        match self {
            RawUsage::Members(members) => Some(Cow::Borrowed(members)),
            RawUsage::Read { text, .. } => object_members(text).map(Cow::Owned),
            RawUsage::Scalars(_) => None,
        }
    }

    /// True for `{}`.
    pub(crate) fn is_empty(&self) -> bool {
        match self {
            RawUsage::Members(members) => members.is_empty(),
            RawUsage::Scalars(scalars) => scalars.is_empty(),
            RawUsage::Read { read, .. } => read.members() == 0,
        }
    }
}

/// A member of [`RawUsage::Scalars`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Scalar<'a> {
    Count(u64),
    Text(&'a str),
}

impl<'a> Scalar<'a> {
    fn value(self) -> UsageValue<'a> {
        match self {
            Scalar::Count(count) => UsageValue::Count(count),
            Scalar::Text(text) => UsageValue::Plain(text),
        }
    }
}

impl UsageReport<'_> {
    /// True when the report carries no count at all (`{}` or all `null`).
    pub(crate) fn is_empty(&self) -> bool {
        self.input_tokens.is_none()
            && self.output_tokens.is_none()
            && self.total_tokens.is_none()
            && self.input_audio.is_none()
            && self.cache_read.is_none()
            && self.cache_creation.is_none()
            && self.output_audio.is_none()
            && self.reasoning.is_none()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value};

    use super::*;

    fn merge(usage: &mut UsageMetadata, report: UsageReport<'_>) {
        report.fold_into(usage);
    }

    fn members(json: &str) -> RawUsage<'_> {
        RawUsage::Members(object_members(json).unwrap())
    }

    fn object(json: &str) -> Map<String, Value> {
        serde_json::from_str(json).unwrap()
    }

    /// The report of `json` read as the strict chat reader reads it (its values are counts,
    /// plain strings, `null` or objects of those).
    fn read(json: &str) -> RawUsage<'_> {
        let mut read = ReadUsage::with_capacity(json.len());
        for (key, value) in object_members(json).unwrap() {
            match object_members(value) {
                Some(inner) => {
                    let object = read.object(&key);
                    for (inner_key, inner_value) in inner {
                        if let Some(object) = object {
                            read.scalar(Some(object), &inner_key, inner_value);
                        }
                    }
                }
                None => read.scalar(None, &key, value),
            }
        }
        RawUsage::Read { read, text: json }
    }

    #[test]
    fn an_object_read_folds_as_its_members_do_first_and_after_other_reports() {
        let reports = [
            r#"{"a":1,"a":null,"b":{"x":1,"x":2},"c":"t","b":{"y":3}}"#,
            r#"{"a":2,"b":7,"d":{"z":null}}"#,
            r#"{"b":{"w":1},"a":{"v":"s"},"e":0}"#,
            r#"{}"#,
            r#"{"a":null}"#,
        ];
        for first in 0..reports.len() {
            let mut by_members = UsageMetadata::default();
            let mut by_reading = UsageMetadata::default();
            for json in reports[first..].iter().chain(&reports[..first]) {
                let listed = UsageReport {
                    raw: Some(members(json)),
                    ..UsageReport::default()
                };
                let read = UsageReport {
                    raw: Some(read(json)),
                    ..UsageReport::default()
                };
                assert_eq!(listed, read, "{json}");
                let listed_held = listed.fold_into(&mut by_members);
                assert_eq!(read.fold_into(&mut by_reading), listed_held, "{json}");
                assert_eq!(by_reading, by_members, "{json}");
                assert_eq!(
                    serde_json::to_string(&by_reading.raw).unwrap(),
                    serde_json::to_string(&by_members.raw).unwrap()
                );
            }
        }
    }

    #[test]
    fn the_fold_reports_only_the_keys_it_adds() {
        let mut usage = UsageMetadata::default();
        let mut fold = |json: &str| {
            UsageReport {
                raw: Some(members(json)),
                ..UsageReport::default()
            }
            .fold_into(&mut usage)
        };
        assert_eq!(fold(r#"{"a":1,"b":{"x":1}}"#).entries, 3);
        assert_eq!(fold(r#"{"a":2,"b":{"x":2}}"#), Held::default());
        assert_eq!(fold(r#"{"a":3,"b":{"y":2},"c":4}"#).entries, 2);
        // A longer value is charged what it grew by.
        assert_eq!(
            fold(r#"{"a":"three"}"#),
            Held {
                entries: 0,
                bytes: 6
            }
        );
    }

    #[test]
    fn later_reports_overwrite_present_fields_only() {
        let mut usage = UsageMetadata::default();
        merge(
            &mut usage,
            UsageReport {
                input_tokens: Some(10),
                output_tokens: Some(1),
                cache_read: Some(4),
                ..UsageReport::default()
            },
        );
        merge(
            &mut usage,
            UsageReport {
                output_tokens: Some(7),
                ..UsageReport::default()
            },
        );
        assert_eq!(usage.input_tokens, 10);
        assert_eq!(usage.output_tokens, 7);
        assert_eq!(usage.total_tokens, 17);
        assert_eq!(usage.input_token_details.unwrap().cache_read, Some(4));
        merge(
            &mut usage,
            UsageReport {
                total_tokens: Some(20),
                ..UsageReport::default()
            },
        );
        assert_eq!(usage.total_tokens, 20);
        assert_eq!(usage.output_tokens, 7);
    }

    #[test]
    fn raw_reports_merge_field_by_field_whatever_their_keys() {
        let mut usage = UsageMetadata::default();
        let mut merge = |json: &str| {
            merge(
                &mut usage,
                UsageReport {
                    raw: Some(members(json)),
                    ..UsageReport::default()
                },
            );
            usage.raw.clone().unwrap()
        };
        merge(r#"{"a":1,"b":{"x":1},"c":[1]}"#);
        // The same keys in the same order: the values as sent.
        assert_eq!(
            merge(r#"{"a":2,"b":3,"c":[2]}"#).to_map(),
            object(r#"{"a":2,"b":3,"c":[2]}"#)
        );
        // A null keeps the earlier value, an object replaces a number.
        assert_eq!(
            merge(r#"{"a":null,"b":{"y":2},"c":[3]}"#).to_map(),
            object(r#"{"a":2,"b":{"y":2},"c":[3]}"#)
        );
        // An object merges into the earlier one.
        assert_eq!(
            merge(r#"{"a":4,"b":{"z":3},"c":[4]}"#).to_map(),
            object(r#"{"a":4,"b":{"y":2,"z":3},"c":[4]}"#)
        );
        // Other keys or another order: merged key by key, the first order kept.
        let merged = merge(r#"{"c":[5],"d":1,"a":5}"#);
        assert_eq!(
            merged.to_map(),
            object(r#"{"a":5,"b":{"y":2,"z":3},"c":[5],"d":1}"#)
        );
        assert_eq!(merged.keys().collect::<Vec<_>>(), ["a", "b", "c", "d"]);
    }

    #[test]
    fn scalar_reports_merge_as_their_objects_would() {
        let reports: [&[(&str, Scalar<'_>)]; 5] = [
            &[("a", Scalar::Count(1)), ("b", Scalar::Text("x"))],
            // The same keys: overwritten in place.
            &[("a", Scalar::Count(2)), ("b", Scalar::Text("y"))],
            // Fewer keys, in order: the others stay.
            &[("a", Scalar::Count(3))],
            // Other keys and order: inserted one by one, a repeated key's last value kept.
            &[
                ("c", Scalar::Count(4)),
                ("a", Scalar::Count(5)),
                ("c", Scalar::Count(6)),
            ],
            &[],
        ];
        let (mut scalars, mut objects) = (UsageMetadata::default(), UsageMetadata::default());
        for report in reports {
            merge(
                &mut scalars,
                UsageReport {
                    raw: Some(RawUsage::Scalars(report)),
                    ..UsageReport::default()
                },
            );
            let text = report
                .iter()
                .map(|(name, scalar)| match scalar {
                    Scalar::Count(count) => format!("\"{name}\":{count}"),
                    Scalar::Text(text) => format!("\"{name}\":\"{text}\""),
                })
                .collect::<Vec<_>>()
                .join(",");
            let text = format!("{{{text}}}");
            merge(
                &mut objects,
                UsageReport {
                    raw: Some(members(&text)),
                    ..UsageReport::default()
                },
            );
            assert_eq!(scalars, objects, "{report:?}");
            let keys = |usage: &UsageMetadata| -> Vec<String> {
                usage
                    .raw
                    .iter()
                    .flat_map(|raw| raw.keys().map(str::to_owned))
                    .collect()
            };
            assert_eq!(keys(&scalars), keys(&objects), "{report:?}");
        }
        assert_eq!(
            scalars.raw.unwrap().to_map(),
            object(r#"{"a":5,"b":"y","c":6}"#)
        );
    }
}
