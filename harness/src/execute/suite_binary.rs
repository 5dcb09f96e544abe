//! `SuiteBinary`: a binary built on this harness, re-executed as a child that speaks the
//! result-file protocol.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use super::protocol::{CHILD_ARG, ChildRecord, ChildRequest, ChildStatus, LIST_ARG, ListLine};
use super::{ProcessEnd, ProcessResult, ProcessSpec, ScenarioResult, Target, TargetRequest, run_process};
use crate::counters::{CountRequest, CounterSource, valgrind_args};
use crate::errors::Error;
use crate::model::Listed;
use crate::model::Outcome;

/// A suite binary on disk (this process's own executable, or another build).
#[derive(Debug, Clone)]
pub struct SuiteBinary {
    exe: PathBuf,
    listed: Option<Vec<Listed>>,
}

impl SuiteBinary {
    /// A suite binary at `exe`; its scenarios are listed by running it.
    pub fn new(exe: impl Into<PathBuf>) -> Self {
        SuiteBinary {
            exe: exe.into(),
            listed: None,
        }
    }

    /// This very process's binary, whose scenarios are already known in-process.
    pub fn current(listed: Vec<Listed>) -> Result<Self, Error> {
        let exe = std::env::current_exe().map_err(|e| Error::Io {
            what: "locating the current executable".into(),
            source: e,
        })?;
        Ok(SuiteBinary { exe, listed: Some(listed) })
    }

    /// The binary's path.
    pub fn path(&self) -> &std::path::Path {
        &self.exe
    }
}

impl Target for SuiteBinary {
    fn describe(&self) -> String {
        self.exe.display().to_string()
    }

