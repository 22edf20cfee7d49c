//! The strict reader of OpenAI chat: the chunks a stream is made of — the first one with the
//! role, text, reasoning and refusal pieces, a tool call's first fragment, the finish chunk and
//! the usage chunk — read without serde's generic machinery.
//!
//! It reads the chunk's known members only (`id`, `object`, `created`, `model`,
//! `system_fingerprint`, `service_tier`, `obfuscation`, at most one choice, `usage`), with plain
//! values: any other member, a repeated one, an escape outside the one text it may decode, a
//! value of another type or a second choice, and it gives up (`None`, nothing applied); the
//! general path of the parent module then reads the payload. So it only ever takes payloads the
//! general path decodes into the very same deltas, and every error comes from the general path.
//! What it read becomes deltas in [`decode`].

use super::usage_counts::UsageCounts;
use crate::dialect::cursor::{for_each_later_member, for_each_member, set_once, Cursor, Scanned};
use crate::message::ReadUsage;

mod decode;

/// A chunk as the strict reader took it.
#[derive(Default)]
pub(super) struct PlainChunk<'a> {
    id: Option<&'a str>,
    model: Option<&'a str>,
    created: Option<i64>,
    /// Members that may be `null` are `Some(None)` once read, so that a repeat is seen.
    system_fingerprint: Option<Option<&'a str>>,
    service_tier: Option<Option<&'a str>>,
    /// Whether a `choices` member was read (an empty array included).
    pub(super) has_choices: bool,
    choice: Option<PlainChoice<'a>>,
    /// The usage object (`null` is none).
    usage: Option<Option<PlainUsage<'a>>>,
    /// Where the `choices` member's value starts and ends: the bytes before it are the repeated
    /// prefix.
    pub(super) choices_at: Option<usize>,
    pub(super) choices_end: usize,
}

/// A usage object: its text, the provider's object read from it, and its counts.
struct PlainUsage<'a> {
    text: &'a str,
    read: ReadUsage,
    counts: UsageCounts,
}

/// The one choice of a chunk.
#[derive(Default)]
struct PlainChoice<'a> {
    index: Option<Option<u32>>,
    reasoning_content: Option<Option<Scanned<'a>>>,
    reasoning: Option<Option<Scanned<'a>>>,
    content: Option<Option<Scanned<'a>>>,
    refusal: Option<Option<Scanned<'a>>>,
    call: Option<PlainCall<'a>>,
    finish_reason: Option<Option<&'a str>>,
}

/// The one tool-call fragment of a choice's delta.
#[derive(Default)]
struct PlainCall<'a> {
    index: Option<Option<u32>>,
    id: Option<&'a str>,
    name: Option<&'a str>,
    arguments: Option<Scanned<'a>>,
}

/// Reads a whole chunk; `None` when it is not one the strict reader takes. At most one string
/// with escapes is decoded, into `scratch`.
pub(super) fn read_chunk<'a>(
    data: &'a str,
    scratch: &mut String,
    chunk: &mut PlainChunk<'a>,
) -> Option<()> {
    let mut cursor = Cursor::new(data);
    let mut decoded = false;
    for_each_member(&mut cursor, |cursor, key| {
        read_member(cursor, key, chunk, scratch, &mut decoded)
    })?;
    cursor.at_end().then_some(())
}

/// Reads what follows a known prefix: the choices array, then the chunk's other members and its
/// closing brace. Nothing of the prefix is in the result.
pub(super) fn read_after_prefix<'a>(
    rest: &'a str,
    scratch: &mut String,
    chunk: &mut PlainChunk<'a>,
) -> Option<()> {
    let mut cursor = Cursor::new(rest);
    let mut decoded = false;
    read_member(&mut cursor, "choices", chunk, scratch, &mut decoded)?;
    for_each_later_member(&mut cursor, |cursor, key| {
        // The prefix held the members before the choices; a second `choices` would replace
        // the first in the general parse.
        if key == "choices" {
            return None;
        }
        read_member(cursor, key, chunk, scratch, &mut decoded)
    })?;
    cursor.at_end().then_some(())
}

