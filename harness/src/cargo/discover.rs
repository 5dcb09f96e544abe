//! Test-binary discovery: `cargo metadata` for the workspace, then `cargo test --no-run
//! --message-format=json` parsed with `cargo_metadata`'s message types (never cargo's human
//! output) into one [`TestBinary`] per built test target.

use std::collections::BTreeMap;
use std::io::BufReader;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use cargo_metadata::{CargoOpt, Message, MetadataCommand};

use crate::errors::Error;

/// Which packages and targets to build, as `cargo test` spells it.
#[derive(Debug, Clone, Default)]
pub struct CargoSelection {
    /// `--manifest-path`.
    pub manifest_path: Option<PathBuf>,
    /// `-p` / `--package`.
    pub packages: Vec<String>,
    /// `--workspace`.
    pub workspace: bool,
    /// `--lib`.
    pub lib: bool,
    /// `--tests`.
    pub tests: bool,
    /// `--test NAME`.
    pub test: Vec<String>,
    /// `--features`.
    pub features: Vec<String>,
    /// `--all-features`.
    pub all_features: bool,
    /// `--no-default-features`.
    pub no_default_features: bool,
    /// `--release`.
    pub release: bool,
    /// `--offline`.
    pub offline: bool,
}

/// One built test binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestBinary {
    /// The package's name.
    pub package: String,
    /// The target's name (the library's name for lib tests, the file stem for tests/).
    pub target: String,
    /// The target's first kind: `lib`, `test`, `bin`, `bench`, ...
    pub kind: String,
    /// The executable cargo built.
    pub exe: PathBuf,
}

fn cargo() -> Command {
    // Under `cargo harness`, cargo tells its subcommand which cargo runs it.
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

impl CargoSelection {
    /// `cargo test` arguments selecting packages, targets and features.
    pub fn test_args(&self) -> Vec<String> {
        let mut a = Vec::new();
        if let Some(m) = &self.manifest_path {
            a.extend(["--manifest-path".to_owned(), m.display().to_string()]);
        }
        for p in &self.packages {
            a.extend(["-p".to_owned(), p.clone()]);
        }
        let flags = [
            (self.workspace, "--workspace"),
            (self.lib, "--lib"),
            (self.tests, "--tests"),
            (self.all_features, "--all-features"),
            (self.no_default_features, "--no-default-features"),
            (self.release, "--release"),
            (self.offline, "--offline"),
        ];
        a.extend(flags.iter().filter(|(on, _)| *on).map(|(_, f)| (*f).to_owned()));
        for t in &self.test {
            a.extend(["--test".to_owned(), t.clone()]);
        }
        if !self.features.is_empty() {
            a.extend(["--features".to_owned(), self.features.join(",")]);
        }
        a
    }

    /// Package names of the workspace, by package id, checking every `-p` against them.
    fn workspace_packages(&self) -> Result<BTreeMap<String, String>, Error> {
        let mut cmd = MetadataCommand::new();
        cmd.no_deps();
        if let Some(m) = &self.manifest_path {
            cmd.manifest_path(m);
        }
        if self.offline {
            cmd.other_options(vec!["--offline".to_owned()]);
        }
        if !self.features.is_empty() {
            cmd.features(CargoOpt::SomeFeatures(self.features.clone()));
        }
        let meta = cmd.exec().map_err(|e| Error::Cargo {
            what: "cargo metadata".into(),
            detail: e.to_string(),
        })?;
        let members: BTreeMap<String, String> = meta
            .workspace_packages()
            .iter()
            .map(|p| (p.id.repr.clone(), p.name.to_string()))
            .collect();
        for p in &self.packages {
            if !members.values().any(|n| n == p) {
                return Err(Error::InvalidFlag {
                    flag: "--package",
                    value: p.clone(),
                    reason: format!(
                        "not a package of the workspace at {} (members: {})",
                        meta.workspace_root,
                        members.values().cloned().collect::<Vec<_>>().join(", ")
                    ),
                });
            }
        }
        Ok(members)
    }

    /// Build the test binaries (`cargo test --no-run`), compiler diagnostics going to stderr, and
    /// return them sorted by package and target.
    pub fn build(&self) -> Result<Vec<TestBinary>, Error> {
        let members = self.workspace_packages()?;
        let mut cmd = cargo();
        cmd.args(["test", "--no-run", "--message-format=json-render-diagnostics"])
            .args(self.test_args())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().map_err(|e| Error::Io {
            what: "running cargo test --no-run".into(),
            source: e,
        })?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut found = Vec::new();
        for msg in Message::parse_stream(BufReader::new(stdout)) {
            let msg = msg.map_err(|e| Error::Io {
                what: "reading cargo's JSON messages".into(),
                source: e,
            })?;
            if let Message::CompilerArtifact(a) = msg
                && a.profile.test
                && let Some(exe) = a.executable
            {
                found.push(TestBinary {
                    package: members.get(&a.package_id.repr).cloned().unwrap_or_else(|| a.target.name.clone()),
                    target: a.target.name.clone(),
                    kind: a.target.kind.first().map_or("test".to_owned(), |k| k.to_string()),
                    exe: exe.into_std_path_buf(),
                });
            }
        }
        let status = child.wait().map_err(|e| Error::Io {
            what: "waiting for cargo test --no-run".into(),
            source: e,
        })?;
        if !status.success() {
            return Err(Error::Cargo {
                what: format!("cargo test --no-run {}", self.test_args().join(" ")),
                detail: format!("cargo exited with {status} (its diagnostics are above)"),
            });
        }
        found.sort_by(|a, b| (&a.package, &a.kind, &a.target).cmp(&(&b.package, &b.kind, &b.target)));
        found.dedup_by(|a, b| a.exe == b.exe);
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_args_spell_cargo_flags() {
        let s = CargoSelection {
            manifest_path: Some("w/Cargo.toml".into()),
            packages: vec!["a".into(), "b".into()],
            lib: true,
            test: vec!["order".into()],
            features: vec!["x".into(), "y".into()],
            offline: true,
            ..Default::default()
        };
        assert_eq!(
            s.test_args().join(" "),
            "--manifest-path w/Cargo.toml -p a -p b --lib --offline --test order --features x,y"
        );
    }
}
