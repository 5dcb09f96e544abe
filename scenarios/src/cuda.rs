//! CUDA scenarios: the cross-stream readback race and its [`TestStream`] fix, graph captures under
//! `ENGINE_CUDA_GRAPH`, and bandwidth, KV growth and decode-launch measurements timed with CUDA events.
//!
//! Bandwidth and KV growth go through the harness's GPU timing path ([`Bencher::iter_gpu`] over a
//! [`GpuSampler`]): a cold series (L2 flushed before each sample) and a hot one, each sample's SM
//! clock read around it, throttled samples dropped, each series stopped on noise.
//!
//! Every scenario first asks [`cuda::availability`]; without a driver or device it calls
//! [`harness::skip`] with the reason, so a machine without a GPU reports them skipped, never
//! passed or failed.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::cuda::cudarc::driver::{CudaContext, result, sys};
use engine::cuda::{
    self, Availability, DecodeShape, DecodeStep, DeviceBuffer, DeviceKvCache, EventTimer, GpuSampler, LaunchMode, TestStream, captures,
    copy,
};
use engine::errors::CudaError;
use harness::{Bencher, Caches, GpuSample, GpuTimer, Scenario, Throughput, Unit};

/// The race buffer's size in MiB, from `SCENARIOS_CUDA_RACE_MIB` (default below): the fill must
/// still be running when the readback starts, and how long that takes differs between machines.
/// On an H200 on 2026-12-02, 512 MiB raced in 4 of 20 isolated runs; on 2026-12-03 in 18 of 20
/// (docs/gpu.md). So the race scenarios sweep the size as env-matrix variants ([`RACE_SWEEP_MIB`])
/// and `scripts/race_sweep.py` reads detect's verdict per size.
const RACE_MIB_VAR: &str = "SCENARIOS_CUDA_RACE_MIB";
const RACE_MIB_DEFAULT: usize = 512;
/// Fill sizes of the race scenarios' variants: from sizes the fill usually wins to sizes it loses.
const RACE_SWEEP_MIB: [&str; 6] = ["64", "128", "256", "384", "512", "1024"];

fn race_words() -> usize {
    let mib = match std::env::var(RACE_MIB_VAR) {
        Ok(v) => v
            .parse::<usize>()
            .ok()
            .filter(|&m| m >= 2)
            .unwrap_or_else(|| panic!("{RACE_MIB_VAR}={v:?} is not valid: expected an integer >= 2")),
        Err(_) => RACE_MIB_DEFAULT,
    };
    mib << 18
}
/// Words read back from the END of the buffer (1 MiB): the fill reaches the end last.
const TAIL_WORDS: usize = 256 << 10;
const OLD: u32 = 0x0DDC_0FFE;
const NEW: u32 = 0xC0FF_EE00;

/// Bandwidth buffers: 1 GiB each, far past the 60 MiB L2.
const BANDWIDTH_WORDS: usize = 256 << 20;
/// Cold against hot at sizes either side of the L2 (60 MiB on an H200): words of 32 MiB and 4 GiB.
const MIB_32: usize = 8 << 20;
const GIB_4: usize = 1 << 30;

/// The decode model: 8 layers of 256 floats, mean over 64 tokens; 17 small launches per step.
const DECODE: DecodeShape = DecodeShape {
    layers: 8,
    width: 256,
    window: 64,
};
/// Steps timed between one pair of events.
const STEPS_PER_SAMPLE: usize = 64;

/// The process's context, or a skip naming why there is none.
fn gpu() -> Arc<CudaContext> {
    if let Availability::Unavailable(reason) = cuda::availability() {
        harness::skip(reason.to_string());
    }
    ok(cuda::context())
}

/// As [`gpu`], also skipping when NVRTC is missing (the engine's kernels need it).
fn gpu_with_kernels() -> Arc<CudaContext> {
    let ctx = gpu();
    if let Err(CudaError::Unavailable(reason)) = cuda::device_info_with_nvrtc() {
        harness::skip(reason.to_string());
    }
    ctx
}

