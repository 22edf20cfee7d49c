//! One tool call while it streams: id and name as first sent, the argument text with its
//! incremental scanner, and the parsed call once it is finished. The call keeps its own
//! invariants: an id or name is set once, more argument text reopens a finished call.

use serde_json::{Map, Value};

use super::accumulation::{Accumulation, Taken};
use crate::assemble::budget::{tree_cost, ContentBudget};
use crate::assemble::{CompletedJson, PartialJson};
use crate::delta::Held;
use crate::message::{ContentBlock, InvalidToolCall, ToolCall};

/// A tool call while it streams: id and name as first sent, the argument text so far with its
/// incremental scanner, and — once its choice finished — the parsed result.
#[derive(Debug, Clone)]
pub struct PendingToolCall {
    position: u32,
    provider_index: Option<u32>,
    id: String,
    name: String,
    arguments: PartialJson,
    /// Whether streamed fragments are appended or each the whole text so far.
    accumulation: Accumulation,
    /// Provider data that travels with the call (Gemini's signature), copied into the result;
    /// boxed, as most calls have none.
    extras: Option<Box<Map<String, Value>>>,
    /// The parsed call; `None` until the call finishes, and again once more text reopens it.
    /// Boxed: a pending call stays about as small as the other blocks.
    finished: Option<Box<ContentBlock>>,
}

impl PendingToolCall {
    pub(super) fn new(position: u32, provider_index: Option<u32>) -> Self {
        PendingToolCall {
            position,
            provider_index,
            id: String::new(),
            name: String::new(),
            arguments: PartialJson::new(),
            accumulation: Accumulation::default(),
            extras: None,
            finished: None,
        }
    }

    /// The call's position among its message's tool calls.
    pub fn position(&self) -> u32 {
        self.position
    }

    /// The index the provider keyed this call by, if it sent one.
    pub fn provider_index(&self) -> Option<u32> {
        self.provider_index
    }

    /// The call id; empty until the provider sends one (an id is generated at the end if it
    /// never does).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The tool name; empty until the provider sends it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The argument text so far, as the live deltas showed it: as streamed, except that while a
    /// call's fragments may each be the whole text so far (a few hosts send them so), what they
    /// add is held back until that is decided (see `docs/dialects.md`).
    pub fn arguments(&self) -> &str {
        self.arguments.as_str()
    }

