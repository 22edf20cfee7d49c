//! Media a Gemini model makes: an `inlineData {mimeType, data}` part (an image from an image
//! model, Gemini 3's interim `thought: true` images included) is a media block of the kind its
//! MIME type says, the base64 data kept as sent. The part's `thoughtSignature` stays on that
//! block (`extras.signature`, with `extras.thought`), where `to_gemini` sends it back: Gemini 3
//! image models sign their images, and refuse a follow-up whose image parts lack the signature.
//! The part's other fields (`videoMetadata`, `partMetadata`…) go to the block's `extras`.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::message::{ContentBlock, MediaBlock};

/// The media block of an `inlineData` part; `None` when its data or MIME type is not a string
/// (the part is then kept whole, as a non-standard block).
pub(super) fn inline_block(raw: &RawValue) -> Option<ContentBlock> {
    let Ok(Value::Object(mut part)) = serde_json::from_str::<Value>(raw.get()) else {
        return None;
    };
    let Some(Value::Object(mut inline)) = part.remove("inlineData") else {
        return None;
    };
    let (Some(Value::String(data)), Some(Value::String(mime_type))) =
        (inline.remove("data"), inline.remove("mimeType"))
    else {
        return None;
    };
    let mut extras = Map::new();
    if let Some(signature) = part.remove("thoughtSignature") {
        extras.insert("signature".into(), signature);
    }
    extras.extend(part);
    if !inline.is_empty() {
        extras.insert("inlineData".into(), Value::Object(inline));
    }
    let mut media = MediaBlock::base64(data, mime_type);
    media.extras = extras;
    Some(ContentBlock::by_mime_type(media))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(part: &str) -> Option<ContentBlock> {
        inline_block(&RawValue::from_string(part.to_owned()).unwrap())
    }

    #[test]
    fn an_inline_image_is_an_image_block_with_its_signature() {
        let Some(ContentBlock::Image(media)) = block(
            r#"{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="},"thought":true,"thoughtSignature":"Eo4D"}"#,
        ) else {
            panic!("an image block");
        };
        assert_eq!(media, {
            let mut media = MediaBlock::base64("iVBORw0KGgo=", "image/png");
            media.extras.insert("signature".into(), "Eo4D".into());
            media.extras.insert("thought".into(), true.into());
            media
        });
        assert!(matches!(
            block(r#"{"inlineData":{"mimeType":"audio/wav","data":"UklG"}}"#),
            Some(ContentBlock::Audio(_))
        ));
        assert_eq!(block(r#"{"inlineData":{"mimeType":"image/png"}}"#), None);
    }
}
