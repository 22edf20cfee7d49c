//! How a call's argument fragments add up: appended one after the other, as every provider
//! documents, or — from some hosts (DeepSeek behind some proxies, Baidu Qianfan) — each one the
//! whole argument text so far, which appended would read `{"q":{"q":"rust"}`.
//!
//! The rule, decided per call from its second fragment with text: when that fragment starts
//! with all the text so far (an object's opening `{`…) and adds to it, the fragments may be
//! cumulative; otherwise they are appended, and nothing is compared again for that call. While
//! the fragments may be cumulative, both readings are followed — the cumulative one as the text
//! shown plus what is held back (each fragment that starts with the whole text so far adds its
//! rest, any other is appended), the appended one as ranges of it — each with a scan that says
//! whether it can still become valid JSON. The call is decided, for good, as soon as
//! - one reading can no longer become valid JSON (it closed its top-level value before the
//!   fragment ended, or broke the grammar): the other wins;
//! - more than [`MAX_TENTATIVE_REPEATS`] fragments repeated the text so far: cumulative;
//! - the call finishes: the appended reading wins if it parses as an object, or if the
//!   cumulative reading does not either (an invalid call keeps its text as streamed).
//!
//! The call's text — what the snapshot and the live deltas show — is what both readings share
//! (the text before the first repeat) until it is decided; the rest of the winning reading is
//! added then, as one delta. So the deltas of a call always add up to its final arguments, and
//! the snapshot never shows text the deltas have not.
//!
//! Why it cannot misfire on ordinary fragments: an ordinary second fragment that starts with the
//! first one means the arguments begin with their first fragment twice over (`{"q":` then
//! `{"q":{…}}}`, a nested object spelled like its parent). The appended reading stays a
//! valid prefix throughout, so it is never ruled out; it loses only when more than
//! [`MAX_TENTATIVE_REPEATS`] fragments each start with the whole text so far, which needs
//! ordinary arguments that open with the same text nested that many times over, cut exactly
//! after each copy.
//!
//! Linear: the only comparison is of a fragment with the text so far, made only where the
//! fragment is at least as long, so it reads no more bytes than the fragment has; after a call is
//! decided appended, nothing is compared or scanned here at all. While undecided, each reading's
//! scan reads each of its bytes once (the appended reading is at most
//! `MAX_TENTATIVE_REPEATS + 1` times the cumulative one), and the winner is built as text once.

use crate::assemble::partial_json::PrefixScan;

/// Repeats of the text so far after which the fragments are taken as cumulative for good.
const MAX_TENTATIVE_REPEATS: usize = 4;

/// The state of one call's fragments.
#[derive(Debug, Clone, Default)]
pub(super) enum Accumulation {
    /// No fragment with text has come after the first one yet.
    #[default]
    Undecided,
    /// Fragments are appended.
    Appended,
    /// Each fragment is the whole text so far.
    Cumulative,
    /// Fragments repeated the text so far, and both readings can still become valid JSON.
    /// Boxed: nearly every call is decided at its second fragment.
    Undecidable(Box<BothReadings>),
}

/// The two readings of a call's fragments while both are possible.
#[derive(Debug, Clone)]
pub(super) struct BothReadings {
    /// The cumulative reading past the text shown, held back until the call is decided.
    held: String,
    /// The appended reading, as byte ranges of the cumulative reading (shown, then held).
    appended: Vec<(usize, usize)>,
    /// Whether each reading can still become valid JSON.
    appended_scan: PrefixScan,
    cumulative_scan: PrefixScan,
}

/// What a fragment, or the call's finish, does to the text shown.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Taken<'f> {
    /// This part of the fragment is appended to the text shown.
    Shown(&'f str),
    /// The readings still disagree: the fragment added this many bytes to the held text.
    Held(usize),
    /// The cumulative reading won: the held text is appended to the text shown. `fresh` of its
    /// bytes came with this fragment.
    Released { text: String, fresh: usize },
    /// The appended reading won: it replaces the text shown (which it begins with). `fresh`:
    /// the bytes this fragment added, and those the appended reading holds beyond the
    /// cumulative one (none at the finish, which is not charged).
    Replaced { text: String, fresh: usize },
}

impl Taken<'_> {
    /// The bytes the fragment added to what the call holds, to be charged.
    pub(super) fn fresh(&self) -> usize {
        match self {
            Taken::Shown(text) => text.len(),
            Taken::Held(fresh) | Taken::Released { fresh, .. } | Taken::Replaced { fresh, .. } => {
                *fresh
            }
        }
    }
}

