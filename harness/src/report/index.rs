//! `HtmlReporter`: writes `index.html` from the output directory's files once any command
//! finishes (so it comes after the reporters that write those files) and prints its path.

use std::io::Write;
use std::path::PathBuf;

use super::files::io_err;
use crate::errors::Error;
use crate::events::{Reporter, RunEvent};

/// Writes `index.html` into `dir` at the end and prints `report: PATH` to `out`.
pub struct HtmlReporter<W: Write> {
    dir: PathBuf,
    out: W,
}

impl<W: Write> HtmlReporter<W> {
    /// For the output directory `dir`.
    pub fn new(dir: PathBuf, out: W) -> Self {
        HtmlReporter { dir, out }
    }
}

impl<W: Write + Send> Reporter for HtmlReporter<W> {
    fn on_event(&mut self, event: &RunEvent<'_>) -> Result<(), Error> {
        if let RunEvent::Finished(_) = event {
            let page = super::write_html(&self.dir)?;
            writeln!(self.out, "report: {}", page.display()).map_err(io_err("printing the report path"))?;
        }
        Ok(())
    }
}
