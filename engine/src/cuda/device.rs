//! CUDA discovery that never panics: [`probe`] and [`availability`] return an [`Availability`], and
//! [`context`] the process-wide context once CUDA is known to be there.
//!
//! cudarc with dynamic loading panics on the first driver call when libcuda cannot be opened, and
//! again on every retry; `catch_unwind` does not help under `panic = "abort"`. So the probe asks in
//! an order where each step only runs once the previous one proved it cannot panic: is the library
//! there (`is_culib_present`, a plain dlopen), does `cuInit` succeed (it returns an error for no
//! device and for the toolkit's stub library), how many devices are there.

use std::sync::{Arc, OnceLock};

use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{CudaContext, DriverError, result, sys};
use thiserror::Error;

use crate::errors::CudaError;

/// Whether CUDA can run here, and what it runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Availability {
    /// A driver and at least one device; facts about device 0.
    Available(DeviceInfo),
    /// Why CUDA cannot run here.
    Unavailable(Unavailable),
}

/// Facts about device 0, read once by [`probe`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Devices the driver reports.
    pub device_count: usize,
    /// Device 0's name, e.g. `NVIDIA H200`.
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors.
    pub multiprocessors: u32,
    /// Device memory in bytes.
    pub total_mem_bytes: usize,
    /// L2 cache size in bytes (`CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE`): what a cold sample flushes.
    pub l2_cache_bytes: usize,
    /// The SM clock the driver reports as the device's (`CU_DEVICE_ATTRIBUTE_CLOCK_RATE`, its
    /// rated peak), in kHz: the reference a throttle threshold is a fraction of (nvbench's too).
    pub default_sm_clock_khz: u32,
    /// `cuDriverGetVersion`, e.g. `13000` for CUDA 13.0.
    pub driver_version: i32,
    /// Whether libnvrtc can be opened, so the engine's kernels can be compiled.
    pub nvrtc: bool,
}

impl DeviceInfo {
    /// The driver's CUDA version as `major.minor`.
    pub fn driver_version_string(&self) -> String {
        format!("{}.{}", self.driver_version / 1000, (self.driver_version % 1000) / 10)
    }

    /// [`default_sm_clock_khz`](Self::default_sm_clock_khz) in MHz.
    pub fn default_sm_clock_mhz(&self) -> f64 {
        f64::from(self.default_sm_clock_khz) / 1e3
    }
}

/// Why CUDA cannot run here. Its message is what GPU scenarios are skipped with.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Unavailable {
    /// libcuda cannot be opened: no NVIDIA driver on this machine (CI, a laptop).
    #[error("no CUDA driver: libcuda could not be loaded")]
    NoDriver,
    /// libcuda opened but `cuInit` failed (no device, or the toolkit's stub library).
    #[error("no CUDA driver: cuInit failed with {code}")]
    InitFailed {
        /// The driver's error code, e.g. `CUDA_ERROR_NO_DEVICE`.
        code: String,
    },
    /// The driver works but reports no device.
    #[error("no CUDA device: the driver reports 0 devices")]
    NoDevice,
    /// A device query after a successful `cuInit` failed.
    #[error("CUDA device query failed: {call} returned {code}")]
    QueryFailed {
        /// The call, e.g. `cuDeviceGetCount`.
        call: &'static str,
        /// The driver's error code.
        code: String,
    },
    /// A driver and a device, but no libnvrtc: kernels cannot be compiled.
    #[error("no NVRTC: libnvrtc could not be loaded, so the engine's kernels cannot be compiled")]
    NoNvrtc,
}

fn code(e: DriverError) -> String {
    format!("{:?}", e.0)
}

fn query_failed(call: &'static str) -> impl FnOnce(DriverError) -> Unavailable {
    move |e| Unavailable::QueryFailed { call, code: code(e) }
}

/// Probes the driver now, without caching. Never panics (see the module doc for the order).
pub fn probe() -> Availability {
    match probe_inner() {
        Ok(info) => Availability::Available(info),
        Err(reason) => Availability::Unavailable(reason),
    }
}

