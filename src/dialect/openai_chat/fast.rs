//! The fast path of OpenAI chat: skipping what consecutive chunks repeat.
//!
//! Chat-completion chunks repeat the same `id`, `object`, `created`, `model`,
//! `system_fingerprint`… before the choices, often two thirds of a text chunk. Those members were
//! applied from the first chunk that carried them, and applying them again changes nothing
//! (first value wins), so a chunk that starts with the very same bytes is parsed from its
//! choices on.
//!
//! Within the choices, a streaming answer repeats one *shape*: the text between
//! `[{"index":0,"delta":{"content":"` and `"},"logprobs":null,"finish_reason":null}]` changes,
//! the rest does not; the same holds for reasoning, refusals and tool-call argument fragments. Once a chunk of that shape has been parsed in full, a chunk
//! whose choices match it byte for byte around the one string is the same JSON structure with
//! another string: only that string is read (by the strict reader of `dialect::cursor`, which
//! leaves any string it doubts to the full parse, so escapes and errors are handled exactly as
//! there), and the deltas are the ones the full parse would have produced.
//!
//! A chunk that does not repeat a known shape is read by the strict reader ([`plain`]: the first
//! chunk, a finish or usage chunk, a tool call's first fragment), from its choices on when it
//! repeats the prefix. Anything it does not take — a new value, other spacing, a second choice —
//! is parsed the ordinary way, which reports any error exactly as for any other chunk. Nothing
//! of a chunk is applied before all of it has parsed.

use super::custom_calls::CustomCalls;
use super::payload::{ChoiceChunk, Chunk};
use super::plain::{self, PlainChunk};
use super::shape::{Learned, Recorder, Shape, StringKind};
use super::{choice_index, OpenAiChatDecoder};
use crate::delta::{Delta, DeltaSink};
use crate::dialect::cursor::{Cursor, Scanned};
use crate::error::Error;
use crate::framing::Frame;

/// Shapes remembered at once: two interleaved choices, or a few tool calls taking turns.
const MAX_SHAPES: usize = 4;

/// Decodes a chunk that repeats the previous chunk's bytes up to its choices from there on, and
/// one the strict reader takes whole; `None` for any other, which the general path then reads.
pub(super) fn decode(
    decoder: &mut OpenAiChatDecoder,
    _frame: &Frame<'_>,
    data: &str,
    sink: &mut impl DeltaSink,
) -> Option<Result<(), Error>> {
    let OpenAiChatDecoder {
        repeats,
        scratch,
        confirming,
        custom,
        ..
    } = decoder;
    if let Some(rest) = repeats.after_prefix(data) {
        if let Some(decoded) = repeats.decode(rest, scratch, custom, sink) {
            return Some(decoded);
        }
    }
    let mut chunk = PlainChunk::default();
    plain::read_chunk(data, scratch, &mut chunk)?;
    // A chunk with choices and only chat's own members confirms a tentative detection; one
    // without is left to the general path, which tells another dialect's payload.
    if *confirming && !chunk.has_choices {
        return None;
    }
    *confirming = false;
    let choices_at = chunk.choices_at;
    let decoded = chunk.decode(scratch, sink);
    if decoded.is_ok() {
        repeats.remember_prefix_before(data, choices_at);
    }
    Some(decoded)
}

/// A payload that repeats the stream's chunks with another string, read but not applied: how
/// long it is and the one delta it comes to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Repeated<'a> {
    len: usize,
    kind: StringKind,
    choice: u32,
    text: &'a str,
}

impl<'a> Repeated<'a> {
    /// The payload's length in bytes, from the start of the line it was read from.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The one delta the payload comes to, as a full parse would produce it. Built where it is
    /// applied: returned whole from a call, a delta was stored and loaded again by parts.
    #[inline(always)]
    pub(crate) fn delta(&self) -> Delta<'a> {
        self.kind.delta(self.choice, self.text)
    }
}

/// What the chunks of one stream repeat.
#[derive(Debug, Default)]
pub(super) struct Repeats {
    /// The previous fully parsed chunk's bytes up to and including `"choices":`; empty when
    /// unknown.
    prefix: String,
    /// Reused to parse the members after the choices as an object of their own.
    tail: String,
    /// The first `known` are this stream's; those after them are kept, emptied, for their
    /// buffers.
    shapes: Vec<Shape>,
    known: usize,
    /// The shape to replace next once [`MAX_SHAPES`] are known.
    next_slot: usize,
}

