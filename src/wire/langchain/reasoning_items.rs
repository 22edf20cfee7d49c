//! Reasoning blocks of one Responses reasoning item in the LangChain dict: each carries the
//! item's id, as langchain-openai writes them and reads them back into one item.

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::message::ContentBlock;

/// The key of a reasoning block's `extras` that holds its Responses item id (`rs_…`).
const REASONING_ITEM_ID: &str = "id";

/// The message's blocks, each reasoning block that continues a Responses reasoning item (its
/// second summary part…, which has no id of its own here) written with the item's id, as
/// langchain-openai writes them and needs them: it joins adjacent reasoning blocks of the same
/// id into one item, and sends a block without one as an item of its own.
pub(super) struct BlocksOut<'a>(pub(super) &'a [ContentBlock]);

impl Serialize for BlocksOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut item: Option<&Value> = None;
        serializer.collect_seq(self.0.iter().map(|block| {
            let ContentBlock::Reasoning { extras, .. } = block else {
                item = None;
                return std::borrow::Cow::Borrowed(block);
            };
            match (extras.get(REASONING_ITEM_ID), item) {
                (Some(id), _) => {
                    item = Some(id);
                    std::borrow::Cow::Borrowed(block)
                }
                (None, Some(id)) => {
                    let mut block = block.clone();
                    if let ContentBlock::Reasoning { extras, .. } = &mut block {
                        extras.insert(REASONING_ITEM_ID.into(), id.clone());
                    }
                    std::borrow::Cow::Owned(block)
                }
                (None, None) => std::borrow::Cow::Borrowed(block),
            }
        }))
    }
}

/// Undoes [`BlocksOut`]: a reasoning block with the id of the reasoning block before it
/// continues that item, and loses the repeated id.
pub(super) fn items_continued(blocks: &mut [ContentBlock]) {
    let mut item: Option<Value> = None;
    for block in blocks {
        let ContentBlock::Reasoning { extras, .. } = block else {
            item = None;
            continue;
        };
        match extras.get(REASONING_ITEM_ID) {
            Some(id) if item.as_ref() == Some(id) => {
                extras.remove(REASONING_ITEM_ID);
            }
            id => item = id.cloned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::message::{AiMessage, ContentBlock};

    #[test]
    fn every_summary_part_of_an_item_carries_its_id_in_the_dict() {
        let mut first = ContentBlock::reasoning("one");
        if let ContentBlock::Reasoning { extras, .. } = &mut first {
            extras.insert("id".into(), "rs_1".into());
        }
        let message = AiMessage {
            content: vec![
                first,
                ContentBlock::reasoning("two"),
                ContentBlock::text("answer"),
                ContentBlock::reasoning("other"),
            ],
            ..AiMessage::default()
        };
        let dict = serde_json::to_value(&message).unwrap();
        let ids: Vec<_> = dict["content_blocks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|block| block.get("id").cloned())
            .collect();
        assert_eq!(ids, [Some(json!("rs_1")), Some(json!("rs_1")), None, None]);
        assert_eq!(serde_json::from_value::<AiMessage>(dict).unwrap(), message);
    }
}
