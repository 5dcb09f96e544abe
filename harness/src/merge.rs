//! `merge`: the shard directories of one `--partition`ed plan back into one result set
//! (results.jsonl, results.json, results.csv, index.html), as if the plan had run whole.

use std::path::{Path, PathBuf};

use crate::errors::Error;
use crate::model::{PlanInfo, ResultsFile, ShardOrigin};
use crate::report::{OutDir, read_results, results_junit, write_atomic, write_csv, write_html, write_json, write_junit};

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
                detail: format!(
                    "shard {k}/{n} in '{}' did not finish; finish it with `run --resume {}`",
                    dir.display(),
                    dir.display()
                ),
            });
        }
    }
    if let Some(w) = shards.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(Error::Merge {
            detail: format!(
                "shard {}/{count} given twice: '{}' and '{}'",
                w[0].0,
                w[0].2.display(),
                w[1].2.display()
            ),
        });
    }
    let missing: Vec<String> = (1..=*count)
        .filter(|k| !shards.iter().any(|s| s.0 == *k))
        .map(|k| format!("{k}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(Error::Merge {
            detail: format!("shard(s) {} missing (have {})", missing.join(", "), shards.len()),
        });
    }
    let merged = combine(shards.into_iter().map(|s| s.3).collect());
    for line in variance_advice(&merged) {
        println!("{line}");
    }
    write_set(&merged, out)
}

