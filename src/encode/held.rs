//! One call open at a time, for the block-structured targets (Anthropic, Responses): both
//! document their streams as one block or item at a time, and a call's block once stopped takes
//! no more argument deltas. So while a call (client or server-side) is open and has not
//! finished, what else arrives is held here, in order — a call that starts waits (its fragments
//! are not copied: the snapshot holds them), text runs are kept as they came, a block that came
//! whole waits by its position — and written in arrival order when the open call finishes. A
//! waiting call is written whole (opened, its arguments so far at once, closed if it has
//! finished; one still streaming stays open and holding goes on behind it). A target that
//! writes a server-side call's result inside the call's item keeps that item open once the
//! call finished, holding on until the result comes (another call's items may start before
//! it: xAI runs searches side by side). The end of the stream writes everything still held.
//!
//! [`HeldQueue`] is the state; [`Holding`] is what an encoder provides (how it opens, writes and
//! closes its blocks), and its provided methods are the rule, the same for both encoders.

use std::collections::{HashSet, VecDeque};

use crate::assemble::{FinishedToolCall, PartialMessage};
use crate::message::ServerToolCall;

/// A call the queue orders: a client tool call by its position among the choice's calls, a
/// server-side one by its block in the snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum CallKey {
    Client(u32),
    Server(u32),
}

/// A call as it finished.
#[derive(Debug, Clone, Copy)]
pub(super) enum Finished<'a> {
    Client(&'a FinishedToolCall<'a>),
    Server(&'a ServerToolCall),
}

/// What arrived while a call was open.
#[derive(Debug)]
enum Held<K> {
    /// A call that started (and perhaps finished) behind the open one.
    Call { key: CallKey, finished: bool },
    /// A run of text deltas of one kind, joined.
    Text { kind: K, text: String },
    /// A block that came whole (a server tool's result, an approval request), by its position
    /// in the snapshot.
    Whole(u32),
}

/// What waits for the open call to finish, in arrival order, and every call announced.
#[derive(Debug)]
pub(super) struct HeldQueue<K> {
    held: VecDeque<Held<K>>,
    seen: HashSet<CallKey>,
    /// The text runs held and their bytes, counted as they come and go.
    runs: usize,
    text_bytes: usize,
}

impl<K> Default for HeldQueue<K> {
    fn default() -> Self {
        HeldQueue {
            held: VecDeque::new(),
            seen: HashSet::new(),
            runs: 0,
            text_bytes: 0,
        }
    }
}

impl<K> HeldQueue<K> {
    /// What writing the text runs held behind the open call will take: each run's own events
    /// (`run` bytes) and its text `copies` times. Counted before it is written, so that a limit
    /// refuses the stream before one event writes it all: one-byte runs of text and reasoning
    /// taking turns behind a call once wrote 880 KB in one event under a 10 KiB limit, each
    /// run a whole Responses item.
    pub(super) fn written_bytes(&self, run: usize, copies: usize) -> usize {
        self.runs
            .saturating_mul(run)
            .saturating_add(self.text_bytes.saturating_mul(copies))
    }
}

/// An encoder whose calls go through a [`HeldQueue`]: the hooks say how it writes; the
/// provided methods decide when.
pub(super) trait Holding {
    /// The kind of a text run (text, refusal, reasoning, as the target tells them apart).
    type Kind: Copy + PartialEq;

    /// About what a text run's own events take when written, beyond its text (ids, types,
    /// indexes), and how many times they write its text: what [`HeldQueue::written_bytes`]
    /// counts for each run held.
    const RUN_BYTES: usize;
    const TEXT_COPIES: usize;

    fn queue(&mut self) -> &mut HeldQueue<Self::Kind>;

    /// The call whose block is open and still takes argument deltas.
    fn open_call(&self) -> Option<CallKey>;

    /// Writes a text run into the open block of its kind (opening one if needed).
    fn write_text(
        &mut self,
        kind: Self::Kind,
        text: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    );

    /// Opens the block of a call that starts now (`id` and `name` as its start said).
    fn start_call(
        &mut self,
        key: CallKey,
        id: &str,
        name: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    );

    /// Opens the block of a call never announced, with its finished arguments.
    fn write_finished(
        &mut self,
        key: CallKey,
        call: Finished<'_>,
        message: Option<&PartialMessage>,
        out: &mut String,
    );

    /// Opens the block of a call that waited, with its arguments so far (from the snapshot).
    fn write_whole(&mut self, key: CallKey, message: Option<&PartialMessage>, out: &mut String);

