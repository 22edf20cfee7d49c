//! Deterministic synthetic OpenAI chat-completion streams, shaped like the real thing: every
//! chunk carries `id`, `object`, `created`, `model`, `system_fingerprint`,
//! `choices[].delta`, `logprobs`, `finish_reason` and `usage: null` (as with
//! `stream_options.include_usage`), and the stream ends with a usage-only chunk and
//! `data: [DONE]`. OpenAI's newer random `obfuscation` padding is left out unless asked for
//! ([`Spec::with_obfuscation`]): not every compatible sends it.
//!
//! The same seed always gives the same bytes, so the Rust benches and the Python peers
//! (`benches/peers/peer.py`, fed by `cargo bench --bench write_streams`) see identical input.

use std::fmt::Write as _;
use std::ops::Range;

/// What a stream is made of. Each count is a number of deltas (chunks that carry new text or
/// argument text); the role, tool-call header, finish and usage chunks come on top.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// A short name for tables and file names.
    pub name: String,
    /// `reasoning_content` deltas per choice, sent before the text (DeepSeek-style).
    pub reasoning: usize,
    /// `content` deltas per choice.
    pub text: usize,
    /// Tool calls per choice, streamed one after another as OpenAI does.
    pub tool_calls: usize,
    /// Argument fragments per tool call.
    pub fragments_per_call: usize,
    /// Choices (`n`); their chunks are interleaved.
    pub choices: u32,
    /// Each chunk ends with OpenAI's `obfuscation` member: 0–15 random letters and digits.
    pub obfuscation: bool,
}

impl Spec {
    /// Text only: `deltas` content deltas.
    pub fn text(deltas: usize) -> Spec {
        Spec::new(format!("text-{}", short(deltas)), 0, deltas, 0, 0, 1)
    }

    /// Reasoning-heavy: 90% `reasoning_content` deltas, then 10% answer text.
    pub fn reasoning(deltas: usize) -> Spec {
        let reasoning = deltas * 9 / 10;
        Spec::new(
            format!("reasoning-{}", short(deltas)),
            reasoning,
            deltas - reasoning,
            0,
            0,
            1,
        )
    }

    /// One huge tool call whose arguments arrive in `fragments` fragments.
    pub fn one_tool_call(fragments: usize) -> Spec {
        Spec::new(format!("tool-{}", short(fragments)), 0, 0, 1, fragments, 1)
    }

    /// Sixteen parallel tool calls sharing `deltas` argument fragments.
    pub fn parallel_tools(deltas: usize) -> Spec {
        Spec::new(
            format!("parallel16-{}", short(deltas)),
            0,
            0,
            16,
            (deltas / 16).max(1),
            1,
        )
    }

    /// `n = 2`: two choices of text, `deltas` content deltas in all, interleaved.
    pub fn two_choices(deltas: usize) -> Spec {
        Spec::new(format!("n2-{}", short(deltas)), 0, deltas / 2, 0, 0, 2)
    }

    /// The stream of issue 3: 16,000 text deltas, then two parallel tool calls whose arguments
    /// arrive in 4,000 fragments each (7 MB here; "6 MB" in the issue, whose chunks were a
    /// little shorter).
    pub fn issue3() -> Spec {
        Spec::new("issue3-full".into(), 0, 16_000, 2, 4_000, 1)
    }

    /// The same shape at a quarter of the size.
    pub fn issue3_quarter() -> Spec {
        Spec::new("issue3-quarter".into(), 0, 4_000, 2, 1_000, 1)
    }

    /// The same shape at a sixteenth of the size (about 0.4 MB).
    pub fn issue3_sixteenth() -> Spec {
        Spec::new("issue3-sixteenth".into(), 0, 1_000, 2, 250, 1)
    }

    /// A stream with every count given.
    pub fn new(
        name: String,
        reasoning: usize,
        text: usize,
        tool_calls: usize,
        fragments_per_call: usize,
        choices: u32,
    ) -> Spec {
        Spec {
            name,
            reasoning,
            text,
            tool_calls,
            fragments_per_call,
            choices,
            obfuscation: false,
        }
    }

    /// The same stream as OpenAI sends it today, each chunk padded with `obfuscation`.
    pub fn with_obfuscation(mut self) -> Spec {
        self.name.push_str("-obfuscated");
        self.obfuscation = true;
        self
    }

    /// Deltas in the whole stream, over all choices.
    pub fn deltas(&self) -> usize {
        (self.reasoning + self.text + self.tool_calls * self.fragments_per_call)
            * self.choices as usize
    }

