use std::hint::black_box;
use std::time::Instant;
use unicode_segmentation::UnicodeSegmentation;

fn alu() -> f64 {
    let t = Instant::now();
    let mut x: u64 = 0x9E3779B97F4A7C15;
    for _ in 0..100_000 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; x = x.wrapping_mul(0x2545F4914F6CDD1D); }
    black_box(x);
    t.elapsed().as_secs_f64() * 1e6
}
fn ilp() -> f64 {
    let t = Instant::now();
    let mut x = [1u64, 2, 3, 4, 5, 6, 7, 8];
    for i in 0..50_000u64 { for k in 0..8 { x[k] = x[k].rotate_left(5) ^ (x[k].wrapping_add(i)); } }
    black_box(x);
    t.elapsed().as_secs_f64() * 1e6
}
fn branchy(data: &[u8]) -> f64 {
    let t = Instant::now();
    let mut n = 0u64;
    for _ in 0..4 { for &b in data { if b & 1 == 0 { n += 3 } else if b & 2 == 0 { n ^= 5 } else { n = n.wrapping_mul(3) } } }
    black_box(n);
    t.elapsed().as_secs_f64() * 1e6
}
fn grapheme(text: &str) -> f64 {
    let t = Instant::now();
    for c in UnicodeSegmentation::graphemes(black_box(text), true) { black_box(c); }
    t.elapsed().as_secs_f64() * 1e6
}
fn main() {
    let text = std::fs::read_to_string("/tmp/ca3/src-unicode-segmentation/benches/texts/english.txt").unwrap();
    let mut s: u64 = 12345;
    let data: Vec<u8> = (0..50_000).map(|_| { s ^= s << 13; s ^= s >> 7; s ^= s << 17; s as u8 }).collect();
    for _ in 0..10 {
        let a = alu(); let i = ilp(); let b = branchy(&data); let g = grapheme(&text);
        println!("{a:.0} {i:.0} {b:.0} {g:.0}");
    }
}
