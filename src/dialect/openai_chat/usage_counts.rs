//! OpenAI's usage object as neutral counts: `prompt_tokens`, `completion_tokens` and their
//! details, DeepSeek's `prompt_cache_hit_tokens` where `cached_tokens` is missing, and Groq's
//! usage under `x_groq`. Apart from the decoder because the strict reader
//! ([`plain`](super::plain)) takes the same counts member by member as it reads them.

use serde_json::value::RawValue;

use crate::delta::UsageReport;
use crate::dialect::text::Text;
use crate::dialect::usage::{valid_count, UsageObject};

/// Groq reports usage under `x_groq.usage`.
pub(super) fn groq_usage<'a>(extra: &[(Text<'a>, &'a RawValue)]) -> Option<&'a RawValue> {
    #[derive(serde::Deserialize)]
    struct XGroq<'a> {
        #[serde(borrow, default)]
        usage: Option<&'a RawValue>,
    }
    let (_, raw) = extra.iter().find(|(key, _)| key.as_str() == "x_groq")?;
    serde_json::from_str::<XGroq<'a>>(raw.get()).ok()?.usage
}

/// Maps an OpenAI usage object (and DeepSeek's cache fields) to neutral counts.
pub(super) fn usage_report(raw: &str) -> Option<UsageReport<'_>> {
    UsageObject::parse(raw).map(usage_counts)
}

/// The report of an OpenAI usage object, read member by member.
fn usage_counts(usage: UsageObject<'_>) -> UsageReport<'_> {
    let mut counts = UsageCounts::default();
    for (at, (key, value)) in usage.members().enumerate() {
        match counts.details(key) {
            Some(details) => {
                for (key, value) in usage.object_at(at).unwrap_or_default() {
                    counts.detail(details, &key, value);
                }
            }
            None => counts.member(key, value),
        }
    }
    usage.into_report(counts.finish())
}

/// OpenAI's token counts, taken member by member from a usage object as they are read: each
/// ends as the object a parse keeps holds it (the last of a repeated key wins; a details
/// member that is no object has no counts).
#[derive(Default)]
pub(super) struct UsageCounts {
    report: UsageReport<'static>,
    /// `prompt_tokens_details.cached_tokens`, which DeepSeek's `prompt_cache_hit_tokens`
    /// stands in for when it is missing.
    cached: Option<u64>,
    cache_hit: Option<u64>,
}

/// The details object of a usage object's member.
#[derive(Debug, Clone, Copy)]
pub(super) enum Details {
    Prompt,
    Completion,
}

impl UsageCounts {
    /// A top-level member that is no details member, as its value's JSON text.
    pub(super) fn member(&mut self, key: &str, value: &str) {
        let count = valid_count(value);
        match key {
            "prompt_tokens" => self.report.input_tokens = count,
            "completion_tokens" => self.report.output_tokens = count,
            "total_tokens" => self.report.total_tokens = count,
            "prompt_cache_hit_tokens" => self.cache_hit = count,
            _ => {}
        }
    }

    /// The details object `key` names, if it names one, forgetting what an earlier member of
    /// that key said: its members follow (through [`detail`](Self::detail)) when it is an
    /// object.
    pub(super) fn details(&mut self, key: &str) -> Option<Details> {
        match key {
            "prompt_tokens_details" => {
                self.report.input_audio = None;
                self.report.cache_creation = None;
                self.cached = None;
                Some(Details::Prompt)
            }
            "completion_tokens_details" => {
                self.report.output_audio = None;
                self.report.reasoning = None;
                Some(Details::Completion)
            }
            _ => None,
        }
    }

    /// A member of a details object.
    pub(super) fn detail(&mut self, details: Details, key: &str, value: &str) {
        let count = valid_count(value);
        match (details, key) {
            (Details::Prompt, "audio_tokens") => self.report.input_audio = count,
            (Details::Prompt, "cached_tokens") => self.cached = count,
            (Details::Prompt, "cache_write_tokens") => self.report.cache_creation = count,
            (Details::Completion, "audio_tokens") => self.report.output_audio = count,
            (Details::Completion, "reasoning_tokens") => self.report.reasoning = count,
            _ => {}
        }
    }

    pub(super) fn finish(self) -> UsageReport<'static> {
        UsageReport {
            cache_read: self.cached.or(self.cache_hit),
            ..self.report
        }
    }
}
