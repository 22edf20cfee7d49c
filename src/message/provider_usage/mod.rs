//! `ProviderUsage`: the provider's own usage object, merged across a stream's reports and held
//! as compact text rather than parsed values. A hostile stream may send new keys in every
//! report; a parsed `serde_json::Value` map costs about 130 bytes per 12-byte `"k1":1,` member,
//! this costs its text plus 16 bytes and a 4-byte hash slot. Values are parsed when asked for.

mod forms;
mod lookup;
mod members;
mod read;

use std::borrow::Cow;

use serde_json::{Map, Value};

use self::lookup::fingerprint;
use super::key_index::KeyIndex;
pub(crate) use members::object_members;
pub(crate) use read::ReadUsage;

/// The provider's usage object (`prompt_tokens_details`, `cost`, `queue_time`…), every report
/// of the stream merged into it member by member: a later value replaces an earlier one, `null`
/// never erases one, and nested objects merge the same way. It serialises to that object; read
/// a member with [`get`](Self::get) or the whole object with [`to_map`](Self::to_map).
#[derive(Clone, Default)]
pub struct ProviderUsage {
    /// Every member's key followed by its value's JSON text (nothing for an object).
    text: String,
    /// The members of the object and of the objects nested in it, in the order first sent; a
    /// member always comes after the object holding it.
    members: Vec<Member>,
    /// Finds a member by its object and key once there are more members than [`lookup`] scans
    /// (`SCANNED`).
    index: Option<Box<KeyIndex>>,
    /// Where the member after the last one found sits, tried first: running totals repeat
    /// their keys in the same order.
    hint: usize,
    /// Bytes of `text` no longer used, reclaimed once they outweigh the rest.
    garbage: usize,
    /// How many nested-object ids were given out.
    objects: u32,
    /// One bit per (object, key) fingerprint of every member added: a key whose bit is clear
    /// is new, so a report's first members are added without a scan of those before them.
    fingerprints: u64,
}

/// One member: which object holds it, and where its key and value text sit in `text`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Member {
    /// The id of the object holding it, or [`ROOT`].
    parent: u32,
    start: u32,
    key_len: u32,
    /// The value's text length; from [`OBJECT`] on, a nested object whose id is the excess.
    value: u32,
}

impl Member {
    /// The id of the nested object this member holds, if it holds one.
    fn object(&self) -> Option<u32> {
        self.value.checked_sub(OBJECT)
    }

    /// The length of its value's text (none for an object).
    fn value_len(&self) -> usize {
        if self.value >= OBJECT {
            0
        } else {
            self.value as usize
        }
    }
}

/// [`Member::value`] from which it names a nested object rather than a text length: an object
/// replaced by another value and made again gets a new id, so what the old one held is never
/// found again (it was charged when merged, and goes at the next [`ProviderUsage::reclaim`]).
const OBJECT: u32 = 1 << 31;
/// [`Member::parent`] of a member of the top-level object.
const ROOT: u32 = u32::MAX;
/// Objects nested deeper than this are kept as their text and replaced whole, so that hostile
/// nesting costs no recursion.
const MERGED_DEPTH: usize = 8;

/// What a merge added to what is held: new members and bytes of text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Growth {
    pub entries: usize,
    pub bytes: usize,
}

