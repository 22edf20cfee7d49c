//! A from-scratch, recursive reading of a prefix of valid JSON that applies
//! the display rules directly; independent of the incremental scanner.

use serde_json::{Map, Value};

/// What the display rules show for `text`, a prefix of valid JSON.
pub fn display(text: &str) -> Option<Value> {
    let mut p = P { text, i: 0 };
    p.ws();
    if p.eof() {
        return None;
    }
    match p.value() {
        Ok(v) => Some(v),
        Err(shown) => shown,
    }
}

struct P<'a> {
    text: &'a str,
    i: usize,
}

/// `Err` when the text ends inside the value, with what to show of it.
type R = Result<Value, Option<Value>>;

impl P<'_> {
    fn eof(&self) -> bool {
        self.i >= self.text.len()
    }

    fn peek(&self) -> u8 {
        self.text.as_bytes()[self.i]
    }

    fn ws(&mut self) {
        while !self.eof() && matches!(self.peek(), b' ' | b'\n' | b'\t' | b'\r') {
            self.i += 1;
        }
    }

    fn value(&mut self) -> R {
        match self.peek() {
            b'{' => self.object(),
            b'[' => self.array(),
            b'"' => self
                .string()
                .map(Value::String)
                .map_err(|s| Some(Value::String(s))),
            b't' => self.literal("true", Value::Bool(true)),
            b'f' => self.literal("false", Value::Bool(false)),
            b'n' => self.literal("null", Value::Null),
            _ => self.number(),
        }
    }

    fn literal(&mut self, word: &str, v: Value) -> R {
        if self.text.len() - self.i < word.len() {
            self.i = self.text.len();
            return Err(None);
        }
        self.i += word.len();
        Ok(v)
    }

    fn number(&mut self) -> R {
        let start = self.i;
        while !self.eof() && matches!(self.peek(), b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
            self.i += 1;
        }
        if self.eof() {
            return Err(None); // it may still grow
        }
        Ok(serde_json::from_str(&self.text[start..self.i]).unwrap())
    }

    fn object(&mut self) -> R {
        self.i += 1;
        let mut map = Map::new();
        loop {
            self.ws();
            if self.eof() {
                return Err(Some(Value::Object(map)));
            }
            match self.peek() {
                b'}' => {
                    self.i += 1;
                    return Ok(Value::Object(map));
                }
                b',' => {
                    self.i += 1;
                    continue;
                }
                _ => {}
            }
            let Ok(key) = self.string() else {
                return Err(Some(Value::Object(map)));
            };
            self.ws();
            if self.eof() {
                return Err(Some(Value::Object(map)));
            }
            self.i += 1; // ':'
            self.ws();
            if self.eof() {
                return Err(Some(Value::Object(map)));
            }
            match self.value() {
                Ok(v) => {
                    map.insert(key, v);
                }
                Err(shown) => {
                    if let Some(v) = shown {
                        map.insert(key, v);
                    }
                    return Err(Some(Value::Object(map)));
                }
            }
        }
    }

    fn array(&mut self) -> R {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            self.ws();
            if self.eof() {
                return Err(Some(Value::Array(items)));
            }
            match self.peek() {
                b']' => {
                    self.i += 1;
                    return Ok(Value::Array(items));
                }
                b',' => {
                    self.i += 1;
                    continue;
                }
                _ => {}
            }
            match self.value() {
                Ok(v) => items.push(v),
                Err(shown) => {
                    items.extend(shown);
                    return Err(Some(Value::Array(items)));
                }
            }
        }
    }

    /// `Err` with the content so far when the text ends inside.
    fn string(&mut self) -> Result<String, String> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.text[self.i..].chars().next() else {
                return Err(out);
            };
            match c {
                '"' => {
                    self.i += 1;
                    return Ok(out);
                }
                '\\' => match self.escape() {
                    Some(c) => out.push(c),
                    None => return Err(out),
                },
                c => {
                    out.push(c);
                    self.i += c.len_utf8();
                }
            }
        }
    }

    /// The escaped char, or `None` when the text ends inside the escape.
    fn escape(&mut self) -> Option<char> {
        let c = match *self.text.as_bytes().get(self.i + 1)? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            _ => {
                let hi = self.hex4(self.i + 2)?;
                if (0xD800..0xDC00).contains(&hi) {
                    let lo = self.hex4(self.i + 8)?;
                    self.i += 12;
                    return char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00));
                }
                self.i += 6;
                return char::from_u32(hi);
            }
        };
        self.i += 2;
        Some(c)
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        u32::from_str_radix(self.text.get(at..at + 4)?, 16).ok()
    }
}