    /// The arguments as they stand, completed into valid JSON in O(nesting depth): see
    /// [`PartialJson`] for how unfinished strings, numbers, literals and keys are shown.
    pub fn partial(&self) -> Option<CompletedJson<'_>> {
        self.arguments.completion()
    }

    /// The arguments as they stand, parsed (costs a parse of the text so far).
    pub fn partial_value(&self) -> Option<Value> {
        self.arguments.value()
    }

    /// Provider data that travels with the call (see [`ToolCall::extras`]), if any came yet.
    pub fn extras(&self) -> Option<&Map<String, Value>> {
        self.extras.as_deref()
    }

    /// The argument text with its scan, for the event that shows it.
    pub(crate) fn argument_text(&self) -> &PartialJson {
        &self.arguments
    }

    /// Scans the argument text pushed since the last read, in place, before an event shows it.
    pub(crate) fn catch_up_scan(&mut self) {
        self.arguments.catch_up();
    }

    /// The parsed call, once its choice has finished.
    pub fn finished(&self) -> Option<&ContentBlock> {
        self.finished.as_deref()
    }

    /// Sets id and name from a fragment: the first non-empty value wins and is never
    /// concatenated, since some providers repeat both in every fragment. Returns the bytes of
    /// id and of name taken now (0 when kept from before), so the table can index a new id and
    /// the budget count both.
    pub(super) fn absorb_identity(
        &mut self,
        id: Option<&str>,
        name: Option<&str>,
    ) -> (usize, usize) {
        let mut name_taken = 0;
        if let Some(name) = name.filter(|name| !name.is_empty()) {
            if self.name.is_empty() {
                self.name.push_str(name);
                name_taken = name.len();
            }
        }
        match id.filter(|id| !id.is_empty()) {
            Some(id) if self.id.is_empty() => {
                self.id.push_str(id);
                (id.len(), name_taken)
            }
            _ => (0, name_taken),
        }
    }

    /// Sets a provider field of the call (it replaces an earlier value), on the finished result
    /// too, since a provider may send it after a call it sent whole.
    pub(super) fn set_extra(&mut self, name: &str, value: Value) {
        if let Some(ContentBlock::ToolCall(call)) = self.finished.as_deref_mut() {
            call.extras.insert(name.to_owned(), value.clone());
        }
        self.extras
            .get_or_insert_with(Box::default)
            .insert(name.to_owned(), value);
    }

    /// Gives a call the provider left without an id the one the table generated for it.
    pub(super) fn set_generated_id(&mut self, id: String) {
        debug_assert!(self.id.is_empty() && self.finished.is_none());
        self.id = id;
    }

    /// Appends argument text; returns the byte range it occupies in the arguments. Text after
    /// the call was finished reopens it: it is parsed again when it finishes again.
    pub(super) fn push_arguments(&mut self, fragment: &str) -> (usize, usize) {
        self.finished = None;
        let start = self.arguments.len();
        self.arguments.push_str(fragment);
        (start, self.arguments.len())
    }

    /// Takes a streamed fragment: all of it is appended, or — from a host that sends the whole
    /// text so far in every fragment — what it adds, held back while it is undecided which
    /// (see [`Accumulation`]). Charge [`Taken::fresh`], then [`show`](Self::show) it.
    #[inline]
    pub(super) fn take_fragment<'f>(&mut self, fragment: &'f str) -> Taken<'f> {
        self.accumulation.take(self.arguments.as_str(), fragment)
    }

    /// Applies a taken fragment to the argument text; returns the byte range of the arguments
    /// it added, for a delta, `None` when it added none. Text after the call was finished
    /// reopens it.
    pub(super) fn show(&mut self, taken: Taken<'_>) -> Option<(usize, usize)> {
        let from = self.arguments.len();
        match taken {
            Taken::Shown("") | Taken::Held(_) => return None,
            Taken::Shown(text) => {
                self.push_arguments(text);
            }
            Taken::Released { text, .. } => {
                self.push_arguments(&text);
            }
            Taken::Replaced { text, .. } => self.replace_arguments(&text),
        }
        (from < self.arguments.len()).then(|| (from, self.arguments.len()))
    }

    /// Whole arguments the provider repeats at the end of a call win over the fragments (and
    /// over any held back). Returns the byte range of them to show as one more delta: what
    /// follows the text shown, when they continue it.
    pub(super) fn take_whole_arguments(&mut self, full: &str) -> Option<(usize, usize)> {
        self.accumulation = Accumulation::Appended;
        let shown = self.arguments.as_str();
        if full == shown {
            return None;
        }
        if full.starts_with(shown) {
            let start = shown.len();
            Some(self.push_arguments(&full[start..]))
        } else {
            self.replace_arguments(full);
            None
        }
    }

    /// Replaces the argument text (the provider sent it whole and different); reopens the call.
    fn replace_arguments(&mut self, arguments: &str) {
        self.finished = None;
        self.accumulation = Accumulation::Appended;
        self.arguments = PartialJson::new();
        self.arguments.push_str(arguments);
    }

    pub(super) fn is_finished(&self) -> bool {
        self.finished.is_some()
    }

    /// The finished call as a message block, parsed here if it was not finished yet (the fold
    /// finishes every call before it builds the message; judged alone here, with the allowance
    /// any response has).
    pub(crate) fn into_content(mut self) -> ContentBlock {
        match self.finished.take() {
            Some(finished) => *finished,
            None => {
                let mut unlimited = ContentBudget::new(usize::MAX);
                self.conclude(&unlimited);
                self.parsed(&mut unlimited)
            }
        }
    }

    /// Parses the arguments once: empty → `{}`, a JSON object → a tool call, anything else → an
    /// invalid tool call with the raw text and the reason. The tree is parsed only if the
    /// budget has room for it ([`ContentBudget::room_to_parse`]), and charged to it. Returns the
    /// byte range of the arguments still to show as a delta: the text held while the fragments'
    /// reading was undecided, decided now.
    pub(super) fn finish(&mut self, budget: &mut ContentBudget) -> Option<(usize, usize)> {
        let range = self.conclude(budget);
        self.finished = Some(Box::new(self.parsed(budget)));
        range
    }

    /// Decides the fragments' reading if it is still open; returns what it added to show.
    pub(super) fn conclude(&mut self, budget: &ContentBudget) -> Option<(usize, usize)> {
        let taken = self
            .accumulation
            .conclude(self.arguments.as_str(), |text| {
                parse_arguments(text, budget).is_ok()
            })?;
        self.show(taken)
    }

    fn parsed(&self, budget: &mut ContentBudget) -> ContentBlock {
        match parse_arguments(self.arguments.as_str(), budget) {
            Ok((args, held)) => {
                // Within the room just checked: the limit is not passed.
                let _ = budget.charge_tree(held);
                ContentBlock::ToolCall(ToolCall {
                    id: self.id.clone(),
                    name: self.name.clone(),
                    args,
                    extras: self.extras.as_deref().cloned().unwrap_or_default(),
                })
            }
            Err(error) => ContentBlock::InvalidToolCall(InvalidToolCall {
                id: self.id.clone(),
                name: self.name.clone(),
                args: self.arguments.as_str().to_owned(),
                error,
                extras: self.extras.as_deref().cloned().unwrap_or_default(),
            }),
        }
    }
}