impl Accumulation {
    /// Takes a fragment of a call whose text shown so far is `shown`: inline for a call decided
    /// appended (nearly every call), which compares nothing.
    #[inline]
    pub(super) fn take<'f>(&mut self, shown: &str, fragment: &'f str) -> Taken<'f> {
        if matches!(self, Accumulation::Appended) {
            return Taken::Shown(fragment);
        }
        self.take_undecided(shown, fragment)
    }

    /// [`take`](Self::take) for a call not decided appended.
    fn take_undecided<'f>(&mut self, shown: &str, fragment: &'f str) -> Taken<'f> {
        match self {
            Accumulation::Appended => Taken::Shown(fragment),
            Accumulation::Cumulative => {
                Taken::Shown(fragment.strip_prefix(shown).unwrap_or(fragment))
            }
            Accumulation::Undecided => {
                if shown.trim_ascii().is_empty() || fragment.is_empty() {
                    return Taken::Shown(fragment);
                }
                // Only object arguments that grow: a fragment equal to the first (periodic text
                // cut at its period) or an array's `[[…` is appended.
                let object = shown.trim_ascii_start().starts_with('{');
                match fragment.strip_prefix(shown) {
                    Some(rest) if object && !rest.is_empty() => {
                        let mut appended_scan = PrefixScan::default();
                        appended_scan.feed(shown);
                        appended_scan.feed(fragment);
                        let mut cumulative_scan = PrefixScan::default();
                        cumulative_scan.feed(fragment);
                        *self = Accumulation::Undecidable(Box::new(BothReadings {
                            held: rest.to_owned(),
                            appended: vec![(0, shown.len()), (0, fragment.len())],
                            appended_scan,
                            cumulative_scan,
                        }));
                        self.settle(shown, rest.len())
                    }
                    _ => {
                        *self = Accumulation::Appended;
                        Taken::Shown(fragment)
                    }
                }
            }
            Accumulation::Undecidable(both) => {
                both.appended_scan.feed(fragment);
                let rest = fragment
                    .strip_prefix(shown)
                    .and_then(|rest| rest.strip_prefix(both.held.as_str()));
                let fresh = match rest {
                    Some(rest) => {
                        both.appended.push((0, fragment.len()));
                        rest
                    }
                    None => {
                        if let Some(last) = both.appended.last_mut() {
                            last.1 += fragment.len();
                        }
                        fragment
                    }
                };
                both.cumulative_scan.feed(fresh);
                both.held.push_str(fresh);
                self.settle(shown, fresh.len())
            }
        }
    }

    /// Decides the call, after a fragment added `fresh` bytes, as soon as one reading is ruled
    /// out or enough fragments repeated the text.
    fn settle(&mut self, shown: &str, fresh: usize) -> Taken<'static> {
        let Accumulation::Undecidable(both) = self else {
            return Taken::Held(fresh);
        };
        if !both.cumulative_scan.viable() {
            // Also when neither is viable: an invalid call keeps its text as streamed.
            let text = both.appended_reading(shown);
            // Charged: what the appended reading holds beyond the cumulative one.
            let fresh = fresh + text.len().saturating_sub(shown.len() + both.held.len());
            *self = Accumulation::Appended;
            Taken::Replaced { text, fresh }
        } else if !both.appended_scan.viable() || both.repeats() > MAX_TENTATIVE_REPEATS {
            let text = std::mem::take(&mut both.held);
            *self = Accumulation::Cumulative;
            Taken::Released { text, fresh }
        } else {
            Taken::Held(fresh)
        }
    }

    /// Decides a call still undecided when it finishes: the appended reading wins if it is a
    /// valid call (`valid` says), or if the cumulative reading is not one either.
    pub(super) fn conclude(
        &mut self,
        shown: &str,
        valid: impl Fn(&str) -> bool,
    ) -> Option<Taken<'static>> {
        let Accumulation::Undecidable(both) = self else {
            return None;
        };
        let appended = both.appended_reading(shown);
        let taken = if valid(&appended) || !valid(&format!("{shown}{}", both.held)) {
            Taken::Replaced {
                text: appended,
                fresh: 0,
            }
        } else {
            Taken::Released {
                text: std::mem::take(&mut both.held),
                fresh: 0,
            }
        };
        *self = Accumulation::Appended;
        Some(taken)
    }
}

impl BothReadings {
    /// Fragments that repeated the text so far: each adds one range.
    fn repeats(&self) -> usize {
        self.appended.len() - 1
    }

