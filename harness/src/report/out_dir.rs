//! `OutDir`: the output directory of a run, created and checked writable before anything runs.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::clock;
use crate::errors::Error;

/// A writable output directory.
#[derive(Debug, Clone)]
pub struct OutDir {
    path: PathBuf,
}

impl OutDir {
    /// `--out DIR` if given, else `reports/<timestamp>/` with `reports/latest` pointing at it.
    pub fn create(out: Option<&Path>) -> Result<Self, Error> {
        let path = match out {
            Some(p) => p.to_owned(),
            None => Path::new("reports").join(clock::compact(SystemTime::now())),
        };
        let fail = |source| Error::OutDir {
            path: path.clone(),
            source,
        };
        fs::create_dir_all(&path).map_err(fail)?;
        // Prove it is writable now, not after the first hour of runs.
        let probe = path.join(".write-probe");
        fs::write(&probe, b"").map_err(fail)?;
        let _ = fs::remove_file(&probe);
        if out.is_none() {
            let latest = Path::new("reports").join("latest");
            let _ = fs::remove_file(&latest);
            if let Some(name) = path.file_name() {
                let _ = std::os::unix::fs::symlink(name, &latest);
            }
        }
        Ok(OutDir { path })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A file inside it.
    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// A scratch directory for child output and result channels, inside the output directory.
    pub fn scratch(&self) -> Result<PathBuf, Error> {
        let p = self.path.join(".scratch");
        fs::create_dir_all(&p).map_err(|source| Error::OutDir { path: p.clone(), source })?;
        Ok(p)
    }
}
