//! Hostile streams of issue 11, generated at any size: one class per finding (streams of empty
//! or tiny items, maps with new keys in every event, long names and ids, calls without ids…),
//! and a structure-aware generator that turns a few fuzzer bytes into a large stream mixing
//! those classes. Shared by `benches/hostile.rs` (figures), `fuzz/fuzz_targets/hostile.rs`
//! (oracles at random) and `tests/memory/` (the same oracles under proptest on every run).
//!
//! Plain `format!` strings, no JSON library: the fuzz crate includes this file by path.

use std::fmt::Write as _;

/// The dialect a class is written in, so a caller can also force it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// OpenAI chat completions.
    Chat,
    /// Anthropic Messages.
    Anthropic,
    /// OpenAI Responses.
    Responses,
    /// Gemini.
    Gemini,
}

/// One class of hostile stream: a header, the same kind of event repeated, a footer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// `content` arrays of empty `{}` parts.
    EmptyContentParts,
    /// `logprobs.content` arrays of empty `{}` entries.
    EmptyLogprobs,
    /// Anthropic one-byte text deltas alternating between blocks 0 and 1 (two blocks).
    AnthropicAlternating,
    /// Chat usage-only chunks, each with keys no earlier chunk had.
    ChatUsageKeys,
    /// Gemini `usageMetadata` with new keys in every chunk.
    GeminiUsageKeys,
    /// Anthropic blocks of an unknown type, each given an `input_json_delta`, never stopped.
    AnthropicUnknownBlocks,
    /// Anthropic `tool_use` starts carrying their whole `input`.
    AnthropicToolUseInputs,
    /// OpenAI Responses items, each with a new item id.
    ResponsesItemIds,
    /// Tool calls with long names and ids.
    LongNamesAndIds,
    /// Long `finish_reason` strings on many choices.
    FinishReasons,
    /// Tool calls without ids across 16 choices (generated `call_df_<n>` ids).
    CallsWithoutIds,
    /// Fragments addressed by a long id and no index.
    LongIdFragments,
    /// Chunks whose `choices` member appears twice.
    DuplicateChoices,
    /// Responses `output_index` past `u32`.
    BigOutputIndex,
    /// `logprobs` objects with keys no earlier chunk had.
    LogprobsKeys,
    /// Top-level fields with keys no earlier chunk had, over 16 choices (not 128: each choice
    /// costs its fixed size, and 128 of them opened in 7 KB pass the constant allowance).
    ResponseFieldKeys,
    /// An unknown top-level field holding a list of `width` empty `{}` in every event.
    DenseField,
    /// The same in an unknown field of the choice.
    DenseChoiceField,
    /// Gemini `functionCall.args` holding a list of `width` empty `{}`, a call per event.
    DenseGeminiArgs,
    /// `{}` tool calls with ids spread over 128 choices (the default caps: 128 × 1,024).
    ManyChoicesCalls,
    /// Chat reasoning and text taking turns a byte at a time: two blocks, but an output item
    /// per turn re-encoded to Responses, each repeated in `response.completed`.
    ReasoningTextTurns,
    /// Chat refusal and text taking turns a byte at a time: a message part per turn in
    /// Responses.
    RefusalTextTurns,
}

impl Class {
    /// Every class, in the order of the issue.
    pub const ALL: [Class; 22] = [
        Class::EmptyContentParts,
        Class::EmptyLogprobs,
        Class::AnthropicAlternating,
        Class::ChatUsageKeys,
        Class::GeminiUsageKeys,
        Class::AnthropicUnknownBlocks,
        Class::AnthropicToolUseInputs,
        Class::ResponsesItemIds,
        Class::LongNamesAndIds,
        Class::FinishReasons,
        Class::CallsWithoutIds,
        Class::LongIdFragments,
        Class::DuplicateChoices,
        Class::BigOutputIndex,
        Class::LogprobsKeys,
        Class::ResponseFieldKeys,
        Class::DenseField,
        Class::DenseChoiceField,
        Class::DenseGeminiArgs,
        Class::ManyChoicesCalls,
        Class::ReasoningTextTurns,
        Class::RefusalTextTurns,
    ];

