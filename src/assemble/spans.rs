//! Byte spans of a choice's joined answer text turned into character spans of the text block
//! each one falls in (Gemini's grounding supports count UTF-8 bytes of the whole candidate text;
//! a [`Citation`](crate::message::Citation) counts characters of its block). A span whose bytes
//! do not hold the text the provider quotes is moved onto it when it is a few bytes off.
//!
//! The work is linear: each span is found by a binary search over the blocks and checked against
//! its quoted text (bytes of the payload), and all ends are converted in one forward walk over
//! the text after a sort.

/// How many bytes either way a span is looked for when its bytes do not hold its quoted text
/// (Gemini's URL-context supports are one byte off).
const SLACK: usize = 8;

/// A span resolved into a block: the block's position among the texts, and its character
/// offsets there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct CharSpan {
    pub text: usize,
    pub start: u64,
    pub end: u64,
}

/// One span to resolve: byte offsets into the texts joined, and the text it should hold.
pub(super) struct ByteSpan<'a> {
    pub start: usize,
    pub end: usize,
    pub quoted: Option<&'a str>,
}

/// Resolves every span against `texts` (the answer's text blocks in order); `None` for a span
/// that starts past the end of the text.
pub(super) fn resolve(texts: &[&str], spans: &[ByteSpan<'_>]) -> Vec<Option<CharSpan>> {
    resolve_counting(texts, spans, &mut 0)
}

/// [`resolve`], adding to `work` the bytes it read (of the text walked and of quoted texts
/// compared), so a test can tell linear work from quadratic.
fn resolve_counting(
    texts: &[&str],
    spans: &[ByteSpan<'_>],
    work: &mut usize,
) -> Vec<Option<CharSpan>> {
    let mut starts = Vec::with_capacity(texts.len());
    let mut total = 0;
    for text in texts {
        starts.push(total);
        total += text.len();
    }
    // Each span in one block, as byte offsets of that block.
    let local: Vec<Option<(usize, usize, usize)>> = spans
        .iter()
        .map(|span| locate(texts, &starts, total, span, work))
        .collect();
    // Every offset converted in one forward walk per block.
    let mut points: Vec<(usize, usize, usize)> = Vec::with_capacity(local.len() * 2);
    for (slot, span) in local.iter().enumerate() {
        if let Some((text, start, end)) = *span {
            points.push((text, start, slot * 2));
            points.push((text, end, slot * 2 + 1));
        }
    }
    points.sort_unstable();
    let mut chars = vec![0u64; local.len() * 2];
    let mut walk: Option<(usize, usize, u64)> = None;
    for (text, byte, slot) in points {
        let (at_byte, at_char) = match walk {
            Some((walked, at_byte, at_char)) if walked == text => (at_byte, at_char),
            _ => (0, 0),
        };
        let between = texts[text].get(at_byte..byte).unwrap_or_default();
        *work += between.len();
        let count = between.chars().count();
        let at_char = at_char + count as u64;
        walk = Some((text, byte, at_char));
        chars[slot] = at_char;
    }
    local
        .iter()
        .enumerate()
        .map(|(slot, span)| {
            span.map(|(text, _, _)| CharSpan {
                text,
                start: chars[slot * 2],
                end: chars[slot * 2 + 1],
            })
        })
        .collect()
}

/// The block a span starts in and its byte offsets there, on character boundaries: the quoted
/// text where it is found within [`SLACK`] bytes, else the span as given, cut at the block's end.
fn locate(
    texts: &[&str],
    starts: &[usize],
    total: usize,
    span: &ByteSpan<'_>,
    work: &mut usize,
) -> Option<(usize, usize, usize)> {
    if span.start >= total && !(span.start == 0 && total == 0) {
        return None;
    }
    let text = starts
        .partition_point(|&start| start <= span.start)
        .checked_sub(1)?;
    let block = texts[text];
    let start = span.start - starts[text];
    let end = span
        .end
        .saturating_sub(starts[text])
        .clamp(start, block.len());
    if let Some(quoted) = span.quoted.filter(|quoted| !quoted.is_empty()) {
        if let Some(found) = find_near(block, start, quoted, work) {
            return Some((text, found, found + quoted.len()));
        }
    }
    Some((
        text,
        floor_boundary(block, start),
        floor_boundary(block, end),
    ))
}

/// Where `quoted` is in `block` at `start` or at most [`SLACK`] bytes from it, nearest first.
fn find_near(block: &str, start: usize, quoted: &str, work: &mut usize) -> Option<usize> {
    let mut holds = |at: usize| {
        *work += quoted.len();
        block.get(at..at + quoted.len()) == Some(quoted)
    };
    (0..=SLACK).find_map(|distance| {
        if start.checked_sub(distance).is_some_and(&mut holds) {
            return Some(start - distance);
        }
        (distance > 0 && holds(start + distance)).then_some(start + distance)
    })
}

/// The nearest character boundary at or before `at`.
fn floor_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start: usize, end: usize, quoted: Option<&str>) -> ByteSpan<'_> {
        ByteSpan { start, end, quoted }
    }

    #[test]
    fn byte_spans_become_character_spans_of_their_block() {
        // "Grüße, 世界!" then a second block after a code block.
        let texts = ["Grüße, 世界!", " Done ✓ now."];
        let first = &texts[0];
        let world = first.find("世界").unwrap();
        let spans = [
            span(world, world + "世界".len(), Some("世界")),
            span(0, "Grüße".len(), Some("Grüße")),
            span(
                first.len() + " Done ".len(),
                first.len() + " Done ✓".len(),
                Some("✓"),
            ),
        ];
        let resolved = resolve(&texts, &spans);
        assert_eq!(
            resolved,
            vec![
                Some(CharSpan {
                    text: 0,
                    start: 7,
                    end: 9
                }),
                Some(CharSpan {
                    text: 0,
                    start: 0,
                    end: 5
                }),
                Some(CharSpan {
                    text: 1,
                    start: 6,
                    end: 7
                }),
            ]
        );
    }

    #[test]
    fn spans_a_few_bytes_off_are_moved_onto_their_text() {
        let texts = ["The first sentence. The second."];
        // One byte late, as Gemini's URL-context supports are.
        let resolved = resolve(&texts, &[span(1, 20, Some("The first sentence."))]);
        assert_eq!(
            resolved,
            vec![Some(CharSpan {
                text: 0,
                start: 0,
                end: 19
            })]
        );
    }

    #[test]
    fn many_spans_cost_linear_work() {
        // 100k supports over a non-ASCII text, in reverse order, one byte late each: the text
        // is walked once, and each quoted text compared a bounded number of times.
        let sentence = "Ünïcödé sentence. ";
        let text = sentence.repeat(100_000);
        let spans: Vec<ByteSpan<'_>> = (0..100_000)
            .rev()
            .map(|n| {
                let start = n * sentence.len();
                span(start + 1, start + sentence.len() + 1, Some(sentence))
            })
            .collect();
        let mut work = 0;
        let resolved = resolve_counting(&[&text], &spans, &mut work);
        let chars = sentence.chars().count() as u64;
        assert_eq!(
            resolved[0],
            Some(CharSpan {
                text: 0,
                start: 99_999 * chars,
                end: 100_000 * chars
            })
        );
        let quoted = spans.len() * sentence.len();
        assert!(
            work <= text.len() + 4 * quoted,
            "{work} bytes read for a text of {} bytes and {quoted} quoted bytes",
            text.len()
        );
    }

    #[test]
    fn spans_off_boundaries_or_past_the_end_are_cut_or_dropped() {
        let texts = ["héllo"];
        // Byte 2 is inside "é": cut back to its start; the end is cut to the text.
        let resolved = resolve(&texts, &[span(2, 99, Some("nowhere")), span(50, 60, None)]);
        assert_eq!(
            resolved,
            vec![
                Some(CharSpan {
                    text: 0,
                    start: 1,
                    end: 5
                }),
                None
            ]
        );
    }
}
