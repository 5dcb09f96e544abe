//! [`DeviceKvCache`]: a sequence-major KV cache in one reserved virtual address range that grows by
//! mapping physical pages at its end, so its device pointer never moves; [`KvGeometry`] is the
//! page arithmetic.
//!
//! Token `t`'s row lives at `base + t * stride`, with a stride fixed at creation. Growing by
//! reallocating and copying would move `base`, and every kernel argument and captured graph that
//! holds it would then point at freed memory. With CUDA virtual memory management
//! (`cuMemAddressReserve` once, then `cuMemCreate` + `cuMemMap` + `cuMemSetAccess` per page) the
//! address range is fixed up front and only its backing grows: a graph captured at the first step
//! stays valid for every later one.

use std::sync::Arc;

use cudarc::driver::{CudaContext, sys};

use crate::errors::CudaError;

/// The page arithmetic of a [`DeviceKvCache`]: fixed stride per token, fixed page size, a cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KvGeometry {
    /// Bytes per token row (all layers' K and V); never changes.
    pub stride_bytes: usize,
    /// Bytes mapped per growth step: a multiple of the driver's allocation granularity.
    pub page_bytes: usize,
    /// Tokens the reserved address range holds.
    pub max_tokens: usize,
}

impl KvGeometry {
    /// Validates that every field is positive.
    pub fn new(stride_bytes: usize, page_bytes: usize, max_tokens: usize) -> Result<Self, CudaError> {
        for (field, value) in [
            ("stride_bytes", stride_bytes),
            ("page_bytes", page_bytes),
            ("max_tokens", max_tokens),
        ] {
            if value == 0 {
                return Err(CudaError::InvalidKvConfig { field, value });
            }
        }
        Ok(KvGeometry {
            stride_bytes,
            page_bytes,
            max_tokens,
        })
    }

    /// Pages whose bytes cover `tokens` rows.
    pub fn pages_for(&self, tokens: usize) -> usize {
        (tokens * self.stride_bytes).div_ceil(self.page_bytes)
    }

    /// Whole rows that fit in `pages` pages.
    pub fn tokens_in(&self, pages: usize) -> usize {
        pages * self.page_bytes / self.stride_bytes
    }

    /// Bytes of address space reserved: whole pages covering `max_tokens` rows.
    pub fn reserved_bytes(&self) -> usize {
        self.pages_for(self.max_tokens) * self.page_bytes
    }

    /// Byte offset of token `t`'s row from the base.
    pub fn offset(&self, token: usize) -> usize {
        token * self.stride_bytes
    }
}

/// A VMM-backed, sequence-major device KV cache on one device. See the module doc.
#[derive(Debug)]
pub struct DeviceKvCache {
    ctx: Arc<CudaContext>,
    geometry: KvGeometry,
    base: sys::CUdeviceptr,
    location: sys::CUmemLocation,
    pages: Vec<sys::CUmemGenericAllocationHandle>,
}

fn check(call: &'static str, r: sys::CUresult) -> Result<(), CudaError> {
    r.result().map_err(CudaError::driver(call))
}

fn pinned_on(location: sys::CUmemLocation) -> sys::CUmemAllocationProp {
    // SAFETY: a plain C struct for which all-zero is valid (handle type none, no flags).
    let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location = location;
    prop
}

/// The driver's minimum physical allocation granularity for device memory on `ctx`'s device.
pub fn granularity(ctx: &Arc<CudaContext>) -> Result<usize, CudaError> {
    ctx.bind_to_thread().map_err(CudaError::driver("cuCtxSetCurrent"))?;
    let prop = pinned_on(device_location(ctx));
    let mut granularity = 0usize;
    // SAFETY: writes one usize; `prop` is a valid description.
    check("cuMemGetAllocationGranularity", unsafe {
        sys::cuMemGetAllocationGranularity(
            &mut granularity,
            &prop,
            sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM,
        )
    })?;
    Ok(granularity)
}

fn device_location(ctx: &Arc<CudaContext>) -> sys::CUmemLocation {
    sys::CUmemLocation {
        type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
        id: ctx.cu_device(),
    }
}

impl DeviceKvCache {
    /// Reserves address space for `max_tokens` rows of `stride_bytes`; maps nothing yet. Pages are
    /// `pages_per_step` granules (the driver's minimum granularity, 2 MiB on current GPUs).
    pub fn new(ctx: &Arc<CudaContext>, stride_bytes: usize, max_tokens: usize, pages_per_step: usize) -> Result<Self, CudaError> {
        if pages_per_step == 0 {
            return Err(CudaError::InvalidKvConfig {
                field: "pages_per_step",
                value: 0,
            });
        }
        let page_bytes = granularity(ctx)? * pages_per_step;
        let geometry = KvGeometry::new(stride_bytes, page_bytes, max_tokens)?;
        let mut base = 0;
        // SAFETY: reserves address space only; freed in Drop with the same size.
        check("cuMemAddressReserve", unsafe {
            sys::cuMemAddressReserve(&mut base, geometry.reserved_bytes(), page_bytes, 0, 0)
        })?;
        Ok(DeviceKvCache {
            ctx: ctx.clone(),
            geometry,
            base,
            location: device_location(ctx),
            pages: Vec::new(),
        })
    }

