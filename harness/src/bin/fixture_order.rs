//! Fixture suite for `detect`: scenarios with planted order dependencies through process-global
//! state (statics, env vars, the current directory), a cleaner, random flakiness, a crasher, and
//! a measurement whose value grows 10x after a sibling sets a "frozen knob" (10x, not 3x, so a loaded CI machine cannot blur it). Expected verdicts are
//! modelled in harness/tests/detect.rs.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use harness::Scenario;

static LATE: AtomicBool = AtomicBool::new(false);
static TWO: AtomicBool = AtomicBool::new(false);
static INIT: AtomicBool = AtomicBool::new(false);
static KNOB: AtomicU64 = AtomicU64::new(1);

const POLLUTED_VAR: &str = "FIXTURE_ORDER_POLLUTED";

fn fail_if(cond: bool, what: &str) -> Result<(), String> {
    if cond { Err(what.to_owned()) } else { Ok(()) }
}

/// Work proportional to `units`, that the optimizer cannot remove.
fn spin(units: u64) -> u64 {
    let mut x = 0u64;
    for i in 0..units * 20_000 {
        x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i));
    }
    x
}

harness::scenarios!(|| vec![
    Scenario::check("a_pass", || ()),
    Scenario::check("b_victim_of_late", || fail_if(
        LATE.load(Ordering::SeqCst),
        "LATE was set by an earlier scenario"
    )),
    Scenario::check("c_polluter_one", || TWO.store(true, Ordering::SeqCst)),
    Scenario::check("d_state_setter", || INIT.store(true, Ordering::SeqCst)),
    // SAFETY (env calls below): the child runs one scenario at a time on one thread.
    Scenario::check("e_polluter_env", || unsafe { std::env::set_var(POLLUTED_VAR, "1") }),
    Scenario::check("f_cleaner", || unsafe { std::env::remove_var(POLLUTED_VAR) }),
    Scenario::check("g_victim_env", || fail_if(
        std::env::var_os(POLLUTED_VAR).is_some(),
        "polluted env var"
    )),
    Scenario::check("h_crasher", || -> () { std::process::abort() }),
    Scenario::check("i_flaky", || {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let mix = (u64::from(nanos) ^ (u64::from(std::process::id()) << 20)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        fail_if((mix >> 63) == 1, "coin flip")
    }),
    Scenario::check("j_always_fails", || Err::<(), _>("always".to_owned())),
    Scenario::check("k_brittle", || fail_if(!INIT.load(Ordering::SeqCst), "INIT not set")),
    Scenario::measure("l_measure_knob", |b| {
        let knob = KNOB.load(Ordering::SeqCst);
        b.iter(|| spin(knob))
    }),
    Scenario::check("m_victim_two", || fail_if(TWO.load(Ordering::SeqCst), "TWO was set")),
    Scenario::check("n_env_mutator", || unsafe { std::env::set_var("FIXTURE_ORDER_HARMLESS", "1") }),
    Scenario::check("o_cwd_changer", || std::env::set_current_dir(std::env::temp_dir())
        .map_err(|e| e.to_string())),
    Scenario::check("p_victim_cwd", || {
        let here = std::env::current_dir().ok().and_then(|d| d.canonicalize().ok());
        fail_if(here == std::env::temp_dir().canonicalize().ok(), "running in the temp dir")
    }),
    Scenario::check("r_knob_setter", || KNOB.store(10, Ordering::SeqCst)),
    Scenario::check("x_polluter_two", || TWO.store(true, Ordering::SeqCst)),
    Scenario::check("z_polluter_late", || LATE.store(true, Ordering::SeqCst)),
]);

fn main() -> std::process::ExitCode {
    harness::main()
}