/// (K, N) of a shard directory's run, or an error naming it.
fn shard_plan(dir: &Path, r: &ResultsFile) -> Result<(usize, usize), Error> {
    let partition = r.meta.plan.as_ref().and_then(|p| p.partition.as_deref());
    let parsed = partition.and_then(|p| p.parse::<crate::plan::Partition>().ok());
    parsed.map(|p| (p.index, p.count)).ok_or_else(|| Error::Merge {
        detail: format!(
            "'{}' is not a shard of a --partition run (its results.json has no partition)",
            dir.display()
        ),
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
    meta.order = runs
        .iter()
        .filter(|r| seen.insert(r.scenario.clone()))
        .map(|r| r.scenario.clone())
        .collect();
    meta.plan = meta.plan.map(|p| PlanInfo {
        partition: None,
        shards: origins,
        ..p
    });
    let summaries = summarize_merged(&runs, meta.plan.as_ref().map_or(&[][..], |p| &p.shards));
    ResultsFile { summaries, meta, runs }
}

/// Summaries of merged runs: as one run where every shard ran on one host; else each host's
/// processes judged against that host's own full speed (`model/slowed.rs`), since a slower CPU's
/// processes are another machine, not a slowed one.
fn summarize_merged(runs: &[crate::model::RunRecord], shards: &[ShardOrigin]) -> Vec<crate::model::ScenarioSummary> {
    let hosts: std::collections::BTreeSet<&str> = shards.iter().map(|s| s.hostname.as_str()).collect();
    if hosts.len() <= 1 {
        return crate::model::summarize_runs(runs);
    }
    let host_of = |i: usize| {
        shards
            .iter()
            .find(|s| (s.first_run..s.first_run + s.runs).contains(&i))
            .map(|s| s.hostname.as_str())
    };
    let speeds: std::collections::BTreeMap<&str, Option<(f64, bool)>> = hosts
        .iter()
        .map(|h| {
            let mine: Vec<crate::model::RunRecord> = runs.iter().filter(|r| host_of(r.run_index) == Some(h)).cloned().collect();
            (*h, crate::model::full_speed(&mine, None))
        })
        .collect();
    crate::model::summarize_judged(runs, &|i| host_of(i).and_then(|h| speeds[h]))
}

/// For each measurement and metric of a merged run whose shards ran on more than one host, the
/// three-level variance split (machines, processes, iterations) and what to add, as lines.
pub fn variance_advice(results: &ResultsFile) -> Vec<String> {
    let Some(plan) = &results.meta.plan else { return Vec::new() };
    let hosts: std::collections::BTreeSet<&str> = plan.shards.iter().map(|s| s.hostname.as_str()).collect();
    if hosts.len() < 2 {
        return Vec::new();
    }
    let mut lines = Vec::new();
    for summary in results.summaries.iter().filter(|s| !s.metrics.is_empty()) {
        for m in &summary.metrics {
            let machines: Vec<Vec<Vec<f64>>> = hosts
                .iter()
                .map(|h| {
                    let shards: Vec<_> = plan.shards.iter().filter(|s| s.hostname == *h).collect();
                    let in_host = |i: usize| shards.iter().any(|s| (s.first_run..s.first_run + s.runs).contains(&i));
                    results
                        .runs
                        .iter()
                        .filter(|r| r.scenario == summary.scenario && in_host(r.run_index))
                        .filter_map(|r| r.metric(&m.metric).map(|x| x.iterations.clone()))
                        .collect()
                })
                .collect();
            if let Ok(split) = crate::stats::three_level_split(&machines) {
                let total = (split.machines + split.processes + split.iterations).max(f64::MIN_POSITIVE);
                lines.push(format!(
                    "variance {} {}: machines {:.0}%, processes {:.0}%, iterations {:.0}%: add {}",
                    summary.scenario,
                    m.metric,
                    100.0 * split.machines / total,
                    100.0 * split.processes / total,
                    100.0 * split.iterations / total,
                    split.advice()
                ));
            }
        }
    }
    lines
}

fn write_set(results: &ResultsFile, out: &Path) -> Result<PathBuf, Error> {
    let dir = OutDir::create(Some(out))?;
    let mut text = Vec::new();
    for r in &results.runs {
        serde_json::to_writer(&mut text, r).expect("records serialize");
        text.push(b'\n');
    }
    write_atomic(&dir.file("results.jsonl"), &text)?;
    write_json(&dir.file("results.json"), results)?;
    write_csv(&dir.file("results.csv"), results)?;
    write_junit(&dir.file("junit.xml"), &results_junit(results))?;
    write_html(dir.path())?;
    Ok(dir.path().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shards on two hosts, one a slower CPU (probe 40 us against 24 us, code 1.6x): merged, each
    /// host is judged against itself and nothing is a slowed machine; judged as one run, every
    /// process of the slower host would be.
    #[test]
    fn merged_shards_of_two_hosts_judge_each_host_against_its_own_full_speed() {
        let run = |i: usize, v: f64, probe: f64| -> crate::model::RunRecord {
            serde_json::from_value(
                serde_json::json!({"run_index": i, "scenario": "m", "kind": "measure", "repetition": i,
                "outcome": {"status": "passed"}, "wall_ns": 1, "started_ms": 0.0, "metrics": [{"name": "latency_ns",
                "unit": "ns", "better": "lower", "value": v * (1.0 + 0.001 * i as f64), "speed_probe_ns": [probe, probe]}]}),
            )
            .unwrap()
        };
        let runs: Vec<_> = (0..16)
            .map(|i| if i < 8 { run(i, 100.0, 24_000.0) } else { run(i, 160.0, 40_000.0) })
            .collect();
        let shards = [("a", 0), ("b", 8)].map(|(h, first)| ShardOrigin {
            partition: String::new(),
            hostname: h.into(),
            first_run: first,
            runs: 8,
        });
        let merged = summarize_merged(&runs, &shards);
        assert!(merged[0].metrics[0].slowed.is_none(), "{:?}", merged[0].metrics[0].slowed);
        assert_eq!(merged[0].metrics[0].values.len(), 16);
        let as_one = crate::model::summarize_runs(&runs);
        assert_eq!(as_one[0].metrics[0].slowed.as_ref().map(|s| s.processes), Some(8));
        let one_host = shards.clone().map(|s| ShardOrigin { hostname: "a".into(), ..s });
        assert_eq!(summarize_merged(&runs, &one_host), as_one, "one host: one run");
    }

    /// Two hosts whose processes sit 10% apart while processes and iterations barely vary: the
    /// advice is to add machines; a merge from one host gives no advice.
    #[test]
    fn advice_names_machines_when_hosts_differ() {
        let run = |i: usize, v: f64| {
            serde_json::json!({"run_index": i, "scenario": "m", "kind": "measure", "repetition": i, "outcome": {"status": "passed"},
                "wall_ns": 1, "started_ms": 0.0, "metrics": [{"name": "t", "unit": "ns", "better": "lower", "value": v,
                "iterations": [v * 0.999, v * 1.001, v]}]})
        };
        let runs: Vec<_> = (0..8)
            .map(|i| run(i, if i < 4 { 100.0 } else { 110.0 } + (i % 2) as f64 * 0.1))
            .collect();
        let mut results: ResultsFile = serde_json::from_value(serde_json::json!({
            "meta": {"format_version": 1, "harness_version": "0", "binary": "b", "command": [], "seed": 1, "order": [], "repeat": 8,
                "iterations": 3, "warmup": 0, "target_ci": null, "test_threads": 1, "started_at": "", "finished_at": "x",
                "host": {"hostname": "h", "cpu": "", "logical_cores": 1, "os": "", "kernel": "", "arch": "", "rustc": "",
                    "git_commit": null, "load_start": null, "load_end": null, "gpu_driver": null},
                "plan": {"fingerprint": "f", "total_jobs": 8, "shards": [
                    {"partition": "1/2", "hostname": "a", "first_run": 0, "runs": 4},
                    {"partition": "2/2", "hostname": "b", "first_run": 4, "runs": 4}]}},
            "summaries": [], "runs": runs}))
        .unwrap();
        results.summaries = crate::model::summarize_runs(&results.runs);
        let advice = variance_advice(&results);
        assert_eq!(advice.len(), 1, "{advice:?}");
        assert!(advice[0].contains("add machines"), "{advice:?}");
        results.meta.plan.as_mut().unwrap().shards[1].hostname = "a".into();
        assert!(variance_advice(&results).is_empty());
    }
}
