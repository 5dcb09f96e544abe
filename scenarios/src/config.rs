//! Runtime-config checks (`check/config/`): knob parsing, and env-matrix variants in which each process
//! freezes the `ENGINE_CUDA_GRAPH` or `ENGINE_THREADS` value it was started with.
//!
//! The env matrix is the right way to run phases under different knobs: one process per value, so the
//! frozen config is the asked-for one. (The wrong way, changing the variable in-process, is demonstrated
//! in `src/bin/failure_demos.rs`.)

use std::collections::HashMap;

use engine::config::{self, RuntimeConfig};
use engine::cpu;
use harness::Scenario;

use crate::inputs::thread_counts;

harness::scenarios!(|| vec![
    Scenario::check("check/config/parses_knobs", parses_knobs),
    Scenario::check("check/config/bad_value_names_variable", bad_value_names_variable),
    Scenario::check("check/config/cuda_graph_frozen_from_env", frozen_matches_env).env("ENGINE_CUDA_GRAPH", ["0", "1"]),
    Scenario::check("check/config/threads_frozen_from_env", frozen_matches_env)
        .env("ENGINE_THREADS", thread_counts().iter().map(ToString::to_string)),
]);

fn lookup(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    move |name| map.get(name).cloned()
}

/// Every knob set parses to the documented field value; nothing set gives the defaults.
fn parses_knobs() -> Result<(), String> {
    let (c, _) = config::parse_config(lookup(&[
        ("ENGINE_EP", "cuda"),
        ("ENGINE_CUDA_GRAPH", "0"),
        ("ENGINE_THREADS", "3"),
    ]))
    .map_err(|e| e.to_string())?;
    let want = RuntimeConfig {
        ep: config::ExecutionProvider::Cuda,
        cuda_graph: false,
        threads: 3,
    };
    if c != want {
        return Err(format!("parsed {c:?}, expected {want:?}"));
    }
    let (d, snapshot) = config::parse_config(lookup(&[])).map_err(|e| e.to_string())?;
    if d != RuntimeConfig::defaults() || snapshot.iter().any(|(_, v)| v.is_some()) {
        return Err(format!("with nothing set: {d:?}, snapshot {snapshot:?}"));
    }
    Ok(())
}

/// A bad value is an error that names the variable and quotes the value, never a silent default.
fn bad_value_names_variable() -> Result<(), String> {
    for (var, bad) in [("ENGINE_EP", "gpu"), ("ENGINE_CUDA_GRAPH", "yes"), ("ENGINE_THREADS", "0")] {
        match config::parse_config(lookup(&[(var, bad)])) {
            Ok((c, _)) => return Err(format!("{var}={bad:?} was accepted as {c:?}")),
            Err(e) if e.to_string().contains(var) && e.to_string().contains(&format!("{bad:?}")) => {}
            Err(e) => return Err(format!("{var}={bad:?}: the error does not name the variable and value: {e}")),
        }
    }
    Ok(())
}

/// The frozen config equals what this process's environment says, read independently here.
fn frozen_matches_env() -> Result<(), String> {
    let env = |name: &str| std::env::var(name).ok();
    let (want, _) = config::parse_config(env).map_err(|e| e.to_string())?;
    let got = config::runtime_config();
    if *got != want {
        return Err(format!(
            "frozen config {got:?} differs from the env it started with (ENGINE_CUDA_GRAPH={:?}, ENGINE_THREADS={:?}): {want:?}",
            env("ENGINE_CUDA_GRAPH"),
            env("ENGINE_THREADS")
        ));
    }
    if cpu::configured_threads() != want.threads {
        return Err(format!(
            "configured_threads() is {}, ENGINE_THREADS says {}",
            cpu::configured_threads(),
            want.threads
        ));
    }
    Ok(())
}
