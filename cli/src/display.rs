//! The live display: reasoning (dimmed), text and each tool call's arguments as they arrive,
//! then a summary of the assembled message.
//!
//! It only ever appends, so it reads the same in a terminal, a pipe or a log file.

use std::collections::HashSet;
use std::io::{self, Write};

use deltafold::{Assembler, Completion, ContentBlock, Event};

use crate::output::{tool_call, Sink};
use crate::paint::{short_label, Painter, Style};
use crate::summary::write_summary;

/// What starts a tool call's arguments when they resume after another call's.
const CONTINUED: &str = "…";

/// The human-readable output mode.
pub struct LiveDisplay<W> {
    out: Painter<W>,
    /// Lines to show before anything else (the demo's hint).
    intro: Option<String>,
    /// What the last text written belongs to.
    section: Option<Section>,
    /// Sections that have had their header, so a resumed one says so.
    shown: HashSet<Section>,
}

/// A run of output under one header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Section {
    Reasoning {
        choice: u32,
    },
    Text {
        choice: u32,
    },
    Refusal {
        choice: u32,
    },
    ToolCall {
        choice: u32,
        index: u32,
    },
    /// One-line notes (a tool call finished), listed without a header.
    Notes,
}

impl<W: Write> LiveDisplay<W> {
    /// Writes to `out`, with ANSI styles when `color` is true.
    pub fn new(out: W, color: bool) -> Self {
        LiveDisplay {
            out: Painter::new(out, color),
            intro: None,
            section: None,
            shown: HashSet::new(),
        }
    }

    /// Shows `text` (dimmed) before the stream.
    pub fn with_intro(mut self, text: impl Into<String>) -> Self {
        self.intro = Some(text.into());
        self
    }

    fn write_intro(&mut self) -> io::Result<()> {
        if let Some(intro) = self.intro.take() {
            self.out.styled(Style::Dim, &intro)?;
            self.out.line_end()?;
        }
        Ok(())
    }

    /// Starts `section` under its header unless it is the one being written.
    fn enter(&mut self, section: Section, assembler: &Assembler) -> io::Result<()> {
        if self.section == Some(section) {
            return Ok(());
        }
        let notes_go_on = section == Section::Notes && self.section == Some(Section::Notes);
        self.section = Some(section);
        if notes_go_on {
            self.out.end_line()?;
        } else {
            self.out.blank_line()?;
        }
        if section == Section::Notes {
            return Ok(());
        }
        let header = header(section, assembler, !self.shown.insert(section));
        self.out.text(Style::Header, &header)?;
        self.out.line_end()
    }

    fn started(&mut self, id: Option<&str>, model: Option<&str>) -> io::Result<()> {
        let parts: Vec<String> = [("model", model), ("id", id)]
            .into_iter()
            .filter_map(|(label, value)| {
                value.map(|value| format!("{label} {}", short_label(value)))
            })
            .collect();
        if parts.is_empty() {
            return Ok(());
        }
        self.out.end_line()?;
        self.out.text(Style::Dim, &parts.join(" · "))?;
        self.out.line_end()
    }

    /// Writes a fragment of a call's arguments. Each fragment is written once, as it came: a
    /// call resumed after another one's starts with a dim `…` under its "(continued)" header,
    /// not with a repeat of what came before, so the call's fragments read in order are its
    /// arguments exactly.
    fn arguments(
        &mut self,
        choice: u32,
        index: u32,
        delta: &str,
        assembler: &Assembler,
    ) -> io::Result<()> {
        let section = Section::ToolCall { choice, index };
        let resumed = self.section != Some(section) && self.shown.contains(&section);
        self.enter(section, assembler)?;
        if resumed {
            self.out.styled(Style::Dim, CONTINUED)?;
        }
        self.out.text(Style::Plain, delta)
    }

    fn tool_call_finished(
        &mut self,
        index: u32,
        call: &ContentBlock,
        assembler: &Assembler,
    ) -> io::Result<()> {
        self.enter(Section::Notes, assembler)?;
        match call {
            ContentBlock::ToolCall(call) => {
                let keys = match call.args.len() {
                    1 => "1 argument".to_owned(),
                    n => format!("{n} arguments"),
                };
                self.out.styled(Style::Good, "✓")?;
                let name = short_label(&call.name);
                let note = format!(" tool call {index} {name}: {keys} parsed");
                self.out.text(Style::Plain, &note)?;
            }
            ContentBlock::InvalidToolCall(call) => {
                self.out.styled(Style::Bad, "✗")?;
                let name = short_label(&call.name);
                let note = format!(" tool call {index} {name}: {}", call.error);
                self.out.text(Style::Plain, &note)?;
            }
            _ => {}
        }
        self.out.line_end()
    }
}

impl<W: Write> Sink for LiveDisplay<W> {
    fn event(&mut self, event: &Event<'_>, assembler: &Assembler) -> io::Result<()> {
        self.write_intro()?;
        match event {
            Event::Started { id, model } => self.started(id.as_deref(), model.as_deref())?,
            Event::ReasoningDelta { choice, text } => {
                self.enter(Section::Reasoning { choice: *choice }, assembler)?;
                self.out.text(Style::Dim, text)?;
            }
            Event::TextDelta { choice, text } => {
                self.enter(Section::Text { choice: *choice }, assembler)?;
                self.out.text(Style::Plain, text)?;
            }
            Event::RefusalDelta { choice, text } => {
                self.enter(Section::Refusal { choice: *choice }, assembler)?;
                self.out.text(Style::Warn, text)?;
            }
            Event::ToolCallStarted { choice, index, .. } => {
                let section = Section::ToolCall {
                    choice: *choice,
                    index: *index,
                };
                self.enter(section, assembler)?;
            }
            Event::ToolCallArgumentsDelta {
                choice,
                index,
                delta,
            } => self.arguments(*choice, *index, delta, assembler)?,
            Event::ToolCallFinished { index, call, .. } => {
                self.tool_call_finished(*index, call, assembler)?;
            }
            _ => {}
        }
        self.out.flush()
    }

    fn finish(&mut self, completion: Option<&Completion>) -> io::Result<()> {
        self.write_intro()?;
        match completion {
            Some(completion) => write_summary(&mut self.out, completion)?,
            None => self.out.end_line()?,
        }
        self.out.flush()
    }
}

/// A section's header; the choice is named only when the response has several. A header is
/// written again each time its section resumes, so a tool call's name and id are cut short.
fn header(section: Section, assembler: &Assembler, resumed: bool) -> String {
    let (choice, title) = match section {
        Section::Reasoning { choice } => (choice, "thinking".to_owned()),
        Section::Text { choice } => (choice, "answer".to_owned()),
        Section::Refusal { choice } => (choice, "refusal".to_owned()),
        Section::ToolCall { choice, index } => {
            let mut title = format!("tool call {index}");
            if let Some(call) = tool_call(assembler, choice, index) {
                for part in [call.name(), call.id()] {
                    if !part.is_empty() {
                        title.push_str(" · ");
                        title.push_str(&short_label(part));
                    }
                }
            }
            (choice, title)
        }
        Section::Notes => (0, String::new()),
    };
    let choice = if assembler.messages().len() > 1 || choice != 0 {
        format!("choice {choice} · ")
    } else {
        String::new()
    };
    let resumed = if resumed { " (continued)" } else { "" };
    format!("── {choice}{title}{resumed}")
}
