//! Converse usage as neutral counts, as LangChain's `ChatBedrockConverse` counts it (cache reads
//! and writes taken into the input). Apart from the decoder, which only hands the `metadata`
//! event's `usage` here.

use serde_json::value::RawValue;

use crate::delta::UsageReport;
use crate::dialect::usage::UsageObject;

/// Maps Converse usage as LangChain's `ChatBedrockConverse` does: `inputTokens` leaves cache
/// reads and writes out, the input count takes them in.
pub(super) fn usage(raw: &RawValue) -> Option<UsageReport<'_>> {
    let usage = UsageObject::parse(raw.get())?;
    let count = |key: &str| usage.count(&[key]);
    let (input, cache_read, cache_creation) = (
        count("inputTokens"),
        count("cacheReadInputTokens"),
        count("cacheWriteInputTokens"),
    );
    let input_tokens = match (input, cache_read, cache_creation) {
        (None, None, None) => None,
        (input, read, write) => Some(
            input
                .unwrap_or(0)
                .saturating_add(read.unwrap_or(0))
                .saturating_add(write.unwrap_or(0)),
        ),
    };
    let counts = UsageReport {
        input_tokens,
        output_tokens: count("outputTokens"),
        total_tokens: count("totalTokens"),
        cache_read,
        cache_creation,
        ..UsageReport::default()
    };
    Some(usage.into_report(counts))
}