fn read_member<'a>(
    cursor: &mut Cursor<'a>,
    key: &str,
    chunk: &mut PlainChunk<'a>,
    scratch: &mut String,
    decoded: &mut bool,
) -> Option<()> {
    match key {
        "id" => set_once(&mut chunk.id, cursor.plain_string()?),
        "model" => set_once(&mut chunk.model, cursor.plain_string()?),
        "created" => set_once(&mut chunk.created, i64::try_from(cursor.count()?).ok()?),
        "system_fingerprint" => set_once(
            &mut chunk.system_fingerprint,
            nullable(cursor, Cursor::plain_string)?,
        ),
        "service_tier" => set_once(
            &mut chunk.service_tier,
            nullable(cursor, Cursor::plain_string)?,
        ),
        "object" | "obfuscation" => cursor.plain_string().map(drop),
        "choices" => {
            if chunk.has_choices {
                return None;
            }
            chunk.has_choices = true;
            chunk.choices_at = Some(cursor.position());
            read_choices(cursor, &mut chunk.choice, scratch, decoded)?;
            chunk.choices_end = cursor.position();
            Some(())
        }
        "usage" => read_usage(cursor, &mut chunk.usage),
        _ => None,
    }
}

/// `null` as `Some(None)`, else what `read` reads.
fn nullable<'a, T>(
    cursor: &mut Cursor<'a>,
    read: impl FnOnce(&mut Cursor<'a>) -> Option<T>,
) -> Option<Option<T>> {
    if cursor.eat("null") {
        return Some(None);
    }
    read(cursor).map(Some)
}

/// A string, decoded into `scratch` if it has escapes and no other string was.
fn text<'a>(
    cursor: &mut Cursor<'a>,
    scratch: &mut String,
    decoded: &mut bool,
) -> Option<Scanned<'a>> {
    let mut spare = String::new();
    let buffer = if *decoded { &mut spare } else { &mut *scratch };
    let scanned = cursor.string(buffer)?;
    if scanned == Scanned::Decoded {
        if *decoded {
            return None;
        }
        *decoded = true;
    }
    Some(scanned)
}

/// An index: an unsigned integer that fits a `u32`, or `null`.
fn index(cursor: &mut Cursor<'_>) -> Option<Option<u32>> {
    nullable(cursor, |cursor| u32::try_from(cursor.count()?).ok())
}

/// `[]`, or `[value]` read by `read`.
fn at_most_one<'a>(
    cursor: &mut Cursor<'a>,
    read: impl FnOnce(&mut Cursor<'a>) -> Option<()>,
) -> Option<()> {
    if !cursor.eat("[") {
        return None;
    }
    cursor.skip_whitespace();
    if cursor.eat("]") {
        return Some(());
    }
    read(cursor)?;
    cursor.skip_whitespace();
    cursor.eat("]").then_some(())
}

/// `[]` or `[choice]`.
fn read_choices<'a>(
    cursor: &mut Cursor<'a>,
    slot: &mut Option<PlainChoice<'a>>,
    scratch: &mut String,
    decoded: &mut bool,
) -> Option<()> {
    at_most_one(cursor, |cursor| {
        let mut choice = PlainChoice::default();
        // A second `delta` replaces the first in the general path: it is left to that path.
        let mut delta_read = false;
        for_each_member(cursor, |cursor, key| match key {
            "index" => set_once(&mut choice.index, index(cursor)?),
            "delta" if !std::mem::replace(&mut delta_read, true) => {
                read_delta(cursor, &mut choice, scratch, decoded)
            }
            "logprobs" => cursor.eat("null").then_some(()),
            "finish_reason" => set_once(
                &mut choice.finish_reason,
                nullable(cursor, Cursor::plain_string)?,
            ),
            _ => None,
        })?;
        *slot = Some(choice);
        Some(())
    })
}

fn read_delta<'a>(
    cursor: &mut Cursor<'a>,
    choice: &mut PlainChoice<'a>,
    scratch: &mut String,
    decoded: &mut bool,
) -> Option<()> {
    let mut role = None;
    let mut calls = None;
    for_each_member(cursor, |cursor, key| {
        let slot = match key {
            "role" => return set_once(&mut role, cursor.plain_string()?),
            "tool_calls" => {
                return set_once(
                    &mut calls,
                    read_call(cursor, &mut choice.call, scratch, decoded)?,
                )
            }
            "content" => &mut choice.content,
            "reasoning_content" => &mut choice.reasoning_content,
            "reasoning" => &mut choice.reasoning,
            "refusal" => &mut choice.refusal,
            _ => return None,
        };
        set_once(
            slot,
            nullable(cursor, |cursor| text(cursor, scratch, decoded))?,
        )
    })
}

