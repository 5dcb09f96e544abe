//! `Binaries`: several libtest binaries as one [`Target`] for `cargo harness run --tests`. A test
//! is named `<package>/<target> <test>`, so names stay unique across binaries and libtest-style
//! substring filters still match the test's own path.

use std::io;

use super::TestBinary;
use crate::errors::Error;
use crate::execute::{LibtestBinary, ProcessResult, Target, TargetRequest};
use crate::model::Listed;

/// The test binaries cargo built, each run through libtest's own CLI.
pub struct Binaries {
    bins: Vec<(String, LibtestBinary)>,
}

impl Binaries {
    /// One target over `bins`.
    pub fn new(bins: Vec<TestBinary>) -> Self {
        Binaries {
            bins: bins
                .into_iter()
                .map(|b| (format!("{}/{}", b.package, b.target), LibtestBinary::new(b.exe)))
                .collect(),
        }
    }

    fn split<'n>(&self, name: &'n str) -> io::Result<(&LibtestBinary, &'n str, &str)> {
        let (label, test) = name
            .split_once(' ')
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, format!("{name:?} names no binary")))?;
        let (l, bin) = self
            .bins
            .iter()
            .find(|(l, _)| l == label)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, format!("no test binary {label:?}")))?;
        Ok((bin, test, l.as_str()))
    }
}

impl Target for Binaries {
    fn describe(&self) -> String {
        self.bins.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>().join(", ")
    }

    fn list(&self) -> Result<Vec<Listed>, Error> {
        let mut all = Vec::new();
        for (label, bin) in &self.bins {
            all.extend(bin.list()?.into_iter().map(|mut l| {
                l.name = format!("{label} {}", l.name);
                l
            }));
        }
        Ok(all)
    }

    /// Every name of one request must belong to one binary (the scheduler asks one test a process).
    fn run(&self, req: &TargetRequest) -> io::Result<ProcessResult> {
        let first = req
            .names
            .first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no test named"))?;
        let (bin, _, label) = self.split(first)?;
        let mut inner = req.clone();
        inner.names = req
            .names
            .iter()
            .map(|n| match self.split(n) {
                Ok((_, test, l)) if l == label => Ok(test.to_owned()),
                _ => Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{n:?} is not in {label}"))),
            })
            .collect::<io::Result<_>>()?;
        let mut result = bin.run(&inner)?;
        for r in &mut result.results {
            r.name = format!("{label} {}", r.name);
        }
        Ok(result)
    }

    fn honours_order(&self) -> bool {
        false
    }
}
