//! `--base-ref REF`: the baseline built from a git ref in a temporary worktree and the candidate
//! from the working tree, both with `cargo build --release -p PACKAGE --bin BIN`, so a
//! pull-request job is one command. The commit ids go into compare-run.json and compare.md.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::options::CompareOptions;
use crate::errors::Error;

/// The two binaries and where they came from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Built {
    pub baseline: PathBuf,
    pub candidate: PathBuf,
    /// The ref's commit id.
    pub baseline_commit: String,
    /// HEAD's commit id, with `-dirty` when the working tree differs from it.
    pub candidate_commit: String,
}

fn fail(what: String, detail: String) -> Error {
    Error::Io {
        what,
        source: std::io::Error::other(detail),
    }
}

/// Run `cmd`, returning its trimmed stdout, or an error naming what it was for.
fn output(cmd: &mut Command, what: &str) -> Result<String, Error> {
    let out = cmd.output().map_err(|source| Error::Io {
        what: what.to_owned(),
        source,
    })?;
    if !out.status.success() {
        return Err(fail(what.to_owned(), String::from_utf8_lossy(&out.stderr).trim().to_owned()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn git(dir: &Path, args: &[&str], what: &str) -> Result<String, Error> {
    output(Command::new("git").arg("-C").arg(dir).args(args), what)
}

/// `cargo build --release -p package --bin bin` in `dir` into `target`; the binary's path.
fn build(dir: &Path, target: &Path, package: &str, bin: &str, what: &str) -> Result<PathBuf, Error> {
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .args(["build", "--release", "-p", package, "--bin", bin])
        .status()
        .map_err(|source| Error::Io {
            what: what.to_owned(),
            source,
        })?;
    if !status.success() {
        return Err(fail(what.to_owned(), format!("cargo build exited with {status}")));
    }
    Ok(target.join("release").join(format!("{bin}{}", std::env::consts::EXE_SUFFIX)))
}

/// Build the baseline from `git_ref` and the candidate from the working tree of the repository
/// holding `dir`. Base builds go to `target/compare-base` (kept, so the next run is incremental);
/// the baseline binary is copied to `out` so a later build cannot change it under the comparison.
pub(crate) fn build_pair(dir: &Path, git_ref: &str, package: &str, bin: &str, out: &Path) -> Result<Built, Error> {
    let root = PathBuf::from(git(
        dir,
        &["rev-parse", "--show-toplevel"],
        "finding the git repository (--base-ref)",
    )?);
    let spec = format!("{git_ref}^{{commit}}");
    let base = git(&root, &["rev-parse", "--verify", "--quiet", &spec], "resolving --base-ref").map_err(|_| Error::InvalidFlag {
        flag: "--base-ref",
        value: git_ref.to_owned(),
        reason: format!("not a commit in the repository at {}", root.display()),
    })?;
    let head = git(&root, &["rev-parse", "HEAD"], "resolving HEAD")?;
    let dirty = !git(&root, &["status", "--porcelain", "--untracked-files=no"], "reading git status")?.is_empty();
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let tree = std::env::temp_dir().join(format!("harness-base-{}-{}", std::process::id(), &base[..12]));
    let tree_s = tree.to_string_lossy().into_owned();
    git(
        &root,
        &["worktree", "add", "--detach", &tree_s, &base],
        "adding a worktree for --base-ref",
    )?;
    let built = build(
        &tree,
        &target.join("compare-base"),
        package,
        bin,
        &format!("building {package}/{bin} at {git_ref}"),
    );
    let _ = git(
        &root,
        &["worktree", "remove", "--force", &tree_s],
        "removing the --base-ref worktree",
    );
    let built = built?;
    std::fs::create_dir_all(out).map_err(|source| Error::OutDir {
        path: out.to_owned(),
        source,
    })?;
    let baseline = out.join(format!("baseline-{bin}{}", std::env::consts::EXE_SUFFIX));
    std::fs::copy(&built, &baseline).map_err(|source| Error::Io {
        what: format!("copying {} to {}", built.display(), baseline.display()),
        source,
    })?;
    let candidate_built = build(
        &root,
        &target,
        package,
        bin,
        &format!("building {package}/{bin} from the working tree"),
    )?;
    let candidate = out.join(format!("candidate-{bin}{}", std::env::consts::EXE_SUFFIX));
    std::fs::copy(&candidate_built, &candidate).map_err(|source| Error::Io {
        what: format!("copying {} to {}", candidate_built.display(), candidate.display()),
        source,
    })?;
    Ok(Built {
        baseline,
        candidate,
        baseline_commit: base,
        candidate_commit: if dirty { format!("{head}-dirty") } else { head },
    })
}

/// `opts` with `--base-ref` resolved: both binaries built (into a directory under the system
/// temp dir that lives as long as the process) and set as baseline and candidate.
pub(crate) fn resolve(opts: &CompareOptions) -> Result<(CompareOptions, Option<Built>), Error> {
    let Some(b) = &opts.base_ref else { return Ok((opts.clone(), None)) };
    let cwd = std::env::current_dir().map_err(|source| Error::Io {
        what: "reading the current directory (--base-ref)".into(),
        source,
    })?;
    let bins = std::env::temp_dir().join(format!("harness-compare-bins-{}", std::process::id()));
    // The binaries must outlive this call (the comparison runs them), so the directory is left
    // for the system's temp cleanup; each holds two binaries.
    eprintln!(
        "compare: building {}/{} at {} and from the working tree",
        b.package, b.bin, b.git_ref
    );
    let built = build_pair(&cwd, &b.git_ref, &b.package, &b.bin, &bins)?;
    let mut o = opts.clone();
    o.baseline = built.baseline.clone();
    o.candidate = built.candidate.clone();
    Ok((o, Some(built)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-file crate committed printing "old", then changed in the working tree to print
    /// "new": the baseline built from HEAD prints "old", the candidate "new", and the candidate's
    /// commit is marked dirty. A bad ref is an error naming `--base-ref`.
    #[test]
    fn builds_the_ref_and_the_working_tree() {
        let dir = std::env::temp_dir().join(format!("harness-baseref-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        )
        .unwrap();
        std::fs::write(dir.join("src/main.rs"), "fn main() { println!(\"old\"); }\n").unwrap();
        std::fs::write(dir.join(".gitignore"), "target/\nout/\n").unwrap();
        let g = |args: &[&str]| {
            let ok = Command::new("git").arg("-C").arg(&dir).args(args).output().unwrap();
            assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
        };
        g(&["init", "-q"]);
        g(&["add", "."]);
        g(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "old"]);
        std::fs::write(dir.join("src/main.rs"), "fn main() { println!(\"new\"); }\n").unwrap();
        // The builds go to the temp crate's target/ (no CARGO_TARGET_DIR in a test's env).
        let built = build_pair(&dir, "HEAD", "tiny", "tiny", &dir.join("out")).unwrap();
        let run = |p: &Path| String::from_utf8(Command::new(p).output().unwrap().stdout).unwrap();
        assert_eq!((run(&built.baseline).trim(), run(&built.candidate).trim()), ("old", "new"));
        assert!(built.candidate_commit.ends_with("-dirty") && built.candidate_commit.starts_with(&built.baseline_commit));
        let e = build_pair(&dir, "no-such-ref", "tiny", "tiny", &dir.join("out"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("--base-ref"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
