//! Writing to the terminal: optional ANSI styles (`anstyle`'s), line tracking, and escaping of
//! model text.
//!
//! Model output is untrusted: control characters other than newline and tab, and invisible format
//! characters (bidirectional overrides, zero-width spaces…), are shown escaped, never sent to the
//! terminal, so streamed text cannot move the cursor, restyle the screen or read as other text.
//! Labels (tool names, ids, the model) are escaped whole and cut short where they repeat.
//! The error line on stderr, which may quote the server, goes through the same escaping.

use std::borrow::Cow;
use std::io::{self, Write};

/// ANSI styles, used only when colour is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Plain,
    Dim,
    Header,
    Good,
    Bad,
    Warn,
}

impl Style {
    fn ansi(self) -> anstyle::Style {
        use anstyle::{AnsiColor, Style as Ansi};
        match self {
            Style::Plain => Ansi::new(),
            Style::Dim => Ansi::new().dimmed(),
            Style::Header => AnsiColor::Cyan.on_default().bold(),
            Style::Good => AnsiColor::Green.on_default(),
            Style::Bad => AnsiColor::Red.on_default(),
            Style::Warn => AnsiColor::Yellow.on_default(),
        }
    }
}

/// An append-only writer that knows whether it is at the start of a line.
pub struct Painter<W> {
    out: W,
    color: bool,
    at_line_start: bool,
    wrote_anything: bool,
}

impl<W: Write> Painter<W> {
    /// Writes to `out`, with ANSI styles when `color` is true.
    pub fn new(out: W, color: bool) -> Self {
        Painter {
            out,
            color,
            at_line_start: true,
            wrote_anything: false,
        }
    }

    /// Writes model text in a style, escaping what could drive or spoof the terminal.
    pub fn text(&mut self, style: Style, text: &str) -> io::Result<()> {
        self.styled(style, &escape_for_terminal(text))
    }

    /// Writes our own text, which needs no escaping, in a style.
    pub fn styled(&mut self, style: Style, text: &str) -> io::Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        if self.color && style != Style::Plain {
            let ansi = style.ansi();
            write!(self.out, "{ansi}{text}{ansi:#}")?;
        } else {
            self.out.write_all(text.as_bytes())?;
        }
        self.at_line_start = text.ends_with('\n');
        self.wrote_anything = true;
        Ok(())
    }

    /// Ends the line.
    pub fn line_end(&mut self) -> io::Result<()> {
        self.out.write_all(b"\n")?;
        self.at_line_start = true;
        Ok(())
    }

    /// Ends the line if text is hanging on it.
    pub fn end_line(&mut self) -> io::Result<()> {
        if self.at_line_start {
            Ok(())
        } else {
            self.line_end()
        }
    }

    /// Ends the line, then leaves a blank one unless nothing was written yet.
    pub fn blank_line(&mut self) -> io::Result<()> {
        self.end_line()?;
        if self.wrote_anything {
            self.line_end()?;
        }
        Ok(())
    }

    /// Sends what was written to the screen.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Characters of a label (a tool name, an id, a model, a finish reason) kept before it is cut.
const LABEL_CHARS: usize = 64;

/// Shows as escapes (`\u{1b}`, `\u{202e}`) what must not reach a terminal raw from model text:
/// control characters other than newline and tab, which could move the cursor or restyle the
/// screen, and invisible format characters (bidirectional overrides and isolates, zero-width
/// spaces, line separators…), which could make text read as other text. Zero-width joiner and
/// non-joiner stay: emoji sequences and several scripts need them in prose.
pub fn escape_for_terminal(text: &str) -> Cow<'_, str> {
    escape_where(text, |c| {
        (c.is_control() && c != '\n' && c != '\t')
            || (is_invisible_format(c) && c != '\u{200c}' && c != '\u{200d}')
    })
}

/// A label from the stream (a tool name, an id, a model, a finish reason) for one line: every
/// control and invisible format character escaped, newline, tab and joiners included, since a
/// name has no reason to hold them and could hide behind them.
pub fn escape_label(text: &str) -> Cow<'_, str> {
    escape_where(text, |c| c.is_control() || is_invisible_format(c))
}

