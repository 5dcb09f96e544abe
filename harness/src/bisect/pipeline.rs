//! `run_bisect`: the bisect command as named phases: resolve and check the range (bad input fails
//! before anything runs), build the ends, compare them, search ([`Exact`] or [`Noisy`]), and
//! conclude. bisect.json is rewritten after every step, so a kill keeps every finished step;
//! results.jsonl gets every process through the reporters. Returns a [`BisectOutcome`]; `cli`
//! maps it to an exit status.

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

use super::builds::Builds;
use super::exact::Exact;
use super::measure::Measurer;
use super::noisy::{EndsCheck, Noisy, NoisySettings};
use super::output::{Conclusion, Outputs};
use super::posterior::Class;
use super::range::CommitRange;
use crate::compare::ProcessConfig;
use crate::counters::CounterSettings;
use crate::errors::Error;
use crate::events::{Reporter, RunEvent};
use crate::model::{BISECT_FORMAT_VERSION, BisectFile, BisectStep, RunMeta};
use crate::report::OutDir;

/// Validated options of `bisect`.
#[derive(Debug, Clone)]
pub(crate) struct BisectOptions {
    /// `--good` and `--bad` as given.
    pub good: String,
    pub bad: String,
    pub scenario: String,
    /// `--metric` (default `instructions` with `--counters`, else `latency_ns`).
    pub metric: String,
    /// `--package`, `--bin` or `--bench`, `--features`, `--manifest-path`.
    pub target: crate::compare::BuildTarget,
    /// `--counters`: count instead of timing (a plain binary search).
    pub counters: Option<CounterSettings>,
    /// `--budget`: stop when this much time is spent.
    pub budget: Option<Duration>,
    /// Pairs per side per step (wall time), or processes per commit (counters).
    pub runs: usize,
    /// Changes within +-this fraction are no change.
    pub floor: f64,
    /// The confidence that names a commit.
    pub confidence: f64,
    pub iterations: usize,
    pub warmup: usize,
    pub timeout: Duration,
    pub seed: u64,
    /// `--out`.
    pub out: PathBuf,
    /// The command that reproduces this search.
    pub command: Vec<String>,
}

/// What the search concluded.
#[derive(Debug, Clone)]
pub(crate) struct BisectOutcome {
    pub file: BisectFile,
}

impl BisectOutcome {
    /// A commit was named with the asked confidence.
    pub fn named(&self) -> bool {
        self.file.first_bad.is_some()
    }
}

/// Phase 1: the range and both ends built and holding the scenario, before any output exists.
pub(crate) fn plan_bisect(opts: &BisectOptions) -> Result<(CommitRange, Builds), Error> {
    let cwd = std::env::current_dir().map_err(|source| Error::Io {
        what: "reading the current directory".into(),
        source,
    })?;
    let builder = crate::compare::builder(&cwd, opts.target.clone(), "--good", &opts.good)?;
    let range = CommitRange::resolve(builder.root(), &opts.good, &opts.bad)?;
    let ids: Vec<String> = range.commits.iter().map(|c| c.id.clone()).collect();
    let mut builds = Builds::new(builder, ids, &opts.scenario);
    for (i, flag, given) in [(0, "--good", &opts.good), (range.last(), "--bad", &opts.bad)] {
        if let Err(why) = builds.get(i) {
            return Err(Error::InvalidFlag {
                flag,
                value: given.clone(),
                reason: format!("{why} (both ends must build and hold the scenario as a measurement)"),
            });
        }
    }
    Ok((range, builds))
}

/// Phases 2-4: compare the ends, search, conclude; bisect.json after every step.
pub(crate) fn run_bisect(
    opts: &BisectOptions,
    range: CommitRange,
    builds: Builds,
    out: &OutDir,
    events: &mut dyn Reporter,
) -> Result<BisectOutcome, Error> {
    let started = Instant::now();
    let scratch = out.scratch()?;
    let meta = RunMeta::started(
        format!("bisect {}..{}", opts.good, opts.bad),
        opts.command.clone(),
        opts.seed,
        opts.runs,
        opts.iterations,
        opts.warmup,
        crate::clock::rfc3339(SystemTime::now()),
        crate::host::collect(),
    );
    events.on_event(&RunEvent::Started { meta: &meta, total: 0 })?;
    let mut outputs = Outputs::new(out, initial_file(opts, &range, meta.host.clone()), &range);
    outputs.save()?;
    let process = ProcessConfig {
        iterations: opts.iterations,
        warmup: opts.warmup,
        timeout: Some(opts.timeout),
        scratch: scratch.clone(),
        seed: opts.seed,
        counters: opts.counters.clone(),
        // GPU scenarios sample under the child's default rules (compare's --throttle-threshold
        // and friends are not bisect flags).
        gpu: None,
    };
    let mut m = Measurer::new(builds, &opts.metric, process, events);
    let spent = || opts.budget.is_some_and(|b| started.elapsed() >= b);
    let conclusion = if opts.counters.is_some() {
        search_exact(opts, &range, &mut m, &mut outputs, &spent)?
    } else {
        search_noisy(opts, &range, &mut m, &mut outputs, &spent)?
    };
    outputs.file.builds = m.builds.counts;
    outputs.file.unit = m.unit.clone();
    outputs.file.elapsed_s = started.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&scratch);
    let file = outputs.finish(conclusion, |first_bad| {
        m.explain(range.commits.iter().position(|c| c.id == first_bad)?)
    })?;
    Ok(BisectOutcome { file })
}