impl Repeats {
    /// The rest of `data` after the previous chunk's prefix, if it starts with it.
    fn after_prefix<'d>(&self, data: &'d str) -> Option<&'d str> {
        if self.prefix.is_empty() {
            return None;
        }
        data.strip_prefix(self.prefix.as_str())
    }

    /// Forgets the stream for a new one, keeping the buffers.
    pub(super) fn reset(&mut self) {
        self.prefix.clear();
        self.known = 0;
        self.next_slot = 0;
    }

    /// Remembers the bytes of a fully parsed chunk up to its `"choices":`.
    pub(super) fn remember_prefix(&mut self, data: &str) {
        self.remember_prefix_before(data, choices_member_end(data));
    }

    /// Remembers `data` up to `end`, where its top-level `"choices":` ends (found by a reader
    /// that took no escape before it), or forgets the prefix.
    fn remember_prefix_before(&mut self, data: &str, end: Option<usize>) {
        let prefix = end
            .and_then(|end| data.get(..end))
            .filter(|prefix| prefix.ends_with("\"choices\":"))
            .unwrap_or_default();
        if prefix == self.prefix {
            return;
        }
        self.prefix.clear();
        self.prefix.push_str(prefix);
        for shape in &mut self.shapes[..self.known] {
            shape.set_prefix(prefix);
        }
    }

    /// Reads a payload at the start of `line` that repeats the prefix and a known shape with
    /// another string and applies nothing else: its length and its one delta, for an event
    /// stream's reader, which takes the event without framing it first. `None` for anything
    /// else, which is framed and decoded as usual. Nothing is applied here.
    ///
    /// No line break can hide in what matches: a shape has a line head only if neither it nor
    /// the prefix holds one, and a JSON string stops at any control character, so the reader
    /// only needs to find the blank line right after the payload.
    #[inline]
    pub(super) fn read_repeated<'a>(
        &self,
        line: &'a str,
        scratch: &'a mut String,
    ) -> Option<Repeated<'a>> {
        let shape = self.shapes[..self.known]
            .iter()
            .find(|shape| shape.line_head().is_some_and(|head| line.starts_with(head)))?;
        let (literal, members) = read_shape(shape, &line[self.prefix.len()..], scratch)?;
        let tail = nothing_applied_len(members)?;
        let text = literal.resolve(scratch);
        if shape.kind == StringKind::Reasoning && text.is_empty() {
            return None;
        }
        Some(Repeated {
            len: line.len() - members.len() + tail,
            kind: shape.kind,
            choice: shape.choice,
            text,
        })
    }

    /// Decodes a chunk from its choices array on (`rest`), its earlier members being known.
    /// `None` when the rest does not read as `[choices] (, members)* }`: the caller then parses
    /// the whole payload.
    fn decode(
        &mut self,
        rest: &str,
        scratch: &mut String,
        custom: &mut CustomCalls,
        sink: &mut impl DeltaSink,
    ) -> Option<Result<(), Error>> {
        let Repeats {
            tail,
            shapes,
            known,
            ..
        } = self;
        for shape in shapes[..*known]
            .iter()
            .filter(|shape| rest.starts_with(shape.before()))
        {
            if let Some(decoded) = decode_shape(shape, rest, tail, scratch, custom, sink) {
                return Some(decoded);
            }
        }
        let mut chunk = PlainChunk::default();
        if plain::read_after_prefix(rest, scratch, &mut chunk).is_some() {
            let mut recorder = Recorder::new(sink);
            let decoded = chunk.decode_choices(scratch, &mut recorder);
            let learned = recorder.shape(rest, chunk.choices_end);
            let one_choice = chunk.has_one_choice();
            let decoded = decoded
                .and_then(|()| chunk.decode_later_metadata(sink))
                .and_then(|()| chunk.decode_usage(sink));
            if let (Ok(()), true, Some(shape)) = (&decoded, one_choice, learned) {
                self.learn(shape);
            }
            return Some(decoded);
        }
        let mut choices_then_more =
            serde_json::Deserializer::from_str(rest).into_iter::<Vec<ChoiceChunk<'_>>>();
        let choices = choices_then_more.next()?.ok()?;
        let choices_end = choices_then_more.byte_offset();
        let more = parse_members(&rest[choices_end..], tail)?;
        // An empty `choices` with response-level fields is recognised by the whole chunk's
        // rule: left to the general path (found by the generated-chunks property).
        if choices.is_empty() && more.as_ref().is_some_and(Chunk::brings_response_fields) {
            return None;
        }
        let mut recorder = Recorder::new(sink);
        let decoded = (|| {
            for (position, choice) in choices.iter().enumerate() {
                choice.decode(choice_index(choice.index, position), custom, &mut recorder)?;
            }
            Ok(())
        })();
        let learned = recorder.shape(rest, choices_end);
        let decoded = decoded.and_then(|()| decode_members(more, custom, sink));
        if let (Ok(()), [_], Some(shape)) = (&decoded, choices.as_slice(), learned) {
            self.learn(shape);
        }
        Some(decoded)
    }

    fn learn(&mut self, learned: Learned<'_>) {
        let slot = if self.known < MAX_SHAPES {
            if self.shapes.len() == self.known {
                self.shapes.push(Shape::default());
            }
            self.known += 1;
            self.known - 1
        } else {
            let slot = self.next_slot;
            self.next_slot = (slot + 1) % MAX_SHAPES;
            slot
        };
        self.shapes[slot].learn(&self.prefix, learned);
    }
}

