//! `Measurement` and `WallTime`: criterion's measurement types, kept so that signatures such as
//! `BenchmarkGroup<'_, WallTime>` or `fn f<M: Measurement>(g: &mut BenchmarkGroup<M>)` compile.
//!
//! Wall time is the only measurement: the harness's counters (`--counters`) take the place of
//! criterion's custom measurements, so the trait is sealed.

use std::time::{Duration, Instant};

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::WallTime {}
}

/// What a benchmark measures; only [`WallTime`] here.
pub trait Measurement: sealed::Sealed {
    /// What a measurement starts from (`Instant` for wall time).
    type Intermediate;
    /// What `Bencher::iter_custom`'s routine returns (`Duration` for wall time).
    type Value;

    #[doc(hidden)]
    fn __into_duration(value: Self::Value) -> Duration;
}

/// Elapsed wall-clock time, criterion's default measurement.
#[derive(Debug, Default, Clone, Copy)]
pub struct WallTime;

impl Measurement for WallTime {
    type Intermediate = Instant;
    type Value = Duration;

    fn __into_duration(value: Duration) -> Duration {
        value
    }
}
