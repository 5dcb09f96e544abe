//! Fixture suite with known behaviour, for the harness's own tests: every way a child can end,
//! env-matrix variants, an order log, a two-level process, and a measurement that counts its
//! routine's calls.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use harness::{Scenario, Unit};

/// Append `line` to the file named by `var`, if set.
fn log_to(var: &str, line: &str) {
    if let Some(path) = std::env::var_os(var) {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("log file opens");
        f.write_all(format!("{line}\n").as_bytes()).expect("log line written");
    }
}

// Diverging checks are plain fns returning (), as users would write them.
fn panics() {
    panic!("planted panic")
}
fn aborts() {
    std::process::abort()
}
fn exits_silently() {
    std::process::exit(0)
}
fn skips() {
    harness::skip("no CUDA driver")
}

harness::scenario!(Scenario::check("outcomes/passes", || ()));
harness::scenario!(Scenario::check("outcomes/returns_err", || Err::<(), _>("planted error")));
harness::scenario!(Scenario::check("outcomes/panics", panics));
harness::scenario!(Scenario::check("outcomes/aborts", aborts));
harness::scenario!(Scenario::check("outcomes/segfaults", || {
    // A store to an unmapped, non-null address: a real SIGSEGV, not a raised signal.
    unsafe { (16usize as *mut u8).write_volatile(1) };
}));
harness::scenario!(Scenario::check("outcomes/hangs", || std::thread::sleep(Duration::from_secs(600))).timeout(Duration::from_millis(500)));
harness::scenario!(Scenario::check("outcomes/garbage_stdout", || {
    // Output that would fool a harness scraping libtest's human output.
    let mut out = std::io::stdout();
    out.write_all(b"\x00\xff\xfe garbage {\"name\":\"x\"}\ntest result: FAILED. 0 passed; 1 failed\n")
        .unwrap();
}));
harness::scenario!(Scenario::check("outcomes/exits_silently", exits_silently));
harness::scenario!(Scenario::check("outcomes/corrupts_result_channel", || {
    // Writes into the result file the parent gave this child (argv[2] holds the request).
    let request: serde_json::Value = serde_json::from_str(&std::env::args().nth(2).unwrap()).unwrap();
    let path = request["result_path"].as_str().unwrap().to_owned();
    std::fs::write(path, b"\x07not json at all\n").unwrap();
}));
harness::scenario!(Scenario::check("outcomes/skips", skips));

// Each variant's process records the value of FIXTURE_MODE it started with.
harness::scenario!(
    Scenario::measure("env/sees_own_mode", |b| {
        let mode = std::env::var("FIXTURE_MODE").unwrap_or_default();
        b.record("mode", Unit::Count, mode.parse().unwrap_or(-1.0));
        log_to("FIXTURE_ENV_LOG", &format!("{mode} {}", std::process::id()));
    })
    .env("FIXTURE_MODE", ["1", "2", "3"])
);

harness::scenarios!(|| (0..6)
    .map(|i| Scenario::check(format!("order/s{i}"), move || log_to("FIXTURE_ORDER_LOG", &format!("order/s{i}"))))
    .collect::<Vec<_>>());

// Slow checks, for killing the harness mid-run.
harness::scenarios!(|| (0..4)
    .map(|i| Scenario::check(format!("slow/s{i}"), || std::thread::sleep(Duration::from_millis(150))))
    .collect::<Vec<_>>());

// A process settles on one of two levels, 1.0 or 1.3, drawn with probability 1/2 from
// FIXTURE_LEVEL_SEED and its index (a counter file), and its iterations vary by 1% around it: the
// shape of a benchmark that jumps between two levels from one process to the next.
harness::scenario!(Scenario::measure("measure/two_level", |b| {
    let path = std::env::var("FIXTURE_COUNTER").unwrap_or_else(|_| "/dev/null".into());
    let count = std::fs::read_to_string(&path)
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(0);
    let _ = std::fs::write(&path, (count + 1).to_string());
    let seed: u64 = std::env::var("FIXTURE_LEVEL_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let level = if splitmix(seed.wrapping_mul(1_000_003).wrapping_add(count)) & 1 == 0 {
        1.0
    } else {
        1.3
    };
    let values = (0..b.iterations())
        .map(|i| level * (1.0 + 0.01 * ((i % 5) as f64 - 2.0) / 2.0))
        .collect();
    b.record_iterations("level", Unit::Other("units".into()), harness::Better::Lower, values);
}));

/// SplitMix64's output function: a well-mixed 64-bit hash of `x`.
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A per-process value from the pid, spread uniformly over [0, 1): different in every process.
fn per_process_uniform() -> f64 {
    let mut z = u64::from(std::process::id()).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z ^= z >> 29;
    (z % 10_000) as f64 / 10_000.0
}

// For --target-ci: one measurement whose processes agree to 0.1%, one that spreads +-50%.
harness::scenario!(Scenario::measure("adaptive/tight", |b| b.record(
    "value",
    Unit::Nanoseconds,
    100.0 * (1.0 + 0.001 * per_process_uniform())
)));
harness::scenario!(Scenario::measure("adaptive/noisy", |b| b.record(
    "value",
    Unit::Nanoseconds,
    100.0 * (0.5 + per_process_uniform())
)));

// For the libtest mode: the routine's calls, so a test can count warm-up and measured
// iterations. Each call busy-waits 50 us, above the 20 us below which calls are batched.
harness::scenario!(Scenario::measure("calls/counted", |b| {
    let mut calls = 0u32;
    b.iter(|| {
        calls += 1;
        let t = std::time::Instant::now();
        while t.elapsed() < Duration::from_micros(50) {}
    });
    b.record("calls", Unit::Count, f64::from(calls));
}));
harness::scenario!(Scenario::check("calls/ignored", || ()).ignore("runs only with --ignored or --include-ignored"));

fn main() -> ExitCode {
    harness::main()
}
