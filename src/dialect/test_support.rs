//! What the dialects' unit tests share: a sink that records every delta, a frame around a
//! payload, and the one check every fast path is tested by — that it applies the very deltas of
//! the general path.

use std::collections::BTreeMap;

use super::decoder::DialectDecoder;
use crate::delta::{Delta, DeltaSink};
use crate::error::Error;
use crate::framing::Frame;
use crate::message::UsageMetadata;

/// The deltas applied, as comparable text: every delta in order, except the response-level ones
/// (`Metadata`, `Extra` without a choice), of which only the values that win are kept — the
/// first non-empty one of each field, wherever it came — since their order carries nothing, and
/// OpenAI chat's fast path does not repeat the ones an earlier chunk applied. A choice delta
/// right before a text, reasoning, refusal or tool-call delta of the same choice is not kept:
/// that delta opens the choice itself, so the one before it says nothing more (the fast path
/// of a repeated shape applies the string delta alone).
#[derive(Debug, Default)]
pub(crate) struct Recorded {
    deltas: Vec<String>,
    response: BTreeMap<String, String>,
    /// A choice delta not kept yet: whether it is depends on the delta after it.
    pending_choice: Option<u32>,
}

impl Recorded {
    /// Every delta kept, in order.
    fn deltas(&self) -> Vec<String> {
        let mut deltas = self.deltas.clone();
        deltas.extend(self.pending_choice.map(choice_text));
        deltas
    }

    /// Keeps `value` for `field` unless a value won already.
    fn response_field(&mut self, field: &str, value: Option<String>) {
        let Some(value) = value.filter(|value| !value.is_empty()) else {
            return;
        };
        self.response.entry(field.to_owned()).or_insert(value);
    }
}

impl DeltaSink for Recorded {
    fn apply(&mut self, delta: Delta<'_>) -> Result<(), Error> {
        let text = match delta {
            Delta::Metadata(metadata) => {
                let text = |value: Option<&str>| value.map(str::to_owned);
                self.response_field("id", text(metadata.id));
                self.response_field("model", text(metadata.model));
                let created = metadata.created.filter(|&created| created != 0);
                self.response_field("created", created.map(|created| created.to_string()));
                self.response_field("system_fingerprint", text(metadata.system_fingerprint));
                self.response_field("service_tier", text(metadata.service_tier));
                return Ok(());
            }
            Delta::Extra {
                choice: None,
                key,
                value,
            } => {
                let value = value.get();
                self.response_field(key, (value != "null").then(|| value.to_owned()));
                return Ok(());
            }
            // As the message holds it, however the report carried the raw object, and what
            // holding it is charged.
            Delta::Usage(report) => {
                let mut usage = UsageMetadata::default();
                let held = report.fold_into(&mut usage);
                format!("Usage({usage:?}, {held:?})")
            }
            Delta::Choice { choice } => {
                self.deltas
                    .extend(self.pending_choice.replace(choice).map(choice_text));
                return Ok(());
            }
            delta => format!("{delta:?}"),
        };
        if let Some(pending) = self.pending_choice.take() {
            if opening_choice(&text) != Some(pending) {
                self.deltas.push(choice_text(pending));
            }
        }
        self.deltas.push(text);
        Ok(())
    }
}

fn choice_text(choice: u32) -> String {
    format!("{:?}", Delta::Choice { choice })
}

/// The choice a recorded text, reasoning, refusal or tool-call delta opens.
fn opening_choice(recorded: &str) -> Option<u32> {
    let rest = [
        "Text { choice: ",
        "Reasoning { choice: ",
        "Refusal { choice: ",
        "ToolCall(ToolCallDelta { choice: ",
    ]
    .iter()
    .find_map(|prefix| recorded.strip_prefix(prefix))?;
    let digits = rest.split(|c: char| !c.is_ascii_digit()).next()?;
    digits.parse().ok()
}

/// A frame holding `data`, with an optional `event:` name.
pub(crate) fn frame<'a>(event: Option<&'a str>, data: &'a str) -> Frame<'a> {
    Frame {
        event,
        data,
        id: None,
        retry: None,
        number: 1,
        offset: 0,
        terminated: true,
    }
}

/// Which way a decoder read a payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Path {
    /// Its fast path read it.
    Fast,
    /// Its fast path gave up; the general path read it.
    General,
}

/// Decodes `data` after the `earlier` payloads with one fresh `D` the whole way (its fast path
/// first) and with another by its general path alone, asserts that both apply the same deltas —
/// the end of the input included — or fail with the same error, and says which way the whole
/// way read `data`. Every dialect's fast-path tests go through here.
pub(crate) fn assert_same_deltas<D: DialectDecoder>(earlier: &[&str], data: &str) -> Path {
    let whole_way = |deltas: &mut Recorded| {
        let mut decoder = D::default();
        for payload in earlier {
            decoder
                .decode(&frame(None, payload), deltas)
                .expect(payload);
        }
        decoder
    };
    let (mut whole_deltas, mut general_deltas) = (Recorded::default(), Recorded::default());
    let mut whole = whole_way(&mut whole_deltas);
    let mut general = D::default();
    for payload in earlier {
        general
            .decode_general(
                &frame(None, payload),
                payload.trim_ascii(),
                &mut general_deltas,
            )
            .expect(payload);
    }
    let frame = frame(None, data);
    let fast = whole_way(&mut Recorded::default()).decode_fast(
        &frame,
        data.trim_ascii(),
        &mut Recorded::default(),
    );
    let path = if fast.is_some() {
        Path::Fast
    } else {
        Path::General
    };
    let whole_result = whole
        .decode(&frame, &mut whole_deltas)
        .and_then(|()| whole.end(&mut whole_deltas));
    let general_result = general
        .decode_general(&frame, data.trim_ascii(), &mut general_deltas)
        .and_then(|()| general.end(&mut general_deltas));
    assert_eq!(
        whole_result.map_err(|error| error.to_string()),
        general_result.map_err(|error| error.to_string()),
        "{data}"
    );
    assert_eq!(whole_deltas.deltas(), general_deltas.deltas(), "{data}");
    assert_eq!(whole_deltas.response, general_deltas.response, "{data}");
    path
}

/// Decodes `data` with a fresh `D`, the whole way.
pub(crate) fn decode<D: DialectDecoder>(data: &str) -> Result<(), Error> {
    D::default().decode(&frame(None, data), &mut Recorded::default())
}
