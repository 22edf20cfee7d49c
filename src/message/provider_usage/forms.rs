//! The parsed and serialised forms of a [`ProviderUsage`]: its members grouped by object into
//! `serde_json` values, the object it serialises to, and the way back from a parsed map.

use std::collections::HashMap;
use std::fmt;

use serde::de::Deserializer;
use serde::ser::{Error as _, SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{parsed, ProviderUsage, UsageValue, ROOT};

impl ProviderUsage {
    /// The members grouped by object, for building values.
    pub(super) fn tree(&self) -> Tree<'_> {
        let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
        for (at, member) in self.members.iter().enumerate() {
            children.entry(member.parent).or_default().push(at as u32);
        }
        Tree {
            usage: self,
            children,
        }
    }
}

/// The members by object, to build parsed values from.
pub(super) struct Tree<'u> {
    usage: &'u ProviderUsage,
    children: HashMap<u32, Vec<u32>>,
}

impl Tree<'_> {
    pub(super) fn object(&self, object: u32) -> Map<String, Value> {
        let members = self.children.get(&object).map_or(&[][..], Vec::as_slice);
        members
            .iter()
            .map(|at| {
                let member = &self.usage.members[*at as usize];
                (self.usage.key(member).to_owned(), self.value(*at))
            })
            .collect()
    }

    pub(super) fn value(&self, at: u32) -> Value {
        let member = &self.usage.members[at as usize];
        match member.object() {
            Some(object) => Value::Object(self.object(object)),
            None => parsed(self.usage.value_text(member)),
        }
    }
}

impl From<Map<String, Value>> for ProviderUsage {
    fn from(map: Map<String, Value>) -> Self {
        let mut usage = ProviderUsage::default();
        let texts: Vec<(String, String)> = map
            .into_iter()
            .map(|(key, value)| (key, value.to_string()))
            .collect();
        usage.merge(
            texts
                .iter()
                .map(|(key, text)| (key.as_str(), UsageValue::Json(text))),
        );
        usage
    }
}

/// Equal when the parsed objects are (the text of the same members may differ in spacing).
impl PartialEq for ProviderUsage {
    fn eq(&self, other: &Self) -> bool {
        self.to_map() == other.to_map()
    }
}

impl fmt::Debug for ProviderUsage {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_map(), formatter)
    }
}

impl Serialize for ProviderUsage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tree = self.tree();
        let mut map = serializer.serialize_map(None)?;
        for at in tree.children.get(&ROOT).into_iter().flatten() {
            let member = &self.members[*at as usize];
            if member.object().is_some() {
                map.serialize_entry(self.key(member), &tree.value(*at))?;
            } else {
                let text = self.value_text(member);
                let raw: &RawValue = serde_json::from_str(text).map_err(S::Error::custom)?;
                map.serialize_entry(self.key(member), raw)?;
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for ProviderUsage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Map::<String, Value>::deserialize(deserializer).map(ProviderUsage::from)
    }
}
