//! `OrderTarget`: what detect needs of a binary — run names in one process, optionally under a
//! libtest shuffle seed — implemented for exact-order targets and for libtest binaries.

use std::io;

use crate::errors::Error;
use crate::execute::{LibtestBinary, ProcessResult, Target, TargetRequest};
use crate::model::Listed;

/// A binary whose scenarios detect can run together in one process.
pub trait OrderTarget: Send + Sync {
    /// Path or description, for messages and reports.
    fn describe(&self) -> String;
    /// Every scenario, in listing order (the "original" order).
    fn list(&self) -> Result<Vec<Listed>, Error>;
    /// Run `req.names` in one process. A target that honours order runs them as given and
    /// ignores `seed`; one that does not (libtest) runs them in name order, or permuted by `seed`.
    fn run_seeded(&self, req: &TargetRequest, seed: Option<u64>) -> io::Result<ProcessResult>;
    /// Whether `run_seeded` runs the names in exactly the order given.
    fn honours_order(&self) -> bool;
    /// `suite` or `libtest`, for `detect-run.json`.
    fn kind_name(&self) -> &'static str;
    /// Whether each result carries the env/cwd changes the scenario made.
    fn observes_env(&self) -> bool;
    /// The cargo package and target this binary was built from, when cargo built it.
    fn cargo_label(&self) -> Option<(String, String)> {
        None
    }
}

/// A binary cargo built, named by its package and target (`cargo harness detect`).
// Only `cargo harness` (feature `cargo`) builds one.
#[cfg_attr(not(feature = "cargo"), allow(dead_code))]
pub struct Labeled {
    /// The binary.
    pub inner: Box<dyn OrderTarget>,
    /// Its cargo package.
    pub package: String,
    /// Its cargo target name.
    pub binary: String,
}

impl OrderTarget for Labeled {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn list(&self) -> Result<Vec<Listed>, Error> {
        self.inner.list()
    }
    fn run_seeded(&self, req: &TargetRequest, seed: Option<u64>) -> io::Result<ProcessResult> {
        self.inner.run_seeded(req, seed)
    }
    fn honours_order(&self) -> bool {
        self.inner.honours_order()
    }
    fn kind_name(&self) -> &'static str {
        self.inner.kind_name()
    }
    fn observes_env(&self) -> bool {
        self.inner.observes_env()
    }
    fn cargo_label(&self) -> Option<(String, String)> {
        Some((self.package.clone(), self.binary.clone()))
    }
}

/// Any [`Target`] that runs names in the order given (a suite binary).
#[cfg(feature = "cli")]
pub struct Exact<T: Target>(pub T);

#[cfg(feature = "cli")]
impl<T: Target> OrderTarget for Exact<T> {
    fn describe(&self) -> String {
        self.0.describe()
    }
    fn list(&self) -> Result<Vec<Listed>, Error> {
        self.0.list()
    }
    fn run_seeded(&self, req: &TargetRequest, _seed: Option<u64>) -> io::Result<ProcessResult> {
        self.0.run(req)
    }
    fn honours_order(&self) -> bool {
        self.0.honours_order()
    }
    fn kind_name(&self) -> &'static str {
        "suite"
    }
    fn observes_env(&self) -> bool {
        true
    }
}

impl OrderTarget for LibtestBinary {
    fn describe(&self) -> String {
        Target::describe(self)
    }
    fn list(&self) -> Result<Vec<Listed>, Error> {
        Target::list(self)
    }
    fn run_seeded(&self, req: &TargetRequest, seed: Option<u64>) -> io::Result<ProcessResult> {
        let mut seeded = self.clone();
        seeded.shuffle_seed = seed;
        Target::run(&seeded, req)
    }
    fn honours_order(&self) -> bool {
        false
    }
    fn kind_name(&self) -> &'static str {
        "libtest"
    }
    fn observes_env(&self) -> bool {
        // libtest has no hook inside the process: a test's env/cwd changes cannot be seen.
        false
    }
}
