//! `Footprint`: what one test did to the environment, the current directory and files in one
//! process, read from the records `harness_interpose` (the `interpose/` crate) wrote there, and
//! [`split`], which cuts a process's records into one footprint per test.
//!
//! Attribution: a test's records are those between its start marker and the next test's. In a
//! libtest binary the marker is the test thread naming itself (`pthread_setname_np`, which std
//! calls with the first 15 bytes of the test name: the kernel's limit); it is matched against
//! the tests in the order libtest's JSON events say they ran, so truncation never confuses two
//! tests (the k-th marker must be a prefix of the k-th test's name). Under `--test-threads=1` one
//! test runs at a time, so records of threads a test spawned fall in its span too; records of
//! libtest's main thread (its own `getenv`s) are dropped. Suite children call
//! `harness_interpose_mark(name)` with the full name and run scenarios on the main thread.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

/// Record header length; the layout is `interpose/src/record.rs`.
const HEADER: usize = 24;

/// What a record says (numbers as in `interpose/src/record.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Start,
    Mark,
    Thread,
    EnvRead,
    EnvSet,
    EnvUnset,
    EnvClear,
    Chdir,
    FileRead,
    FileWrite,
    FileRemove,
}

impl Kind {
    fn from_u8(k: u8) -> Option<Kind> {
        use Kind::*;
        [
            Start, Mark, Thread, EnvRead, EnvSet, EnvUnset, EnvClear, Chdir, FileRead, FileWrite, FileRemove,
        ]
        .get(usize::from(k))
        .copied()
    }
}

/// One decoded record.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Record {
    kind: Kind,
    pid: u32,
    tid: u32,
    seq: u64,
    text: String,
}

/// Decode a records file; a torn last record (the process died mid-write) is dropped.
fn decode(bytes: &[u8]) -> Vec<Record> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + HEADER <= bytes.len() {
        let u32_at = |o: usize| u32::from_le_bytes(bytes[i + o..i + o + 4].try_into().expect("4 bytes"));
        let len = usize::from(u16::from_le_bytes([bytes[i], bytes[i + 1]]));
        if len < HEADER || i + len > bytes.len() {
            break;
        }
        if let Some(kind) = Kind::from_u8(bytes[i + 2]) {
            out.push(Record {
                kind,
                pid: u32_at(4),
                tid: u32_at(8),
                seq: u64::from_le_bytes(bytes[i + 16..i + 24].try_into().expect("8 bytes")),
                text: String::from_utf8_lossy(&bytes[i + HEADER..i + len]).into_owned(),
            });
        }
        i += len;
    }
    out
}

/// What one test did in one process.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Footprint {
    /// Variables it read (`getenv`).
    pub env_read: BTreeSet<String>,
    /// Variables it set (`setenv`, `putenv`).
    pub env_set: BTreeSet<String>,
    /// Variables it removed (`unsetenv`).
    pub env_unset: BTreeSet<String>,
    /// It cleared the whole environment.
    pub env_cleared: bool,
    /// The directories it started in (one per run).
    pub cwd_start: BTreeSet<String>,
    /// The directory it left the process in, when that differs from where it started.
    pub cwd_left: Option<String>,
    /// Paths it opened, stat-ed, wrote or removed (under the watched roots).
    pub files_touched: BTreeSet<String>,
    /// Paths it created or changed and did not remove.
    pub files_left: BTreeSet<String>,
    /// Paths it removed that it had not created itself.
    pub files_removed: BTreeSet<String>,
}

impl Footprint {
    /// Everything `other` did, added to this one (a test's footprints over several runs).
    pub fn merge(&mut self, other: &Footprint) {
        self.env_read.extend(other.env_read.iter().cloned());
        self.env_set.extend(other.env_set.iter().cloned());
        self.env_unset.extend(other.env_unset.iter().cloned());
        self.env_cleared |= other.env_cleared;
        self.files_touched.extend(other.files_touched.iter().cloned());
        self.files_left.extend(other.files_left.iter().cloned());
        self.files_removed.extend(other.files_removed.iter().cloned());
        self.cwd_start.extend(other.cwd_start.iter().cloned());
        if other.cwd_left.is_some() {
            self.cwd_left = other.cwd_left.clone();
        }
    }
}

