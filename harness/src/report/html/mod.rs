//! The HTML report: [`write_html`] renders whichever results files a directory holds into one
//! self-contained `index.html` (inline CSS, inline script, inline SVG charts; nothing fetched).
//!
//! Data and rendering are apart: `inputs` reads the detect and compare files, `context/` builds
//! the plain `ReportContext`, `page` lays out the page from `section/` (one file per section,
//! matching `context/`) and `plot/`, with `markup` for the pieces sections share. Every string
//! from a scenario or a results file passes through `escape`. Without the `cli` feature (a suite
//! binary, whose one command writes no detect or compare files) only the run's sections are
//! built: `inputs` and the detect and compare sections are left out.

mod context;
// The results files the context tests build, for the terminal report's tests too.
#[cfg(test)]
pub(crate) use context::test_helpers;
mod escape;
#[cfg(feature = "cli")]
mod inputs;
mod markup;
pub(crate) mod page;
pub(crate) mod plot;
mod section;

pub(crate) use escape::escape;

use std::path::{Path, PathBuf};

use crate::errors::Error;

/// Reads `results.json` (with `results.jsonl` for a cut-short run), `detect.json` +
/// `detect-run.json` and `compare.json` + `compare-run.json` + `compare.md` (with the `cli`
/// feature), whichever exist in `dir`, and writes `dir/index.html`. Returns its path.
///
/// A malformed file is an [`Error::BadResultsFile`] naming the file, line and column; a
/// directory with none of them is [`Error::NoResults`].
pub fn write_html(dir: &Path) -> Result<PathBuf, Error> {
    let ctx = context::ReportContext::load(dir)?;
    let html = page::render(&ctx);
    let path = dir.join("index.html");
    let tmp = dir.join("index.html.tmp");
    std::fs::write(&tmp, html).map_err(|source| Error::Io {
        what: format!("writing {}", tmp.display()),
        source,
    })?;
    std::fs::rename(&tmp, &path).map_err(|source| Error::Io {
        what: format!("renaming {} to {}", tmp.display(), path.display()),
        source,
    })?;
    Ok(path)
}