fn ok<T>(r: Result<T, CudaError>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn driver(call: &'static str, r: sys::CUresult) {
    ok(r.result().map_err(CudaError::driver(call)))
}

/// A CUDA measurement: timed with CUDA events, never counted under `--counters` (the host's
/// instructions say nothing about a kernel's time).
#[track_caller]
fn gpu_measure(name: &str, f: impl Fn(&mut Bencher) + Send + Sync + 'static) -> Scenario {
    Scenario::measure(name, f).uncounted("CUDA: timed with CUDA events; host instruction counts say nothing about kernels")
}

harness::scenarios!(|| vec![
    // Both race scenarios carry the same size variants: variants with the same env form one
    // process set for detect, so each size gets its own verdict with the sibling beside it.
    Scenario::check("cuda/race/context_warm_up_sibling", warm_up_sibling).env(RACE_MIB_VAR, RACE_SWEEP_MIB),
    // A deliberate race, kept out of the default run so the suite stays green on a GPU machine:
    // `scenarios detect cuda/race --include-ignored` is what it is for.
    Scenario::check(
        "cuda/race/legacy_readback_after_nonblocking_fill",
        legacy_readback_after_nonblocking_fill
    )
    .env(RACE_MIB_VAR, RACE_SWEEP_MIB)
    .ignore("a deliberate cross-stream race for detect: run `detect cuda/race --include-ignored`"),
    Scenario::check("cuda/test_stream/readback_is_complete", test_stream_readback_is_complete),
    gpu_measure("cuda/graph/captures", graph_captures).env("ENGINE_CUDA_GRAPH", ["0", "1"]),
    gpu_measure("cuda/bandwidth/fill", bandwidth_fill),
    gpu_measure("cuda/bandwidth/copy_dtod", bandwidth_copy_kernel),
    gpu_measure("cuda/bandwidth/ceiling_memcpy_dtod", |b| bandwidth_ceiling(b, BANDWIDTH_WORDS)),
    gpu_measure("cuda/bandwidth/memcpy_dtod_32mib", |b| bandwidth_ceiling(b, MIB_32)),
    gpu_measure("cuda/bandwidth/memcpy_dtod_4gib", |b| bandwidth_ceiling(b, GIB_4)),
    gpu_measure("cuda/bandwidth/read_32mib", |b| bandwidth_read(b, MIB_32)),
    gpu_measure("cuda/bandwidth/read_4gib", |b| bandwidth_read(b, GIB_4)),
    gpu_measure("cuda/kv/grow_per_page", kv_grow_per_page),
    gpu_measure("cuda/decode/graph_replay", |b| decode_latency(b, LaunchMode::Graph)),
    gpu_measure("cuda/decode/eager_launch", |b| decode_latency(b, LaunchMode::Eager)),
]);

/// Warms what the race check uses (context, a buffer of the same size, legacy-stream copies) in
/// the same process. Its name sorts before the race check's, so an in-suite run puts it first.
fn warm_up_sibling() {
    let ctx = gpu();
    let stream = ok(ctx.new_stream().map_err(CudaError::driver("cuStreamCreate")));
    let words = race_words();
    let buf = ok(DeviceBuffer::alloc(&ctx, words));
    let mut host = vec![0u32; TAIL_WORDS];
    for _ in 0..8 {
        // SAFETY: our buffer, our stream.
        driver("cuMemsetD32Async", unsafe {
            sys::cuMemsetD32Async(buf.ptr(), OLD, buf.len(), stream.cu_stream())
        });
        ok(stream.synchronize().map_err(CudaError::driver("cuStreamSynchronize")));
        // SAFETY: the tail lies inside the buffer; the fill above completed.
        ok(unsafe { result::memcpy_dtoh_sync(&mut host, buf.ptr_at(words - TAIL_WORDS)) }.map_err(CudaError::driver("cuMemcpyDtoH")));
    }
    assert!(host.iter().all(|&w| w == OLD), "warm-up readback after synchronize was wrong");
}

/// The hazard: a fill on a non-blocking stream, read back through the legacy default stream with
/// no synchronization between them. Raw driver calls, so no event tracking hides the race. Fails
/// when the readback saw any word the fill had not yet reached: timing decides, so it is flaky.
fn legacy_readback_after_nonblocking_fill() -> Result<(), String> {
    let ctx = gpu();
    let stream = ok(ctx.new_stream().map_err(CudaError::driver("cuStreamCreate")));
    let words = race_words();
    let buf = ok(DeviceBuffer::alloc(&ctx, words));
    // SAFETY (all calls below): our buffer and stream; host slices are TAIL_WORDS long and the tail
    // lies inside the buffer.
    driver("cuMemsetD32Async", unsafe {
        sys::cuMemsetD32Async(buf.ptr(), OLD, buf.len(), stream.cu_stream())
    });
    ok(stream.synchronize().map_err(CudaError::driver("cuStreamSynchronize")));

    let issued = Instant::now();
    driver("cuMemsetD32Async", unsafe {
        sys::cuMemsetD32Async(buf.ptr(), NEW, buf.len(), stream.cu_stream())
    });
    let mut host = vec![0u32; TAIL_WORDS];
    let tail = buf.ptr_at(words - TAIL_WORDS);
    ok(unsafe { result::memcpy_dtoh_sync(&mut host, tail) }.map_err(CudaError::driver("cuMemcpyDtoH")));
    let read_back = issued.elapsed();
    let stale = host.iter().filter(|&&w| w != NEW).count();

    // The fill itself is not in doubt: after a synchronize the same read sees it whole.
    ok(stream.synchronize().map_err(CudaError::driver("cuStreamSynchronize")));
    let mut after = vec![0u32; TAIL_WORDS];
    ok(unsafe { result::memcpy_dtoh_sync(&mut after, tail) }.map_err(CudaError::driver("cuMemcpyDtoH")));
    assert!(after.iter().all(|&w| w == NEW), "the fill never landed: this is not the race");
    let filled = issued.elapsed();
    println!(
        "race: fill of {} MiB; legacy readback of the last {} KiB returned {:.1} us after the fill was issued, \
         fill done by {:.1} us; {stale} of {TAIL_WORDS} words stale",
        words >> 18,
        TAIL_WORDS >> 8,
        read_back.as_secs_f64() * 1e6,
        filled.as_secs_f64() * 1e6
    );

    if stale == 0 {
        Ok(())
    } else {
        Err(format!(
            "partial readback: {stale} of {TAIL_WORDS} words read through the legacy default stream still held \
             the old value; the fill on the non-blocking stream had not reached them (no error was reported)"
        ))
    }
}

/// Readbacks through [`TestStream`] after fills and writes on the same stream, many times: every
/// one must be complete.
fn test_stream_readback_is_complete() -> Result<(), String> {
    const ROUNDS: u32 = 500;
    const MARKER_WORDS: usize = 16;
    let ctx = gpu();
    let ts = ok(TestStream::new(&ctx));
    let words = race_words();
    let mut buf = ok(ts.alloc(words));
    let mut host = vec![0u32; TAIL_WORDS];
    let mut partial = 0usize;
    for round in 0..ROUNDS {
        let value = NEW ^ round;
        let marker: Vec<u32> = (0..MARKER_WORDS as u32).map(|i| round.wrapping_mul(31) + i).collect();
        ok(ts.fill(&mut buf, value));
        ok(ts.write(&mut buf, words - MARKER_WORDS, &marker));
        ok(ts.read(&buf, words - TAIL_WORDS, &mut host));
        let (body, tail) = host.split_at(TAIL_WORDS - MARKER_WORDS);
        if body.iter().any(|&w| w != value) || tail != marker.as_slice() {
            partial += 1;
        }
    }
    println!("test_stream readbacks: {partial} partial of {ROUNDS}");
    if partial == 0 {
        Ok(())
    } else {
        Err(format!("{partial} of {ROUNDS} TestStream readbacks were partial"))
    }
}

/// Decode steps with the launch mode from the frozen config; reports `captures` and checks it is 1
/// with graphs on and 0 with them off, and that the output and every KV row match the reference
/// after the cache grew over several pages.
fn graph_captures(b: &mut Bencher) {
    const STEPS: usize = 1200; // 1200 rows of 4 KiB: three 2 MiB pages, so replays cross growth
    let ctx = gpu_with_kernels();
    let shape = DecodeShape {
        layers: 4,
        width: 256,
        window: 64,
    };
    let ts = ok(TestStream::new(&ctx));
    let mut kv = ok(DeviceKvCache::new(&ctx, shape.stride_bytes(), 4096, 1));
    let base = kv.base_ptr();
    let mode = LaunchMode::from_config();
    let before = captures();
    let mut step = ok(DecodeStep::new(ts.raw(), shape, mode));
    for _ in 0..STEPS {
        ok(step.step(&mut kv));
    }
    let out = ok(step.read_out());
    let rows = ok(step.read_kv(&kv, STEPS));
    let taken = captures() - before;
    b.record("captures", Unit::Count, taken as f64);
    b.record("kv_pages", Unit::Count, kv.pages() as f64);

    assert_eq!(kv.base_ptr(), base, "the KV cache moved while growing");
    assert!(kv.pages() >= 2, "the run never grew the cache past one page ({} pages)", kv.pages());
    assert_eq!(
        out,
        shape.reference_out(STEPS),
        "decode output differs from the reference ({mode:?})"
    );
    for t in 0..STEPS {
        for layer in 0..shape.layers {
            for j in 0..shape.width {
                let got = rows[t * shape.row_elems() + layer * shape.width + j];
                assert_eq!(
                    got,
                    DecodeShape::kv_value(t, layer, j),
                    "kv row {t} layer {layer} column {j} ({mode:?})"
                );
            }
        }
    }
    let expected = u64::from(mode == LaunchMode::Graph);
    assert_eq!(taken, expected, "{mode:?}: {taken} captures, expected {expected}");
}

/// The harness's view of a [`GpuSampler`]: how one sample is timed.
struct CudaTimer<'a> {
    sampler: &'a mut GpuSampler,
    clock: SampleClock,
}