fn probe_inner() -> Result<DeviceInfo, Unavailable> {
    // SAFETY: only attempts to dlopen libcuda under its known names; nothing is called.
    if !unsafe { sys::is_culib_present() } {
        return Err(Unavailable::NoDriver);
    }
    result::init().map_err(|e| Unavailable::InitFailed { code: code(e) })?;
    let count = result::device::get_count().map_err(query_failed("cuDeviceGetCount"))?;
    if count <= 0 {
        return Err(Unavailable::NoDevice);
    }
    let dev = result::device::get(0).map_err(query_failed("cuDeviceGet"))?;
    let name = result::device::get_name(dev).map_err(query_failed("cuDeviceGetName"))?;
    // SAFETY: `dev` is a valid device handle from cuDeviceGet after a successful cuInit.
    let attr = |a| unsafe { result::device::get_attribute(dev, a) }.map_err(query_failed("cuDeviceGetAttribute"));
    let compute_capability = (
        attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
        attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
    );
    let multiprocessors = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
    let l2_cache_bytes = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?.max(0) as usize;
    let default_sm_clock_khz = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?.max(0) as u32;
    // SAFETY: as above.
    let total_mem_bytes = unsafe { result::device::total_mem(dev) }.map_err(query_failed("cuDeviceTotalMem"))?;
    let mut driver_version = 0;
    // SAFETY: writes one int; the library is loaded and initialised.
    unsafe { sys::cuDriverGetVersion(&mut driver_version) }
        .result()
        .map_err(query_failed("cuDriverGetVersion"))?;
    // SAFETY: only attempts to dlopen libnvrtc; nothing is called.
    let nvrtc = unsafe { cudarc::nvrtc::sys::is_culib_present() };
    Ok(DeviceInfo {
        device_count: count as usize,
        name,
        compute_capability,
        multiprocessors,
        total_mem_bytes,
        l2_cache_bytes,
        default_sm_clock_khz,
        driver_version,
        nvrtc,
    })
}

/// The probe's answer for this process, probed once (opening libcuda costs up to ~150 ms).
pub fn availability() -> &'static Availability {
    static AVAILABILITY: OnceLock<Availability> = OnceLock::new();
    AVAILABILITY.get_or_init(probe)
}

/// Device 0's info, or why CUDA is unavailable.
pub fn device_info() -> Result<&'static DeviceInfo, CudaError> {
    match availability() {
        Availability::Available(info) => Ok(info),
        Availability::Unavailable(reason) => Err(CudaError::Unavailable(reason.clone())),
    }
}

/// Device 0's info when NVRTC is there too (the engine's kernels need it).
pub fn device_info_with_nvrtc() -> Result<&'static DeviceInfo, CudaError> {
    let info = device_info()?;
    if info.nvrtc {
        Ok(info)
    } else {
        Err(CudaError::Unavailable(Unavailable::NoNvrtc))
    }
}

/// The process-wide context on device 0 (its primary context).
///
/// Held for the life of the process: the driver destroys a primary context when its last holder
/// lets go, so a context per caller would rebuild it (hundreds of ms) each time. This is also
/// process-wide state that earlier scenarios warm for later ones in the same process.
pub fn context() -> Result<Arc<CudaContext>, CudaError> {
    device_info()?;
    static CONTEXT: OnceLock<Result<Arc<CudaContext>, CudaError>> = OnceLock::new();
    CONTEXT
        .get_or_init(|| CudaContext::new(0).map_err(CudaError::driver("CudaContext::new")))
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_answers_without_panicking_and_agrees_with_the_library_check() {
        // Twice: cudarc's loader panics again on every retry, so a second call is the real test.
        for _ in 0..2 {
            // SAFETY: dlopen attempt only.
            let lib = unsafe { sys::is_culib_present() };
            match probe() {
                Availability::Unavailable(reason) => {
                    if !lib {
                        assert_eq!(reason, Unavailable::NoDriver);
                    }
                    let msg = reason.to_string();
                    assert!(msg.starts_with("no CUDA") || msg.starts_with("CUDA device query"), "{msg}");
                }
                Availability::Available(info) => {
                    assert!(lib, "a device was found without libcuda");
                    assert!(info.device_count >= 1 && !info.name.is_empty());
                }
            }
        }
    }

    #[test]
    fn no_driver_reason_says_no_cuda_driver() {
        assert_eq!(Unavailable::NoDriver.to_string(), "no CUDA driver: libcuda could not be loaded");
        let err = CudaError::Unavailable(Unavailable::NoDriver);
        assert_eq!(err.to_string(), "CUDA is unavailable: no CUDA driver: libcuda could not be loaded");
    }

    #[test]
    fn context_is_an_error_not_a_panic_when_unavailable() {
        if let Availability::Unavailable(reason) = availability() {
            assert_eq!(context().unwrap_err(), CudaError::Unavailable(reason.clone()));
        }
    }

    #[test]
    fn driver_version_reads_as_major_minor() {
        let info = DeviceInfo {
            device_count: 1,
            name: "x".into(),
            compute_capability: (9, 0),
            multiprocessors: 132,
            total_mem_bytes: 1,
            l2_cache_bytes: 1,
            default_sm_clock_khz: 1_980_000,
            driver_version: 13000,
            nvrtc: true,
        };
        assert_eq!(info.driver_version_string(), "13.0");
    }
}
