//! `LibtestBinary`: an ordinary `#[test]` binary driven through libtest's own CLI.
//!
//! Listing uses `--list --format terse`. Runs use `--exact NAME... --test-threads=1` with
//! libtest's JSON event stream (`-Z unstable-options --format json`, allowed on a stable
//! toolchain when `RUSTC_BOOTSTRAP=1` is in the test binary's environment at run time), so each
//! test's outcome and the order they actually ran in are read from structured events.

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;
use std::process::Command;

use serde::Deserialize;

use super::{ProcessEnd, ProcessResult, ProcessSpec, ScenarioResult, Target, TargetRequest, run_process_whole};
use crate::errors::Error;
use crate::model::Listed;
use crate::model::{Outcome, ScenarioKind};

/// A libtest test binary (e.g. `target/debug/deps/foo-<hash>`).
#[derive(Debug, Clone)]
pub struct LibtestBinary {
    exe: PathBuf,
    /// If set, runs pass `--shuffle-seed` so libtest itself permutes the selected tests.
    pub shuffle_seed: Option<u64>,
}

impl LibtestBinary {
    /// The test binary at `exe`.
    pub fn new(exe: impl Into<PathBuf>) -> Self {
        LibtestBinary {
            exe: exe.into(),
            shuffle_seed: None,
        }
    }

    fn list_names(&self, ignored_only: bool) -> Result<Vec<String>, Error> {
        let mut cmd = Command::new(&self.exe);
        cmd.args(["--list", "--format", "terse"]);
        if ignored_only {
            cmd.arg("--ignored");
        }
        let out = cmd.output().map_err(|e| Error::Io {
            what: format!("running {} --list", self.exe.display()),
            source: e,
        })?;
        if !out.status.success() {
            return Err(Error::NotATestBinary {
                path: self.exe.clone(),
                detail: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        parse_terse_list(&self.exe, &String::from_utf8_lossy(&out.stdout))
    }
}

/// Parse `name: test` lines; benches are skipped, anything else is an error quoting the line.
pub(crate) fn parse_terse_list(exe: &std::path::Path, text: &str) -> Result<Vec<String>, Error> {
    let mut names = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if let Some(name) = line.strip_suffix(": test") {
            names.push(name.to_owned());
        } else if line.ends_with(": bench") {
            continue;
        } else {
            return Err(Error::NotATestBinary {
                path: exe.to_owned(),
                detail: format!("--list line {} did not end with \": test\" or \": bench\": {line:?}", i + 1),
            });
        }
    }
    Ok(names)
}

#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type")]
    ty: String,
    event: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    stdout: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

impl Target for LibtestBinary {
    fn describe(&self) -> String {
        self.exe.display().to_string()
    }

    fn list(&self) -> Result<Vec<Listed>, Error> {
        let all = self.list_names(false)?;
        let ignored: std::collections::HashSet<String> = self.list_names(true)?.into_iter().collect();
        Ok(all
            .into_iter()
            .map(|name| Listed {
                ignored: ignored.contains(&name).then(|| "#[ignore]".to_owned()),
                name,
                kind: ScenarioKind::Test,
                env: BTreeMap::new(),
                timeout: None,
                uncounted: None,
            })
            .collect())
    }

    fn run(&self, req: &TargetRequest) -> io::Result<ProcessResult> {
        let mut args: Vec<std::ffi::OsString> = vec![
            "--exact".into(),
            "--test-threads=1".into(),
            "-Zunstable-options".into(),
            "--format=json".into(),
        ];
        if let Some(seed) = self.shuffle_seed {
            args.push(format!("--shuffle-seed={seed}").into());
        }
        // Ignored tests named explicitly still run: the caller chose them.
        args.push("--include-ignored".into());
        args.extend(req.names.iter().map(Into::into));
        let mut env: Vec<(String, String)> = req.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        env.push(("RUSTC_BOOTSTRAP".into(), "1".into()));
        let spec = ProcessSpec {
            program: self.exe.clone(),
            args,
            env,
            timeout: req.timeout,
            scratch: req.scratch.clone(),
            id: req.id.clone(),
        };
        // The whole event stream is read: a shared process of a few hundred tests writes more
        // than the head and tail the kept stdout holds, and a test missing from it would read
        // as not run.
        let (process, stdout) = run_process_whole(&spec)?;
        let results = interpret_events(&req.names, &stdout, process.end, req.timeout);
        Ok(ProcessResult { results, process })
    }

    fn honours_order(&self) -> bool {
        false
    }
}

/// Turn libtest's JSON events into results in execution order. A test that started but never
/// finished takes the process's ending; requested tests that never started are `NotRun`.
pub(crate) fn interpret_events(
    names: &[String],
    stdout: &str,
    end: ProcessEnd,
    timeout: Option<std::time::Duration>,
) -> Vec<ScenarioResult> {
    let mut results: Vec<ScenarioResult> = Vec::new();
    let mut open: Option<String> = None;
    for line in stdout.lines() {
        let Ok(ev) = serde_json::from_str::<Event>(line) else {
            continue;
        };
        if ev.ty != "test" {
            continue;
        }
        let Some(name) = ev.name else { continue };
        let outcome = match ev.event.as_str() {
            "started" => {
                open = Some(name);
                continue;
            }
            "ok" => Outcome::Passed,
            "failed" => Outcome::Failed {
                message: ev.message.or(ev.stdout).unwrap_or_default(),
            },
            "ignored" => Outcome::Skipped { reason: "ignored".into() },
            "timeout" => continue,
            _ => continue,
        };
        if open.as_deref() == Some(name.as_str()) {
            open = None;
        }
        results.push(ScenarioResult::bare(name, outcome));
    }
    if let Some(name) = open {
        results.push(ScenarioResult::bare(name, end.outcome_without_result(timeout)));
    }
    let seen: std::collections::HashSet<String> = results.iter().map(|r| r.name.clone()).collect();
    for n in names {
        if !seen.contains(n) {
            results.push(ScenarioResult::bare(n.clone(), Outcome::NotRun));
        }
    }
    results
}
