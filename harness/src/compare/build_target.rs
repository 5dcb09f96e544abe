//! What `compare --base-ref` and `bisect` build at a commit: a package's binary
//! (`--bin`, `cargo build --release`) or a bench target (`--bench`, built as `cargo bench` builds
//! it: `cargo build --profile bench`), with `--features` and `--manifest-path`, from the
//! directory the command ran in, so `cargo harness compare --base-ref main --bench NAME` works in
//! any crate of a workspace. The executable's path is read from cargo's JSON messages, not
//! guessed. Before a build, `cargo metadata` at that commit says whether the target exists, and
//! names the ones that do when it does not.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A bin or a bench target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetKind {
    /// `--bin NAME`.
    Bin(String),
    /// `--bench NAME`.
    Bench(String),
}

impl TargetKind {
    /// `bin` or `bench`: cargo's word for the kind, in its flags and its metadata.
    pub fn word(&self) -> &'static str {
        match self {
            TargetKind::Bin(_) => "bin",
            TargetKind::Bench(_) => "bench",
        }
    }

    /// The target's name.
    pub fn name(&self) -> &str {
        match self {
            TargetKind::Bin(n) | TargetKind::Bench(n) => n,
        }
    }
}

/// A target to build at any commit of one repository. Paths are relative to the repository's
/// top level, so they mean the same in the working tree and in the build worktree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildTarget {
    /// `--package`; `None`: the package cargo picks in `dir` (the current crate).
    pub package: Option<String>,
    /// The bin or bench.
    pub kind: TargetKind,
    /// `--features`, as given.
    pub features: Vec<String>,
    /// `--manifest-path`, relative to the repository's top level.
    pub manifest: Option<PathBuf>,
    /// Where cargo runs, relative to the top level: the directory the command ran in.
    pub dir: PathBuf,
}

impl BuildTarget {
    /// A binary of a package, built from the repository's top level (the old default).
    #[cfg(test)]
    pub fn bin(package: &str, bin: &str) -> BuildTarget {
        BuildTarget {
            package: Some(package.to_owned()),
            kind: TargetKind::Bin(bin.to_owned()),
            features: Vec::new(),
            manifest: None,
            dir: PathBuf::new(),
        }
    }

    /// `package/bin`, `bench dary_heap`, `scenarios/bench walk [features x]`: for messages.
    pub fn describe(&self) -> String {
        let mut s = match (&self.package, &self.kind) {
            (Some(p), TargetKind::Bin(b)) => format!("{p}/{b}"),
            (None, TargetKind::Bin(b)) => format!("bin {b}"),
            (Some(p), TargetKind::Bench(b)) => format!("{p}/bench {b}"),
            (None, TargetKind::Bench(b)) => format!("bench {b}"),
        };
        if !self.features.is_empty() {
            s += &format!(" [features {}]", self.features.join(","));
        }
        s
    }

    /// A directory name for the commit cache that no other target shares: the package (or
    /// `current`), then the kind, name and a hash of the rest when any of it is set. A plain
    /// `--bin` keeps the cache layout of earlier versions (`<package>/<bin>`).
    pub fn cache_key(&self) -> (String, String) {
        let package = self.package.clone().unwrap_or_else(|| "current".into());
        let plain = self.features.is_empty() && self.manifest.is_none() && self.dir.as_os_str().is_empty();
        match &self.kind {
            TargetKind::Bin(b) if plain => (package, b.clone()),
            kind => {
                let manifest = self.manifest.as_deref().map(Path::to_string_lossy).unwrap_or_default();
                let dir = self.dir.to_string_lossy();
                let hash = super::base_ref::fnv(&[&self.features.join(","), &manifest, &dir]);
                (package, format!("{}-{}-{}", kind.word(), kind.name(), &hash[..8]))
            }
        }
    }