/// The arguments parsed, with what their tree holds (to charge); not parsed when the budget has
/// no room for the tree their text would make.
fn parse_arguments(
    text: &str,
    budget: &ContentBudget,
) -> Result<(Map<String, Value>, Held), String> {
    // An empty object holds nothing more than empty text: never judged, so that a call of `{}`
    // never becomes an invalid call whose reason holds more than its tree would (at the end of
    // a response past its limit, 2,222 such calls held 536 KB of reasons).
    let json_whitespace = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r');
    let inner = text.trim_matches(json_whitespace);
    let inner = inner
        .strip_prefix('{')
        .and_then(|inner| inner.strip_suffix('}'));
    if text.trim().is_empty()
        || inner.is_some_and(|inner| inner.trim_matches(json_whitespace).is_empty())
    {
        return Ok((Map::new(), Held::default()));
    }
    let held = Held {
        entries: Held::entries_in_text(text),
        bytes: text.len(),
    };
    if !budget.room_to_parse(tree_cost(held.entries, held.bytes)) {
        let mut reason = format!(
            "the arguments hold {} values in {} bytes: parsed, they would hold many times \
             their size, more than the response has room for",
            held.entries,
            text.len()
        );
        // Without `format!`'s spare capacity (as much again), the reason holds less than the
        // tree of two entries or more it stands for: a refusal never holds more than a parse.
        reason.shrink_to_fit();
        return Err(reason);
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(args)) => held_exactly(text).map(|()| (args, held)),
        Ok(other) => Err(format!(
            "arguments are a JSON {}, not an object",
            json_kind(&other)
        )),
        Err(error) => Err(format!("arguments are not valid JSON: {error}")),
    }
}

