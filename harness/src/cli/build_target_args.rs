//! What `compare --base-ref` and `bisect` build at a commit: `--package`, `--bin` or `--bench`,
//! `--features`, `--manifest-path`, as cargo spells them.

use std::path::PathBuf;

use crate::compare::{BuildTarget, TargetKind};

/// The default package of `--bin` builds: this repository's scenario suite.
const DEFAULT_PACKAGE: &str = "scenarios";

/// Target selection flags (clap).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct BuildTargetArgs {
    /// Package built at each commit [default: the current crate with --bench, else `scenarios`].
    #[arg(long, value_name = "NAME")]
    pub package: Option<String>,
    /// Binary built at each commit, `cargo build --release --bin BIN` [default: the package's name].
    #[arg(long, value_name = "NAME", conflicts_with = "bench")]
    pub bin: Option<String>,
    /// Bench target built at each commit as `cargo bench` builds it (`[[bench]]`, for example a
    /// criterion bench on harness-criterion).
    #[arg(long, value_name = "NAME")]
    pub bench: Option<String>,
    /// Features to enable in those builds (comma-separated or repeated).
    #[arg(long, value_name = "FEATURES", value_delimiter = ',')]
    pub features: Vec<String>,
    /// Cargo.toml of the package to build (relative to the current directory).
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
}

impl BuildTargetArgs {
    /// Whether any flag was given (they mean something only where a build happens).
    pub fn any(&self) -> bool {
        self.package.is_some() || self.bin.is_some() || self.bench.is_some() || !self.features.is_empty() || self.manifest_path.is_some()
    }

    /// The target: a bench of the named (or current) package, else a binary of the named
    /// package (default `scenarios`) named as the package unless `--bin` says otherwise.
    pub fn target(&self) -> BuildTarget {
        let (package, kind) = match &self.bench {
            Some(b) => (self.package.clone(), TargetKind::Bench(b.clone())),
            None => {
                let p = self.package.clone().unwrap_or_else(|| DEFAULT_PACKAGE.to_owned());
                let b = self.bin.clone().unwrap_or_else(|| p.clone());
                (Some(p), TargetKind::Bin(b))
            }
        };
        BuildTarget {
            package,
            kind,
            features: self.features.clone(),
            manifest: self.manifest_path.clone(),
            dir: PathBuf::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_builds_the_current_crate_and_bin_defaults_to_the_scenarios_package() {
        let bench = BuildTargetArgs {
            bench: Some("walk".into()),
            ..Default::default()
        };
        assert_eq!(bench.target().package, None);
        assert_eq!(bench.target().kind, TargetKind::Bench("walk".into()));
        let plain = BuildTargetArgs::default().target();
        assert_eq!(plain, BuildTarget::bin("scenarios", "scenarios"));
        let named = BuildTargetArgs {
            package: Some("tiny".into()),
            ..Default::default()
        };
        assert_eq!(named.target(), BuildTarget::bin("tiny", "tiny"));
        assert!(!BuildTargetArgs::default().any() && named.any());
    }
}
