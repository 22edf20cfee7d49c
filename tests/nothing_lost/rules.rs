//! The two lists a leaf that is not in the output may be on: the drop list of
//! `docs/dialects.md` (the table under "Dropped on purpose": dialects, path pattern, values,
//! reason), and `known_gaps.txt` beside this file (gaps not closed yet, one
//! line each: dialects | path | values | the item that fixes it).
//!
//! A path pattern is matched segment by segment (segments split at `.`): `*` within a segment
//! matches any run of characters, a segment `**` any number of segments. Values are the
//! backticked values of the cell, `any`, or one of the conditions of [`Values`]: `earlier`,
//! `superseded`, `replaced`, `rotating`, `rounded`, or `after` followed by backticked event types.

use std::path::Path;

pub struct Rule {
    pub dialects: Vec<String>,
    /// Path patterns, any of which names the leaf.
    pub paths: Vec<String>,
    pub values: Values,
    /// The reason (drop list) or the item that fixes the gap (pending list).
    pub why: String,
    /// Line in its file, for reports.
    pub line: usize,
}

/// Which values at the rule's paths it names.
pub enum Values {
    /// `any`: whatever the value.
    Any,
    /// The backticked values of the cell.
    Listed(Vec<String>),
    /// `earlier`: a value that a later payload of the stream has another value for, at the same
    /// path.
    Earlier,
    /// `superseded`: a value of an object with an `id` that a later payload repeats — an object
    /// of the same `id` with this member (the same item, later) — at any path.
    Superseded,
    /// `replaced`: a value of an event about an item (its `item_id`) that a later event about the
    /// same item replaces with the item's whole `text` (a closing event that wins over deltas).
    Replaced,
    /// `rotating`: an item id that another event gives the same output position
    /// (`output_index`) differently, at one of the rule's paths: ids that change from event to
    /// event, which name nothing.
    Rotating,
    /// `rounded`: a number that an earlier value of the same member, which the output keeps,
    /// gives when rounded to the decimals this one is written with (and differs from it).
    Rounded,
    /// `after` and event types: any value of a payload that follows the stream's first payload
    /// of one of these types (a recording of several answers one after the other, of which
    /// the library reads the first).
    After(Vec<String>),
}

/// What the test knows of one leaf that the output does not hold, asked only for the
/// conditions of the rules that name its dialect and path.
pub trait Leaf {
    fn dialect(&self) -> &str;
    fn path(&self) -> &str;
    fn value(&self) -> &str;
    /// A later payload has a value at the same path.
    fn earlier(&self) -> bool;
    /// A later payload has this member of an object with the same `id`.
    fn superseded(&self) -> bool;
    /// A later payload about the same item has its whole `text`.
    fn replaced(&self) -> bool;
    /// Another payload of the same `output_index` has another value at one of `paths`.
    fn rotating(&self, paths: &[String]) -> bool;
    /// An earlier value of the same member, kept in the output, rounds to this number.
    fn rounded(&self) -> bool;
    /// An earlier payload of the stream is of one of these types.
    fn after(&self, types: &[String]) -> bool;
}

impl Rule {
    /// Whether the rule names this leaf.
    pub fn covers(&self, leaf: &impl Leaf) -> bool {
        self.dialects
            .iter()
            .any(|name| name == "*" || name == leaf.dialect())
            && self.paths.iter().any(|pattern| {
                matches(
                    &pattern.split('.').collect::<Vec<_>>(),
                    &leaf.path().split('.').collect::<Vec<_>>(),
                )
            })
            && match &self.values {
                Values::Any => true,
                Values::Listed(values) => values.iter().any(|v| v == leaf.value()),
                Values::Earlier => leaf.earlier(),
                Values::Superseded => leaf.superseded(),
                Values::Replaced => leaf.replaced(),
                Values::Rotating => leaf.rotating(&self.paths),
                Values::Rounded => leaf.rounded(),
                Values::After(types) => leaf.after(types),
            }
    }
}

fn matches(pattern: &[&str], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|skip| matches(rest, &path[skip..])),
        Some((first, rest)) => path
            .split_first()
            .is_some_and(|(segment, tail)| glob(first, segment) && matches(rest, tail)),
    }
}

fn glob(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, tail)) => {
            text.starts_with(head)
                && (head.len()..=text.len())
                    .any(|at| text.is_char_boundary(at) && glob(tail, &text[at..]))
        }
    }
}

/// The drop list: the table that follows the heading `## Dropped on purpose` in
/// `docs/dialects.md`.
pub fn drop_list(root: &Path) -> Vec<Rule> {
    let docs = std::fs::read_to_string(root.join("docs/dialects.md")).expect("docs/dialects.md");
    let mut rules = Vec::new();
    let mut in_section = false;
    for (number, line) in docs.lines().enumerate() {
        if line.starts_with("## ") {
            in_section = line.trim() == "## Dropped on purpose";
            continue;
        }
        if !in_section
            || !line.starts_with('|')
            || line.starts_with("|---")
            || line.starts_with("| dialects")
        {
            continue;
        }
        let cells: Vec<&str> = line
            .trim()
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        assert_eq!(
            cells.len(),
            4,
            "docs/dialects.md:{}: four cells",
            number + 1
        );
        rules.push(rule(&cells, number + 1));
    }
    assert!(!rules.is_empty(), "no drop list in docs/dialects.md");
    rules
}

/// The gaps not closed yet, from `known_gaps.txt`.
pub fn pending(root: &Path) -> Vec<Rule> {
    let file = root.join("tests/nothing_lost/known_gaps.txt");
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|(number, line)| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            assert_eq!(
                cells.len(),
                4,
                "{}:{}: four cells",
                file.display(),
                number + 1
            );
            rule(&cells, number + 1)
        })
        .collect()
}

fn rule(cells: &[&str], line: usize) -> Rule {
    let dialects = cells[0]
        .split(',')
        .map(|name| name.trim().trim_matches('`').to_owned())
        .collect();
    let paths = match backticked(cells[1]) {
        paths if paths.is_empty() => vec![cells[1].to_owned()],
        paths => paths,
    };
    let values = match cells[2] {
        "any" => Values::Any,
        "earlier" => Values::Earlier,
        "superseded" => Values::Superseded,
        "rounded" => Values::Rounded,
        "replaced" => Values::Replaced,
        "rotating" => Values::Rotating,
        cell if cell.starts_with("after ") => Values::After(backticked(cell)),
        cell => Values::Listed(backticked(cell)),
    };
    let why = cells[3].to_owned();
    assert!(!why.is_empty(), "line {line}: an entry without its reason");
    Rule {
        dialects,
        paths,
        values,
        why,
        line,
    }
}

fn backticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}
