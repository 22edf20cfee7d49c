//! How a call's argument fragments add up: appended one after the other, as every provider
//! documents, or — from some hosts (DeepSeek behind some proxies, Baidu Qianfan) — each one the
//! whole argument text so far, which appended would read `{"q":{"q":"rust"}`.
//!
//! The rule, decided per call by its second fragment with text: when that fragment starts with
//! all the text so far (an object's opening `{`…) and adds to it, the fragments are cumulative and only
//! what each adds to the text so far is appended; otherwise they are appended, and nothing is
//! compared again for that call. In the cumulative reading, a later fragment that starts with the
//! whole text so far adds its rest; any other is appended.
//!
//! Why it cannot misfire on ordinary fragments: an ordinary second fragment that starts with the
//! first one means the arguments begin with their first fragment twice over (`{"q":` then
//! `{"q":{…}}}`, a nested object spelled like its parent). Such a repeat is only *tentative*: the
//! appended reading stays known as pieces of the text kept (each repeating fragment is a prefix
//! of it, each appended one the range after the text before it), for up to
//! [`MAX_TENTATIVE_REPEATS`] repeats, and when the call finishes the appended reading wins if it
//! parses as an object, or if the cumulative reading does not either (an invalid call keeps its
//! text as streamed). A wrong result needs ordinary arguments that open with the same text
//! nested more than that many times over, cut exactly after each copy.
//!
//! Linear: the only comparison is of a fragment with the text so far, made only where the
//! fragment is at least as long, so it reads no more bytes than the fragment has; after a call is
//! decided appended, nothing is compared at all. The partial-JSON scan still reads each appended
//! byte once; the appended reading is built once, at the finish, only while tentative, and is at
//! most `MAX_TENTATIVE_REPEATS + 1` times the text kept.

/// Repeats of the text so far after which the fragments are taken as cumulative for good.
const MAX_TENTATIVE_REPEATS: usize = 4;

/// The state of one call's fragments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) enum Accumulation {
    /// No fragment with text has come after the first one yet.
    #[default]
    Undecided,
    /// Fragments are appended.
    Appended,
    /// Each fragment is the whole text so far. `appended` is the appended reading as byte ranges
    /// of the text kept, while it is tentative; empty once decided.
    Cumulative { appended: Vec<(usize, usize)> },
}

impl Accumulation {
    /// The part of `fragment` to append to `so_far`, the call's text before it: inline for a
    /// call decided appended (nearly every call), which compares nothing.
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
            Accumulation::Undecided => {
                if so_far.trim_ascii().is_empty() || fragment.is_empty() {
                    return fragment;
                }
                // Only object arguments that grow: a fragment equal to the first (periodic text
                // cut at its period) or an array's `[[…` is appended.
                let object = so_far.trim_ascii_start().starts_with('{');
                match fragment.strip_prefix(so_far) {
                    Some(rest) if object && !rest.is_empty() => {
                        *self = Accumulation::Cumulative {
                            appended: vec![(0, so_far.len()), (0, fragment.len())],
                        };
                        rest
                    }
                    _ => {
                        *self = Accumulation::Appended;
                        fragment
                    }
                }
            }
            Accumulation::Cumulative { appended } => match fragment.strip_prefix(so_far) {
                Some(rest) => {
                    if appended.len() > MAX_TENTATIVE_REPEATS {
                        *appended = Vec::new();
                    } else if !appended.is_empty() {
                        appended.push((0, fragment.len()));
                    }
                    rest
                }
                None => {
                    if let Some(last) = appended.last_mut() {
                        last.1 += fragment.len();
                    }
                    fragment
                }
            },
        }
    }

    /// The appended reading of `kept` (the text in the cumulative reading), while the repeats
    /// are tentative.
    pub(super) fn appended_reading(&self, kept: &str) -> Option<String> {
        let Accumulation::Cumulative { appended } = self else {
            return None;
        };
        if appended.is_empty() {
            return None;
        }
        let mut text = String::with_capacity(appended.iter().map(|(a, b)| b - a).sum());
        for &(start, end) in appended {
            text.push_str(kept.get(start..end)?);
        }
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text the fragments add up to, and the appended reading still possible.
    fn add_up(fragments: &[&str]) -> (String, Option<String>) {
        let mut state = Accumulation::default();
        let mut text = String::new();
        for fragment in fragments {
            let fresh = state.fresh(&text, fragment);
            text.push_str(fresh);
        }
        let appended = state.appended_reading(&text);
        (text, appended)
    }

    #[test]
    fn cumulative_fragments_add_what_is_new() {
        let (text, appended) = add_up(&["{\"q\":", "{\"q\":\"ru", "{\"q\":\"rust\"}"]);
        assert_eq!(text, "{\"q\":\"rust\"}");
        assert_eq!(
            appended.as_deref(),
            Some("{\"q\":{\"q\":\"ru{\"q\":\"rust\"}"),
            "still tentative"
        );
        let whole = "{\"q\":\"abcdefg\"}";
        let fragments: Vec<&str> = (5..=whole.len()).map(|end| &whole[..end]).collect();
        let (text, appended) = add_up(&fragments);
        assert_eq!(text, "{\"q\":\"abcdefg\"}");
        assert_eq!(appended, None, "more repeats than tentative decide it");
        let (text, appended) = add_up(&["{\"q\":", "{\"q\":\"rust\"}"]);
        assert_eq!(text, "{\"q\":\"rust\"}");
        assert_eq!(appended.as_deref(), Some("{\"q\":{\"q\":\"rust\"}"));
    }

    #[test]
    fn ordinary_fragments_are_appended_and_compared_once() {
        let (text, appended) = add_up(&["", " ", "{\"q\"", ":\"{\\\"q\\\"", "}"]);
        assert_eq!(text, " {\"q\":\"{\\\"q\\\"}");
        assert_eq!(appended, None);
        let mut state = Accumulation::default();
        state.fresh("{", "\"a\"");
        assert_eq!(state, Accumulation::Appended);
        // Decided: a later fragment that repeats the text is appended all the same.
        assert_eq!(state.fresh("{\"a\"", "{\"a\""), "{\"a\"");
    }

    #[test]
    fn a_nested_object_spelled_like_its_parent_keeps_the_appended_reading() {
        let (text, appended) = add_up(&["{\"q\":", "{\"q\":1}}"]);
        assert_eq!(text, "{\"q\":1}}");
        assert_eq!(appended.as_deref(), Some("{\"q\":{\"q\":1}}"));
    }
}
