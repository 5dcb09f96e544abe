//! [`GpuSampler`]: one measured stream's sample timing — an optional L2 flush before the sample,
//! CUDA events (or the host clock) around it, and the SM clock over it from [`ClockProbe`] stamps.
//!
//! Order on the stream for one sample: flush (cold samples only), "before" stamps, start event,
//! the work, stop event, "after" stamps; then one wait. The flush and the stamps lie outside the
//! events, so they never count in the sample's time; the stamps bracket the work closely enough
//! that their clock is the work's clock.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::CudaStream;

use super::clock::{ClockProbe, ClockReading};
use super::{EventTimer, L2Flush, device_info};
use crate::errors::CudaError;

/// One timed sample: its duration and, where the probe could run, the SM clock over it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimedSample {
    /// Device time between the events (or host time, for [`GpuSampler::time_host`]).
    pub elapsed: Duration,
    /// The SM clock over the sample; `None` without NVRTC (no stamp kernel) or with no stamp.
    pub clock: Option<ClockReading>,
}

/// Flush, events and clock stamps for work on one stream.
#[derive(Debug)]
pub struct GpuSampler {
    stream: Arc<CudaStream>,
    timer: EventTimer,
    flush: L2Flush,
    probe: Option<ClockProbe>,
}

impl GpuSampler {
    /// A sampler for work on `stream`. The clock probe needs NVRTC; without it samples carry no
    /// clock and a throttle rule cannot judge them.
    pub fn new(stream: &Arc<CudaStream>) -> Result<Self, CudaError> {
        let ctx = stream.context();
        let probe = if device_info()?.nvrtc { Some(ClockProbe::new(ctx)?) } else { None };
        Ok(GpuSampler {
            stream: stream.clone(),
            timer: EventTimer::new(ctx)?,
            flush: L2Flush::new(ctx)?,
            probe,
        })
    }

    /// Enqueues the L2 flush on the measured stream (before a cold sample).
    pub fn flush_l2(&mut self) -> Result<(), CudaError> {
        self.flush.flush(&self.stream)
    }

    /// Times `enqueue`'s stream work with CUDA events, stamps around it.
    pub fn time_events(&mut self, enqueue: impl FnOnce() -> Result<(), CudaError>) -> Result<TimedSample, CudaError> {
        if let Some(p) = &mut self.probe {
            p.start(&self.stream)?;
        }
        self.timer.record(&self.stream, enqueue)?;
        if let Some(p) = &mut self.probe {
            p.stop(&self.stream)?;
        }
        let elapsed = self.timer.elapsed()?;
        let clock = self.read_clock()?;
        Ok(TimedSample { elapsed, clock })
    }

    /// Times `work` with the host clock, for synchronous driver calls that enqueue nothing on a
    /// stream (events around them would time nothing); the stream is idle at both ends.
    pub fn time_host(&mut self, work: impl FnOnce() -> Result<(), CudaError>) -> Result<TimedSample, CudaError> {
        if let Some(p) = &mut self.probe {
            p.start(&self.stream)?;
        }
        self.sync()?;
        let start = Instant::now();
        work()?;
        self.sync()?;
        let elapsed = start.elapsed();
        if let Some(p) = &mut self.probe {
            p.stop(&self.stream)?;
        }
        let clock = self.read_clock()?;
        Ok(TimedSample { elapsed, clock })
    }

    fn read_clock(&mut self) -> Result<Option<ClockReading>, CudaError> {
        match &mut self.probe {
            Some(p) => p.read(&self.stream),
            None => Ok(None),
        }
    }

    fn sync(&self) -> Result<(), CudaError> {
        self.stream.synchronize().map_err(CudaError::driver("cuStreamSynchronize"))
    }

    /// The device's default SM clock (`CU_DEVICE_ATTRIBUTE_CLOCK_RATE`), MHz.
    pub fn default_sm_clock_mhz(&self) -> Result<f64, CudaError> {
        Ok(device_info()?.default_sm_clock_mhz())
    }

    /// The flush buffer (its L2 and flush sizes).
    pub fn l2(&self) -> &L2Flush {
        &self.flush
    }

    /// Whether samples carry an SM clock.
    pub fn has_clock(&self) -> bool {
        self.probe.is_some()
    }
}
