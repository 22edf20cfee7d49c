//! A chat completion's spoken answer while it streams: one audio block per choice, its base64
//! data and its transcript (in `extras.transcript`) growing in place, so each piece costs only
//! its own bytes; the id and `expires_at` (which the next request quotes) set once.

use serde_json::Value;

use super::{PartialBlock, PartialMessage};
use crate::message::{ContentBlock, MediaBlock, MediaSource};

/// Where the transcript of the spoken answer is kept, as LangChain's OpenAI integration names it.
const TRANSCRIPT: &str = "transcript";
const EXPIRES_AT: &str = "expires_at";

impl PartialMessage {
    /// Appends a piece of the spoken answer to the choice's audio block, made at first use.
    pub(in crate::assemble) fn append_audio(
        &mut self,
        id: Option<&str>,
        data: &str,
        transcript: &str,
        expires_at: Option<i64>,
    ) {
        let block = *self.audio_block.get_or_insert_with(|| {
            self.blocks.push(PartialBlock::Content(ContentBlock::Audio(
                MediaBlock::from_source(MediaSource::Base64(String::new())),
            )));
            self.blocks.len() - 1
        });
        let Some(PartialBlock::Content(ContentBlock::Audio(media))) = self.blocks.get_mut(block)
        else {
            return;
        };
        if let MediaSource::Base64(bytes) = &mut media.source {
            bytes.push_str(data);
        }
        if let Some(id) = id.filter(|id| !id.is_empty()) {
            media.id.get_or_insert_with(|| id.to_owned());
        }
        if !transcript.is_empty() {
            match media.extras.get_mut(TRANSCRIPT) {
                Some(Value::String(text)) => text.push_str(transcript),
                _ => {
                    media.extras.insert(TRANSCRIPT.into(), transcript.into());
                }
            }
        }
        if let Some(expires_at) = expires_at {
            media.extras.entry(EXPIRES_AT).or_insert(expires_at.into());
        }
    }
}