    /// A short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Class::EmptyContentParts => "empty content parts",
            Class::EmptyLogprobs => "empty logprobs entries",
            Class::AnthropicAlternating => "Anthropic blocks alternating",
            Class::ChatUsageKeys => "chat usage, new keys per event",
            Class::GeminiUsageKeys => "Gemini usage, new keys per event",
            Class::AnthropicUnknownBlocks => "unknown Anthropic blocks + input_json_delta",
            Class::AnthropicToolUseInputs => "Anthropic tool_use start inputs",
            Class::ResponsesItemIds => "Responses item ids",
            Class::LongNamesAndIds => "long tool names and ids",
            Class::FinishReasons => "long finish_reason strings",
            Class::CallsWithoutIds => "calls without ids, 16 choices",
            Class::LongIdFragments => "fragments addressed by a long id",
            Class::DuplicateChoices => "duplicate `choices`",
            Class::BigOutputIndex => "Responses output_index >= 2^32",
            Class::LogprobsKeys => "logprobs, new keys per event",
            Class::ResponseFieldKeys => "top-level fields, new keys per event, 16 choices",
            Class::DenseField => "unknown field of `width` {} per event",
            Class::DenseChoiceField => "choice's unknown field of `width` {} per event",
            Class::DenseGeminiArgs => "Gemini args of `width` {} per call",
            Class::ManyChoicesCalls => "{} calls with ids over 128 choices",
            Class::ReasoningTextTurns => "chat reasoning and text taking turns",
            Class::RefusalTextTurns => "chat refusal and text taking turns",
        }
    }

    /// The dialect the class is written in.
    pub fn family(self) -> Family {
        match self {
            Class::AnthropicAlternating
            | Class::AnthropicUnknownBlocks
            | Class::AnthropicToolUseInputs => Family::Anthropic,
            Class::ResponsesItemIds | Class::BigOutputIndex => Family::Responses,
            Class::GeminiUsageKeys | Class::DenseGeminiArgs => Family::Gemini,
            _ => Family::Chat,
        }
    }

    /// Peak heap ÷ input this class may reach with the default limits: [`PEAK_PER_INPUT`], except
    /// where the message model itself holds more than that per byte of input (measured at
    /// 1 MiB: 6.9 × for calls without ids, 5.6 × for small `tool_use` blocks (found by the
    /// fuzz target), 4.4 × for unknown blocks): a
    /// pending call, its ids and its finished `ToolCall` with parsed arguments (about 1.6 KB)
    /// for each small call; the map and open-block slot of an Anthropic block of unknown type;
    /// and for top-level fields of new keys (11.4 × at 600 KB), the `serde_json` map
    /// `ResponseMetadata::extra` is: about 130 bytes for a 12-byte `,"k1_2":1`.
    pub fn peak_per_input(self) -> usize {
        match self {
            Class::ResponseFieldKeys => 16,
            // A call's own cost within the plain bound, and its parsed arguments within the
            // response's room for parsed trees: up to `DENSE_PER_HELD` (2, src/assemble/
            // budget.rs) times everything else held, past [`PARSED_ALLOWANCE`] (which
            // [`Case::check`] adds to the constant): 3 × 4. Re-encoded into Responses, each
            // call's closed item (about its input event) is held for `response.completed` and
            // written again in it: 2 more. Measured on the class alone with the default limits,
            // 16–256 KiB of input, 1–1,024 `{}` a call: at most 12.4 × in one read (131 KB of
            // 20 `{}` a call; a call's ids, text and block about 1 KB, its parsed `{"a":[…]}`
            // 0.6 KB of `serde_json` values, for 178 bytes of input) and 17.8 × re-encoded into
            // Responses (98 KB, 18 `{}` a call), 0.92 of this bound.
            Class::DenseGeminiArgs => (1 + DENSE_PER_HELD) * PEAK_PER_INPUT + 2,
            Class::CallsWithoutIds
            | Class::AnthropicToolUseInputs
            | Class::LongNamesAndIds
            | Class::ManyChoicesCalls => 8,
            Class::AnthropicUnknownBlocks => 5,
            // Re-encoded to Responses, an output item (or message part) per one-byte turn,
            // about 230 bytes of JSON for 100 of input, held as text for `response.completed`
            // and then written in it (4.8 × and 5.4 × at 512 KiB); the assembler alone holds
            // two blocks.
            Class::ReasoningTextTurns | Class::RefusalTextTurns => 8,
            _ => PEAK_PER_INPUT,
        }
    }

    /// Bytes allocated ÷ input this class may reach: [`WORK_PER_INPUT`], except for the turns
    /// re-encoded to Responses, where every one-byte turn writes six events (about 4 KB of
    /// output for 100 bytes of input, each event built as a `serde_json` value): linear, and
    /// 255 × and 175 × their input at 512 KiB.
    pub fn work_per_input(self) -> usize {
        match self {
            Class::ReasoningTextTurns | Class::RefusalTextTurns => 4 * WORK_PER_INPUT,
            _ => WORK_PER_INPUT,
        }
    }

    /// Whether the class's events carry dense trees that the library parses within the
    /// response's room ([`PARSED_ALLOWANCE`] and [`DENSE_PER_HELD`] times the rest).
    pub fn parses_dense_trees(self) -> bool {
        matches!(
            self,
            Class::DenseField | Class::DenseChoiceField | Class::DenseGeminiArgs
        )
    }

    /// Whether the class opens up to the default `max_choices` (128) choices, each with its
    /// own structs whatever its input ([`CHOICES_ALLOWANCE`]).
    pub fn opens_many_choices(self) -> bool {
        self == Class::ManyChoicesCalls
    }

    /// The width each event gets in the figures: items per event, or bytes of a name or id.
    pub fn default_width(self) -> usize {
        match self {
            Class::EmptyContentParts | Class::EmptyLogprobs => 1000,
            Class::DenseField | Class::DenseChoiceField | Class::DenseGeminiArgs => 1 << 16,
            Class::ChatUsageKeys
            | Class::GeminiUsageKeys
            | Class::LogprobsKeys
            | Class::ResponseFieldKeys => 100,
            Class::LongNamesAndIds | Class::FinishReasons | Class::LongIdFragments => 64 * 1024,
            Class::AnthropicToolUseInputs => 1024,
            _ => 1,
        }
    }

    /// What opens the stream.
    pub fn header(self, out: &mut String, width: usize) {
        match self.family() {
            Family::Anthropic => out.push_str("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"c\",\"usage\":{\"input_tokens\":1}}}\n\n"),
            Family::Responses => out.push_str("data: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\",\"model\":\"g\",\"created_at\":1,\"status\":\"in_progress\"}}\n\n"),
            Family::Gemini | Family::Chat => {}
        }
        match self {
            Class::AnthropicAlternating => {
                for index in 0..2 {
                    let _ = write!(out, "event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":{index},\"content_block\":{{\"type\":\"text\",\"text\":\"\"}}}}\n\n");
                }
            }
            Class::ChatUsageKeys | Class::DuplicateChoices | Class::FinishReasons => {
                out.push_str(
                    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n",
                );
            }
            Class::LongIdFragments => {
                let id = "i".repeat(width);
                let _ = write!(out, "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":0,\"id\":\"{id}\",\"type\":\"function\",\"function\":{{\"name\":\"f\",\"arguments\":\"\"}}}}]}}}}]}}\n\n");
            }
            _ => {}
        }
    }

    /// Event number `i` of the repeated part.
    pub fn event(self, out: &mut String, i: usize, width: usize) {
        let width = width.max(1);
        match self {
            Class::EmptyContentParts => {
                out.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":[");
                repeat_joined(out, "{}", width);
                out.push_str("]}}]}\n\n");
            }
            Class::EmptyLogprobs => {
                out.push_str(
                    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":{\"content\":[",
                );
                repeat_joined(out, "{}", width);
                out.push_str("]}}]}\n\n");
            }
            Class::AnthropicAlternating => {
                let _ = write!(out, "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":{},\"delta\":{{\"type\":\"text_delta\",\"text\":\"a\"}}}}\n\n", i % 2);
            }
            Class::ChatUsageKeys => {
                out.push_str(
                    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":1",
                );
                new_keys(out, i, width);
                out.push_str("}}\n\n");
            }
            Class::GeminiUsageKeys => {
                out.push_str("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\"}],\"role\":\"model\"},\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":1");
                new_keys(out, i, width);
                out.push_str("}}\n\n");
            }
            Class::AnthropicUnknownBlocks => {
                let _ = write!(out, "event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":{i},\"content_block\":{{\"type\":\"mystery\"}}}}\n\n");
                let _ = write!(out, "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":{i},\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":\"{}\"}}}}\n\n", "x".repeat(width.min(1 << 16)));
            }
            Class::AnthropicToolUseInputs => {
                let _ = write!(out, "event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":{i},\"content_block\":{{\"type\":\"tool_use\",\"id\":\"toolu_{i}\",\"name\":\"f\",\"input\":{{\"a\":\"{}\"}}}}}}\n\n", "x".repeat(width));
                let _ = write!(out, "event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":{i}}}\n\n");
            }
            Class::ResponsesItemIds => {
                let _ = write!(out, "data: {{\"type\":\"response.output_item.added\",\"output_index\":{i},\"item\":{{\"type\":\"message\",\"id\":\"msg_{i}{}\",\"role\":\"assistant\",\"content\":[]}}}}\n\n", "i".repeat(width - 1));
            }
            Class::LongNamesAndIds => {
                let long = "n".repeat(width);
                let _ = write!(out, "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{i},\"id\":\"{long}{i}\",\"type\":\"function\",\"function\":{{\"name\":\"{long}\",\"arguments\":\"{{}}\"}}}}]}}}}]}}\n\n");
            }
            Class::FinishReasons => {
                let _ = write!(out, "data: {{\"choices\":[{{\"index\":{},\"delta\":{{}},\"finish_reason\":\"{}{i}\"}}]}}\n\n", i % 128, "r".repeat(width));
            }
            Class::CallsWithoutIds => {
                let _ = write!(out, "data: {{\"choices\":[{{\"index\":{},\"delta\":{{\"tool_calls\":[{{\"index\":{},\"function\":{{\"name\":\"f\",\"arguments\":\"{{}}\"}}}}]}}}}]}}\n\n", i % 16, i / 16);
            }
            Class::LongIdFragments => {
                let id = "i".repeat(width);
                let _ = write!(out, "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"id\":\"{id}\",\"function\":{{\"arguments\":\"a\"}}}}]}}}}]}}\n\n");
            }
            Class::DuplicateChoices => {
                out.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"A\"}}],\"choices\":[{\"index\":0,\"delta\":{\"content\":\"B\"}}]}\n\n");
            }
            Class::LogprobsKeys => {
                out.push_str(
                    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":{\"content\":[]",
                );
                new_keys(out, i, width);
                out.push_str("}}]}\n\n");
            }
            Class::ResponseFieldKeys => {
                let _ = write!(
                    out,
                    "data: {{\"choices\":[{{\"index\":{},\"delta\":{{\"content\":\"a\"}}}}]",
                    i % 16
                );
                new_keys(out, i, width);
                out.push_str("}\n\n");
            }
            Class::DenseField => {
                out.push_str(
                    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}],\"x\":[",
                );
                repeat_joined(out, "{}", width);
                out.push_str("]}\n\n");
            }
            Class::DenseChoiceField => {
                out.push_str(
                    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"x\":[",
                );
                repeat_joined(out, "{}", width);
                out.push_str("]}]}\n\n");
            }
            Class::DenseGeminiArgs => {
                out.push_str("data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":{\"a\":[");
                repeat_joined(out, "{}", width);
                out.push_str("]}}}],\"role\":\"model\"},\"index\":0}]}\n\n");
            }
            Class::ManyChoicesCalls => {
                let _ = write!(out, "data: {{\"choices\":[{{\"index\":{},\"delta\":{{\"tool_calls\":[{{\"index\":{},\"id\":\"c{i}\",\"function\":{{\"name\":\"f\",\"arguments\":\"{{}}\"}}}}]}}}}]}}\n\n", i % 128, i / 128);
            }
            Class::ReasoningTextTurns | Class::RefusalTextTurns => {
                let other = if self == Class::ReasoningTextTurns {
                    "reasoning_content"
                } else {
                    "refusal"
                };
                let field = if i.is_multiple_of(2) {
                    other
                } else {
                    "content"
                };
                let _ = write!(
                    out,
                    "data: {{\"choices\":[{{\"delta\":{{\"{field}\":\"a\"}}}}]}}\n\n"
                );
            }
            Class::BigOutputIndex => {
                let index = (1u64 << 32) + i as u64;
                let _ = write!(out, "data: {{\"type\":\"response.output_item.added\",\"output_index\":{index},\"item\":{{\"type\":\"function_call\",\"id\":\"fc_{i}\",\"call_id\":\"call_{i}\",\"name\":\"f\",\"arguments\":\"\"}}}}\n\n");
            }
        }
    }

    /// What closes the stream.
    pub fn footer(self, out: &mut String) {
        match self.family() {
            Family::Anthropic => out.push_str("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"),
            Family::Responses => out.push_str("data: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"status\":\"completed\"}}\n\n"),
            Family::Gemini => out.push_str("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"b\"}],\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}]}\n\n"),
            Family::Chat => out.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"),
        }
    }

    /// A whole stream of this class of about `size` bytes, with `width` per event.
    pub fn stream(self, size: usize, width: usize) -> Vec<u8> {
        self.case(size, width, None).bytes
    }

    /// The same stream as a case read with the detected dialect and `max_message_bytes`.
    pub fn case(self, size: usize, width: usize, max_message_bytes: Option<usize>) -> Case {
        let mut out = String::with_capacity(size + 4096);
        self.header(&mut out, width);
        let mut largest_event = out.len();
        let mut i = 0;
        while out.len() < size {
            let before = out.len();
            self.event(&mut out, i, width);
            largest_event = largest_event.max(out.len() - before);
            i += 1;
        }
        self.footer(&mut out);
        Case {
            bytes: out.into_bytes(),
            forced: None,
            max_message_bytes,
            classes: vec![self],
            largest_event,
        }
    }
}

