//! Gemini 3 streams a function call's arguments as path-addressed pieces (`partialArgs`:
//! `{jsonPath: "$.a.b[1].c", stringValue: "Bos", willContinue: true}`). This writer turns them
//! into argument JSON text, written in arrival order, so the text streamed so far is always a
//! prefix of the final JSON and the neutral tool-call fragments of every other dialect carry it.
//!
//! It holds only the chain of objects and arrays still open (one level per path segment, at most
//! [`MAX_DEPTH`]) and whether a string is open: the pieces themselves go out at once. Members
//! come in the order they arrive; an array element is a new one whenever its index differs from
//! the element being written (Gemini sends elements in order, so the index numbers themselves
//! are never used to pad the array).

use std::fmt;

/// Nesting deeper than this is refused: the writer holds one level per segment.
pub(super) const MAX_DEPTH: usize = 64;

/// One step of a `jsonPath` after `$`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment<'p> {
    Key(&'p str),
    Index(&'p str),
}

/// The segment of an open level, owned.
#[derive(Debug, PartialEq, Eq)]
enum Member {
    Key(String),
    Index(String),
}

impl Member {
    fn is(&self, segment: &Segment<'_>) -> bool {
        match (self, segment) {
            (Member::Key(key), Segment::Key(other)) => key == other,
            (Member::Index(index), Segment::Index(other)) => index == other,
            _ => false,
        }
    }

    fn of(segment: &Segment<'_>) -> Self {
        match segment {
            Segment::Key(key) => Member::Key((*key).to_owned()),
            Segment::Index(index) => Member::Index((*index).to_owned()),
        }
    }
}

/// An object or array still open, and the member of it being written (`None` before the first).
#[derive(Debug)]
struct Level {
    object: bool,
    member: Option<Member>,
}

/// One piece's value, as raw JSON text from the payload (a string without its quotes).
#[derive(Debug, Clone, Copy)]
pub(super) enum Piece<'a> {
    /// The escaped content of a JSON string, without the quotes.
    StringContent(&'a str),
    /// A number, `true`, `false` or `null`, as sent.
    Scalar(&'a str),
}

/// Why a piece was refused; the text written so far stays a valid prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum PathError {
    /// Not `$` followed by `.key`, `['key']` or `[n]` segments, or no segment at all.
    Malformed,
    /// An object member addressed as an array element, or the other way round.
    KindMismatch,
    /// More than [`MAX_DEPTH`] segments.
    TooDeep,
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PathError::Malformed => "a partialArgs jsonPath that is not $ with .key or [n] steps",
            PathError::KindMismatch => "a partialArgs jsonPath that mixes up objects and arrays",
            PathError::TooDeep => "a partialArgs jsonPath nested too deeply",
        })
    }
}

/// The argument text of one streamed call, as the pieces arrive.
#[derive(Debug, Default)]
pub(super) struct ArgsWriter {
    /// The open levels: the root object first.
    levels: Vec<Level>,
    /// A string value is open (its closing quote not written yet).
    open_string: bool,
}

impl ArgsWriter {
    /// Writes one piece at `path` into `out`. A string with `continues` stays open for more
    /// pieces at the same path; any other path closes it first.
    pub(super) fn write(
        &mut self,
        path: &str,
        piece: Piece<'_>,
        continues: bool,
        out: &mut String,
    ) -> Result<(), PathError> {
        let segments = parse_path(path)?;
        if segments.len() > MAX_DEPTH {
            return Err(PathError::TooDeep);
        }
        if self.open_string {
            if let Piece::StringContent(content) = piece {
                if self.is_open_leaf(&segments) {
                    out.push_str(content);
                    self.end_string_unless(continues, out);
                    return Ok(());
                }
            }
            self.end_string_unless(false, out);
        }
        if self.levels.is_empty() {
            out.push('{');
            self.levels.push(Level {
                object: true,
                member: None,
            });
        }
        let shared = self.shared_depth(&segments);
        if (matches!(segments[shared], Segment::Key(_))) != self.levels[shared].object {
            return Err(PathError::KindMismatch);
        }
        while self.levels.len() > shared + 1 {
            self.close_level(out);
        }
        let container = &mut self.levels[shared];
        if container.member.is_some() {
            out.push(',');
        }
        container.member = Some(Member::of(&segments[shared]));
        push_key(&segments[shared], out);
        for segment in &segments[shared + 1..] {
            let object = matches!(segment, Segment::Key(_));
            out.push(if object { '{' } else { '[' });
            self.levels.push(Level {
                object,
                member: Some(Member::of(segment)),
            });
            push_key(segment, out);
        }
        match piece {
            Piece::StringContent(content) => {
                out.push('"');
                out.push_str(content);
                self.open_string = true;
                self.end_string_unless(continues, out);
            }
            Piece::Scalar(text) => out.push_str(text),
        }
        Ok(())
    }

    /// Closes whatever is open, completing the JSON; the writer is then ready for a new call.
    /// Writes nothing for a call that never had an argument.
    pub(super) fn finish(&mut self, out: &mut String) {
        self.end_string_unless(false, out);
        while !self.levels.is_empty() {
            self.close_level(out);
        }
    }

