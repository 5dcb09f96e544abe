//! [`DecodeStep`]: one decode step over a [`DeviceKvCache`] (per layer: append the new token's row,
//! then a windowed mean over recent rows; then advance the position), launched eagerly or captured
//! once into a CUDA graph and replayed. [`captures`] counts captures in this process.
//!
//! Whether to capture comes from the process-frozen config (`ENGINE_CUDA_GRAPH`, through
//! [`LaunchMode::from_config`]), as in real engines: a process that changes the variable later keeps
//! the first answer, so the two modes are compared in separate processes (the harness env matrix).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use cudarc::driver::{CudaGraph, CudaStream, LaunchConfig, PushKernelArg, sys};

use super::kernels::{Kernels, kernels};
use super::{DeviceBuffer, DeviceKvCache};
use crate::config::runtime_config;
use crate::errors::CudaError;

static CAPTURES: AtomicU64 = AtomicU64::new(0);

/// Graphs captured by [`DecodeStep`]s in this process so far.
pub fn captures() -> u64 {
    CAPTURES.load(Ordering::Relaxed)
}

/// How a [`DecodeStep`] issues its kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaunchMode {
    /// Capture the step's launches once into a graph, then replay it every step.
    Graph,
    /// Launch every kernel every step.
    Eager,
}

impl LaunchMode {
    /// `Graph` unless the frozen config says `ENGINE_CUDA_GRAPH=0`.
    pub fn from_config() -> Self {
        if runtime_config().cuda_graph {
            LaunchMode::Graph
        } else {
            LaunchMode::Eager
        }
    }
}

/// The model a decode step runs: `layers` slices of `width` floats per token, a mean over the
/// last `window` tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeShape {
    /// Layers; each adds two launches per step.
    pub layers: usize,
    /// Floats per layer per token (at most 1024: one thread each).
    pub width: usize,
    /// Tokens averaged per step.
    pub window: usize,
}

impl DecodeShape {
    /// Floats per token row, all layers.
    pub fn row_elems(&self) -> usize {
        self.layers * self.width
    }

    /// Bytes per token row: the KV cache's stride.
    pub fn stride_bytes(&self) -> usize {
        self.row_elems() * 4
    }

    /// Kernel launches per step.
    pub fn launches_per_step(&self) -> usize {
        2 * self.layers + 1
    }

    /// The value `append_kv` writes for (token, layer, column): small integers, exact in f32.
    pub fn kv_value(token: usize, layer: usize, column: usize) -> f32 {
        ((token * 31 + column * 7 + layer * 13) % 1024) as f32
    }

    /// What the step's output holds after `tokens` steps, computed on the host in the kernel's order.
    pub fn reference_out(&self, tokens: usize) -> Vec<f32> {
        let mut out = vec![0.0; self.row_elems()];
        let Some(p) = tokens.checked_sub(1) else { return out };
        let first = (p + 1).saturating_sub(self.window);
        for layer in 0..self.layers {
            for j in 0..self.width {
                let mut s = 0.0f32;
                for t in first..=p {
                    s += Self::kv_value(t, layer, j);
                }
                out[layer * self.width + j] = s / (p - first + 1) as f32;
            }
        }
        out
    }
}

/// One decode step's state: its stream, the device position and output, and the captured graph.
pub struct DecodeStep {
    stream: Arc<CudaStream>,
    kernels: &'static Kernels,
    shape: DecodeShape,
    mode: LaunchMode,
    pos: DeviceBuffer,
    out: DeviceBuffer,
    tokens: usize,
    graph: Option<(CudaGraph, sys::CUdeviceptr)>,
}

impl DecodeStep {
    /// A step at position 0 on `stream` (a non-blocking stream: capture refuses the legacy one).
    pub fn new(stream: &Arc<CudaStream>, shape: DecodeShape, mode: LaunchMode) -> Result<Self, CudaError> {
        let kernels = kernels()?;
        let ctx = stream.context();
        let pos = DeviceBuffer::alloc(ctx, 1)?;
        let out = DeviceBuffer::alloc(ctx, shape.row_elems())?;
        // SAFETY: one word of our own allocation, on our stream.
        unsafe { sys::cuMemsetD32Async(pos.ptr(), 0, 1, stream.cu_stream()) }
            .result()
            .map_err(CudaError::driver("cuMemsetD32Async"))?;
        Ok(DecodeStep {
            stream: stream.clone(),
            kernels,
            shape,
            mode,
            pos,
            out,
            tokens: 0,
            graph: None,
        })
    }

    /// Runs one step: grows `kv` if the next row is not backed, then launches or replays.
    /// The growth keeps `kv`'s base address, so a graph captured earlier stays valid.
    pub fn step(&mut self, kv: &mut DeviceKvCache) -> Result<(), CudaError> {
        kv.ensure_capacity(self.tokens + 1)?;
        let base = kv.base_ptr();
        match self.mode {
            LaunchMode::Eager => self.enqueue(base)?,
            LaunchMode::Graph => {
                if self.graph.as_ref().is_none_or(|(_, captured)| *captured != base) {
                    self.capture(base)?;
                }
                let (graph, _) = self.graph.as_ref().ok_or(CudaError::EmptyCapture)?;
                graph.launch().map_err(CudaError::driver("cuGraphLaunch"))?;
            }
        }
        self.tokens += 1;
        Ok(())
    }