/// `[]` or `[fragment]`: one tool-call fragment.
fn read_call<'a>(
    cursor: &mut Cursor<'a>,
    slot: &mut Option<PlainCall<'a>>,
    scratch: &mut String,
    decoded: &mut bool,
) -> Option<()> {
    at_most_one(cursor, |cursor| {
        let mut call = PlainCall::default();
        let mut kind = None;
        let mut function = None;
        for_each_member(cursor, |cursor, key| match key {
            "index" => set_once(&mut call.index, index(cursor)?),
            "id" => set_once(&mut call.id, cursor.plain_string()?),
            "type" => set_once(&mut kind, cursor.plain_string()?),
            "function" => set_once(
                &mut function,
                for_each_member(cursor, |cursor, key| match key {
                    "name" => set_once(&mut call.name, cursor.plain_string()?),
                    "arguments" => set_once(&mut call.arguments, text(cursor, scratch, decoded)?),
                    _ => None,
                })?,
            ),
            _ => None,
        })?;
        *slot = Some(call);
        Some(())
    })
}

/// An object whose values are counts, `null`, plain strings or objects of those (a usage
/// object), read into the provider's object and the counts as its members come.
/// `null` or a usage object, read where it goes (the reader's values are large, and every move
/// of one is a copy): `None` for a repeated `usage` member, which the general path reads.
fn read_usage<'a>(
    cursor: &mut Cursor<'a>,
    slot: &mut Option<Option<PlainUsage<'a>>>,
) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    if cursor.eat("null") {
        *slot = Some(None);
        return Some(());
    }
    let start = cursor.position();
    // Room for a usual usage object (about 300 bytes), never more than the payload has left:
    // what a hostile payload sends after it is not held.
    let usage = slot
        .insert(Some(PlainUsage {
            text: "",
            read: ReadUsage::with_capacity(cursor.remaining().min(512)),
            counts: UsageCounts::default(),
        }))
        .as_mut()?;
    let PlainUsage { read, counts, .. } = usage;
    for_each_member(cursor, |cursor, key| {
        let value = cursor.position();
        if cursor.peek() == Some(b'{') {
            let object = read.object(key);
            let details = counts.details(key);
            for_each_member(cursor, |cursor, inner| {
                let value = cursor.position();
                plain_scalar(cursor)?;
                let value = cursor.since(value);
                if let Some(object) = object {
                    read.scalar(Some(object), inner, value);
                }
                if let Some(details) = details {
                    counts.detail(details, inner, value);
                }
                Some(())
            })?;
            if details.is_none() {
                // An object where a count goes is no count: an earlier one goes.
                counts.member(key, cursor.since(value));
            }
            return Some(());
        }
        plain_scalar(cursor)?;
        let value = cursor.since(value);
        read.scalar(None, key, value);
        if counts.details(key).is_none() {
            counts.member(key, value);
        }
        Some(())
    })?;
    usage.text = cursor.since(start);
    Some(())
}