/// Decodes `rest` as `shape` with another string, or `None` when it is not that.
fn decode_shape(
    shape: &Shape,
    rest: &str,
    tail: &mut String,
    scratch: &mut String,
    custom: &mut CustomCalls,
    sink: &mut impl DeltaSink,
) -> Option<Result<(), Error>> {
    let (literal, members) = read_shape(shape, rest, scratch)?;
    let text = literal.resolve(scratch);
    // A full parse skips an empty reasoning string (it looks for the field that has text).
    if shape.kind == StringKind::Reasoning && text.is_empty() {
        return None;
    }
    // The string delta opens its choice itself: a choice delta before it would add nothing. It
    // is built where it is applied: moved there, it was stored and loaded again by parts.
    if applies_nothing(members) {
        return Some(sink.apply(shape.kind.delta(shape.choice, text)));
    }
    let more = parse_members(members, tail)?;
    Some(
        sink.apply(shape.kind.delta(shape.choice, text))
            .and_then(|()| decode_members(more, custom, sink)),
    )
}

/// The string of `rest` (a chunk from its choices on) where `shape` has it, if `rest` is that
/// shape up to the end of its choices, and the members after them.
#[inline(always)]
fn read_shape<'r>(
    shape: &Shape,
    rest: &'r str,
    scratch: &mut String,
) -> Option<(Scanned<'r>, &'r str)> {
    // `before` ends with the string's opening quote: the literal starts there.
    let literal_start = shape.before().len() - 1;
    let mut literal = Cursor::new(rest.get(literal_start..)?);
    let text = literal.string(scratch)?;
    let after_string = literal_start + literal.position();
    let members = rest[after_string..].strip_prefix(shape.after())?;
    Some((text, members))
}

/// The length of what `members` (a chunk's bytes after its choices) starts with that applies
/// nothing, if it does: what nearly every chunk ends with — `}`, or `,"usage":null}` — either
/// with OpenAI's `obfuscation` padding before the `}` (on the drop list: random characters that
/// carry nothing), as a string without escapes or control characters. No parse is needed to
/// know it, and no line break can hide in it.
fn nothing_applied_len(members: &str) -> Option<usize> {
    const USAGE: &[u8] = b",\"usage\":null";
    const OBFUSCATION: &[u8] = b",\"obfuscation\":\"";
    let bytes = members.as_bytes();
    let mut at = if bytes.starts_with(USAGE) {
        USAGE.len()
    } else {
        0
    };
    if bytes[at..].starts_with(OBFUSCATION) {
        at += OBFUSCATION.len();
        let value = bytes[at..]
            .iter()
            .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)?;
        at += value;
        if bytes[at] != b'"' {
            return None;
        }
        at += 1;
    }
    (bytes.get(at) == Some(&b'}')).then_some(at + 1)
}

fn applies_nothing(after_choices: &str) -> bool {
    nothing_applied_len(after_choices) == Some(after_choices.len())
}

