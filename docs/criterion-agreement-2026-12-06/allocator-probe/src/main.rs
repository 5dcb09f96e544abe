use std::collections::BinaryHeap;
use std::hint::black_box;
use std::time::Instant;
type T = u32;
fn random_data(n: T, seed: &mut u64) -> Vec<T> {
    let mut d: Vec<T> = (0..n).collect();
    for i in (1..d.len()).rev() { *seed ^= *seed << 13; *seed ^= *seed >> 7; *seed ^= *seed << 17; let j = (*seed % (i as u64 + 1)) as usize; d.swap(i, j); }
    d
}
fn two_heaps(mut v: Vec<T>, i: usize) -> (BinaryHeap<T>, BinaryHeap<T>) { let v2 = v.split_off(i); (v.into(), v2.into()) }
fn append((mut a, mut b): (BinaryHeap<T>, BinaryHeap<T>)) -> BinaryHeap<T> { a.append(&mut b); a }
fn median(mut v: Vec<f64>) -> f64 { v.sort_by(|a, b| a.partial_cmp(b).unwrap()); v[v.len() / 2] }
extern "C" { fn mallopt(p: i32, v: i32) -> i32; }
fn main() {
    if std::env::var("WARM").is_ok() { black_box(Vec::<u8>::with_capacity(16 << 20)); }
    if let Ok(v) = std::env::var("TRIM") { unsafe { mallopt(-1, v.parse().unwrap()); mallopt(-3, 64<<20); } }
    let mode = std::env::args().nth(1).unwrap();
    let i: usize = std::env::args().nth(2).map_or(2500, |s| s.parse().unwrap());
    let mut seed = 88172645463325252u64;
    let mut per_call = Vec::new();
    let batch = if mode == "batch" { 30 } else { 1 };
    let mut outputs = Vec::with_capacity(batch);
    for _ in 0..300 {
        let inputs: Vec<_> = (0..batch).map(|_| two_heaps(random_data(100_000, &mut seed), i)).collect();
        let t = Instant::now();
        outputs.extend(inputs.into_iter().map(append));
        let e = t.elapsed();
        black_box(&mut outputs);
        per_call.push(e.as_nanos() as f64 / batch as f64);
        outputs.clear();
    }
    println!("{mode} i={i}: median {:.1} us", median(per_call) / 1e3);
}
