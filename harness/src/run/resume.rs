//! `remaining`: the jobs an interrupted run still owes (`--resume DIR`), checked to be the
//! same plan.

use std::collections::HashSet;

use super::Resume;
use crate::errors::Error;
use crate::model::{PlanInfo, RunRecord};
use crate::plan::Job;

/// `jobs` minus those `resume` already recorded, and its records; an error when `resume` ran a
/// different plan or shard (other filters, repeats, iterations, warm-up or `--partition`).
pub(super) fn remaining(resume: &Resume, plan: &PlanInfo, jobs: Vec<Job>) -> Result<(Vec<Job>, Vec<RunRecord>), Error> {
    let bad = |reason: String| Error::InvalidFlag {
        flag: "--resume",
        value: resume.dir.display().to_string(),
        reason,
    };
    let Some(prior) = &resume.plan else {
        return Err(bad(
            "its results.json records no plan (written by an older harness); run it again".into()
        ));
    };
    if prior.fingerprint != plan.fingerprint || prior.partition != plan.partition {
        return Err(bad(format!(
            "it ran plan {} (partition {}), these arguments give plan {} (partition {}): use the same filters, --repeat, --iterations, --warmup and --partition",
            prior.fingerprint,
            prior.partition.as_deref().unwrap_or("none"),
            plan.fingerprint,
            plan.partition.as_deref().unwrap_or("none")
        )));
    }
    let done: HashSet<(&str, usize)> = resume.records.iter().map(|r| (r.scenario.as_str(), r.repetition)).collect();
    let left = jobs
        .into_iter()
        .filter(|j| !done.contains(&(j.scenario.as_str(), j.repetition)))
        .collect();
    Ok((left, resume.records.clone()))
}
