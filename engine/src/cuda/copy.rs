//! Device-to-device copies: [`copy_kernel`] (the engine's NVRTC copy kernel) and [`memcpy_dtod`]
//! (the driver's copy engine path, the ceiling the kernel is compared with); and [`read_kernel`], a
//! pass that only reads, for what L2 does to reads alone.

use cudarc::driver::{CudaStream, PushKernelArg, sys};

use super::DeviceBuffer;
use super::kernels::kernels;
use crate::errors::CudaError;

/// Enqueues `src` copied into `dst` by the `copy_u4` kernel (16-byte loads and stores).
/// Copies `min(len)` words, rounded down to whole 16-byte units.
pub fn copy_kernel(stream: &CudaStream, src: &DeviceBuffer, dst: &mut DeviceBuffer) -> Result<(), CudaError> {
    let k = kernels()?;
    let n16 = (src.len().min(dst.len()) / 4) as u64;
    let (s, d) = (src.ptr(), dst.ptr());
    let mut launch = stream.launch_builder(&k.copy_u4);
    launch.arg(&s).arg(&d).arg(&n16);
    // SAFETY: both pointers hold at least n16 16-byte units; cuMemAlloc aligns to 256 bytes.
    unsafe { launch.launch(k.copy_config()) }.map_err(CudaError::driver("cuLaunchKernel(copy_u4)"))?;
    Ok(())
}

/// Enqueues a read of every 16-byte unit of `src` by the `read_u4` kernel; `sink` (one word or
/// more) is written only if the XOR of all words read equals `0x9E3779B9`, which a buffer filled
/// with one repeated word never gives (four equal words XOR to 0).
pub fn read_kernel(stream: &CudaStream, src: &DeviceBuffer, sink: &mut DeviceBuffer) -> Result<(), CudaError> {
    sink.check_range("read_kernel sink", 0, 1)?;
    let k = kernels()?;
    let n16 = (src.len() / 4) as u64;
    let (s, out) = (src.ptr(), sink.ptr());
    let mut launch = stream.launch_builder(&k.read_u4);
    launch.arg(&s).arg(&n16).arg(&out);
    // SAFETY: `src` holds n16 16-byte units (cuMemAlloc aligns to 256 bytes); `sink` holds a word.
    unsafe { launch.launch(k.copy_config()) }.map_err(CudaError::driver("cuLaunchKernel(read_u4)"))?;
    Ok(())
}

/// Enqueues `src` copied into `dst` with `cuMemcpyDtoDAsync` (`min(len)` words).
pub fn memcpy_dtod(stream: &CudaStream, src: &DeviceBuffer, dst: &mut DeviceBuffer) -> Result<(), CudaError> {
    let bytes = src.bytes().min(dst.bytes());
    stream.context().bind_to_thread().map_err(CudaError::driver("cuCtxSetCurrent"))?;
    // SAFETY: both ranges lie inside their allocations.
    unsafe { sys::cuMemcpyDtoDAsync_v2(dst.ptr(), src.ptr(), bytes, stream.cu_stream()) }
        .result()
        .map_err(CudaError::driver("cuMemcpyDtoDAsync"))
}