/// Refuses arguments with a number the parsed `Value` does not hold as sent (without the
/// `arbitrary_precision` feature, an integer past 64 bits or a decimal past `f64`), so that a
/// tool never receives another number than the model sent.
fn held_exactly(text: &str) -> Result<(), String> {
    #[cfg(not(feature = "arbitrary_precision"))]
    if let Some(number) = super::exact::first_inexact_number(text) {
        return Err(format!(
            "the number {} cannot be held exactly (deltafold's `arbitrary_precision` feature \
             keeps it as sent)",
            crate::error::snippet(number)
        ));
    }
    #[cfg(feature = "arbitrary_precision")]
    let _ = text;
    Ok(())
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finish(arguments: &str) -> ContentBlock {
        let mut call = PendingToolCall::new(0, Some(0));
        call.absorb_identity(Some("call_1"), Some("f"));
        call.push_arguments(arguments);
        call.finish(&mut ContentBudget::new(usize::MAX));
        call.finished().cloned().expect("finished")
    }

    #[test]
    fn empty_arguments_are_an_empty_object() {
        assert!(matches!(finish(""), ContentBlock::ToolCall(call) if call.args.is_empty()));
        assert!(matches!(finish("  "), ContentBlock::ToolCall(call) if call.args.is_empty()));
    }

    /// `{}` holds nothing once parsed: a call of it is a tool call even when the budget has no
    /// room left for any tree (an invalid call would hold its reason, 120 bytes), and one with
    /// a member is refused there.
    #[test]
    fn an_empty_object_is_parsed_without_room() {
        for arguments in ["{}", " { \n} ", "{\"a\":1}"] {
            let mut call = PendingToolCall::new(0, Some(0));
            call.absorb_identity(Some("call_1"), Some("f"));
            call.push_arguments(arguments);
            let mut full = ContentBudget::new(1);
            full.charge(1).unwrap();
            call.finish(&mut full);
            let parsed = matches!(call.finished(), Some(ContentBlock::ToolCall(call)) if call.args.is_empty());
            assert_eq!(parsed, arguments != "{\"a\":1}", "{arguments}");
        }
    }

    #[test]
    fn non_objects_and_broken_json_are_invalid_with_a_reason() {
        let ContentBlock::InvalidToolCall(call) = finish("[1]") else {
            panic!("expected invalid")
        };
        assert_eq!(call.error, "arguments are a JSON array, not an object");
        let ContentBlock::InvalidToolCall(call) = finish("{\"a\":1}{\"a\":1}") else {
            panic!("expected invalid")
        };
        assert!(call.error.contains("trailing characters"), "{}", call.error);
        assert_eq!(call.args, "{\"a\":1}{\"a\":1}");
    }

    #[test]
    fn arguments_too_dense_to_parse_are_invalid_with_their_text() {
        let dense = format!("{{\"a\":[{}]}}", vec!["{}"; 1 << 20].join(","));
        let ContentBlock::InvalidToolCall(call) = finish(&dense) else {
            panic!("expected invalid")
        };
        assert!(call.error.contains("1048578 values"), "{}", call.error);
        assert_eq!(call.args, dense);
        let numbers = format!("{{\"ids\":[{}]}}", vec!["7"; 2000].join(","));
        assert!(matches!(finish(&numbers), ContentBlock::ToolCall(_)));
    }

    #[test]
    fn identity_is_set_once_never_concatenated() {
        let mut call = PendingToolCall::new(0, None);
        call.absorb_identity(Some(""), None);
        call.absorb_identity(Some("call_1"), Some("get_weather"));
        call.absorb_identity(Some("call_1"), Some("get_weather"));
        assert_eq!(call.id(), "call_1");
        assert_eq!(call.name(), "get_weather");
    }

    /// The call `fragments` stream, as the fold adds them; checks that the deltas shown add up
    /// to the final arguments.
    fn streamed(fragments: &[&str]) -> ContentBlock {
        let mut call = PendingToolCall::new(0, Some(0));
        call.absorb_identity(Some("call_1"), Some("f"));
        let mut deltas = String::new();
        for fragment in fragments {
            let taken = call.take_fragment(fragment);
            if let Some((start, end)) = call.show(taken) {
                deltas.push_str(&call.arguments()[start..end]);
            }
        }
        if let Some((start, end)) = call.finish(&mut ContentBudget::new(usize::MAX)) {
            deltas.push_str(&call.arguments()[start..end]);
        }
        assert_eq!(deltas, call.arguments(), "the deltas of {fragments:?}");
        call.finished().cloned().expect("finished")
    }

    fn args(block: &ContentBlock) -> Option<Value> {
        match block {
            ContentBlock::ToolCall(call) => Some(Value::Object(call.args.clone())),
            _ => None,
        }
    }

    #[test]
    fn cumulative_fragments_are_the_arguments_as_sent_last() {
        let block = streamed(&["{\"q\":", "{\"q\":\"ru", "{\"q\":\"rust\"}"]);
        assert_eq!(args(&block), Some(serde_json::json!({"q": "rust"})));
        let block = streamed(&["{\"q\":", "{\"q\":\"rust\"}"]);
        assert_eq!(args(&block), Some(serde_json::json!({"q": "rust"})));
    }

    /// Hostile: arguments that open with the same text nested as often as a repeat stays
    /// tentative, cut right after each copy, still read as they were sent.
    #[test]
    fn nested_objects_spelled_like_their_parent_read_as_appended() {
        for depth in 1..=5 {
            let text = format!("{}1{}", "{\"q\":".repeat(depth), "}".repeat(depth));
            let mut fragments = vec!["{\"q\":"; depth];
            let tail = format!("1{}", "}".repeat(depth));
            fragments.push(&tail);
            let want: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(args(&streamed(&fragments)), Some(want), "{fragments:?}");
        }
    }

    /// A JSON object of keys and values that repeat each other, to make prefixes coincide.
    fn object() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (0u8..20).prop_map(Value::from),
            prop::sample::select(vec!["q", "{\"q\":", "a b", "é", "}"]).prop_map(Value::from),
        ];
        let value = leaf.prop_recursive(4, 24, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                prop::collection::vec((prop::sample::select(vec!["q", "a", "{"]), inner), 0..3)
                    .prop_map(|members| Value::Object(
                        members
                            .into_iter()
                            .map(|(k, v)| (k.to_owned(), v))
                            .collect()
                    )),
            ]
        });
        prop::collection::vec((prop::sample::select(vec!["q", "a"]), value), 0..3).prop_map(
            |members| {
                Value::Object(
                    members
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v))
                        .collect(),
                )
            },
        )
    }

    proptest::proptest! {
        /// Ordinary fragments — any cut of any object's JSON text, pretty or compact — never
        /// read as cumulative: the call is the object.
        #[test]
        fn ordinary_fragments_never_read_as_cumulative(
            value in object(),
            pretty: bool,
            cuts in proptest::collection::vec(0usize..400, 0..12),
        ) {
            let text = if pretty {
                serde_json::to_string_pretty(&value).unwrap()
            } else {
                serde_json::to_string(&value).unwrap()
            };
            let mut cuts: Vec<usize> = cuts
                .into_iter()
                .map(|cut| cut % (text.len() + 1))
                .filter(|&cut| text.is_char_boundary(cut))
                .collect();
            cuts.extend([0, text.len()]);
            cuts.sort_unstable();
            cuts.dedup();
            let fragments: Vec<&str> = cuts.windows(2).map(|w| &text[w[0]..w[1]]).collect();
            proptest::prop_assert_eq!(args(&streamed(&fragments)), Some(value));
        }

        /// Cumulative fragments — every text so far, cut anywhere after the object's first
        /// byte — read as the object, whenever the appended reading is ruled out before the
        /// call ends or enough fragments repeat; their deltas add up to it either way.
        #[test]
        fn cumulative_fragments_read_as_the_object_they_end_with(
            value in object(),
            cuts in proptest::collection::vec(1usize..400, 0..12),
        ) {
            let text = serde_json::to_string(&value).unwrap();
            let mut cuts: Vec<usize> = cuts
                .into_iter()
                .map(|cut| 1 + cut % text.len())
                .filter(|&cut| text.is_char_boundary(cut))
                .collect();
            cuts.push(text.len());
            cuts.sort_unstable();
            cuts.dedup();
            let fragments: Vec<&str> = cuts.iter().map(|&cut| &text[..cut]).collect();
            // The appended reading of these fragments, when it is valid too, wins at the end.
            let appended = serde_json::from_str::<Value>(&fragments.concat()).ok();
            let want = appended.filter(|_| fragments.len() <= 5).unwrap_or(value);
            proptest::prop_assert_eq!(args(&streamed(&fragments)), Some(want));
        }
    }
}
