//! The allocation recorder every binary with harness carries: `src/allocs/preload/`, compiled
//! by the build script into a 14 KB cdylib and embedded here. A counting process needs it as a
//! file for `LD_PRELOAD`, so the parent writes it once per user and content into the temp
//! directory. So `--allocs` counts in any crate (`cargo bench -- --allocs` included) with no
//! setup and without cargo building the `interpose` cdylib.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::PathBuf;

use crate::detect::preload::{LIB_ENV, locate};

static RECORDER: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libharness_allocs.so"));
/// Why the build embedded no recorder (empty when it did).
const WHY_NOT: &str = env!("HARNESS_RECORDER_WHY_NOT");

/// The library counting processes preload: `HARNESS_INTERPOSE_LIB` where set (a missing file
/// then means none: the rows say "not counted"), else this binary's recorder, else
/// `libharness_interpose.so` beside the executable.
pub fn preload() -> Option<PathBuf> {
    if std::env::var_os(LIB_ENV).is_some() {
        return locate();
    }
    recorder().ok().or_else(locate)
}

/// The embedded recorder as a file: `$TMPDIR/harness-allocs-<uid>/recorder-<hash>.so`, in a
/// directory only this user can write (another user's file is never preloaded).
pub fn recorder() -> Result<PathBuf, String> {
    if RECORDER.is_empty() {
        return Err(format!("no recorder embedded: {WHY_NOT}"));
    }
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    let dir = std::env::temp_dir().join(format!("harness-allocs-{uid}"));
    let fail = |what: &str, e: &dyn std::fmt::Display| format!("{}: {what}: {e}", dir.display());
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(fail("creating", &e)),
    }
    let meta = std::fs::symlink_metadata(&dir).map_err(|e| fail("reading", &e))?;
    if !meta.is_dir() || meta.uid() != uid || meta.mode() & 0o022 != 0 {
        return Err(fail("refused", &"not a directory of this user's that only it can write"));
    }
    let path = dir.join(format!("recorder-{:016x}.so", crate::fnv::fnv1a(RECORDER)));
    if std::fs::read(&path).is_ok_and(|b| b == RECORDER) {
        return Ok(path);
    }
    // Written aside and renamed, so a concurrent run never preloads half a file.
    let tmp = dir.join(format!(".recorder-{}.tmp", std::process::id()));
    std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(RECORDER))
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(|e| fail("writing the recorder", &e))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recorder_is_embedded_and_written_once_as_the_same_elf_library() {
        assert!(!RECORDER.is_empty(), "the build embedded no recorder: {WHY_NOT}");
        let a = recorder().unwrap();
        let b = recorder().unwrap();
        assert_eq!(a, b, "one file per content");
        let bytes = std::fs::read(&a).unwrap();
        assert!(bytes.starts_with(b"\x7fELF") && bytes == RECORDER);
        let text = String::from_utf8_lossy(&bytes);
        assert!(text.contains("harness_allocs_open") && text.contains("harness_allocs_close"));
    }
}
