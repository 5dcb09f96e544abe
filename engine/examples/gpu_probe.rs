//! Facts the GPU timing path rests on, read on the device in one go: the L2 and clock attributes,
//! the SM clock of the first samples of a process (idle start), the globaltimer's tick, and cold
//! against hot reads and copies at several sizes, the L2 flushed by a read pass or by a memset.
//! Run with `--release`.
//!
//! An exploration for humans (docs/gpu.md cites its output), not a benchmark: medians of a few
//! dozen samples in one process, no intervals (the harness's `cuda/` scenarios give those).

use std::sync::Arc;

use engine::cuda::cudarc::driver::{CudaStream, sys};
use engine::cuda::{self, Availability, DeviceBuffer, FLUSH_FACTOR, FlushKind, GpuSampler, L2Flush, TimedSample, copy};
use engine::errors::CudaError;

fn ok<T>(r: Result<T, CudaError>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn fill(stream: &CudaStream, buf: &DeviceBuffer, value: u32) {
    // SAFETY: the whole allocation, on a stream of its context.
    ok(unsafe { sys::cuMemsetD32Async(buf.ptr(), value, buf.len(), stream.cu_stream()) }
        .result()
        .map_err(CudaError::driver("cuMemsetD32Async")));
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn mhz(s: &TimedSample) -> f64 {
    s.clock.map_or(f64::NAN, |c| c.sm_clock_mhz)
}

fn main() {
    let info = match cuda::availability() {
        Availability::Available(info) => info.clone(),
        Availability::Unavailable(reason) => {
            println!("gpu_probe: {reason}");
            return;
        }
    };
    let default_mhz = info.default_sm_clock_mhz();
    println!(
        "device: {} cc {}.{} sms {} l2_bytes {} default_sm_clock_mhz {default_mhz} driver {} nvrtc {}",
        info.name,
        info.compute_capability.0,
        info.compute_capability.1,
        info.multiprocessors,
        info.l2_cache_bytes,
        info.driver_version_string(),
        info.nvrtc
    );
    let ctx = ok(cuda::context());
    let stream = ok(ctx.new_stream().map_err(CudaError::driver("cuStreamCreate")));
    let mut sampler = ok(GpuSampler::new(&stream));
    idle_start(&ctx, &stream, &mut sampler, default_mhz);
    timer_tick(&stream, &mut sampler);
    cold_hot(&ctx, &stream, &mut sampler);
}

/// The first 400 samples of this process: a 32 MiB copy, hot, back to back. Prints the first 30
/// and how many of each 50 ran below 75% of the default clock.
fn idle_start(ctx: &Arc<cuda::cudarc::driver::CudaContext>, stream: &Arc<CudaStream>, s: &mut GpuSampler, default_mhz: f64) {
    let words = 8 << 20;
    let src = ok(DeviceBuffer::alloc(ctx, words));
    let mut dst = ok(DeviceBuffer::alloc(ctx, words));
    fill(stream, &src, 7);
    let t0 = std::time::Instant::now();
    let samples: Vec<(f64, TimedSample)> = (0..400)
        .map(|_| {
            let x = ok(s.time_events(|| copy::memcpy_dtod(stream, &src, &mut dst)));
            (t0.elapsed().as_secs_f64() * 1e3, x)
        })
        .collect();
    for (i, (at_ms, x)) in samples.iter().take(30).enumerate() {
        println!(
            "idle_start sample {i} at {at_ms:.3} ms: {:.1} us, {:.0} MHz over {} SMs, span {} ns",
            x.elapsed.as_secs_f64() * 1e6,
            mhz(x),
            x.clock.map_or(0, |c| c.sms),
            x.clock.map_or(0, |c| c.span_ns)
        );
    }
    for (k, chunk) in samples.chunks(50).enumerate() {
        let below = chunk.iter().filter(|(_, x)| mhz(x) < 0.75 * default_mhz).count();
        let m = median(chunk.iter().map(|(_, x)| mhz(x)).collect());
        println!(
            "idle_start samples {}..{}: {below} of {} below 75% of {default_mhz} MHz, median {m:.0} MHz, ended at {:.1} ms",
            k * 50,
            k * 50 + chunk.len(),
            chunk.len(),
            chunk.last().map_or(0.0, |c| c.0)
        );
    }
}

/// Spans of back-to-back samples of nothing: their distinct values show the globaltimer's tick.
fn timer_tick(stream: &Arc<CudaStream>, s: &mut GpuSampler) {
    let mut spans: Vec<u64> = (0..200)
        .filter_map(|_| ok(s.time_events(|| Ok(()))).clock.map(|c| c.span_ns))
        .collect();
    spans.sort_unstable();
    spans.dedup();
    let _ = stream;
    println!(
        "globaltimer spans of empty samples (distinct, ns): {:?}",
        &spans[..spans.len().min(40)]
    );
}

/// Hot against cold, for a read-only kernel and a copy, with the L2 flushed by a read pass or by
/// a memset (each 2x L2): what each flush leaves for the sample to pay.
fn cold_hot(ctx: &Arc<cuda::cudarc::driver::CudaContext>, stream: &Arc<CudaStream>, s: &mut GpuSampler) {
    let mut by_read = ok(L2Flush::with(ctx, FLUSH_FACTOR, FlushKind::Read));
    let mut by_write = ok(L2Flush::with(ctx, FLUSH_FACTOR, FlushKind::Write));
    let mut sink = ok(DeviceBuffer::alloc(ctx, 1));
    for mib in [8usize, 16, 32, 48, 64, 256] {
        let words = mib << 18;
        let src = ok(DeviceBuffer::alloc(ctx, words));
        let mut dst = ok(DeviceBuffer::alloc(ctx, words));
        fill(stream, &src, 0xA5A5_5A5A);
        fill(stream, &dst, 0);
        for what in ["read", "memcpy_dtod"] {
            let mut row = Vec::new();
            for mode in ["hot", "cold_read_flush", "cold_memset_flush"] {
                let mut times = Vec::new();
                for i in 0..65 {
                    match mode {
                        "cold_read_flush" => ok(by_read.flush(stream)),
                        "cold_memset_flush" => ok(by_write.flush(stream)),
                        _ => {}
                    }
                    let x = ok(s.time_events(|| {
                        if what == "read" {
                            copy::read_kernel(stream, &src, &mut sink)
                        } else {
                            copy::memcpy_dtod(stream, &src, &mut dst)
                        }
                    }));
                    if i >= 5 {
                        times.push(x.elapsed.as_secs_f64());
                    }
                }
                let t = median(times);
                let moved = if what == "read" { 1.0 } else { 2.0 } * (words * 4) as f64;
                row.push(format!("{mode} {:.0} GB/s ({:.1} us)", moved / t / 1e9, t * 1e6));
            }
            println!("cold_hot {what} {mib} MiB: {}", row.join("; "));
        }
    }
}
