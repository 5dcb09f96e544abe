//! Token sampling over a logits vector: [`LogitsProcessor`]s composed in a [`Chain`], then a [`Sampler`]
//! that draws greedily or from a seeded `ChaCha8Rng`.
//!
//! Processors rewrite logits in place and mark filtered tokens with `f32::NEG_INFINITY`, so any order of
//! them composes. NaN logits count as filtered. Ties between equal logits are always broken towards the
//! lower token id, which makes every filter and the greedy pick deterministic.

mod processors;
mod sampler;
mod select;

pub use processors::{Chain, LogitsProcessor, MinP, RepetitionPenalty, Temperature, TopK, TopP};
pub use sampler::{Sampler, greedy, sample};
pub use select::{top_k_indices, top_k_indices_full_sort};
