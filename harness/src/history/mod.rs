//! The run history: [`Store`] (SQLite) keeps every finished run's process values; [`Series`]
//! groups them per scenario and metric; change points in a series become [`Change`]s
//! (`changes.json`); [`write_history_html`] draws the trends. [`HistoryReporter`] adds a run
//! as it finishes (`run --history FILE`).

// Without `full` (harness-criterion's `history` feature) only the reporter (`--history`) is
// reachable; the rest serves the CLI's `history` command.
#![cfg_attr(not(feature = "cli"), allow(dead_code))]

mod alloc_changes;
pub mod commands;
mod explain;
mod html;
mod reporter;
mod series;
mod store;
mod stored;

pub use html::write_history_html;
pub use reporter::HistoryReporter;
#[cfg(test)]
pub use series::Point;
pub use series::{Change, Series, build_series, find_changes};
pub use store::Store;
