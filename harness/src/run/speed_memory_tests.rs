use super::*;
use crate::model::{Slowed, Verdict, summarize_remembering, summarize_runs};

fn host(boot: Option<&str>) -> HostInfo {
    HostInfo {
        cpu: "Xeon".into(),
        boot_id: boot.map(str::to_owned),
        ..Default::default()
    }
}

/// `n` processes of `row`, each measuring `value` ns with the speed probe at `probe` ns.
fn processes(row: &str, n: usize, value: f64, probe: f64) -> Vec<RunRecord> {
    (0..n)
        .map(|i| {
            serde_json::from_value(serde_json::json!({"run_index": i, "scenario": row, "kind": "measure",
                "repetition": i, "outcome": {"status": "passed"}, "wall_ns": 1, "started_ms": 0.0,
                "metrics": [{"name": "latency_ns", "unit": "ns", "better": "lower",
                    "value": value * (1.0 + 0.01 * (i % 3) as f64), "speed_probe_ns": [probe, probe]}]}))
            .expect("a record parses")
        })
        .collect()
}

fn memory(probe_ns: f64, boot: &str, at: u64) -> RememberedSpeed {
    RememberedSpeed {
        probe_ns,
        boot_id: boot.into(),
        cpu: "Xeon".into(),
        confirmed_at: String::new(),
        confirmed_unix_s: at,
        by: "reports/earlier".into(),
    }
}

#[test]
fn the_file_sits_beside_the_output_directory_unless_the_environment_moves_it() {
    let beside = |out: &str| location_given(Path::new(out), None);
    assert_eq!(beside("reports/20261207-040000"), Some(PathBuf::from("reports").join(FILE_NAME)));
    assert_eq!(
        beside("out"),
        Some(PathBuf::from(".").join(FILE_NAME)),
        "a bare name: the working directory"
    );
    assert_eq!(location_given(Path::new("a/b"), Some("off".into())), None);
    assert_eq!(
        location_given(Path::new("a/b"), Some("/tmp/m.json".into())),
        Some(PathBuf::from("/tmp/m.json"))
    );
    assert_eq!(
        location_given(Path::new("a/b"), Some("".into())),
        Some(PathBuf::from("a").join(FILE_NAME))
    );
}

/// A run that met full speed leaves its fastest, and the lower of it and what was there; a run
/// that never met the remembered speed leaves it alone; another boot, another CPU or a memory
/// older than `MAX_AGE_S` is no memory.
#[test]
fn a_run_remembers_the_full_speed_it_met_and_only_that() {
    let now = 1_000_000;
    let h = host(Some("boot-1"));
    let by = Path::new("reports/now");
    let fast = processes("r", 10, 100.0, 24_000.0);
    let first = next(&fast, None, &h, by, now).expect("met full speed: remembered");
    assert_eq!(
        (first.probe_ns, first.boot_id.as_str(), first.confirmed_unix_s),
        (24_000.0, "boot-1", now)
    );
    assert_eq!(first.by, "reports/now");
    let prior = memory(23_000.0, "boot-1", now - 60);
    assert_eq!(
        next(&fast, Some(&prior), &h, by, now).map(|m| m.probe_ns),
        Some(23_000.0),
        "the lower kept"
    );
    let slowed = processes("r", 10, 170.0, 45_000.0);
    assert_eq!(next(&slowed, Some(&prior), &h, by, now), None, "a run that never met it leaves it");
    let other_boot = memory(10_000.0, "boot-0", now - 60);
    assert_eq!(next(&fast, Some(&other_boot), &h, by, now).map(|m| m.probe_ns), Some(24_000.0));
    let stale = memory(10_000.0, "boot-1", now - MAX_AGE_S - 1);
    assert_eq!(next(&fast, Some(&stale), &h, by, now).map(|m| m.probe_ns), Some(24_000.0));
    assert!(holds(&prior, &h, now) && !holds(&other_boot, &h, now) && !holds(&stale, &h, now));
    let other_cpu = HostInfo {
        cpu: "Epyc".into(),
        ..h.clone()
    };
    assert!(!holds(&prior, &other_cpu, now));
    assert_eq!(next(&fast, None, &host(None), by, now), None, "no boot id: nothing to key it by");
    // One fast moment among slowed processes is not the machine's full speed.
    let mut moment = processes("r", 3, 100.0, 24_000.0);
    moment.extend(processes("r", 20, 170.0, 45_000.0));
    assert_eq!(next(&moment, None, &h, by, now), None);
}

/// The case the memory is for, as 07b met it: a binary's whole run on the slowed machine
/// (probe 1.9x, code 1.7x). Judged against itself every row is `ok` at 1.7x; against the
/// remembered full speed every row is `unstable`, saying whose speed it was judged against.
/// A run that met full speed is judged as without memory, even beside a slightly faster one.
#[test]
fn a_run_spent_wholly_slowed_is_flagged_against_the_remembered_speed() {
    let mut slowed = processes("a", 30, 170.0, 45_000.0);
    slowed.extend(processes("b", 30, 340.0, 46_000.0));
    let alone = summarize_runs(&slowed);
    assert!(alone.iter().all(|s| s.verdict == Verdict::Measured), "{alone:?}");
    let judged = summarize_remembering(&slowed, Some(24_000.0));
    for s in &judged {
        assert_eq!(s.verdict, Verdict::Unstable, "{s:?}");
        let why = s.metrics[0].stats.unstable_reason.as_deref().unwrap_or("");
        assert!(why.contains("the full speed an earlier run met on this boot"), "{why}");
        assert!(
            s.metrics[0]
                .slowed
                .as_ref()
                .is_some_and(|x: &Slowed| x.remembered && x.processes == 30)
        );
    }
    let mut met = processes("a", 30, 100.0, 24_500.0);
    met.extend(processes("b", 30, 200.0, 24_800.0));
    assert_eq!(summarize_remembering(&met, Some(23_000.0)), summarize_runs(&met));
}

#[test]
fn remember_writes_the_file_whole_and_read_takes_it_back_for_this_host_only() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(FILE_NAME);
    let h = host(Some("boot-1"));
    remember(&file, &processes("r", 10, 100.0, 24_000.0), None, &h, Path::new("out")).unwrap();
    assert_eq!(read(&file, &h).map(|m| m.probe_ns), Some(24_000.0));
    assert_eq!(read(&file, &host(Some("boot-2"))), None);
    std::fs::write(&file, "{ not json").unwrap();
    assert_eq!(read(&file, &h), None, "a torn or foreign file is no memory");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(leftovers, [std::ffi::OsString::from(FILE_NAME)], "no temporary file left behind");
}
