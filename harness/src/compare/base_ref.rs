//! `--base-ref REF` and the [`Builder`] that `compare` and `bisect` share: a commit's
//! [`BuildTarget`] (`--bin` or `--bench`, see `build_target`), cached per commit. The candidate of `compare`
//! is built from the working tree, so a pull-request job is one command; the commit ids go into
//! compare-run.json and compare.md.
//!
//! Every commit is built in one fixed worktree (`<target>/harness-builds/repos/<repo hash>/tree`),
//! checked out at that commit, into one target directory kept for all of them (`.../target`
//! beside it): dependencies compile once, and between two commits cargo rebuilds only the crates
//! whose files the checkout changed. A fresh worktree per commit (the
//! old way) rebuilt every workspace crate, as every file was new (docs/bisect.md has the
//! timings). The commit builds cannot share the working tree's own target directory: cargo
//! names a workspace crate's artifacts by its path relative to the workspace root, the same in
//! every checkout, and judges freshness by mtimes, so a working-tree build after a worktree
//! build of another commit would keep the other commit's binary (a test below builds exactly
//! that case). For the same reason each repository has a worktree and target directory of its
//! own, even where several share a `CARGO_TARGET_DIR`. A built binary is copied to
//! `<target>/harness-builds/<toolchain key>/<commit>/<package>/<bin>` (a bench or a featured build
//! under a name of its own) and never rebuilt: a second
//! bisect or compare on the same commits builds nothing. A commit that fails to build leaves
//! `<bin>.failed` there with cargo's output, so it is skipped again without a build (delete the
//! file to retry).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::build_target::BuildTarget;
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

/// A build that failed: cargo's exit and the tail of its output.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BuildFailed {
    /// What was built (`scenarios/scenarios at 1a2b3c4`).
    pub what: String,
    /// The last lines cargo printed, or why cargo could not run.
    pub detail: String,
    /// Whether this failure was read from the cache (no build ran now).
    pub cached: bool,
}

impl BuildFailed {
    /// As the error `compare` reports.
    pub fn into_error(self) -> Error {
        fail(format!("building {}", self.what), self.detail)
    }
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

/// `git -C dir ARGS`, its trimmed stdout.
pub(crate) fn git(dir: &Path, args: &[&str], what: &str) -> Result<String, Error> {
    output(Command::new("git").arg("-C").arg(dir).args(args), what)
}

/// FNV-1a, 64 bits: a hash that stays the same across Rust releases (cache directory names).
pub(super) fn fnv(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain([0]) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// What else decides a binary besides its commit: the toolchain (`rustc -vV`) and the flags and
/// profile overrides in the environment. Binaries built under another key are never reused.
fn toolchain_key() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("-vV")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let mut env: Vec<String> = std::env::vars()
        .filter(|(k, _)| k.starts_with("CARGO_PROFILE_") || k.ends_with("RUSTFLAGS") || k == "CARGO_BUILD_TARGET")
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    env.sort();
    let mut parts = vec![version.as_str()];
    parts.extend(env.iter().map(String::as_str));
    fnv(&parts)
}

/// An exclusive `flock` on `path`, released when dropped: one build in the shared worktree at a
/// time, across processes. The file is held only for its descriptor: closing it unlocks.
struct Lock(#[expect(dead_code, reason = "held, not read: dropping it releases the lock")] std::fs::File);

impl Lock {
    fn take(path: &Path) -> std::io::Result<Lock> {
        use std::os::fd::AsRawFd;
        let f = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(path)?;
        // SAFETY: flock on a descriptor this function owns; no memory is shared.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            eprintln!("waiting for another build in {} to finish", path.display());
            // SAFETY: as above.
            if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(Lock(f))
    }
}

/// Builds one [`BuildTarget`] at commits of one repository, each once (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct Builder {
    /// The repository's top level.
    root: PathBuf,
    /// `$CARGO_TARGET_DIR` or the repository's `target/`: the working tree builds there, the
    /// commits under its `harness-builds/`.
    target: PathBuf,
    /// What is built, its paths relative to `root`.
    what: BuildTarget,
    /// `harness-builds/<toolchain key>`.
    cache: PathBuf,
}

/// Why a [`Builder`] cannot be made.
#[derive(Debug)]
pub(crate) enum BuilderError {
    /// `dir` is not inside a git repository.
    NotARepository,
    /// `--manifest-path` names no file inside the repository.
    Manifest(String),
}

impl Builder {
    /// A builder for the repository holding `dir`, building `what` from `dir` (cargo runs there,
    /// so the current crate of a workspace is the default package); a relative
    /// `--manifest-path` is read from `dir`. The target directory is `$CARGO_TARGET_DIR` or the
    /// repository's `target/`.
    pub fn new(dir: &Path, mut what: BuildTarget) -> Result<Builder, BuilderError> {
        let top = git(dir, &["rev-parse", "--show-toplevel"], "finding the git repository").map_err(|_| BuilderError::NotARepository)?;
        let root = PathBuf::from(top);
        let canonical_root = root.canonicalize().unwrap_or_else(|_| root.clone());
        let inside = |p: &Path| -> Option<PathBuf> {
            let p = p.canonicalize().ok()?;
            p.strip_prefix(&canonical_root).ok().map(Path::to_owned)
        };
        what.dir = inside(dir).unwrap_or_default();
        if let Some(m) = what.manifest.take() {
            let rel = inside(&dir.join(&m))
                .ok_or_else(|| BuilderError::Manifest(format!("{} is not a file in the repository at {}", m.display(), root.display())))?;
            what.manifest = Some(rel);
        }
        let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
        let target = if target.is_absolute() { target } else { root.join(target) };
        let cache = target.join("harness-builds").join(toolchain_key());
        Ok(Builder { root, target, what, cache })
    }