    /// The open call finished: what its block needs before it closes.
    fn seal_call(&mut self, call: Finished<'_>, message: Option<&PartialMessage>, out: &mut String);

    /// Writes a block that came whole, at `block` in the snapshot.
    fn write_block(&mut self, block: u32, message: Option<&PartialMessage>, out: &mut String);

    /// Closes the open block.
    fn close_open(&mut self, message: Option<&PartialMessage>, out: &mut String);

    /// The open block belongs to a server-side call that finished and waits for its result
    /// (a target that writes the result inside the call's item): what comes meanwhile is held.
    fn awaits_result(&self) -> bool {
        false
    }

    /// The block at `block` is the result the open block waits for.
    fn answers_open(&self, _block: u32, _message: Option<&PartialMessage>) -> bool {
        false
    }

    /// Writes a text run, or holds it (joined to the held run before it when that is of the
    /// same kind) while a call is open.
    fn text_delta(
        &mut self,
        kind: Self::Kind,
        text: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        if self.open_call().is_none() {
            self.write_text(kind, text, message, out);
            return;
        }
        let queue = self.queue();
        queue.text_bytes += text.len();
        let held = &mut queue.held;
        if let Some(Held::Text {
            kind: last,
            text: run,
        }) = held.back_mut()
        {
            if *last == kind {
                run.push_str(text);
                return;
            }
        }
        held.push_back(Held::Text {
            kind,
            text: text.to_owned(),
        });
        queue.runs += 1;
    }

    /// A call started: opened now, or held behind the open one. A call without an id yet is
    /// written whole when it finishes, with the id the message gives it: a started block or
    /// item cannot change its id.
    fn call_started(
        &mut self,
        key: CallKey,
        id: &str,
        name: &str,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        if id.is_empty() || !self.queue().seen.insert(key) {
            return;
        }
        if self.open_call().is_some() {
            self.queue().held.push_back(Held::Call {
                key,
                finished: false,
            });
        } else {
            self.start_call(key, id, name, message, out);
        }
    }

    /// A call finished: its block closes and what was held behind it is written; a held call
    /// is marked, to be written whole and closed in its turn; a call never announced is
    /// written whole now (or is held, if another call is open).
    fn call_finished(
        &mut self,
        key: CallKey,
        call: Finished<'_>,
        message: Option<&PartialMessage>,
        out: &mut String,
    ) {
        if self.queue().seen.insert(key) {
            if self.open_call().is_some() {
                self.queue().held.push_back(Held::Call {
                    key,
                    finished: true,
                });
                return;
            }
            self.write_finished(key, call, message, out);
        } else if self.open_call() != Some(key) {
            for held in &mut self.queue().held {
                if let Held::Call { key: at, finished } = held {
                    if *at == key {
                        *finished = true;
                    }
                }
            }
            return;
        }
        self.seal_call(call, message, out);
        if self.awaits_result() {
            return;
        }
        self.close_open(message, out);
        self.release(false, message, out);
    }

    /// A block that came whole: written now, or held while a call is open — unless it is the
    /// result the open call's block waits for, which closes it and lets out what was held.
    fn whole_block(&mut self, block: u32, message: Option<&PartialMessage>, out: &mut String) {
        if self.open_call().is_none() {
            self.write_block(block, message, out);
        } else if self.answers_open(block, message) {
            self.write_block(block, message, out);
            self.release(false, message, out);
        } else {
            self.queue().held.push_back(Held::Whole(block));
        }
    }

    /// A finished call was just written whole and waits for its result: the result, if it was
    /// held, is written now (it closes the call's block); `false` if it has not come yet.
    fn answer_from_held(&mut self, message: Option<&PartialMessage>, out: &mut String) -> bool {
        let waiting: Vec<(usize, u32)> = self
            .queue()
            .held
            .iter()
            .enumerate()
            .filter_map(|(at, held)| match held {
                Held::Whole(block) => Some((at, *block)),
                _ => None,
            })
            .collect();
        let Some(&(at, block)) = waiting
            .iter()
            .find(|(_, block)| self.answers_open(*block, message))
        else {
            return false;
        };
        self.queue().held.remove(at);
        self.write_block(block, message, out);
        true
    }

    /// Writes what was held, in order, until a call that is still streaming: it stays open and
    /// holding goes on behind it — unless `all`, at the end, when every call is closed too.
    fn release(&mut self, all: bool, message: Option<&PartialMessage>, out: &mut String) {
        while let Some(held) = self.queue().held.pop_front() {
            match held {
                Held::Text { kind, text } => {
                    let queue = self.queue();
                    queue.text_bytes -= text.len();
                    queue.runs -= 1;
                    self.write_text(kind, &text, message, out);
                }
                Held::Whole(block) => self.write_block(block, message, out),
                Held::Call { key, finished } => {
                    self.write_whole(key, message, out);
                    if !finished && !all {
                        return;
                    }
                    if self.awaits_result() && !self.answer_from_held(message, out) && !all {
                        return;
                    }
                    self.close_open(message, out);
                }
            }
        }
    }

    /// Closes the open block and writes everything held, each call whole and closed.
    fn close_all(&mut self, message: Option<&PartialMessage>, out: &mut String) {
        self.close_open(message, out);
        self.release(true, message, out);
        self.close_open(message, out);
    }
}
