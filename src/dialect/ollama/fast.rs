//! The fast path of Ollama: every line of a stream but the last, read with the strict reader;
//! anything else goes to the general path of the parent module.

use serde_json::value::RawValue;

use super::{OllamaDecoder, CHOICE};
use crate::delta::{Delta, DeltaSink, MetadataDelta};
use crate::dialect::cursor::{for_each_member, set_once, Cursor, Scanned};
use crate::error::Error;
use crate::framing::Frame;

/// Decodes a [`PlainLine`] as the general path would; `None` for any other line, which the
/// general path then reads (or reports).
pub(super) fn decode(
    decoder: &mut OllamaDecoder,
    _frame: &Frame<'_>,
    data: &str,
    sink: &mut impl DeltaSink,
) -> Option<Result<(), Error>> {
    read(data, &mut decoder.content, &mut decoder.thinking).map(|line| line.decode(sink))
}

/// The shape of every line but the last: `model`, `created_at`, `done: false`, and the new text
/// under `message` (`/api/chat`: `role`, `content`, `thinking`) or at the top (`/api/generate`:
/// `response`, `thinking`), in any order.
///
/// Anything else — `done: true`, counts, tool calls, an error, a repeated member, `null`, an
/// escape in `model`, text both in `message` and at the top — and [`read`] gives up: the general
/// path reads the line instead; so this path only ever sees lines the general path decodes into
/// the very same deltas, and every error comes from the general path.
struct PlainLine<'a> {
    model: Option<&'a str>,
    created_at: Option<&'a RawValue>,
    thinking: Option<&'a str>,
    content: Option<&'a str>,
}

impl PlainLine<'_> {
    /// The deltas the general path applies for the same line, in the same order.
    fn decode(self, sink: &mut impl DeltaSink) -> Result<(), Error> {
        sink.apply(Delta::Metadata(MetadataDelta {
            model: self.model,
            ..MetadataDelta::default()
        }))?;
        sink.apply(Delta::Choice { choice: CHOICE })?;
        if let Some(value) = self.created_at {
            sink.apply(Delta::Extra {
                choice: None,
                key: "created_at",
                value,
            })?;
        }
        if let Some(text) = self.thinking {
            sink.apply(Delta::Reasoning {
                choice: CHOICE,
                text,
            })?;
        }
        match self.content {
            Some(text) => sink.apply(Delta::Text {
                choice: CHOICE,
                text,
            }),
            None => Ok(()),
        }
    }
}

