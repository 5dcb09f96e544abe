//! CPU kernel measurements (`matmul/`, `add/`, `gather/`, `reduce_mean_rows/`) per dtype x threads x size,
//! and their correctness checks (`check/<kernel>/<dtype>`) against f64 references.
//!
//! Inputs are built outside the timed closure and every kernel writes a preallocated buffer (`_into`), so
//! a sample is the kernel call alone. Each measurement declares its work, so `gflop_per_s` (matmul) or
//! `gbytes_per_s` (all) appear beside `latency_ns`; compare them with `peak/` from the same run.

use engine::cpu::{self, Element};
use half::{bf16, f16};
use harness::{Scenario, Throughput};

use crate::inputs::{random_indices, random_vec, thread_counts, unit_roundoff, widen};

/// `m x k x n`: a decode GEMV, a 32-token batch, and the same batch at twice the width.
const MATMUL_SHAPES: [(usize, usize, usize); 3] = [(1, 256, 256), (32, 512, 512), (32, 1024, 1024)];
/// Elements per add: one that stays in L2 (768 KiB of f32 traffic) and the triad's length (192 MiB of f32
/// traffic, far past a 32 MiB L3), so the large add and `peak/triad` stream the same bytes from memory.
const ADD_LENS: [usize; 2] = [1 << 16, 1 << 24];
/// Rows of the gather table (an embedding of 8192 rows of 1024 columns, 32 MiB in f32).
const GATHER_TABLE: (usize, usize) = (8192, 1024);
/// Indices per gather: a decode batch and a prefill of 2048 tokens.
const GATHER_INDICES: [usize; 2] = [32, 2048];
/// `rows x cols` per mean: hidden-sized rows of a 32-token batch, and vocabulary-sized rows.
const REDUCE_SHAPES: [(usize, usize); 2] = [(32, 4096), (32, 151_936)];

harness::scenarios!(|| {
    let mut all = Vec::new();
    all.extend(measurements::<f32>());
    all.extend(measurements::<f16>());
    all.extend(measurements::<bf16>());
    all.extend(checks::<f32>());
    all.extend(checks::<f16>());
    all.extend(checks::<bf16>());
    all
});

fn measurements<T: Element>() -> Vec<Scenario> {
    let mut all = Vec::new();
    for threads in thread_counts() {
        let dt = T::NAME;
        for (m, k, n) in MATMUL_SHAPES {
            all.push(Scenario::measure(format!("matmul/{dt}/threads={threads}/{m}x{k}x{n}"), move |b| {
                let a = random_vec::<T>(m * k, 1);
                let bm = random_vec::<T>(k * n, 2);
                let mut c = vec![T::default(); m * n];
                b.throughput(Throughput::Flops(cpu::matmul_flops(m, k, n)));
                b.throughput(Throughput::Bytes(cpu::matmul_bytes::<T>(m, k, n)));
                b.iter(|| cpu::matmul_into(&a, &bm, &mut c, (m, k, n), threads).expect("shapes match"));
            }));
        }
        for len in ADD_LENS {
            all.push(Scenario::measure(format!("add/{dt}/threads={threads}/len={len}"), move |b| {
                let (x, y) = (random_vec::<T>(len, 3), random_vec::<T>(len, 4));
                let mut out = vec![T::default(); len];
                b.throughput(Throughput::Bytes(cpu::add_bytes::<T>(len)));
                b.iter(|| cpu::add_into(&x, &y, &mut out, threads).expect("lengths match"));
            }));
        }
        for n_idx in GATHER_INDICES {
            let (rows, cols) = GATHER_TABLE;
            all.push(Scenario::measure(
                format!("gather/{dt}/threads={threads}/{n_idx}x{cols}"),
                move |b| {
                    let table = random_vec::<T>(rows * cols, 5);
                    let idx = random_indices(n_idx, rows, 6);
                    let mut out = vec![T::default(); n_idx * cols];
                    b.throughput(Throughput::Bytes(cpu::gather_bytes::<T>(n_idx, cols)));
                    b.iter(|| cpu::gather_into(&table, cols, &idx, &mut out, threads).expect("indices in range"));
                },
            ));
        }
        for (rows, cols) in REDUCE_SHAPES {
            all.push(Scenario::measure(
                format!("reduce_mean_rows/{dt}/threads={threads}/{rows}x{cols}"),
                move |b| {
                    let x = random_vec::<T>(rows * cols, 7);
                    let mut out = vec![T::default(); rows];
                    b.throughput(Throughput::Bytes(cpu::reduce_bytes::<T>(rows * cols)));
                    b.iter(|| cpu::reduce_mean_rows_into(&x, cols, &mut out, threads).expect("shape matches"));
                },
            ));
        }
    }
    all
}

fn checks<T: Element>() -> Vec<Scenario> {
    let dt = T::NAME;
    vec![
        Scenario::check(format!("check/matmul/{dt}"), check_matmul::<T>),
        Scenario::check(format!("check/add/{dt}"), check_add::<T>),
        Scenario::check(format!("check/gather/{dt}"), check_gather::<T>),
        Scenario::check(format!("check/reduce_mean_rows/{dt}"), check_reduce::<T>),
    ]
}

/// Thread counts the checks cover: the measured ones plus an odd count that splits unevenly.
fn check_threads() -> Vec<usize> {
    let mut t = thread_counts();
    t.push(3);
    t
}

