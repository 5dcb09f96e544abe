//! Plain `#[test]` fixture for detect's `mechanism`: a polluter/victim pair for each way a test
//! can reach another in one process — an env var, the current directory, a file, a static.
//! Every name shares its first 15 bytes (the kernel's thread-name limit), so attribution cannot
//! lean on thread names alone. Tests pass unless HARNESS_FIXTURE=1; files live under
//! HARNESS_FIXTURE_DIR and carry the process id, so one process's leftovers never reach another.

mod shared_prefix_module {
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicBool, Ordering};

    static STATE: AtomicBool = AtomicBool::new(false);
    const KEY: &str = "FIXTURE_MECHANISM_KEY";

    fn planted() -> bool {
        std::env::var_os("HARNESS_FIXTURE").is_some_and(|v| v == "1")
    }

    fn dir() -> PathBuf {
        PathBuf::from(std::env::var_os("HARNESS_FIXTURE_DIR").expect("HARNESS_FIXTURE_DIR"))
    }

    fn leftover() -> PathBuf {
        dir().join(format!("leftover-{}.txt", std::process::id()))
    }

    #[test]
    fn cwd_changer() {
        if planted() {
            std::env::set_current_dir(dir().join("elsewhere")).unwrap();
        }
    }

    #[test]
    fn cwd_victim() {
        if planted() {
            let here = std::env::current_dir().unwrap();
            assert!(!here.ends_with("elsewhere"), "running in {}", here.display());
        }
    }

    #[test]
    fn env_polluter() {
        if planted() {
            // SAFETY: detect runs these with --test-threads=1, one test at a time.
            unsafe { std::env::set_var(KEY, "1") };
        }
    }

    #[test]
    fn env_victim() {
        if planted() {
            assert!(std::env::var_os(KEY).is_none(), "{KEY} is set");
        }
    }

    #[test]
    fn file_polluter() {
        if planted() {
            std::fs::write(leftover(), "left behind").unwrap();
        }
    }

    #[test]
    fn file_victim() {
        if planted() {
            assert!(!leftover().exists(), "{} exists", leftover().display());
        }
    }

    #[test]
    fn static_polluter() {
        if planted() {
            STATE.store(true, Ordering::SeqCst);
        }
    }

    #[test]
    fn static_victim() {
        if planted() {
            assert!(!STATE.load(Ordering::SeqCst), "STATE was set");
        }
    }
}