/// Lexically normal form of an absolute path (`.` and `..` resolved, no symlinks followed).
fn normal(p: &str) -> String {
    let mut out = PathBuf::from("/");
    for c in Path::new(p).components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(s) => out.push(s),
            _ => {}
        }
    }
    out.to_string_lossy().into_owned()
}

/// Builds one test's footprint from its records in order.
#[derive(Default)]
struct Span {
    fp: Footprint,
    /// Per path: its first and its last change (true: written, false: removed).
    changes: BTreeMap<String, (bool, bool)>,
}

impl Span {
    fn start(cwd: &str) -> Span {
        let mut s = Span::default();
        s.fp.cwd_start.insert(cwd.to_owned());
        s
    }

    fn add(&mut self, r: &Record, roots: &[PathBuf], cwd: &str) {
        let fp = &mut self.fp;
        match r.kind {
            Kind::EnvRead => drop(fp.env_read.insert(r.text.clone())),
            Kind::EnvSet => drop(fp.env_set.insert(r.text.clone())),
            Kind::EnvUnset => drop(fp.env_unset.insert(r.text.clone())),
            Kind::EnvClear => fp.env_cleared = true,
            Kind::Chdir => fp.cwd_left = (!fp.cwd_start.contains(cwd)).then(|| cwd.to_owned()),
            Kind::FileRead | Kind::FileWrite | Kind::FileRemove => {
                let path = normal(&r.text);
                if !r.text.starts_with('/') || !roots.iter().any(|root| Path::new(&path).starts_with(root)) {
                    return;
                }
                if r.kind != Kind::FileRead {
                    let write = r.kind == Kind::FileWrite;
                    self.changes.entry(path.clone()).or_insert((write, write)).1 = write;
                }
                fp.files_touched.insert(path);
            }
            Kind::Start | Kind::Mark | Kind::Thread => {}
        }
    }

    fn finish(mut self) -> Footprint {
        for (path, (first, last)) in self.changes {
            if last {
                self.fp.files_left.insert(path);
            } else if !first {
                self.fp.files_removed.insert(path);
            }
        }
        self.fp
    }
}

/// Whether a records file shows the library loaded (its constructor's record is there).
pub fn loaded(bytes: &[u8]) -> bool {
    decode(bytes).iter().any(|r| r.kind == Kind::Start)
}

