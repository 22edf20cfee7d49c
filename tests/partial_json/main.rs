//! Behaviour of the incremental partial-JSON scanner, checked against
//! `serde_json` and against a from-scratch reference at every prefix.

use deltafold::assemble::{PartialJson, ScanStatus};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

use ScanStatus::{Complete, Empty, Invalid, Partial};

mod reference;

fn feed<S: AsRef<str>>(fragments: &[S]) -> PartialJson {
    let mut pj = PartialJson::new();
    for f in fragments {
        pj.push_str(f.as_ref());
    }
    pj
}

fn shown(pj: &PartialJson) -> Option<String> {
    pj.completion().map(|c| c.to_string())
}

fn shown_final(pj: &PartialJson) -> Option<String> {
    pj.final_completion().map(|c| c.to_string())
}

/// Cuts `text` at the given byte positions, moved forward to char boundaries.
fn split<'a>(text: &'a str, cuts: &[usize]) -> Vec<&'a str> {
    let mut cuts: Vec<usize> = cuts
        .iter()
        .map(|&c| {
            let mut c = c % (text.len() + 1);
            while !text.is_char_boundary(c) {
                c += 1;
            }
            c
        })
        .collect();
    cuts.sort_unstable();
    let mut out = Vec::new();
    let mut at = 0;
    for c in cuts {
        out.push(&text[at..c]);
        at = c;
    }
    out.push(&text[at..]);
    out
}

fn per_char(text: &str) -> Vec<&str> {
    text.char_indices()
        .map(|(i, c)| &text[i..i + c.len_utf8()])
        .collect()
}

// ---------------------------------------------------------------- tables

