//! Prints one speed-probe reading (nanoseconds, `harness::speed_probe`): the reading the harness
//! takes at the start and end of each CPU-timed measurement, for a process run beside another
//! tool. scripts/criterion_agreement.sh brackets each criterion run with it, so the reference
//! is judged by the same rule as the drop-in's processes (model/slowed.rs).

fn main() {
    println!("{:.0}", harness::speed_probe());
}