/// Where a sample's time comes from.
enum SampleClock {
    /// CUDA events around the enqueued work.
    Events,
    /// The work measures itself (host clock around synchronous driver calls) and leaves its time
    /// here; the sampler still brackets it with clock stamps.
    Reported(Rc<Cell<Duration>>),
}

impl GpuTimer for CudaTimer<'_> {
    fn default_sm_clock_mhz(&self) -> Option<f64> {
        Some(ok(self.sampler.default_sm_clock_mhz())).filter(|&mhz| mhz > 0.0)
    }

    fn flush_l2(&mut self) {
        ok(self.sampler.flush_l2());
    }

    fn sample(&mut self, work: &mut dyn FnMut()) -> GpuSample {
        let run = || {
            work();
            Ok(())
        };
        let t = match &self.clock {
            SampleClock::Events => ok(self.sampler.time_events(run)),
            SampleClock::Reported(_) => ok(self.sampler.time_host(run)),
        };
        let elapsed = match &self.clock {
            SampleClock::Events => t.elapsed,
            SampleClock::Reported(cell) => cell.get(),
        };
        GpuSample {
            elapsed,
            sm_clock_mhz: t.clock.map(|c| c.sm_clock_mhz),
        }
    }
}

/// Cold and hot series of `work` (stream work on `ts`), timed with events.
fn cold_and_hot(b: &mut Bencher, ts: &TestStream, work: impl FnMut()) {
    let mut sampler = ok(GpuSampler::new(ts.raw()));
    let mut timer = CudaTimer {
        sampler: &mut sampler,
        clock: SampleClock::Events,
    };
    b.iter_gpu(&mut timer, Caches::ColdAndHot, work);
}

