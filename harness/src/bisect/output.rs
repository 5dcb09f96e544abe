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
    /// Conclude, then ask `explain_for` (given the first bad commit's id) for the functions
    /// behind the step and a no-symbols note, and write every file once with all of it.
    pub fn finish(
        mut self,
        conclusion: Conclusion,
        explain_for: impl FnOnce(&str) -> Option<(Vec<crate::model::ExplainEntry>, Option<String>)>,
    ) -> Result<BisectFile, Error> {
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
        if let Some((x, note)) = self.file.first_bad.as_deref().and_then(explain_for) {
            self.file.explain = Some(x);
            self.file.notes.extend(note);
        }
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
    if let Some(x) = &f.explain {
        let _ = writeln!(md, "\nWhere the instructions changed (self cost per call, top 5):\n");
        for line in crate::explain::markdown_lines(x, 5) {
            let _ = writeln!(md, "{line}");
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bisect::noisy::skipped_step;
    use crate::bisect::range::Commit;

    fn outputs(dir: &std::path::Path) -> Outputs {
        let range = CommitRange {
            commits: (0..5)
                .map(|i| Commit {
                    id: format!("c{i}{}", "0".repeat(38)),
                    subject: format!("commit {i}"),
                })
                .collect(),
            note: None,
        };
        let file: BisectFile = serde_json::from_value(serde_json::json!({
            "format_version": 1, "first_bad": null, "confidence": 0.0, "metric": "latency_ns", "unit": null, "steps": [],
            "good": range.commits[0].id, "bad": range.commits[4].id, "good_ref": "g", "bad_ref": "b", "scenario": "s",
            "method": "probabilistic", "target_confidence": 0.95, "best": null, "runner_up": null, "change": null,
            "commits": [], "message": "running", "notes": [], "builds": {"built": 0, "cached": 0, "failed": 0}, "seed": 1,
            "reproduce": [], "finished": false, "elapsed_s": 0.0, "host": crate::host::collect(),
        }))
        .unwrap();
        let mut o = Outputs::new(&OutDir::create(Some(dir)).unwrap(), file, &range);
        let mut absent = skipped_step(2, "scenario \"s\" is absent at c20000000000".into());
        absent.commit = range.commits[2].id.clone();
        o.file.steps.push(absent);
        o
    }

    fn class(first: usize, last: usize, probability: f64) -> Class {
        Class { first, last, probability }
    }

    /// A named commit, a class of several ("one of"), a confidence not reached, and no change:
    /// each gives its message and `first_bad` only when one commit reached the confidence; a
    /// scenario absent inside the range is said in a note.
    #[test]
    fn conclusions_name_one_commit_only_at_the_asked_confidence() {
        let dir = std::env::temp_dir().join(format!("harness-bisect-output-{}", std::process::id()));
        let probs = vec![0.0, 0.01, 0.01, 0.97, 0.01];
        let f = outputs(&dir)
            .finish(
                Conclusion::searched(class(3, 3, 0.97), Some(class(4, 4, 0.01)), probs.clone(), String::new()),
                |bad| {
                    let entry = |function: &str, delta| crate::model::ExplainEntry {
                        function: function.into(),
                        baseline: Some(100.0),
                        candidate: Some(100.0 + delta),
                        delta,
                        status: None,
                    };
                    let note = format!("no symbols for some code (stripped?) at {bad}");
                    Some((vec![entry("app::<work>", 40.0), entry("other", 0.0)], Some(note)))
                },
            )
            .unwrap();
        assert_eq!(f.first_bad.as_deref(), Some(f.commits[3].commit.as_str()));
        // The named commit's explanation reaches every file, with the no-symbols note.
        let (md, html) = (
            std::fs::read_to_string(dir.join("bisect.md")).unwrap(),
            std::fs::read_to_string(dir.join("index.html")).unwrap(),
        );
        assert!(
            md.contains("app::<work> +40 instr/call") && md.contains("no symbols for some code"),
            "{md}"
        );
        assert!(
            html.contains("Where the instructions changed") && html.contains("app::&lt;work&gt;"),
            "the chart, escaped"
        );
        assert!(html.contains("no symbols for some code"));
        let json = std::fs::read_to_string(dir.join("bisect.json")).unwrap();
        assert!(json.contains("\"explain\"") && json.contains("app::<work>"), "{json}");
        assert!(
            f.message
                .starts_with("first bad commit: c30000000000 \"commit 3\" (confidence 97.0%; runner-up"),
            "{}",
            f.message
        );
        assert!(f.notes.iter().any(|n| n.contains("absent at c20000000000")), "{:?}", f.notes);
        assert_eq!(f.commits[2].skipped.as_deref(), Some("scenario \"s\" is absent at c20000000000"));
        assert!(f.finished && dir.join("bisect.md").is_file() && dir.join("index.html").is_file());

        let f = outputs(&dir)
            .finish(Conclusion::searched(class(2, 3, 0.98), None, probs.clone(), String::new()), |_| {
                None
            })
            .unwrap();
        assert!(
            f.first_bad.is_none() && f.message.contains("one of c20000000000, c30000000000"),
            "{}",
            f.message
        );
        assert_eq!(f.best.as_ref().unwrap().commits.len(), 2);

        let f = outputs(&dir)
            .finish(
                Conclusion::searched(class(3, 3, 0.8), Some(class(4, 4, 0.15)), probs, "the budget was spent".into()),
                |_| None,
            )
            .unwrap();
        assert!(
            f.first_bad.is_none() && f.message.starts_with("no commit named at 95%: the budget was spent"),
            "{}",
            f.message
        );
        assert!(f.message.contains("runner-up c40000000000"), "{}", f.message);

        let change = RangeChange {
            ratio: 1.0,
            low: 0.99,
            high: 1.01,
            noise_floor: 0.02,
        };
        let f = outputs(&dir)
            .finish(Conclusion::not_moved(change, "no commit moved it: ...".into()), |_| None)
            .unwrap();
        assert!(f.first_bad.is_none() && f.best.is_none() && f.message.starts_with("no commit moved it"));
        let md = std::fs::read_to_string(dir.join("bisect.md")).unwrap();
        assert!(
            md.contains("**no commit moved it") && md.contains("bad/good = 1.0000 [0.9900, 1.0100]"),
            "{md}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