/// `item` `count` times, comma-separated.
fn repeat_joined(out: &mut String, item: &str, count: usize) {
    for n in 0..count {
        if n > 0 {
            out.push(',');
        }
        out.push_str(item);
    }
}

/// `count` keys no other event has: `,"k<event>_<n>":1`.
fn new_keys(out: &mut String, event: usize, count: usize) {
    for key in 0..count {
        let _ = write!(out, ",\"k{event}_{key}\":1");
    }
}

/// A stream built from fuzzer bytes, with how to read it.
#[derive(Debug, Clone)]
pub struct Case {
    /// The stream.
    pub bytes: Vec<u8>,
    /// Force the dialect of the first class instead of detecting it.
    pub forced: Option<Family>,
    /// Read with `max_message_bytes` = this (else the default limits).
    pub max_message_bytes: Option<usize>,
    /// The classes the stream mixes, first one first.
    pub classes: Vec<Class>,
    /// Bytes of the largest event.
    pub largest_event: usize,
}

/// Reads the fuzzer's bytes one at a time, zeros once they run out.
struct Dice<'a> {
    bytes: &'a [u8],
}

impl Dice<'_> {
    fn byte(&mut self) -> u8 {
        match self.bytes.split_first() {
            Some((&first, rest)) => {
                self.bytes = rest;
                first
            }
            None => 0,
        }
    }

    fn below(&mut self, n: usize) -> usize {
        let value = usize::from(self.byte()) | usize::from(self.byte()) << 8;
        value % n.max(1)
    }
}