/// [`escape_label`] cut to its first [`LABEL_CHARS`] characters (and an ellipsis), for the
/// lines written again and again: a header, a note.
pub fn short_label(text: &str) -> String {
    match text.char_indices().nth(LABEL_CHARS) {
        Some((cut, _)) => format!("{}…", escape_label(&text[..cut])),
        None => escape_label(text).into_owned(),
    }
}

fn escape_where(text: &str, is_unsafe: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.contains(&is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe(c) {
            escaped.extend(c.escape_unicode());
        } else {
            escaped.push(c);
        }
    }
    Cow::Owned(escaped)
}

/// Unicode's invisible format characters (general category Cf) and the line and paragraph
/// separators (Zl, Zp), as of Unicode 16.
pub fn is_invisible_format(c: char) -> bool {
    const RANGES: [(u32, u32); 21] = [
        (0xAD, 0xAD),
        (0x600, 0x605),
        (0x61C, 0x61C),
        (0x6DD, 0x6DD),
        (0x70F, 0x70F),
        (0x890, 0x891),
        (0x8E2, 0x8E2),
        (0x180E, 0x180E),
        (0x200B, 0x200F),
        (0x2028, 0x202E),
        (0x2060, 0x2064),
        (0x2066, 0x206F),
        (0xFEFF, 0xFEFF),
        (0xFFF9, 0xFFFB),
        (0x110BD, 0x110BD),
        (0x110CD, 0x110CD),
        (0x13430, 0x1343F),
        (0x1BCA0, 0x1BCA3),
        (0x1D173, 0x1D17A),
        (0xE0001, 0xE0001),
        (0xE0020, 0xE007F),
    ];
    let c = u32::from(c);
    c >= 0xAD
        && RANGES
            .binary_search_by(|&(low, high)| {
                if high < c {
                    std::cmp::Ordering::Less
                } else if low > c {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_but_newlines_kept() {
        assert_eq!(escape_for_terminal("a\nb\tc"), "a\nb\tc");
        assert_eq!(escape_for_terminal("\x1b[2Jx\r"), "\\u{1b}[2Jx\\u{d}");
    }

    #[test]
    fn bidirectional_and_invisible_format_characters_are_escaped() {
        for c in [
            '\u{202a}', '\u{202e}', '\u{2066}', '\u{2069}', '\u{200b}', '\u{200f}',
        ]
        .into_iter()
        .chain([
            '\u{2028}',
            '\u{2029}',
            '\u{feff}',
            '\u{ad}',
            '\u{e0041}',
            '\u{61c}',
        ]) {
            let text = format!("a{c}b");
            let escaped = format!("a{}b", c.escape_unicode());
            assert_eq!(escape_for_terminal(&text), escaped);
            assert_eq!(escape_label(&text), escaped);
        }
        // Prose keeps the joiners an emoji sequence or a script needs; a label does not.
        assert_eq!(
            escape_for_terminal("👨\u{200d}👩 می\u{200c}خواهم"),
            "👨\u{200d}👩 می\u{200c}خواهم"
        );
        assert_eq!(escape_label("a\u{200d}b\nc"), "a\\u{200d}b\\u{a}c");
        assert_eq!(
            escape_for_terminal("é ü 中文 \u{2030}"),
            "é ü 中文 \u{2030}"
        );
    }

    #[test]
    fn short_labels_are_cut_after_their_escapes_are_decided() {
        assert_eq!(short_label("get_weather"), "get_weather");
        let long = "n".repeat(65_536);
        assert_eq!(short_label(&long), format!("{}…", "n".repeat(LABEL_CHARS)));
        assert_eq!(short_label("\u{202e}x"), "\\u{202e}x");
    }

    #[test]
    fn styles_wrap_text_only_when_colour_is_on() {
        let mut plain = Painter::new(Vec::new(), false);
        plain.text(Style::Dim, "a\x07").unwrap();
        plain.blank_line().unwrap();
        assert_eq!(plain.out, b"a\\u{7}\n\n");
        let mut styled = Painter::new(Vec::new(), true);
        styled.text(Style::Dim, "a").unwrap();
        assert_eq!(styled.out, b"\x1b[2ma\x1b[0m");
    }
}
