//! [`EventTimer`]: times work enqueued on a stream with a pair of CUDA events, so the time is the
//! device's, not the host's enqueue time.

use std::sync::Arc;
use std::time::Duration;

use cudarc::driver::{CudaContext, CudaEvent, CudaStream, sys};

use crate::errors::CudaError;

/// Two timing-enabled events, reused across measurements.
#[derive(Debug)]
pub struct EventTimer {
    start: CudaEvent,
    stop: CudaEvent,
}

impl EventTimer {
    /// Creates the events on `ctx` (timing enabled: cudarc's default disables it).
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, CudaError> {
        let make = || {
            ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(CudaError::driver("cuEventCreate"))
        };
        Ok(EventTimer {
            start: make()?,
            stop: make()?,
        })
    }

    /// Records the start event, runs `enqueue` (which enqueues work on `stream`), records the stop
    /// event, waits for it, and returns the device time between the two (resolution about 0.5 us).
    pub fn time(&self, stream: &CudaStream, enqueue: impl FnOnce() -> Result<(), CudaError>) -> Result<Duration, CudaError> {
        self.record(stream, enqueue)?;
        self.elapsed()
    }

    /// Enqueues the start event, `enqueue`'s work and the stop event on `stream`, without waiting:
    /// more work (a clock stamp) can follow before [`elapsed`](Self::elapsed) waits.
    pub fn record(&self, stream: &CudaStream, enqueue: impl FnOnce() -> Result<(), CudaError>) -> Result<(), CudaError> {
        self.start.record(stream).map_err(CudaError::driver("cuEventRecord"))?;
        enqueue()?;
        self.stop.record(stream).map_err(CudaError::driver("cuEventRecord"))
    }

    /// Waits for the stop event and returns the device time between the last recorded pair.
    pub fn elapsed(&self) -> Result<Duration, CudaError> {
        self.stop.synchronize().map_err(CudaError::driver("cuEventSynchronize"))?;
        let ms = self.start.elapsed_ms(&self.stop).map_err(CudaError::driver("cuEventElapsedTime"))?;
        Ok(Duration::from_secs_f64(f64::from(ms) / 1e3))
    }
}
