//! A report read straight into a new object: the strict chat reader builds the provider's
//! usage object as it meets each member, instead of listing the members for a merge to copy.

use super::{Growth, ProviderUsage, ROOT};

/// One report read member by member into an empty object: the very object a
/// [`ProviderUsage::merge`] of the report's members makes from an empty one (a repeated key
/// replaces, `null` never erases), and the growth that merge reports.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReadUsage {
    object: ProviderUsage,
    growth: Growth,
    /// Top-level members read, `null` ones included: `{}` and `{"a":null}` are told apart, as
    /// a listing of the members tells them.
    members: usize,
}

impl ReadUsage {
    /// A read with room for `len` bytes of keys and values (an object's JSON text is longer
    /// than its members' text).
    pub(crate) fn with_capacity(len: usize) -> Self {
        let mut read = ReadUsage::default();
        read.object.reserve(len, 16);
        read
    }

    /// A member of the top level (`object` is `None`) or of an object
    /// [`object`](Self::object) opened, whose value is a count, a string without escapes or
    /// `null`, as its JSON text: kept as it is, as a merge keeps such a value.
    pub(crate) fn scalar(&mut self, object: Option<u32>, key: &str, json: &str) {
        self.members += usize::from(object.is_none());
        if json != "null" {
            let parent = object.unwrap_or(ROOT);
            self.object.set_text(parent, key, json, &mut self.growth);
        }
    }

    /// A top-level member that is an object, whose members follow: its id for them, `None`
    /// once ids or text run out (its members are then dropped, as a merge drops them).
    pub(crate) fn object(&mut self, key: &str) -> Option<u32> {
        self.members += 1;
        self.object.object_member(ROOT, key, &mut self.growth)
    }

    /// How many top-level members were read.
    pub(crate) fn members(&self) -> usize {
        self.members
    }

    /// The object and what it holds, as a merge into an empty object leaves them.
    pub(crate) fn finish(mut self) -> (ProviderUsage, Growth) {
        self.object.reclaim();
        (self.object, self.growth)
    }
}
