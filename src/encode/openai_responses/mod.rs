//! OpenAI Responses: `response.created` and `response.in_progress`, then one output item per
//! reasoning, message or function-call run (`response.output_item.added`, its parts and
//! deltas, the `.done` events with the whole text), and `response.completed` (or
//! `response.incomplete`) carrying the whole response with usage; and the non-streamed
//! `response`. Every event has its `sequence_number`. Only the first choice is encoded.
//!
//! The live stream ([`events`]) and the non-streamed JSON ([`response`]) share the shapes of
//! output items and of the response object ([`items`]).

mod events;
mod items;
mod response;

pub(super) use events::EventRules;
pub(super) use response::response;
