//! The one usage reader every dialect maps its usage object through, so that what counts as a
//! token count — and what becomes of a report with none — is decided in one place.
//!
//! A count is a JSON unsigned integer. A string (`"12"`), a negative or fractional number, or a
//! number past `f64` (`1e999`) is not a count: that field is absent, never 0. A report in which
//! no field is a count is no usage at all — the message keeps no `usage_metadata` for it — and
//! its object is kept as sent in the response's `extra` under `usage`, so nothing is lost.

use std::borrow::Cow;

use super::tolerant::tolerant_object;
use crate::delta::{Delta, DeltaSink, RawUsage, UsageMembers, UsageReport};
use crate::error::Error;
use crate::message::object_members;

/// A provider's usage object, its members borrowed from the payload: nothing is built but the
/// list of members, whatever their values (a `1e999` is only a member's text).
pub(crate) struct UsageObject<'a> {
    members: UsageMembers<'a>,
}

impl<'a> UsageObject<'a> {
    /// The object, or `None` when `raw` is not one.
    pub(crate) fn parse(raw: &'a str) -> Option<Self> {
        object_members(raw).map(|members| UsageObject { members })
    }

    /// The members of the member at `at`, if it is an object.
    pub(crate) fn object_at(&self, at: usize) -> Option<UsageMembers<'a>> {
        object_members(self.members.get(at)?.1)
    }

    /// The value at `path` (a member, then members of nested objects); the last of a repeated
    /// key, as a parsed object would keep.
    pub(crate) fn member(&self, path: &[&str]) -> Option<&'a str> {
        let (first, rest) = path.split_first()?;
        let mut value = find(&self.members, first)?;
        for key in rest {
            value = find(&object_members(value)?, key)?;
        }
        Some(value)
    }

    /// The count at `path`, if it is one.
    pub(crate) fn count(&self, path: &[&str]) -> Option<u64> {
        valid_count(self.member(path)?)
    }

    /// A string member without escapes, such as Anthropic's `service_tier`.
    pub(crate) fn text(&self, key: &str) -> Option<&'a str> {
        serde_json::from_str(self.member(&[key])?).ok()
    }

    /// The members, each key with its value: Gemini reads its counts in one pass.
    pub(crate) fn members(&self) -> impl Iterator<Item = (&str, &'a str)> {
        self.members
            .iter()
            .map(|(key, value)| (key.as_ref(), *value))
    }

    /// The report with this object as its raw value.
    pub(crate) fn into_report(self, counts: UsageReport<'a>) -> UsageReport<'a> {
        UsageReport {
            raw: Some(RawUsage::Members(self.members)),
            ..counts
        }
    }
}

/// The value of the last member under `key`, as a parsed object would keep it.
pub(crate) fn find<'a>(members: &[(Cow<'_, str>, &'a str)], key: &str) -> Option<&'a str> {
    members
        .iter()
        .rev()
        .find(|(name, _)| name == key)
        .map(|(_, value)| *value)
}

/// The token count a JSON value's text holds: an unsigned integer, nothing else (what
/// `serde_json` reads as a `u64`: no sign, fraction or exponent, at most `u64::MAX`).
pub(crate) fn valid_count(value: &str) -> Option<u64> {
    let digits = value.as_bytes();
    if digits.is_empty() || (digits.len() > 1 && digits[0] == b'0') {
        return None;
    }
    digits.iter().try_fold(0u64, |count, &digit| {
        let digit = char::from(digit).to_digit(10)?;
        count.checked_mul(10)?.checked_add(u64::from(digit))
    })
}

/// The report, unless it carries no count at all (then it is no usage).
pub(crate) fn reported(report: UsageReport<'_>) -> Option<UsageReport<'_>> {
    (!report.is_empty()).then_some(report)
}

/// Applies a usage report read from `raw` (an object's JSON text): the report when it holds a
/// count, else `raw` as the response's `extra.usage` (an object with no count is kept, but is
/// not usage).
pub(crate) fn apply_usage(
    raw: &str,
    report: Option<UsageReport<'_>>,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    if let Some(report) = report.and_then(reported) {
        return sink.apply(Delta::Usage(Box::new(report)));
    }
    // As parsed, so that a value `serde_json::Value` refuses (`1e999`) is kept as its text.
    let kept = tolerant_object(raw)
        .filter(|object| !object.is_empty())
        .and_then(|object| serde_json::value::to_raw_value(&object).ok());
    match kept {
        Some(value) => sink.apply(Delta::Extra {
            choice: None,
            key: "usage",
            value: &value,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(json: &str) -> UsageObject<'_> {
        UsageObject::parse(json).unwrap()
    }

    #[test]
    fn only_unsigned_integers_are_counts() {
        let usage = object(
            r#"{"a":12,"b":"12","c":-3,"d":3.5,"e":16.0,"f":1e999,"g":null,"h":{"i":4,"j":true}}"#,
        );
        assert_eq!(usage.count(&["a"]), Some(12));
        for key in ["b", "c", "d", "e", "f", "g", "h", "missing"] {
            assert_eq!(usage.count(&[key]), None, "{key}");
        }
        assert_eq!(usage.count(&["h", "i"]), Some(4));
        assert_eq!(usage.count(&["h", "j"]), None);
        assert_eq!(usage.count(&[]), None);
    }

    #[test]
    fn a_report_without_counts_is_no_usage() {
        assert_eq!(reported(UsageReport::default()), None);
        let report = UsageReport {
            output_tokens: Some(0),
            ..UsageReport::default()
        };
        assert_eq!(reported(report.clone()), Some(report));
    }
}
