//! The live display: reasoning (dimmed), text and each tool call's arguments as they arrive,
//! then a summary of the assembled message.
//!
//! It only ever appends, so it reads the same in a terminal, a pipe or a log file. Prose is
//! wrapped at word boundaries when the width is known (a terminal, or `COLUMNS`).

use std::collections::HashSet;
use std::io::{self, Write};

use deltafold::assemble::FinishedToolCall;
use deltafold::{Assembler, Completion, Event};

use crate::output::{tool_call, Sink};
use crate::paint::{escape_for_terminal, short_label, Painter, Style};
use crate::summary::write_summary;
use crate::wrap::WordWrap;

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
    /// Word wrapping of prose, when the width of the screen is known.
    wrap: Option<WordWrap>,
    /// The style of the prose section being written, for the word the wrapper holds back.
    prose_style: Style,
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
            wrap: None,
            prose_style: Style::Plain,
        }
    }

    /// Wraps reasoning, text and refusals at word boundaries to `width` columns; without it,
    /// lines are left for the terminal to wrap.
    pub fn with_width(mut self, width: Option<usize>) -> Self {
        self.wrap = width.map(WordWrap::new);
        self
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
        self.release_held()?;
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
        self.out.line_end()?;
        if let Some(wrap) = &mut self.wrap {
            wrap.line_started();
        }
        Ok(())
    }

    /// Writes a fragment of reasoning, text or a refusal, wrapped when a width is set.
    fn prose(
        &mut self,
        section: Section,
        style: Style,
        text: &str,
        assembler: &Assembler,
    ) -> io::Result<()> {
        self.enter(section, assembler)?;
        let Some(wrap) = &mut self.wrap else {
            return self.out.text(style, text);
        };
        let mut wrapped = String::new();
        wrap.push(&escape_for_terminal(text), &mut wrapped);
        self.prose_style = style;
        self.out.styled(style, &wrapped)
    }

    /// Writes the word the wrapper holds back: its section ends here, or pauses.
    fn release_held(&mut self) -> io::Result<()> {
        let Some(wrap) = &mut self.wrap else {
            return Ok(());
        };
        let mut held = String::new();
        wrap.flush(&mut held);
        self.out.styled(self.prose_style, &held)
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
        self.release_held()?;
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
        call: &FinishedToolCall<'_>,
        assembler: &Assembler,
    ) -> io::Result<()> {
        self.enter(Section::Notes, assembler)?;
        match call {
            FinishedToolCall::ToolCall(call) => {
                let keys = match call.args.len() {
                    1 => "1 argument".to_owned(),
                    n => format!("{n} arguments"),
                };
                self.out.styled(Style::Good, "✓")?;
                let name = short_label(&call.name);
                let note = format!(" tool call {index} {name}: {keys} parsed");
                self.out.text(Style::Plain, &note)?;
            }
            FinishedToolCall::InvalidToolCall(call) => {
                self.out.styled(Style::Bad, "✗")?;
                let name = short_label(&call.name);
                let note = format!(" tool call {index} {name}: {}", call.error);
                self.out.text(Style::Plain, &note)?;
            }
        }
        self.out.line_end()
    }
}

impl<W: Write> Sink for LiveDisplay<W> {
    fn event(&mut self, event: &Event<'_>, assembler: &mut Assembler) -> io::Result<()> {
        self.write_intro()?;
        match event {
            Event::Started { id, model } => self.started(id.as_deref(), model.as_deref())?,
            Event::ReasoningDelta { choice, text } => {
                let section = Section::Reasoning { choice: *choice };
                self.prose(section, Style::Dim, text, assembler)?;
            }
            Event::TextDelta { choice, text } => {
                let section = Section::Text { choice: *choice };
                self.prose(section, Style::Plain, text, assembler)?;
            }
            Event::RefusalDelta { choice, text } => {
                let section = Section::Refusal { choice: *choice };
                self.prose(section, Style::Warn, text, assembler)?;
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
                ..
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
        self.release_held()?;
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
