//! libtest's behaviour, for when a test runner drives a suite binary: under cargo-nextest, and
//! under `cargo test` when cargo runs the suite as a test or bench target without `--bench`.
//! Each selected scenario runs once in a fresh child with its variant's env set before the child
//! starts; measurements use [`SMOKE`]'s defaults (1 iteration, no warm-up) unless `--iterations`
//! / `--warmup` say otherwise. Output and exit status (101 on failure) are libtest's, through
//! libtest-mimic.

use std::path::{Path, PathBuf};
use std::time::Duration;

use libtest_mimic::{Arguments, Failed, Trial};

use super::args::RunArgs;
use super::exit_code::ExitCodes;
use super::options::SMOKE;
use crate::errors::Error;
use crate::execute::{SuiteBinary, Target, TargetRequest};
use crate::model::{Listed, Outcome};

/// nextest sets `NEXTEST_RUN_ID` (and `NEXTEST`) in every test process it starts.
pub(crate) fn invoked_by_nextest() -> bool {
    std::env::var_os("NEXTEST_RUN_ID").is_some() || std::env::var_os("NEXTEST").is_some()
}

/// cargo sets `CARGO_MANIFEST_DIR` in what it runs, and runs test and bench targets from
/// `target/<profile>/deps/` where `cargo run` runs a copy one level up: so this is `cargo test`
/// (or `cargo bench`, which adds `--bench`) running the suite as a test or bench target.
pub(crate) fn invoked_by_cargo_test() -> bool {
    std::env::var_os("CARGO_MANIFEST_DIR").is_some()
        && std::env::current_exe().is_ok_and(|exe| exe.parent().and_then(Path::file_name).is_some_and(|d| d == "deps"))
}

/// What each trial needs, shared by all of them.
#[derive(Clone)]
struct Smoke {
    target: SuiteBinary,
    iterations: usize,
    warmup: usize,
    timeout: Duration,
    scratch: PathBuf,
    /// Print each child's output and metrics as it ends: nextest captures them per test; under
    /// `cargo test` only `--nocapture` asks, and otherwise a failure's message carries them.
    show: bool,
}

pub(crate) fn run(args: &RunArgs, own: &[Listed]) -> Result<u8, Error> {
    let m = args.measure.resolve(&SMOKE);
    let scratch = std::env::temp_dir().join(format!("harness-libtest-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| Error::Io {
        what: format!("creating {}", scratch.display()),
        source: e,
    })?;
    let smoke = Smoke {
        target: SuiteBinary::current(own.to_vec())?,
        iterations: m.iterations,
        warmup: m.warmup,
        timeout: m.timeout,
        scratch: scratch.clone(),
        show: invoked_by_nextest() || args.nocapture,
    };
    let names = &args.names;
    // libtest-mimic takes one filter; several (any of which selects, as in `run`) are applied
    // here, and libtest-mimic still applies --exact and --skip.
    let several = names.filters.len() > 1;
    let trials = own
        .iter()
        .filter(|l| {
            !several
                || names
                    .filters
                    .iter()
                    .any(|f| if names.exact { &l.name == f } else { l.name.contains(f.as_str()) })
        })
        .map(|l| {
            let (smoke, l) = (smoke.clone(), l.clone());
            let (name, ignored) = (l.name.clone(), l.ignored.is_some());
            Trial::test(name, move || run_one(&smoke, &l)).with_ignored_flag(ignored)
        })
        .collect();
    let mimic = Arguments {
        filter: if several { None } else { names.filters.first().cloned() },
        exact: names.exact,
        skip: names.skip.clone(),
        ignored: args.ignored,
        include_ignored: args.include_ignored,
        nocapture: args.nocapture,
        test_threads: Some(1),
        ..Arguments::default()
    };
    let conclusion = libtest_mimic::run(&mimic, trials);
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(if conclusion.has_failed() {
        ExitCodes::LIBTEST_FAILED
    } else {
        ExitCodes::OK
    })
}

fn run_one(smoke: &Smoke, l: &Listed) -> Result<(), Failed> {
    let request = TargetRequest {
        names: vec![l.name.clone()],
        env: l.env.clone(),
        iterations: smoke.iterations,
        warmup: smoke.warmup,
        timeout: Some(l.timeout.unwrap_or(smoke.timeout)),
        scratch: smoke.scratch.clone(),
        id: "libtest".into(),
        gpu: None,
        counters: None,
    };
    let result = smoke
        .target
        .run(&request)
        .map_err(|e| Failed::from(format!("could not run the child: {e}")))?;
    let r = &result.results[0];
    let mut output = format!("{}{}", result.process.stdout, result.process.stderr);
    for m in &r.metrics {
        output.push_str(&format!("{}: {} {}\n", m.name, m.value, m.unit.symbol()));
    }
    if smoke.show {
        print!("{output}");
    }
    let message = match &r.outcome {
        Outcome::Passed | Outcome::Skipped { .. } => return Ok(()),
        Outcome::Failed { message } => message.clone(),
        other => other.short(),
    };
    Err(if smoke.show || output.is_empty() {
        message.into()
    } else {
        format!("{message}\n---- output ----\n{output}").into()
    })
}