    /// The appended reading, built from its ranges of the cumulative reading.
    fn appended_reading(&self, shown: &str) -> String {
        let cumulative = format!("{shown}{}", self.held);
        let mut text = String::with_capacity(self.appended.iter().map(|(a, b)| b - a).sum());
        for &(start, end) in &self.appended {
            text.push_str(&cumulative[start..end]);
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adds the fragments up and finishes: the text shown, and the deltas, one per entry.
    fn add_up(fragments: &[&str]) -> (String, Vec<String>) {
        let mut state = Accumulation::default();
        let mut text = String::new();
        let mut deltas = Vec::new();
        let mut show = |taken: Taken<'_>, text: &mut String| {
            let from = text.len();
            match taken {
                Taken::Shown(part) => text.push_str(part),
                Taken::Held(_) => {}
                Taken::Released { text: held, .. } => text.push_str(&held),
                Taken::Replaced { text: whole, .. } => {
                    assert!(whole.starts_with(text.as_str()), "{whole} after {text}");
                    *text = whole;
                }
            }
            if from < text.len() {
                deltas.push(text[from..].to_owned());
            }
        };
        for fragment in fragments {
            let taken = state.take(&text, fragment);
            show(taken, &mut text);
        }
        let valid = |text: &str| serde_json::from_str::<serde_json::Value>(text).is_ok();
        if let Some(taken) = state.conclude(&text, valid) {
            show(taken, &mut text);
        }
        (text, deltas)
    }

    #[test]
    fn cumulative_fragments_add_what_is_new_once_the_appended_reading_is_ruled_out() {
        // `{"q":{"q":"ru{"q":` cannot become JSON: decided at the third fragment.
        let (text, deltas) = add_up(&["{\"q\":", "{\"q\":\"ru", "{\"q\":\"rust\"}"]);
        assert_eq!(text, "{\"q\":\"rust\"}");
        assert_eq!(deltas, ["{\"q\":", "\"rust\"}"]);
        // `{"{"q"` cannot: decided at once.
        let (text, deltas) = add_up(&["{\"", "{\"q", "{\"q\":1}"]);
        assert_eq!(text, "{\"q\":1}");
        assert_eq!(deltas, ["{\"", "q", "\":1}"]);
        // Both readings stay prefixes of JSON: more repeats than tentative decide it, at the
        // fifth repeat.
        let whole = "{\"q\":{\"q\":{\"q\":{\"q\":{\"q\":{\"q\":1}}}}}}";
        let fragments: Vec<&str> = (1..=6).map(|n| &whole[..5 * n]).collect();
        let (text, deltas) = add_up(&fragments);
        assert_eq!(text, &whole[..30]);
        assert_eq!(deltas, [&whole[..5], &whole[5..30]]);
    }

    #[test]
    fn a_reading_that_closes_its_value_before_the_fragment_ends_is_ruled_out() {
        // Cumulative, `{"q":1}}` would close the object before its last `}`.
        let (text, deltas) = add_up(&["{\"q\":", "{\"q\":1}}"]);
        assert_eq!(text, "{\"q\":{\"q\":1}}");
        assert_eq!(deltas, ["{\"q\":", "{\"q\":1}}"]);
        // Undecided until the end, then the appended reading parses.
        let (text, deltas) = add_up(&["{\"q\":", "{\"q\":\"ru", "st\"}", "}"]);
        assert_eq!(text, "{\"q\":{\"q\":\"rust\"}}");
        assert_eq!(deltas, ["{\"q\":", "{\"q\":\"rust\"}}"]);
    }

    #[test]
    fn ordinary_fragments_are_appended_and_compared_once() {
        let (text, deltas) = add_up(&["", " ", "{\"q\"", ":\"{\\\"q\\\"", "}"]);
        assert_eq!(text, " {\"q\":\"{\\\"q\\\"}");
        assert_eq!(deltas.concat(), text);
        let mut state = Accumulation::default();
        state.take("{", "\"a\"");
        assert!(matches!(state, Accumulation::Appended));
        // Decided: a later fragment that repeats the text is appended all the same.
        assert_eq!(state.take("{\"a\"", "{\"a\""), Taken::Shown("{\"a\""));
    }

    #[test]
    fn a_nested_object_spelled_like_its_parent_keeps_the_appended_reading() {
        let (text, deltas) = add_up(&["{\"q\":", "{\"q\":1}", "}"]);
        assert_eq!(text, "{\"q\":{\"q\":1}}");
        assert_eq!(deltas.concat(), text);
    }
}