/// `TestStream::fill` (`cuMemsetD32Async`) over 1 GiB; bytes written.
fn bandwidth_fill(b: &mut Bencher) {
    let ctx = gpu();
    let ts = ok(TestStream::new(&ctx));
    let mut buf = ok(ts.alloc(BANDWIDTH_WORDS));
    b.throughput(Throughput::Bytes(buf.bytes() as u64));
    let mut value = 1u32;
    cold_and_hot(b, &ts, || {
        value = value.wrapping_add(0x9E37_79B9);
        ok(ts.fill(&mut buf, value));
    });
    let mut probe = [0u32; 4];
    ok(ts.read(&buf, BANDWIDTH_WORDS - 4, &mut probe));
    assert!(probe.iter().all(|&w| w == value), "the last fill did not land");
}

/// Source and destination of `words` each, the source filled with a non-zero pattern.
fn copy_buffers(ts: &TestStream, words: usize) -> (DeviceBuffer, DeviceBuffer) {
    let mut src = ok(ts.alloc(words));
    let mut dst = ok(ts.alloc(words));
    ok(ts.fill(&mut src, 0xA5A5_5A5A));
    ok(ts.fill(&mut dst, 0));
    ok(ts.write(&mut src, words - 4, &[1, 2, 3, 4]));
    (src, dst)
}

fn check_copied(ts: &TestStream, dst: &DeviceBuffer) {
    let mut probe = [0u32; 4];
    ok(ts.read(dst, dst.len() - 4, &mut probe));
    assert_eq!(probe, [1, 2, 3, 4], "the copy did not reach the end of the buffer");
    ok(ts.read(dst, 0, &mut probe));
    assert!(
        probe.iter().all(|&w| w == 0xA5A5_5A5A),
        "the copy did not write the start of the buffer"
    );
}

/// The engine's `copy_u4` kernel over 1 GiB; bytes read plus written.
fn bandwidth_copy_kernel(b: &mut Bencher) {
    let ctx = gpu_with_kernels();
    let ts = ok(TestStream::new(&ctx));
    let (src, mut dst) = copy_buffers(&ts, BANDWIDTH_WORDS);
    b.throughput(Throughput::Bytes(2 * src.bytes() as u64));
    cold_and_hot(b, &ts, || ok(copy::copy_kernel(ts.raw(), &src, &mut dst)));
    check_copied(&ts, &dst);
}