    /// How many leading levels the path shares with the open chain: the index of the open level
    /// that holds the path's new member.
    fn shared_depth(&self, segments: &[Segment<'_>]) -> usize {
        let mut depth = 0;
        while depth + 1 < self.levels.len()
            && depth + 1 < segments.len()
            && self.levels[depth]
                .member
                .as_ref()
                .is_some_and(|member| member.is(&segments[depth]))
        {
            depth += 1;
        }
        depth
    }

    /// The path names the string being written.
    fn is_open_leaf(&self, segments: &[Segment<'_>]) -> bool {
        segments.len() == self.levels.len()
            && self.levels.iter().zip(segments).all(|(level, segment)| {
                level
                    .member
                    .as_ref()
                    .is_some_and(|member| member.is(segment))
            })
    }

    fn end_string_unless(&mut self, continues: bool, out: &mut String) {
        if self.open_string && !continues {
            out.push('"');
            self.open_string = false;
        }
    }

    fn close_level(&mut self, out: &mut String) {
        if let Some(level) = self.levels.pop() {
            out.push(if level.object { '}' } else { ']' });
        }
    }
}

/// Writes `"key":` for an object member; an array element has no key.
fn push_key(segment: &Segment<'_>, out: &mut String) {
    if let Segment::Key(key) = segment {
        // A path key is plain text: escaped here, once per member.
        out.push_str(&serde_json::Value::from(*key).to_string());
        out.push(':');
    }
}

/// Splits `$.a['b c'][2]` into segments; `$` alone (the whole arguments) is malformed too, since
/// arguments are always an object.
fn parse_path(path: &str) -> Result<Vec<Segment<'_>>, PathError> {
    let mut rest = path.strip_prefix('$').ok_or(PathError::Malformed)?;
    let mut segments = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if end == 0 {
                return Err(PathError::Malformed);
            }
            segments.push(Segment::Key(&after[..end]));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']').ok_or(PathError::Malformed)?;
            let inside = &after[..end];
            let quoted = inside
                .strip_prefix('\'')
                .and_then(|key| key.strip_suffix('\''))
                .or_else(|| inside.strip_prefix('"').and_then(|k| k.strip_suffix('"')));
            match quoted {
                Some(key) => segments.push(Segment::Key(key)),
                None if !inside.is_empty() && inside.bytes().all(|b| b.is_ascii_digit()) => {
                    segments.push(Segment::Index(inside));
                }
                None => return Err(PathError::Malformed),
            }
            rest = &after[end + 1..];
        } else {
            return Err(PathError::Malformed);
        }
    }
    if segments.is_empty() {
        return Err(PathError::Malformed);
    }
    Ok(segments)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(piece: &str) -> Piece<'_> {
        Piece::StringContent(piece)
    }

    /// Writes the pieces, checking after each that the text is a prefix a JSON completer accepts.
    fn written(pieces: &[(&str, Piece<'_>, bool)]) -> serde_json::Value {
        let (mut writer, mut out) = (ArgsWriter::default(), String::new());
        for (path, piece, continues) in pieces {
            writer.write(path, *piece, *continues, &mut out).unwrap();
        }
        writer.finish(&mut out);
        serde_json::from_str(&out).unwrap_or_else(|error| panic!("{out}: {error}"))
    }

    #[test]
    fn a_string_in_pieces_is_one_value() {
        let value = written(&[
            ("$.location", text("Bos"), true),
            ("$.location", text("ton"), true),
            ("$.location", text(""), false),
            ("$.unit", text("c"), false),
        ]);
        assert_eq!(value, json!({"location": "Boston", "unit": "c"}));
    }

    #[test]
    fn nested_objects_and_arrays_open_and_close_in_order() {
        let value = written(&[
            ("$.operations[0].action", text("add"), false),
            ("$.operations[0].price", Piece::Scalar("0.5"), false),
            ("$.operations[1].action", text("add"), false),
            ("$.operations[1].ok", Piece::Scalar("true"), false),
            ("$.steps[0]", text("a"), false),
            ("$.steps[1]", text("b"), true),
            ("$.steps[1]", text("c"), false),
            ("$.meta.none", Piece::Scalar("null"), false),
        ]);
        assert_eq!(
            value,
            json!({
                "operations": [{"action": "add", "price": 0.5}, {"action": "add", "ok": true}],
                "steps": ["a", "bc"],
                "meta": {"none": null}
            })
        );
    }

    #[test]
    fn an_open_string_is_closed_by_another_path_and_by_finish() {
        let value = written(&[("$.a", text("x"), true), ("$['b c']", text("y"), true)]);
        assert_eq!(value, json!({"a": "x", "b c": "y"}));
    }

    #[test]
    fn bad_paths_are_refused_and_leave_a_valid_prefix() {
        let (mut writer, mut out) = (ArgsWriter::default(), String::new());
        writer.write("$.a[0]", text("x"), false, &mut out).unwrap();
        for (path, error) in [
            ("location", PathError::Malformed),
            ("$", PathError::Malformed),
            ("$.a[x]", PathError::Malformed),
            ("$.a.b", PathError::KindMismatch),
        ] {
            assert_eq!(writer.write(path, text("y"), false, &mut out), Err(error));
        }
        let deep = format!("${}", ".k".repeat(MAX_DEPTH + 1));
        assert_eq!(
            writer.write(&deep, text("y"), false, &mut out),
            Err(PathError::TooDeep)
        );
        writer.finish(&mut out);
        assert_eq!(out, r#"{"a":["x"]}"#);
    }
}
