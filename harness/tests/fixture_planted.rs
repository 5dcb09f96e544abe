//! Plain `#[test]` fixture for `detect --test-bin`: planted victims, polluters, a brittle test and
//! its state-setter, a cleaner, env and cwd changes, flakiness, a crasher, a background child
//! that keeps the output open, and (with HARNESS_FIXTURE_HANG=1) a hang. Every test returns early
//! and passes unless HARNESS_FIXTURE=1 is in its environment, so `cargo test` stays green.

use std::sync::atomic::{AtomicBool, Ordering};

static LATE: AtomicBool = AtomicBool::new(false);
static TWO: AtomicBool = AtomicBool::new(false);
static INIT: AtomicBool = AtomicBool::new(false);
const POLLUTED_VAR: &str = "FIXTURE_PLANTED_POLLUTED";

fn planted() -> bool {
    std::env::var_os("HARNESS_FIXTURE").is_some_and(|v| v == "1")
}

#[test]
fn alpha_victim_of_zulu() {
    if planted() {
        assert!(!LATE.load(Ordering::SeqCst), "zulu_polluter ran first");
    }
}

#[test]
fn bravo_polluter_one() {
    if planted() {
        TWO.store(true, Ordering::SeqCst);
    }
}

#[test]
fn charlie_state_setter() {
    if planted() {
        INIT.store(true, Ordering::SeqCst);
    }
}

#[test]
fn echo_polluter_env() {
    if planted() {
        // SAFETY: detect runs these with --test-threads=1, one test at a time.
        unsafe { std::env::set_var(POLLUTED_VAR, "1") };
    }
}

#[test]
fn foxtrot_cleaner() {
    if planted() {
        // SAFETY: as above.
        unsafe { std::env::remove_var(POLLUTED_VAR) };
    }
}

#[test]
fn golf_victim_env() {
    if planted() {
        assert!(std::env::var_os(POLLUTED_VAR).is_none(), "polluted env var");
    }
}

#[test]
fn hotel_crasher() {
    if planted() {
        std::process::abort();
    }
}

#[test]
fn india_flaky() {
    if planted() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let mix = (u64::from(nanos) ^ (u64::from(std::process::id()) << 20)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        assert!((mix >> 63) == 0, "coin flip");
    }
}

#[test]
fn juliet_always_fails() {
    assert!(!planted(), "always fails when planted");
}

#[test]
fn kilo_brittle() {
    if planted() {
        assert!(INIT.load(Ordering::SeqCst), "INIT not set");
    }
}

#[test]
fn lima_cwd_changer() {
    if planted() {
        std::env::set_current_dir(std::env::temp_dir()).unwrap();
    }
}

#[test]
fn mike_victim_two() {
    if planted() {
        assert!(!TWO.load(Ordering::SeqCst), "TWO was set");
    }
}

#[test]
#[expect(clippy::zombie_processes, reason = "the point is a grandchild left running")]
fn november_background_sleeper() {
    if planted() {
        // Leaves a grandchild holding stdout/stderr open: detect must not wait for it.
        std::process::Command::new("sleep").arg("1000").spawn().unwrap();
    }
}

#[test]
fn oscar_hangs() {
    if planted() && std::env::var_os("HARNESS_FIXTURE_HANG").is_some() {
        loop {
            std::thread::sleep(std::time::Duration::from_secs(1));
        }
    }
}

#[test]
fn papa_victim_cwd() {
    if planted() {
        let here = std::env::current_dir().ok().and_then(|d| d.canonicalize().ok());
        assert_ne!(here, std::env::temp_dir().canonicalize().ok(), "running in the temp dir");
    }
}

#[test]
fn quebec_pass() {}

#[test]
fn xray_polluter_two() {
    if planted() {
        TWO.store(true, Ordering::SeqCst);
    }
}

#[test]
fn zulu_polluter() {
    if planted() {
        LATE.store(true, Ordering::SeqCst);
    }
}
