//! Audio in Chat Completions requests: a user's `input_audio` part names its `format`, and an
//! assistant's spoken answer (the audio block `delta.audio` made) goes back as
//! `"audio": {"id": …}`, the reference OpenAI takes for multi-turn audio until the audio's
//! `expires_at`; read back, it is an audio block with that id and no data.

use serde_json::{Map, Value};

use crate::message::{AiMessage, ContentBlock, MediaBlock, MediaSource};
use crate::wire::{required_string, At, WireError};

/// OpenAI's audio `format` for a MIME type.
pub(super) fn audio_format(mime_type: &str) -> &str {
    match mime_type {
        "audio/mpeg" | "audio/mp3" => "mp3",
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        other => other.rsplit('/').next().unwrap_or(other),
    }
}

/// The MIME type of an OpenAI audio `format`.
pub(super) fn audio_mime_type(format: &str) -> String {
    match format {
        "mp3" => "audio/mpeg".into(),
        other => format!("audio/{other}"),
    }
}

/// The id of an assistant's spoken answer, the only part of it that goes back.
pub(super) fn assistant_audio_id(message: &AiMessage) -> Option<&str> {
    message.content.iter().find_map(|block| match block {
        ContentBlock::Audio(MediaBlock { id: Some(id), .. }) => Some(id.as_str()),
        _ => None,
    })
}

/// An assistant message's `audio` reference as an audio block with its id: only the id comes
/// back, the bytes stay with OpenAI until the audio expires.
pub(super) fn decode_assistant_audio(
    object: &Map<String, Value>,
    at: At,
) -> Result<Option<ContentBlock>, WireError> {
    match object.get("audio") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(audio)) => {
            let mut media = MediaBlock::from_source(MediaSource::Base64(String::new()));
            media.id = Some(required_string(audio, "id", at)?);
            Ok(Some(ContentBlock::Audio(media)))
        }
        Some(other) => Err(at.malformed(format!("`audio` is {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn audio_formats_and_mime_types_map_both_ways() {
        assert_eq!(audio_format("audio/mpeg"), "mp3");
        assert_eq!(audio_format("audio/wav"), "wav");
        assert_eq!(audio_format("audio/flac"), "flac");
        assert_eq!(audio_mime_type("mp3"), "audio/mpeg");
        assert_eq!(audio_mime_type("wav"), "audio/wav");
    }
}