/// Parses the members after the choices array (`, "usage": null }` …) as an object of their
/// own, in `scratch`. `None` where the whole chunk would read otherwise: a comma not followed by
/// a member (`}],}`, which the full parse refuses), a member without a comma before it, or a
/// second `choices` member (the full parse takes the last one, not both).
/// `Some(None)` for the tails that apply nothing.
fn parse_members<'t>(after_choices: &str, scratch: &'t mut String) -> Option<Option<Chunk<'t>>> {
    if applies_nothing(after_choices) {
        return Some(None);
    }
    let after = after_choices.trim_ascii_start();
    let members = match after.strip_prefix(',') {
        Some(members) if members.trim_ascii_start().starts_with('"') => members,
        None if after.starts_with('}') => after,
        _ => return None,
    };
    scratch.clear();
    scratch.push('{');
    scratch.push_str(members);
    let chunk: Chunk<'t> = serde_json::from_str(scratch).ok()?;
    (!chunk.has_choices).then_some(Some(chunk))
}

/// Applies the members after the choices, if they apply anything: the stream has started (the
/// prefix came from an applied chunk), so an empty metadata delta would change nothing.
fn decode_members(
    members: Option<Chunk<'_>>,
    custom: &mut CustomCalls,
    sink: &mut impl DeltaSink,
) -> Result<(), Error> {
    match members {
        Some(members) => members.decode(custom, sink),
        None => Ok(()),
    }
}

/// Where the top-level `"choices":` member's value starts, if the bytes before it are plain
/// enough (no escapes) to be compared byte for byte.
fn choices_member_end(data: &str) -> Option<usize> {
    const KEY: &str = "\"choices\":";
    let at = memchr::memmem::find(data.as_bytes(), KEY.as_bytes())?;
    let before = &data.as_bytes()[..at];
    if before.contains(&b'\\') {
        return None;
    }
    // Without escapes a string ends at the next quote: strings, most of these bytes, are skipped
    // whole.
    let mut depth = 0i32;
    let mut position = 0;
    while let Some(&byte) = before.get(position) {
        match byte {
            b'"' => position += memchr::memchr(b'"', &before[position + 1..])? + 1,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth -= 1,
            _ => {}
        }
        position += 1;
    }
    (depth == 1).then_some(at + KEY.len())
}

#[cfg(test)]
mod tests {
    use super::{choices_member_end, nothing_applied_len};
    use crate::dialect::openai_chat::OpenAiChatDecoder;
    use crate::dialect::test_support::{assert_same_deltas, Path};

