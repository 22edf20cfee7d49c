//! A decoded frame copied out of the decoder, so that the SSE tests can collect and compare them.

use deltafold::framing::Frame;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owned {
    pub event: Option<String>,
    pub data: String,
    pub id: Option<String>,
    pub retry: Option<u64>,
    pub number: u64,
    pub offset: u64,
    pub terminated: bool,
}

impl From<Frame<'_>> for Owned {
    fn from(frame: Frame<'_>) -> Self {
        Self {
            event: frame.event.map(str::to_owned),
            data: frame.data.to_owned(),
            id: frame.id.map(str::to_owned),
            retry: frame.retry,
            number: frame.number,
            offset: frame.offset,
            terminated: frame.terminated,
        }
    }
}
