//! `Outputs`: bisect.json (rewritten after every step, `finished: false` until the end), and at
//! the end the conclusion ([`Conclusion`]: first bad commit, confidence, runner-up, message),
//! bisect.md and index.html ([`super::html`]). The terminal lines are here too.

use std::fmt::Write;

use super::posterior::Class;
use super::range::CommitRange;
use crate::errors::Error;
use crate::model::{BisectFile, BisectStep, Candidate, RangeChange, RangeCommit, StepVerdict};
use crate::report::{OutDir, write_atomic, write_json};

/// How a search ended.
#[derive(Debug, Clone)]
pub(crate) enum Conclusion {
    /// The ends did not differ: nothing to search.
    NotMoved { change: RangeChange, why: String },
    /// The search ran: the best class, the runner-up, each commit's probability, and why it
    /// stopped if not by reaching the confidence (empty otherwise).
    Searched {
        best: Class,
        runner_up: Option<Class>,
        probabilities: Vec<f64>,
        stop: String,
    },
}

impl Conclusion {
    pub fn not_moved(change: RangeChange, why: String) -> Conclusion {
        Conclusion::NotMoved { change, why }
    }
    pub fn searched(best: Class, runner_up: Option<Class>, probabilities: Vec<f64>, stop: String) -> Conclusion {
        Conclusion::Searched {
            best,
            runner_up,
            probabilities,
            stop,
        }
    }
}

/// The files of one bisect.
pub(crate) struct Outputs {
    dir: std::path::PathBuf,
    pub file: BisectFile,
    range: CommitRange,
}

fn short(id: &str) -> &str {
    &id[..id.len().min(12)]
}

impl Outputs {
    pub fn new(out: &OutDir, file: BisectFile, range: &CommitRange) -> Outputs {
        Outputs {
            dir: out.path().to_owned(),
            file,
            range: range.clone(),
        }
    }

    /// Rewrite bisect.json as it stands.
    pub fn save(&self) -> Result<(), Error> {
        write_json(&self.dir.join("bisect.json"), &self.file)
    }

    fn candidate(&self, c: Class) -> Candidate {
        Candidate {
            commit: self.range.commits[c.last].id.clone(),
            commits: self.range.commits[c.first..=c.last].iter().map(|c| c.id.clone()).collect(),
            probability: c.probability,
        }
    }

    /// Fill in the conclusion and write every file; the final bisect.json.
    pub fn finish(mut self, conclusion: Conclusion) -> Result<BisectFile, Error> {
        let skipped = |i: usize| {
            self.file
                .steps
                .iter()
                .rev()
                .find(|s| s.index == i && s.verdict == StepVerdict::Skipped)
                .and_then(|s| s.note.clone())
        };
        let probabilities = match &conclusion {
            Conclusion::Searched { probabilities, .. } => probabilities.clone(),
            Conclusion::NotMoved { .. } => vec![0.0; self.range.commits.len()],
        };
        self.file.commits = (0..self.range.commits.len())
            .map(|i| RangeCommit {
                index: i,
                commit: self.range.commits[i].id.clone(),
                subject: self.range.commits[i].subject.clone(),
                probability: probabilities[i],
                skipped: skipped(i),
            })
            .collect();
        self.conclude(conclusion);
        self.file.finished = true;
        self.save()?;
        write_atomic(&self.dir.join("bisect.md"), markdown(&self.file).as_bytes())?;
        write_atomic(&self.dir.join("index.html"), super::html::render(&self.file).as_bytes())?;
        Ok(self.file)
    }