    /// Generates the stream.
    pub fn generate(&self) -> Stream {
        Generator::new(self).run()
    }
}

fn short(count: usize) -> String {
    if count >= 1000 && count.is_multiple_of(1000) {
        format!("{}k", count / 1000)
    } else {
        count.to_string()
    }
}

/// A generated stream with the positions the benches need, so that no timed loop has to find
/// them.
#[derive(Debug, Clone)]
pub struct Stream {
    /// The spec it was made from.
    pub spec: Spec,
    /// The `text/event-stream` body.
    pub bytes: Vec<u8>,
    /// Where each `data:` payload sits in `bytes` (including the final `[DONE]`).
    pub payloads: Vec<Range<usize>>,
    /// Where each event (its `data:` line and blank line) sits in `bytes`.
    pub events: Vec<Range<usize>>,
    /// Bytes of text, reasoning and argument text over all choices.
    pub content_bytes: usize,
}

impl Stream {
    /// Each payload as a `&str`: the SSE framing, done ahead of time for the floor.
    pub fn payload_strs(&self) -> Vec<&str> {
        self.payloads
            .iter()
            .map(|range| std::str::from_utf8(&self.bytes[range.clone()]).expect("generated UTF-8"))
            .collect()
    }

    /// Deltas in the stream.
    pub fn deltas(&self) -> usize {
        self.spec.deltas()
    }

    /// Bytes of the longest event.
    pub fn max_event_bytes(&self) -> usize {
        self.events
            .iter()
            .map(|event| event.len())
            .max()
            .unwrap_or(0)
    }
}

/// SplitMix64: tiny, fast and the same everywhere.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `range`.
    pub fn range(&mut self, range: Range<usize>) -> usize {
        range.start + (self.next_u64() % (range.end - range.start) as u64) as usize
    }

    /// True once in `n` times.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.next_u64().is_multiple_of(n)
    }

    fn alphanumeric(&mut self, len: usize) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        (0..len)
            .map(|_| ALPHABET[self.range(0..ALPHABET.len())] as char)
            .collect()
    }
}

const WORDS: [&str; 48] = [
    "the",
    "stream",
    "of",
    "tokens",
    "arrives",
    "in",
    "small",
    "pieces",
    "and",
    "each",
    "piece",
    "is",
    "a",
    "delta",
    "that",
    "must",
    "be",
    "appended",
    "to",
    "message",
    "so",
    "far",
    "while",
    "user",
    "watches",
    "answer",
    "grow",
    "on",
    "screen",
    "model",
    "writes",
    "about",
    "weather",
    "Beijing",
    "Paris",
    "function",
    "arguments",
    "JSON",
    "parser",
    "linear",
    "time",
    "memory",
    "buffer",
    "event",
    "server",
    "client",
    "network",
    "read",
];

/// A token of prose: mostly a word with its leading space, sometimes punctuation, a paragraph
/// break, a quotation or a non-ASCII word, which JSON escapes or carries as UTF-8.
fn token(rng: &mut Rng) -> &'static str {
    match rng.range(0..100) {
        0..=3 => ".",
        4..=5 => ",",
        6..=7 => "\n\n",
        8 => " \"quoted\"",
        9 => " café",
        10 => " — ",
        11 => " 北京",
        _ => WORDS[rng.range(0..WORDS.len())],
    }
}

struct Generator<'s> {
    spec: &'s Spec,
    rng: Rng,
    out: Vec<u8>,
    payloads: Vec<Range<usize>>,
    events: Vec<Range<usize>>,
    content_bytes: usize,
    id: String,
    fingerprint: String,
    scratch: String,
}

impl<'s> Generator<'s> {
    fn new(spec: &'s Spec) -> Self {
        let seed = spec.name.bytes().fold(0x000D_E17A_F01D_u64, |hash, byte| {
            hash.wrapping_mul(31).wrapping_add(byte as u64)
        });
        let mut rng = Rng::new(seed);
        let id = format!("chatcmpl-{}", rng.alphanumeric(29));
        let fingerprint = format!("fp_{:010x}", rng.next_u64() & 0xff_ffff_ffff);
        Generator {
            spec,
            rng,
            out: Vec::with_capacity(spec.deltas() * 260 + 4096),
            payloads: Vec::new(),
            events: Vec::new(),
            content_bytes: 0,
            id,
            fingerprint,
            scratch: String::new(),
        }
    }

