//! The criterion fixture crate (tests/fixtures/criterion_bench, switched to harness-criterion by
//! its dependency line alone) under `cargo test --benches`, `cargo bench`, bad input and
//! `--counters=valgrind`, and `--allocs` with no setup.
//!
//! The fixture builds into `<target>/tmp/fixture-bench`, the directory harness's own
//! cargo_bench test builds its fixture in, so harness and its dependencies are built once for
//! both. A `harness = false` target (libtest-mimic): without valgrind the counters test shows as
//! `ignored` with the reason, and fails instead when `HARNESS_REQUIRE_VALGRIND=1`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use serde_json::Value;

/// Every benchmark the fixture declares, by criterion id.
const NAMES: [&str; 23] = [
    "allocs/vec_4096",
    "configured/helper",
    "fib 20",
    "fib/30",
    "hostile/<script>alert(1)</script> & \"q\" ../..\\x",
    "input/len",
    "listed/before_the_panic",
    "loops/iter",
    "loops/iter_batched/large",
    "loops/iter_batched/num_batches",
    "loops/iter_batched/num_iterations",
    "loops/iter_batched/per_iteration",
    "loops/iter_batched/small",
    "loops/iter_batched_ref",
    "loops/iter_custom",
    "loops/iter_with_large_drop",
    "loops/iter_with_setup",
    "loops/to_async",
    "sum/256",
    "sum/4096",
    "sum/decimal",
    "sum/elements/256",
    "sum/elements/4096",
];

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/criterion_bench")
}

/// `cargo ARGS` in the fixture, as its user would type it there.
/// `cargo bench` of the `criterion_api` bench, dev profile, with `flags` after `--`.
fn bench_api(flags: &[&str]) -> Output {
    let args = ["bench", "-q", "--offline", "--profile", "dev", "--bench", "criterion_api", "--"];
    cargo(&[&args[..], flags].concat(), &[])
}

fn cargo(args: &[&str], envs: &[(&str, &str)]) -> Output {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(args)
        .current_dir(fixture())
        .env("CARGO_TARGET_DIR", Path::new(env!("CARGO_TARGET_TMPDIR")).join("fixture-bench"))
        // When nextest runs this test, its variables must not reach the fixture's processes.
        .env_remove("NEXTEST")
        .env_remove("NEXTEST_RUN_ID")
        // `--allocs` must count with no setup: no preload named from outside.
        .env_remove("HARNESS_INTERPOSE_LIB")
        .env_remove("CRITERION_FIXTURE_BAD")
        .env_remove("CRITERION_FIXTURE_DUPLICATE");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `cargo bench --profile dev --bench criterion_api -- ARGS --out DIR`: exit code, results.json,
/// the run directory, and the output. The dev profile reuses `cargo test`'s build.
fn bench(args: &[&str], envs: &[(&str, &str)]) -> (Option<i32>, Value, tempfile::TempDir, String) {
    let out = tempfile::tempdir().unwrap();
    let mut all = vec!["bench", "--offline", "--profile", "dev", "--bench", "criterion_api", "--"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--out", out.path().to_str().unwrap()]);
    let o = cargo(&all, envs);
    let results = std::fs::read_to_string(out.path().join("results.json"))
        .map(|s| serde_json::from_str(&s).unwrap())
        .unwrap_or(Value::Null);
    (o.status.code(), results, out, text(&o))
}

/// The line of the fixture's bench file that contains `needle`.
fn line_of(needle: &str) -> usize {
    let src = std::fs::read_to_string(fixture().join("benches/criterion_api.rs")).unwrap();
    src.lines().position(|l| l.contains(needle)).unwrap() + 1
}

fn runs_of<'a>(results: &'a Value, name: &str) -> Vec<&'a Value> {
    results["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["scenario"] == name)
        .collect()
}

fn metric<'a>(run: &'a Value, name: &str) -> Option<&'a Value> {
    run["metrics"].as_array()?.iter().find(|m| m["name"] == name)
}

fn check(cond: bool, what: impl FnOnce() -> String) -> Result<(), Failed> {
    if cond { Ok(()) } else { Err(what().into()) }
}

