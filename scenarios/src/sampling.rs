//! Sampler measurements (`sampling/<processor>/vocab=V`) at a 32k and a 152k vocabulary, top-k by partial
//! selection beside the full sort it replaces, and sampling correctness checks (`check/sampling/`).
//!
//! Processors rewrite logits in place, so their timed closures first restore the logits from a pristine
//! copy; `sampling/copy_logits/vocab=V` times that copy alone so it can be subtracted.

use engine::sampling::{self, Chain, LogitsProcessor, MinP, RepetitionPenalty, Sampler, Temperature, TopK, TopP};
use harness::{Bencher, Scenario, Throughput};

use crate::inputs::{SplitMix, logits};

/// Llama-2's 32000 and Qwen2's 151936 tokens.
const VOCABS: [usize; 2] = [32_000, 151_936];
/// The k of every top-k here: a common serving default.
const TOP_K: usize = 50;
/// Tokens of history the repetition penalty scans.
const HISTORY: usize = 512;

harness::scenarios!(|| {
    let mut all = Vec::new();
    for vocab in VOCABS {
        all.extend([
            Scenario::measure(format!("sampling/copy_logits/vocab={vocab}"), move |b| copy_logits(b, vocab)),
            Scenario::measure(format!("sampling/greedy/vocab={vocab}"), move |b| greedy(b, vocab)),
            Scenario::measure(format!("sampling/top_k/vocab={vocab}"), move |b| {
                top_k(b, vocab, sampling::top_k_indices)
            }),
            Scenario::measure(format!("sampling/top_k_full_sort/vocab={vocab}"), move |b| {
                top_k(b, vocab, sampling::top_k_indices_full_sort)
            }),
            Scenario::measure(format!("sampling/temperature/vocab={vocab}"), move |b| {
                processor(b, vocab, Temperature::new(0.8).expect("valid"))
            }),
            Scenario::measure(format!("sampling/repetition_penalty/vocab={vocab}"), move |b| {
                processor(b, vocab, RepetitionPenalty::new(1.1).expect("valid"))
            }),
            Scenario::measure(format!("sampling/top_p/vocab={vocab}"), move |b| {
                processor(b, vocab, TopP::new(0.9).expect("valid"))
            }),
            Scenario::measure(format!("sampling/min_p/vocab={vocab}"), move |b| {
                processor(b, vocab, MinP::new(0.05).expect("valid"))
            }),
            Scenario::measure(format!("sampling/chain/vocab={vocab}"), move |b| chain_step(b, vocab)),
        ]);
    }
    all.extend([
        Scenario::check("check/sampling/top_k_matches_full_sort", top_k_matches_full_sort),
        Scenario::check("check/sampling/same_seed_same_tokens", same_seed_same_tokens),
        Scenario::check("check/sampling/chain_samples_only_kept_tokens", chain_samples_only_kept_tokens),
        Scenario::check("check/sampling/top_p_keeps_smallest_nucleus", top_p_keeps_smallest_nucleus),
    ]);
    all
});

/// A decode step's history: `HISTORY` token ids from the vocabulary.
fn history(vocab: usize) -> Vec<u32> {
    let mut rng = SplitMix::new(21);
    (0..HISTORY).map(|_| rng.below(vocab) as u32).collect()
}

/// The chain a serving stack applies per step, in the usual order.
fn serving_chain() -> Chain {
    Chain::new()
        .with(RepetitionPenalty::new(1.1).expect("valid"))
        .with(Temperature::new(0.8).expect("valid"))
        .with(TopK::new(TOP_K).expect("valid"))
        .with(TopP::new(0.95).expect("valid"))
        .with(MinP::new(0.02).expect("valid"))
}

fn copy_logits(b: &mut Bencher, vocab: usize) {
    let pristine = logits(vocab, 20);
    let mut work = pristine.clone();
    b.throughput(Throughput::Bytes(2 * 4 * vocab as u64));
    b.iter(|| work.copy_from_slice(&pristine));
}

fn greedy(b: &mut Bencher, vocab: usize) {
    let l = logits(vocab, 20);
    b.throughput(Throughput::Bytes(4 * vocab as u64));
    b.iter(|| sampling::greedy(&l).expect("finite logits"));
}

fn top_k(b: &mut Bencher, vocab: usize, select: fn(&[f32], usize) -> Vec<u32>) {
    let l = logits(vocab, 20);
    b.iter(|| select(&l, TOP_K));
}

fn processor(b: &mut Bencher, vocab: usize, p: impl LogitsProcessor) {
    let pristine = logits(vocab, 20);
    let hist = history(vocab);
    let mut work = pristine.clone();
    b.iter(|| {
        work.copy_from_slice(&pristine);
        p.process(&mut work, &hist);
    });
}