    fn run(mut self) -> Stream {
        let choices = self.spec.choices;
        let mut scripts: Vec<Vec<DeltaJson>> = (0..choices).map(|_| self.script()).collect();
        let longest = scripts.iter().map(Vec::len).max().unwrap_or(0);
        let mut columns: Vec<std::vec::IntoIter<DeltaJson>> =
            scripts.drain(..).map(Vec::into_iter).collect();
        for _ in 0..longest {
            for (choice, column) in columns.iter_mut().enumerate() {
                if let Some(delta) = column.next() {
                    self.chunk(choice as u32, &delta.json, delta.finish);
                }
            }
        }
        self.usage_chunk();
        self.event("[DONE]");
        Stream {
            spec: self.spec.clone(),
            bytes: self.out,
            payloads: self.payloads,
            events: self.events,
            content_bytes: self.content_bytes,
        }
    }

    /// The `delta` objects of one choice, in order, ending with its finish chunk.
    fn script(&mut self) -> Vec<DeltaJson> {
        let spec = self.spec;
        let mut script = Vec::with_capacity(
            spec.reasoning + spec.text + spec.tool_calls * (spec.fragments_per_call + 1) + 2,
        );
        script.push(DeltaJson::new(
            r#"{"role":"assistant","content":"","refusal":null}"#.into(),
        ));
        for _ in 0..spec.reasoning {
            let text = token(&mut self.rng);
            self.content_bytes += text.len();
            script.push(DeltaJson::new(format!(
                r#"{{"content":null,"reasoning_content":{}}}"#,
                json_string(text)
            )));
        }
        for _ in 0..spec.text {
            let text = token(&mut self.rng);
            self.content_bytes += text.len();
            script.push(DeltaJson::new(format!(
                r#"{{"content":{}}}"#,
                json_string(text)
            )));
        }
        for call in 0..spec.tool_calls {
            let arguments = arguments_text(&mut self.rng, spec.fragments_per_call * 5);
            self.content_bytes += arguments.len();
            let call_id = format!("call_{}", self.rng.alphanumeric(24));
            script.push(DeltaJson::new(format!(
                r#"{{"tool_calls":[{{"index":{call},"id":"{call_id}","type":"function","function":{{"name":"write_report","arguments":""}}}}]}}"#
            )));
            for fragment in fragments(&mut self.rng, &arguments, spec.fragments_per_call) {
                script.push(DeltaJson::new(format!(
                    r#"{{"tool_calls":[{{"index":{call},"function":{{"arguments":{}}}}}]}}"#,
                    json_string(fragment)
                )));
            }
        }
        let reason = if spec.tool_calls > 0 {
            "tool_calls"
        } else {
            "stop"
        };
        script.push(DeltaJson {
            json: "{}".into(),
            finish: Some(reason),
        });
        script
    }

    fn chunk(&mut self, choice: u32, delta: &str, finish: Option<&str>) {
        let mut payload = std::mem::take(&mut self.scratch);
        payload.clear();
        let finish = finish.map_or("null".to_owned(), |reason| format!("\"{reason}\""));
        write!(
            payload,
            r#"{{"id":"{}","object":"chat.completion.chunk","created":1731000000,"model":"gpt-4o-2024-08-06","system_fingerprint":"{}","choices":[{{"index":{choice},"delta":{delta},"logprobs":null,"finish_reason":{finish}}}],"usage":null"#,
            self.id, self.fingerprint
        )
        .expect("writing to a String");
        if self.spec.obfuscation {
            let len = self.rng.range(0..16);
            let padding = self.rng.alphanumeric(len);
            write!(payload, r#","obfuscation":"{padding}""#).expect("writing to a String");
        }
        payload.push('}');
        self.event(&payload);
        self.scratch = payload;
    }

    fn usage_chunk(&mut self) {
        let completion = self.spec.deltas();
        let payload = format!(
            r#"{{"id":"{}","object":"chat.completion.chunk","created":1731000000,"model":"gpt-4o-2024-08-06","system_fingerprint":"{}","choices":[],"usage":{{"prompt_tokens":412,"completion_tokens":{completion},"total_tokens":{},"prompt_tokens_details":{{"cached_tokens":0,"audio_tokens":0}},"completion_tokens_details":{{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}}}}"#,
            self.id,
            self.fingerprint,
            completion + 412
        );
        self.event(&payload);
    }

    fn event(&mut self, payload: &str) {
        let start = self.out.len();
        self.out.extend_from_slice(b"data: ");
        let payload_start = self.out.len();
        self.out.extend_from_slice(payload.as_bytes());
        self.payloads.push(payload_start..self.out.len());
        self.out.extend_from_slice(b"\n\n");
        self.events.push(start..self.out.len());
    }
}

struct DeltaJson {
    json: String,
    finish: Option<&'static str>,
}

impl DeltaJson {
    fn new(json: String) -> Self {
        DeltaJson { json, finish: None }
    }
}

/// `text` as a JSON string literal.
pub fn json_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string serialises")
}

