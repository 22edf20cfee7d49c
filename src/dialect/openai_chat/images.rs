//! `delta.images` (OpenRouter, Gemini-compatible hosts): the images the model made, one image
//! block each.

use serde_json::value::RawValue;
use serde_json::Value;

use crate::delta::{Delta, DeltaSink};
use crate::error::Error;
use crate::message::{parse_data_url, ContentBlock, MediaBlock};

/// `delta.images`: each `image_url` entry an image block (a `data:` URL split into base64 and
/// MIME type), its other members in `extras`; an entry of another shape kept as sent.
pub(super) fn decode(choice: u32, raw: &RawValue, sink: &mut impl DeltaSink) -> Result<(), Error> {
    let Ok(Value::Array(images)) = serde_json::from_str::<Value>(raw.get()) else {
        return Ok(());
    };
    for image in images {
        match image_block(image) {
            Ok(block) => sink.apply(Delta::Block { choice, block })?,
            Err(value) => sink.apply(Delta::NonStandard { choice, value })?,
        }
    }
    Ok(())
}

/// An `{type: image_url, image_url: {url}, …}` entry as an image block; any other given back.
fn image_block(image: Value) -> Result<ContentBlock, Value> {
    let url = image
        .get("image_url")
        .and_then(|inner| inner.get("url"))
        .and_then(Value::as_str);
    let Some(url) = url else {
        return Err(image);
    };
    let mut media = match parse_data_url(url) {
        Some((mime_type, data)) => MediaBlock::base64(data, mime_type),
        None => MediaBlock::url(url),
    };
    let Value::Object(mut image) = image else {
        return Err(image);
    };
    image.remove("type");
    if let Some(Value::Object(mut inner)) = image.remove("image_url") {
        inner.remove("url");
        image.extend(inner);
    }
    media.extras = image;
    Ok(ContentBlock::Image(media))
}
