//! `CounterMode` (what `--counters` asked for) and `CounterSource` (what counts here): finding
//! valgrind, probing the PMU, and the valgrind command line a counted process runs under.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use super::costs::{CACHE_ARGS, CYCLES_MODEL};
use crate::errors::Error;
use crate::model::{CounterMeta, Listed, ScenarioKind};

/// What `--counters[=auto|valgrind|perf]` asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CounterMode {
    /// `perf` where hardware counters count, else `valgrind`.
    Auto,
    /// Callgrind's instruction counts and simulated caches, in processes of their own.
    Valgrind,
    /// The CPU's own counters (perf_event_open), in the measuring processes themselves.
    Perf,
}
crate::cli::builder::value_enum!(CounterMode {
    Auto => "auto", "`perf` where hardware counters count, else `valgrind`",
    Valgrind => "valgrind", "Callgrind's instruction counts and simulated caches, in processes of their own",
    Perf => "perf", "The CPU's own counters (perf_event_open), in the measuring processes themselves",
});

/// The source that makes a run's counter metrics.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CounterSource {
    /// valgrind's Callgrind, at `program`, of this version (`3.19.0`).
    Valgrind {
        /// The valgrind executable.
        program: PathBuf,
        /// Its version, as `valgrind --version` prints it after `valgrind-`.
        version: String,
    },
    /// Hardware counters through perf_event_open.
    Perf,
    /// Allocations per call (`--allocs`), in processes of their own started with the preload
    /// library (`libharness_interpose.so`) in `LD_PRELOAD`, or counted by the binary's
    /// `harness::CountingAllocator`; `preload` is `None` where the library was not found.
    Allocs {
        /// The preload library, if found.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        preload: Option<PathBuf>,
    },
}

/// `--counters` as a command runs it: the source, and the calls of a process that only counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CounterSettings {
    /// Where the counts come from.
    pub source: CounterSource,
    /// Counted calls per process that only counts (valgrind).
    pub iterations: usize,
    /// Uncounted warm-up calls before them.
    pub warmup: usize,
    /// `--allocs` beside `--counters`: allocation counting in processes of its own, after the
    /// ones `source` counts in (each source stays in processes of its own: callgrind would
    /// count the allocation windows' instructions, the preload would count valgrind's mallocs).
    pub allocs: Option<Box<CounterSettings>>,
}

/// A counted process under valgrind runs 20-100x slower than natively (with fewer calls), so
/// its timeout is the command's `--timeout` times this.
pub const VALGRIND_TIMEOUT_FACTOR: u32 = 10;

impl CounterSource {
    /// Find what `mode` asks for, or say why it cannot count here and what would.
    pub fn resolve(mode: CounterMode) -> Result<CounterSource, Error> {
        match mode {
            CounterMode::Valgrind => find_valgrind(),
            CounterMode::Perf => super::perf::probe()
                .map(|()| CounterSource::Perf)
                .map_err(|detail| Error::Counters {
                    detail: format!(
                        "--counters=perf: hardware counters do not count here ({detail}); \
                     --counters=auto or --counters=valgrind would work"
                    ),
                }),
            CounterMode::Auto => match super::perf::probe() {
                Ok(()) => Ok(CounterSource::Perf),
                Err(_) => find_valgrind(),
            },
        }
    }

    /// The name every counter metric of this source carries, e.g. `valgrind-callgrind 3.19`.
    pub fn label(&self) -> String {
        match self {
            CounterSource::Valgrind { version, .. } => {
                let major_minor: Vec<&str> = version.split('.').take(2).collect();
                format!("valgrind-callgrind {}", major_minor.join("."))
            }
            CounterSource::Perf => "perf".to_owned(),
            CounterSource::Allocs { .. } => "allocs".to_owned(),
        }
    }

    /// Whether a counted process runs under valgrind (slow: a longer timeout, simulated caches).
    pub fn is_valgrind(&self) -> bool {
        matches!(self, CounterSource::Valgrind { .. })
    }

    /// Whether counting needs processes of its own (valgrind: their wall time means nothing),
    /// rather than counting inside the processes that measure wall time (perf).
    pub fn separate_processes(&self) -> bool {
        // Allocation counting too: its hooks and windows would perturb wall time.
        matches!(self, CounterSource::Valgrind { .. } | CounterSource::Allocs { .. })
    }
}

