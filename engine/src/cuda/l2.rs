//! [`L2Flush`]: a device buffer sized from the L2 cache attribute, overwritten on the measured
//! stream before a cold sample so that the sample finds none of its data in L2.
//!
//! nvbench flushes the same way (a memset of an L2-sized buffer on the stream, before the
//! timed region). Writes allocate lines in L2, so writing more bytes than L2 holds evicts what
//! the previous sample left there. The buffer is [`FLUSH_FACTOR`] times the L2 size rather than
//! exactly its size: Hopper's L2 is two partitions whose address hashing and replacement policy
//! are not documented, and a write of exactly the cache's size need not touch every set, so the
//! margin makes "nothing left" the likely case rather than the best case. What a flush leaves
//! is measured, not assumed: docs/gpu.md compares cold and hot copies of 32 MiB and 4 GiB.

use cudarc::driver::{CudaContext, CudaStream, sys};
use std::sync::Arc;

use super::{DeviceBuffer, device_info};
use crate::errors::CudaError;

/// The flush buffer's size in units of the L2 size (see the module doc).
pub const FLUSH_FACTOR: usize = 2;

/// A buffer of [`FLUSH_FACTOR`] x L2 bytes, written in full by every [`flush`](Self::flush).
#[derive(Debug)]
pub struct L2Flush {
    buf: DeviceBuffer,
    l2_bytes: usize,
    value: u32,
}

impl L2Flush {
    /// A flush buffer for device 0's L2 (`CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE`).
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, CudaError> {
        Self::with_factor(ctx, FLUSH_FACTOR)
    }

    /// A flush buffer of `factor` x L2 bytes (at least 1 MiB when the attribute says 0).
    pub fn with_factor(ctx: &Arc<CudaContext>, factor: usize) -> Result<Self, CudaError> {
        let l2_bytes = device_info()?.l2_cache_bytes;
        let words = (l2_bytes.max(1 << 20) * factor.max(1)).div_ceil(4);
        Ok(L2Flush {
            buf: DeviceBuffer::alloc(ctx, words)?,
            l2_bytes,
            value: 0,
        })
    }

    /// Enqueues on `stream`: every word of the buffer overwritten (`cuMemsetD32Async`), with a
    /// value that changes on every call.
    pub fn flush(&mut self, stream: &CudaStream) -> Result<(), CudaError> {
        self.value = self.value.wrapping_add(0x9E37_79B9);
        let value = self.value;
        stream.context().bind_to_thread().map_err(CudaError::driver("cuCtxSetCurrent"))?;
        // SAFETY: the whole range is our own allocation; the stream belongs to its context.
        unsafe { sys::cuMemsetD32Async(self.buf.ptr(), value, self.buf.len(), stream.cu_stream()) }
            .result()
            .map_err(CudaError::driver("cuMemsetD32Async(L2 flush)"))
    }

    /// The L2 size the device reports, in bytes.
    pub fn l2_bytes(&self) -> usize {
        self.l2_bytes
    }

    /// Bytes each flush writes.
    pub fn flush_bytes(&self) -> usize {
        self.buf.bytes()
    }
}