/// A JSON object of about `len` bytes, like a model filling in a report tool: a long prose
/// field (with escaped quotes and newlines), then an array of small records with numbers,
/// literals and nested arrays, so the partial-JSON scanner sees every kind of value.
pub fn arguments_text(rng: &mut Rng, len: usize) -> String {
    let mut prose = String::new();
    while prose.len() < len / 2 {
        prose.push_str(token(rng));
    }
    let mut text = format!(
        "{{\"title\": \"Weather report\", \"body\": {}, \"items\": [",
        json_string(&prose)
    );
    let mut item = 0u64;
    while text.len() + 2 < len {
        if item > 0 {
            text.push_str(", ");
        }
        let word = WORDS[rng.range(0..WORDS.len())];
        write!(
            text,
            "{{\"id\": {item}, \"name\": \"{word}\", \"score\": {}.{:02}, \"ok\": {}, \"tags\": [\"{word}\", null]}}",
            rng.range(0..100),
            rng.range(0..100),
            rng.one_in(2)
        )
        .expect("writing to a String");
        item += 1;
    }
    text.push_str("]}");
    text
}

/// Cuts `text` into `count` non-empty fragments of similar but varying size, at character
/// boundaries (a fragment may end inside an escape, as real streams do).
pub fn fragments<'t>(rng: &mut Rng, text: &'t str, count: usize) -> Vec<&'t str> {
    let count = count.clamp(1, text.len());
    let mut cuts = Vec::with_capacity(count + 1);
    cuts.push(0);
    for i in 1..count {
        let ideal = i * text.len() / count;
        let jitter = rng.range(0..5);
        let mut cut = (ideal + jitter).saturating_sub(2).min(text.len() - 1);
        cut = cut.max(cuts[cuts.len() - 1] + 1);
        while !text.is_char_boundary(cut) {
            cut += 1;
        }
        cuts.push(cut.min(text.len()));
    }
    cuts.push(text.len());
    cuts.windows(2)
        .map(|pair| &text[pair[0]..pair[1]])
        .filter(|fragment| !fragment.is_empty())
        .collect()
}

/// How the benches deliver a stream: all at once, in fixed reads, or in reads of varying size
/// like a network socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadSize {
    /// The whole stream in one read.
    One,
    /// Reads of exactly this many bytes.
    Fixed(usize),
    /// Reads of 1–4 KiB, varying deterministically.
    Network,
}

impl ReadSize {
    /// A label for tables.
    pub fn label(self) -> String {
        match self {
            ReadSize::One => "one read".into(),
            ReadSize::Fixed(bytes) => format!("{bytes} B reads"),
            ReadSize::Network => "1–4 KiB reads".into(),
        }
    }

    /// `bytes` cut into reads.
    pub fn split(self, bytes: &[u8]) -> Vec<&[u8]> {
        match self {
            ReadSize::One => vec![bytes],
            ReadSize::Fixed(size) => bytes.chunks(size).collect(),
            ReadSize::Network => {
                let mut rng = Rng::new(0x4B1D);
                let mut reads = Vec::with_capacity(bytes.len() / 2048 + 1);
                let mut rest = bytes;
                while !rest.is_empty() {
                    let size = rng.range(1024..4097).min(rest.len());
                    let (read, tail) = rest.split_at(size);
                    reads.push(read);
                    rest = tail;
                }
                reads
            }
        }
    }
}

/// One event of `bytes` carrying a `data:` line of `len` bytes of content (a single huge text
/// delta), framed as a complete stream.
pub fn one_huge_line(len: usize) -> Vec<u8> {
    let mut rng = Rng::new(0x1_0000);
    let mut text = String::with_capacity(len + 16);
    while text.len() < len {
        text.push_str(token(&mut rng));
    }
    let mut out = Vec::with_capacity(len + 512);
    out.extend_from_slice(
        br#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1731000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"role":"assistant","content":"#,
    );
    out.extend_from_slice(json_string(&text).as_bytes());
    out.extend_from_slice(br#"},"logprobs":null,"finish_reason":"stop"}]}"#);
    out.extend_from_slice(b"\n\ndata: [DONE]\n\n");
    out
}
