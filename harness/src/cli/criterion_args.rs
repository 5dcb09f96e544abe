//! criterion's common command-line flags on `run`, as `cargo bench -- FLAGS` passes them to a
//! bench built with harness-criterion: each maps to the harness's equivalent, is accepted where
//! it changes nothing here, or is refused (exit 2) naming what to use instead. Unknown to clap,
//! they would be refused with a "did you mean" suggestion unrelated to them.

use super::builder::{builder_args, given, group, one, switch, value};
use super::values::count;
use crate::errors::Error;

/// criterion's flags (see docs/criterion.md for what each becomes). Flags and help:
/// [`CriterionArgs::augment`].
#[derive(Debug, Clone, Default)]
pub struct CriterionArgs {
    /// `--save-baseline NAME` (refused).
    pub save_baseline: Option<String>,
    /// `--baseline NAME` (refused).
    pub baseline: Option<String>,
    /// `--load-baseline NAME` (refused).
    pub load_baseline: Option<String>,
    /// `--measurement-time SECS` (refused).
    pub measurement_time: Option<String>,
    /// `--warm-up-time SECS` (refused).
    pub warm_up_time: Option<String>,
    /// `--sample-size N`: taken as --iterations N.
    pub sample_size: Option<usize>,
    /// `--noplot` (ignored).
    #[allow(dead_code, reason = "accepted and ignored")]
    pub noplot: bool,
    /// `--profile-time SECS` (refused).
    pub profile_time: Option<String>,
    /// `--quick` (refused).
    pub quick: bool,
    /// `-v`, `--verbose` (ignored).
    #[allow(dead_code, reason = "accepted and ignored")]
    pub verbose: bool,
}
builder_args!(CriterionArgs, "CriterionArgs");

impl CriterionArgs {
    pub(super) fn augment(cmd: clap::Command) -> clap::Command {
        let text = |id, long, value_name, help| value(id, long, value_name, clap::value_parser!(String), help);
        let args = [
            text(
                "save_baseline",
                "save-baseline",
                "NAME",
                "Refused: every run is kept in its --out directory; see `compare` and --history",
            ),
            text(
                "baseline",
                "baseline",
                "NAME",
                "Refused: compare two runs with `compare --baseline DIR`",
            ),
            text(
                "load_baseline",
                "load-baseline",
                "NAME",
                "Refused: compare two runs with `compare --baseline DIR --candidate DIR`",
            ),
            text(
                "measurement_time",
                "measurement-time",
                "SECS",
                "Refused: a measurement is --iterations per process times --repeat processes",
            ),
            text(
                "warm_up_time",
                "warm-up-time",
                "SECS",
                "Refused: warm-up is counted in calls (--warmup W)",
            ),
            value(
                "sample_size",
                "sample-size",
                "N",
                count::<1>,
                "Taken as --iterations N (samples per process)",
            )
            .conflicts_with("iterations"),
            switch("noplot", "noplot", "Accepted and ignored (the report's plots are small SVGs)"),
            text(
                "profile_time",
                "profile-time",
                "SECS",
                "Refused: run one benchmark under a profiler with --exact NAME --repeat 1",
            ),
            switch("quick", "quick", "Refused: see --repeat and --target-ci"),
            switch(
                "verbose",
                "verbose",
                "Accepted and ignored (every scenario's row and failure are always shown)",
            )
            .short('v'),
        ];
        // Left set, as the derive leaves it: the flags after these (`--help`) keep no heading.
        group(cmd.next_help_heading("criterion's flags"), "CriterionArgs", args)
    }

    pub(super) fn from_matches(m: &mut clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(CriterionArgs {
            save_baseline: one(m, "save_baseline"),
            baseline: one(m, "baseline"),
            load_baseline: one(m, "load_baseline"),
            measurement_time: one(m, "measurement_time"),
            warm_up_time: one(m, "warm_up_time"),
            sample_size: one(m, "sample_size"),
            noplot: given(m, "noplot"),
            profile_time: one(m, "profile_time"),
            quick: given(m, "quick"),
            verbose: given(m, "verbose"),
        })
    }

