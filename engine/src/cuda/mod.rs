//! CUDA through cudarc, loaded at run time: discovery that reports "no CUDA driver" instead of
//! panicking, raw device buffers, a VMM-backed device KV cache, a decode step captured in a CUDA
//! graph, and (feature `test-support`) [`TestStream`].
//!
//! - [`device`]: [`availability`] (probed once, never panics) is [`Availability::Available`] with a
//!   [`DeviceInfo`] or [`Availability::Unavailable`] with an [`Unavailable`] reason; [`context`] is
//!   the process-wide primary context. Callers check availability first and skip with the reason.
//! - [`DeviceBuffer`]: `cuMemAlloc`'d `u32` words with no event tracking, as engines hand pointers on.
//! - [`kv`]: [`DeviceKvCache`], sequence-major rows at a fixed stride in one reserved address range
//!   that grows by mapping pages, so its pointer is stable across growth.
//! - [`decode`]: [`DecodeStep`], launched eagerly or captured once and replayed as selected by
//!   `ENGINE_CUDA_GRAPH`; [`captures`] counts captures.
//! - [`kernels`]: the NVRTC source and compiled functions; [`copy`] the copy kernel and the driver's
//!   device-to-device copy; [`EventTimer`] times stream work with CUDA events.
//! - [`GpuSampler`] times one sample for a GPU measurement: [`L2Flush`] (a buffer sized from the
//!   L2 attribute, overwritten before a cold sample), events around the work, and [`ClockProbe`]
//!   (globaltimer and clock64 stamps around it) for the SM clock it ran at.
//!
//! cudarc is re-exported as [`cudarc`] so callers that must reach raw driver calls (to reproduce a
//! hazard on purpose) use the same build of it.
//!
//! cudarc is built for CUDA 13.0 (`cuda-13000`): the version the device machine's driver (580)
//! reports. Every entry point this module calls exists since CUDA 12.0, so older 12.x drivers
//! would serve too; naming 13.0 keeps `libnvrtc.so.13` among the names cudarc tries (a 12.x feature
//! would look for `.so.12` and an unversioned `libnvrtc.so`, which a CUDA 13-only machine may lack).

mod buffer;
pub mod clock;
pub mod copy;
pub mod decode;
pub mod device;
pub mod kernels;
pub mod kv;
mod l2;
mod sampler;
#[cfg(feature = "test-support")]
mod stream;
mod timing;

pub use buffer::DeviceBuffer;
pub use clock::{ClockProbe, ClockReading};
pub use cudarc;
pub use decode::{DecodeShape, DecodeStep, LaunchMode, captures};
pub use device::{Availability, DeviceInfo, Unavailable, availability, context, device_info, device_info_with_nvrtc, probe};
pub use kv::{DeviceKvCache, KvGeometry};
pub use l2::{FLUSH_FACTOR, FlushKind, L2Flush};
pub use sampler::{GpuSampler, TimedSample};
#[cfg(feature = "test-support")]
pub use stream::TestStream;
pub use timing::EventTimer;
