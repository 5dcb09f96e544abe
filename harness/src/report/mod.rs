//! Reporters: each output format in its own file, each a [`Reporter`](crate::events::Reporter)
//! or a function of a [`ResultsFile`](crate::model::ResultsFile).

mod csv;
mod files;
mod index;
pub mod html;
mod json;
mod jsonl;
mod junit;
mod out_dir;
mod progress;
mod terminal;

pub use csv::{CsvWriter, write_csv};
pub use html::write_html;
pub use files::{write_atomic, write_csv_rows, write_json};
pub(crate) use files::io_err;
pub use index::HtmlReporter;
pub use json::{JsonWriter, read_results};
pub use jsonl::JsonlWriter;
pub use junit::{JunitWriter, detect_junit, results_junit};
pub use out_dir::OutDir;
pub use progress::ProgressReporter;
pub use terminal::{SummaryReporter, format_value, summary_table};
