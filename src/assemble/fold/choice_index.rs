//! Finds a choice by the index its provider gave it, in constant time for every delta: choices
//! nearly always come as 0, 1, 2…, each at the position of its index; the others are kept in a
//! map, so a response of many choices sent out of order costs no scan over them per delta.

use std::collections::HashMap;

use crate::assemble::partial_message::PartialMessage;

#[derive(Debug, Default)]
pub(super) struct ChoiceIndex {
    /// Positions of the choices whose index is not their position.
    out_of_place: HashMap<u32, usize>,
}

impl ChoiceIndex {
    /// Where the choice with `index` is among `choices`, if it was opened.
    #[inline]
    pub(super) fn find(&self, choices: &[PartialMessage], index: u32) -> Option<usize> {
        let in_place = usize::try_from(index).ok().filter(|&position| {
            choices
                .get(position)
                .is_some_and(|choice| choice.index == index)
        });
        if in_place.is_some() {
            return in_place;
        }
        if self.out_of_place.is_empty() {
            return None;
        }
        self.out_of_place.get(&index).copied()
    }

    /// Notes that the choice with `index` was opened at `position`.
    pub(super) fn opened(&mut self, index: u32, position: usize) {
        if usize::try_from(index) != Ok(position) {
            self.out_of_place.insert(index, position);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_in_any_order_are_found_where_they_were_opened() {
        let mut index = ChoiceIndex::default();
        let mut choices = Vec::new();
        for provider_index in [0, 5, 2, 3, u32::MAX, 1] {
            assert_eq!(index.find(&choices, provider_index), None);
            index.opened(provider_index, choices.len());
            choices.push(PartialMessage::new(provider_index));
        }
        for (position, choice) in choices.iter().enumerate() {
            assert_eq!(index.find(&choices, choice.index), Some(position));
        }
        assert_eq!(index.find(&choices, 4), None);
        // Only the choices away from their own position are kept apart: 5, u32::MAX and 1 (2
        // and 3 came where their index is).
        assert_eq!(index.out_of_place.len(), 3);
    }
}
