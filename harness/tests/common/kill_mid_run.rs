//! Start a harness command writing `<out>/results.jsonl`, wait until `runs` records are on disk,
//! then kill it without warning (SIGKILL): the crash-safety and `--resume` tests start here.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Run `cmd` (its output discarded) until `jsonl` holds `runs` lines, then SIGKILL it.
pub fn kill_after_runs(cmd: &mut Command, jsonl: &Path, runs: usize) {
    let mut child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::fs::read_to_string(jsonl).map_or(0, |s| s.lines().count()) < runs {
        assert!(Instant::now() < deadline, "no {runs} runs written in 30 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
}
