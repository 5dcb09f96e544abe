//! `ReportContext`: every section one report shows, read from whichever results files exist
//! (detect's and compare's with the `cli` feature, the only build whose commands write them).

use std::path::Path;

#[cfg(feature = "cli")]
use super::super::inputs::{CompareEntry, CompareRun, DetectEntry, DetectRun, read_json, read_text};
use super::RunContext;
#[cfg(feature = "cli")]
use super::{CompareContext, DetectContext};
use crate::errors::Error;
use crate::model::HostInfo;

/// Everything one report shows; each section is present when its files were.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReportContext {
    pub run: Option<RunContext>,
    #[cfg(feature = "cli")]
    pub detect: Option<DetectContext>,
    #[cfg(feature = "cli")]
    pub compare: Option<CompareContext>,
}

impl ReportContext {
    /// Reads whichever results files exist in `dir`. Errors name the malformed file and place.
    pub(crate) fn load(dir: &Path) -> Result<Self, Error> {
        let run = if dir.join("results.json").exists() {
            Some(RunContext::build(crate::report::read_results(dir)?))
        } else {
            None
        };
        #[cfg(feature = "cli")]
        let detect = match read_json::<Vec<DetectEntry>>(&dir.join("detect.json"))? {
            Some(entries) => {
                let run = read_json::<DetectRun>(&dir.join("detect-run.json"))?.unwrap_or_default();
                Some(DetectContext::build(run, entries))
            }
            None => None,
        };
        #[cfg(feature = "cli")]
        let compare = match read_json::<Vec<CompareEntry>>(&dir.join("compare.json"))? {
            Some(entries) => Some(CompareContext {
                run: read_json::<CompareRun>(&dir.join("compare-run.json"))?.unwrap_or_default(),
                entries,
                markdown: read_text(&dir.join("compare.md"))?,
            }),
            None => None,
        };
        #[cfg(not(feature = "cli"))]
        let found = run.is_some();
        #[cfg(feature = "cli")]
        let found = run.is_some() || detect.is_some() || compare.is_some();
        if !found {
            return Err(Error::NoResults { dir: dir.to_owned() });
        }
        Ok(ReportContext {
            run,
            #[cfg(feature = "cli")]
            detect,
            #[cfg(feature = "cli")]
            compare,
        })
    }

    /// The host of whichever section has one.
    pub(crate) fn host(&self) -> Option<&HostInfo> {
        let run = self.run.as_ref().map(|r| &r.meta.host);
        #[cfg(feature = "cli")]
        let run = run
            .or_else(|| self.detect.as_ref().and_then(|d| d.run.host.as_ref()))
            .or_else(|| self.compare.as_ref().and_then(|c| c.run.host.as_ref()));
        run
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_names_the_malformed_file_and_place() {
        let dir = std::env::temp_dir().join(format!("harness-ctx-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("compare.json"), "[\n  {\"name\": \"x\",\n   \"metric\": 3\n").unwrap();
        let err = ReportContext::load(&dir).unwrap_err().to_string();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(err.contains("compare.json") && err.contains("line 3"), "{err}");
    }

    #[test]
    fn load_of_an_empty_dir_says_nothing_is_there() {
        let dir = std::env::temp_dir().join(format!("harness-ctx-empty-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let err = ReportContext::load(&dir).unwrap_err();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(matches!(err, Error::NoResults { .. }), "{err}");
    }
}
