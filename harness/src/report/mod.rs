//! Reporters: each output format in its own file, each a [`Reporter`](crate::events::Reporter)
//! or a function of a [`ResultsFile`](crate::model::ResultsFile).
//!
//! Owns the outputs every command shares (results.jsonl/json/csv, progress, terminal, index.html,
//! and junit.xml with the `junit` feature) and the one atomic writer (`files`) every output file
//! goes through; a command's own files (detect.json, compare.json, ...) are reporters in that
//! command's module. May import `model`, `events`, `stats`; never `cli`, `run`, `detect` or
//! `compare`.

mod csv;
mod files;
mod gpu_notes;
pub(crate) mod html;
mod index;
mod json;
mod jsonl;
#[cfg(feature = "junit")]
mod junit;
mod out_dir;
// Compiled in every test build, so the CLI's tests check the lean build's progress line too.
#[cfg(any(test, not(feature = "progress")))]
#[cfg_attr(feature = "progress", expect(dead_code, reason = "only the tests draw a plain line here"))]
mod plain_bar;
mod progress;
mod terminal;

pub(crate) use csv::CsvWriter;
#[cfg(feature = "cli")]
pub(crate) use csv::write_csv;
pub use files::write_json;
#[cfg(feature = "cli")]
pub(crate) use files::{io_err, write_atomic, write_csv_rows};
pub(crate) use gpu_notes::{clock_lock_line, gpu_state_line};
pub use html::write_html;
pub(crate) use index::HtmlReporter;
pub(crate) use json::JsonWriter;
pub use json::read_results;
pub(crate) use jsonl::JsonlWriter;
#[cfg(feature = "junit")]
pub(crate) use junit::JunitWriter;
#[cfg(feature = "cli")]
pub(crate) use junit::{results_junit, write as write_junit};
pub(crate) use out_dir::OutDir;
pub(crate) use progress::ProgressReporter;
pub(crate) use terminal::{SummaryReporter, format_value};

/// The scenarios whose calls leak: `leaked_bytes` above 0 in some counted call (`--allocs`),
/// with the metric's count per call. The terminal and the HTML list them on their own.
pub(crate) fn leaks(results: &crate::model::ResultsFile) -> impl Iterator<Item = (&str, crate::model::PerCall)> {
    results.summaries.iter().filter_map(|s| {
        let p = s.metrics.iter().find(|m| m.metric == "leaked_bytes")?.per_call?;
        (p.max > 0).then_some((s.scenario.as_str(), p))
    })
}

/// How many counting processes a measurement got, as the terminal and the HTML say it: a run
/// stops at two where they counted alike (`run::more_counting`).
pub(crate) fn counting_processes(most: usize) -> String {
    if most > 2 {
        format!("2 counting processes (up to {most} where their counts differ)")
    } else {
        format!("{most} counting processes")
    }
}