/// One full decode step: the serving chain, then a seeded draw.
fn chain_step(b: &mut Bencher, vocab: usize) {
    let pristine = logits(vocab, 20);
    let hist = history(vocab);
    let mut work = pristine.clone();
    let mut sampler = Sampler::seeded(serving_chain(), 7);
    b.iter(|| {
        work.copy_from_slice(&pristine);
        sampler.next_token(&mut work, &hist).expect("finite logits")
    });
}

/// Partial selection keeps exactly the full sort's indices in the same order, ties included.
fn top_k_matches_full_sort() -> Result<(), String> {
    let mut rng = SplitMix::new(22);
    for vocab in [1, 7, 1000, 32_000, 151_936] {
        // Quantized to quarters, so many logits tie and the tie-break (lower id first) is exercised.
        let mut l: Vec<f32> = (0..vocab).map(|_| (rng.below(80) as f32 - 40.0) * 0.25).collect();
        if vocab > 10 {
            l[3] = f32::NAN;
            l[5] = f32::NEG_INFINITY;
        }
        for k in [1, 2, TOP_K, 1000, vocab, vocab + 5] {
            let (fast, slow) = (sampling::top_k_indices(&l, k), sampling::top_k_indices_full_sort(&l, k));
            if fast != slow {
                let at = fast.iter().zip(&slow).position(|(a, b)| a != b);
                return Err(format!(
                    "vocab={vocab} k={k}: partial selection differs from full sort at {at:?} (lengths {} and {})",
                    fast.len(),
                    slow.len()
                ));
            }
        }
    }
    Ok(())
}

/// `steps` tokens from a seeded sampler over a fixed stream of logits.
fn generate(seed: u64, vocab: usize, steps: usize) -> Vec<u32> {
    let mut sampler = Sampler::seeded(serving_chain(), seed);
    let mut hist = Vec::new();
    for step in 0..steps {
        let mut l = logits(vocab, 100 + step as u64);
        hist.push(sampler.next_token(&mut l, &hist).expect("finite logits"));
    }
    hist
}

/// A seed fixes the tokens; another seed gives other tokens.
fn same_seed_same_tokens() -> Result<(), String> {
    let a = generate(7, 32_000, 32);
    let again = generate(7, 32_000, 32);
    if a != again {
        return Err(format!("seed 7 gave {a:?} then {again:?}"));
    }
    if a == generate(8, 32_000, 32) {
        return Err("seeds 7 and 8 gave the same 32 tokens".into());
    }
    Ok(())
}

/// Every drawn token survives the chain: it is in the top-k set and was not filtered to `-inf`.
fn chain_samples_only_kept_tokens() -> Result<(), String> {
    let vocab = 32_000;
    let mut sampler = Sampler::seeded(serving_chain(), 9);
    let hist = history(vocab);
    for step in 0..200u64 {
        let raw = logits(vocab, 300 + step);
        let mut work = raw.clone();
        let t = sampler.next_token(&mut work, &hist).map_err(|e| e.to_string())?;
        if work[t as usize] == f32::NEG_INFINITY {
            return Err(format!("step {step}: drew token {t}, which the chain filtered out"));
        }
        let kept = work.iter().filter(|l| l.is_finite()).count();
        if kept > TOP_K || kept == 0 {
            return Err(format!("step {step}: {kept} tokens survive a chain with top_k={TOP_K}"));
        }
    }
    Ok(())
}

/// Top-p keeps a prefix of the tokens by probability whose mass reaches p, and no shorter prefix does.
fn top_p_keeps_smallest_nucleus() -> Result<(), String> {
    for (vocab, p) in [(1000, 0.5), (32_000, 0.9)] {
        let raw = logits(vocab, 40);
        let mut work = raw.clone();
        TopP::new(p).expect("valid").process(&mut work, &[]);
        let max = raw.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
        let weights: Vec<f64> = raw.iter().map(|&l| (l as f64 - max).exp()).collect();
        let total: f64 = weights.iter().sum();
        let kept: Vec<usize> = (0..vocab).filter(|&i| work[i].is_finite()).collect();
        let mass: f64 = kept.iter().map(|&i| weights[i] / total).sum();
        let smallest = kept.iter().map(|&i| weights[i]).fold(f64::INFINITY, f64::min);
        let dropped_max = (0..vocab).filter(|&i| !work[i].is_finite()).map(|i| weights[i]).fold(0.0, f64::max);
        if mass < p - 1e-9 {
            return Err(format!("vocab={vocab} p={p}: kept mass {mass} is below p"));
        }
        if mass - smallest / total >= p + 1e-9 {
            return Err(format!(
                "vocab={vocab} p={p}: dropping the least likely kept token still leaves {} >= p",
                mass - smallest / total
            ));
        }
        if dropped_max > smallest {
            return Err(format!("vocab={vocab} p={p}: dropped a token more likely than one kept"));
        }
    }
    Ok(())
}