/// (fragments, completion text, status)
#[allow(clippy::type_complexity)]
const RULES: &[(&[&str], Option<&str>, ScanStatus)] = &[
    // Nothing to show yet.
    (&[], None, Empty),
    (&["  \n\t"], None, Empty),
    // Unfinished string values are closed with what has arrived.
    (&[r#"{"city": "Bei"#], Some(r#"{"city": "Bei"}"#), Partial),
    (
        &[r#"{"ci"#, r#"ty": "Bei"#],
        Some(r#"{"city": "Bei"}"#),
        Partial,
    ),
    (&[r#"["a", "b"#], Some(r#"["a", "b"]"#), Partial),
    (&[r#"{"city": ""#], Some(r#"{"city": ""}"#), Partial),
    (&[r#"{"a": "x\"y"#], Some(r#"{"a": "x\"y"}"#), Partial),
    // An unfinished escape at the end is cut off.
    (&[r#"{"a": "ab\"#], Some(r#"{"a": "ab"}"#), Partial),
    (&[r#"{"a": "ab\u"#], Some(r#"{"a": "ab"}"#), Partial),
    (&[r#"{"a": "ab\u00"#], Some(r#"{"a": "ab"}"#), Partial),
    (&[r#"{"a": "ab\u00e"#], Some(r#"{"a": "ab"}"#), Partial),
    (
        &[r#"{"a": "ab\u00e9"#],
        Some(r#"{"a": "ab\u00e9"}"#),
        Partial,
    ),
    (&[r#"{"a": "ab\ud83d"#], Some(r#"{"a": "ab"}"#), Partial),
    (&[r#"{"a": "ab\ud83d\"#], Some(r#"{"a": "ab"}"#), Partial),
    (&[r#"{"a": "ab\ud83d\u"#], Some(r#"{"a": "ab"}"#), Partial),
    (
        &[r#"{"a": "ab\ud83d\uDE0"#],
        Some(r#"{"a": "ab"}"#),
        Partial,
    ),
    (
        &[r#"{"a": "ab\ud83d"#, r#"\ude00"#],
        Some(r#"{"a": "ab\ud83d\ude00"}"#),
        Partial,
    ),
    (&[r#"{"a": "ab\n"#], Some(r#"{"a": "ab\n"}"#), Partial),
    // An unfinished key, or a key with no value yet, drops its member.
    (&[r#"{"ci"#], Some("{}"), Partial),
    (&[r#"{"#], Some("{}"), Partial),
    (&[r#"{""#], Some("{}"), Partial),
    (&[r#"{"city""#], Some("{}"), Partial),
    (&[r#"{"city": "#], Some("{}"), Partial),
    (&[r#"{"a": 1, "b"#], Some(r#"{"a": 1}"#), Partial),
    (&[r#"{"a": 1, "b":"#], Some(r#"{"a": 1}"#), Partial),
    (&[r#"{"a\"b"#], Some("{}"), Partial),
    (&[r#"{"a\u00"#], Some("{}"), Partial),
    // Unfinished numbers and literals are left out.
    (&[r#"{"n": 12"#], Some("{}"), Partial),
    (&[r#"[1, 2, 3"#], Some("[1, 2]"), Partial),
    (&[r#"{"ok": tru"#], Some("{}"), Partial),
    (&[r#"{"n": -"#], Some("{}"), Partial),
    (&[r#"{"n": 1."#], Some("{}"), Partial),
    (&[r#"{"n": 1.5e"#], Some("{}"), Partial),
    (&[r#"{"n": 1.5e+"#], Some("{}"), Partial),
    (&[r#"{"n": 1.5e+3"#], Some("{}"), Partial),
    // ... until a delimiter ends them.
    (&[r#"{"n": 12,"#], Some(r#"{"n": 12}"#), Partial),
    (&[r#"{"n": 12 "#], Some(r#"{"n": 12}"#), Partial),
    (&[r#"{"n": 12"#, "\n"], Some(r#"{"n": 12}"#), Partial),
    (&[r#"[1, 2, 3]"#], Some("[1, 2, 3]"), Complete),
    (&[r#"{"n": -0.5E-7}"#], Some(r#"{"n": -0.5E-7}"#), Complete),
    // A literal that has all its letters cannot grow: it is shown.
    (&[r#"{"ok": true"#], Some(r#"{"ok": true}"#), Partial),
    (&[r#"[null, fals"#], Some("[null]"), Partial),
    (&[r#"[null, false"#], Some("[null, false]"), Partial),
    // A trailing comma is dropped.
    (&[r#"{"a": 1,"#], Some(r#"{"a": 1}"#), Partial),
    (&[r#"["a","#], Some(r#"["a"]"#), Partial),
    (&[r#"[{}, "#], Some("[{}]"), Partial),
    // Nested containers are closed innermost first.
    (
        &[r#"{"a": [{"b": "x"#],
        Some(r#"{"a": [{"b": "x"}]}"#),
        Partial,
    ),
    (&[r#"{"a": [{"#], Some(r#"{"a": [{}]}"#), Partial),
    (&[r#"[[["#], Some("[[[]]]"), Partial),
    (&[r#"[[1], [2"#], Some("[[1], []]"), Partial),
    (
        &[r#"{"a": {"b": {}}, "c"#],
        Some(r#"{"a": {"b": {}}}"#),
        Partial,
    ),
    // Top level.
    (&["12"], None, Complete),
    (&["12 "], Some("12"), Complete),
    (&["-"], None, Partial),
    (&["tru"], None, Partial),
    (&["true"], Some("true"), Complete),
    (&[" null "], Some(" null"), Complete),
    (&[r#""ab"#], Some(r#""ab""#), Partial),
    (&[r#""ab\"#], Some(r#""ab""#), Partial),
    (&[r#""ab""#], Some(r#""ab""#), Complete),
    (&[r#"{"a": 1}"#, "  \n"], Some(r#"{"a": 1}"#), Complete),
    // Invalid text shows nothing.
    (&["{}{}"], None, Invalid { offset: 2 }),
    (&[r#"{"a": 1,}"#], None, Invalid { offset: 8 }),
];

#[test]
fn display_rules() {
    for (fragments, want, status) in RULES {
        let text = fragments.concat();
        let pj = feed(fragments);
        assert_eq!(shown(&pj).as_deref(), *want, "{fragments:?}");
        assert_eq!(pj.status(), *status, "{fragments:?}");
        assert_eq!(pj.as_str(), text);
        // Every completion is valid JSON, and value() is its parse.
        if let Some(want) = want {
            let parsed: Value = serde_json::from_str(want).unwrap();
            assert_eq!(pj.value(), Some(parsed), "{fragments:?}");
            assert!(text.starts_with(pj.completion().unwrap().prefix()));
        } else {
            assert_eq!(pj.value(), None);
        }
        // The same text in any fragmentation gives the same answer.
        for pieces in [vec![text.as_str()], per_char(&text)] {
            let other = feed(&pieces);
            assert_eq!(other.status(), *status, "{pieces:?}");
            assert_eq!(shown(&other).as_deref(), *want, "{pieces:?}");
        }
        for cut in 0..=text.len() {
            if text.is_char_boundary(cut) {
                let other = feed(&[&text[..cut], &text[cut..]]);
                assert_eq!(other.status(), *status, "{text:?} cut at {cut}");
                assert_eq!(shown(&other).as_deref(), *want, "{text:?} cut at {cut}");
            }
        }
    }
}

#[test]
fn final_completion_shows_a_trailing_number() {
    let table: &[(&str, Option<&str>)] = &[
        ("12", Some("12")),
        ("-0.5e3", Some("-0.5e3")),
        ("1.", None),
        ("-", None),
        (r#"{"n": 12"#, Some(r#"{"n": 12}"#)),
        (r#"[1, 2, 3"#, Some("[1, 2, 3]")),
        (r#"[1, 2, 3e"#, Some("[1, 2]")),
        (r#"{"ok": tru"#, Some("{}")),
        (r#"{"a": "x"#, Some(r#"{"a": "x"}"#)),
        ("", None),
        ("{}{", None),
    ];
    for (text, want) in table {
        let pj = feed(&[text]);
        assert_eq!(shown_final(&pj).as_deref(), *want, "{text:?}");
    }
    assert_eq!(feed(&["1", "2"]).final_value(), Some(json!(12)));
    assert_eq!(feed(&["12"]).value(), None);
}

#[test]
fn invalid_offsets() {
    let table: &[(&str, usize)] = &[
        ("}", 0),
        ("  x", 2),
        ("{}{}", 2),
        ("[] 1", 3),
        ("12a", 2),
        ("01", 1),
        ("-a", 1),
        ("1.e3", 2),
        ("1e+x", 3),
        ("[1,]", 3),
        ("[1 2]", 3),
        ("[,", 1),
        ("{,", 1),
        (r#"{"a" 1}"#, 5),
        (r#"{"a": 1 "b": 2}"#, 8),
        (r#"{1: 2}"#, 1),
        (r#"{"a": }"#, 6),
        (r#"[1}"#, 2),
        (r#"{"a": 1]"#, 7),
        ("trux", 3),
        ("nul ", 3),
        ("\"a\nb\"", 2),
        ("\"ab\u{1}\"", 3),
        (r#""\x""#, 2),
        (r#""\u12g4""#, 5),
        (r#""\udc00""#, 4),
        (r#""\ud800x""#, 7),
        (r#""\ud800\n""#, 8),
        (r#""\ud800\u0041""#, 9),
        (r#""\ud800\ud800""#, 10),
        ("\"é\" é", 5),
        ("[é]", 1),
    ];
    for (text, offset) in table {
        let want = Invalid { offset: *offset };
        let pj = feed(&[text]);
        assert_eq!(pj.status(), want, "{text:?}");
        assert_eq!(pj.completion(), None);
        assert_eq!(pj.value(), None);
        assert_eq!(feed(&per_char(text)).status(), want, "{text:?}");
        // The text before the offending byte is still a valid prefix, and
        // more text never repairs it.
        assert!(!matches!(
            feed(&[&text[..*offset]]).status(),
            Invalid { .. }
        ));
        assert_eq!(feed(&[text, "]}\"1"]).status(), want);
    }
}

#[test]
fn status_serialises_with_a_tag() {
    assert_eq!(
        serde_json::to_value(Empty).unwrap(),
        json!({"status": "empty"})
    );
    assert_eq!(
        serde_json::to_value(Partial).unwrap(),
        json!({"status": "partial"})
    );
    assert_eq!(
        serde_json::to_value(Complete).unwrap(),
        json!({"status": "complete"})
    );
    assert_eq!(
        serde_json::to_value(Invalid { offset: 3 }).unwrap(),
        json!({"status": "invalid", "offset": 3})
    );
}

#[test]
fn accessors() {
    let mut pj = PartialJson::new();
    assert!(pj.is_empty());
    assert_eq!(pj.len(), 0);
    pj.push_str(r#"{"a": "é"#);
    assert!(!pj.is_empty());
    assert_eq!(pj.len(), 9);
    let c = pj.completion().unwrap();
    assert_eq!(c.prefix(), pj.as_str());
    assert_eq!(c.suffix_len(), 2);
    let mut suffix = String::new();
    c.write_suffix(&mut suffix);
    assert_eq!(suffix, "\"}");
    assert_eq!(c.to_string(), format!("{}{}", c.prefix(), suffix));
    let copy = pj.clone();
    assert_eq!(pj.into_string(), copy.as_str());
}

#[test]
fn deep_nesting_does_not_recurse() {
    let depth = 200_000;
    let mut pj = PartialJson::new();
    pj.push_str(&"[{\"a\": ".repeat(depth));
    let c = pj.completion().unwrap();
    assert_eq!(c.suffix_len(), 2 * depth);
    assert_eq!(c.prefix().len(), 7 * (depth - 1) + 2);
    // serde_json stops at 128 levels; value() says so instead of panicking.
    assert_eq!(pj.value(), None);
    pj.push_str("nul");
    assert_eq!(pj.status(), Partial);
    pj.push_str("l");
    pj.push_str(&"}]".repeat(depth));
    assert_eq!(pj.status(), Complete);
    let mut pj = PartialJson::new();
    pj.push_str(&"[".repeat(depth));
    pj.push_str(&"]".repeat(depth));
    assert_eq!(pj.status(), Complete);
}

// ------------------------------------------------------- generated JSON

/// A tiny deterministic generator for the writer's choices.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Writes `v` as JSON, choosing escapes, number spellings and (when `ws`)
/// whitespace at random, so the scanner sees far more than serde_json's own
/// output: `\u` escapes in both cases, surrogate pairs, `\/`, `1e0`.
fn write_json(v: &Value, rng: &mut Rng, ws: bool, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            let s = n.to_string();
            out.push_str(&s);
            if !s.contains(['e', 'E']) {
                match rng.below(8) {
                    0 if !s.contains('.') => out.push_str(".0"),
                    1 => out.push_str("e0"),
                    2 => out.push_str("E+01"),
                    3 => out.push_str("e-2"),
                    _ => {}
                }
            }
        }
        Value::String(s) => write_str(s, rng, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                space(rng, ws, out);
                write_json(item, rng, ws, out);
                space(rng, ws, out);
            }
            if items.is_empty() {
                space(rng, ws, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                space(rng, ws, out);
                write_str(k, rng, out);
                space(rng, ws, out);
                out.push(':');
                space(rng, ws, out);
                write_json(item, rng, ws, out);
                space(rng, ws, out);
            }
            if map.is_empty() {
                space(rng, ws, out);
            }
            out.push('}');
        }
    }
}

fn space(rng: &mut Rng, ws: bool, out: &mut String) {
    if ws {
        for _ in 0..rng.below(3) {
            out.push([' ', '\n', '\t', '\r'][rng.below(4) as usize]);
        }
    }
}

fn write_str(s: &str, rng: &mut Rng, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        let short = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\n' => Some("\\n"),
            '\t' => Some("\\t"),
            '\r' => Some("\\r"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            '/' if rng.below(2) == 0 => Some("\\/"),
            _ => None,
        };
        match short {
            Some(esc) if rng.below(4) != 0 => out.push_str(esc),
            _ if c < ' ' || matches!(c, '"' | '\\') || rng.below(5) == 0 => {
                let mut units = [0u16; 2];
                let upper = rng.below(2) == 0;
                for unit in c.encode_utf16(&mut units) {
                    if upper {
                        out.push_str(&format!("\\u{unit:04X}"));
                    } else {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out.push('"');
}

fn arb_string() -> impl Strategy<Value = String> {
    let special = prop::sample::select(vec![
        '"',
        '\\',
        '/',
        '\n',
        '\t',
        '\r',
        '\u{0}',
        '\u{8}',
        '\u{c}',
        '\u{1f}',
        '\u{7f}',
        'é',
        'ß',
        '€',
        '\u{2028}',
        '\u{ffff}',
        '😀',
        '🦀',
        '\u{10ffff}',
        '{',
        '}',
        '[',
        ']',
        ':',
        ',',
        ' ',
    ]);
    prop::collection::vec(
        prop_oneof![3 => prop::char::range('a', 'z'), 2 => special, 1 => any::<char>()],
        0..10,
    )
    .prop_map(|cs| cs.into_iter().collect())
}

fn arb_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-1000i64..1000).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f)
            .map(Value::Number)),
        (-100.0f64..100.0).prop_map(Value::from),
    ]
}

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        arb_number(),
        arb_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 96, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((arb_string(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// JSON text for a generated value: compact, pretty or with random
/// whitespace, always with random escapes and number spellings.
fn arb_text() -> impl Strategy<Value = String> {
    (arb_value(), any::<u64>(), 0..3u8, any::<bool>()).prop_map(|(v, seed, style, pad)| {
        let mut rng = Rng(seed | 1);
        let mut out = String::new();
        if pad {
            out.push_str(" \n");
        }
        match style {
            0 => out.push_str(&serde_json::to_string(&v).unwrap()),
            1 => out.push_str(&serde_json::to_string_pretty(&v).unwrap()),
            _ => write_json(&v, &mut rng, true, &mut out),
        }
        // Re-spell the compact/pretty text's strings too, half the time.
        if style < 2 && rng.below(2) == 0 {
            out.clear();
            write_json(&v, &mut rng, style == 1, &mut out);
        }
        if pad {
            out.push_str("\t ");
        }
        out
    })
}

/// Whether `cur` only adds to `prev`: members or elements gained, and at
/// most the last one (or, for a map, one member) grown.
fn extends(prev: &Value, cur: &Value) -> bool {
    match (prev, cur) {
        (Value::String(a), Value::String(b)) => b.starts_with(a.as_str()),
        (Value::Array(a), Value::Array(b)) => {
            a.len() <= b.len()
                && match a.split_last() {
                    None => true,
                    Some((last, init)) => init == &b[..init.len()] && extends(last, &b[init.len()]),
                }
        }
        (Value::Object(a), Value::Object(b)) => {
            let mut changed = 0;
            a.iter().all(|(k, va)| match b.get(k) {
                Some(vb) if va == vb => true,
                Some(vb) => {
                    changed += 1;
                    extends(va, vb)
                }
                None => false,
            }) && changed <= 1
        }
        _ => prev == cur,
    }
}

/// Whether `offset` lies inside a `\u` escape that has fewer than four
/// digits before the end: serde_json only looks at the digits once all four
/// are there, so it reports EOF where the scanner already knows better.
fn in_short_hex_escape(text: &str, offset: usize) -> bool {
    let b = text.as_bytes();
    (0..4).any(|k| {
        offset >= k + 2
            && &b[offset - k - 2..offset - k] == b"\\u"
            && b[offset - k..offset].iter().all(u8::is_ascii_hexdigit)
            && text.len() - (offset - k) < 4
    })
}

/// Checks the scanner's status on a whole text against serde_json.
fn agree_with_serde(text: &str, cuts: &[usize]) -> Result<(), TestCaseError> {
    let pj = feed(&split(text, cuts));
    let status = pj.status();
    match serde_json::from_str::<Value>(text) {
        Ok(v) => {
            prop_assert_eq!(status, Complete, "{:?}", text);
            prop_assert_eq!(pj.final_value(), Some(v));
        }
        Err(e) if e.classify() == serde_json::error::Category::Eof => match status {
            Empty => prop_assert!(text.trim_matches([' ', '\n', '\t', '\r']).is_empty()),
            Partial => {}
            Invalid { offset } => prop_assert!(
                in_short_hex_escape(text, offset),
                "{:?}: serde_json says {}, scanner says invalid at {}",
                text,
                e,
                offset
            ),
            Complete => prop_assert!(false, "{:?}: serde_json says {}", text, e),
        },
        Err(e) => {
            let msg = e.to_string();
            // Valid JSON that serde_json refuses for its own limits.
            if msg.contains("number out of range") || msg.contains("recursion limit") {
                return Ok(());
            }
            let Invalid { offset } = status else {
                return Err(TestCaseError::fail(format!(
                    "{text:?}: serde_json says {e}, scanner says {status:?}"
                )));
            };
            // The offending byte is the first: just before it, all was well.
            let before = feed(&[&text[..offset]]).status();
            prop_assert!(
                !matches!(before, Invalid { .. }),
                "{:?} before {}",
                text,
                offset
            );
        }
    }
    Ok(())
}

fn arb_junk() -> impl Strategy<Value = String> {
    let token = prop::sample::select(vec![
        "{", "}", "[", "]", "\"", ":", ",", "\\", "\\u", "d8", "3d", "dc", "de", "00", "0", "1",
        "9", "-", "+", ".", "e", "E", "true", "fals", "null", "nul", "t", " ", "\n", "x", "é",
        "😀", "\u{1}", "\"a\"", "\"k\":", "/", "n", "u",
    ]);
    prop::collection::vec(token, 0..24).prop_map(|t| t.concat())
}

fn arb_mutated() -> impl Strategy<Value = String> {
    (arb_text(), any::<usize>(), 0..3u8, arb_junk()).prop_map(|(text, at, kind, junk)| {
        let mut at = at % (text.len() + 1);
        while !text.is_char_boundary(at) {
            at += 1;
        }
        let rest = &text[at..];
        let next = rest.chars().next().map_or(0, char::len_utf8);
        let junk: String = junk.chars().take(2).collect();
        match kind {
            0 => format!("{}{}{}", &text[..at], junk, rest),
            1 => format!("{}{}", &text[..at], &rest[next..]),
            _ => format!("{}{}{}", &text[..at], junk, &rest[next..]),
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Complete generated JSON, in random fragments: Complete, and the value
    /// is serde_json's.
    #[test]
    fn complete_json_matches_serde(text in arb_text(), cuts in prop::collection::vec(any::<usize>(), 0..40)) {
        let pj = feed(&split(&text, &cuts));
        let want: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(pj.status(), Complete);
        prop_assert_eq!(pj.final_value(), Some(want.clone()));
        // value() agrees, except that a top-level number right at the end
        // may still grow.
        let ends_in_number = want.is_number() && text.ends_with(|c: char| c.is_ascii_digit());
        if ends_in_number {
            prop_assert_eq!(pj.value(), None);
        } else {
            prop_assert_eq!(pj.value(), Some(want));
        }
    }

    /// Arbitrary token soup: Invalid exactly when serde_json rejects it.
    #[test]
    fn junk_status_matches_serde(text in arb_junk(), cuts in prop::collection::vec(any::<usize>(), 0..8)) {
        agree_with_serde(&text, &cuts)?;
    }

    /// Generated JSON with one insertion, deletion or replacement.
    #[test]
    fn mutated_status_matches_serde(text in arb_mutated(), cuts in prop::collection::vec(any::<usize>(), 0..8)) {
        agree_with_serde(&text, &cuts)?;
    }

    /// Different fragmentations of the same text end in the same state.
    #[test]
    fn fragmentation_does_not_matter(
        text in prop_oneof![arb_text(), arb_mutated(), arb_junk()],
        a in prop::collection::vec(any::<usize>(), 0..30),
        b in prop::collection::vec(any::<usize>(), 0..30),
    ) {
        let x = feed(&split(&text, &a));
        let y = feed(&split(&text, &b));
        let z = feed(&per_char(&text));
        for other in [&y, &z] {
            prop_assert_eq!(x.status(), other.status());
            prop_assert_eq!(shown(&x), shown(other));
            prop_assert_eq!(shown_final(&x), shown_final(other));
            prop_assert_eq!(x.as_str(), other.as_str());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// At every prefix of generated JSON: the completion parses, equals the
    /// from-scratch reference, and only ever extends the previous one.
    #[test]
    fn every_prefix_matches_reference(text in arb_text()) {
        let mut pj = PartialJson::new();
        let mut prev: Option<Value> = None;
        let mut at = 0;
        for piece in per_char(&text) {
            pj.push_str(piece);
            at += piece.len();
            let prefix = &text[..at];
            prop_assert!(!matches!(pj.status(), Invalid { .. }), "{:?}", prefix);
            let value = pj.value();
            prop_assert_eq!(pj.completion().is_some(), value.is_some(), "completion of {:?} does not parse", prefix);
            if let Some(c) = pj.completion() {
                prop_assert!(std::ptr::eq(c.prefix().as_ptr(), pj.as_str().as_ptr()));
            }
            prop_assert_eq!(&value, &reference::display(prefix), "{:?}", prefix);
            if let Some(p) = &prev {
                let cur = value.as_ref();
                prop_assert!(cur.is_some_and(|c| extends(p, c)), "{:?}: {:?} then {:?}", prefix, p, cur);
            }
            prev = value;
        }
    }
}
