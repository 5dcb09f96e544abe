//! Process-frozen [`RuntimeConfig`] read once from `ENGINE_*` environment knobs, with a debug-build freeze guard.
//!
//! One table, [`KNOBS`], lists every knob (name, default, accepted values, parse fn); both the parser and
//! the snapshot of frozen values iterate it, through the same lookup, so they cannot drift apart.
//!
//! The config is frozen on the first read ([`runtime_config`]). Real engines behave this way (thread pools,
//! CUDA graphs and execution providers are chosen once), so a benchmark that changes `ENGINE_*` between
//! phases of one process silently measures the first phase's config twice. Debug builds catch that: every
//! later read compares the environment with the snapshot and panics naming the variable. Release builds
//! skip the comparison; a read is one `OnceLock` load.

use std::num::NonZeroUsize;
use std::sync::OnceLock;

use crate::errors::{ConfigChanged, ConfigError};

/// Where kernels run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecutionProvider {
    /// CPU kernels in [`crate::cpu`].
    Cpu,
    /// CUDA (provided by a later module; selecting it only records the choice here).
    Cuda,
}

/// The engine's per-process configuration, parsed from the knobs in [`KNOBS`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeConfig {
    /// `ENGINE_EP`: `cpu` or `cuda`; default `cpu`.
    pub ep: ExecutionProvider,
    /// `ENGINE_CUDA_GRAPH`: `0` or `1`; default `1`.
    pub cuda_graph: bool,
    /// `ENGINE_THREADS`: a positive integer; default `std::thread::available_parallelism()`.
    pub threads: usize,
}

impl RuntimeConfig {
    /// The config with no knob set.
    pub fn defaults() -> Self {
        RuntimeConfig {
            ep: ExecutionProvider::Cpu,
            cuda_graph: true,
            // Fall back to 1 where the OS cannot say: a wrong guess only costs speed, never correctness.
            threads: std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
        }
    }
}

/// One environment knob: its variable, documented default and accepted values, and how it sets the config.
pub struct Knob {
    /// The environment variable.
    pub name: &'static str,
    /// The default, in words.
    pub default: &'static str,
    /// The accepted values, in words (quoted in errors).
    pub accepted: &'static str,
    /// Applies a value to the config; `Err(())` when not accepted.
    pub parse: fn(&str, &mut RuntimeConfig) -> Result<(), ()>,
}

/// Every knob the engine reads. Parsing and the freeze snapshot both iterate this table.
pub static KNOBS: &[Knob] = &[
    Knob {
        name: "ENGINE_EP",
        default: "cpu",
        accepted: "`cpu` or `cuda`",
        parse: |v, c| {
            c.ep = match v {
                "cpu" => ExecutionProvider::Cpu,
                "cuda" => ExecutionProvider::Cuda,
                _ => return Err(()),
            };
            Ok(())
        },
    },
    Knob {
        name: "ENGINE_CUDA_GRAPH",
        default: "1",
        accepted: "`0` or `1`",
        parse: |v, c| {
            c.cuda_graph = match v {
                "0" => false,
                "1" => true,
                _ => return Err(()),
            };
            Ok(())
        },
    },
    Knob {
        name: "ENGINE_THREADS",
        default: "available_parallelism",
        accepted: "a positive integer",
        parse: |v, c| {
            c.threads = v.parse::<NonZeroUsize>().map_err(|_| ())?.get();
            Ok(())
        },
    },
];

