//! Streams a chat completion from an OpenAI-compatible endpoint, printing the text as it
//! arrives, then the tool calls and the token usage.
//!
//! ```text
//! OPENAI_API_KEY=sk-... cargo run --example live_print -- "What's the weather in Paris?"
//! ```
//!
//! `OPENAI_BASE_URL` (default `https://api.openai.com/v1`) points it at any compatible server;
//! `MODEL` picks the model (default `gpt-4o-mini`).

use std::env;
use std::io::Write;

use deltafold::{Event, Options, RequestBuilderExt};
use futures::StreamExt;
use serde_json::{json, Value};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let base_url =
        env::var("OPENAI_BASE_URL").unwrap_or_else(|_| "https://api.openai.com/v1".to_owned());
    let model = env::var("MODEL").unwrap_or_else(|_| "gpt-4o-mini".to_owned());
    let prompt = match env::args().skip(1).collect::<Vec<_>>().join(" ") {
        prompt if prompt.is_empty() => "What's the weather in Paris? Say hello first.".to_owned(),
        prompt => prompt,
    };
    let body = json!({
        "model": model,
        "stream": true,
        "stream_options": {"include_usage": true},
        "messages": [{"role": "user", "content": prompt}],
        "tools": [{
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
        }]
    });

    let mut request = reqwest::Client::new()
        .post(format!(
            "{}/chat/completions",
            base_url.trim_end_matches('/')
        ))
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Ok(key) = env::var("OPENAI_API_KEY") {
        request = request.bearer_auth(key);
    }

    let mut events = request.send_and_assemble(Options::new()).await?;
    let mut stdout = std::io::stdout();
    while let Some(event) = events.next().await {
        match event {
            Ok(Event::TextDelta { text, .. }) => {
                print!("{text}");
                stdout.flush()?;
            }
            Ok(Event::ToolCallStarted { name, .. }) => eprintln!("\n[calling {name}…]"),
            Ok(_) => {}
            Err(error) => {
                // What arrived before the failure is not lost: it travels with the error.
                if let Some(partial) = error.partial().and_then(|partial| partial.message()) {
                    eprintln!(
                        "\n[stopped after {} characters]",
                        partial.text().chars().count()
                    );
                }
                return Err(error.into());
            }
        }
    }
    println!();

    let message = events.completion().await?.into_message();
    for call in message.tool_calls() {
        println!(
            "tool call {}: {}({})",
            call.id,
            call.name,
            Value::Object(call.args.clone())
        );
    }
    if let Some(usage) = &message.usage {
        println!(
            "usage: {} input + {} output = {} tokens",
            usage.input_tokens, usage.output_tokens, usage.total_tokens
        );
    }
    println!(
        "finish reason: {}",
        message.response_metadata.finish_reason.as_str()
    );
    Ok(())
}
