//! libtest's behaviour, for when a test runner drives a suite binary: under cargo-nextest, and
//! under `cargo test` when cargo runs the suite as a test or bench target without `--bench`.
//! Each selected scenario runs once in a fresh child with its variant's env set before the child
//! starts; measurements use [`SMOKE`]'s defaults (1 iteration, no warm-up) unless `--iterations`
//! / `--warmup` say otherwise. Output and exit status (101 on failure) are libtest's, as
//! libtest-mimic 0.8 prints them (written out here: libtest-mimic's clap derive would cost every
//! bench build syn's `full`).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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
    let passed = run_trials(std::io::stdout(), color(), args, own, |l| run_one(&smoke, l));
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(if passed { ExitCodes::OK } else { ExitCodes::LIBTEST_FAILED })
}

/// Colour as libtest-mimic's `--color auto` decides it: on a terminal, unless `NO_COLOR` is set
/// or `TERM=dumb`; always under `CLICOLOR_FORCE`.
fn color() -> bool {
    std::env::var_os("CLICOLOR_FORCE").is_some_and(|v| v != "0")
        || (std::io::stdout().is_terminal()
            && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            && std::env::var_os("TERM").is_none_or(|t| t != "dumb"))
}

/// libtest's run of the scenarios `args` select from `own`, each through `one`, its output on
/// `out`: whether none failed.
fn run_trials(out: impl Write, color: bool, args: &RunArgs, own: &[Listed], mut one: impl FnMut(&Listed) -> Result<(), String>) -> bool {
    let names = &args.names;
    // libtest's selection: any filter (a substring, or the whole name with --exact), no --skip
    // match, and only ignored ones under --ignored.
    let matches = |f: &String, name: &String| if names.exact { name == f } else { name.contains(f.as_str()) };
    let trials: Vec<&Listed> = own
        .iter()
        .filter(|l| names.filters.is_empty() || names.filters.iter().any(|f| matches(f, &l.name)))
        .filter(|l| !names.skip.iter().any(|s| matches(s, &l.name)))
        .filter(|l| !args.ignored || l.ignored.is_some())
        .collect();
    let filtered_out = own.len() - trials.len();
    let start = Instant::now();
    let width = trials.iter().map(|l| l.name.chars().count()).max().unwrap_or(0);
    let mut out = Printer { out, color, width };
    let plural = if trials.len() == 1 { "" } else { "s" };
    out.line(&format!("\nrunning {} test{plural}", trials.len()));
    let (mut passed, mut ignored, mut failures) = (0, 0, Vec::new());
    for l in trials {
        out.start(&l.name);
        if l.ignored.is_some() && !args.ignored && !args.include_ignored {
            out.outcome(Shown::Ignored);
            ignored += 1;
            continue;
        }
        match one(l) {
            Ok(()) => {
                out.outcome(Shown::Ok);
                passed += 1;
            }
            Err(message) => {
                out.outcome(Shown::Failed);
                failures.push((l.name.clone(), message));
            }
        }
    }
    if !failures.is_empty() {
        out.line("\nfailures:\n");
        for (name, message) in &failures {
            out.line(&format!("---- {name} ----\n{message}\n"));
        }
        out.line("\nfailures:");
        for (name, _) in &failures {
            out.line(&format!("    {name}"));
        }
    }
    out.summary(
        failures.is_empty(),
        &format!(
            ". {passed} passed; {} failed; {ignored} ignored; 0 measured; {filtered_out} filtered out; \
             finished in {:.2}s\n",
            failures.len(),
            start.elapsed().as_secs_f64()
        ),
    );
    failures.is_empty()
}

/// An outcome as libtest shows it.
#[derive(Clone, Copy)]
enum Shown {
    Ok,
    Failed,
    Ignored,
}

/// libtest's pretty output.
struct Printer<W: Write> {
    out: W,
    color: bool,
    /// Names are padded to the longest, so the outcomes line up.
    width: usize,
}

impl<W: Write> Printer<W> {
    fn line(&mut self, text: &str) {
        let _ = writeln!(self.out, "{text}");
    }

    fn start(&mut self, name: &str) {
        let _ = write!(self.out, "test {name: <0$} ... ", self.width);
        let _ = self.out.flush();
    }

