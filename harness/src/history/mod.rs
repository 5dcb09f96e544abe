//! The run history: [`Store`] (SQLite) keeps every finished run's process values; [`Series`]
//! groups them per scenario and metric; change points in a series become [`Change`]s
//! (`changes.json`); [`write_history_html`] draws the trends. [`HistoryReporter`] adds a run
//! as it finishes (`run --history FILE`).

mod alloc_changes;
pub mod commands;
mod explain;
mod html;
mod reporter;
mod series;
#[cfg(feature = "history")]
mod store;
#[cfg(not(feature = "history"))]
#[path = "store_off.rs"]
mod store;
mod stored;

pub use html::write_history_html;
pub use reporter::HistoryReporter;
#[cfg(test)]
pub use series::Point;
pub use series::{Change, Series, build_series, find_changes};
pub use store::Store;
