//! Hardware counters in a build without the `perf` feature: the probe says why they do not
//! count here, so `--counters=perf` is refused with that reason and `--counters` (auto) falls
//! back to valgrind, as on a machine without a PMU.

/// Never opened in this build: no value of this type exists.
pub(crate) enum PerfCounters {}

/// Why hardware counters do not count: this binary was built without them.
pub(crate) fn probe() -> Result<(), String> {
    Err(
        "this binary was built without harness's cargo feature `perf` (harness-criterion's feature \
         `perf`); the harness CLI has it"
            .to_owned(),
    )
}

impl PerfCounters {
    pub(crate) fn open() -> Result<PerfCounters, String> {
        probe().map(|()| unreachable!("probe always fails without the perf feature"))
    }

    pub(crate) fn names(&self) -> Vec<&'static str> {
        match *self {}
    }

    pub(crate) fn start(&mut self) -> Result<(), String> {
        match *self {}
    }

    pub(crate) fn stop(&mut self) -> Result<Vec<u64>, String> {
        match *self {}
    }
}
