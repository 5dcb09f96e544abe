//! [`DeviceBuffer`]: a raw device allocation of `u32` words, freed on drop, with no event tracking.
//!
//! cudarc's `CudaSlice` records an event on every write and makes its own later reads wait on it,
//! which hides cross-stream hazards. Engines pass raw pointers to kernels, graphs and other
//! libraries, where nothing waits for them; this type is that raw pointer with an owner.

use std::sync::Arc;

use cudarc::driver::{CudaContext, result, sys};

use crate::errors::CudaError;

/// A device allocation of `len` `u32` words (`cuMemAlloc`), freed with `cuMemFree` on drop.
#[derive(Debug)]
pub struct DeviceBuffer {
    ctx: Arc<CudaContext>,
    ptr: sys::CUdeviceptr,
    len: usize,
}

impl DeviceBuffer {
    /// Allocates `len` words (uninitialised) on `ctx`'s device.
    pub fn alloc(ctx: &Arc<CudaContext>, len: usize) -> Result<Self, CudaError> {
        ctx.bind_to_thread().map_err(CudaError::driver("cuCtxSetCurrent"))?;
        // SAFETY: the context is current; a zero-byte request is rounded up so the pointer is real.
        let ptr = unsafe { result::malloc_sync(len.max(1) * 4) }.map_err(CudaError::driver("cuMemAlloc"))?;
        Ok(DeviceBuffer {
            ctx: ctx.clone(),
            ptr,
            len,
        })
    }

    /// The device address of word 0.
    pub fn ptr(&self) -> sys::CUdeviceptr {
        self.ptr
    }

    /// The device address of word `word` (not checked against `len`).
    pub fn ptr_at(&self, word: usize) -> sys::CUdeviceptr {
        self.ptr + (word * 4) as u64
    }

    /// Words in the buffer.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no words.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes in the buffer.
    pub fn bytes(&self) -> usize {
        self.len * 4
    }

    /// The context the buffer lives in.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// `Ok(())` when words `offset..offset + count` lie inside the buffer.
    pub fn check_range(&self, what: &'static str, offset: usize, count: usize) -> Result<(), CudaError> {
        check_range(what, offset, count, self.len)
    }
}

/// `Ok(())` when words `offset..offset + count` lie inside a buffer of `len` words.
pub(crate) fn check_range(what: &'static str, offset: usize, count: usize, len: usize) -> Result<(), CudaError> {
    match offset.checked_add(count) {
        Some(end) if end <= len => Ok(()),
        _ => Err(CudaError::OutOfRange {
            what,
            offset,
            end: offset.saturating_add(count),
            len,
        }),
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        // cuMemFree waits for work using the memory only on blocking streams; owners of work on
        // non-blocking streams synchronize them before dropping (TestStream does on drop).
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: `ptr` came from cuMemAlloc in this context and is freed once.
            let _ = unsafe { result::free_sync(self.ptr) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_checks_name_the_operation_and_the_words() {
        assert!(check_range("read", 0, 4, 4).is_ok());
        assert!(check_range("read", 4, 0, 4).is_ok());
        let err = check_range("TestStream::read", 2, 3, 4).unwrap_err();
        assert_eq!(
            err.to_string(),
            "TestStream::read: words 2..5 are out of range for a buffer of 4 words"
        );
        assert!(check_range("read", usize::MAX, 2, 4).is_err());
    }
}