    /// The cargo profile: `release` for a bin, `bench` (release settings, as `cargo bench`) for
    /// a bench target. Both put executables under `<target>/release`.
    fn profile(&self) -> &'static str {
        match self.kind {
            TargetKind::Bin(_) => "release",
            TargetKind::Bench(_) => "bench",
        }
    }

    /// The selection flags, shared by `cargo build` and `cargo metadata` (manifest only).
    fn manifest_args(&self, root: &Path) -> Vec<String> {
        match &self.manifest {
            Some(m) => vec!["--manifest-path".into(), root.join(m).to_string_lossy().into_owned()],
            None => Vec::new(),
        }
    }

    /// `cargo build` for this target in the checkout at `root`, into `target`: the executable's
    /// path, or cargo's last lines. Diagnostics go to `log`.
    pub fn cargo_build(&self, root: &Path, target: &Path, log: &Path) -> Result<PathBuf, String> {
        if let Some(parent) = log.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("creating {}: {e}", parent.display()))?;
        }
        let mut cmd = cargo();
        cmd.current_dir(root.join(&self.dir))
            .env("CARGO_TARGET_DIR", target)
            .args(["build", "--profile", self.profile(), "--message-format", "json-render-diagnostics"])
            .args(self.manifest_args(root));
        if let Some(p) = &self.package {
            cmd.args(["-p", p]);
        }
        cmd.arg(format!("--{}", self.kind.word())).arg(self.kind.name());
        if !self.features.is_empty() {
            cmd.arg("--features").arg(self.features.join(","));
        }
        let out = cmd.stdin(Stdio::null()).output().map_err(|e| format!("cannot run cargo: {e}"))?;
        let text = String::from_utf8_lossy(&out.stderr);
        let _ = std::fs::write(log, text.as_bytes());
        if !out.status.success() {
            let lines: Vec<&str> = text.lines().collect();
            let tail = lines[lines.len().saturating_sub(20)..].join("\n");
            return Err(format!("cargo build exited with {} (log: {}):\n{tail}", out.status, log.display()));
        }
        executable(&String::from_utf8_lossy(&out.stdout), &self.kind)
            .ok_or_else(|| format!("cargo built no executable for {} (log: {})", self.describe(), log.display()))
    }

    /// Whether the target exists in the checkout at `root`, by `cargo metadata --no-deps`: `Err`
    /// names the targets of this kind that do exist. A metadata failure is not judged here (the
    /// build says what is wrong).
    pub fn check_exists(&self, root: &Path) -> Result<(), String> {
        let out = cargo()
            .current_dir(root.join(&self.dir))
            .args(["metadata", "--no-deps", "--format-version", "1"])
            .args(self.manifest_args(root))
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output();
        let Ok(out) = out else { return Ok(()) };
        let Ok(meta) = serde_json::from_slice::<serde_json::Value>(&out.stdout) else {
            return Ok(());
        };
        let word = self.kind.word();
        let mut found = Vec::new();
        let packages: Vec<&str> = meta["packages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["name"].as_str())
            .collect();
        if let Some(p) = self.package.as_deref().filter(|p| !packages.contains(p)) {
            return Err(format!(
                "no package `{p}` here (packages: {}); name one with --package, and --bin or --bench",
                packages.join(", ")
            ));
        }
        for pkg in meta["packages"].as_array().into_iter().flatten() {
            let pname = pkg["name"].as_str().unwrap_or_default();
            if self.package.as_deref().is_some_and(|p| p != pname) {
                continue;
            }
            for t in pkg["targets"].as_array().into_iter().flatten() {
                let is_kind = t["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == word));
                if is_kind {
                    found.push(t["name"].as_str().unwrap_or_default().to_owned());
                }
            }
        }
        if found.iter().any(|n| n == self.kind.name()) {
            return Ok(());
        }
        found.sort();
        found.dedup();
        let scope = self.package.as_deref().map_or(String::new(), |p| format!(" of package {p}"));
        let there = if found.is_empty() {
            format!("there are no {word} targets{scope}")
        } else {
            format!("{word} targets{scope} there: {}", found.join(", "))
        };
        Err(format!("no {word} target `{}`{scope}; {there}", self.kind.name()))
    }
}

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

/// The executable cargo reported for `kind` among its JSON messages (`compiler-artifact` with
/// the target's name and kind).
fn executable(json_lines: &str, kind: &TargetKind) -> Option<PathBuf> {
    json_lines
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == kind.name())
        .filter(|m| m["target"]["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == kind.word())))
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_executable_of_the_named_target_only() {
        let lines = [
            r#"{"reason":"compiler-artifact","target":{"name":"walk","kind":["lib"]},"executable":null}"#,
            r#"{"reason":"compiler-artifact","target":{"name":"walk","kind":["bin"]},"executable":"/t/release/walk"}"#,
            r#"{"reason":"compiler-artifact","target":{"name":"walk","kind":["bench"]},"executable":"/t/release/deps/walk-1a2b"}"#,
            r#"{"reason":"build-finished","success":true}"#,
        ]
        .join("\n");
        assert_eq!(
            executable(&lines, &TargetKind::Bench("walk".into())),
            Some(PathBuf::from("/t/release/deps/walk-1a2b"))
        );
        assert_eq!(
            executable(&lines, &TargetKind::Bin("walk".into())),
            Some(PathBuf::from("/t/release/walk"))
        );
        assert_eq!(executable(&lines, &TargetKind::Bin("other".into())), None);
    }

    #[test]
    fn cache_keys_differ_by_kind_features_and_place_and_keep_the_plain_layout() {
        let plain = BuildTarget::bin("scenarios", "scenarios");
        assert_eq!(plain.cache_key(), ("scenarios".into(), "scenarios".into()));
        let bench = BuildTarget {
            kind: TargetKind::Bench("scenarios".into()),
            ..plain.clone()
        };
        let featured = BuildTarget {
            features: vec!["x".into()],
            ..bench.clone()
        };
        let elsewhere = BuildTarget {
            dir: "crates/a".into(),
            ..bench.clone()
        };
        let keys = [plain.cache_key(), bench.cache_key(), featured.cache_key(), elsewhere.cache_key()];
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert!(bench.cache_key().1.starts_with("bench-scenarios-"));
    }
}
