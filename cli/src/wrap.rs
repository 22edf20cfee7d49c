//! Word wrapping for the live display's prose (reasoning, text, refusals), which arrives in
//! fragments that may cut a word anywhere.
//!
//! A word is held back until the whitespace after it arrives (or the section ends), then
//! written on the current line if it fits, else on a new one: the spaces before it are where
//! the line breaks. Each character is looked at once, and a held word or run of spaces is never
//! longer than a line, so the work is linear. A word longer than a whole line is cut at the line's width.
//! The text is escaped before it gets here: an escape (`\u{1b}`) is part of a word and moves
//! whole, unless that word is longer than a line.

/// Wraps fragments of one section at `width` columns (one column per character).
#[derive(Debug)]
pub struct WordWrap {
    width: usize,
    /// Characters on the current line, the held spaces and word excluded.
    column: usize,
    /// The spaces after the last word written, written with the next word if it fits.
    gap: String,
    gap_chars: usize,
    /// The word being received.
    word: String,
    word_chars: usize,
}

impl WordWrap {
    /// Wraps at `width` columns (at least 1).
    pub fn new(width: usize) -> Self {
        WordWrap {
            width: width.max(1),
            column: 0,
            gap: String::new(),
            gap_chars: 0,
            word: String::new(),
            word_chars: 0,
        }
    }

    /// Appends to `out` what of `fragment` can be written now, with the line breaks it needs.
    pub fn push(&mut self, fragment: &str, out: &mut String) {
        for c in fragment.chars() {
            if c == '\n' {
                self.flush(out);
                out.push('\n');
                self.column = 0;
            } else if c.is_whitespace() {
                self.release(out);
                if self.column + self.gap_chars >= self.width {
                    // Spaces past the end of the line: the line breaks there.
                    self.break_line(out);
                } else {
                    self.gap.push(c);
                    self.gap_chars += 1;
                }
            } else {
                self.word.push(c);
                self.word_chars += 1;
                if self.word_chars == self.width {
                    self.release(out);
                }
            }
        }
    }

    /// Appends the held spaces and word to `out`: the section ends, or another one interrupts
    /// it.
    pub fn flush(&mut self, out: &mut String) {
        self.release(out);
        out.push_str(&self.gap);
        self.column += self.gap_chars;
        self.gap.clear();
        self.gap_chars = 0;
    }

    /// A new line was started outside this wrapper (a header).
    pub fn line_started(&mut self) {
        self.column = 0;
    }

    /// Ends the line in place of the held spaces.
    fn break_line(&mut self, out: &mut String) {
        out.push('\n');
        self.column = 0;
        self.gap.clear();
        self.gap_chars = 0;
    }

    /// Writes the held word after the held spaces, or on a new line in their place.
    fn release(&mut self, out: &mut String) {
        if self.word.is_empty() {
            return;
        }
        if self.column > 0 && self.column + self.gap_chars + self.word_chars > self.width {
            self.break_line(out);
        }
        out.push_str(&self.gap);
        self.column += self.gap_chars;
        self.gap.clear();
        self.gap_chars = 0;
        out.push_str(&self.word);
        self.column += self.word_chars;
        self.word.clear();
        self.word_chars = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrap(width: usize, fragments: &[&str]) -> String {
        let mut wrap = WordWrap::new(width);
        let mut out = String::new();
        for fragment in fragments {
            wrap.push(fragment, &mut out);
        }
        wrap.flush(&mut out);
        out
    }

    #[test]
    fn lines_break_between_words_however_the_fragments_cut_them() {
        let text = "the quick brown fox jumps over the lazy dog";
        let whole = wrap(10, &[text]);
        assert_eq!(whole, "the quick\nbrown fox\njumps over\nthe lazy\ndog");
        let chars: Vec<String> = text.chars().map(String::from).collect();
        let pieces: Vec<&str> = chars.iter().map(String::as_str).collect();
        assert_eq!(wrap(10, &pieces), whole);
        assert_eq!(
            wrap(10, &["the qu", "ick bro", "wn fox jumps over the lazy dog"]),
            whole
        );
    }

    #[test]
    fn newlines_are_kept_and_reset_the_line() {
        assert_eq!(wrap(8, &["one two\nthree four"]), "one two\nthree\nfour");
    }

    #[test]
    fn a_word_longer_than_a_line_is_cut_at_the_width() {
        assert_eq!(wrap(4, &["ab abcdefghij"]), "ab\nabcd\nefgh\nij");
        assert_eq!(wrap(4, &["ab", "      ", "c"]), "ab\n   c");
    }

    #[test]
    fn escapes_move_whole() {
        assert_eq!(wrap(12, &["hello \\u{1b}[2J"]), "hello\n\\u{1b}[2J");
    }
}