/// Cut one process's records into footprints for the tests that `ran` there, in that order.
/// `roots` bound the files watched (besides the process's starting directory, which is always
/// one). A test whose start marker is missing gets `None` (not observed); so does every test when
/// the records show the library never loaded.
pub fn split(bytes: &[u8], ran: &[String], roots: &[PathBuf]) -> Vec<Option<Footprint>> {
    let mut records = decode(bytes);
    let mut out: Vec<Option<Footprint>> = vec![None; ran.len()];
    let Some(start) = records.iter().find(|r| r.kind == Kind::Start).cloned() else {
        return out;
    };
    // Forked or exec-ed descendants inherit the preload and append records of their own.
    records.retain(|r| r.pid == start.pid);
    records.sort_by_key(|r| r.seq);
    let mut roots = roots.to_vec();
    roots.push(PathBuf::from(normal(&start.text)));
    let mut cwd = start.text.clone();
    let marked = records.iter().any(|r| r.kind == Kind::Mark);
    let mut current: Option<(usize, Span, bool)> = None;
    let mut next = 0;
    for r in &records {
        if r.kind == Kind::Chdir {
            cwd = r.text.clone();
        }
        let starts = match r.kind {
            Kind::Mark => ran.get(next).is_some_and(|n| *n == r.text),
            // A suite child marks its scenarios; thread names there are the scenarios' own.
            Kind::Thread => !marked && !r.text.is_empty() && ran.get(next).is_some_and(|n| n.starts_with(&r.text)),
            _ => false,
        };
        if starts {
            if let Some((i, span, _)) = current.take() {
                out[i] = Some(span.finish());
            }
            current = Some((next, Span::start(&cwd), r.kind == Kind::Thread));
            next += 1;
            continue;
        }
        if let Some((_, span, libtest)) = current.as_mut() {
            // libtest's own main thread runs no test code under --test-threads=1.
            if !(*libtest && r.tid == start.pid && r.kind != Kind::Chdir) {
                span.add(r, &roots, &cwd);
            }
        }
    }
    if let Some((i, span, _)) = current.take() {
        out[i] = Some(span.finish());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(buf: &mut Vec<u8>, kind: u8, pid: u32, tid: u32, seq: u64, text: &str) {
        buf.extend_from_slice(&((HEADER + text.len()) as u16).to_le_bytes());
        buf.extend_from_slice(&[kind, 0]);
        buf.extend_from_slice(&pid.to_le_bytes());
        buf.extend_from_slice(&tid.to_le_bytes());
        buf.extend_from_slice(&0u32.to_le_bytes());
        buf.extend_from_slice(&seq.to_le_bytes());
        buf.extend_from_slice(text.as_bytes());
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn libtest_threads_split_records_by_truncated_names_in_run_order() {
        let mut b = Vec::new();
        rec(&mut b, 0, 10, 10, 0, "/w");
        rec(&mut b, 3, 10, 10, 1, "RUST_TEST_THREADS"); // libtest itself: no test yet
        rec(&mut b, 2, 10, 11, 2, "tests::env_pol"); // 15-byte prefix of the first test
        rec(&mut b, 4, 10, 11, 3, "KEY1");
        rec(&mut b, 9, 10, 11, 4, "/w/left.txt");
        rec(&mut b, 9, 10, 11, 5, "/w/gone.txt");
        rec(&mut b, 10, 10, 11, 6, "/w/gone.txt");
        rec(&mut b, 10, 10, 11, 7, "/w/old.txt");
        rec(&mut b, 8, 10, 11, 8, "/proc/self/maps"); // outside the roots
        rec(&mut b, 3, 10, 10, 9, "TERM"); // main thread inside a span: libtest's, dropped
        rec(&mut b, 3, 99, 99, 10, "CHILD"); // a grandchild's record
        rec(&mut b, 2, 10, 12, 11, "worker"); // a thread the test named: no marker
        rec(&mut b, 2, 10, 13, 12, "tests::env_pol"); // same prefix: the second test
        rec(&mut b, 3, 10, 13, 13, "KEY1");
        rec(&mut b, 7, 10, 13, 14, "/tmp");
        rec(&mut b, 8, 10, 13, 15, "/w/left.txt");
        b.extend_from_slice(&[40, 0, 3]); // torn record
        let ran = names(&["tests::env_polluter", "tests::env_polluter_reader"]);
        let fps = split(&b, &ran, &[]);
        let a = fps[0].as_ref().unwrap();
        assert_eq!(a.env_set, BTreeSet::from(["KEY1".to_owned()]));
        assert!(a.env_read.is_empty());
        assert_eq!(a.files_left, BTreeSet::from(["/w/left.txt".to_owned()]));
        assert_eq!(a.files_removed, BTreeSet::from(["/w/old.txt".to_owned()]));
        assert!(!a.files_touched.contains("/proc/self/maps"));
        assert_eq!(a.cwd_left, None);
        let b2 = fps[1].as_ref().unwrap();
        assert_eq!(b2.env_read, BTreeSet::from(["KEY1".to_owned()]));
        assert_eq!(b2.cwd_start, BTreeSet::from(["/w".to_owned()]));
        assert_eq!(b2.cwd_left.as_deref(), Some("/tmp"));
        assert!(b2.files_touched.contains("/w/left.txt"));
    }

    #[test]
    fn marks_need_the_full_name_and_a_missing_start_means_unobserved() {
        let mut b = Vec::new();
        rec(&mut b, 0, 10, 10, 0, "/w");
        rec(&mut b, 1, 10, 10, 1, "a");
        rec(&mut b, 2, 10, 11, 2, "b"); // a thread scenario a named: no marker in a suite child
        rec(&mut b, 4, 10, 10, 2, "V");
        rec(&mut b, 1, 10, 10, 3, "b_other"); // not the next test's name
        rec(&mut b, 7, 10, 10, 4, "/w/../w/sub/./x");
        let fps = split(&b, &names(&["a", "b"]), &[]);
        let a = fps[0].as_ref().unwrap();
        assert_eq!(a.env_set, BTreeSet::from(["V".to_owned()]));
        assert_eq!(a.cwd_left.as_deref(), Some("/w/../w/sub/./x"));
        assert!(fps[1].is_none());
        assert!(split(&b[HEADER + 2..], &names(&["a"]), &[]).iter().all(Option::is_none));
        assert!(!loaded(&[]) && loaded(&b));
        assert_eq!(normal("/w/../w/sub/./x"), "/w/sub/x");
    }
}