/// `cuMemcpyDtoDAsync` of `words`: at 1 GiB the copy ceiling; bytes read plus written.
fn bandwidth_ceiling(b: &mut Bencher, words: usize) {
    let ctx = gpu();
    let ts = ok(TestStream::new(&ctx));
    let (src, mut dst) = copy_buffers(&ts, words);
    b.throughput(Throughput::Bytes(2 * src.bytes() as u64));
    cold_and_hot(b, &ts, || ok(copy::memcpy_dtod(ts.raw(), &src, &mut dst)));
    check_copied(&ts, &dst);
}

/// The `read_u4` kernel over `words`: reads only, so the hot series shows what L2 gives reads;
/// bytes read.
fn bandwidth_read(b: &mut Bencher, words: usize) {
    let ctx = gpu_with_kernels();
    let ts = ok(TestStream::new(&ctx));
    let mut src = ok(ts.alloc(words));
    let mut sink = ok(ts.alloc(1));
    ok(ts.fill(&mut src, 0x5A5A_A5A5));
    ok(ts.fill(&mut sink, 0));
    b.throughput(Throughput::Bytes(src.bytes() as u64));
    cold_and_hot(b, &ts, || ok(copy::read_kernel(ts.raw(), &src, &mut sink)));
    let mut word = [1u32];
    ok(ts.read(&sink, 0, &mut word));
    assert_eq!(word, [0], "the read kernel wrote its sink: it read something other than the fill");
}

/// Cost of mapping one more KV page (create + map + set access), cold and hot. Host clock: these
/// are synchronous driver calls that enqueue nothing on a stream, so CUDA events would time
/// nothing; the cache is created outside the timed loop.
fn kv_grow_per_page(b: &mut Bencher) {
    const PAGES: usize = 32;
    let ctx = gpu();
    let ts = ok(TestStream::new(&ctx));
    let stride = DECODE.stride_bytes();
    let page_bytes = ok(cuda::kv::granularity(&ctx));
    let max_tokens = PAGES * page_bytes / stride;
    b.throughput(Throughput::Bytes(page_bytes as u64));
    let per_page = Rc::new(Cell::new(Duration::ZERO));
    let mut sampler = ok(GpuSampler::new(ts.raw()));
    let mut timer = CudaTimer {
        sampler: &mut sampler,
        clock: SampleClock::Reported(per_page.clone()),
    };
    let mut kv = Some(ok(DeviceKvCache::new(&ctx, stride, max_tokens, 1)));
    b.iter_gpu(&mut timer, Caches::ColdAndHot, || {
        let mut cache = kv.take().unwrap_or_else(|| ok(DeviceKvCache::new(&ctx, stride, max_tokens, 1)));
        let start = Instant::now();
        for _ in 0..PAGES {
            ok(cache.grow_page());
        }
        per_page.set(start.elapsed() / PAGES as u32);
        assert_eq!(cache.capacity_tokens(), max_tokens);
    });
    b.record("page_bytes", Unit::Bytes, page_bytes as f64);
}

/// Device time per decode step (17 launches), CUDA events around 64 steps.
fn decode_latency(b: &mut Bencher, mode: LaunchMode) {
    let ctx = gpu_with_kernels();
    let ts = ok(TestStream::new(&ctx));
    let timer = ok(EventTimer::new(&ctx));
    let max_tokens = 1 << 16;
    let mut kv = ok(DeviceKvCache::new(&ctx, DECODE.stride_bytes(), max_tokens, 1));
    // Pre-grow past what the timed steps use, so both modes time launches, not page mapping.
    ok(kv.ensure_capacity(((b.iterations() + 16) * STEPS_PER_SAMPLE).min(max_tokens)));
    let mut step = ok(DecodeStep::new(ts.raw(), DECODE, mode));
    ok(step.step(&mut kv)); // captures in graph mode: outside the timing
    b.iter_timed(|| {
        let d: Duration = ok(timer.time(ts.raw(), || {
            for _ in 0..STEPS_PER_SAMPLE {
                step.step(&mut kv)?;
            }
            Ok(())
        }));
        d / STEPS_PER_SAMPLE as u32
    });
    b.record("launches_per_step", Unit::Count, DECODE.launches_per_step() as f64);
    let out = ok(step.read_out());
    assert_eq!(
        out,
        DECODE.reference_out(step.tokens()),
        "decode output differs from the reference ({mode:?})"
    );
}
