//! What the dialects' unit tests share: a sink that records every delta, and a frame around a
//! payload, so that a fast path and the general path can be compared delta for delta.

use crate::delta::{Delta, DeltaSink};
use crate::framing::Frame;
use crate::message::UsageMetadata;
use crate::Error;

/// Every delta applied, as its debug text.
#[derive(Debug, Default)]
pub(crate) struct Recorded(pub Vec<String>);

impl DeltaSink for Recorded {
    fn apply(&mut self, delta: Delta<'_>) -> Result<(), Error> {
        self.0.push(match delta {
            // As the message holds it, however the report carried the raw object.
            Delta::Usage(report) => {
                let mut usage = UsageMetadata::default();
                report.fold_into(&mut usage);
                format!("Usage({usage:?})")
            }
            delta => format!("{delta:?}"),
        });
        Ok(())
    }
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

/// Decodes `data` the way the dialect does (`decode`) and with its general path alone
/// (`general`), and asserts that both apply the same deltas or fail with the same error.
pub(crate) fn assert_same_deltas(
    data: &str,
    decode: impl FnOnce(&mut Recorded) -> Result<(), Error>,
    general: impl FnOnce(&mut Recorded) -> Result<(), Error>,
) {
    let (mut fast, mut slow) = (Recorded::default(), Recorded::default());
    let fast_result = decode(&mut fast).map_err(|error| error.to_string());
    let general_result = general(&mut slow).map_err(|error| error.to_string());
    assert_eq!(fast_result, general_result, "{data}");
    assert_eq!(fast.0, slow.0, "{data}");
}