    /// What this builder builds.
    pub fn target_built(&self) -> &BuildTarget {
        &self.what
    }

    /// The repository's top level.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `rev`'s full commit id, or `None` when it names no commit.
    pub fn resolve(&self, rev: &str) -> Option<String> {
        let spec = format!("{rev}^{{commit}}");
        git(&self.root, &["rev-parse", "--verify", "--quiet", &spec], "resolving a ref").ok()
    }

    /// Where `commit`'s binary is (or will be) cached.
    pub fn cached(&self, commit: &str) -> PathBuf {
        let (dir, name) = self.what.cache_key();
        self.cache
            .join(commit)
            .join(dir)
            .join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
    }

    fn beside_cached(&self, commit: &str, suffix: &str) -> PathBuf {
        let (dir, name) = self.what.cache_key();
        self.cache.join(commit).join(dir).join(format!("{name}.{suffix}"))
    }

    fn failed_marker(&self, commit: &str) -> PathBuf {
        self.beside_cached(commit, "failed")
    }

    fn what(&self, commit: &str) -> String {
        format!("{} at {}", self.what.describe(), &commit[..commit.len().min(12)])
    }

    /// Whether the target exists at `commit` (checked out in the build worktree) or, with
    /// `None`, in the working tree; `Err` names what exists there.
    pub fn check_target(&self, commit: Option<&str>) -> Result<(), String> {
        match commit {
            None => self.what.check_exists(&self.root),
            Some(c) => {
                if self.cached(c).is_file() {
                    return Ok(());
                }
                let repo = self.repo_dir();
                std::fs::create_dir_all(&repo).map_err(|e| format!("creating {}: {e}", repo.display()))?;
                let _lock = Lock::take(&repo.join("lock")).map_err(|e| format!("locking {}: {e}", repo.display()))?;
                let tree = repo.join("tree");
                self.checkout(&tree, c).map_err(|e| e.to_string())?;
                self.what.check_exists(&tree)
            }
        }
    }

    fn repo_dir(&self) -> PathBuf {
        self.target
            .join("harness-builds")
            .join("repos")
            .join(fnv(&[&self.root.to_string_lossy()]))
    }

    /// `commit`'s binary: from the cache, or built now in the shared worktree.
    pub fn build_commit(&self, commit: &str) -> Result<PathBuf, BuildFailed> {
        let dest = self.cached(commit);
        let failed = |detail: String, cached: bool| BuildFailed {
            what: self.what(commit),
            detail,
            cached,
        };
        let io = |e: Error| failed(e.to_string(), false);
        if dest.is_file() {
            return Ok(dest);
        }
        if let Ok(detail) = std::fs::read_to_string(self.failed_marker(commit)) {
            return Err(failed(detail, true));
        }
        let repo = self.repo_dir();
        std::fs::create_dir_all(&repo).map_err(|e| failed(format!("creating {}: {e}", repo.display()), false))?;
        let tree = repo.join("tree");
        let _lock = Lock::take(&repo.join("lock")).map_err(|e| failed(format!("locking {}: {e}", repo.display()), false))?;
        if dest.is_file() {
            return Ok(dest); // another process built it while this one waited
        }
        self.checkout(&tree, commit).map_err(io)?;
        eprintln!("building {}", self.what(commit));
        let log = self.beside_cached(commit, "build.log");
        match self.what.cargo_build(&tree, &repo.join("target"), &log) {
            Ok(built) => install(&built, &dest).map_err(io)?,
            Err(detail) => {
                let _ = std::fs::write(self.failed_marker(commit), &detail);
                return Err(failed(detail, false));
            }
        }
        Ok(dest)
    }

