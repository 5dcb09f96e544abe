//! Counting with the CPU's own counters (perf_event_open through `perf-event2`, whose bindings
//! are pre-generated, so nothing is needed at build time). The measuring process counts itself
//! around each timed sample; `inherit` carries the counters into threads it starts later.

use perf_event::events::Hardware;
use perf_event::{Builder, Counter};

/// Counters this source reports: `instructions` and `cycles` always, `cache_misses` where the
/// PMU offers it.
pub(crate) struct PerfCounters {
    counters: Vec<(&'static str, Counter)>,
}

fn open(event: Hardware) -> std::io::Result<Counter> {
    Builder::new(event).inherit(true).build()
}

/// Whether hardware instructions can be counted here, or why not.
pub(crate) fn probe() -> Result<(), String> {
    let mut c = open(Hardware::INSTRUCTIONS).map_err(|e| format!("perf_event_open for instructions: {e}"))?;
    c.enable()
        .and_then(|()| c.disable())
        .map_err(|e| format!("enabling the instructions counter: {e}"))?;
    c.read().map_err(|e| format!("reading the instructions counter: {e}"))?;
    Ok(())
}

impl PerfCounters {
    /// Open the counters, disabled.
    pub(crate) fn open() -> Result<PerfCounters, String> {
        let need = |name, e| {
            open(e)
                .map(|c| (name, c))
                .map_err(|err| format!("perf_event_open for {name}: {err}"))
        };
        let mut counters = vec![need("instructions", Hardware::INSTRUCTIONS)?, need("cycles", Hardware::CPU_CYCLES)?];
        if let Ok(c) = open(Hardware::CACHE_MISSES) {
            counters.push(("cache_misses", c));
        }
        Ok(PerfCounters { counters })
    }

    /// Names of the counters, in the order [`stop`](Self::stop) returns them.
    pub(crate) fn names(&self) -> Vec<&'static str> {
        self.counters.iter().map(|(n, _)| *n).collect()
    }

    /// Zero and start every counter.
    #[inline(always)]
    pub(crate) fn start(&mut self) -> Result<(), String> {
        for (name, c) in &mut self.counters {
            c.reset().and_then(|()| c.enable()).map_err(|e| format!("starting {name}: {e}"))?;
        }
        Ok(())
    }

    /// Stop every counter and read it.
    #[inline(always)]
    pub(crate) fn stop(&mut self) -> Result<Vec<u64>, String> {
        for (name, c) in &mut self.counters {
            c.disable().map_err(|e| format!("stopping {name}: {e}"))?;
        }
        self.counters
            .iter_mut()
            .map(|(name, c)| c.read().map_err(|e| format!("reading {name}: {e}")))
            .collect()
    }
}
