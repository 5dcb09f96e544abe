//! `merge`: the shard directories of one `--partition`ed plan back into one result set
//! (results.jsonl, results.json, results.csv, index.html), as if the plan had run whole.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::errors::Error;
use crate::model::{PlanInfo, ResultsFile, ShardOrigin};
use crate::report::{OutDir, read_results, write_csv, write_html, write_json};

/// Merges the shards in `dirs` into `out`; returns the output directory. Refuses shards of
/// different plans, a shard given twice, an unfinished shard, and names any shard missing.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<PathBuf, Error> {
    let mut shards = Vec::new();
    for dir in dirs {
        let r = read_results(dir)?;
        let plan = shard_plan(dir, &r)?;
        shards.push((plan.0, plan.1, dir.clone(), r));
    }
    shards.sort_by_key(|s| s.0);
    let (_, count, first_dir, first) = &shards[0];
    let fingerprint = first.meta.plan.as_ref().map(|p| p.fingerprint.clone()).unwrap_or_default();
    for (k, n, dir, r) in &shards {
        let fp = r.meta.plan.as_ref().map_or("", |p| p.fingerprint.as_str());
        if *n != *count || fp != fingerprint {
            return Err(Error::Merge {
                detail: format!(
                    "'{}' is shard {k}/{n} of plan {fp}, but '{}' is of plan {fingerprint} in {count} shards (same seed, filters and flags?)",
                    dir.display(),
                    first_dir.display()
                ),
            });
        }
        if r.meta.finished_at.is_empty() {
            return Err(Error::Merge {
                detail: format!("shard {k}/{n} in '{}' did not finish; finish it with `run --resume {}`", dir.display(), dir.display()),
            });
        }
    }
    if let Some(w) = shards.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(Error::Merge {
            detail: format!("shard {}/{count} given twice: '{}' and '{}'", w[0].0, w[0].2.display(), w[1].2.display()),
        });
    }
    let missing: Vec<String> = (1..=*count).filter(|k| !shards.iter().any(|s| s.0 == *k)).map(|k| format!("{k}/{count}")).collect();
    if !missing.is_empty() {
        return Err(Error::Merge {
            detail: format!("shard(s) {} missing (have {})", missing.join(", "), shards.len()),
        });
    }
    let merged = combine(shards.into_iter().map(|s| s.3).collect());
    write_set(&merged, out)
}

/// (K, N) of a shard directory's run, or an error naming it.
fn shard_plan(dir: &Path, r: &ResultsFile) -> Result<(usize, usize), Error> {
    let partition = r.meta.plan.as_ref().and_then(|p| p.partition.as_deref());
    let parsed = partition.and_then(|p| p.parse::<crate::plan::Partition>().ok());
    parsed.map(|p| (p.index, p.count)).ok_or_else(|| Error::Merge {
        detail: format!("'{}' is not a shard of a --partition run (its results.json has no partition)", dir.display()),
    })
}

/// One result set from shards ordered 1..=N: runs concatenated and renumbered, the meta of the
/// first shard spanning every shard's time, each shard's host and runs listed.
fn combine(shards: Vec<ResultsFile>) -> ResultsFile {
    let mut meta = shards[0].meta.clone();
    let mut runs = Vec::new();
    let mut origins = Vec::new();
    for s in shards {
        origins.push(ShardOrigin {
            partition: s.meta.plan.as_ref().and_then(|p| p.partition.clone()).unwrap_or_default(),
            hostname: s.meta.host.hostname.clone(),
            first_run: runs.len(),
            runs: s.runs.len(),
        });
        meta.started_at = meta.started_at.min(s.meta.started_at.clone());
        meta.finished_at = meta.finished_at.max(s.meta.finished_at.clone());
        let mut mine = s.runs;
        mine.sort_by_key(|r| r.run_index);
        runs.extend(mine);
    }
    for (i, r) in runs.iter_mut().enumerate() {
        r.run_index = i;
    }
    let mut seen = std::collections::HashSet::new();
    meta.order = runs.iter().filter(|r| seen.insert(r.scenario.clone())).map(|r| r.scenario.clone()).collect();
    meta.plan = meta.plan.map(|p| PlanInfo {
        partition: None,
        shards: origins,
        ..p
    });
    ResultsFile {
        summaries: crate::run::summarize_runs(&runs),
        meta,
        runs,
    }
}

fn write_set(results: &ResultsFile, out: &Path) -> Result<PathBuf, Error> {
    let dir = OutDir::create(Some(out))?;
    let jsonl = dir.file("results.jsonl");
    let mut text = Vec::new();
    for r in &results.runs {
        serde_json::to_writer(&mut text, r).expect("records serialize");
        text.push(b'\n');
    }
    std::fs::File::create(&jsonl)
        .and_then(|mut f| f.write_all(&text))
        .map_err(|source| Error::Io {
            what: format!("writing {}", jsonl.display()),
            source,
        })?;
    write_json(&dir.file("results.json"), results)?;
    write_csv(&dir.file("results.csv"), results)?;
    write_html(dir.path())?;
    Ok(dir.path().to_owned())
}
