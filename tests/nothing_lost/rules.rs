//! The two lists a leaf that is not in the output may be on: the drop list of
//! `docs/dialects.md` (the table under "Dropped on purpose": dialects, path pattern, values,
//! reason), and `known_gaps.txt` beside this file (gaps not closed yet, one
//! line each: dialects | path | values | the item that fixes it).
//!
//! A path pattern is matched segment by segment (segments split at `.`): `*` within a segment
//! matches any run of characters, a segment `**` any number of segments. Values are the
//! backticked values of the cell, `any`, or `earlier`: any value that a later payload of the
//! stream replaces (a value at the same path comes later).

use std::path::Path;

pub struct Rule {
    pub dialects: Vec<String>,
    /// Path patterns, any of which names the leaf.
    pub paths: Vec<String>,
    /// `None`: any value.
    pub values: Option<Vec<String>>,
    /// Only a value that a later payload replaces (the cell says `earlier`).
    pub earlier_only: bool,
    /// The reason (drop list) or the item that fixes the gap (pending list).
    pub why: String,
    /// Line in its file, for reports.
    pub line: usize,
}

impl Rule {
    /// Whether the rule names this leaf; `earlier`: a later payload has a value at that path.
    pub fn covers(&self, dialect: &str, path: &str, value: &str, earlier: bool) -> bool {
        (earlier || !self.earlier_only)
            && self
                .dialects
                .iter()
                .any(|name| name == "*" || name == dialect)
            && self
                .values
                .as_ref()
                .is_none_or(|values| values.iter().any(|v| v == value))
            && self.paths.iter().any(|pattern| {
                matches(
                    &pattern.split('.').collect::<Vec<_>>(),
                    &path.split('.').collect::<Vec<_>>(),
                )
            })
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
    let earlier_only = cells[2] == "earlier";
    let values = (cells[2] != "any" && !earlier_only).then(|| backticked(cells[2]));
    let why = cells[3].to_owned();
    assert!(!why.is_empty(), "line {line}: an entry without its reason");
    Rule {
        dialects,
        paths,
        values,
        earlier_only,
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