    /// `tree` as a clean checkout of `commit`: the worktree reused when it is this repository's,
    /// made afresh otherwise (first use, or a left-over of another repository).
    fn checkout(&self, tree: &Path, commit: &str) -> Result<(), Error> {
        let tree_s = tree.to_string_lossy().into_owned();
        let common = |d: &Path| {
            git(
                d,
                &["rev-parse", "--path-format=absolute", "--git-common-dir"],
                "reading a worktree",
            )
        };
        let ours = tree.join(".git").exists() && common(tree).ok() == common(&self.root).ok();
        if ours {
            git(
                tree,
                &["checkout", "--quiet", "--detach", "--force", commit],
                "checking out the build worktree",
            )?;
            git(tree, &["clean", "-ffdxq"], "cleaning the build worktree")?;
            return Ok(());
        }
        let _ = std::fs::remove_dir_all(tree);
        let _ = git(&self.root, &["worktree", "prune"], "pruning worktrees");
        git(
            &self.root,
            &["worktree", "add", "--quiet", "--detach", "--force", &tree_s, commit],
            "adding the build worktree",
        )?;
        Ok(())
    }

    /// The working tree's binary, built in place into the shared target directory.
    pub fn build_working_tree(&self) -> Result<PathBuf, BuildFailed> {
        let log = self.target.join("harness-builds").join("working-tree.build.log");
        self.what.cargo_build(&self.root, &self.target, &log).map_err(|detail| BuildFailed {
            what: format!("{} from the working tree", self.what.describe()),
            detail,
            cached: false,
        })
    }
}

/// Copy `built` to `dest` through a temporary name, so a cached binary is whole or absent.
fn install(built: &Path, dest: &Path) -> Result<(), Error> {
    let tmp = dest.with_extension(format!("tmp{}", std::process::id()));
    std::fs::copy(built, &tmp)
        .and_then(|_| std::fs::rename(&tmp, dest))
        .map_err(|source| Error::Io {
            what: format!("caching {} as {}", built.display(), dest.display()),
            source,
        })
}

/// `dir`'s repository and what to build there, or an error naming the flag at fault.
pub(crate) fn builder(dir: &Path, what: BuildTarget, flag: &'static str, value: &str) -> Result<Builder, Error> {
    Builder::new(dir, what).map_err(|e| match e {
        BuilderError::NotARepository => Error::InvalidFlag {
            flag,
            value: value.to_owned(),
            reason: format!("{} is not in a git repository", dir.display()),
        },
        BuilderError::Manifest(reason) => Error::InvalidFlag {
            flag: "--manifest-path",
            value: String::new(),
            reason,
        },
    })
}

/// The flag that named the target (`--bench` or `--bin`), for errors about it.
pub(crate) fn target_flag(what: &BuildTarget) -> &'static str {
    match what.kind {
        super::build_target::TargetKind::Bin(_) => "--bin",
        super::build_target::TargetKind::Bench(_) => "--bench",
    }
}

