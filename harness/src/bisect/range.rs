//! `CommitRange`: the commits from `--good` to `--bad`, in order, and the checks on them (both
//! resolve to commits, good is an ancestor of bad and not bad itself).
//!
//! The range is bad's first-parent line back to good, so a merged branch is one step (its merge
//! commit) as in `git log --first-parent`; when good is off that line, the ancestry path in
//! topological order (`git rev-list --ancestry-path --topo-order`), which assumes a change, once
//! in, stays in.

use std::path::Path;

use crate::compare::git;
use crate::errors::Error;

/// One commit of the range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Commit {
    pub id: String,
    pub subject: String,
}

/// `commits[0]` is good, the last is bad.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CommitRange {
    pub commits: Vec<Commit>,
    /// How the range was ordered, when that is worth saying.
    pub note: Option<String>,
}

fn bad_flag(flag: &'static str, value: &str, reason: impl Into<String>) -> Error {
    Error::InvalidFlag {
        flag,
        value: value.to_owned(),
        reason: reason.into(),
    }
}

fn resolve(root: &Path, flag: &'static str, rev: &str) -> Result<String, Error> {
    let spec = format!("{rev}^{{commit}}");
    git(root, &["rev-parse", "--verify", "--quiet", &spec], "resolving a ref")
        .map_err(|_| bad_flag(flag, rev, format!("not a commit in the repository at {}", root.display())))
}

fn subjects(root: &Path, ids: &[String]) -> Result<Vec<Commit>, Error> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut args = vec!["show", "-s", "--format=%H %s"];
    args.extend(ids.iter().map(String::as_str));
    let text = git(root, &args, "reading commit subjects")?;
    Ok(text
        .lines()
        .map(|l| {
            let (id, subject) = l.split_once(' ').unwrap_or((l, ""));
            Commit {
                id: id.to_owned(),
                subject: subject.to_owned(),
            }
        })
        .collect())
}

impl CommitRange {
    /// The range from `good` to `bad` in the repository at `root`.
    pub fn resolve(root: &Path, good: &str, bad: &str) -> Result<CommitRange, Error> {
        let g = resolve(root, "--good", good)?;
        let b = resolve(root, "--bad", bad)?;
        if g == b {
            return Err(bad_flag(
                "--good",
                good,
                format!("is the same commit as --bad {bad} ({})", &b[..12]),
            ));
        }
        let ancestor = std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["merge-base", "--is-ancestor", &g, &b])
            .status()
            .map_err(|source| Error::Io {
                what: "running git merge-base".into(),
                source,
            })?;
        if !ancestor.success() {
            return Err(bad_flag(
                "--good",
                good,
                format!("is not an ancestor of --bad {bad}: bisect looks for the commit between them that changed the value"),
            ));
        }
        let span = format!("{g}..{b}");
        let list = |extra: &[&str]| -> Result<Vec<String>, Error> {
            let mut args = vec!["rev-list", "--reverse"];
            args.extend(extra);
            args.push(&span);
            Ok(git(root, &args, "listing the range")?.lines().map(str::to_owned).collect())
        };
        let first_parent = list(&["--first-parent"])?;
        let parent_of_first = match first_parent.first() {
            Some(c) => git(root, &["rev-parse", &format!("{c}^1")], "reading a parent").ok(),
            None => None,
        };
        let (ids, note) = if parent_of_first.as_deref() == Some(g.as_str()) {
            (first_parent, None)
        } else {
            let ids = list(&["--ancestry-path", "--topo-order"])?;
            let note = format!(
                "--good is not on --bad's first-parent line: the {} commits between them are in topological order, \
                 which assumes the change, once in, stays in",
                ids.len()
            );
            (ids, Some(note))
        };
        let mut commits = subjects(root, std::slice::from_ref(&g))?;
        commits.extend(subjects(root, &ids)?);
        Ok(CommitRange { commits, note })
    }

    /// The last index (bad's).
    pub fn last(&self) -> usize {
        self.commits.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn repo(dir: &Path) -> impl Fn(&[&str]) -> String + '_ {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).unwrap();
        move |args: &[&str]| {
            let out = Command::new("git")
                .arg("-C")
                .arg(dir)
                .args(["-c", "user.name=t", "-c", "user.email=t@t"])
                .args(args)
                .output()
                .unwrap();
            assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8_lossy(&out.stdout).trim().to_owned()
        }
    }

    /// A line of commits with a merged side branch: the first-parent range counts the merge as
    /// one step; good on the side branch gives the ancestry path with a note; bad refs, a good
    /// that is not an ancestor and good equal to bad are errors naming the flag.
    #[test]
    fn ranges_follow_the_first_parent_line_and_refuse_bad_ends() {
        let dir = std::env::temp_dir().join(format!("harness-bisect-range-{}", std::process::id()));
        let g = repo(&dir);
        g(&["init", "-q", "-b", "main"]);
        let mut ids = Vec::new();
        for i in 0..3 {
            g(&["commit", "-q", "--allow-empty", "-m", &format!("c{i}")]);
            ids.push(g(&["rev-parse", "HEAD"]));
        }
        g(&["checkout", "-q", "-b", "side", "HEAD~1"]);
        g(&["commit", "-q", "--allow-empty", "-m", "side work"]);
        let side = g(&["rev-parse", "HEAD"]);
        g(&["checkout", "-q", "main"]);
        g(&["merge", "-q", "--no-ff", "-m", "merge side", "side"]);
        let merge = g(&["rev-parse", "HEAD"]);

        let r = CommitRange::resolve(&dir, &ids[0], "main").unwrap();
        let got: Vec<&str> = r.commits.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(got, [ids[0].as_str(), ids[1].as_str(), ids[2].as_str(), merge.as_str()]);
        assert_eq!((r.commits[3].subject.as_str(), r.note.is_none(), r.last()), ("merge side", true, 3));

        let r = CommitRange::resolve(&dir, &side, "main").unwrap();
        assert_eq!(
            r.commits.iter().map(|c| c.id.clone()).collect::<Vec<_>>(),
            [side.clone(), merge.clone()]
        );
        assert!(r.note.as_deref().unwrap_or("").contains("topological"), "{r:?}");
        let r = CommitRange::resolve(&dir, &ids[1], "main").unwrap();
        assert_eq!((r.commits.len(), r.note.is_none()), (3, true), "{r:?}");

        let err = |good: &str, bad: &str| CommitRange::resolve(&dir, good, bad).unwrap_err().to_string();
        assert!(err("nope", "main").contains("'--good'"));
        assert!(err(&ids[0], "nope~3").contains("'--bad'"));
        assert!(err("main", &ids[0]).contains("not an ancestor"));
        assert!(err("main", "main").contains("same commit"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
