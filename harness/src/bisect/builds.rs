//! `Builds`: each commit of the range as a suite binary, built at most once (compare's
//! [`Builder`], which caches binaries per commit), and the scenario as that binary lists it. A
//! commit that does not build, does not answer as a suite or lacks the scenario is unusable,
//! with the reason; the search skips it.

use std::path::PathBuf;

use crate::compare::Builder;
use crate::execute::{SuiteBinary, Target};
use crate::model::{BuildCounts, Listed, ScenarioKind};

/// A commit's binary and its listing of the scenario.
#[derive(Debug, Clone)]
pub(crate) struct Ready {
    pub binary: PathBuf,
    pub listed: Listed,
}

impl Ready {
    /// The binary as a target.
    pub fn target(&self) -> SuiteBinary {
        SuiteBinary::new(&self.binary)
    }
}

/// The range's commits, built on demand.
pub(crate) struct Builds {
    builder: Builder,
    ids: Vec<String>,
    scenario: String,
    state: Vec<Option<Result<Ready, String>>>,
    /// How the binaries were obtained so far.
    pub counts: BuildCounts,
}

impl Builds {
    /// `ids` in range order, the scenario every commit must have.
    pub fn new(builder: Builder, ids: Vec<String>, scenario: &str) -> Builds {
        let state = ids.iter().map(|_| None).collect();
        Builds {
            builder,
            ids,
            scenario: scenario.to_owned(),
            state,
            counts: BuildCounts::default(),
        }
    }

    /// The last index (bad's).
    pub fn last(&self) -> usize {
        self.ids.len() - 1
    }

    /// Commit `i`'s binary and listing, or why it cannot be measured.
    pub fn get(&mut self, i: usize) -> Result<&Ready, &str> {
        if self.state[i].is_none() {
            self.state[i] = Some(self.make(i));
        }
        match self.state[i].as_ref().expect("just set") {
            Ok(r) => Ok(r),
            Err(why) => Err(why),
        }
    }

    fn make(&mut self, i: usize) -> Result<Ready, String> {
        let id = &self.ids[i];
        let short = &id[..id.len().min(12)];
        let cached = self.builder.cached(id).is_file();
        if let Err(why) = self.builder.check_target(Some(id)) {
            self.counts.failed += 1;
            return Err(why);
        }
        let binary = match self.builder.build_commit(id) {
            Ok(b) => {
                *(if cached { &mut self.counts.cached } else { &mut self.counts.built }) += 1;
                b
            }
            Err(f) => {
                self.counts.failed += 1;
                let when = if f.cached {
                    " (cached failure: delete the .failed file to retry)"
                } else {
                    ""
                };
                return Err(format!("does not build{when}: {}", last_lines(&f.detail, 6)));
            }
        };
        let listed = SuiteBinary::new(&binary)
            .list()
            .map_err(|e| format!("its binary does not list scenarios: {e}"))?;
        let found = listed.into_iter().find(|l| l.name == self.scenario);
        match found {
            Some(l) if l.kind == ScenarioKind::Measure => Ok(Ready { binary, listed: l }),
            Some(_) => Err(format!("{:?} is a check at {short}, not a measurement", self.scenario)),
            None => Err(format!("scenario {:?} is absent at {short}", self.scenario)),
        }
    }
}

fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}
