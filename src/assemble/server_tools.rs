//! Server-side tool calls while they stream: the call as its start named it, the argument text
//! so far (partial JSON, shown live like a client tool call's), the latest partial image of an
//! image generation, and the parse at its end.

use serde_json::{Map, Value};

use super::PartialJson;
use crate::message::{ContentBlock, ServerToolCall};

/// A tool call the provider runs itself (web search, code execution, a remote MCP tool), as it
/// stands: its id and name are known from its start, its arguments grow until it finishes.
#[derive(Debug, Clone)]
pub struct PendingServerToolCall {
    call: ServerToolCall,
    arguments: String,
    finished: bool,
    /// The latest partial image (boxed: few calls have one).
    partial_image: Option<Box<PartialImage>>,
}

/// The latest partial image of an image generation while it runs, for a UI to show it growing.
/// Each partial replaces the one before in place: the message keeps only the final image.
#[derive(Debug, Clone, Default)]
pub struct PartialImage {
    index: u32,
    mime_type: String,
    data: String,
}

impl PartialImage {
    /// The provider's number for this partial (`partial_image_index`: 0, 1, 2…).
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The image's media type (`image/png`, `image/webp`…).
    pub fn mime_type(&self) -> &str {
        &self.mime_type
    }

    /// The image, base64.
    pub fn data(&self) -> &str {
        &self.data
    }
}

/// The media type of an image format the provider names (`png` when it names none).
fn image_mime_type(format: Option<&str>) -> String {
    format!("image/{}", format.unwrap_or("png"))
}

impl PendingServerToolCall {
    pub(super) fn new(call: ServerToolCall) -> Self {
        PendingServerToolCall {
            call,
            arguments: String::new(),
            finished: false,
            partial_image: None,
        }
    }

    /// The latest partial image, while the call runs.
    pub fn partial_image(&self) -> Option<&PartialImage> {
        self.partial_image.as_deref()
    }

    /// What holding `data` as the partial image costs beyond what the one before it holds: the
    /// first one its slot, its media type and its bytes; a later one only the bytes past the
    /// largest held so far (its buffer is reused).
    pub(super) fn partial_image_growth(&self, format: Option<&str>, data: &str) -> usize {
        match &self.partial_image {
            Some(image) => data.len().saturating_sub(image.data.capacity()),
            None => {
                std::mem::size_of::<PartialImage>() + image_mime_type(format).len() + data.len()
            }
        }
    }

    /// Replaces the partial image, reusing its buffer.
    pub(super) fn set_partial_image(&mut self, index: u32, format: Option<&str>, data: &str) {
        let image = self.partial_image.get_or_insert_with(Box::default);
        image.index = index;
        image.mime_type = image_mime_type(format);
        image.data.clear();
        image.data.push_str(data);
    }

    /// The call: id, name and extras from its start; its `args` are the parsed arguments once
    /// it [`is_finished`](Self::is_finished), those its start carried before.
    pub fn call(&self) -> &ServerToolCall {
        &self.call
    }

    /// The argument text streamed so far.
    pub fn arguments(&self) -> &str {
        &self.arguments
    }

    /// The arguments so far completed into valid JSON (the live view of a search query or of
    /// the code being written); `None` until a value has begun. Scans the text on each call.
    pub fn partial_value(&self) -> Option<Value> {
        let mut scanner = PartialJson::new();
        scanner.push_str(&self.arguments);
        scanner.value()
    }

    /// True once the provider said the call is complete.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Appends argument text; returns the byte range it occupies.
    pub(super) fn push_arguments(&mut self, fragment: &str) -> (usize, usize) {
        let start = self.arguments.len();
        self.arguments.push_str(fragment);
        (start, self.arguments.len())
    }

    /// Completes the call: `args` when the provider repeats them whole, else the streamed text
    /// parsed (text that is no JSON object is kept in `extras.partial_json`, as LangChain keeps
    /// it, and the arguments stay as the start gave them).
    pub(super) fn finish(&mut self, args: Option<Map<String, Value>>, extras: Map<String, Value>) {
        if self.finished {
            return;
        }
        self.finished = true;
        self.call.extras.extend(extras);
        if let Some(args) = args {
            self.call.args = args;
            return;
        }
        if self.arguments.trim().is_empty() {
            return;
        }
        match serde_json::from_str(&self.arguments) {
            Ok(Value::Object(args)) => self.call.args = args,
            _ => {
                let text = std::mem::take(&mut self.arguments);
                self.call.extras.insert("partial_json".into(), text.into());
            }
        }
    }

    pub(super) fn into_content(mut self) -> ContentBlock {
        self.finish(None, Map::new());
        ContentBlock::ServerToolCall(self.call)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pending() -> PendingServerToolCall {
        PendingServerToolCall::new(ServerToolCall {
            id: "srvtoolu_1".into(),
            name: "web_search".into(),
            ..ServerToolCall::default()
        })
    }

    #[test]
    fn streamed_arguments_are_shown_partial_then_parsed() {
        let mut call = pending();
        call.push_arguments("{\"query\": \"rust 1.");
        assert_eq!(call.partial_value(), Some(json!({"query": "rust 1."})));
        call.push_arguments("85\"}");
        call.finish(None, Map::new());
        assert!(call.is_finished());
        assert_eq!(call.call().args["query"], "rust 1.85");
    }

    #[test]
    fn a_partial_image_replaces_the_one_before_in_place() {
        let mut call = pending();
        let big = "A".repeat(1000);
        let first = call.partial_image_growth(Some("webp"), &big);
        assert!(first >= 1000);
        call.set_partial_image(0, Some("webp"), &big);
        assert_eq!(call.partial_image_growth(Some("webp"), &big), 0);
        assert_eq!(call.partial_image_growth(None, "B"), 0);
        call.set_partial_image(1, None, "B");
        let image = call.partial_image().unwrap();
        assert_eq!(
            (image.index(), image.mime_type(), image.data()),
            (1, "image/png", "B")
        );
        assert_eq!(call.partial_image_growth(None, &"C".repeat(1200)), 200);
    }

    #[test]
    fn arguments_that_are_no_object_are_kept_as_text() {
        let mut call = pending();
        call.push_arguments("{\"query\": ");
        let block = call.into_content();
        let ContentBlock::ServerToolCall(call) = block else {
            panic!("{block:?}");
        };
        assert!(call.args.is_empty());
        assert_eq!(call.extras["partial_json"], "{\"query\": ");
    }
}
