//! The command line of a suite binary built without the `cli` feature (as harness-criterion
//! builds benches): the CLI's, less the commands in [`CLI_ONLY`], through clap's builder API so
//! the build needs no clap_derive. The CLI's tests hold it to the derived `Args`.
//!
//! Such a build has no clap help rendering either (clap's `help` feature): its `--help` and `-h`
//! both print [`HELP`] (and `run --help` [`RUN_HELP`]), the long help clap renders for this
//! command in a CLI build, kept beside this file and held to that rendering by a test
//! (`HARNESS_UPDATE_HELP=1 cargo test -p harness --lib suite_args` rewrites them).

use super::args::RunArgs;

/// The commands only the harness CLI has (a suite binary without `cli` refuses them by name).
#[cfg_attr(feature = "cli", allow(dead_code))]
pub(crate) const CLI_ONLY: [&str; 7] = ["detect", "compare", "bisect", "calibrate", "history", "merge", "report"];

/// `--help` of a suite binary built without clap's help rendering; `{bin}` is its file name.
#[cfg_attr(feature = "cli", allow(dead_code))]
pub(crate) const HELP: &str = include_str!("suite_help.txt");
/// `run --help` of such a binary.
#[cfg_attr(feature = "cli", allow(dead_code))]
pub(crate) const RUN_HELP: &str = include_str!("suite_run_help.txt");

/// Parsed arguments: `run`'s options, given with or without the `run` subcommand.
#[derive(Debug)]
pub struct SuiteArgs {
    /// What to do (default: run).
    pub command: Option<SuiteCommand>,
    /// Options of the default `run`.
    pub run: RunArgs,
}

/// Subcommands.
#[derive(Debug)]
pub enum SuiteCommand {
    /// Run scenarios, each repetition in a fresh process (the default).
    Run(RunArgs),
}

impl SuiteArgs {
    /// The command, built as clap's derive builds the CLI's `Args`.
    pub fn command() -> clap::Command {
        let run = RunArgs::augment(clap::Command::new("run"))
            .about("Run scenarios, each repetition in a fresh process (the default)")
            .long_about(None);
        let cmd = clap::Command::new("harness")
            .group(clap::ArgGroup::new("Args").multiple(true))
            .subcommand(run);
        RunArgs::augment(cmd)
            .version(env!("CARGO_PKG_VERSION"))
            .about(env!("CARGO_PKG_DESCRIPTION"))
            .long_about(None)
            .args_conflicts_with_subcommands(true)
    }

    /// Parses `argv` (the program name first), with clap's errors as the derive words them.
    pub fn try_parse_from<I, T>(argv: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let argv: Vec<std::ffi::OsString> = argv.into_iter().map(Into::into).collect();
        #[cfg(feature = "cli")]
        let mut cmd = Self::command();
        #[cfg(not(feature = "cli"))]
        let mut cmd = {
            // The name clap would show: the binary's file name.
            let bin = argv
                .first()
                .map(std::path::Path::new)
                .and_then(|p| p.file_name())
                .map(|f| f.to_string_lossy().into_owned());
            let bin = bin.unwrap_or_else(|| "harness".to_owned());
            Self::command()
                .override_help(HELP.replace("{bin}", &bin))
                .mut_subcommand("run", |run| run.override_help(RUN_HELP.replace("{bin}", &bin)))
        };
        let mut m = cmd.try_get_matches_from_mut(argv)?;
        let command = match m.remove_subcommand() {
            Some((_, mut sub)) => Some(SuiteCommand::Run(RunArgs::from_matches(&mut sub).map_err(|e| e.format(&mut cmd))?)),
            None => None,
        };
        let run = RunArgs::from_matches(&mut m).map_err(|e| e.format(&mut cmd))?;
        Ok(SuiteArgs { command, run })
    }
}

#[cfg(all(test, feature = "cli"))]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::*;
    use crate::cli::args::{Args, Command};

    fn help(mut c: clap::Command) -> String {
        c.render_long_help().to_string()
    }

    #[test]
    fn a_suite_binary_parses_and_explains_run_as_the_cli_does() {
        let mut cli = Args::command();
        let mut suite = SuiteArgs::command();
        cli.build();
        suite.build();
        let run = |c: &clap::Command| c.find_subcommand("run").cloned().expect("run");
        assert_eq!(help(run(&cli)), help(run(&suite)), "`run --help`");
        // The top-level help differs only in the commands listed.
        let top = |c: clap::Command| {
            help(c)
                .lines()
                .filter(|l| !l.starts_with("  ") || l.starts_with("  -") || l.starts_with("      "))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(top(cli.clone()), top(suite.clone()));
        assert!(help(suite).contains("  run "));

        let argv = [
            "b",
            "name",
            "--exact",
            "--bench",
            "--iterations",
            "7",
            "--counters",
            "--repeat",
            "3",
            "--throttle-threshold",
            "50",
            "--noplot",
        ];
        let (a, b) = (Args::try_parse_from(argv).unwrap(), SuiteArgs::try_parse_from(argv).unwrap());
        assert!(a.command.is_none() && b.command.is_none());
        assert_eq!(format!("{:?}", a.run), format!("{:?}", b.run));
        let Some(Command::Run(a)) = Args::try_parse_from(["b", "run", "--list"]).unwrap().command else {
            panic!("run")
        };
        let Some(SuiteCommand::Run(b)) = SuiteArgs::try_parse_from(["b", "run", "--list"]).unwrap().command else {
            panic!("run")
        };
        assert!(a.list && b.list);
        for bad in [
            &["b", "--repeat", "0"][..],
            &["b", "--sample-size", "2", "--iterations", "3"],
            &["b", "--nope"],
        ] {
            let (a, b) = (Args::try_parse_from(bad).unwrap_err(), SuiteArgs::try_parse_from(bad).unwrap_err());
            assert_eq!((a.kind(), a.to_string()), (b.kind(), b.to_string()), "{bad:?}");
        }
    }

    /// What a lean suite binary prints for `--help` (and `-h`) and `run --help` is the long help
    /// clap renders for its command here, `{bin}` standing for the binary's name.
    #[test]
    fn a_lean_suite_binary_prints_the_help_clap_renders() {
        let mut suite = SuiteArgs::command().bin_name("{bin}");
        suite.build();
        let run = suite.find_subcommand("run").cloned().expect("run");
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
        for (mut cmd, file, kept) in [(suite, "suite_help.txt", HELP), (run, "suite_run_help.txt", RUN_HELP)] {
            let long = cmd.render_long_help().to_string();
            if std::env::var_os("HARNESS_UPDATE_HELP").is_some() {
                std::fs::write(dir.join(file), &long).unwrap();
            } else {
                assert_eq!(
                    kept, long,
                    "{file} is stale: HARNESS_UPDATE_HELP=1 cargo test -p harness --lib suite_args"
                );
            }
        }
    }
}