impl Case {
    /// Turns fuzzer bytes into a stream of up to about `max_size` bytes: a first class (its
    /// header and dialect), then runs of events, each of a class (mostly the first one's
    /// family, sometimes any: random dialect framing), a count and a width; CRLF line ends,
    /// a forced dialect and a 1 MiB or tiny message limit on some bytes.
    pub fn from_bytes(seed: &[u8], max_size: usize) -> Case {
        let mut dice = Dice { bytes: seed };
        let first = Class::ALL[dice.below(Class::ALL.len())];
        let flags = dice.byte();
        let forced = (flags & 1 != 0).then(|| first.family());
        let max_message_bytes = match (flags >> 1) & 3 {
            1 => Some(1 << 20),
            2 => Some(4096 + dice.below(1 << 16)),
            _ => None,
        };
        let crlf = flags & 8 != 0;
        let mut out = String::new();
        first.header(&mut out, 1 + dice.below(64));
        let mut classes = vec![first];
        let mut event = 0;
        let mut largest_event = out.len();
        while out.len() < max_size && !dice.bytes.is_empty() {
            let class = if dice.byte().is_multiple_of(8) {
                Class::ALL[dice.below(Class::ALL.len())]
            } else {
                let same: Vec<Class> = Class::ALL
                    .into_iter()
                    .filter(|class| class.family() == first.family())
                    .collect();
                same[dice.below(same.len())]
            };
            if !classes.contains(&class) {
                classes.push(class);
            }
            let count = 1 + dice.below(4096);
            let width = match dice.byte() % 4 {
                0 => 1,
                1 => 1 + dice.below(16),
                2 => 1 + dice.below(1024),
                _ => 1 + dice.below(1 << 16),
            };
            for _ in 0..count {
                if out.len() >= max_size {
                    break;
                }
                let before = out.len();
                class.event(&mut out, event, width);
                largest_event = largest_event.max(out.len() - before);
                event += 1;
            }
        }
        if !dice.byte().is_multiple_of(4) {
            first.footer(&mut out);
        }
        if crlf {
            out = out.replace('\n', "\r\n");
        }
        Case {
            bytes: out.into_bytes(),
            forced,
            max_message_bytes,
            classes,
            largest_event: largest_event * if crlf { 2 } else { 1 },
        }
    }
}

