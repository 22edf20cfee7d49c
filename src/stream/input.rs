//! What an [`AssembleStream`](super::AssembleStream) reads: byte chunks, or frames an event
//! source library already cut.

use crate::assemble::Assembler;
use crate::error::Error;

/// What an [`AssembleStream`](super::AssembleStream) reads: byte chunks (anything that is `AsRef<[u8]>`: `Bytes`,
/// `BytesMut`, `Vec<u8>`, `&[u8]`, `String`…) or, with the `eventsource-stream` feature,
/// events framed by that crate.
///
/// Sealed: the assembler decides how each kind of input is fed.
pub trait StreamInput: sealed::Feed {}

pub(super) mod sealed {
    use crate::assemble::Assembler;
    use crate::error::Error;

    /// Feeds one read into the assembler.
    pub trait Feed: Sized {
        fn push_into(self, assembler: &mut Assembler);

        /// Feeds the read and processes every event it completes.
        fn take_into(self, assembler: &mut Assembler) -> Result<(), Error> {
            self.push_into(assembler);
            while assembler.next_event()?.is_some() {}
            Ok(())
        }
    }
}

impl<B: AsRef<[u8]>> sealed::Feed for B {
    fn push_into(self, assembler: &mut Assembler) {
        assembler.push(self.as_ref());
    }

    /// Fed, not pushed: the framer copies only what it cannot frame where it lies.
    fn take_into(self, assembler: &mut Assembler) -> Result<(), Error> {
        assembler.feed(self.as_ref())
    }
}

impl<B: AsRef<[u8]>> StreamInput for B {}
