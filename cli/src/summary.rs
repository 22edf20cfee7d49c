//! The summary under the live display: finish reason, tool calls with their parsed arguments,
//! invalid calls with their error, why the answer is incomplete, usage.

use std::io::{self, Write};

use deltafold::message::Choice;
use deltafold::{AiMessage, Completion, UsageMetadata};

use crate::paint::{escape_label, Painter, Style};

/// Width of the label column.
const LABEL_WIDTH: usize = 12;

/// Writes the summary of `completion`, complete or partial.
pub fn write_summary<W: Write>(out: &mut Painter<W>, completion: &Completion) -> io::Result<()> {
    out.blank_line()?;
    out.styled(Style::Header, "── summary")?;
    if !completion.complete {
        out.styled(Style::Warn, " (incomplete)")?;
    }
    out.line_end()?;
    let several = completion.choices.len() > 1;
    for choice in &completion.choices {
        if several {
            out.styled(Style::Header, &format!("choice {}", choice.index))?;
            out.line_end()?;
        }
        choice_rows(out, choice)?;
    }
    match &completion.usage {
        Some(usage) => row(out, "usage", Style::Plain, &describe_usage(usage)),
        None => row(out, "usage", Style::Dim, "not reported"),
    }
}

fn choice_rows<W: Write>(out: &mut Painter<W>, choice: &Choice) -> io::Result<()> {
    let message = &choice.message;
    let metadata = &message.response_metadata;
    row(out, "finish", Style::Plain, &describe_finish(message))?;
    for call in message.tool_calls() {
        let args = serde_json::to_string(&call.args)?;
        let (name, id) = (escape_label(&call.name), escape_label(&call.id));
        let line = format!("{name} ({id}) {args}");
        row(out, "tool call", Style::Plain, &line)?;
    }
    for call in message.invalid_tool_calls() {
        let (name, id) = (escape_label(&call.name), escape_label(&call.id));
        let line = format!("{name} ({id}): {}", call.error);
        row(out, "invalid call", Style::Bad, &line)?;
        let raw = format!("arguments as sent: {}", call.args);
        row(out, "", Style::Dim, &raw)?;
    }
    if let Some(why) = &metadata.incomplete {
        row(out, "incomplete", Style::Warn, why)?;
    }
    for warning in &metadata.warnings {
        row(out, "warning", Style::Warn, warning)?;
    }
    Ok(())
}

fn row<W: Write>(out: &mut Painter<W>, label: &str, style: Style, value: &str) -> io::Result<()> {
    out.styled(Style::Dim, &format!("{label:<LABEL_WIDTH$} "))?;
    out.text(style, value)?;
    out.line_end()
}

/// The provider's reason, and its provider-neutral kind when that reads differently:
/// `end_turn (stop)`, `STOP (tool_calls)`, `tool_calls`.
fn describe_finish(message: &AiMessage) -> String {
    let reason = escape_label(message.response_metadata.finish_reason.as_str());
    match message.finish_kind() {
        None => "none reported".to_owned(),
        Some(kind) if reason == kind.as_str() => reason.to_string(),
        Some(kind) => format!("{reason} ({kind})"),
    }
}

/// `184 in (128 cached) · 97 out (41 reasoning) · 281 total`.
fn describe_usage(usage: &UsageMetadata) -> String {
    let mut input = format!("{} in", usage.input_tokens);
    if let Some(cached) = usage.input_token_details.and_then(|d| d.cache_read) {
        input.push_str(&format!(" ({cached} cached)"));
    }
    let mut output = format!("{} out", usage.output_tokens);
    if let Some(reasoning) = usage.output_token_details.and_then(|d| d.reasoning) {
        output.push_str(&format!(" ({reasoning} reasoning)"));
    }
    format!("{input} · {output} · {} total", usage.total_tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_names_cached_and_reasoning_tokens() {
        let usage: UsageMetadata = serde_json::from_value(serde_json::json!({
            "input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
            "input_token_details": {"cache_read": 4},
            "output_token_details": {"reasoning": 2}
        }))
        .unwrap();
        assert_eq!(
            describe_usage(&usage),
            "10 in (4 cached) · 5 out (2 reasoning) · 15 total"
        );
    }
}