impl Family {
    /// The dialect to force for this family.
    pub fn dialect(self) -> deltafold::Dialect {
        match self {
            Family::Chat => deltafold::Dialect::OpenAiChat,
            Family::Anthropic => deltafold::Dialect::Anthropic,
            Family::Responses => deltafold::Dialect::OpenAiResponses,
            Family::Gemini => deltafold::Dialect::Gemini,
        }
    }
}

impl Case {
    /// The options this case is read with.
    pub fn options(&self) -> deltafold::Options {
        let mut options = deltafold::Options::new();
        if let Some(family) = self.forced {
            options = options.dialect(family.dialect());
        }
        if let Some(max) = self.max_message_bytes {
            options = options.max_message_bytes(max);
        }
        options
    }
}

/// What reading a case cost, as a counting allocator saw it.
#[derive(Debug, Clone, Copy)]
pub struct Cost {
    /// Highest heap above the level before reading.
    pub peak: usize,
    /// Bytes all allocations asked for, reallocations included: the work oracle (a pass over
    /// everything held per event, or a clone of a growing map, makes it grow with the square).
    pub allocated: usize,
}

/// Peak heap ÷ input bytes allowed (plus [`PEAK_CONSTANT`]) for most classes
/// ([`Class::peak_per_input`]).
pub const PEAK_PER_INPUT: usize = 4;
/// Peak heap allowed whatever the input: buffers, tables, the `Completion`'s own structs.
pub const PEAK_CONSTANT: usize = 256 * 1024;
/// What the library lets a response's parsed trees (tool arguments, provider values) hold
/// whatever else it holds (`DENSE_ALLOWANCE`, src/assemble/budget.rs): allowed on top of
/// [`PEAK_CONSTANT`] when a case has a class of dense trees ([`Class::parses_dense_trees`]).
pub const PARSED_ALLOWANCE: usize = 8 * 1024 * 1024;
/// How many times everything else held the library lets parsed trees hold past
/// [`PARSED_ALLOWANCE`] (`DENSE_PER_HELD`, src/assemble/budget.rs).
pub const DENSE_PER_HELD: usize = 2;
/// What the choices a stream may open whatever its input hold (the default `max_choices`, 128,
/// each a message, its metadata and a call: about 2.9 KB measured, from events of about 120
/// bytes): allowed on top of [`PEAK_CONSTANT`] for a class that opens them
/// ([`Class::opens_many_choices`]). 128 choices of one call, 15.5 KB in, peaked at 374 KB.
pub const CHOICES_ALLOWANCE: usize = 128 * 3 * 1024;
/// Peak heap ÷ the largest event allowed on top: parsing one event into `serde_json` values
/// holds up to about 30 times its text while it is read (80 bytes for a 3-byte `{}`).
pub const PEAK_PER_EVENT: usize = 32;
/// Peak heap ÷ `max_message_bytes` allowed under a limit, plus [`PEAK_PER_EVENT`] × the
/// largest event.
pub const PEAK_PER_LIMIT: usize = 4;
/// Bytes allocated in all ÷ input bytes allowed (plus [`PEAK_CONSTANT`]).
pub const WORK_PER_INPUT: usize = 128;