/// Compares each output with its f64 reference: `|got - want| <= tol(i)`; the message names the first miss.
fn compare(what: &str, got: &[f64], want: &[f64], tol: impl Fn(usize) -> f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: {} outputs, expected {}", got.len(), want.len()));
    }
    match (0..got.len()).find(|&i| (got[i] - want[i]).abs() > tol(i) || got[i].is_nan()) {
        Some(i) => Err(format!(
            "{what}: output {i} is {}, reference {} (tolerance {:e})",
            got[i],
            want[i],
            tol(i)
        )),
        None => Ok(()),
    }
}

/// Matmul against an f64 triple loop over the same (already narrowed) inputs.
///
/// The kernel accumulates in f32 and rounds once to `T`, so each output may be off by one rounding to `T`
/// of its value plus f32 accumulation error, bounded by `k * 2^-24 * sum_l |a_il b_lj|` (Higham, Accuracy
/// and Stability of Numerical Algorithms, 2nd ed., eq. 3.5); we allow 4x that bound for blocked orders.
fn check_matmul<T: Element>() -> Result<(), String> {
    // The GEMV path (m <= 2), shapes not divisible by any block size, and a measured one.
    for (m, k, n) in [(1, 256, 256), (2, 33, 70), (5, 33, 47), (32, 64, 80), (17, 130, 9)] {
        let (a, b) = (random_vec::<T>(m * k, 10), random_vec::<T>(k * n, 11));
        let (wa, wb) = (widen(&a), widen(&b));
        let mut want = vec![0f64; m * n];
        let mut magnitude = vec![0f64; m * n];
        for i in 0..m {
            for j in 0..n {
                for l in 0..k {
                    want[i * n + j] += wa[i * k + l] * wb[l * n + j];
                    magnitude[i * n + j] += (wa[i * k + l] * wb[l * n + j]).abs();
                }
            }
        }
        let u = unit_roundoff::<T>();
        for threads in check_threads() {
            let got = cpu::matmul(&a, &b, (m, k, n), threads).map_err(|e| e.to_string())?;
            compare(
                &format!("{} matmul {m}x{k}x{n} threads={threads}", T::NAME),
                &widen(&got),
                &want,
                |i| u * want[i].abs() + 4.0 * k as f64 * 2f64.powi(-24) * magnitude[i],
            )?;
        }
    }
    Ok(())
}

/// Add is one f32 addition of exact inputs, then one rounding to `T`: at most one unit roundoff off.
fn check_add<T: Element>() -> Result<(), String> {
    // One length below the per-thread threshold, one long enough to split, both with a ragged tail.
    for len in [1000, (1 << 16) + 37] {
        let (a, b) = (random_vec::<T>(len, 12), random_vec::<T>(len, 13));
        let want: Vec<f64> = widen(&a).iter().zip(widen(&b)).map(|(x, y)| x + y).collect();
        for threads in check_threads() {
            let got = cpu::add(&a, &b, threads).map_err(|e| e.to_string())?;
            compare(&format!("{} add len={len} threads={threads}", T::NAME), &widen(&got), &want, |i| {
                unit_roundoff::<T>() * want[i].abs()
            })?;
        }
    }
    Ok(())
}

/// Gather copies rows: exact equality, and an out-of-range index is an error that writes nothing.
fn check_gather<T: Element>() -> Result<(), String> {
    let (rows, cols) = (300, 257);
    let table = random_vec::<T>(rows * cols, 14);
    // Enough rows to pass the per-thread threshold for f32 and to split into uneven thread blocks.
    let idx = random_indices(700, rows, 15);
    for threads in check_threads() {
        let got = cpu::gather(&table, cols, &idx, threads).map_err(|e| e.to_string())?;
        for (pos, &r) in idx.iter().enumerate() {
            let (want, row) = (&table[r as usize * cols..][..cols], &got[pos * cols..][..cols]);
            if want != row {
                return Err(format!(
                    "{} gather threads={threads}: output row {pos} is not table row {r}",
                    T::NAME
                ));
            }
        }
    }
    let mut out = vec![T::from_f32(0.5); 3 * cols];
    match cpu::gather_into(&table, cols, &[0, rows as u32, 1], &mut out, 1) {
        Ok(()) => return Err(format!("{} gather accepted index {rows} into a table of {rows} rows", T::NAME)),
        Err(_) if out.iter().all(|&x| x == T::from_f32(0.5)) => {}
        Err(_) => return Err(format!("{} gather wrote output before rejecting an index", T::NAME)),
    }
    Ok(())
}

/// Row means against f64 sums: the kernel's blocked f32 sums stay within `512/16 * 2^-24 * mean|x|`
/// (see the engine's reduce docs) plus one rounding to `T`; we allow 4x the summation term.
fn check_reduce<T: Element>() -> Result<(), String> {
    for (rows, cols) in [(3, 7), (40, 4096), (2, 151_936)] {
        let x = random_vec::<T>(rows * cols, 16);
        let wx = widen(&x);
        let want: Vec<f64> = wx.chunks(cols).map(|r| r.iter().sum::<f64>() / cols as f64).collect();
        let mean_abs: Vec<f64> = wx
            .chunks(cols)
            .map(|r| r.iter().map(|v| v.abs()).sum::<f64>() / cols as f64)
            .collect();
        for threads in check_threads() {
            let got = cpu::reduce_mean_rows(&x, cols, threads).map_err(|e| e.to_string())?;
            compare(
                &format!("{} reduce_mean_rows {rows}x{cols} threads={threads}", T::NAME),
                &widen(&got),
                &want,
                |i| unit_roundoff::<T>() * want[i].abs() + 4.0 * 32.0 * 2f64.powi(-24) * mean_abs[i],
            )?;
        }
    }
    Ok(())
}
