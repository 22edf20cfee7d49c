//! The one call for a stream that is already whole: a recording, a body read to its end.

use super::{Assembler, Options};
use crate::error::Error;
use crate::message::Completion;

/// Assembles a whole recorded stream at once.
///
/// ```
/// let body = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
/// let completion = deltafold::assemble(body, deltafold::Options::new())?;
/// assert_eq!(completion.into_message().text(), "hi");
/// # Ok::<(), deltafold::Error>(())
/// ```
pub fn assemble(bytes: &[u8], options: Options) -> Result<Completion, Error> {
    let mut assembler = Assembler::with_options(options);
    assembler.feed(bytes)?;
    // In place: `finish` would move the whole assembler first.
    assembler.conclude()
}
