//! [`TestStream`]: one created non-blocking stream that fills, writes and reads device buffers, so
//! one `synchronize` orders everything a test did (test support, feature `test-support`).
//!
//! # Why a test needs this
//!
//! CUDA orders work only within a stream. Across streams, the one implicit rule is the *legacy
//! default stream* (the NULL stream, which the synchronous `cuMemcpyDtoH` and every call without a
//! stream use): work on it waits for earlier work on every *blocking* stream of the context, and
//! blocking streams wait for it. Streams created with `CU_STREAM_NON_BLOCKING`, which is what
//! cudarc's `new_stream` makes and what engines use so that unrelated default-stream work cannot
//! stall them, opt out of that rule. So a legacy-stream read of memory that a non-blocking stream is
//! still filling does not wait: it returns whatever the memory held, with no error. cudarc's own
//! safe calls hide this by recording and waiting on events per `CudaSlice`, but raw pointers handed
//! to kernels, graphs or other libraries get no such help.
//!
//! A test that fills on one stream and reads on another therefore passes or fails by timing alone.
//! `TestStream` puts every operation of a test on its one stream: stream order then sequences the
//! fill, the writes and the reads, and [`TestStream::read`] synchronizes that stream before the host
//! looks at the data. [`TestStream::raw`] hands the same stream to kernel launches and graph replays
//! so they join that order. Dropping it synchronizes, so no buffer is freed under pending work.

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream, sys};

use super::DeviceBuffer;
use crate::errors::CudaError;

/// One non-blocking stream owned for the length of a test. See the module doc.
#[derive(Debug)]
pub struct TestStream {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
}

impl TestStream {
    /// Creates a fresh non-blocking stream on `ctx`.
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, CudaError> {
        let stream = ctx.new_stream().map_err(CudaError::driver("cuStreamCreate"))?;
        Ok(TestStream { ctx: ctx.clone(), stream })
    }

    /// Allocates `len` words on this stream's device.
    pub fn alloc(&self, len: usize) -> Result<DeviceBuffer, CudaError> {
        DeviceBuffer::alloc(&self.ctx, len)
    }

    /// Enqueues: every word of `buf` set to `value` (`cuMemsetD32Async` on this stream).
    pub fn fill(&self, buf: &mut DeviceBuffer, value: u32) -> Result<(), CudaError> {
        self.bind()?;
        // SAFETY: the range is the whole allocation; the stream belongs to the buffer's context.
        unsafe { sys::cuMemsetD32Async(buf.ptr(), value, buf.len(), self.stream.cu_stream()) }
            .result()
            .map_err(CudaError::driver("cuMemsetD32Async"))
    }

    /// Enqueues: `src` copied into `buf` from word `offset` (`cuMemcpyHtoDAsync` on this stream).
    ///
    /// From pageable memory the driver stages `src` before returning, so `src` may change afterwards.
    pub fn write(&self, buf: &mut DeviceBuffer, offset: usize, src: &[u32]) -> Result<(), CudaError> {
        buf.check_range("TestStream::write", offset, src.len())?;
        self.bind()?;
        // SAFETY: range checked above; `src` is valid for its length and staged before return.
        unsafe { sys::cuMemcpyHtoDAsync_v2(buf.ptr_at(offset), src.as_ptr().cast(), src.len() * 4, self.stream.cu_stream()) }
            .result()
            .map_err(CudaError::driver("cuMemcpyHtoDAsync"))
    }

    /// Copies words `offset..offset + dst.len()` of `buf` into `dst` after everything enqueued on
    /// this stream before it, then synchronizes the stream, so `dst` is complete on return.
    pub fn read(&self, buf: &DeviceBuffer, offset: usize, dst: &mut [u32]) -> Result<(), CudaError> {
        buf.check_range("TestStream::read", offset, dst.len())?;
        self.bind()?;
        // SAFETY: range checked; `dst` outlives the copy because we synchronize before returning.
        unsafe { sys::cuMemcpyDtoHAsync_v2(dst.as_mut_ptr().cast(), buf.ptr_at(offset), dst.len() * 4, self.stream.cu_stream()) }
            .result()
            .map_err(CudaError::driver("cuMemcpyDtoHAsync"))?;
        self.synchronize()
    }

    /// Waits for everything enqueued on this stream.
    pub fn synchronize(&self) -> Result<(), CudaError> {
        self.stream.synchronize().map_err(CudaError::driver("cuStreamSynchronize"))
    }

    /// The stream itself, for kernel launches, graph capture and replay, and CUDA events.
    pub fn raw(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The context the stream belongs to.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    fn bind(&self) -> Result<(), CudaError> {
        self.ctx.bind_to_thread().map_err(CudaError::driver("cuCtxSetCurrent"))
    }
}

impl Drop for TestStream {
    fn drop(&mut self) {
        // Buffers used on this stream may be freed right after; let their work finish first.
        let _ = self.stream.synchronize();
    }
}
