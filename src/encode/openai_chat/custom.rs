//! Custom tool calls in the chunk stream (`type: "custom"`, `custom: {name, input}`, the input
//! free text streamed in pieces, as OpenAI streams them): the message holds such a call as
//! LangChain does, arguments `{"__arg1": input}` ([`ToolCall::custom`]), whose argument text
//! streams as that JSON object — its opening, each input piece escaped as a JSON string's
//! content, its closing. Here the pieces are turned back into input text.

use crate::assemble::PartialMessage;
use crate::message::ToolCall;

/// Whether the call at `position` of `message` is a custom call: its argument text so far opens
/// as `{"__arg1":"` (the dialect writes that opening with the call's first piece).
pub(super) fn streams_custom(message: Option<&PartialMessage>, position: u32) -> bool {
    message
        .and_then(|message| {
            message
                .tool_calls()
                .find(|call| call.position() == position)
        })
        .is_some_and(|call| call.arguments().starts_with(&opening()))
}

/// The argument text a custom call opens with.
fn opening() -> String {
    format!("{{\"{}\":\"", ToolCall::CUSTOM_INPUT)
}

/// A custom call's input while its argument text streams: the opening not passed yet, and an
/// escape cut between two deltas, held until the rest comes.
#[derive(Debug, Default)]
pub(super) struct CustomInput {
    opened: bool,
    pending: String,
}

impl CustomInput {
    /// The input text one argument delta adds (`None`: nothing yet).
    pub(super) fn piece(&mut self, delta: &str) -> Option<String> {
        self.pending.push_str(delta);
        if !self.opened {
            let opening = opening();
            if opening.starts_with(self.pending.as_str()) && self.pending.len() < opening.len() {
                return None;
            }
            self.opened = true;
            if self.pending.starts_with(&opening) {
                self.pending.drain(..opening.len());
            }
        }
        let mut content = self.pending.as_str();
        // The closing `"}` follows an unescaped quote: one after an even run of backslashes.
        if let Some(inner) = content.strip_suffix("\"}") {
            let backslashes = inner.len() - inner.trim_end_matches('\\').len();
            if backslashes % 2 == 0 {
                content = inner;
            }
        }
        if content.is_empty() {
            self.pending.clear();
            return None;
        }
        if let Some(input) = unescape(content) {
            self.pending.clear();
            return Some(input);
        }
        // An escape cut at the end (`\`, `\u00`, a surrogate pair's first half): what comes
        // before its latest possible start now, the escape when the rest comes. Text that no cut makes valid (never
        // what a dialect wrote) goes out as it is, so nothing is held past one delta.
        let tail = content.len().saturating_sub(ESCAPE_MAX);
        let cut = content
            .char_indices()
            .rev()
            .take_while(|&(at, _)| at >= tail)
            .filter(|&(_, c)| c == '\\')
            .find_map(|(at, _)| Some((at, unescape(&content[..at])?)));
        match cut {
            Some((at, input)) => {
                self.pending.drain(..at);
                (!input.is_empty()).then_some(input)
            }
            None => {
                let raw = content.to_owned();
                self.pending.clear();
                Some(raw)
            }
        }
    }
}

/// The longest escape: a surrogate pair, `\ud83d\ude00`.
const ESCAPE_MAX: usize = 12;

/// A JSON string's content as the text it stands for.
fn unescape(content: &str) -> Option<String> {
    let mut quoted = String::with_capacity(content.len() + 2);
    quoted.push('"');
    quoted.push_str(content);
    quoted.push('"');
    serde_json::from_str(&quoted).ok()
}

#[cfg(test)]
mod tests {
    use super::CustomInput;

    #[test]
    fn pieces_of_the_argument_text_are_the_input_again() {
        let mut input = CustomInput::default();
        let deltas = [
            "{\"__arg1\":\"",
            "*** Begin\\n",
            "say \\\"hi\\",
            "\" \\ud83d",
            "\\ude00 done\\\\",
            "\"}",
        ];
        let pieces: Vec<Option<String>> = deltas.iter().map(|delta| input.piece(delta)).collect();
        assert_eq!(
            pieces,
            [
                None,
                Some("*** Begin\n".into()),
                Some("say \"hi".into()),
                Some("\" ".into()),
                Some("😀 done\\".into()),
                None,
            ]
        );
    }
}
