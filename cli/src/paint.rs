//! Writing to the terminal: optional ANSI styles, line tracking, and escaping of model text.
//!
//! Model output is untrusted: control characters other than newline and tab are shown escaped,
//! never sent to the terminal, so streamed text cannot move the cursor or restyle the screen.
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
    fn code(self) -> &'static str {
        match self {
            Style::Plain => "",
            Style::Dim => "\x1b[2m",
            Style::Header => "\x1b[1;36m",
            Style::Good => "\x1b[32m",
            Style::Bad => "\x1b[31m",
            Style::Warn => "\x1b[33m",
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

    /// Writes model text in a style, escaping control characters.
    pub fn text(&mut self, style: Style, text: &str) -> io::Result<()> {
        self.styled(style, &escape_controls(text))
    }

    /// Writes our own text, which needs no escaping, in a style.
    pub fn styled(&mut self, style: Style, text: &str) -> io::Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        if self.color && style != Style::Plain {
            write!(self.out, "{}{text}\x1b[0m", style.code())?;
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

/// Shows control characters other than newline and tab as escapes (`\u{1b}`).
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    let is_unsafe = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.contains(is_unsafe) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_but_newlines_kept() {
        assert_eq!(escape_controls("a\nb\tc"), "a\nb\tc");
        assert_eq!(escape_controls("\x1b[2Jx\r"), "\\u{1b}[2Jx\\u{d}");
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
