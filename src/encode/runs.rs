//! The open run of a UI stream: the UI protocols (AI SDK, AG-UI) give each run of text or
//! reasoning an id and an explicit end, which no [`Event`](crate::Event) carries. A run ends
//! where the next event is of another kind (other text, a tool call, the end): derived here
//! from the event order, so the public events stay as they are.

use super::skeleton::Channel;

/// A run being written: its kind and the id its start gave it.
#[derive(Debug)]
pub(super) struct Run {
    pub(super) channel: Channel,
    pub(super) id: String,
}

/// The run open now, and the number the next one takes.
#[derive(Debug, Default)]
pub(super) struct Runs {
    open: Option<Run>,
    next: u32,
}

/// What entering a run of some kind changed.
#[derive(Debug)]
pub(super) struct Entered {
    /// The run of another kind that ends here.
    pub(super) closed: Option<Run>,
    /// True when a new run starts here.
    pub(super) opened: bool,
}

impl Runs {
    /// Makes a run of `channel` the open one: the open run of another kind is closed and a new
    /// one, named `{prefix}-{n}`, is opened.
    pub(super) fn enter(&mut self, channel: Channel, prefix: &str) -> Entered {
        if self.open.as_ref().is_some_and(|run| run.channel == channel) {
            return Entered {
                closed: None,
                opened: false,
            };
        }
        let closed = self.open.take();
        self.open = Some(Run {
            channel,
            id: format!("{prefix}-{}", self.next),
        });
        self.next += 1;
        Entered {
            closed,
            opened: true,
        }
    }

    /// The open run's id (empty when none is open).
    pub(super) fn id(&self) -> &str {
        self.open.as_ref().map_or("", |run| run.id.as_str())
    }

    /// Closes the open run, returning it.
    pub(super) fn close(&mut self) -> Option<Run> {
        self.open.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_ends_where_another_kind_begins() {
        let mut runs = Runs::default();
        let first = runs.enter(Channel::Reasoning, "r");
        assert!(first.opened && first.closed.is_none());
        assert_eq!(runs.id(), "r-0");
        assert!(!runs.enter(Channel::Reasoning, "r").opened);
        let text = runs.enter(Channel::Text, "t");
        assert_eq!(text.closed.map(|run| run.id), Some("r-0".to_owned()));
        assert_eq!(runs.id(), "t-1");
        assert_eq!(runs.close().map(|run| run.channel), Some(Channel::Text));
        assert!(runs.close().is_none());
    }
}