/// Values of the knobs' variables at freeze time, in [`KNOBS`] order (`None`: unset).
pub type Snapshot = Vec<(&'static str, Option<String>)>;

/// Parses the config and records the values it was parsed from, both through `lookup`.
///
/// Unset knobs take their default; a set but unaccepted value is an error, never a silent default.
pub fn parse_config(lookup: impl Fn(&str) -> Option<String>) -> Result<(RuntimeConfig, Snapshot), ConfigError> {
    let mut config = RuntimeConfig::defaults();
    let mut snapshot = Vec::with_capacity(KNOBS.len());
    for knob in KNOBS {
        let value = lookup(knob.name);
        if let Some(v) = &value {
            (knob.parse)(v, &mut config).map_err(|()| ConfigError::InvalidValue {
                var: knob.name,
                value: v.clone(),
                accepted: knob.accepted,
            })?;
        }
        snapshot.push((knob.name, value));
    }
    Ok((config, snapshot))
}

/// The first knob whose current value (through `lookup`) differs from the frozen one, if any.
pub fn find_changed(frozen: &[(&'static str, Option<String>)], lookup: impl Fn(&str) -> Option<String>) -> Option<ConfigChanged> {
    frozen.iter().find_map(|(var, was)| {
        let now = lookup(var);
        (now != *was).then(|| ConfigChanged {
            var,
            frozen: was.clone(),
            now,
        })
    })
}

/// The process environment, the one lookup used both to parse and to check the freeze.
fn env_lookup(name: &str) -> Option<String> {
    // Lossy: a non-UTF-8 value is then rejected by the parser with the value quoted, not ignored.
    std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
}

struct Frozen {
    config: RuntimeConfig,
    #[cfg_attr(not(debug_assertions), expect(dead_code, reason = "only the debug guard reads it"))]
    snapshot: Snapshot,
}

static FROZEN: OnceLock<Result<Frozen, ConfigError>> = OnceLock::new();

/// The process's config, frozen on first call; a bad knob value is an error naming the variable.
///
/// # Panics
/// In debug builds, when a knob's variable changed since the freeze (see [`ConfigChanged`]).
pub fn try_runtime_config() -> Result<&'static RuntimeConfig, ConfigError> {
    let frozen = FROZEN.get_or_init(|| parse_config(env_lookup).map(|(config, snapshot)| Frozen { config, snapshot }));
    let frozen = frozen.as_ref().map_err(Clone::clone)?;
    #[cfg(debug_assertions)]
    if let Some(changed) = find_changed(&frozen.snapshot, env_lookup) {
        panic!("{changed}");
    }
    Ok(&frozen.config)
}

/// The process's config, frozen on first call.
///
/// # Panics
/// On a bad knob value (with the [`ConfigError`] message), and in debug builds when a knob's variable
/// changed since the freeze.
pub fn runtime_config() -> &'static RuntimeConfig {
    match try_runtime_config() {
        Ok(config) => config,
        Err(e) => panic!("{e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn defaults_when_unset() {
        let (config, snapshot) = parse_config(env(&[])).unwrap();
        assert_eq!(config, RuntimeConfig::defaults());
        assert_eq!(config.ep, ExecutionProvider::Cpu);
        assert!(config.cuda_graph);
        assert!(config.threads >= 1);
        let names: Vec<_> = snapshot.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["ENGINE_EP", "ENGINE_CUDA_GRAPH", "ENGINE_THREADS"]);
        assert!(snapshot.iter().all(|(_, v)| v.is_none()));
    }

    #[test]
    fn parses_every_knob_and_snapshots_it() {
        let lookup = env(&[("ENGINE_EP", "cuda"), ("ENGINE_CUDA_GRAPH", "0"), ("ENGINE_THREADS", "3")]);
        let (config, snapshot) = parse_config(&lookup).unwrap();
        assert_eq!(
            config,
            RuntimeConfig {
                ep: ExecutionProvider::Cuda,
                cuda_graph: false,
                threads: 3
            }
        );
        for (name, value) in &snapshot {
            assert_eq!(*value, lookup(name));
        }
    }

    #[test]
    fn bad_values_name_the_variable_value_and_accepted_values() {
        for (var, bad, accepted) in [
            ("ENGINE_EP", "gpu", "`cpu` or `cuda`"),
            ("ENGINE_CUDA_GRAPH", "yes", "`0` or `1`"),
            ("ENGINE_THREADS", "0", "a positive integer"),
            ("ENGINE_THREADS", "-2", "a positive integer"),
            ("ENGINE_THREADS", "", "a positive integer"),
        ] {
            let err = parse_config(env(&[(var, bad)])).unwrap_err();
            assert_eq!(
                err,
                ConfigError::InvalidValue {
                    var,
                    value: bad.to_owned(),
                    accepted
                }
            );
            let msg = err.to_string();
            assert!(
                msg.contains(var) && msg.contains(&format!("{bad:?}")) && msg.contains(accepted),
                "{msg}"
            );
        }
    }

    #[test]
    fn every_knob_documents_a_default_and_accepted_values() {
        for knob in KNOBS {
            assert!(knob.name.starts_with("ENGINE_"));
            assert!(!knob.default.is_empty() && !knob.accepted.is_empty());
        }
    }

    fn frozen() -> Snapshot {
        parse_config(env(&[("ENGINE_CUDA_GRAPH", "1")])).unwrap().1
    }

    #[test]
    fn find_changed_unchanged() {
        assert_eq!(find_changed(&frozen(), env(&[("ENGINE_CUDA_GRAPH", "1")])), None);
    }

    #[test]
    fn find_changed_changed() {
        let changed = find_changed(&frozen(), env(&[("ENGINE_CUDA_GRAPH", "0")])).unwrap();
        assert_eq!(changed.var, "ENGINE_CUDA_GRAPH");
        assert_eq!(
            changed.to_string(),
            "ENGINE_CUDA_GRAPH changed after the runtime config was frozen: frozen \"1\", now \"0\". \
             The config is read once per process; run this phase in a process of its own (harness env matrix)"
        );
    }

    #[test]
    fn find_changed_newly_set() {
        let lookup = env(&[("ENGINE_CUDA_GRAPH", "1"), ("ENGINE_THREADS", "2")]);
        let changed = find_changed(&frozen(), lookup).unwrap();
        assert_eq!(
            (changed.var, changed.frozen.as_deref(), changed.now.as_deref()),
            ("ENGINE_THREADS", None, Some("2"))
        );
        assert!(changed.to_string().contains("frozen unset, now \"2\""));
    }

    #[test]
    fn find_changed_cleared() {
        let changed = find_changed(&frozen(), env(&[])).unwrap();
        assert_eq!(
            (changed.var, changed.frozen.as_deref(), changed.now.as_deref()),
            ("ENGINE_CUDA_GRAPH", Some("1"), None)
        );
        assert!(changed.to_string().contains("frozen \"1\", now unset"));
    }
}
