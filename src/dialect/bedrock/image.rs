//! Images a model makes in a `ConverseStream`: a block whose start names the `format` (`png`,
//! `jpeg`, `gif`, `webp`) and whose deltas bring `source.bytes` (base64 in the JSON payload),
//! or an `s3Location` (`{uri, bucketOwner}`), or an `error` (`{message}`). Held until the
//! block stops, then an image block: base64 data with the MIME type `image/<format>` (as
//! LangChain's bedrock_converse translator reads a Converse image), or the S3 `uri` as its
//! URL; the format, an error and the location's other fields stay in `extras`. Several `bytes`
//! pieces are joined as sent.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{BedrockDecoder, CHOICE};
use crate::delta::{Delta, DeltaSink, Held};
use crate::error::Error;
use crate::message::{ContentBlock, MediaBlock, MediaSource};

/// An image while its deltas stream: the start's and deltas' fields, and the base64 so far.
#[derive(Debug, Default)]
pub(super) struct PendingImage {
    fields: Map<String, Value>,
    data: String,
}

impl BedrockDecoder {
    /// An `image` start (`{format}`) or delta (`{source, error}`) for block `index`.
    pub(super) fn image_piece(
        &mut self,
        index: u32,
        raw: &RawValue,
        sink: &mut impl DeltaSink,
    ) -> Result<(), Error> {
        let Ok(Value::Object(mut piece)) = serde_json::from_str::<Value>(raw.get()) else {
            return Ok(());
        };
        sink.apply(Delta::Held(Held {
            entries: 1 + piece.len(),
            bytes: raw.get().len(),
        }))?;
        let image = self.images.entry(index).or_default();
        if let Some(Value::Object(mut source)) = piece.remove("source") {
            if let Some(Value::String(bytes)) = source.remove("bytes") {
                image.data.push_str(&bytes);
            }
            if !source.is_empty() {
                piece.insert("source".into(), Value::Object(source));
            }
        }
        image.fields.extend(piece);
        Ok(())
    }

    /// Ends the image at `index`, if that block is one.
    pub(super) fn end_image(
        &mut self,
        index: u32,
        sink: &mut impl DeltaSink,
    ) -> Option<Result<(), Error>> {
        let PendingImage { mut fields, data } = self.images.remove(&index)?;
        let mime_type = fields
            .get("format")
            .and_then(Value::as_str)
            .map(|format| format!("image/{format}"));
        let uri = fields
            .get_mut("source")
            .and_then(|source| source.get_mut("s3Location"))
            .and_then(Value::as_object_mut)
            .and_then(|location| match location.remove("uri") {
                Some(Value::String(uri)) => Some(uri),
                Some(other) => {
                    location.insert("uri".into(), other);
                    None
                }
                None => None,
            });
        let source = match uri {
            Some(uri) if data.is_empty() => MediaSource::Url(uri),
            Some(uri) => {
                fields.insert("s3_uri".into(), uri.into());
                MediaSource::Base64(data)
            }
            None => MediaSource::Base64(data),
        };
        let mut image = MediaBlock::from_source(source);
        image.mime_type = mime_type;
        image.extras = fields;
        Some(sink.apply(Delta::Block {
            choice: CHOICE,
            block: ContentBlock::Image(image),
        }))
    }
}
