//! An agent loop, end to end and offline: ask, stream the model's tool calls live, run the
//! tools, send the whole conversation back, stream the answer.
//!
//! ```text
//! cargo run --example agent_loop
//! ```
//!
//! The "model" is a local server (`support/replay_server.rs`) that replays recorded
//! OpenAI-compatible streams and refuses (400) a second request that does not carry the
//! assistant's tool calls and the matching tool messages. Point [`run`] at a real endpoint and
//! the same loop talks to a real model.

use std::error::Error;
use std::io::Write;
use std::time::Duration;

use deltafold::assemble::FinishedToolCall;
use deltafold::conversation::Conversation;
use deltafold::message::{Message, ToolCall, ToolMessage};
use deltafold::{Event, Options, RequestBuilderExt};
use futures::StreamExt;
use serde_json::{json, Value};

// Public so that the test running this example's loop (tests/agent_loop.rs) reaches it too.
#[path = "support/replay_server.rs"]
pub mod replay_server;

/// Errors of any step: HTTP and stream errors, a conversation rule broken, an encoding error.
pub type BoxError = Box<dyn Error + Send + Sync>;

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let server = replay_server::ReplayServer::start(Duration::from_millis(40)).await?;
    let conversation = run(&server.url(), &mut std::io::stdout()).await?;
    println!();
    for (number, exchange) in server.exchanges().iter().enumerate() {
        let sent = exchange.request["messages"].as_array().map_or(0, Vec::len);
        let verdict = exchange.refusal.as_deref().unwrap_or("streamed the answer");
        println!(
            "request {}: {sent} messages → {} {verdict}",
            number + 1,
            exchange.status
        );
    }
    println!("the conversation now holds {} messages", conversation.len());
    Ok(())
}

/// Runs the loop against `url` until the model answers without calling a tool, writing what
/// happens to `out` as it happens. Returns the whole conversation.
pub async fn run(url: &str, out: &mut impl Write) -> Result<Conversation, BoxError> {
    let client = reqwest::Client::new();
    let mut conversation = Conversation::new();
    conversation.push(Message::system(
        "You are a weather assistant. Use the tools.",
    ))?;
    let question = "What's the weather in Paris and in Tokyo?";
    writeln!(out, "user › {question}")?;
    conversation.push(Message::user(question))?;

    for round in 1.. {
        // The model remembers nothing: every request carries the whole conversation.
        let body = json!({
            "model": "gpt-4o-mini",
            "stream": true,
            "stream_options": {"include_usage": true},
            "messages": conversation.to_openai_chat()?,
            "tools": [weather_tool()],
        });
        let request = client
            .post(url)
            .header("content-type", "application/json")
            .body(body.to_string());
        let mut events = request.send_and_assemble(Options::new()).await?;
        write!(out, "assistant ›")?;
        // Each call's argument text as its deltas built it, and what it looked like when last
        // shown: a fragment that changes nothing visible (`{"` is still `{}`) is not shown again.
        let mut arguments: Vec<String> = Vec::new();
        let mut shown: Vec<String> = Vec::new();
        let mut text_started = false;
        while let Some(event) = events.next().await {
            match event? {
                Event::TextDelta { text, .. } => {
                    // The answer starts on the prompt's line, after one space.
                    let gap = if text_started || text.is_empty() {
                        ""
                    } else {
                        " "
                    };
                    text_started |= !text.is_empty();
                    write!(out, "{gap}{text}")?
                }
                Event::ToolCallStarted {
                    index, name, id, ..
                } => write!(out, "\n  call {index}: {name} ({id})")?,
                Event::ToolCallArgumentsDelta {
                    index,
                    delta,
                    partial,
                    ..
                } => {
                    // The arguments so far, closed into valid JSON: what a UI would show. The
                    // stream's events are detached from the assembler, so the event says how
                    // to close the text and the text is the one the deltas built here.
                    let index = index as usize;
                    arguments.resize(arguments.len().max(index + 1), String::new());
                    shown.resize(shown.len().max(index + 1), String::new());
                    arguments[index].push_str(&delta);
                    if let Some(completed) = partial.completion_of(&arguments[index]) {
                        let completed = completed.to_string();
                        if shown[index] != completed {
                            write!(out, "\n  call {index}: … {completed}")?;
                            shown[index] = completed;
                        }
                    }
                }
                Event::ToolCallFinished {
                    index,
                    call: FinishedToolCall::ToolCall(call),
                    ..
                } => write!(out, "\n  call {index}: ready {}", call.args_json())?,
                _ => {}
            }
            out.flush()?;
        }
        writeln!(out)?;
        let message = events.completion().await?.into_message();
        let calls: Vec<ToolCall> = message.tool_calls().cloned().collect();
        let invalid: Vec<String> = message
            .invalid_tool_calls()
            .map(|call| call.id.clone())
            .collect();
        conversation.push(message)?;
        if calls.is_empty() && invalid.is_empty() {
            break;
        }
        // Every call gets an answer, or the next request is refused: run the valid ones, tell
        // the model about the others.
        for call in &calls {
            let result = run_tool(call);
            writeln!(
                out,
                "tool › {}({}) = {}",
                call.name,
                call.args_json(),
                result.text()
            )?;
            conversation.push(result)?;
        }
        for id in invalid {
            conversation.push(ToolMessage::error(id, "the arguments are not valid JSON"))?;
        }
        if round == 5 {
            return Err("the model still calls tools after 5 rounds".into());
        }
    }
    Ok(conversation)
}

/// The tool the model may call, as the Chat Completions API describes tools.
fn weather_tool() -> Value {
    json!({
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The current weather in a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"]
            }
        }
    })
}

/// The arguments of `get_weather`, as the tool's schema declares them.
#[derive(serde::Deserialize)]
struct WeatherArgs {
    city: String,
}

/// What the weather service answers. A struct keeps its fields in this order whatever
/// serde_json's `preserve_order` feature says, so the tool message is the same bytes each run.
#[derive(serde::Serialize)]
struct WeatherReport {
    city: &'static str,
    temperature_c: i32,
    conditions: &'static str,
}

/// Runs one call: the model reads the content, the app keeps the full result as the artifact.
fn run_tool(call: &ToolCall) -> ToolMessage {
    if call.name != "get_weather" {
        let name = &call.name;
        return ToolMessage::error(call.id.clone(), format!("there is no tool {name:?}"));
    }
    let args: WeatherArgs = match call.parse_args() {
        Ok(args) => args,
        // Told to the model, which can correct its call.
        Err(error) => return ToolMessage::error(call.id.clone(), error.to_string()),
    };
    match weather(&args.city) {
        Some(report) => {
            let content = serde_json::to_string(&report).unwrap_or_default();
            let artifact = serde_json::to_value(&report).unwrap_or_default();
            ToolMessage::new(call.id.clone(), content).with_artifact(artifact)
        }
        None => ToolMessage::error(call.id.clone(), format!("no weather for {:?}", args.city)),
    }
}

/// The local "weather service".
fn weather(city: &str) -> Option<WeatherReport> {
    let (city, temperature_c, conditions) = match city {
        "Paris" => ("Paris", 18, "sunny"),
        "Tokyo" => ("Tokyo", 24, "light rain"),
        _ => return None,
    };
    Some(WeatherReport {
        city,
        temperature_c,
        conditions,
    })
}
