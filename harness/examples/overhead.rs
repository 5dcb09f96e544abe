//! Per-process overhead of an isolated run, measured against the floor (a bare re-exec of the
//! test binary) and cargo-nextest, on the same 200 no-op tests. Run by `scripts/overhead.sh`.
//!
//! Each configuration runs `ROUNDS` times in interleaved order; per-test cost is
//! (time for 200 tests - time for 1 test) / 199, which cancels fixed start-up costs, reported as
//! a geometric mean with a 95% t-interval across rounds.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const ROUNDS: usize = 7;

fn secs(mut cmd: Command) -> f64 {
    let t = Instant::now();
    let status = cmd.stdout(Stdio::null()).stderr(Stdio::null()).status().expect("command runs");
    assert!(status.success(), "{cmd:?} failed");
    t.elapsed().as_secs_f64()
}

fn libtest_names(bin: &Path) -> Vec<String> {
    let out = Command::new(bin).args(["--list", "--format", "terse"]).output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .map(String::from)
        .collect()
}

/// Each configuration: a function from "how many tests" to seconds.
type Config = (&'static str, Box<dyn Fn(usize) -> f64>);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (noop_suite, noop_libtest, harness_bin) = (PathBuf::from(&args[1]), PathBuf::from(&args[2]), PathBuf::from(&args[3]));
    let nextest_dir = args.get(4).cloned();
    let names = libtest_names(&noop_libtest);
    assert_eq!(names.len(), 200);
    let out = std::env::temp_dir().join(format!("overhead-{}", std::process::id()));

    let mut configs: Vec<Config> = Vec::new();
    {
        let (bin, names) = (noop_libtest.clone(), names.clone());
        configs.push((
            "bare re-exec of the test binary (--exact, serial)",
            Box::new(move |n| {
                let t = Instant::now();
                for name in &names[..n] {
                    let s = Command::new(&bin)
                        .args(["--exact", name, "--test-threads=1"])
                        .stdout(Stdio::null())
                        .status()
                        .unwrap();
                    assert!(s.success());
                }
                t.elapsed().as_secs_f64()
            }),
        ));
    }
    for threads in ["1", "2"] {
        let (bin, out) = (noop_suite.clone(), out.clone());
        let label: &'static str = if threads == "1" {
            "harness suite run (serial)"
        } else {
            "harness suite run (2 workers)"
        };
        configs.push((
            label,
            Box::new(move |n| {
                let mut c = Command::new(&bin);
                c.args(["--test-threads", threads, "--seed", "1", "--out"]).arg(&out);
                if n == 1 {
                    c.args(["--exact", "noop/000"]);
                }
                secs(c)
            }),
        ));
    }
    {
        let (bin, lt, out) = (harness_bin.clone(), noop_libtest.clone(), out.clone());
        configs.push((
            "harness run --test-bin (libtest binary, serial)",
            Box::new(move |n| {
                let mut c = Command::new(&bin);
                c.args(["run", "--test-threads", "1", "--seed", "1", "--test-bin"])
                    .arg(&lt)
                    .arg("--out")
                    .arg(&out);
                if n == 1 {
                    c.args(["--exact", "a00::t0"]);
                }
                secs(c)
            }),
        ));
    }
    if let Some(dir) = nextest_dir {
        configs.push((
            "cargo nextest run -j1",
            Box::new(move |n| {
                let mut c = Command::new("cargo");
                c.current_dir(&dir).args([
                    "nextest",
                    "run",
                    "--release",
                    "-p",
                    "harness",
                    "--test",
                    "noop_libtest",
                    "-j1",
                    "--no-fail-fast",
                ]);
                if n == 1 {
                    c.args(["--", "--exact", "a00::t0"]);
                }
                secs(c)
            }),
        ));
    }

    let mut per_test: Vec<Vec<f64>> = vec![Vec::new(); configs.len()];
    for _ in 0..ROUNDS {
        for (i, (_, f)) in configs.iter().enumerate() {
            let many = f(200);
            let one = f(1);
            per_test[i].push((many - one) / 199.0 * 1e3);
        }
    }
    println!("per-test overhead, ms (geometric mean and 95% CI over {ROUNDS} interleaved rounds; (t200 - t1) / 199):");
    for ((label, _), v) in configs.iter().zip(&per_test) {
        let s = harness::stats::summarize(v, None, true, 0.95).unwrap();
        let ci = s.ci.as_ref().map_or(String::new(), |c| format!("[{:.3}, {:.3}]", c.low, c.high));
        println!("  {label:<50} {:.3} ms {ci}", s.center_value);
    }
    let _ = std::fs::remove_dir_all(out);
}