/// `cargo test --benches`: every benchmark runs once as a libtest test; the empty-group file
/// has none and says why.
fn cargo_test_runs_each_benchmark_once() -> Result<(), Failed> {
    let o = cargo(&["test", "--benches", "--offline"], &[]);
    let out = text(&o);
    check(o.status.code() == Some(0), || out.clone())?;
    let stdout = String::from_utf8_lossy(&o.stdout);
    for name in NAMES {
        let lines: Vec<&str> = stdout
            .lines()
            .filter(|l| l.strip_prefix("test ").and_then(|r| r.split(" ... ").next()).map(str::trim) == Some(name))
            .collect();
        check(lines.len() == 1 && lines[0].ends_with("... ok"), || {
            format!("{name}: {lines:?}\n{out}")
        })?;
    }
    check(stdout.contains("test result: ok. 23 passed; 0 failed;"), || out.clone())?;
    check(out.contains("benchmark group \"empty\" has no benchmarks"), || out.clone())
}

/// `cargo bench`: every benchmark a measurement under its criterion id, with a 95% interval, and
/// the declared throughput as a rate that agrees with the latency.
fn cargo_bench_reports_names_rates_and_intervals() -> Result<(), Failed> {
    // criterion 0.5's listing: `NAME: benchmark` on stdout, one line each; the count on stderr.
    let o = bench_api(&["--list"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    let listed: Vec<&str> = stdout.lines().filter_map(|l| l.strip_suffix(": benchmark")).collect();
    check(
        o.status.success() && listed.len() == NAMES.len() && stdout.lines().count() == NAMES.len(),
        || text(&o),
    )?;
    check(
        String::from_utf8_lossy(&o.stderr).contains(&format!("{} benchmarks", NAMES.len())),
        || text(&o),
    )?;
    // A criterion flag without an equivalent: refused naming it and ours, exit 2, nothing run.
    let o = bench_api(&["--save-baseline", "main"]);
    let out = text(&o);
    check(
        out.contains("exit status: 2") && out.contains("--save-baseline") && out.contains("--history FILE"),
        || out.clone(),
    )?;
    check(!out.contains("similar argument") && !out.contains("suite-bin"), || out.clone())?;
    // Built without the harness's `history` feature: --history is refused before anything runs,
    // naming the feature and the CLI that has it.
    let o = bench_api(&["--history", "h.db"]);
    let out = text(&o);
    check(
        out.contains("exit status: 2") && out.contains("feature `history`") && out.contains("harness run --suite-bin"),
        || out.clone(),
    )?;
    check(!fixture().join("h.db").exists(), || "h.db was created".into())?;
    let (code, results, dir, out) = bench(&["--repeat", "3", "--iterations", "3"], &[]);
    check(code == Some(0), || out.clone())?;
    let summaries = results["summaries"].as_array().unwrap();
    let mut names: Vec<&str> = summaries.iter().map(|s| s["scenario"].as_str().unwrap()).collect();
    names.sort();
    check(names == NAMES, || format!("{names:?}"))?;
    for s in summaries {
        let latency = s["metrics"].as_array().unwrap().iter().find(|m| m["metric"] == "latency_ns");
        let ci = latency.map(|m| (&m["ci"]["low"], &m["center_value"], &m["ci"]["high"], &m["ci"]["level"]));
        let ok = ci.is_some_and(|(lo, c, hi, level)| {
            lo.as_f64() <= c.as_f64() && c.as_f64() <= hi.as_f64() && lo.as_f64() > Some(0.0) && level.as_f64() == Some(0.95)
        });
        check(ok && s["counts"]["passed"] == 3, || format!("no interval around latency: {s}"))?;
    }
    // Rates: work over the process's mean latency, in the unit each criterion variant maps to.
    let rates = [
        ("sum/elements/256", "melem_per_s", "Melem/s", 256.0 * 1e3),
        ("sum/elements/4096", "melem_per_s", "Melem/s", 4096.0 * 1e3),
        ("sum/256", "gbytes_per_s", "GB/s", 8.0 * 256.0),
        ("sum/4096", "gbytes_per_s", "GB/s", 8.0 * 4096.0),
        ("sum/decimal", "gbytes_per_s", "GB/s", 1000.0),
    ];
    for (name, rate, unit, work) in rates {
        for run in runs_of(&results, name) {
            let (r, l) = (metric(run, rate), metric(run, "latency_ns"));
            let agrees = r.zip(l).is_some_and(|(r, l)| {
                r["unit"] == unit
                    && r["better"] == "higher"
                    && (r["value"].as_f64().unwrap() - work / l["value"].as_f64().unwrap()).abs() < 1e-9 * work
            });
            check(agrees, || format!("{name}: {rate} in {unit} should be {work} / latency: {run}"))?;
        }
    }
    check(metric(runs_of(&results, "fib 20")[0], "gbytes_per_s").is_none(), || {
        "a rate without throughput".into()
    })?;
    let html = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    check(
        html.contains("hostile/&lt;script&gt;alert(1)&lt;/script&gt;") && !html.contains("<script>alert(1)"),
        || "the hostile name is not escaped in index.html".into(),
    )?;
    // Built without the harness's `junit` feature: the results and the report, no junit.xml.
    check(
        dir.path().join("results.csv").exists() && !dir.path().join("junit.xml").exists(),
        || "a lean bench binary wrote junit.xml, or no results.csv".into(),
    )?;
    // A mistyped flag: clap's error names it and gives the usage line, without the CLI's
    // "a similar argument exists" tip (clap's `suggestions`, left out of a lean build).
    let o = bench_api(&["--repeats", "3"]);
    let out = text(&o);
    check(
        out.contains("exit status: 2") && out.contains("unexpected argument '--repeats'") && out.contains("Usage:"),
        || out.clone(),
    )?;
    check(!out.contains("similar argument"), || out.clone())?;
    // Built without clap's help rendering: `--help` prints the kept text (the CLI's rendering,
    // held to it by harness's tests) under the binary's own name.
    let o = bench_api(&["--help"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    check(
        o.status.success()
            && stdout.contains("Usage: criterion_api-")
            && stdout.contains("criterion's flags:")
            && stdout.contains("--sample-size <N>")
            && !stdout.contains("{bin}"),
        || text(&o),
    )
}

/// A panicking benchmark, a parameter-only top-level id, a group function that panics while
/// listed, an empty group and a duplicate id: each a failed result or a clear error.
/// The failure message of `name`'s one run, which must have failed.
fn message_of(results: &Value, name: &str) -> Result<String, Failed> {
    let runs = runs_of(results, name);
    check(runs.len() == 1 && runs[0]["outcome"]["status"] == "failed", || {
        format!("{name}: {runs:?}")
    })?;
    Ok(runs[0]["outcome"]["message"].as_str().unwrap().to_owned())
}

fn bad_input_is_a_result_or_a_clear_error() -> Result<(), Failed> {
    let bad = [("CRITERION_FIXTURE_BAD", "1")];
    let args = ["--repeat", "1", "--iterations", "1", "--warmup", "0", "--exact"];
    let names = [
        "7",
        "bad/panics",
        "bad/input_too_big",
        "settings",
        "listed/before_the_panic",
        "configured/helper",
    ];
    let (code, results, _dir, out) = bench(&[&args[..], &names[..]].concat(), &bad);
    check(code == Some(1), || out.clone())?;
    let message = |name: &str| message_of(&results, name);
    let m = message("7")?;
    let at = format!("benches/criterion_api.rs:{}", line_of("from_parameter(7)"));
    check(m.contains("BenchmarkId::from_parameter") && m.contains(&at), || m.clone())?;
    let m = message("bad/panics")?;
    check(m.contains("planted panic in a benchmark"), || m.clone())?;
    // The failed allocation ends the benchmark's process, not the harness: a crashed result
    // that says what failed.
    let runs = runs_of(&results, "bad/input_too_big");
    check(runs.len() == 1 && runs[0]["outcome"]["status"] == "crashed", || format!("{runs:?}"))?;
    let said = format!("{}{}", runs[0]["stderr"].as_str().unwrap_or_default(), runs[0]["outcome"]);
    check(said.contains("memory allocation of") || said.contains("capacity overflow"), || {
        said.clone()
    })?;
    let m = message("settings")?;
    let at = format!("benches/criterion_api.rs:{}", line_of("planted panic in a group function"));
    check(m.contains("`settings` panicked") && m.contains(&at), || m.clone())?;
    for ok in ["listed/before_the_panic", "configured/helper"] {
        check(runs_of(&results, ok)[0]["outcome"]["status"] == "passed", || {
            format!("{ok} reached before the panic")
        })?;
    }
    check(out.contains("benchmark group \"bad/empty\" has no benchmarks"), || out.clone())?;

    // A routine that panics on its second call, in a batch of the warm-up: a failed result.
    let (code, results, _dir, out) = bench(&["--repeat", "1", "--warmup", "3", "--exact", "bad/panics_mid_batch"], &bad);
    check(code == Some(1), || out.clone())?;
    let m = message_of(&results, "bad/panics_mid_batch")?;
    check(m.contains("planted panic mid-batch"), || m.clone())?;

    // A group that panics with its group open (a missing input file): one failed result located
    // at the user's line, its message said once, not "has no benchmarks", nothing of ours.
    let (code, results, _dir, out) = bench(&["--iterations", "1", "--warmup", "0", "--exact", "inputs"], &bad);
    check(code == Some(1), || out.clone())?;
    let runs = runs_of(&results, "inputs");
    check(!runs.is_empty() && runs.iter().all(|r| r["outcome"]["status"] == "failed"), || {
        format!("{runs:?}")
    })?;
    let m = runs[0]["outcome"]["message"].as_str().unwrap_or_default();
    let at = format!("benches/criterion_api.rs:{}", line_of("expect(\"reading the planted input file\")"));
    check(m.contains("reading the planted input file") && m.contains(&at), || m.to_owned())?;
    check(!m.contains("registry.rs") && !m.contains("criterion-compat/src"), || m.to_owned())?;
    check(!out.contains("\"input\" has no benchmarks"), || out.clone())?;
    check(out.matches("reading the planted input file").count() == 1, || out.clone())?;

    // A bench file whose only group is empty: nothing to run, said so, exit 2.
    let o = cargo(&["bench", "--offline", "--profile", "dev", "--bench", "empty_group"], &[]);
    let out = text(&o);
    check(o.status.code() == Some(101) || out.contains("exit status: 2"), || out.clone())?;
    check(
        out.contains("\"empty\" has no benchmarks") && out.contains("no scenario matches"),
        || out.clone(),
    )?;

    // A command of the harness CLI, which a bench binary is built without: refused, naming it.
    let o = cargo(
        &[
            "bench",
            "--offline",
            "--profile",
            "dev",
            "--bench",
            "criterion_api",
            "--",
            "compare",
            "--baseline",
            "x",
        ],
        &[],
    );
    let out = text(&o);
    check(out.contains("exit status: 2"), || out.clone())?;
    check(
        out.contains("`compare` is a command of the harness CLI") && out.contains("run `harness compare`"),
        || out.clone(),
    )?;

    // One id twice: refused at start-up naming both of the user's lines.
    let (code, _, _, out) = bench(&["--list"], &[("CRITERION_FIXTURE_DUPLICATE", "1")]);
    let first = format!("benches/criterion_api.rs:{}", line_of("c.bench_function(\"fib 20\""));
    let second = format!(
        "benches/criterion_api.rs:{}",
        line_of("c.bench_function(\"fib 20\", |b| b.iter(|| fib(20)))")
    );
    check(code != Some(0) && out.contains("exit status: 2"), || out.clone())?;
    check(out.contains("\"fib 20\"") && out.contains(&first) && out.contains(&second), || {
        out.clone()
    })
}

/// `--counters=valgrind`: the instructions of every loop but `iter_custom`, which is skipped
/// with its reason.
fn counters_record_instructions() -> Result<(), Failed> {
    let args = [
        "--counters=valgrind",
        "--counter-processes",
        "1",
        "--counter-iterations",
        "2",
        "--repeat",
        "1",
        "--iterations",
        "2",
        "--exact",
        "loops/iter",
        "loops/iter_batched_ref",
        "loops/iter_custom",
        "sum/elements/256",
    ];
    let (code, results, _dir, out) = bench(&args, &[]);
    check(code == Some(0), || out.clone())?;
    for name in ["loops/iter", "loops/iter_batched_ref", "sum/elements/256"] {
        let counted = runs_of(&results, name).into_iter().find_map(|r| metric(r, "instructions"));
        let ok = counted
            .is_some_and(|m| m["value"].as_f64() > Some(0.0) && m["source"].as_str().is_some_and(|s| s.starts_with("valgrind-callgrind")));
        check(ok, || format!("{name}: no instructions counted: {:?}", runs_of(&results, name)))?;
    }
    let custom = runs_of(&results, "loops/iter_custom");
    let skipped = custom.iter().find(|r| r["outcome"]["status"] == "skipped");
    check(
        skipped.is_some_and(|r| r["outcome"]["reason"].as_str().unwrap().contains("iter_custom"))
            && custom.iter().any(|r| metric(r, "latency_ns").is_some()),
        || format!("iter_custom: timed once, counted never, with the reason: {custom:?}"),
    )
}

/// `cargo bench -- --allocs` in a user's crate with no setup (harness-criterion carries the
/// recorder): one zeroed 4096-byte vector a call is exactly 1 allocation, 1 deallocation, 4096
/// bytes, nothing leaked; `iter_custom` is timed and not counted, with the reason, never 0.
fn allocs_count_a_4096_byte_vec_exactly() -> Result<(), Failed> {
    let args = [
        "--allocs",
        "--counter-processes",
        "2",
        "--repeat",
        "1",
        "--iterations",
        "2",
        "--exact",
        "allocs/vec_4096",
        "loops/iter_custom",
    ];
    let (code, results, _dir, out) = bench(&args, &[]);
    check(code == Some(0), || out.clone())?;
    let summary = |name: &str| {
        results["summaries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["scenario"] == name)
            .cloned()
            .unwrap_or(Value::Null)
    };
    let vec = summary("allocs/vec_4096");
    for (m, want) in [("allocations", 1), ("deallocations", 1), ("alloc_bytes", 4096), ("leaked_bytes", 0)] {
        let per_call = vec["metrics"]
            .as_array()
            .and_then(|ms| ms.iter().find(|x| x["metric"] == m))
            .map(|x| x["per_call"].clone());
        let exact = per_call
            .as_ref()
            .is_some_and(|p| p["exact"] == true && p["min"] == want && p["max"] == want);
        check(exact, || format!("{m}: want exactly {want} a call, got {per_call:?}\n{out}"))?;
    }
    check(out.contains("1 allocs/call") && out.contains("4096 bytes/call"), || out.clone())?;
    let custom = runs_of(&results, "loops/iter_custom");
    check(
        custom.iter().all(|r| metric(r, "allocations").is_none())
            && custom
                .iter()
                .any(|r| r["outcome"]["reason"].as_str().is_some_and(|s| s.contains("not counted"))),
        || format!("iter_custom: timed, not counted, with the reason: {custom:?}"),
    )
}

/// Set by CI where valgrind is installed: a missing valgrind is then a failure, not a skip.
const REQUIRE_VAR: &str = "HARNESS_REQUIRE_VALGRIND";

fn valgrind() -> bool {
    Command::new("valgrind").arg("--version").output().is_ok_and(|o| o.status.success())
}

fn main() -> std::process::ExitCode {
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
    std::fs::copy(&lock, fixture().join("Cargo.lock")).unwrap();
    let trials = vec![
        Trial::test("cargo_test_runs_each_benchmark_once", cargo_test_runs_each_benchmark_once),
        Trial::test(
            "cargo_bench_reports_names_rates_and_intervals",
            cargo_bench_reports_names_rates_and_intervals,
        ),
        Trial::test("bad_input_is_a_result_or_a_clear_error", bad_input_is_a_result_or_a_clear_error),
        Trial::test("allocs_count_a_4096_byte_vec_exactly", allocs_count_a_4096_byte_vec_exactly),
        Trial::ignorable_test("counters_record_instructions", || {
            if valgrind() {
                counters_record_instructions().map(|()| Completion::Completed)
            } else if std::env::var_os(REQUIRE_VAR).is_some_and(|v| v == "1") {
                Err(format!("{REQUIRE_VAR}=1 but valgrind is not installed (apt-get install valgrind)").into())
            } else {
                Ok(Completion::ignored_with(format!(
                    "valgrind not installed; apt-get install valgrind, {REQUIRE_VAR}=1 makes this a failure"
                )))
            }
        }),
    ];
    libtest_mimic::run(&Arguments::from_args(), trials).exit_code()
}
