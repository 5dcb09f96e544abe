//! [`Element`]: the dtypes the CPU kernels accept (`f32`, `half::f16`, `half::bf16`) and their f32 conversions.

use half::slice::HalfFloatSliceExt;
use half::{bf16, f16};

/// A tensor element type. Kernels compute in f32 and convert at the edges.
pub trait Element: Copy + Default + PartialEq + Send + Sync + std::fmt::Debug + 'static {
    /// Short dtype name for reports, e.g. `"bf16"`.
    const NAME: &'static str;
    /// Bytes per element.
    const BYTES: usize = std::mem::size_of::<Self>();
    /// Widens one value to f32 (exact for all three types).
    fn to_f32(self) -> f32;
    /// Narrows an f32 with round-to-nearest-even.
    fn from_f32(v: f32) -> Self;
    /// Widens a slice; `dst.len()` must equal `src.len()`.
    fn slice_to_f32(src: &[Self], dst: &mut [f32]);
    /// Narrows a slice; `dst.len()` must equal `src.len()`.
    fn slice_from_f32(src: &[f32], dst: &mut [Self]);
}

impl Element for f32 {
    const NAME: &'static str = "f32";
    fn to_f32(self) -> f32 {
        self
    }
    fn from_f32(v: f32) -> Self {
        v
    }
    fn slice_to_f32(src: &[Self], dst: &mut [f32]) {
        dst.copy_from_slice(src);
    }
    fn slice_from_f32(src: &[f32], dst: &mut [Self]) {
        dst.copy_from_slice(src);
    }
}

// half's slice conversions use F16C at run time when the CPU has it, hence not a per-element loop.
macro_rules! half_element {
    ($t:ty, $name:literal) => {
        impl Element for $t {
            const NAME: &'static str = $name;
            fn to_f32(self) -> f32 {
                <$t>::to_f32(self)
            }
            fn from_f32(v: f32) -> Self {
                <$t>::from_f32(v)
            }
            fn slice_to_f32(src: &[Self], dst: &mut [f32]) {
                src.convert_to_f32_slice(dst);
            }
            fn slice_from_f32(src: &[f32], dst: &mut [Self]) {
                dst.convert_from_f32_slice(src);
            }
        }
    };
}
half_element!(f16, "f16");
half_element!(bf16, "bf16");

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Element>() {
        let src = [0.5f32, -1.25, 3.0, 1024.0, -0.0078125];
        let mut narrow = [T::default(); 5];
        T::slice_from_f32(&src, &mut narrow);
        let mut wide = [0.0f32; 5];
        T::slice_to_f32(&narrow, &mut wide);
        // Every value above is exactly representable in all three types.
        assert_eq!(wide, src, "{}", T::NAME);
        assert_eq!(narrow[1].to_f32(), -1.25);
        assert_eq!(T::from_f32(3.0).to_f32(), 3.0);
    }

    #[test]
    fn conversions_round_trip_exact_values() {
        round_trip::<f32>();
        round_trip::<f16>();
        round_trip::<bf16>();
        assert_eq!((f32::BYTES, f16::BYTES, bf16::BYTES), (4, 2, 2));
    }
}
