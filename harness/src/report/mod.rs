//! Reporters: each output format in its own file, each a [`Reporter`](crate::events::Reporter)
//! or a function of a [`ResultsFile`](crate::model::ResultsFile).

mod csv;
mod files;
mod index;
pub(crate) mod html;
mod json;
mod jsonl;
mod out_dir;
mod progress;
mod terminal;

pub(crate) use csv::CsvWriter;
pub use html::write_html;
pub use files::write_json;
pub(crate) use files::{write_atomic, write_csv_rows};
pub(crate) use files::io_err;
pub(crate) use index::HtmlReporter;
pub use json::read_results;
pub(crate) use json::JsonWriter;
pub(crate) use jsonl::JsonlWriter;
pub(crate) use out_dir::OutDir;
pub(crate) use progress::ProgressReporter;
pub(crate) use terminal::{SummaryReporter, format_value};