fn find_valgrind() -> Result<CounterSource, Error> {
    let missing = |detail: String| Error::Counters {
        detail: format!(
            "--counters=valgrind needs valgrind (3.19 or newer) on PATH: {detail}; install it \
             (Debian/Ubuntu: `apt-get install valgrind`, Fedora: `dnf install valgrind`), \
             or use --counters=perf where hardware counters count"
        ),
    };
    if !super::client_request::SUPPORTED {
        return Err(missing(format!(
            "this harness was built for {}, where it cannot talk to valgrind",
            std::env::consts::ARCH
        )));
    }
    let program = PathBuf::from("valgrind");
    let out = Command::new(&program)
        .arg("--version")
        .output()
        .map_err(|e| missing(format!("running `valgrind --version`: {e}")))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text
        .trim()
        .strip_prefix("valgrind-")
        .filter(|v| out.status.success() && v.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .ok_or_else(|| missing(format!("`valgrind --version` printed {:?}", text.trim())))?;
    Ok(CounterSource::Valgrind {
        program,
        version: version.to_owned(),
    })
}

/// valgrind's arguments before the program: Callgrind with instrumentation off until the
/// Bencher switches it on, fixed simulated caches, dumps to `out` (`out.<k>` per dump).
pub(crate) fn valgrind_args(out: &Path) -> Vec<OsString> {
    let mut args: Vec<OsString> = ["--tool=callgrind", "--instr-atstart=no", "--cache-sim=yes", "--dump-line=no"]
        .into_iter()
        .chain(CACHE_ARGS)
        .map(OsString::from)
        .collect();
    let mut file = OsString::from("--callgrind-out-file=");
    file.push(out);
    args.push(file);
    args
}

impl CounterSettings {
    /// The settings that count `metric` alone (bisect follows one metric): the allocation
    /// source for an allocation metric where `--allocs` came beside `--counters`, else this one.
    pub fn for_metric(self, metric: &str) -> CounterSettings {
        match self.allocs {
            Some(a) if crate::allocs::METRICS.contains(&metric) => *a,
            _ => CounterSettings { allocs: None, ..self },
        }
    }

    /// What a run's meta records of how it counted: the source, its fixed settings, and the
    /// measurements `selected` that it leaves uncounted, with why.
    pub(crate) fn meta(&self, processes: usize, selected: &[Listed]) -> CounterMeta {
        let valgrind = self.source.is_valgrind();
        CounterMeta {
            source: self.source.label(),
            processes: if self.source.separate_processes() { processes } else { 0 },
            // Allocation counting makes N and then 2N counted calls (the linearity check).
            iterations: if matches!(self.source, CounterSource::Allocs { .. }) {
                3 * self.iterations
            } else {
                self.iterations
            },
            warmup: self.warmup,
            cache: if valgrind {
                CACHE_ARGS.iter().map(|a| a.to_string()).collect()
            } else {
                Vec::new()
            },
            cycles_model: valgrind.then(|| CYCLES_MODEL.to_owned()),
            uncounted: selected
                .iter()
                .filter(|l| l.kind == ScenarioKind::Measure)
                .filter_map(|l| l.uncounted.clone().map(|r| (l.name.clone(), r)))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_name_tool_and_version() {
        let v = CounterSource::Valgrind {
            program: "valgrind".into(),
            version: "3.19.0".into(),
        };
        assert_eq!(v.label(), "valgrind-callgrind 3.19");
        assert!(v.separate_processes());
        assert_eq!(CounterSource::Perf.label(), "perf");
        assert!(!CounterSource::Perf.separate_processes());
    }

    #[test]
    fn valgrind_starts_uninstrumented_with_fixed_caches() {
        let args: Vec<String> = valgrind_args(Path::new("/s/p3.cg"))
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect();
        assert!(args.contains(&"--instr-atstart=no".to_owned()));
        assert!(args.contains(&"--LL=8388608,16,64".to_owned()));
        assert_eq!(args.last().unwrap(), "--callgrind-out-file=/s/p3.cg");
    }
}