/// Build the baseline from `git_ref` and the candidate from the working tree of the repository
/// holding `dir`. The baseline comes from the commit cache (built at most once); the candidate
/// binary is copied to `out` so a later build cannot change it under the comparison. Before
/// either build, the target must exist in the working tree and at the ref: otherwise the error
/// names the side and lists the targets there (exit 2, nothing built or measured).
pub(crate) fn build_pair(dir: &Path, git_ref: &str, what: BuildTarget, out: &Path) -> Result<Built, Error> {
    let builder = builder(dir, what, "--base-ref", git_ref)?;
    let what = builder.target_built().clone();
    let flag = target_flag(&what);
    let root = builder.root().to_owned();
    let base = builder.resolve(git_ref).ok_or_else(|| Error::InvalidFlag {
        flag: "--base-ref",
        value: git_ref.to_owned(),
        reason: format!("not a commit in the repository at {}", root.display()),
    })?;
    let short = &base[..base.len().min(12)];
    let missing = |side: String, why: String| Error::InvalidFlag {
        flag,
        value: what.kind.name().to_owned(),
        reason: format!("{side}: {why}"),
    };
    builder
        .check_target(None)
        .map_err(|why| missing("in the working tree".into(), why))?;
    builder
        .check_target(Some(&base))
        .map_err(|why| missing(format!("at --base-ref {git_ref} ({short})"), why))?;
    let head = git(&root, &["rev-parse", "HEAD"], "resolving HEAD")?;
    let dirty = !git(&root, &["status", "--porcelain", "--untracked-files=no"], "reading git status")?.is_empty();
    let baseline = builder.build_commit(&base).map_err(|f| Error::InvalidFlag {
        flag: "--base-ref",
        value: git_ref.to_owned(),
        reason: format!("{} does not build at {short}: {}", what.describe(), f.detail),
    })?;
    let candidate_built = builder.build_working_tree().map_err(BuildFailed::into_error)?;
    std::fs::create_dir_all(out).map_err(|source| Error::OutDir {
        path: out.to_owned(),
        source,
    })?;
    let name = what.kind.name();
    let candidate = out.join(format!("candidate-{name}{}", std::env::consts::EXE_SUFFIX));
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

/// `opts` with `--base-ref` resolved: both binaries built (the candidate copied into a directory
/// under the system temp dir that lives as long as the process) and set as baseline and candidate.
pub(crate) fn resolve(opts: &CompareOptions) -> Result<(CompareOptions, Option<Built>), Error> {
    let Some(b) = &opts.base_ref else { return Ok((opts.clone(), None)) };
    let cwd = std::env::current_dir().map_err(|source| Error::Io {
        what: "reading the current directory (--base-ref)".into(),
        source,
    })?;
    let bins = std::env::temp_dir().join(format!("harness-compare-bins-{}", std::process::id()));
    // The binary must outlive this call (the comparison runs it), so the directory is left for
    // the system's temp cleanup; it holds one binary.
    eprintln!(
        "compare: building {} at {} (cached per commit) and from the working tree",
        b.target.describe(),
        b.git_ref
    );
    let built = build_pair(&cwd, &b.git_ref, b.target.clone(), &bins)?;
    let mut o = opts.clone();
    o.baseline = built.baseline.clone();
    o.candidate = built.candidate.clone();
    Ok((o, Some(built)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny_repo(dir: &Path) -> impl Fn(&[&str]) -> String + '_ {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        )
        .unwrap();
        std::fs::write(dir.join(".gitignore"), "target/\nout/\n").unwrap();
        move |args: &[&str]| {
            let ok = Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
            assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
            String::from_utf8_lossy(&ok.stdout).trim().to_owned()
        }
    }

    fn commit(dir: &Path, g: &dyn Fn(&[&str]) -> String, main: &str, msg: &str) -> String {
        std::fs::write(dir.join("src/main.rs"), main).unwrap();
        g(&["add", "."]);
        g(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", msg]);
        g(&["rev-parse", "HEAD"])
    }

    /// A one-file crate committed printing "old", then changed in the working tree to print
    /// "new": the baseline built from HEAD prints "old", the candidate "new", and the candidate's
    /// commit is marked dirty. A bad ref is an error naming `--base-ref`. A second build of the
    /// same commit is the cached file, untouched; a commit that does not compile fails with
    /// cargo's message, and fails again from the cache without running cargo.
    #[test]
    fn builds_the_ref_and_the_working_tree_each_commit_once() {
        let dir = std::env::temp_dir().join(format!("harness-baseref-test-{}", std::process::id()));
        let g = tiny_repo(&dir);
        g(&["init", "-q"]);
        let old = commit(&dir, &g, "fn main() { println!(\"old\"); }\n", "old");
        std::fs::write(dir.join("src/main.rs"), "fn main() { println!(\"new\"); }\n").unwrap();
        // The builds go to the temp crate's target/ (no CARGO_TARGET_DIR in a test's env).
        let built = build_pair(&dir, "HEAD", BuildTarget::bin("tiny", "tiny"), &dir.join("out")).unwrap();
        let run = |p: &Path| String::from_utf8(Command::new(p).output().unwrap().stdout).unwrap();
        assert_eq!((run(&built.baseline).trim(), run(&built.candidate).trim()), ("old", "new"));
        assert!(built.candidate_commit.ends_with("-dirty") && built.candidate_commit.starts_with(&built.baseline_commit));
        let e = build_pair(&dir, "no-such-ref", BuildTarget::bin("tiny", "tiny"), &dir.join("out"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("--base-ref"), "{e}");

        let builder = Builder::new(&dir, BuildTarget::bin("tiny", "tiny")).unwrap();
        let stamp = std::fs::metadata(&built.baseline).unwrap().modified().unwrap();
        assert_eq!(builder.build_commit(&old).unwrap(), built.baseline);
        assert_eq!(
            std::fs::metadata(&built.baseline).unwrap().modified().unwrap(),
            stamp,
            "not rebuilt"
        );
        g(&["checkout", "-q", "--", "."]);
        let broken = commit(&dir, &g, "fn main() { this does not compile }\n", "broken");
        let first = builder.build_commit(&broken).unwrap_err();
        assert!(!first.cached && first.detail.contains("cargo build exited"), "{first:?}");
        let again = builder.build_commit(&broken).unwrap_err();
        assert!(again.cached && again.detail == first.detail, "{again:?}");
        // The shared worktree went back to the good commit and built it again from the cache.
        assert_eq!(run(&builder.build_commit(&old).unwrap()).trim(), "old");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