/// One member's value as a report carries it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum UsageValue<'a> {
    /// JSON text, as sent; an object is merged member by member.
    Json(&'a str),
    /// A token count read without its text.
    Count(u64),
    /// A string without escapes, read without its quotes.
    Plain(&'a str),
}

impl ProviderUsage {
    /// The member under `key`, parsed (a number `serde_json` cannot hold, such as `1e999`, as
    /// its text in a string).
    pub fn get(&self, key: &str) -> Option<Value> {
        let found = self
            .members
            .iter()
            .position(|member| member.parent == ROOT && self.key(member) == key)?;
        let member = &self.members[found];
        Some(match member.object() {
            Some(_) => self.tree().value(found as u32),
            None => parsed(self.value_text(member)),
        })
    }

    /// The top-level keys, in the order first sent.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.members
            .iter()
            .filter(|member| member.parent == ROOT)
            .map(|member| self.key(member))
    }

    /// How many top-level members there are.
    pub fn len(&self) -> usize {
        self.keys().count()
    }

    /// True for `{}`.
    pub fn is_empty(&self) -> bool {
        self.keys().next().is_none()
    }

    /// The whole object, parsed.
    pub fn to_map(&self) -> Map<String, Value> {
        self.tree().object(ROOT)
    }

    /// Makes room, before the first report, for about `text` bytes in `members` members (those
    /// of nested objects count once each): a report's members then go in without growing
    /// their buffers step by step.
    pub(crate) fn reserve(&mut self, text: usize, members: usize) {
        if self.members.is_empty() {
            self.text.reserve(text);
            self.members.reserve(members);
        }
    }

    /// Merges one report's members, in order: what it added to what is held.
    pub(crate) fn merge<'a>(
        &mut self,
        members: impl IntoIterator<Item = (&'a str, UsageValue<'a>)>,
    ) -> Growth {
        let mut growth = Growth::default();
        for (key, value) in members {
            self.merge_member(ROOT, 0, key, value, &mut growth);
        }
        self.reclaim();
        growth
    }

    /// Merges the member `key` of object `parent`, `depth` objects down.
    fn merge_member(
        &mut self,
        parent: u32,
        depth: usize,
        key: &str,
        value: UsageValue<'_>,
        growth: &mut Growth,
    ) {
        let mut digits = [0; 20];
        let text: Cow<'_, str> = match value {
            UsageValue::Json(json) if json.starts_with('{') && depth < MERGED_DEPTH => {
                if let Some(members) = object_members(json) {
                    self.merge_object(parent, depth, key, &members, growth);
                }
                return;
            }
            UsageValue::Json("null") => return,
            UsageValue::Json(json) => storable(json),
            UsageValue::Count(count) => Cow::Borrowed(count_text(count, &mut digits)),
            UsageValue::Plain(plain) => Cow::Owned(format!("\"{plain}\"")),
        };
        self.set_text(parent, key, &text, growth);
    }

    /// Merges the object under `key` of object `parent`, `depth` objects down, member by member.
    fn merge_object(
        &mut self,
        parent: u32,
        depth: usize,
        key: &str,
        members: &[(Cow<'_, str>, &str)],
        growth: &mut Growth,
    ) {
        let Some(object) = self.object_member(parent, key, growth) else {
            return;
        };
        for (key, value) in members {
            self.merge_member(object, depth + 1, key, UsageValue::Json(value), growth);
        }
    }

    /// The member under `key` of object `parent` made an object (a new one, or a new one in
    /// place of another value): the object's id, or `None` once text or ids run out.
    fn object_member(&mut self, parent: u32, key: &str, growth: &mut Growth) -> Option<u32> {
        let found = self.find(parent, key);
        if let Some(object) = found.and_then(|at| self.members[at].object()) {
            return Some(object);
        }
        let object = self.objects;
        let value = OBJECT.checked_add(object).filter(|value| *value < ROOT)?;
        self.objects += 1;
        match found {
            Some(at) => {
                let member = &mut self.members[at];
                self.garbage += member.value_len();
                member.value = value;
            }
            None => self.push(parent, key, "", value, growth)?,
        }
        Some(object)
    }

    /// Sets the member under `key` of object `parent` to the JSON text of a value that is no
    /// object: in place when it fits, else at the end of `text`.
    fn set_text(&mut self, parent: u32, key: &str, value: &str, growth: &mut Growth) {
        let Ok(len) = u32::try_from(value.len()).map_err(drop).and_then(|len| {
            if len < OBJECT {
                Ok(len)
            } else {
                Err(())
            }
        }) else {
            return;
        };
        let Some(at) = self.find(parent, key) else {
            self.push(parent, key, value, len, growth);
            return;
        };
        let member = self.members[at];
        if member.object().is_none() && value.len() <= member.value_len() {
            let from = (member.start + member.key_len) as usize;
            // The whole old value goes, its unused end as spaces: writing over only its first
            // bytes could leave part of a character behind.
            let unused = member.value_len() - value.len();
            let replacement = format!("{value}{:unused$}", "");
            self.text
                .replace_range(from..from + member.value_len(), &replacement);
            self.garbage += unused;
            self.members[at].value = len;
            return;
        }
        let Some(start) = self.append(key, value) else {
            return;
        };
        self.garbage += member.key_len as usize + member.value_len();
        growth.bytes += value.len() - member.value_len();
        self.members[at] = Member {
            start,
            value: len,
            ..member
        };
    }

    /// Appends a key and a value's text: where they start, or `None` past 4 GiB.
    fn append(&mut self, key: &str, value: &str) -> Option<u32> {
        let start = u32::try_from(self.text.len()).ok()?;
        u32::try_from(self.text.len() + key.len() + value.len()).ok()?;
        if let Some(more) = room_needed(
            self.text.len(),
            self.text.capacity(),
            key.len() + value.len(),
        ) {
            self.text.reserve_exact(more);
        }
        self.text.push_str(key);
        self.text.push_str(value);
        Some(start)
    }

    /// Adds a member under `key` of object `parent`.
    fn push(
        &mut self,
        parent: u32,
        key: &str,
        text: &str,
        value: u32,
        growth: &mut Growth,
    ) -> Option<()> {
        let at = u32::try_from(self.members.len()).ok()?;
        let start = self.append(key, text)?;
        if let Some(more) = room_needed(self.members.len(), self.members.capacity(), 1) {
            self.members.reserve_exact(more);
        }
        self.members.push(Member {
            parent,
            start,
            key_len: key.len() as u32,
            value,
        });
        growth.entries += 1;
        growth.bytes += key.len() + text.len();
        self.fingerprints |= fingerprint(parent, key);
        self.index_member(at);
        Some(())
    }

    /// Once garbage outweighs what is live, copies the live members and their text afresh,
    /// leaving out what objects since replaced held: each byte is copied a bounded number of
    /// times, so merging stays linear.
    fn reclaim(&mut self) {
        if self.garbage <= (self.text.len() / 2).max(4096) {
            return;
        }
        let mut text = String::with_capacity(self.text.len().saturating_sub(self.garbage));
        let mut members = Vec::with_capacity(self.members.len());
        // An object's members come after it, so one pass in order sees each object's new id
        // before its members.
        let mut renamed = vec![None; self.objects as usize];
        let mut objects = 0;
        for member in &self.members {
            let parent = match member.parent {
                ROOT => ROOT,
                parent => match renamed[parent as usize] {
                    Some(parent) => parent,
                    None => continue,
                },
            };
            let value = match member.object() {
                Some(object) => {
                    renamed[object as usize] = Some(objects);
                    objects += 1;
                    OBJECT + objects - 1
                }
                None => member.value,
            };
            let from = member.start as usize;
            let len = member.key_len as usize + member.value_len();
            members.push(Member {
                parent,
                start: text.len() as u32,
                key_len: member.key_len,
                value,
            });
            text.push_str(&self.text[from..from + len]);
        }
        self.text = text;
        self.members = members;
        self.objects = objects;
        self.garbage = 0;
        self.hint = 0;
        // Objects were renumbered: their members' fingerprints change with them.
        self.fingerprints = self.members.iter().fold(0, |bits, member| {
            bits | fingerprint(member.parent, self.key(member))
        });
        if self.index.is_some() {
            self.rebuild_index();
        }
    }

    fn key(&self, member: &Member) -> &str {
        member_key(&self.text, member)
    }

    fn value_text(&self, member: &Member) -> &str {
        let start = (member.start + member.key_len) as usize;
        &self.text[start..start + member.value_len()]
    }
}

/// How much more room a buffer of `len` items in `capacity` needs for `adding` more: none while
/// they fit, else half again what it holds (at least what is added). A hostile stream sends
/// new usage keys in every report and all of them are held: doubling left up to as much again
/// unused, growing by half leaves at most half (a fuzzed stream held 4.15 × its input, the
/// members and text a third of it unused). Still a constant factor, so copies stay linear.
fn room_needed(len: usize, capacity: usize, adding: usize) -> Option<usize> {
    (len + adding > capacity).then(|| adding.max(len / 2))
}

fn member_key<'t>(text: &'t str, member: &Member) -> &'t str {
    let start = member.start as usize;
    &text[start..start + member.key_len as usize]
}

/// A value's text as it is kept: one `serde_json` cannot read — a number past `f64` (`1e999`),
/// anywhere in an array too, or nesting past its depth limit — becomes a string of its text, so
/// that every value held parses and serialises to JSON any reader takes.
fn storable(json: &str) -> Cow<'_, str> {
    let readable = match json.as_bytes().first() {
        Some(b'"' | b't' | b'f' | b'n') => true,
        Some(b'{' | b'[') => serde_json::from_str::<Value>(json).is_ok(),
        _ => !json.contains(['e', 'E']) || serde_json::from_str::<Value>(json).is_ok(),
    };
    if readable {
        Cow::Borrowed(json)
    } else {
        Cow::Owned(Value::String(json.to_owned()).to_string())
    }
}

/// A value's text parsed; what [`storable`] let through unread, as its text.
fn parsed(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// The decimal digits of a count, written without allocating.
fn count_text(count: u64, digits: &mut [u8; 20]) -> &str {
    let mut at = digits.len();
    let mut rest = count;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    std::str::from_utf8(&digits[at..]).unwrap_or_default()
}

#[cfg(test)]
mod tests;