fn initial_file(opts: &BisectOptions, range: &CommitRange, host: crate::model::HostInfo) -> BisectFile {
    BisectFile {
        format_version: BISECT_FORMAT_VERSION,
        first_bad: None,
        explain: None,
        confidence: 0.0,
        metric: opts.metric.clone(),
        unit: None,
        steps: Vec::new(),
        good: range.commits[0].id.clone(),
        bad: range.commits[range.last()].id.clone(),
        good_ref: opts.good.clone(),
        bad_ref: opts.bad.clone(),
        scenario: opts.scenario.clone(),
        method: match &opts.counters {
            Some(c) => format!("counters ({})", c.source.label()),
            None => "probabilistic".into(),
        },
        target_confidence: opts.confidence,
        best: None,
        runner_up: None,
        change: None,
        commits: Vec::new(),
        message: "running".into(),
        notes: range.note.iter().cloned().collect(),
        builds: Default::default(),
        seed: opts.seed,
        reproduce: pin_refs(&opts.command, &range.commits[0].id, &range.commits[range.last()].id),
        finished: false,
        elapsed_s: 0.0,
        host,
    }
}

/// Record a step (its commit id filled in), print it, and rewrite bisect.json.
fn record(outputs: &mut Outputs, range: &CommitRange, mut step: BisectStep, m: &Measurer<'_>) -> Result<(), Error> {
    step.commit = range.commits[step.index].id.clone();
    eprintln!("{}", super::output::step_line(&step, &range.commits[step.index].subject));
    outputs.file.steps.push(step);
    outputs.file.builds = m.builds.counts;
    outputs.file.unit = m.unit.clone();
    outputs.save()
}

fn search_noisy(
    opts: &BisectOptions,
    range: &CommitRange,
    m: &mut Measurer<'_>,
    outputs: &mut Outputs,
    spent: &dyn Fn() -> bool,
) -> Result<Conclusion, Error> {
    let settings = NoisySettings {
        runs: opts.runs,
        floor: opts.floor,
        confidence: opts.confidence,
        max_steps: super::default_max_steps(range.last()),
    };
    let mut search = Noisy::new(range.last(), settings);
    match search.check_ends(m)? {
        EndsCheck::NotMoved(change, why) => return Ok(Conclusion::not_moved(change, why)),
        EndsCheck::Changed(change) => outputs.file.change = Some(change),
    }
    let stop = loop {
        if spent() {
            break "the budget was spent".to_owned();
        }
        match search.step(m)? {
            Some(step) => record(outputs, range, step, m)?,
            None if search.best().0.probability >= opts.confidence => break String::new(),
            None if search.posterior().next_query().is_none() => break "every commit left to measure was skipped".into(),
            None => break format!("the search stopped after {} steps", outputs.file.steps.len()),
        }
    };
    let (best, runner_up) = search.best();
    Ok(Conclusion::searched(best, runner_up, search.posterior().probabilities(), stop))
}

fn search_exact(
    opts: &BisectOptions,
    range: &CommitRange,
    m: &mut Measurer<'_>,
    outputs: &mut Outputs,
    spent: &dyn Fn() -> bool,
) -> Result<Conclusion, Error> {
    let mut search = Exact::new(range.last(), opts.runs, opts.floor);
    match search.check_ends(m)? {
        EndsCheck::NotMoved(change, why) => return Ok(Conclusion::not_moved(change, why)),
        EndsCheck::Changed(change) => outputs.file.change = Some(change),
    }
    let mut stop = String::new();
    loop {
        if spent() {
            stop = "the budget was spent".into();
            break;
        }
        match search.step(m)? {
            Some(step) => record(outputs, range, step, m)?,
            None => break,
        }
    }
    let best: Class = search.best();
    let mut probabilities = vec![0.0; range.last() + 1];
    for p in &mut probabilities[best.first..=best.last] {
        *p = best.probability / (best.last - best.first + 1) as f64;
    }
    Ok(Conclusion::searched(best, None, probabilities, stop))
}

/// `command` with the values of `--good` and `--bad` replaced by the commits they resolved to, so
/// the line reproduces this search after the refs have moved.
fn pin_refs(command: &[String], good: &str, bad: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(command.len());
    let mut it = command.iter();
    while let Some(a) = it.next() {
        let id = match a.split_once('=').map_or(a.as_str(), |(f, _)| f) {
            "--good" => good,
            "--bad" => bad,
            _ => {
                out.push(a.clone());
                continue;
            }
        };
        let flag = a.split_once('=').map_or(a.as_str(), |(f, _)| f).to_owned();
        if !a.contains('=') {
            it.next();
        }
        out.extend([flag, id.to_owned()]);
    }
    out
}

/// Where `bisect` writes (for the CLI's final line).
pub(crate) fn files(out: &OutDir) -> [PathBuf; 3] {
    [out.file("bisect.json"), out.file("bisect.md"), out.file("index.html")]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reproduce_line_pins_both_refs_in_either_spelling() {
        let cmd: Vec<String> = ["h", "bisect", "--good", "v1", "--bad=main", "--scenario", "x", "--seed", "3"]
            .map(String::from)
            .to_vec();
        let pinned = pin_refs(&cmd, "aaa", "bbb");
        assert_eq!(
            pinned,
            ["h", "bisect", "--good", "aaa", "--bad", "bbb", "--scenario", "x", "--seed", "3"]
        );
    }
}
