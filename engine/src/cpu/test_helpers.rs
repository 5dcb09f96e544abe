//! Seeded random inputs and a scaled closeness check for the kernel tests.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::dtype::Element;

/// `len` values with magnitude in [0.1, 1) and random sign, rounded to `T`: never zero, so a kernel
/// that writes nothing cannot pass.
pub(crate) fn random_vec<T: Element>(len: usize, seed: u64) -> Vec<T> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..len)
        .map(|_| {
            let magnitude: f32 = rng.random_range(0.1..1.0);
            T::from_f32(if rng.random::<bool>() { magnitude } else { -magnitude })
        })
        .collect()
}

/// Asserts `|got[i] - exact[i]| <= tol * scale[i]` for all i, naming the first failing element.
pub(crate) fn assert_close<T: Element>(dtype: &str, got: &[T], exact: &[f64], scale: &[f64], tol: f64) {
    assert_eq!(got.len(), exact.len(), "{dtype}: length");
    for (i, ((g, e), s)) in got.iter().zip(exact).zip(scale).enumerate() {
        let g = g.to_f32() as f64;
        assert!((g - e).abs() <= tol * s, "{dtype}[{i}]: got {g}, exact {e}, allowed {tol} * {s}");
    }
}
