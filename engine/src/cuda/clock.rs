//! [`ClockProbe`]: the SM clock over a stretch of stream work, from device timers read by a small
//! kernel before and after it (nvbench's method); [`clock_from_stamps`] is the arithmetic.
//!
//! `%globaltimer` is a device-wide nanosecond timer; `clock64()` counts the cycles of the SM the
//! thread runs on. A stamp kernel enqueued before the work and another after it each record both
//! on every SM they reach; per SM, cycles over nanoseconds between the two stamps is that SM's
//! mean clock over the work (cycles per ns = GHz). nvbench reads SM 0 only; this reads every SM
//! that both stamps reached and reports the median, so one block landing elsewhere loses nothing.
//! The span includes the stamps' own launch gaps (a few microseconds), so for very short work the
//! figure leans towards the clock between launches, which is the same clock unless it is changing.

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream, LaunchConfig, PushKernelArg, sys};

use super::DeviceBuffer;
use super::kernels::{Kernels, kernels};
use crate::errors::CudaError;

/// The SM clock measured over one stretch of work.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClockReading {
    /// Median over SMs of cycles / nanoseconds, in MHz.
    pub sm_clock_mhz: f64,
    /// SMs stamped both before and after the work.
    pub sms: usize,
    /// Median globaltimer span between the two stamps, ns.
    pub span_ns: u64,
}

/// Two rounds of per-SM stamps in one device buffer, and the host copy they are read into.
#[derive(Debug)]
pub struct ClockProbe {
    kernels: &'static Kernels,
    buf: DeviceBuffer,
    slots: u32,
    host: Vec<u64>,
}

/// u64 per slot: (globaltimer, clock64).
const PER_SLOT: usize = 2;

impl ClockProbe {
    /// A probe for device 0 (needs NVRTC: the stamp kernel is one of the engine's kernels).
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, CudaError> {
        let kernels = kernels()?;
        // %smid can exceed the SM count on parts with disabled SMs; twice the count is ample and
        // the kernel drops any id past it.
        let slots = kernels.multiprocessors.max(1) * 2;
        let u64s = 2 * slots as usize * PER_SLOT;
        Ok(ClockProbe {
            kernels,
            buf: DeviceBuffer::alloc(ctx, u64s * 2)?,
            slots,
            host: vec![0; u64s],
        })
    }

    /// Enqueues on `stream`: both stamp rounds cleared, then the "before" stamps.
    pub fn start(&mut self, stream: &CudaStream) -> Result<(), CudaError> {
        stream.context().bind_to_thread().map_err(CudaError::driver("cuCtxSetCurrent"))?;
        // SAFETY: the whole buffer is ours; the stream belongs to its context.
        unsafe { sys::cuMemsetD32Async(self.buf.ptr(), 0, self.buf.len(), stream.cu_stream()) }
            .result()
            .map_err(CudaError::driver("cuMemsetD32Async(clock probe)"))?;
        self.stamp(stream, 0)
    }

    /// Enqueues on `stream`: the "after" stamps.
    pub fn stop(&mut self, stream: &CudaStream) -> Result<(), CudaError> {
        self.stamp(stream, 1)
    }

    fn stamp(&self, stream: &CudaStream, round: usize) -> Result<(), CudaError> {
        let out = self.buf.ptr() + (round * self.slots as usize * PER_SLOT * 8) as u64;
        let mut launch = stream.launch_builder(&self.kernels.sm_clock_stamp);
        launch.arg(&out).arg(&self.slots);
        let cfg = LaunchConfig {
            grid_dim: (self.slots, 1, 1),
            block_dim: (32, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: `out` holds `slots` 16-byte slots (16-byte aligned: cuMemAlloc aligns to 256).
        unsafe { launch.launch(cfg) }.map_err(CudaError::driver("cuLaunchKernel(sm_clock_stamp)"))?;
        Ok(())
    }

    /// Waits for `stream`, copies both rounds back and computes the clock between them; `None`
    /// when no SM was stamped in both rounds.
    pub fn read(&mut self, stream: &CudaStream) -> Result<Option<ClockReading>, CudaError> {
        stream.context().bind_to_thread().map_err(CudaError::driver("cuCtxSetCurrent"))?;
        let bytes = self.host.len() * 8;
        // SAFETY: `host` holds exactly the buffer's bytes and outlives the copy (synchronized below).
        unsafe { sys::cuMemcpyDtoHAsync_v2(self.host.as_mut_ptr().cast(), self.buf.ptr(), bytes, stream.cu_stream()) }
            .result()
            .map_err(CudaError::driver("cuMemcpyDtoHAsync(clock probe)"))?;
        stream.synchronize().map_err(CudaError::driver("cuStreamSynchronize"))?;
        let (before, after) = self.host.split_at(self.host.len() / 2);
        Ok(clock_from_stamps(before, after))
    }
}

/// The clock between two rounds of stamps, each `[t0, c0, t1, c1, ...]` per SM slot (zero: not
/// stamped). Per SM present in both with time moving forward, cycles / ns; the median over SMs.
pub fn clock_from_stamps(before: &[u64], after: &[u64]) -> Option<ClockReading> {
    let mut mhz = Vec::new();
    let mut spans = Vec::new();
    for (b, a) in before.chunks_exact(PER_SLOT).zip(after.chunks_exact(PER_SLOT)) {
        let (t0, c0, t1, c1) = (b[0], b[1], a[0], a[1]);
        if t0 == 0 || t1 <= t0 || c1 <= c0 {
            continue;
        }
        mhz.push((c1 - c0) as f64 / (t1 - t0) as f64 * 1e3);
        spans.push(t1 - t0);
    }
    if mhz.is_empty() {
        return None;
    }
    mhz.sort_by(f64::total_cmp);
    spans.sort_unstable();
    Some(ClockReading {
        sm_clock_mhz: median(&mhz),
        sms: mhz.len(),
        span_ns: spans[spans.len() / 2],
    })
}

fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_is_cycles_over_nanoseconds_median_over_the_sms_stamped_twice() {
        // SM 0: 1980 cycles in 1000 ns (1980 MHz); SM 1: 1000 in 1000 (1000 MHz); SM 2: 2000 in
        // 1000; SM 3 missed the second round; SM 4 never stamped.
        let before = [10_000, 5_000, 10_000, 7_000, 10_000, 1, 10_000, 3, 0, 0];
        let after = [11_000, 6_980, 11_000, 8_000, 11_000, 2_001, 0, 0, 0, 0];
        let r = clock_from_stamps(&before, &after).unwrap();
        assert_eq!(r.sms, 3);
        assert_eq!(r.sm_clock_mhz, 1980.0);
        assert_eq!(r.span_ns, 1000);
    }

    #[test]
    fn no_sm_stamped_twice_or_time_running_backwards_gives_no_reading() {
        assert_eq!(clock_from_stamps(&[0, 0, 5, 5], &[9, 9, 0, 0]), None);
        assert_eq!(clock_from_stamps(&[9, 5], &[8, 9]), None, "the timer went backwards");
        let even = clock_from_stamps(&[1, 0, 1, 0], &[1001, 1000, 1001, 2000]).unwrap();
        assert_eq!(even.sm_clock_mhz, 1500.0, "an even count takes the mean of the middle two");
    }
}
