//! Top-k selection by partial selection ([`top_k_indices`]) and the full-sort reference ([`top_k_indices_full_sort`]).

use std::cmp::Ordering;

/// Sort key of a logit: NaN counts as filtered, i.e. as low as `-inf`.
pub(crate) fn key(x: f32) -> f32 {
    if x.is_nan() { f32::NEG_INFINITY } else { x }
}

/// Descending by logit, ties towards the lower index: a total order, so partial and full sort keep the
/// same set.
fn by_logit_desc(logits: &[f32]) -> impl Fn(&u32, &u32) -> Ordering + '_ {
    |&a, &b| key(logits[b as usize]).total_cmp(&key(logits[a as usize])).then(a.cmp(&b))
}

/// Indices of the `k` largest logits, largest first, by partial selection: O(V + k log k).
///
/// `select_nth_unstable_by` finds the k-th largest value on a copy of the values (direct compares, no
/// indirection through indices); one scan then keeps everything above it and, of the entries equal to it,
/// the lowest indices. That is exactly the set the full sort by (value desc, index asc) keeps.
/// `k` larger than the vocabulary keeps everything.
pub fn top_k_indices(logits: &[f32], k: usize) -> Vec<u32> {
    let k = k.min(logits.len());
    if k == 0 {
        return Vec::new();
    }
    let mut values: Vec<f32> = logits.iter().map(|&l| key(l)).collect();
    let (_, &mut threshold, _) = values.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a));
    let above = values[..k - 1].iter().filter(|v| v.total_cmp(&threshold).is_gt()).count();
    let mut ties_left = k - above;
    let mut idx = Vec::with_capacity(k);
    for (i, &l) in logits.iter().enumerate() {
        match key(l).total_cmp(&threshold) {
            Ordering::Greater => idx.push(i as u32),
            Ordering::Equal if ties_left > 0 => {
                ties_left -= 1;
                idx.push(i as u32);
            }
            _ => {}
        }
    }
    idx.sort_unstable_by(by_logit_desc(logits));
    idx
}

/// The reference [`top_k_indices`] is tested against: sort all V indices, keep the first `k`. O(V log V).
pub fn top_k_indices_full_sort(logits: &[f32], k: usize) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..logits.len() as u32).collect();
    idx.sort_by(by_logit_desc(logits));
    idx.truncate(k);
    idx
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn partial_selection_keeps_the_same_indices_as_full_sort() {
        let mut rng = ChaCha8Rng::seed_from_u64(42);
        for vocab in [1, 7, 1000, 32_000, 151_936] {
            // Quantized logits, so there are many ties for the tie-break to settle.
            let logits: Vec<f32> = (0..vocab).map(|_| (rng.random_range(-40..40) as f32) * 0.25).collect();
            for k in [1, 2, 40, 1000, vocab, vocab + 5] {
                assert_eq!(
                    top_k_indices(&logits, k),
                    top_k_indices_full_sort(&logits, k),
                    "vocab {vocab} k {k}"
                );
            }
        }
    }

    #[test]
    fn nan_sorts_as_filtered_and_ties_go_to_the_lower_index() {
        let logits = [1.0, f32::NAN, 3.0, 3.0, f32::NEG_INFINITY];
        assert_eq!(top_k_indices(&logits, 3), [2, 3, 0]);
        assert_eq!(top_k_indices(&logits, 0), Vec::<u32>::new());
    }
}