fn plain_scalar(cursor: &mut Cursor<'_>) -> Option<()> {
    match cursor.peek()? {
        b'"' => cursor.plain_string().map(drop),
        b'n' => cursor.eat("null").then_some(()),
        _ => cursor.count().map(drop),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use crate::dialect::decoder::DialectDecoder;
    use crate::dialect::openai_chat::OpenAiChatDecoder;
    use crate::dialect::test_support::{assert_same_deltas, frame, Path, Recorded};

    const HEAD: &str = r#""id":"chatcmpl-1","object":"chat.completion.chunk","created":1731000000,"model":"gpt-4o","system_fingerprint":"fp_1""#;

    fn chunk(choices: &str, after: &str) -> String {
        format!(r#"{{{HEAD},"choices":{choices}{after}}}"#)
    }

    fn choice(delta: &str, finish: &str) -> String {
        format!(r#"[{{"index":0,"delta":{delta},"logprobs":null,"finish_reason":{finish}}}]"#)
    }

    const USAGE: &str = r#","usage":{"prompt_tokens":412,"completion_tokens":7,"total_tokens":419,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":2,"audio_tokens":null}}"#;

    /// The chunks a stream is made of: read whole, or after a first chunk's prefix, by the
    /// strict reader, into what the general path applies.
    #[test]
    fn the_chunks_of_a_stream_read_as_the_general_path_reads_them() {
        let first = chunk(
            &choice(r#"{"role":"assistant","content":""}"#, "null"),
            ",\"usage\":null",
        );
        let taken = [
            first.clone(),
            chunk(
                &choice(r#"{"content":"a \"b\" \\ \n \u00e9 \ud83d\ude00"}"#, "null"),
                "",
            ),
            chunk(
                &choice(r#"{"reasoning_content":"","reasoning":"Hm"}"#, "null"),
                "",
            ),
            chunk(
                &choice(r#"{"reasoning_content":"Hm","reasoning":"Hm"}"#, "null"),
                "",
            ),
            chunk(&choice(r#"{"content":null,"refusal":"No"}"#, "null"), ""),
            chunk(
                &choice(
                    r#"{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}"#,
                    "null",
                ),
                "",
            ),
            chunk(
                &choice(
                    r#"{"tool_calls":[{"index":1,"function":{"arguments":"{\"city\": \"Paris\"}"}}]}"#,
                    "null",
                ),
                "",
            ),
            chunk(&choice("{}", r#""stop""#), ""),
            chunk(&choice("{}", r#""tool_calls""#), r#","usage":null"#),
            chunk("[]", USAGE),
            chunk("[]", r#","usage":{}"#),
            chunk("[]", r#","usage":{"x":"y"}"#),
            chunk(
                r#"[{"index":null,"delta":{"content":"x"}}]"#,
                r#","service_tier":"default","obfuscation":"a1B2""#,
            ),
            r#"{"choices":[],"id":"x","system_fingerprint":null}"#.to_string(),
            format!(" {{ {HEAD} , \"choices\" : [ ] }} "),
        ];
        for data in &taken {
            for earlier in [&[][..], &[first.as_str()][..]] {
                let path = assert_same_deltas::<OpenAiChatDecoder>(earlier, data);
                assert_eq!(path, Path::Fast, "{data}");
            }
        }
    }

    /// What the strict reader does not take goes to the general path, which reads it (or
    /// reports it) as before.
    #[test]
    fn anything_else_is_left_to_the_general_path() {
        let others = [
            // Members and values it does not read.
            chunk(
                &choice(r#"{"content":"a"}"#, "null"),
                r#","citations":["u"]"#,
            ),
            chunk(
                r#"[{"index":0,"delta":{"content":"a"},"logprobs":{"content":[]}}]"#,
                "",
            ),
            chunk(
                r#"[{"index":0,"delta":{"content":[{"type":"text","text":"a"}]}}]"#,
                "",
            ),
            chunk(&choice(r#"{"content":"a","annotations":[]}"#, "null"), ""),
            chunk("[]", r#","usage":{"prompt_tokens":1,"cost":0.5}"#),
            chunk("[]", r#","usage":{"prompt_tokens":1},"error":null"#),
            chunk(r#"[{"index":0,"delta":{}},{"index":1,"delta":{}}]"#, ""),
            chunk(
                &choice(
                    r#"{"tool_calls":[{"index":0,"function":{"arguments":"\""}},{"index":1}]}"#,
                    "null",
                ),
                "",
            ),
            // Two strings with escapes.
            chunk(&choice(r#"{"content":"\n","refusal":"\n"}"#, "null"), ""),
            // Repeats, after a `null` too: the derive refuses them, the general path says so.
            chunk(&choice(r#"{"content":null,"content":"a"}"#, "null"), ""),
            chunk(
                &choice(r#"{"content":"a"}"#, "null"),
                r#","usage":null,"usage":null"#,
            ),
            r#"{"id":"a","id":"b","choices":[]}"#.to_string(),
            // Escapes where it reads only plain strings, a negative or huge number.
            r#"{"id":"a\u0041","choices":[]}"#.to_string(),
            r#"{"created":-1,"choices":[]}"#.to_string(),
            r#"{"created":99999999999999999999,"choices":[]}"#.to_string(),
            chunk(r#"[{"index":4294967296,"delta":{}}]"#, ""),
            // Broken JSON.
            chunk(&choice(r#"{"content":"a"}"#, "null"), ","),
            format!("{{{HEAD},\"choices\":[]"),
            format!("{{{HEAD},\"choices\":[]}} x"),
        ];
        for data in &others {
            let path = assert_same_deltas::<OpenAiChatDecoder>(&[], data);
            assert_eq!(path, Path::General, "{data}");
        }
    }

    /// JSON text for a string, with escapes now and then.
    fn string() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z ]{0,6}",
            Just("a\"b\\c\n\u{e9}".to_owned()),
            Just("\u{1F600}".to_owned()),
        ]
        .prop_map(|text| serde_json::to_string(&text).unwrap())
    }

    /// A value of any kind a member might hold.
    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            string(),
            Just("null".to_owned()),
            Just("0".to_owned()),
            Just("7".to_owned()),
            Just("-1".to_owned()),
            Just("1.5".to_owned()),
            Just("true".to_owned()),
            Just("[]".to_owned()),
            Just("{}".to_owned()),
        ]
    }

    fn member(keys: &'static [&'static str]) -> impl Strategy<Value = String> {
        (proptest::sample::select(keys), value(), " ?")
            .prop_map(|(key, value, space)| format!(r#""{key}"{space}:{space}{value}"#))
    }

    /// An object of members drawn from `keys`, in any order, repeats included.
    fn object(
        keys: &'static [&'static str],
        inner: impl Strategy<Value = String>,
    ) -> impl Strategy<Value = String> {
        (
            proptest::collection::vec(prop_oneof![3 => member(keys), 1 => inner], 0..5),
            " ?",
        )
            .prop_map(|(members, space)| format!("{{{space}{}}}", members.join(",")))
    }

    fn chunk_text() -> impl Strategy<Value = String> {
        let call = object(
            &["index", "id", "type"],
            object(&["name", "arguments"], Just(r#""name":"f""#.to_owned()))
                .prop_map(|f| format!(r#""function":{f}"#)),
        );
        let delta = object(
            &[
                "role",
                "content",
                "reasoning_content",
                "reasoning",
                "refusal",
            ],
            proptest::collection::vec(call, 0..2)
                .prop_map(|calls| format!(r#""tool_calls":[{}]"#, calls.join(","))),
        );
        let choice = object(
            &["index", "logprobs", "finish_reason"],
            delta.prop_map(|d| format!(r#""delta":{d}"#)),
        );
        let details = object(
            &[
                "cached_tokens",
                "audio_tokens",
                "reasoning_tokens",
                "cache_write_tokens",
            ],
            Just(r#""x":1"#.to_owned()),
        );
        let usage = object(
            &[
                "prompt_tokens",
                "completion_tokens",
                "total_tokens",
                "prompt_cache_hit_tokens",
                "prompt_tokens_details",
            ],
            (
                proptest::sample::select(&["prompt_tokens_details", "completion_tokens_details"]),
                details,
            )
                .prop_map(|(key, d)| format!(r#""{key}":{d}"#)),
        );
        let choices = proptest::collection::vec(choice, 0..3)
            .prop_map(|c| format!(r#""choices":[{}]"#, c.join(",")));
        object(
            &[
                "id",
                "object",
                "created",
                "model",
                "system_fingerprint",
                "service_tier",
                "obfuscation",
                "citations",
            ],
            prop_oneof![choices, usage.prop_map(|u| format!(r#""usage":{u}"#))],
        )
    }

    proptest! {
        /// Whatever chunk it is given, read whole or after a repeated prefix, the strict reader
        /// applies what the general path applies, or leaves the chunk to it.
        #[test]
        fn generated_chunks_read_as_the_general_path_reads_them(data in chunk_text(), second in chunk_text()) {
            assert_same_deltas::<OpenAiChatDecoder>(&[], &data);
            // Only a chunk that decodes can come before another.
            let frame = frame(None, &data);
            let decodes = OpenAiChatDecoder::default()
                .decode_general(&frame, &data, &mut Recorded::default())
                .is_ok();
            if decodes {
                assert_same_deltas::<OpenAiChatDecoder>(&[data.as_str()], &second);
            }
        }
    }
}
