//! How a call's argument fragments add up: appended one after the other, as every provider
//! documents, or — from some hosts (DeepSeek behind some proxies, Baidu Qianfan) — each one the
//! whole argument text so far, which appended would read `{"q":{"q":"rust"}`.
//!
//! The rule, decided per call from its second fragment with text: when that fragment starts
//! with all the text so far (an object's opening `{`…) and adds to it, the fragments may be
//! cumulative; otherwise they are appended, and nothing is compared again for that call. While
//! the fragments may be cumulative, both readings are followed — the cumulative one as the text
//! kept (each fragment that starts with the whole text so far adds its rest, any other is
//! appended), the appended one as ranges of it — each with a scan that says whether it can still
//! become valid JSON. The call is decided, for good, as soon as
//! - one reading can no longer become valid JSON (it closed its top-level value before the
//!   fragment ended, or broke the grammar): the other wins;
//! - more than [`MAX_TENTATIVE_REPEATS`] fragments repeated the text so far: cumulative;
//! - the call finishes: the appended reading wins if it parses as an object, or if the
//!   cumulative reading does not either (an invalid call keeps its text as streamed).
//!
//! Live deltas wait for the decision: what both readings share (the text before the first
//! repeat) has been shown, the rest of the winning reading is shown as one delta when it is
//! decided. So the deltas of a call always add up to its final arguments.
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
//! decided, nothing is compared or scanned here at all. While undecided, each reading's scan reads
//! each of its bytes once (the appended reading is at most `MAX_TENTATIVE_REPEATS + 1` times the
//! text kept), and it is built as text once, if it wins.

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
    /// The appended reading, as byte ranges of the text kept (the cumulative reading).
    appended: Vec<(usize, usize)>,
    /// Whether each reading can still become valid JSON.
    appended_scan: PrefixScan,
    cumulative_scan: PrefixScan,
    /// Bytes of the text kept already shown as deltas: the text both readings begin with.
    shown: usize,
}

/// What the deltas show after a fragment was taken in or the call finished.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Shown {
    /// The part just appended to the text kept, as it is.
    AsAppended,
    /// Nothing yet: the readings still disagree.
    Held,
    /// The text kept from this byte on (the cumulative reading won).
    From(usize),
    /// The appended reading won: it replaces the text kept, and is shown from this byte on.
    Replaced { text: String, from: usize },
}

