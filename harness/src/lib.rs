//! harness: process-isolated scenarios with seeded shuffles, repeats and confidence intervals.

pub mod stats;