    /// The base device address: the same for the cache's whole life.
    pub fn base_ptr(&self) -> sys::CUdeviceptr {
        self.base
    }

    /// Pages mapped so far.
    pub fn pages(&self) -> usize {
        self.pages.len()
    }

    /// Rows the mapped pages hold.
    pub fn capacity_tokens(&self) -> usize {
        self.geometry.tokens_in(self.pages.len())
    }

    /// Maps pages until `tokens` rows are backed; returns how many pages were added.
    pub fn ensure_capacity(&mut self, tokens: usize) -> Result<usize, CudaError> {
        if tokens > self.geometry.max_tokens {
            return Err(CudaError::KvReservationExceeded {
                requested: tokens,
                max_tokens: self.geometry.max_tokens,
            });
        }
        let need = self.geometry.pages_for(tokens);
        let before = self.pages.len();
        while self.pages.len() < need {
            self.grow_page()?;
        }
        Ok(self.pages.len() - before)
    }

    /// Maps one more page at the end of the mapped range (create, map, grant read-write access).
    /// On failure nothing is left half-mapped.
    pub fn grow_page(&mut self) -> Result<(), CudaError> {
        let page = self.geometry.page_bytes;
        if (self.pages.len() + 1) * page > self.geometry.reserved_bytes() {
            return Err(CudaError::KvReservationExceeded {
                requested: self.geometry.tokens_in(self.pages.len() + 1),
                max_tokens: self.geometry.max_tokens,
            });
        }
        self.ctx.bind_to_thread().map_err(CudaError::driver("cuCtxSetCurrent"))?;
        let at = self.base + (self.pages.len() * page) as u64;
        let prop = pinned_on(self.location);
        let mut handle = 0;
        // SAFETY: `page` is a multiple of the granularity for this `prop`.
        check("cuMemCreate", unsafe { sys::cuMemCreate(&mut handle, page, &prop, 0) })?;
        // SAFETY: `at..at + page` lies inside our reservation and is not mapped yet.
        if let Err(e) = check("cuMemMap", unsafe { sys::cuMemMap(at, page, 0, handle, 0) }) {
            // SAFETY: the handle is ours and unmapped.
            unsafe { sys::cuMemRelease(handle) };
            return Err(e);
        }
        let access = sys::CUmemAccessDesc {
            location: self.location,
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        // SAFETY: the range was just mapped.
        if let Err(e) = check("cuMemSetAccess", unsafe { sys::cuMemSetAccess(at, page, &access, 1) }) {
            // SAFETY: undo the mapping made above, then free its memory.
            unsafe {
                sys::cuMemUnmap(at, page);
                sys::cuMemRelease(handle);
            }
            return Err(e);
        }
        self.pages.push(handle);
        Ok(())
    }
}

impl Drop for DeviceKvCache {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_err() {
            return;
        }
        // Kernels may still read the cache on some stream; unmapping under them faults.
        let _ = self.ctx.synchronize();
        let page = self.geometry.page_bytes;
        for (i, &handle) in self.pages.iter().enumerate() {
            // SAFETY: each page was mapped at this address by grow_page and is unmapped once.
            unsafe {
                sys::cuMemUnmap(self.base + (i * page) as u64, page);
                sys::cuMemRelease(handle);
            }
        }
        // SAFETY: the reservation made in `new`, with its size, freed once.
        unsafe { sys::cuMemAddressFree(self.base, self.geometry.reserved_bytes()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_cover_rows_and_rows_fit_in_pages() {
        let g = KvGeometry::new(8192, 2 << 20, 1000).unwrap();
        assert_eq!(g.pages_for(0), 0);
        assert_eq!(g.pages_for(1), 1);
        assert_eq!(g.pages_for(256), 1); // 256 * 8 KiB = 2 MiB exactly
        assert_eq!(g.pages_for(257), 2);
        assert_eq!(g.tokens_in(1), 256);
        assert_eq!(g.reserved_bytes(), 4 * (2 << 20)); // 1000 rows need 3.9 pages
        assert_eq!(g.offset(3), 3 * 8192);
    }

    #[test]
    fn a_stride_that_does_not_divide_the_page_never_overstates_capacity() {
        let g = KvGeometry::new(3000, 4096, 10).unwrap();
        for pages in 0..20 {
            let tokens = g.tokens_in(pages);
            assert!(tokens * 3000 <= pages * 4096);
            assert!(g.pages_for(tokens) <= pages);
            assert!(g.pages_for(tokens + 1) > pages); // one more row never fits without another page
        }
    }

    #[test]
    fn zero_fields_are_rejected_by_name() {
        let err = KvGeometry::new(0, 4096, 10).unwrap_err();
        assert_eq!(
            err.to_string(),
            "device kv cache stride_bytes = 0 is not valid: expected a positive number"
        );
        assert!(KvGeometry::new(4, 0, 10).is_err());
        assert!(KvGeometry::new(4, 4096, 0).is_err());
    }
}
