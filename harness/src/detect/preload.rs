//! Where `libharness_interpose.so` is and how a detect process loads it: `LD_PRELOAD` plus
//! `HARNESS_INTERPOSE_OUT` (the records file) in the child's environment.
//!
//! The library is looked for in `HARNESS_INTERPOSE_LIB` (a path to the `.so`), then beside the
//! running executable and its parent: `target/<profile>/harness` and the libtest binaries under
//! `target/<profile>/deps/` both find `target/<profile>/libharness_interpose.so`, which
//! `cargo build` (a workspace member) puts there.

use std::path::PathBuf;

/// File name cargo gives the `interpose/` crate's `cdylib`.
pub const LIB_NAME: &str = "libharness_interpose.so";
/// Environment variable naming the library explicitly.
pub const LIB_ENV: &str = "HARNESS_INTERPOSE_LIB";
/// Environment variable the library reads: where to write its records.
#[cfg(feature = "cli")]
pub const OUT_ENV: &str = "HARNESS_INTERPOSE_OUT";

/// The interposer library, if one can be found (see the module docs for where it looks).
pub fn locate() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(LIB_ENV) {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?;
    [Some(dir), dir.parent()]
        .into_iter()
        .flatten()
        .flat_map(|d| [d.join(LIB_NAME), d.join("deps").join(LIB_NAME)])
        .find(|p| p.is_file())
}

/// Add the preload to `env`: the library first in `LD_PRELOAD` (keeping what the caller or the
/// parent's environment already preloads) and the records file.
#[cfg(feature = "cli")]
pub fn add_to(env: &mut std::collections::BTreeMap<String, String>, lib: &std::path::Path, records: &std::path::Path) {
    let (key, value) = crate::allocs::source::preload_env(lib, env);
    env.insert(key, value);
    env.insert(OUT_ENV.into(), records.display().to_string());
}

/// What to tell the user about the preload in one binary's processes, if anything went wrong.
#[cfg(feature = "cli")]
pub fn outcome_note(binary: &str, counts: super::probe::PreloadCounts) -> Option<String> {
    if counts.tried == 0 || counts.loaded == counts.tried {
        None
    } else if counts.loaded == 0 {
        Some(format!(
            "the interposer did not load into {binary} (a static binary, or the loader refused LD_PRELOAD): \
             env, cwd and file effects were not observed and mechanism is empty; verdicts are unaffected"
        ))
    } else {
        Some(format!(
            "the interposer loaded in {} of {} processes of {binary}: mechanism rests on those",
            counts.loaded, counts.tried
        ))
    }
}

/// What to tell the user before anything runs: the interposer is off or was not found.
#[cfg(feature = "cli")]
pub fn config_notes(config: &super::DetectConfig) -> Vec<String> {
    let note = match (config.interpose_requested, &config.interpose) {
        (false, _) => "--no-interpose: env, cwd and file effects were not observed; mechanism is empty".to_owned(),
        (true, None) => format!(
            "{LIB_NAME} not found ({LIB_ENV} or beside the harness executable; `cargo build -p harness_interpose` builds it): \
             env, cwd and file effects were not observed; mechanism is empty"
        ),
        (true, Some(_)) => return vec![],
    };
    eprintln!("detect: {note}");
    vec![note]
}

#[cfg(all(test, feature = "cli"))]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;

    use super::*;

    #[test]
    fn keeps_an_existing_preload_after_ours() {
        let mut env = BTreeMap::from([("LD_PRELOAD".to_owned(), "/x/other.so".to_owned())]);
        add_to(&mut env, Path::new("/t/libharness_interpose.so"), Path::new("/s/r.rec"));
        assert_eq!(env["LD_PRELOAD"], "/t/libharness_interpose.so:/x/other.so");
        assert_eq!(env[OUT_ENV], "/s/r.rec");
    }
}
