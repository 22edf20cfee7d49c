//! The open run of a UI stream: the UI protocols (AI SDK, AG-UI) give each run of text or
//! reasoning an id and an explicit end. A run opens at the first delta after none was open and
//! ends at its block's end event ([`Event::TextEnd`](crate::Event::TextEnd) and the like), at the
//! end of the stream (a failed or aborted source sends no end event), or where a delta of another
//! kind comes to an encoder fed events without their ends. The tool calls a UI stream announced
//! are kept here too: their later events name them by id.

use std::collections::{HashMap, HashSet};

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
    /// Put before every run's id (AG-UI's message ids are unique across a thread).
    namespace: String,
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
    /// Puts `namespace` before the ids of the runs opened from now on.
    pub(super) fn set_namespace(&mut self, namespace: String) {
        self.namespace = namespace;
    }

    /// Makes a run of `channel` the open one: the open run of another kind is closed and a new
    /// one, named `{namespace}{prefix}-{n}`, is opened.
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
            id: format!("{}{prefix}-{}", self.namespace, self.next),
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

/// The tool calls announced in a UI stream, each found in constant time.
#[derive(Debug, Default)]
pub(super) struct Announced {
    /// The id of each client call whose start went out, by position.
    client: Vec<Option<String>>,
    /// The id of each server-side call whose start went out, by block, while it streams.
    streaming: HashMap<u32, String>,
    /// Every server-side call announced: results name them.
    server: HashSet<String>,
}

impl Announced {
    /// A client call at `position` announced with `id`.
    pub(super) fn client_started(&mut self, position: u32, id: &str) {
        let at = position as usize;
        if self.client.len() <= at {
            self.client.resize(at + 1, None);
        }
        self.client[at] = Some(id.to_owned());
    }

    /// The id of the client call at `position`, if it was announced.
    pub(super) fn client(&self, position: u32) -> Option<&str> {
        self.client.get(position as usize)?.as_deref()
    }

    /// A server-side call at `block` announced with `id`, its arguments to come.
    pub(super) fn server_started(&mut self, block: u32, id: &str) {
        self.streaming.insert(block, id.to_owned());
        self.server.insert(id.to_owned());
    }

    /// The id of the server-side call at `block` while its arguments stream.
    pub(super) fn server_streaming(&self, block: u32) -> Option<&str> {
        self.streaming.get(&block).map(String::as_str)
    }

    /// The server-side call at `block` finished: true if its start had been announced.
    pub(super) fn server_finished(&mut self, block: u32, id: &str) -> bool {
        let started = self.streaming.remove(&block).is_some();
        self.server.insert(id.to_owned());
        started
    }

    /// True when the server-side call `id` was announced.
    pub(super) fn has_server(&self, id: &str) -> bool {
        self.server.contains(id)
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
