//! The fold of citations given as byte spans of the joined answer text: each span resolved to
//! its text block and character offsets in one pass ([`spans`](crate::assemble::spans)), each
//! citation charged to the budget and appended to that block.

use super::ResponseState;
use crate::assemble::budget::ENTRY_OVERHEAD;
use crate::assemble::spans::{resolve, ByteSpan};
use crate::delta::SpanCitation;
use crate::error::Error;
use crate::message::{Annotation, Citation};

impl ResponseState {
    pub(super) fn span_citations(
        &mut self,
        index: u32,
        spans: Vec<SpanCitation>,
    ) -> Result<(), Error> {
        let choice = self.choice(index)?;
        let bytes = spans
            .iter()
            .flat_map(|span| &span.citations)
            .map(citation_cost)
            .sum();
        self.budget.charge(bytes)?;
        let message = &mut self.choices[choice];
        let (blocks, resolved) = {
            let (blocks, texts) = message.text_blocks();
            let byte_spans: Vec<ByteSpan<'_>> = spans
                .iter()
                .map(|span| ByteSpan {
                    start: span.start,
                    end: span.end,
                    quoted: span.text.as_deref(),
                })
                .collect();
            (blocks, resolve(&texts, &byte_spans))
        };
        for (span, place) in spans.into_iter().zip(resolved) {
            for mut citation in span.citations {
                let annotation = match place {
                    Some(place) => {
                        citation.start_index = Some(place.start);
                        citation.end_index = Some(place.end);
                        message.annotate_block(blocks[place.text], Annotation::Citation(citation));
                        continue;
                    }
                    None => Annotation::Citation(citation),
                };
                message.annotate(None, annotation);
            }
        }
        Ok(())
    }
}

/// What holding a citation costs: its strings, its extras and its slot among the annotations.
fn citation_cost(citation: &Citation) -> usize {
    let strings = [
        &citation.url,
        &citation.title,
        &citation.cited_text,
        &citation.file_id,
        &citation.tool_name,
    ];
    strings
        .iter()
        .map(|text| text.as_ref().map_or(0, String::len))
        .sum::<usize>()
        + citation
            .extras
            .iter()
            .map(|(key, value)| key.len() + crate::assemble::budget::value_cost(value))
            .sum::<usize>()
        + citation.extras.len() * ENTRY_OVERHEAD
        + std::mem::size_of::<Annotation>()
}