    fn list(&self) -> Result<Vec<Listed>, Error> {
        if let Some(l) = &self.listed {
            return Ok(l.clone());
        }
        let out = Command::new(&self.exe).arg(LIST_ARG).output().map_err(|e| Error::Io {
            what: format!("running {} to list its scenarios", self.exe.display()),
            source: e,
        })?;
        if !out.status.success() {
            return Err(Error::NotASuite {
                path: self.exe.clone(),
                detail: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        let text = String::from_utf8_lossy(&out.stdout);
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, line)| {
                let l: ListLine = serde_json::from_str(line).map_err(|e| Error::NotASuite {
                    path: self.exe.clone(),
                    detail: format!("list line {}: {e}: {line:?}", i + 1),
                })?;
                Ok(Listed {
                    name: l.name,
                    kind: l.kind,
                    ignored: l.ignored,
                    env: l.env,
                    timeout: l.timeout_s.map(Duration::from_secs_f64),
                    uncounted: l.uncounted,
                })
            })
            .collect()
    }

    fn run(&self, req: &TargetRequest) -> io::Result<ProcessResult> {
        let result_path = req.scratch.join(format!("{}.result", req.id));
        let callgrind_out = req.scratch.join(format!("{}.callgrind", req.id));
        let request = ChildRequest {
            scenarios: req.names.clone(),
            iterations: req.iterations,
            warmup: req.warmup,
            result_path: result_path.clone(),
            gpu: req.gpu,
            counters: req.counters.as_ref().map(|source| match source {
                CounterSource::Valgrind { .. } => CountRequest::Callgrind {
                    label: source.label(),
                    out: callgrind_out.clone(),
                },
                CounterSource::Perf => CountRequest::Perf { label: source.label() },
                CounterSource::Allocs { .. } => CountRequest::Allocs,
            }),
            layout: crate::suite::allocator::layout_of(&req.id),
        };
        let child_args: Vec<OsString> = vec![
            CHILD_ARG.into(),
            serde_json::to_string(&request).expect("request serializes").into(),
        ];
        let (program, args) = match &req.counters {
            // valgrind's own messages go to the captured stderr, never to the result file.
            Some(CounterSource::Valgrind { program, .. }) => {
                let mut args = valgrind_args(&callgrind_out);
                args.push(self.exe.clone().into());
                args.extend(child_args);
                (program.clone(), args)
            }
            _ => (self.exe.clone(), child_args),
        };
        let mut env: Vec<(String, String)> = req.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        if let Some(CounterSource::Allocs { preload: Some(lib) }) = &req.counters {
            env.push(crate::allocs::source::preload_env(lib, &req.env));
        }
        let spec = ProcessSpec {
            program,
            args,
            env,
            timeout: req.timeout,
            scratch: req.scratch.clone(),
            id: req.id.clone(),
        };
        let process = run_process(&spec);
        if req.counters.is_some() {
            remove_dumps(&callgrind_out);
        }
        let process = process?;
        let text = fs::read(&result_path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        let _ = fs::remove_file(&result_path);
        let results = interpret(&req.names, &text, process.end, req.timeout);
        Ok(ProcessResult { results, process })
    }
}

/// Remove Callgrind's dumps `out`, `out.<k>` that the child did not read (its final dump at
/// exit, or all of them after a crash).
fn remove_dumps(out: &std::path::Path) {
    let (Some(dir), Some(stem)) = (out.parent(), out.file_name().and_then(|n| n.to_str())) else {
        return;
    };
    let Ok(entries) = fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name == stem || name.strip_prefix(stem).is_some_and(|rest| rest.starts_with('.')) {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// Match result lines to the requested names; the first scenario without a line takes the
/// process's ending (crash, timeout, silent exit); those after it did not run.
pub(crate) fn interpret(names: &[String], text: &str, end: ProcessEnd, timeout: Option<Duration>) -> Vec<ScenarioResult> {
    let mut results = Vec::with_capacity(names.len());
    let mut lines = text.split_inclusive('\n');
    let mut broken = false;
    for name in names {
        let outcome_and_rest = if broken {
            None
        } else {
            match lines.next() {
                // A line without its newline was cut off mid-write: the process died writing it.
                Some(line) if line.ends_with('\n') => Some(parse_line(name, line)),
                _ => None,
            }
        };
        let r = match outcome_and_rest {
            Some(Ok(rec)) => rec,
            Some(Err(detail)) => {
                broken = true;
                ScenarioResult::bare(name.clone(), Outcome::ProtocolGarbage { detail })
            }
            None if !broken => {
                broken = true;
                ScenarioResult::bare(name, end.outcome_without_result(timeout))
            }
            None => ScenarioResult::bare(name.clone(), Outcome::NotRun),
        };
        results.push(r);
    }
    results
}

fn parse_line(expected: &str, line: &str) -> Result<ScenarioResult, String> {
    let rec: ChildRecord =
        serde_json::from_str(line.trim_end()).map_err(|e| format!("unparsable result line ({e}): {:?}", truncate(line, 200)))?;
    if rec.name != expected {
        return Err(format!(
            "result line for {:?} where {:?} was expected",
            truncate(&rec.name, 200),
            expected
        ));
    }
    let outcome = match rec.status {
        ChildStatus::Passed => Outcome::Passed,
        ChildStatus::Failed { message } => Outcome::Failed { message },
        ChildStatus::Skipped { reason } => Outcome::Skipped { reason },
    };
    Ok(ScenarioResult {
        name: rec.name,
        outcome,
        metrics: rec.metrics,
        env_changes: rec.env_changes,
    })
}

fn truncate(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn crash_after_first_result_blames_the_second_and_skips_the_rest() {
        let text = "{\"name\":\"a\",\"status\":\"passed\"}\n";
        let r = interpret(&names(&["a", "b", "c"]), text, ProcessEnd::Signaled(11), None);
        assert_eq!(r[0].outcome, Outcome::Passed);
        assert_eq!(
            r[1].outcome,
            Outcome::Crashed {
                signal: "SIGSEGV".into(),
                signal_number: 11
            }
        );
        assert_eq!(r[2].outcome, Outcome::NotRun);
    }

    #[test]
    fn garbage_and_truncated_lines_are_not_results() {
        let r = interpret(&names(&["a"]), "hello\n", ProcessEnd::Exited(0), None);
        assert!(matches!(r[0].outcome, Outcome::ProtocolGarbage { .. }));
        let r = interpret(&names(&["a"]), "{\"name\":\"a\",\"status\":\"pas", ProcessEnd::Signaled(9), None);
        assert!(matches!(r[0].outcome, Outcome::Crashed { .. }));
        let r = interpret(
            &names(&["a"]),
            "{\"name\":\"b\",\"status\":\"passed\"}\n",
            ProcessEnd::Exited(0),
            None,
        );
        assert!(matches!(r[0].outcome, Outcome::ProtocolGarbage { .. }));
    }

    #[test]
    fn silent_exit_is_no_result() {
        let r = interpret(&names(&["a"]), "", ProcessEnd::Exited(0), None);
        assert_eq!(r[0].outcome, Outcome::NoResult { exit_code: 0 });
    }
}