    fn conclude(&mut self, conclusion: Conclusion) {
        let target = self.file.target_confidence;
        let absent: Vec<String> = self
            .file
            .commits
            .iter()
            .filter(|c| c.skipped.as_deref().is_some_and(|s| s.contains("is absent")))
            .map(|c| short(&c.commit).to_owned())
            .collect();
        if !absent.is_empty() {
            self.file.notes.push(format!(
                "the scenario is absent at {} inside the range (it disappears and comes back): skipped like commits that do not build",
                absent.join(", ")
            ));
        }
        let (best, runner_up, stop) = match conclusion {
            Conclusion::NotMoved { change, why } => {
                self.file.change = Some(change);
                self.file.message = why;
                return;
            }
            Conclusion::Searched { best, runner_up, stop, .. } => (best, runner_up, stop),
        };
        self.file.confidence = best.probability;
        self.file.best = Some(self.candidate(best));
        self.file.runner_up = runner_up.map(|c| self.candidate(c));
        let name = |c: Class| {
            let commit = &self.range.commits[c.last];
            format!("{} {:?}", short(&commit.id), commit.subject)
        };
        let runner = runner_up.map_or(String::new(), |r| {
            format!("; runner-up {} at {:.1}%", name(r), 100.0 * r.probability)
        });
        self.file.message = if best.probability >= target && best.first == best.last {
            self.file.first_bad = Some(self.range.commits[best.last].id.clone());
            format!(
                "first bad commit: {} (confidence {:.1}%{runner})",
                name(best),
                100.0 * best.probability
            )
        } else if best.probability >= target {
            let ids: Vec<&str> = (best.first..=best.last).map(|i| short(&self.range.commits[i].id)).collect();
            format!(
                "the first bad commit is one of {} ({:.1}%): the ones before the last could not be measured",
                ids.join(", "),
                100.0 * best.probability
            )
        } else {
            format!(
                "no commit named at {:.0}%: {stop}; likeliest {} at {:.1}%{runner}",
                100.0 * target,
                name(best),
                100.0 * best.probability
            )
        };
    }
}

/// One terminal line per step.
pub(crate) fn step_line(s: &BisectStep, subject: &str) -> String {
    let what = match s.verdict {
        StepVerdict::Skipped => format!("skipped: {}", s.note.as_deref().unwrap_or("")),
        v => format!(
            "{} (moved {}, P {}), value {}",
            if v == StepVerdict::Bad { "bad" } else { "good" },
            s.moved.map_or("?".into(), |m| format!("{m:.2}")),
            s.verdict_probability.map_or("?".into(), |p| format!("{p:.3}")),
            value(s)
        ),
    };
    format!("bisect: {} {subject:?}: {what}", short(&s.commit))
}

fn value(s: &BisectStep) -> String {
    match (s.value, s.interval) {
        (Some(v), Some([lo, hi])) if lo != hi => format!("{v:.4} [{lo:.4}, {hi:.4}]"),
        (Some(v), _) => format!("{v:.4}"),
        _ => "-".into(),
    }
}

/// `|` and line breaks would break a table row; backticks a code span.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r'], " ").replace('`', "'")
}

/// bisect.md: the conclusion, the range, the steps, the skipped commits, the reproduce line.
pub(crate) fn markdown(f: &BisectFile) -> String {
    let mut md = format!("## bisect: `{}` {}\n\n", cell(&f.scenario), cell(&f.metric));
    let _ = writeln!(md, "**{}**\n", cell(&f.message));
    let _ = writeln!(
        md,
        "Range: good `{}` ({}) to bad `{}` ({}), {} commits; method: {}.",
        short(&f.good),
        cell(&f.good_ref),
        short(&f.bad),
        cell(&f.bad_ref),
        f.commits.len().saturating_sub(1),
        f.method
    );
    if let Some(c) = &f.change {
        let _ = writeln!(
            md,
            "bad/good = {:.4} [{:.4}, {:.4}]; noise floor +-{:.2}%.",
            c.ratio,
            c.low,
            c.high,
            c.noise_floor * 100.0
        );
    }
    md.push_str(
        "\n| step | commit | subject | value [95%] | ratio to good | moved | verdict | P(verdict) |\n|---|---|---|---|---|---|---|---|\n",
    );
    for (i, s) in f.steps.iter().enumerate() {
        let subject = f.commits.get(s.index).map_or("", |c| c.subject.as_str());
        let _ = writeln!(
            md,
            "| {} | `{}` | {} | {} | {} | {} | {} | {} |",
            i + 1,
            short(&s.commit),
            cell(subject),
            value(s),
            s.ratio_to_good.map_or("-".into(), |r| format!("{r:.4}")),
            s.moved.map_or("-".into(), |m| format!("{m:.2}")),
            match s.verdict {
                StepVerdict::Skipped => format!("skipped: {}", cell(s.note.as_deref().unwrap_or(""))),
                v => format!("{v:?}").to_lowercase(),
            },
            s.verdict_probability.map_or("-".into(), |p| format!("{p:.3}"))
        );
    }
    for n in &f.notes {
        let _ = writeln!(md, "\nNote: {}", cell(n));
    }
    let _ = writeln!(
        md,
        "\nBuilds: {} built, {} from the cache, {} failed. Reproduce:\n\n```sh\n{}\n```",
        f.builds.built,
        f.builds.cached,
        f.builds.failed,
        crate::reproduce::shell_line(&f.reproduce)
    );
    md
}
