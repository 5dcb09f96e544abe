//! `cargo harness`: the harness as a cargo subcommand. `detect` and `run --tests` build the
//! workspace's test binaries through cargo ([`discover`]) and work across all of them; every
//! other command is the plain harness CLI.

pub mod discover;
mod multi;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

pub use discover::{CargoSelection, TestBinary};
pub use multi::Binaries;

use crate::cli::ExitCodes;
use crate::cli::args::RunArgs;
use crate::cli::detect_args::DetectArgs;
use crate::detect::{Labeled, OrderTarget};
use crate::errors::Error;
use crate::execute::LibtestBinary;

/// cargo's package, target and feature selection, as `cargo test` spells it.
#[derive(Debug, Clone, clap::Args)]
pub struct CargoArgs {
    /// Path to Cargo.toml.
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// Package(s) to test (repeatable).
    #[arg(short = 'p', long = "package", value_name = "SPEC")]
    pub package: Vec<String>,
    /// Test every workspace member.
    #[arg(long)]
    pub workspace: bool,
    /// Only the library's unit tests.
    #[arg(long)]
    pub lib: bool,
    /// Every test target (lib unit tests and tests/).
    #[arg(long)]
    pub tests: bool,
    /// Only this integration test (repeatable).
    #[arg(long = "test", value_name = "NAME")]
    pub test: Vec<String>,
    /// Features to enable (comma-separated or repeated).
    #[arg(short = 'F', long, value_name = "FEATURES", value_delimiter = ',')]
    pub features: Vec<String>,
    /// Enable all features.
    #[arg(long)]
    pub all_features: bool,
    /// Disable default features.
    #[arg(long)]
    pub no_default_features: bool,
    /// Build the tests in release mode.
    #[arg(long)]
    pub release: bool,
    /// Build without touching the network.
    #[arg(long)]
    pub offline: bool,
}

impl CargoArgs {
    fn selection(&self) -> CargoSelection {
        CargoSelection {
            manifest_path: self.manifest_path.clone(),
            packages: self.package.clone(),
            workspace: self.workspace,
            lib: self.lib,
            tests: self.tests,
            test: self.test.clone(),
            features: self.features.clone(),
            all_features: self.all_features,
            no_default_features: self.no_default_features,
            release: self.release,
            offline: self.offline,
        }
    }
}

/// `cargo harness detect`: detect across the workspace's test binaries.
#[derive(Debug, Parser)]
#[command(name = "cargo harness detect", bin_name = "cargo harness detect")]
struct CargoDetect {
    #[command(flatten)]
    cargo: CargoArgs,
    #[command(flatten)]
    detect: DetectArgs,
}

/// `cargo harness run --tests`: every #[test] of the workspace's test binaries, one process each.
#[derive(Debug, Parser)]
#[command(name = "cargo harness run", bin_name = "cargo harness run")]
struct CargoRun {
    #[command(flatten)]
    cargo: CargoArgs,
    #[command(flatten)]
    run: RunArgs,
}

/// The `cargo-harness` binary's main.
pub fn main() -> ExitCode {
    let mut argv: Vec<OsString> = std::env::args_os().collect();
    // cargo runs `cargo-harness harness ARGS`; run directly, the binary gets ARGS alone.
    if argv.get(1).is_some_and(|a| a == "harness") {
        argv.remove(1);
    }
    let has = |flag: &str| {
        argv.iter()
            .any(|a| a.to_str().is_some_and(|a| a == flag || a.starts_with(&format!("{flag}="))))
    };
    let sub = argv.get(1).and_then(|a| a.to_str()).map(str::to_owned);
    let cargo_mode = match sub.as_deref() {
        Some("detect") => !has("--test-bin") && !has("--suite-bin"),
        Some("run") => has("--tests") || has("--lib") || has("--test"),
        _ => false,
    };
    if !cargo_mode {
        return crate::cli::run_from(argv, &[]);
    }
    // The subcommand's own parser sees `cargo harness detect ARGS`.
    let mut rest = vec![argv[0].clone()];
    rest.extend(argv.into_iter().skip(2));
    let result = match sub.as_deref() {
        Some("detect") => CargoDetect::try_parse_from(rest).map(|a| detect(&a)),
        _ => CargoRun::try_parse_from(rest).map(run),
    };
    let outcome = match result {
        Ok(r) => r,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { ExitCodes::USAGE } else { ExitCodes::OK });
        }
    };
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(ExitCodes::for_error(&e))
        }
    }
}

fn build(cargo: &CargoArgs) -> Result<Vec<TestBinary>, Error> {
    let bins = cargo.selection().build()?;
    if bins.is_empty() {
        return Err(Error::Cargo {
            what: "cargo test --no-run".into(),
            detail: "built no test binaries for this selection".into(),
        });
    }
    eprintln!("cargo harness: {} test binaries", bins.len());
    Ok(bins)
}

fn detect(a: &CargoDetect) -> Result<u8, Error> {
    let targets = build(&a.cargo)?
        .into_iter()
        .map(|b| {
            Box::new(Labeled {
                inner: Box::new(LibtestBinary::new(b.exe)),
                package: b.package,
                binary: b.target,
            }) as Box<dyn OrderTarget>
        })
        .collect();
    crate::cli::detect::run_on(&a.detect, Vec::new(), Some(targets))
}

fn run(a: CargoRun) -> Result<u8, Error> {
    let target = Binaries::new(build(&a.cargo)?);
    crate::cli::run_command(a.run, Vec::new(), Some(Box::new(target)))
}
