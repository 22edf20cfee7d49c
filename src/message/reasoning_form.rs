//! The serde form of a reasoning block: where LangChain's translators and integrations read a
//! reasoning block's provider parts, so that a message sent back through them keeps what the
//! provider needs to continue (Anthropic's thinking signature, a Responses reasoning item's id
//! and encrypted content, Gemini's thought signatures).
//!
//! - the signature goes in `extras.signature` (langchain-core's Anthropic and Gemini
//!   translators write it there; langchain-anthropic's `_convert_from_v1_to_anthropic` and
//!   langchain-google-genai read it there);
//! - encrypted content goes in `extras.encrypted_content` and a Responses item id (`rs_…`,
//!   kept in the block's extras as `id`) is the block's own `id` (langchain-openai's
//!   `_implode_reasoning_blocks` rebuilds the item from them);
//! - empty reasoning text is left out, as LangChain leaves it out of a Responses item with an
//!   empty summary — but written, `""`, beside a signature, as langchain-core's Anthropic and
//!   Gemini translators write a signed thinking block with no text: langchain-anthropic sends
//!   `reasoning` back as the block's `thinking`, which Anthropic requires;
//! - reasoning that is only opaque data — Anthropic's `redacted_thinking` — is a
//!   `{"type": "non_standard", "value": {"type": "redacted_thinking", "data": …}}` block, as
//!   langchain-core's Anthropic translator writes it and langchain-anthropic sends it back.
//!
//! The earlier form (`signature` and `data` beside `reasoning`) is still read.

use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// The key of a reasoning block's `extras` that holds a provider's item id (a Responses
/// reasoning item's `rs_…`); LangChain's reasoning block has it as its own `id`.
const ITEM_ID: &str = "id";

/// Where LangChain keeps a reasoning block's signature, in its `extras`.
const SIGNATURE: &str = "signature";

/// Where LangChain keeps a reasoning block's encrypted content, in its `extras`.
const ENCRYPTED: &str = "encrypted_content";

/// The block type of Anthropic's redacted thinking.
const REDACTED: &str = "redacted_thinking";

/// Writes a reasoning block in LangChain's form (with its `type`), borrowing its parts: a large
/// reasoning text is written, not copied.
pub(super) fn serialize<S: Serializer>(
    text: &str,
    signature: &Option<String>,
    data: &Option<String>,
    extras: &Map<String, Value>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut block = serializer.serialize_map(None)?;
    if let (true, None, Some(data), true) = (text.is_empty(), signature, data, extras.is_empty()) {
        block.serialize_entry("type", "non_standard")?;
        block.serialize_entry("value", &Redacted { data })?;
        return block.end();
    }
    block.serialize_entry("type", "reasoning")?;
    if let Some(id) = extras.get(ITEM_ID) {
        block.serialize_entry(ITEM_ID, id)?;
    }
    // LangChain leaves `reasoning` out when there is none (a Responses item with an empty
    // summary, which langchain-openai then sends back with `summary: []`, not one empty part),
    // but writes it, empty, beside a signature (Anthropic's signed thinking with no text).
    if !text.is_empty() || signature.is_some() {
        block.serialize_entry("reasoning", text)?;
    }
    let extras = ExtrasOut {
        extras,
        signature: signature.as_deref(),
        data: data.as_deref(),
    };
    if !extras.is_empty() {
        block.serialize_entry("extras", &extras)?;
    }
    block.end()
}

/// `{"type": "redacted_thinking", "data": …}`.
struct Redacted<'a> {
    data: &'a str,
}

impl Serialize for Redacted<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut value = serializer.serialize_map(Some(2))?;
        value.serialize_entry("type", REDACTED)?;
        value.serialize_entry("data", self.data)?;
        value.end()
    }
}

/// A reasoning block's LangChain `extras`: its own (but the item id), its signature and its
/// encrypted content.
struct ExtrasOut<'a> {
    extras: &'a Map<String, Value>,
    signature: Option<&'a str>,
    data: Option<&'a str>,
}

impl ExtrasOut<'_> {
    fn own(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.extras
            .iter()
            .filter(|(key, _)| key.as_str() != ITEM_ID)
    }

    fn is_empty(&self) -> bool {
        self.signature.is_none() && self.data.is_none() && self.own().next().is_none()
    }
}

impl Serialize for ExtrasOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut extras = serializer.serialize_map(None)?;
        for (key, value) in self.own() {
            extras.serialize_entry(key, value)?;
        }
        if let Some(signature) = self.signature {
            extras.serialize_entry(SIGNATURE, signature)?;
        }
        if let Some(data) = self.data {
            extras.serialize_entry(ENCRYPTED, data)?;
        }
        extras.end()
    }
}

/// The fields of a reasoning block: text, signature, data, extras.
type Fields = (String, Option<String>, Option<String>, Map<String, Value>);

