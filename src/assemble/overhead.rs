//! What each block and choice the assembler holds costs beyond its bytes: the sizes of the
//! streaming and the built types. Apart from the budget (`budget.rs`), which the streaming
//! types' own files charge, so that the budget depends on none of them.

use std::mem::size_of;

use super::partial_message::{PartialBlock, PartialMessage};
use crate::message::{AiMessage, Choice, ContentBlock};

/// What one content block costs beyond its bytes: its slot among the streaming blocks and its
/// slot in the built message (both are held while the completion is built).
pub(crate) const BLOCK_OVERHEAD: usize = size_of::<PartialBlock>() + size_of::<ContentBlock>();

/// What one choice costs beyond what it holds: its message while it streams and once built, its
/// slot in the response (a response of many empty choices is not free), and its slot in the
/// map of choices sent out of order.
pub(crate) const CHOICE_OVERHEAD: usize =
    size_of::<PartialMessage>() + size_of::<AiMessage>() + size_of::<Choice>() + CHOICE_INDEX_SLOT;

/// A choice's slot in the map of choices sent out of order (`fold/choice_index.rs`): its
/// position and index, and the table's control byte, with the table at worst half full.
const CHOICE_INDEX_SLOT: usize = 2 * (size_of::<(u32, usize)>() + 1);
