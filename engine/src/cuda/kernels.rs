//! The engine's CUDA kernels: [`SOURCE`] compiled once per process by NVRTC for device 0's
//! architecture into [`Kernels`].

use std::sync::OnceLock;

use cudarc::driver::{CudaFunction, LaunchConfig};
use cudarc::nvrtc::{CompileOptions, compile_ptx_with_opts};

use super::{context, device_info_with_nvrtc};
use crate::errors::CudaError;

/// CUDA C source of every engine kernel.
///
/// The decode kernels read the token position from device memory (`pos`), not from a launch
/// argument: arguments are frozen into a captured graph, memory is not, so one captured step can be
/// replayed for every position. `advance` moves the position on the device at the end of a step.
pub const SOURCE: &str = r#"
extern "C" __global__ void copy_u4(const uint4* __restrict__ src, uint4* __restrict__ dst, unsigned long long n) {
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        dst[i] = src[i];
    }
}

// Reads n 16-byte words and folds them into one word per thread, stored only when the fold hits a
// value the caller's data never produces: the loads cannot be optimised away, and nothing is written.
extern "C" __global__ void read_u4(const uint4* __restrict__ src, unsigned long long n, unsigned int* sink) {
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned int acc = 0;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint4 v = src[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9E3779B9u) sink[0] = acc;
}

// Writes token *pos's row for one layer: a value every reference can recompute exactly.
extern "C" __global__ void append_kv(float* kv, const int* pos, int row, int layer, int width) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= width) return;
    int p = *pos;
    kv[(size_t)p * row + (size_t)layer * width + j] = (float)((p * 31 + j * 7 + layer * 13) % 1024);
}

// out[layer][j] = mean of the layer's column j over the last `window` tokens up to *pos.
extern "C" __global__ void attend(const float* kv, const int* pos, float* out, int row, int layer, int width, int window) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= width) return;
    int p = *pos;
    int first = p - window + 1;
    if (first < 0) first = 0;
    float s = 0.0f;
    for (int t = first; t <= p; ++t) s += kv[(size_t)t * row + (size_t)layer * width + j];
    out[(size_t)layer * width + j] = s / (float)(p - first + 1);
}

extern "C" __global__ void advance(int* pos) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *pos += 1;
}

// Stamps (globaltimer ns, clock64 cycles) of the SM this block runs on into out[%smid]. Launched
// with more blocks than SMs so nearly every SM stamps; blocks sharing an SM write nearly the same
// pair, each in one 16-byte store, so a slot never mixes two blocks' readings.
extern "C" __global__ void sm_clock_stamp(ulonglong2* out, unsigned int slots) {
    if (threadIdx.x != 0) return;
    unsigned int smid;
    unsigned long long t;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    long long c = clock64();
    if (smid < slots) {
        ulonglong2 v;
        v.x = t;
        v.y = (unsigned long long)c;
        out[smid] = v;
    }
}
"#;

/// The compiled kernels of [`SOURCE`].
#[derive(Debug)]
pub struct Kernels {
    /// `copy_u4(src, dst, n16)`: grid-stride copy of `n16` 16-byte words.
    pub copy_u4: CudaFunction,
    /// `read_u4(src, n16, sink)`: grid-stride read of `n16` 16-byte words (nothing written).
    pub read_u4: CudaFunction,
    /// `append_kv(kv, pos, row, layer, width)`.
    pub append_kv: CudaFunction,
    /// `attend(kv, pos, out, row, layer, width, window)`.
    pub attend: CudaFunction,
    /// `advance(pos)`.
    pub advance: CudaFunction,
    /// `sm_clock_stamp(out, slots)`: each SM's (globaltimer, clock64) into `out[smid]`.
    pub sm_clock_stamp: CudaFunction,
    /// Streaming multiprocessors, for sizing grids.
    pub multiprocessors: u32,
}

impl Kernels {
    /// A grid that fills every SM once for `copy_u4` (grid-stride loops do the rest).
    pub fn copy_config(&self) -> LaunchConfig {
        LaunchConfig {
            grid_dim: (self.multiprocessors * 4, 1, 1),
            block_dim: (512, 1, 1),
            shared_mem_bytes: 0,
        }
    }
}

/// The kernels, compiled and loaded on first call; later calls return the same ones.
pub fn kernels() -> Result<&'static Kernels, CudaError> {
    static KERNELS: OnceLock<Result<Kernels, CudaError>> = OnceLock::new();
    KERNELS.get_or_init(compile).as_ref().map_err(Clone::clone)
}

fn compile() -> Result<Kernels, CudaError> {
    let info = device_info_with_nvrtc()?;
    let (major, minor) = info.compute_capability;
    // NVRTC takes a &'static str; this runs once per process.
    let arch: &'static str = Box::leak(format!("sm_{major}{minor}").into_boxed_str());
    let opts = CompileOptions {
        arch: Some(arch),
        ..Default::default()
    };
    let ptx = compile_ptx_with_opts(SOURCE, opts).map_err(|e| CudaError::Compile {
        arch: arch.to_owned(),
        log: e.to_string(),
    })?;
    let ctx = context()?;
    let module = ctx.load_module(ptx).map_err(CudaError::driver("cuModuleLoadData"))?;
    let load = |name: &'static str| module.load_function(name).map_err(CudaError::driver("cuModuleGetFunction"));
    Ok(Kernels {
        copy_u4: load("copy_u4")?,
        read_u4: load("read_u4")?,
        append_kv: load("append_kv")?,
        attend: load("attend")?,
        advance: load("advance")?,
        sm_clock_stamp: load("sm_clock_stamp")?,
        multiprocessors: info.multiprocessors,
    })
}
