//! [`L2Flush`]: a device buffer sized from the L2 cache attribute, passed over on the measured
//! stream before a cold sample so that the sample finds none of its data in L2.
//!
//! Two ways to flush ([`FlushKind`]). nvbench writes the buffer (a memset of L2's size). That
//! evicts the sample's data, but leaves L2 full of dirty lines, and the sample then pays for
//! writing them back: measured on an H200 (docs/gpu.md), a cold read of 32 MiB after a memset
//! flush took 15.1 us, the time of 64 MiB at the DRAM rate. So the default reads the buffer
//! instead (the engine's `read_u4` kernel): L2 is left holding clean lines, and whatever the
//! previous sample left dirty is written back during the flush, outside the timed region. A
//! memset is the fallback where NVRTC is missing (no kernels).
//!
//! The buffer is [`FLUSH_FACTOR`] times the L2 size rather than exactly its size: Hopper's L2 is
//! two partitions whose address hashing and replacement policy are not documented, and a pass of
//! exactly the cache's size need not reach every set, so the margin makes "nothing left" the
//! likely case rather than the best case.

use cudarc::driver::{CudaContext, CudaStream, sys};
use std::sync::Arc;

use super::{DeviceBuffer, copy, device_info};
use crate::errors::CudaError;

/// The flush buffer's size in units of the L2 size (see the module doc).
pub const FLUSH_FACTOR: usize = 2;

/// How a flush evicts L2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlushKind {
    /// Read the buffer (clean lines left behind). Needs the engine's kernels (NVRTC).
    Read,
    /// Write the buffer with `cuMemsetD32Async` (dirty lines left behind), as nvbench does.
    Write,
}

/// A buffer of [`FLUSH_FACTOR`] x L2 bytes, passed over in full by every [`flush`](Self::flush).
#[derive(Debug)]
pub struct L2Flush {
    buf: DeviceBuffer,
    sink: DeviceBuffer,
    l2_bytes: usize,
    kind: FlushKind,
    value: u32,
}

impl L2Flush {
    /// A flush for device 0's L2 (`CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE`): a read where NVRTC is
    /// there, else a write.
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, CudaError> {
        let kind = if device_info()?.nvrtc { FlushKind::Read } else { FlushKind::Write };
        Self::with(ctx, FLUSH_FACTOR, kind)
    }

    /// A flush buffer of `factor` x L2 bytes (at least 1 MiB when the attribute says 0).
    pub fn with(ctx: &Arc<CudaContext>, factor: usize, kind: FlushKind) -> Result<Self, CudaError> {
        let l2_bytes = device_info()?.l2_cache_bytes;
        let words = (l2_bytes.max(1 << 20) * factor.max(1)).div_ceil(16) * 4;
        let buf = DeviceBuffer::alloc(ctx, words)?;
        // One word repeated: the read kernel's XOR of it is 0, so it never writes its sink.
        // SAFETY: the whole allocation; synchronous, on the context just made current by alloc.
        unsafe { sys::cuMemsetD32_v2(buf.ptr(), 0x5A5A_5A5A, buf.len()) }
            .result()
            .map_err(CudaError::driver("cuMemsetD32(L2 flush buffer)"))?;
        Ok(L2Flush {
            buf,
            sink: DeviceBuffer::alloc(ctx, 1)?,
            l2_bytes,
            kind,
            value: 0,
        })
    }

    /// Enqueues on `stream` one pass over the whole buffer: a read, or a write of a value that
    /// changes on every call.
    pub fn flush(&mut self, stream: &CudaStream) -> Result<(), CudaError> {
        if self.kind == FlushKind::Read {
            return copy::read_kernel(stream, &self.buf, &mut self.sink);
        }
        self.value = self.value.wrapping_add(0x9E37_79B9);
        stream.context().bind_to_thread().map_err(CudaError::driver("cuCtxSetCurrent"))?;
        // SAFETY: the whole range is our own allocation; the stream belongs to its context.
        unsafe { sys::cuMemsetD32Async(self.buf.ptr(), self.value, self.buf.len(), stream.cu_stream()) }
            .result()
            .map_err(CudaError::driver("cuMemsetD32Async(L2 flush)"))
    }

    /// The L2 size the device reports, in bytes.
    pub fn l2_bytes(&self) -> usize {
        self.l2_bytes
    }

    /// Bytes each flush passes over.
    pub fn flush_bytes(&self) -> usize {
        self.buf.bytes()
    }

    /// How this flush evicts.
    pub fn kind(&self) -> FlushKind {
        self.kind
    }
}