/// Reads a [`PlainLine`] with the strict reader; `None` when the line is not one. Escaped
/// texts are decoded into the two buffers.
fn read<'a>(
    data: &'a str,
    content: &'a mut String,
    thinking: &'a mut String,
) -> Option<PlainLine<'a>> {
    let mut cursor = Cursor::new(data);
    let (mut model, mut created_at, mut done, mut message) = (None, None, None, None);
    let (mut response, mut top_thinking) = (None, None);
    for_each_member(&mut cursor, |cursor, key| match key {
        "model" => set_once(&mut model, cursor.plain_string()?),
        "created_at" => set_once(&mut created_at, cursor.scalar_literal()?),
        "done" => set_once(&mut done, cursor.eat("false").then_some(())?),
        "message" => {
            let (mut text, mut thought) = (None, None);
            for_each_member(cursor, |cursor, key| match key {
                "role" => cursor.skip_value(),
                "content" => set_once(&mut text, cursor.string(content)?),
                "thinking" => set_once(&mut thought, cursor.string(thinking)?),
                _ => None,
            })?;
            set_once(&mut message, (text, thought))
        }
        "response" => set_once(&mut response, cursor.string(content)?),
        "thinking" => set_once(&mut top_thinking, cursor.string(thinking)?),
        _ => None,
    })?;
    let top_level_text = response.is_some() || top_thinking.is_some();
    let recognised = model.is_some() || message.is_some() || done.is_some() || response.is_some();
    // Text in both places shares the buffers; the general path reads it (`message` wins).
    if !cursor.at_end() || !recognised || (message.is_some() && top_level_text) {
        return None;
    }
    let created_at = match created_at {
        Some(literal) => Some(serde_json::from_str::<&RawValue>(literal).ok()?),
        None => None,
    };
    let (content, thinking): (&'a String, &'a String) = (content, thinking);
    let (text, thought) = message.unwrap_or((response, top_thinking));
    Some(PlainLine {
        model,
        created_at,
        thinking: thought.map(|scanned: Scanned<'a>| scanned.resolve(thinking)),
        content: text.map(|scanned: Scanned<'a>| scanned.resolve(content)),
    })
}

#[cfg(test)]
mod tests {
    use crate::dialect::ollama::OllamaDecoder;
    use crate::dialect::test_support::{assert_same_deltas, decode, Path};

    #[test]
    fn plain_lines_apply_what_the_general_path_applies() {
        let lines = [
            r#"{"model":"llama3.2","created_at":"2025-05-01T10:00:00.000000Z","message":{"role":"assistant","content":"The sky"},"done":false}"#,
            r#"{"model":"qwen3","created_at":"2025-05-01T10:00:00Z","message":{"role":"assistant","content":"","thinking":"a \"b\" \\ \n \u00e9 \ud83d\ude00"},"done":false}"#,
            r#" { "message" : { "content" : "x\ty" , "role" : "assistant" , "role" : 1 } } "#,
            r#"{"model":"gemma3","created_at":"2025-05-01T14:00:00Z","response":"Bon\njour","thinking":"Hmm","done":false}"#,
            r#"{"model":"gemma3","created_at":1746108000}"#,
            r#"{"created_at":7,"model":"m","message":{}}"#,
            r#"{"done":false}"#,
        ];
        for data in lines {
            let path = assert_same_deltas::<OllamaDecoder>(&[], data);
            assert_eq!(path, Path::Fast, "{data}");
        }
    }

    #[test]
    fn other_shapes_are_left_to_the_general_path() {
        let lines = [
            r#"{"model":"llama3.2","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":26,"eval_count":282}"#,
            r#"{"model":"llama3.2","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]},"done":false}"#,
            r#"{"model":"gemma3","message":{"content":"wins"},"response":"ignored","thinking":"ignored"}"#,
            r#"{"model":"llama3.2","message":{"content":5}}"#,
            r#"{"model":"llama3.2","message":null}"#,
            r#"{"model":null,"message":{"content":"a"}}"#,
            r#"{"model":"llama3.2","created_at":null,"message":{"content":"a"}}"#,
            r#"{"model":"llama3.2","created_at":"a\u0062","message":{"content":"a"}}"#,
            r#"{"model":"llama3.2","done":null}"#,
            r#"{"model":"llama3.2","mod\u0065l":"x"}"#,
            r#"{"model":"m\u0065","message":{"content":"a"}}"#,
            r#"{"model":"llama3.2","context":[1,2,3],"response":""}"#,
            r#"{"model":"m","message":{"content":"\ud83d"}}"#,
            r#"{"error":"model not found"}"#,
            r#"{"thinking":"alone"}"#,
            r#"{"created_at":"2025-05-01T10:00:00Z"}"#,
            "{}",
        ];
        for data in lines {
            let path = assert_same_deltas::<OllamaDecoder>(&[], data);
            assert_eq!(path, Path::General, "{data}");
        }
    }

    #[test]
    fn malformed_lines_fail_as_the_general_path_fails() {
        let lines = [
            r#"{"model":"llama3.2","model":"llama3.2","message":{"content":"a"}}"#,
            r#"{"model":"llama3.2","message":{"content":"a","content":"b"}}"#,
            r#"{"model":"m","created_at":"a","created_at":"b","message":{"content":"a"}}"#,
            r#"{"model":"llama3.2","message":{"content":"a"}} trailing"#,
            r#"{"model":"llama3.2","message":{"content":"a"}"#,
            r#"{"model":"llama3.2","message":"text"}"#,
            r#"{"model":"llama3.2","done":"no"}"#,
        ];
        for data in lines {
            assert!(decode::<OllamaDecoder>(data).is_err(), "{data}");
            let path = assert_same_deltas::<OllamaDecoder>(&[], data);
            assert_eq!(path, Path::General, "{data}");
        }
    }
}
