//! What the provider runs for the model — web search, web fetch, code execution, file search,
//! image generation, remote MCP tools — as LangChain 1.0's `server_tool_call` and
//! `server_tool_result` blocks, and the approval a provider asks before it calls a remote MCP
//! tool.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ToolStatus;

/// A tool call the provider ran itself (not one for the app to run): LangChain's
/// `server_tool_call`.
///
/// Names follow LangChain's block translators, so a message reads the same whichever way
/// LangChain loads it: `web_search`, `web_fetch`, `code_interpreter` (Anthropic's
/// `code_execution` and OpenAI's code interpreter), `bash_code_execution`, `file_search`,
/// `image_generation`, `mcp_list_tools`, and `remote_mcp` for a remote MCP tool, whose own name
/// and server are in `extras` (`tool_name`, `server_name` / `server_label`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ServerToolCall {
    /// The provider's id for the call (`srvtoolu_…`, `ws_…`), which its result quotes.
    pub id: String,
    /// The tool, as LangChain names it.
    pub name: String,
    /// The arguments (a search query, the code that ran…).
    #[serde(default)]
    pub args: Map<String, Value>,
    /// The call's position in a streamed response, when one is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
    /// Every other field of the provider's block or item (`status`, `server_name`,
    /// `partial_json` for arguments that did not parse…), kept so it can be sent back.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extras: Map<String, Value>,
}

/// What a server-side tool returned: LangChain's `server_tool_result`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ServerToolResult {
    /// An id for the result itself, when the provider gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The id of the [`ServerToolCall`] this answers.
    pub tool_call_id: String,
    /// Whether the tool ran: an error result (`*_tool_result_error`, a failed item, an MCP
    /// `is_error`) is [`ToolStatus::Error`].
    #[serde(default)]
    pub status: ToolStatus,
    /// The tool's output as the provider sent it (search results, code output, MCP content).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    /// Every other field; `block_type` names the provider's block (`web_search_tool_result`…),
    /// which the provider needs to read it back.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extras: Map<String, Value>,
}

/// The provider asks the app to approve a remote MCP tool call before it runs it (OpenAI's
/// `mcp_approval_request`, Microsoft.Extensions.AI's `ToolApprovalRequestContent`): the app
/// answers in its next request, quoting [`id`](Self::id).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolApprovalRequest {
    /// The request's id, which the approval (or refusal) quotes.
    pub id: String,
    /// The MCP server the tool belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_label: Option<String>,
    /// The tool the model wants to call.
    pub name: String,
    /// The arguments it wants to call it with.
    #[serde(default)]
    pub args: Map<String, Value>,
    /// Every other field of the provider's item.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extras: Map<String, Value>,
}

/// The app's answer to a [`ToolApprovalRequest`] (OpenAI's `mcp_approval_response` input item,
/// Microsoft.Extensions.AI's `ToolApprovalResponseContent`): sent in a user message of the next
/// request, it lets the provider run the call, or tells it not to.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ToolApprovalResponse {
    /// The [`ToolApprovalRequest::id`] this answers.
    pub approval_request_id: String,
    /// True to let the provider run the call.
    pub approve: bool,
    /// Why, when the app says (shown to the model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl ToolApprovalResponse {
    /// Approves `request`.
    pub fn approve(request: &ToolApprovalRequest) -> Self {
        ToolApprovalResponse {
            approval_request_id: request.id.clone(),
            approve: true,
            reason: None,
        }
    }

    /// Refuses `request`, saying why.
    pub fn deny(request: &ToolApprovalRequest, reason: impl Into<String>) -> Self {
        ToolApprovalResponse {
            approval_request_id: request.id.clone(),
            approve: false,
            reason: Some(reason.into()),
        }
    }
}

/// How far a server-side tool call has got, as the provider reports it while it runs
/// (Responses' `response.web_search_call.searching`, `.interpreting`, `.generating`…), so an app
/// can show "searching the web…" before any result exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ServerToolStatus {
    /// The call began.
    InProgress,
    /// A web or file search is running.
    Searching,
    /// Code is running.
    Interpreting,
    /// An image is being generated.
    Generating,
    /// The tool finished; its result follows.
    Completed,
    /// The tool failed.
    Failed,
}

impl ServerToolStatus {
    /// The status a provider's progress word names (`in_progress`, `searching`…); `None` for a
    /// word it does not know.
    pub fn from_provider(word: &str) -> Option<Self> {
        Some(match word {
            "in_progress" => ServerToolStatus::InProgress,
            "searching" => ServerToolStatus::Searching,
            "interpreting" => ServerToolStatus::Interpreting,
            "generating" => ServerToolStatus::Generating,
            "completed" => ServerToolStatus::Completed,
            "failed" => ServerToolStatus::Failed,
            _ => return None,
        })
    }
}

impl ServerToolResult {
    /// True when the tool failed.
    pub fn is_error(&self) -> bool {
        self.status == ToolStatus::Error
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ContentBlock;
    use serde_json::json;

    #[test]
    fn blocks_use_langchain_shapes() {
        let blocks = vec![
            ContentBlock::ServerToolCall(ServerToolCall {
                id: "srvtoolu_1".into(),
                name: "web_search".into(),
                args: json!({"query": "rust"}).as_object().unwrap().clone(),
                ..ServerToolCall::default()
            }),
            ContentBlock::ServerToolResult(ServerToolResult {
                tool_call_id: "srvtoolu_1".into(),
                status: ToolStatus::Error,
                output: Some(json!({"error_code": "max_uses_exceeded"})),
                ..ServerToolResult::default()
            }),
            ContentBlock::ToolApprovalRequest(ToolApprovalRequest {
                id: "mcpr_1".into(),
                server_label: Some("deepwiki".into()),
                name: "ask_question".into(),
                ..ToolApprovalRequest::default()
            }),
        ];
        let value = serde_json::to_value(&blocks).unwrap();
        assert_eq!(
            value,
            json!([
                {"type": "server_tool_call", "id": "srvtoolu_1", "name": "web_search", "args": {"query": "rust"}},
                {"type": "server_tool_result", "tool_call_id": "srvtoolu_1", "status": "error", "output": {"error_code": "max_uses_exceeded"}},
                {"type": "tool_approval_request", "id": "mcpr_1", "server_label": "deepwiki", "name": "ask_question", "args": {}},
            ])
        );
        let back: Vec<ContentBlock> = serde_json::from_value(value).unwrap();
        assert_eq!(back, blocks);
    }

    #[test]
    fn an_approval_answers_its_request() {
        let request = ToolApprovalRequest {
            id: "mcpr_1".into(),
            name: "ask_question".into(),
            ..ToolApprovalRequest::default()
        };
        let yes = ContentBlock::ToolApprovalResponse(ToolApprovalResponse::approve(&request));
        assert_eq!(
            serde_json::to_value(&yes).unwrap(),
            json!({"type": "tool_approval_response", "approval_request_id": "mcpr_1", "approve": true})
        );
        let no = ToolApprovalResponse::deny(&request, "not today");
        assert!(!no.approve);
        assert_eq!(no.reason.as_deref(), Some("not today"));
    }

    #[test]
    fn progress_words_are_typed() {
        assert_eq!(
            ServerToolStatus::from_provider("searching"),
            Some(ServerToolStatus::Searching)
        );
        assert_eq!(ServerToolStatus::from_provider("calling"), None);
        assert_eq!(
            serde_json::to_value(ServerToolStatus::InProgress).unwrap(),
            json!("in_progress")
        );
    }
}
