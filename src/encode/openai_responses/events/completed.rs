//! The closing event, `response.completed` (or `response.incomplete`): every closed item's
//! final JSON, held as text as the items close and spliced in whole, never parsed back into
//! values.

use serde_json::{json, Value};

use super::EventRules;
use crate::assemble::PartialMessage;
use crate::encode::finish;
use crate::encode::held::Holding;
use crate::encode::openai_responses::items::usage_json;
use crate::encode::sse::push_json_str;

impl EventRules {
    /// Closes every item and writes `response.completed` (or `response.incomplete`).
    pub(super) fn close(&mut self, message: Option<&PartialMessage>, out: &mut String) {
        self.start(out);
        self.close_all(message, out);
        if let Some(message) = message {
            let rest = self.cursor.rest(message);
            self.write_hidden(message, rest, out);
            self.reseal(message);
        }
        let incomplete =
            finish::responses(self.reason.as_deref().unwrap_or(""), self.saw_tool_calls);
        let mut response = self.response_object(if incomplete.is_some() {
            "incomplete"
        } else {
            "completed"
        });
        if let Some(fields) = response.as_object_mut() {
            fields.remove("output");
        }
        response["usage"] = usage_json(&self.usage.clone().unwrap_or_default());
        if let Some(reason) = incomplete {
            response["incomplete_details"] = json!({ "reason": reason });
        }
        let kind = if incomplete.is_some() {
            "response.incomplete"
        } else {
            "response.completed"
        };
        // The held items spliced in as text, not parsed back into values, straight into `out`.
        let shell = response.to_string();
        out.reserve(self.output.bytes() + shell.len() + 128);
        self.open_raw(out, kind);
        out.push_str("{\"type\":");
        push_json_str(out, kind);
        out.push_str(",\"response\":{\"output\":[");
        std::mem::take(&mut self.output).write_into(out);
        out.push(']');
        if shell.len() > 2 {
            out.push(',');
        }
        out.push_str(&shell[1..]);
        self.close_raw(out);
    }

    /// Appends a closed item's final JSON to the output `response.completed` carries; a
    /// reasoning item's place is noted with the block it mirrors.
    pub(super) fn keep(&mut self, item: &Value, mirrors: Option<usize>) {
        let place = self.output.push_at(&item.to_string());
        if let Some(block) = mirrors {
            self.sealed.push((place, block));
        }
    }
}