/// Reads a reasoning block in LangChain's form, the earlier form, or a redacted thinking block.
pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Fields, D::Error> {
    let mut block = Map::<String, Value>::deserialize(deserializer)?;
    let kind = block.remove("type");
    if kind.as_ref().and_then(Value::as_str) == Some("non_standard") {
        return match redacted_data(block.get("value").unwrap_or(&Value::Null)) {
            Some(data) => Ok((String::new(), None, Some(data.to_owned()), Map::new())),
            None => Err(D::Error::custom("not a redacted thinking block")),
        };
    }
    if kind.as_ref().and_then(Value::as_str) != Some("reasoning") {
        return Err(D::Error::custom("not a reasoning block"));
    }
    let text = match block.remove("reasoning") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text,
        Some(other) => return Err(D::Error::custom(format!("`reasoning` is {other}"))),
    };
    let mut extras = match block.remove("extras") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(extras)) => extras,
        Some(other) => return Err(D::Error::custom(format!("`extras` is {other}"))),
    };
    let mut take = |key: &str, in_extras: &str| -> Result<Option<String>, D::Error> {
        match extras.remove(in_extras).or_else(|| block.remove(key)) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(value)) => Ok(Some(value)),
            Some(other) => Err(D::Error::custom(format!("`{in_extras}` is {other}"))),
        }
    };
    let signature = take(SIGNATURE, SIGNATURE)?;
    let data = take("data", ENCRYPTED)?;
    if let Some(id) = block.remove(ITEM_ID).filter(|id| !id.is_null()) {
        extras.insert(ITEM_ID.into(), id);
    }
    // LangChain's own keys (`index`…) and any other field travel on in the extras.
    extras.extend(block);
    Ok((text, signature, data, extras))
}

/// A non-standard block's value, refused when it is a redacted thinking block, which reads as
/// reasoning instead.
pub(super) fn not_redacted<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    let value = Value::deserialize(deserializer)?;
    match redacted_data(&value) {
        Some(_) => Err(D::Error::custom("a redacted thinking block is reasoning")),
        None => Ok(value),
    }
}

/// The data of `{"type": "redacted_thinking", "data": "…"}` (and nothing else).
fn redacted_data(value: &Value) -> Option<&str> {
    let value = value.as_object()?;
    if value.len() != 2 || value.get("type")?.as_str()? != REDACTED {
        return None;
    }
    value.get("data")?.as_str()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::message::ContentBlock;

    fn reasoning(text: &str, signature: Option<&str>, data: Option<&str>) -> ContentBlock {
        ContentBlock::Reasoning {
            text: text.into(),
            signature: signature.map(Into::into),
            data: data.map(Into::into),
            extras: Default::default(),
        }
    }

    #[test]
    fn signatures_and_encrypted_content_go_in_extras() {
        let mut responses = reasoning("sum", None, Some("gAAA"));
        if let ContentBlock::Reasoning { extras, .. } = &mut responses {
            extras.insert("id".into(), "rs_1".into());
        }
        let mut empty_summary = reasoning("", None, Some("gAAB"));
        if let ContentBlock::Reasoning { extras, .. } = &mut empty_summary {
            extras.insert("id".into(), "rs_2".into());
        }
        let cases = [
            (
                empty_summary,
                json!({"type": "reasoning", "id": "rs_2", "extras": {"encrypted_content": "gAAB"}}),
            ),
            (
                reasoning("", Some("EqQC"), None),
                json!({"type": "reasoning", "reasoning": "", "extras": {"signature": "EqQC"}}),
            ),
            (
                reasoning("think", Some("EqQB"), None),
                json!({"type": "reasoning", "reasoning": "think", "extras": {"signature": "EqQB"}}),
            ),
            (
                responses,
                json!({"type": "reasoning", "id": "rs_1", "reasoning": "sum",
                       "extras": {"encrypted_content": "gAAA"}}),
            ),
            (
                reasoning("", None, Some("EmwK")),
                json!({"type": "non_standard",
                       "value": {"type": "redacted_thinking", "data": "EmwK"}}),
            ),
        ];
        for (block, form) in cases {
            assert_eq!(serde_json::to_value(&block).unwrap(), form);
            assert_eq!(serde_json::from_value::<ContentBlock>(form).unwrap(), block);
        }
    }

    #[test]
    fn the_earlier_form_is_still_read() {
        let old = json!({"type": "reasoning", "reasoning": "t", "signature": "s", "data": "d"});
        assert_eq!(
            serde_json::from_value::<ContentBlock>(old).unwrap(),
            reasoning("t", Some("s"), Some("d"))
        );
        let other = json!({"type": "non_standard", "value": {"type": "redacted_thinking"}});
        assert!(matches!(
            serde_json::from_value::<ContentBlock>(other).unwrap(),
            ContentBlock::NonStandard { .. }
        ));
    }
}