impl Case {
    /// The largest allowance any of the case's classes has.
    fn most(&self, allowance: fn(Class) -> usize) -> usize {
        self.classes
            .iter()
            .map(|&class| allowance(class))
            .max()
            .unwrap_or(0)
    }

    /// The oracles: a stream error is typed, has its place and the partial; the peak heap is
    /// within [`Class::peak_per_input`] × the input (plus [`PEAK_PER_EVENT`] × its largest
    /// event, [`PARSED_ALLOWANCE`] when a class parses dense trees and [`CHOICES_ALLOWANCE`]
    /// when one opens many choices) and within what the
    /// limit allows; the bytes
    /// allocated are linear in the input.
    pub fn check(
        &self,
        outcome: &Result<deltafold::Completion, deltafold::Error>,
        cost: Cost,
    ) -> Result<(), String> {
        let input = self.bytes.len();
        if let Err(error) = outcome {
            if error.partial().is_none() {
                return Err(format!("{error} carries no partial"));
            }
            if error.location().is_none() {
                return Err(format!("{error} has no location"));
            }
        }
        let per_input = self.most(Class::peak_per_input);
        let any = |has: fn(Class) -> bool| self.classes.iter().any(|class| has(*class));
        let mut constant = PEAK_CONSTANT;
        if any(Class::parses_dense_trees) {
            constant += PARSED_ALLOWANCE;
        }
        if any(Class::opens_many_choices) {
            constant += CHOICES_ALLOWANCE;
        }
        let by_input = per_input * input + PEAK_PER_EVENT * self.largest_event + constant;
        if cost.peak > by_input {
            return Err(format!(
                "peak {} bytes for {input} bytes of input (bound {by_input})",
                cost.peak
            ));
        }
        if let Some(max) = self.max_message_bytes {
            let by_limit =
                PEAK_PER_LIMIT * max + PEAK_PER_EVENT * self.largest_event + PEAK_CONSTANT;
            if cost.peak > by_limit {
                return Err(format!(
                    "peak {} bytes under max_message_bytes = {max}, largest event {} (bound {by_limit})",
                    cost.peak, self.largest_event
                ));
            }
        }
        // What the allowances let a case hold is allocated at least once too (the parsed trees'
        // room, the choices): the same constant.
        let work_per_input = self.most(Class::work_per_input);
        let work = work_per_input * input + constant;
        if cost.allocated > work {
            return Err(format!(
                "allocated {} bytes for {input} bytes of input (bound {work})",
                cost.allocated
            ));
        }
        Ok(())
    }
}