impl Accumulation {
    /// The part of `fragment` to append to `so_far`, the call's text before it: inline for a
    /// call decided appended (nearly every call), which compares nothing. Then
    /// [`settle`](Self::settle) says what to show.
    #[inline]
    pub(super) fn fresh<'f>(&mut self, so_far: &str, fragment: &'f str) -> &'f str {
        if matches!(self, Accumulation::Appended) {
            return fragment;
        }
        self.decide(so_far, fragment)
    }

    /// [`fresh`](Self::fresh) for a call not decided appended.
    fn decide<'f>(&mut self, so_far: &str, fragment: &'f str) -> &'f str {
        match self {
            Accumulation::Appended => fragment,
            Accumulation::Cumulative => fragment.strip_prefix(so_far).unwrap_or(fragment),
            Accumulation::Undecided => {
                if so_far.trim_ascii().is_empty() || fragment.is_empty() {
                    return fragment;
                }
                // Only object arguments that grow: a fragment equal to the first (periodic text
                // cut at its period) or an array's `[[…` is appended.
                let object = so_far.trim_ascii_start().starts_with('{');
                match fragment.strip_prefix(so_far) {
                    Some(rest) if object && !rest.is_empty() => {
                        let mut appended_scan = PrefixScan::default();
                        appended_scan.feed(so_far);
                        appended_scan.feed(fragment);
                        let mut cumulative_scan = PrefixScan::default();
                        cumulative_scan.feed(fragment);
                        *self = Accumulation::Undecidable(Box::new(BothReadings {
                            appended: vec![(0, so_far.len()), (0, fragment.len())],
                            appended_scan,
                            cumulative_scan,
                            shown: so_far.len(),
                        }));
                        rest
                    }
                    _ => {
                        *self = Accumulation::Appended;
                        fragment
                    }
                }
            }
            Accumulation::Undecidable(both) => {
                both.appended_scan.feed(fragment);
                match fragment.strip_prefix(so_far) {
                    Some(rest) => {
                        both.appended.push((0, fragment.len()));
                        both.cumulative_scan.feed(rest);
                        rest
                    }
                    None => {
                        if let Some(last) = both.appended.last_mut() {
                            last.1 += fragment.len();
                        }
                        both.cumulative_scan.feed(fragment);
                        fragment
                    }
                }
            }
        }
    }

    /// What to show once the part [`fresh`](Self::fresh) returned was appended to the text
    /// kept, now `kept`: the call is decided here as soon as one reading is ruled out.
    pub(super) fn settle(&mut self, kept: &str) -> Shown {
        let Accumulation::Undecidable(both) = self else {
            return Shown::AsAppended;
        };
        let appended = both.appended_scan.viable();
        if !both.cumulative_scan.viable() {
            // Also when neither is viable: an invalid call keeps its text as streamed.
            self.take_appended(kept)
        } else if !appended || both.repeats() > MAX_TENTATIVE_REPEATS {
            self.take_cumulative()
        } else {
            Shown::Held
        }
    }

    /// Decides a call still undecided when it finishes: the appended reading wins if it is a
    /// valid call (`valid` says), or if the cumulative reading is not one either.
    pub(super) fn conclude(&mut self, kept: &str, valid: impl Fn(&str) -> bool) -> Shown {
        let Accumulation::Undecidable(both) = self else {
            return Shown::AsAppended;
        };
        let appended = appended_reading(&both.appended, kept);
        if valid(&appended) || !valid(kept) {
            let from = both.shown;
            *self = Accumulation::Appended;
            Shown::Replaced {
                text: appended,
                from,
            }
        } else {
            self.take_cumulative()
        }
    }

    fn take_cumulative(&mut self) -> Shown {
        let Accumulation::Undecidable(both) = self else {
            return Shown::AsAppended;
        };
        let from = both.shown;
        *self = Accumulation::Cumulative;
        Shown::From(from)
    }

    fn take_appended(&mut self, kept: &str) -> Shown {
        let Accumulation::Undecidable(both) = self else {
            return Shown::AsAppended;
        };
        let shown = Shown::Replaced {
            text: appended_reading(&both.appended, kept),
            from: both.shown,
        };
        *self = Accumulation::Appended;
        shown
    }

    /// Bytes of `kept` the deltas have shown: all of it once decided.
    pub(super) fn shown(&self, kept: &str) -> usize {
        match self {
            Accumulation::Undecidable(both) => both.shown,
            _ => kept.len(),
        }
    }
}

impl BothReadings {
    /// Fragments that repeated the text so far: each adds one range.
    fn repeats(&self) -> usize {
        self.appended.len() - 1
    }
}

/// The appended reading, built from its ranges of the text kept.
fn appended_reading(ranges: &[(usize, usize)], kept: &str) -> String {
    let mut text = String::with_capacity(ranges.iter().map(|(a, b)| b - a).sum());
    for &(start, end) in ranges {
        text.push_str(&kept[start..end]);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adds the fragments up and finishes: the text, and the deltas shown, one per entry.
    fn add_up(fragments: &[&str]) -> (String, Vec<String>) {
        let mut state = Accumulation::default();
        let mut text = String::new();
        let mut deltas = Vec::new();
        let mut show = |shown: Shown, text: &mut String, pushed: usize| {
            let from = match shown {
                Shown::AsAppended => pushed,
                Shown::Held => return,
                Shown::From(from) => from,
                Shown::Replaced { text: whole, from } => {
                    *text = whole;
                    from
                }
            };
            if from < text.len() {
                deltas.push(text[from..].to_owned());
            }
        };
        for fragment in fragments {
            let fresh = state.fresh(&text, fragment);
            let pushed = text.len();
            text.push_str(fresh);
            let shown = state.settle(&text);
            show(shown, &mut text, pushed);
        }
        let valid = |text: &str| serde_json::from_str::<serde_json::Value>(text).is_ok();
        let shown = state.conclude(&text, valid);
        let end = text.len();
        show(shown, &mut text, end);
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
        state.fresh("{", "\"a\"");
        assert!(matches!(state, Accumulation::Appended));
        // Decided: a later fragment that repeats the text is appended all the same.
        assert_eq!(state.fresh("{\"a\"", "{\"a\""), "{\"a\"");
    }

    #[test]
    fn a_nested_object_spelled_like_its_parent_keeps_the_appended_reading() {
        let (text, deltas) = add_up(&["{\"q\":", "{\"q\":1}", "}"]);
        assert_eq!(text, "{\"q\":{\"q\":1}}");
        assert_eq!(deltas.concat(), text);
    }
}