    /// The tails that apply nothing, and only those, are known without a parse; anything the
    /// general parse must see (a value, an escape, a line break, a member more) is not.
    #[test]
    fn only_tails_that_apply_nothing_are_known_without_a_parse() {
        for (members, known) in [
            ("}", Some(1)),
            ("}\n\n", Some(1)),
            (r#","usage":null}"#, Some(14)),
            (r#","obfuscation":""}"#, Some(18)),
            (r#","obfuscation":"aZ09é"} "#, Some(24)),
            (r#","usage":null,"obfuscation":"xy"}"#, Some(33)),
            (r#","obfuscation":"x\"y"}"#, None),
            (",\"obfuscation\":\"x\ny\"}", None),
            (r#","obfuscation":"xy","usage":null}"#, None),
            (r#","obfuscation":"xy"#, None),
            (r#","usage":{"total_tokens":1}}"#, None),
            (r#","usage":null,"provider":"P"}"#, None),
            (r#" }"#, None),
            ("", None),
        ] {
            assert_eq!(nothing_applied_len(members), known, "{members:?}");
        }
    }

    /// A chunk of one choice whose delta is `delta`, after the members every chunk repeats.
    fn chunk(delta: &str) -> String {
        chunk_with(delta, "null", "")
    }

    fn chunk_with(delta: &str, finish_reason: &str, after_choices: &str) -> String {
        format!(
            r#"{{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{{"index":0,"delta":{delta},"logprobs":null,"finish_reason":{finish_reason}}}]{after_choices}}}"#
        )
    }

    #[test]
    fn repeated_chunks_apply_what_the_general_path_applies() {
        let first = chunk(r#"{"role":"assistant","content":""}"#);
        let shapes = [
            r#"{"content":"Hi"}"#,
            r#"{"reasoning_content":"Hm"}"#,
            r#"{"refusal":"No"}"#,
            r#"{"tool_calls":[{"index":1,"function":{"arguments":"{\"a\""}}]}"#,
        ];
        for shape in shapes {
            let learned = chunk(shape);
            let earlier = [first.as_str(), learned.as_str()];
            let texts = [
                "",
                "there",
                r#"a \"b\" \\ \n \u00e9 \ud83d\ude00"#,
                r#""},"logprobs":null,"#,
            ];
            for text in texts {
                let quoted = shape.replacen(
                    ["\"Hi\"", "\"Hm\"", "\"No\"", r#""{\"a\"""#]
                        .into_iter()
                        .find(|literal| shape.contains(literal))
                        .unwrap(),
                    &serde_json::to_string(text).unwrap(),
                    1,
                );
                let data = chunk(&quoted);
                let path = assert_same_deltas::<OpenAiChatDecoder>(&earlier, &data);
                assert_eq!(path, Path::Fast, "{data}");
            }
        }
        let earlier = [first.as_str()];
        let others = [
            chunk_with(r#"{}"#, r#""stop""#, ""),
            chunk_with(
                r#"{"content":"a"}"#,
                "null",
                r#","usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}"#,
            ),
            chunk_with(
                r#"{"content":"a"}"#,
                "null",
                r#","system_fingerprint":"fp","x":[1]"#,
            ),
            chunk_with(r#"{"content":"a"}"#, "null", r#","usage":null"#),
            first.replace(
                r#"[{"index":0,"#,
                r#"[{"index":1,"delta":{"content":"b"}},{"index":0,"#,
            ),
        ];
        for data in &others {
            let path = assert_same_deltas::<OpenAiChatDecoder>(&earlier, data);
            assert_eq!(path, Path::Fast, "{data}");
        }
    }

    #[test]
    fn other_chunks_are_left_to_the_strict_reader_or_the_general_path() {
        let first = chunk(r#"{"content":"Hi"}"#);
        let learned = chunk(r#"{"content":"there"}"#);
        let earlier = [first.as_str(), learned.as_str()];
        // Another prefix (another id, other spacing) is read whole by the strict reader.
        let whole = [
            first.replace("chatcmpl-1", "chatcmpl-2"),
            first.replacen(r#""id":"#, r#""id" :"#, 1),
        ];
        for data in &whole {
            let path = assert_same_deltas::<OpenAiChatDecoder>(&earlier, data);
            assert_eq!(path, Path::Fast, "{data}");
        }
        let path = assert_same_deltas::<OpenAiChatDecoder>(&[], &first);
        assert_eq!(path, Path::Fast, "{first}");
        let others = [
            // What the general parse refuses.
            chunk(r#"{"content":"\ud83d"}"#),
            chunk(r#"{"content":"a","content":5}"#),
            chunk_with(r#"{"content":"a"}"#, "null", "} x"),
            first.replace(r#""finish_reason":null}]}"#, r#""finish_reason":null}]"#),
            // A trailing comma, or a member without its comma.
            chunk_with(r#"{"content":"a"}"#, "null", ","),
            chunk_with(r#"{"content":"a"}"#, "null", r#" "usage":null"#),
            // A second `choices` member: the full parse takes the last one only.
            chunk_with(
                r#"{"content":"A"}"#,
                "null",
                r#","choices":[{"index":0,"delta":{"content":"B"}}]"#,
            ),
            chunk_with(r#"{"content":"there"}"#, "null", r#","choices":[]"#),
        ];
        for data in &others {
            let path = assert_same_deltas::<OpenAiChatDecoder>(&earlier, data);
            assert_eq!(path, Path::General, "{data}");
        }
    }

    #[test]
    fn a_chunk_with_choices_twice_reads_as_its_full_parse_however_often_it_repeats() {
        let twice = chunk_with(
            r#"{"content":"A"}"#,
            "null",
            r#","choices":[{"index":0,"delta":{"content":"B"}}]"#,
        );
        for repeats in 0..3 {
            let earlier = vec![twice.as_str(); repeats];
            assert_same_deltas::<OpenAiChatDecoder>(&earlier, &twice);
        }
    }

    #[test]
    fn the_choices_member_is_found_at_the_top_level_only() {
        let top = r#"{"id":"a{[","choices":[]}"#;
        let after_key = top.find(r#""choices":"#).unwrap() + r#""choices":"#.len();
        assert_eq!(choices_member_end(top), Some(after_key));
        // The first `"choices":` is a nested key: no repeated prefix is known.
        assert_eq!(
            choices_member_end(r#"{"x":{"choices":1},"choices":[]}"#),
            None
        );
        // Bytes with an escape before it are not compared.
        assert_eq!(choices_member_end(r#"{"id":"a\"b","choices":[]}"#), None);
        assert_eq!(choices_member_end(r#"{"id":"a"}"#), None);
    }
}