    fn word(&mut self, shown: Shown) {
        let (word, code) = match shown {
            Shown::Ok => ("ok", 32),
            Shown::Failed => ("FAILED", 31),
            Shown::Ignored => ("ignored", 33),
        };
        let _ = if self.color {
            write!(self.out, "\x1b[{code}m{word}\x1b[0m")
        } else {
            write!(self.out, "{word}")
        };
    }

    fn outcome(&mut self, shown: Shown) {
        self.word(shown);
        self.line("");
    }

    fn summary(&mut self, ok: bool, rest: &str) {
        let _ = write!(self.out, "\ntest result: ");
        self.word(if ok { Shown::Ok } else { Shown::Failed });
        self.line(rest);
        let _ = self.out.flush();
    }
}

/// Runs `l` once in a fresh child: `Err` holds the failure message libtest shows.
fn run_one(smoke: &Smoke, l: &Listed) -> Result<(), String> {
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
    let result = smoke.target.run(&request).map_err(|e| format!("could not run the child: {e}"))?;
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
        message
    } else {
        format!("{message}\n---- output ----\n{output}")
    })
}

#[cfg(test)]
mod tests {
    use libtest_mimic::{Arguments, Trial};

    use super::*;
    use crate::cli::suite_args::SuiteArgs;

    fn listed(name: &str, ignored: bool) -> Listed {
        Listed {
            name: name.into(),
            kind: crate::model::ScenarioKind::Check,
            ignored: ignored.then(|| "slow".into()),
            env: Default::default(),
            timeout: None,
            uncounted: None,
        }
    }

    /// `finished in X.XXs` varies from run to run.
    fn untimed(text: &str) -> String {
        let at = text.find("finished in ").expect("a summary line");
        let end = at + text[at..].find('s').expect("seconds") + 1;
        format!("{}finished in Ts{}", &text[..at], &text[end..])
    }

    /// What libtest-mimic 0.8 (this module's former printer) writes for the same selection.
    fn mimic(args: &RunArgs, own: &[Listed], fail: &[&str]) -> String {
        let log = tempfile::NamedTempFile::new().unwrap();
        let several = args.names.filters.len() > 1;
        let trials = own
            .iter()
            .filter(|l| !several || args.names.filters.iter().any(|f| l.name.contains(f.as_str())))
            .map(|l| {
                let failed = fail.contains(&l.name.as_str());
                Trial::test(
                    l.name.clone(),
                    move || if failed { Err("planted\nsecond line".into()) } else { Ok(()) },
                )
                .with_ignored_flag(l.ignored.is_some())
            })
            .collect();
        let mimic = Arguments {
            filter: if several { None } else { args.names.filters.first().cloned() },
            exact: args.names.exact,
            skip: args.names.skip.clone(),
            ignored: args.ignored,
            include_ignored: args.include_ignored,
            test_threads: Some(1),
            logfile: Some(log.path().display().to_string()),
            ..Arguments::default()
        };
        let _ = libtest_mimic::run(&mimic, trials);
        std::fs::read_to_string(log.path()).unwrap()
    }

    #[test]
    fn the_output_is_libtest_mimics() {
        let own = [
            listed("group/a", false),
            listed("group/longer_name", false),
            listed("other/b", true),
            listed("other/c", false),
        ];
        let fail = ["group/longer_name", "other/c"];
        let cases: [&[&str]; 6] = [
            &[],
            &["group"],
            &["--exact", "other/c"],
            &["--skip", "longer", "--include-ignored"],
            &["--ignored"],
            &["group/a", "other"],
        ];
        for argv in cases {
            let SuiteArgs { command: None, run: args } = SuiteArgs::try_parse_from([&["bench"], argv].concat()).unwrap() else {
                panic!("{argv:?}")
            };
            let mut ours = Vec::new();
            let ok = run_trials(&mut ours, false, &args, &own, |l| {
                if fail.contains(&l.name.as_str()) {
                    Err("planted\nsecond line".into())
                } else {
                    Ok(())
                }
            });
            let ours = untimed(&String::from_utf8(ours).unwrap());
            let theirs = untimed(&mimic(&args, &own, &fail));
            if argv == ["group/a", "other"] {
                // libtest-mimic saw only the pre-selected trials, so it counted none filtered out.
                assert_eq!(ours.replace("1 filtered out", "0 filtered out"), theirs, "{argv:?}");
            } else {
                assert_eq!(ours, theirs, "{argv:?}");
            }
            assert_eq!(ok, !ours.contains("FAILED"), "{argv:?}");
        }
    }
}
