//! Reads the runtime config, flips `ENGINE_CUDA_GRAPH` in its own environment, and reads it again.
//!
//! A debug build panics on the second read (the freeze guard); a release build prints the frozen value.
//! `tests/config_freeze.rs` runs both builds as child processes.

fn main() {
    let first = engine::config::runtime_config().cuda_graph;
    println!("frozen cuda_graph={first}");
    let flipped = if first { "0" } else { "1" };
    // SAFETY: no other thread exists yet, so nothing reads the environment concurrently.
    unsafe { std::env::set_var("ENGINE_CUDA_GRAPH", flipped) };
    let second = engine::config::runtime_config().cuda_graph;
    println!("after change ENGINE_CUDA_GRAPH={flipped}: cuda_graph={second}");
}