    fn capture(&mut self, base: sys::CUdeviceptr) -> Result<(), CudaError> {
        self.graph = None;
        self.stream
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .map_err(CudaError::driver("cuStreamBeginCapture"))?;
        let enqueued = self.enqueue(base);
        // End the capture even when a launch failed, so the stream is usable again.
        let graph = self
            .stream
            .end_capture(sys::CUgraphInstantiate_flags(0))
            .map_err(CudaError::driver("cuStreamEndCapture"));
        enqueued?;
        let graph = graph?.ok_or(CudaError::EmptyCapture)?;
        CAPTURES.fetch_add(1, Ordering::Relaxed);
        self.graph = Some((graph, base));
        Ok(())
    }

    fn enqueue(&self, kv: sys::CUdeviceptr) -> Result<(), CudaError> {
        let DecodeShape { layers, width, window } = self.shape;
        let (row, width_i, window_i) = (self.shape.row_elems() as i32, width as i32, window as i32);
        let (pos, out) = (self.pos.ptr(), self.out.ptr());
        let cfg = LaunchConfig {
            grid_dim: (width.div_ceil(256) as u32, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        for layer in 0..layers as i32 {
            let mut append = self.stream.launch_builder(&self.kernels.append_kv);
            append.arg(&kv).arg(&pos).arg(&row).arg(&layer).arg(&width_i);
            // SAFETY: argument types match `append_kv`; `kv` backs row *pos (step grew it).
            unsafe { append.launch(cfg) }.map_err(CudaError::driver("cuLaunchKernel(append_kv)"))?;
            let mut attend = self.stream.launch_builder(&self.kernels.attend);
            attend
                .arg(&kv)
                .arg(&pos)
                .arg(&out)
                .arg(&row)
                .arg(&layer)
                .arg(&width_i)
                .arg(&window_i);
            // SAFETY: argument types match `attend`; it reads rows up to *pos, all backed.
            unsafe { attend.launch(cfg) }.map_err(CudaError::driver("cuLaunchKernel(attend)"))?;
        }
        let mut advance = self.stream.launch_builder(&self.kernels.advance);
        advance.arg(&pos);
        let one = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (1, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: `advance(int*)` on our one-word position.
        unsafe { advance.launch(one) }.map_err(CudaError::driver("cuLaunchKernel(advance)"))?;
        Ok(())
    }

    /// Steps run so far (the next token's position).
    pub fn tokens(&self) -> usize {
        self.tokens
    }

    /// How this step issues its kernels.
    pub fn mode(&self) -> LaunchMode {
        self.mode
    }

    /// The output after the last step, read on this step's stream once its work is done.
    pub fn read_out(&self) -> Result<Vec<f32>, CudaError> {
        read_f32(&self.stream, self.out.ptr(), self.shape.row_elems())
    }

    /// Rows `0..tokens` of `kv`, read on this step's stream once its work is done.
    pub fn read_kv(&self, kv: &DeviceKvCache, tokens: usize) -> Result<Vec<f32>, CudaError> {
        read_f32(&self.stream, kv.base_ptr(), tokens * self.shape.row_elems())
    }
}

fn read_f32(stream: &CudaStream, src: sys::CUdeviceptr, len: usize) -> Result<Vec<f32>, CudaError> {
    let mut host = vec![0.0f32; len];
    stream.context().bind_to_thread().map_err(CudaError::driver("cuCtxSetCurrent"))?;
    // SAFETY: `src` holds `len` floats; `host` outlives the copy (synchronized below).
    unsafe { sys::cuMemcpyDtoHAsync_v2(host.as_mut_ptr().cast(), src, len * 4, stream.cu_stream()) }
        .result()
        .map_err(CudaError::driver("cuMemcpyDtoHAsync"))?;
    stream.synchronize().map_err(CudaError::driver("cuStreamSynchronize"))?;
    Ok(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_averages_the_window_ending_at_the_last_token() {
        let shape = DecodeShape {
            layers: 2,
            width: 3,
            window: 4,
        };
        assert!(shape.reference_out(0).iter().all(|&v| v == 0.0));
        let out = shape.reference_out(2); // tokens 0 and 1
        let expect = (DecodeShape::kv_value(0, 1, 2) + DecodeShape::kv_value(1, 1, 2)) / 2.0;
        assert_eq!(out[3 + 2], expect);
        let out = shape.reference_out(10); // tokens 6..=9
        let expect: f32 = (6..10).map(|t| DecodeShape::kv_value(t, 0, 1)).sum::<f32>() / 4.0;
        assert_eq!(out[1], expect);
        assert_eq!(shape.launches_per_step(), 5);
        assert_eq!(shape.stride_bytes(), 24);
    }
}
