//! Reporters: each output format in its own file, each a [`Reporter`](crate::events::Reporter)
//! or a function of a [`ResultsFile`](crate::model::ResultsFile).

mod csv;
pub mod html;
mod json;
mod jsonl;
mod junit;
mod out_dir;
mod progress;
mod terminal;

pub use csv::write_csv;
pub use html::write_html;
pub use json::{JsonWriter, read_results, write_json};
pub use jsonl::JsonlWriter;
pub use junit::{detect_junit, results_junit, write_detect_junit, write_results_junit};
pub use out_dir::OutDir;
pub use progress::ProgressReporter;
pub use terminal::{SummaryReporter, format_value, summary_table};