    /// The first flag given that has no equivalent here, as an error naming what to use.
    pub(crate) fn refused(&self) -> Result<(), Error> {
        const KEEP: &str = "every run is kept in its --out directory (default reports/<timestamp>/): keep \
                            one with `--out DIR`, compare a later run against it with `compare --baseline \
                            DIR`, or add every run to a history with `--history FILE`";
        const COMPARE: &str = "compare two kept runs with `compare --baseline DIR --candidate DIR` (keep a \
                               run with `--out DIR`)";
        let refused: [(bool, &'static str, &'static str); 7] = [
            (self.save_baseline.is_some(), "--save-baseline", KEEP),
            (self.baseline.is_some(), "--baseline", COMPARE),
            (self.load_baseline.is_some(), "--load-baseline", COMPARE),
            (
                self.measurement_time.is_some(),
                "--measurement-time",
                "a measurement is --iterations M samples in each of --repeat N processes (or as many \
                 processes as --target-ci PCT needs); `--min-time SECS` spreads every benchmark's \
                 processes over a whole run that long (10 s by default under cargo bench)",
            ),
            (
                self.warm_up_time.is_some(),
                "--warm-up-time",
                "warm-up is counted in calls per process: --warmup W",
            ),
            (
                self.profile_time.is_some(),
                "--profile-time",
                "to profile one benchmark, run it under your profiler with `--exact NAME --repeat 1 \
                 --iterations M`",
            ),
            (
                self.quick,
                "--quick",
                "--repeat N sets the processes per benchmark; --target-ci PCT adds processes only \
                 until the interval is that narrow",
            ),
        ];
        match refused.into_iter().find(|(given, ..)| *given) {
            Some((_, flag, instead)) => Err(Error::Unsupported { flag, instead }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::cli::ExitCodes;
    use crate::cli::args::Args;
    use crate::cli::options::RunOptions;
    use crate::errors::Error;

    fn options(argv: &[&str]) -> Result<RunOptions, Error> {
        let args = Args::try_parse_from([&["bench", "--bench"], argv].concat()).unwrap();
        RunOptions::from_args(&args.run)
    }

    #[test]
    fn each_refused_flag_names_what_to_use_instead() {
        let cases: [(&[&str], &str); 7] = [
            (&["--save-baseline", "main"], "--out DIR"),
            (&["--baseline", "main"], "compare --baseline DIR"),
            (&["--load-baseline", "main"], "compare --baseline DIR --candidate DIR"),
            (&["--measurement-time", "5"], "--min-time SECS"),
            (&["--warm-up-time", "1"], "--warmup W"),
            (&["--profile-time", "10"], "--exact NAME --repeat 1"),
            (&["--quick"], "--target-ci PCT"),
        ];
        for (argv, instead) in cases {
            let Err(e) = options(argv) else {
                panic!("{argv:?} was accepted");
            };
            assert_eq!(ExitCodes::for_error(&e), ExitCodes::USAGE, "{argv:?}");
            let text = e.to_string();
            assert!(text.contains(argv[0]) && text.contains(instead), "{argv:?}: {text}");
        }
    }

    #[test]
    fn sample_size_is_iterations_and_the_rest_are_accepted() {
        let o = options(&["--sample-size", "7", "--noplot", "--verbose", "--exact", "x"]).unwrap();
        assert_eq!(o.config.iterations, 7);
        assert!(o.selection.exact);
        assert!(options(&["-v"]).is_ok());
        // Both at once is ambiguous: clap refuses it (exit 2).
        let e = Args::try_parse_from(["bench", "--sample-size", "7", "--iterations", "3"]).unwrap_err();
        assert!(e.use_stderr() && e.to_string().contains("--iterations"), "{e}");
        // Under `cargo bench` a run spans 10 s unless --repeat pins the processes, --partition
        // splits the plan, or --min-time says otherwise (0 turns it off).
        let min_time = |argv: &[&str]| options(argv).unwrap().config.min_time.map(|t| t.as_secs_f64());
        assert_eq!(min_time(&[]), Some(10.0));
        assert_eq!(min_time(&["--repeat", "3"]), None);
        assert_eq!(min_time(&["--partition", "1/2"]), None);
        assert_eq!(min_time(&["--min-time", "0"]), None);
        assert_eq!(min_time(&["--min-time", "2.5", "--repeat", "3"]), Some(2.5));
        // Never clap's "did you mean --suite-bin" for criterion's flags.
        assert!(Args::try_parse_from(["bench", "--save-baseline", "x"]).is_ok());
    }
}
