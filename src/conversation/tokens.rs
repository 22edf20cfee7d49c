//! Token counting for trimming: the `TokenCounter` trait and an estimate without a tokenizer.

use crate::message::{Content, ContentBlock, Message};

/// Counts the tokens a message costs in a request, for trimming to a budget.
///
/// Any `Fn(&Message) -> usize` is a counter, so a real tokenizer plugs in as a closure (see the
/// README for `tiktoken-rs`); [`ApproxTokenCounter`] is the default.
pub trait TokenCounter {
    /// The tokens `message` costs.
    fn count(&self, message: &Message) -> usize;

    /// The tokens `messages` cost together.
    fn count_all(&self, messages: &[Message]) -> usize {
        messages.iter().map(|message| self.count(message)).sum()
    }
}

impl<F: Fn(&Message) -> usize> TokenCounter for F {
    fn count(&self, message: &Message) -> usize {
        self(message)
    }
}

/// An estimate without a tokenizer, as LangChain's `count_tokens_approximately` makes it: the
/// characters of the text, role, name, tool-call names, arguments and ids, divided by
/// [`chars_per_token`](Self::chars_per_token) and rounded up, plus
/// [`tokens_per_message`](Self::tokens_per_message) per message and
/// [`tokens_per_image`](Self::tokens_per_image) per image. Other media count by the length of
/// their JSON (a base64 payload counts in full, which errs on the safe side).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ApproxTokenCounter {
    /// Characters per token; 4 for English text with GPT-style tokenizers.
    pub chars_per_token: f64,
    /// Fixed overhead per message (role markers, separators).
    pub tokens_per_message: usize,
    /// Cost of one image (OpenAI's low-detail price).
    pub tokens_per_image: usize,
}

impl Default for ApproxTokenCounter {
    fn default() -> Self {
        ApproxTokenCounter {
            chars_per_token: 4.0,
            tokens_per_message: 3,
            tokens_per_image: 85,
        }
    }
}

impl ApproxTokenCounter {
    /// The default estimate.
    pub fn new() -> Self {
        Self::default()
    }
}

impl TokenCounter for ApproxTokenCounter {
    fn count(&self, message: &Message) -> usize {
        let mut chars = message.role().as_str().chars().count();
        chars += message.name().map_or(0, |name| name.chars().count());
        let mut images = 0;
        let mut count_blocks = |blocks: &[ContentBlock], chars: &mut usize| {
            for block in blocks {
                match block {
                    ContentBlock::Image(_) => images += 1,
                    other => *chars += block_chars(other),
                }
            }
        };
        match message {
            Message::Assistant(assistant) => count_blocks(&assistant.content, &mut chars),
            Message::System(m) => count_content(&m.content, &mut chars, &mut count_blocks),
            Message::User(m) => count_content(&m.content, &mut chars, &mut count_blocks),
            Message::Chat(m) => count_content(&m.content, &mut chars, &mut count_blocks),
            Message::Tool(m) => {
                chars += m.tool_call_id.chars().count();
                count_content(&m.content, &mut chars, &mut count_blocks);
            }
        }
        let text_tokens = (chars as f64 / self.chars_per_token.max(f64::MIN_POSITIVE)).ceil();
        text_tokens as usize + self.tokens_per_message + images * self.tokens_per_image
    }
}

fn count_content(
    content: &Content,
    chars: &mut usize,
    count_blocks: &mut impl FnMut(&[ContentBlock], &mut usize),
) {
    match content {
        Content::Text(text) => *chars += text.chars().count(),
        Content::Blocks(blocks) => count_blocks(blocks, chars),
    }
}

fn block_chars(block: &ContentBlock) -> usize {
    let len = |text: &str| text.chars().count();
    match block {
        ContentBlock::Text { text, .. } | ContentBlock::Refusal { refusal: text, .. } => len(text),
        ContentBlock::Reasoning { text, data, .. } => len(text) + data.as_deref().map_or(0, len),
        ContentBlock::ToolCall(call) => {
            len(&call.id)
                + len(&call.name)
                + len(&serde_json::Value::Object(call.args.clone()).to_string())
        }
        ContentBlock::InvalidToolCall(call) => len(&call.id) + len(&call.name) + len(&call.args),
        other => serde_json::to_string(other).map_or(0, |json| len(&json)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{AiMessage, MediaBlock, ToolCall};
    use serde_json::json;

    #[test]
    fn counts_like_langchain_count_tokens_approximately() {
        let counter = ApproxTokenCounter::default();
        // "user" (4) + "Hello world!" (12) = 16 chars → 4 tokens, + 3 per message.
        assert_eq!(counter.count(&Message::user("Hello world!")), 7);
        // "tool" (4) + "call_1" (6) + "18°C" (4 chars) = 14 → 4, + 3.
        assert_eq!(counter.count(&Message::tool("call_1", "18°C")), 7);
        let image = Message::user(vec![
            ContentBlock::text("What is this?"),
            ContentBlock::image(MediaBlock::url("https://x.test/a.png")),
        ]);
        // "user" + 13 chars = 17 → 5, + 3, + 85.
        assert_eq!(counter.count(&image), 93);
    }

    #[test]
    fn tool_calls_count_their_name_arguments_and_id() {
        let args = json!({"city": "Paris"}).as_object().unwrap().clone();
        let assistant = Message::from(AiMessage {
            content: vec![ContentBlock::ToolCall(ToolCall {
                id: "call_1".into(),
                name: "get_weather".into(),
                args,
                ..ToolCall::default()
            })],
            ..AiMessage::default()
        });
        // "assistant" 9 + "call_1" 6 + "get_weather" 11 + {"city":"Paris"} 16 = 42 → 11, + 3.
        assert_eq!(ApproxTokenCounter::default().count(&assistant), 14);
    }

    #[test]
    fn closures_are_counters() {
        let words = |message: &Message| message.text().split_whitespace().count();
        let messages = [Message::user("one two"), Message::assistant("three")];
        assert_eq!(words.count_all(&messages), 3);
    }
}
