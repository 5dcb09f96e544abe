//! Two failure modes on the real engine, kept out of the default suite; `failure_demos` exits 1 by design.
//!
//! 1. `config_freeze/`: a benchmark's phases need different `ENGINE_CUDA_GRAPH` values.
//!    - `wrong_in_process_phases` sets the variable between phases of one process. The engine froze its
//!      config at the first read, so phase 2 would be measured with phase 1's knob. Debug builds catch it:
//!      the freeze guard panics naming `ENGINE_CUDA_GRAPH`, and the check fails with that message. Release
//!      builds compile the guard out, so the check asserts what phase 2 needs (the value it set) and fails
//!      on its own, saying phase 2 ran with the frozen knob. It fails in both profiles.
//!    - `right_env_matrix_phases` declares the phases as an env matrix: one process per value, each of
//!      which asserts its frozen config equals the env it started with. Both variants pass.
//! 2. `warm_state/`: shared engine state warmed by whatever ran earlier in the process.
//!    - `plan_cache_warmer` runs a matmul of one shape, which builds and caches the shape's plan.
//!    - `brittle_expects_warm_plan` inspects that shape's plan through `cached_plan`, which only finds
//!      plans an earlier matmul built. Alone, in a fresh process (how `run` runs every check), it fails;
//!      after the warmer in the same process it passes. Its name sorts before the warmer's, so an
//!      alphabetical order never rescues it by accident; `detect` finds the pair either way, because it
//!      runs the brittle check alone and after each other scenario in one process.
//!
//! `cargo run -p scenarios --bin failure_demos` runs them; `harness detect` aims at this binary.

use std::process::ExitCode;

use engine::config::runtime_config;
use engine::cpu::{self, Split};
use harness::Scenario;

/// The shape whose plan the warm-state pair shares; no other scenario in this binary uses it.
const SHAPE: (usize, usize, usize) = (7, 96, 160);

harness::scenarios!(|| vec![
    Scenario::check("config_freeze/wrong_in_process_phases", wrong_in_process_phases),
    Scenario::check("config_freeze/right_env_matrix_phases", right_env_matrix_phases).env("ENGINE_CUDA_GRAPH", ["0", "1"]),
    Scenario::check("warm_state/plan_cache_warmer", plan_cache_warmer),
    Scenario::check("warm_state/brittle_expects_warm_plan", brittle_expects_warm_plan),
]);

/// Phase 1 measures with the config as started; phase 2 flips `ENGINE_CUDA_GRAPH` in-process (the bug).
fn wrong_in_process_phases() -> Result<(), String> {
    let phase1 = runtime_config().cuda_graph;
    let wanted = !phase1;
    // SAFETY: this child process runs one scenario on its main thread and no other thread of it reads
    // or writes the environment at this point.
    unsafe { std::env::set_var("ENGINE_CUDA_GRAPH", if wanted { "1" } else { "0" }) };
    // Debug builds panic here, in the engine's freeze guard, naming ENGINE_CUDA_GRAPH.
    let phase2 = runtime_config().cuda_graph;
    if phase2 != wanted {
        return Err(format!(
            "phase 2 set ENGINE_CUDA_GRAPH={} but measured with the frozen knob (cuda_graph={phase2}, as in phase 1): \
             the engine reads its config once per process; run each phase in its own process (env matrix)",
            u8::from(wanted)
        ));
    }
    Ok(())
}

/// One process per phase: the config frozen here is the one this variant's env asked for.
fn right_env_matrix_phases() -> Result<(), String> {
    let asked = std::env::var("ENGINE_CUDA_GRAPH").map_err(|_| "ENGINE_CUDA_GRAPH is not set: run as an env-matrix variant".to_owned())?;
    let got = runtime_config().cuda_graph;
    if got != (asked == "1") {
        return Err(format!(
            "started with ENGINE_CUDA_GRAPH={asked:?} but the frozen config has cuda_graph={got}"
        ));
    }
    Ok(())
}

/// Runs a matmul of `SHAPE`, which builds and caches its plan (and checks the product is not garbage).
fn plan_cache_warmer() -> Result<(), String> {
    let (m, k, n) = SHAPE;
    let a = vec![1f32; m * k];
    let b = vec![0.5f32; k * n];
    let c = cpu::matmul(&a, &b, SHAPE, 1).map_err(|e| e.to_string())?;
    match c.iter().find(|&&x| x != 0.5 * k as f32) {
        Some(x) => Err(format!("all-ones times all-halves gave {x}, expected {}", 0.5 * k as f32)),
        None => Ok(()),
    }
}

/// Checks that `SHAPE` (a wide output) is split by columns, reading the plan from the cache: the brittle
/// shortcut. It should run a matmul of `SHAPE` first; it relies on an earlier scenario having done so.
fn brittle_expects_warm_plan() -> Result<(), String> {
    let (m, k, n) = SHAPE;
    let plan = cpu::cached_plan(m, k, n).ok_or_else(|| {
        format!("no cached plan for {m}x{k}x{n}: the plan cache is cold (this check only passes after a matmul of that shape ran earlier in the same process)")
    })?;
    if plan.split != Split::Columns {
        return Err(format!("{m}x{k}x{n} is wider than tall but its plan splits {:?}", plan.split));
    }
    Ok(())
}

fn main() -> ExitCode {
    harness::main()
}
