//! A compare side's allocation value as a count per call (`1 alloc`, `3 allocs`, `4096 B`)
//! instead of `1.00 count`: compare.md (and so the PR comment), the terminal and the HTML.

/// Whether `source` (a compare row's) is an allocation source: `allocs-preload`, `allocs-wrapper`.
pub fn is_alloc_source(source: Option<&str>) -> bool {
    source.is_some_and(|s| s.starts_with("allocs-"))
}

/// `v` per call of `metric`, as a cell: whole numbers as they are (a centre computed on the log
/// scale lands within rounding of one), a centre of calls that vary with two decimals.
pub fn count_cell(metric: &str, v: f64) -> String {
    let whole = (v - v.round()).abs() <= 1e-9 * v.abs().max(1.0);
    let n = if whole { format!("{:.0}", v.round()) } else { format!("{v:.2}") };
    let plural = if whole && v.round() == 1.0 { "" } else { "s" };
    match metric {
        "allocations" => format!("{n} alloc{plural}"),
        "deallocations" => format!("{n} dealloc{plural}"),
        _ => format!("{n} B"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_per_call_and_only_allocation_sources_are_counts() {
        assert_eq!(count_cell("allocations", 1.0), "1 alloc");
        assert_eq!(count_cell("allocations", 0.0), "0 allocs");
        assert_eq!(count_cell("deallocations", 2.0), "2 deallocs");
        assert_eq!(count_cell("alloc_bytes", 4096.0), "4096 B");
        assert_eq!(count_cell("alloc_bytes", 4096.000000000001), "4096 B", "a log-scale centre");
        assert_eq!(count_cell("allocations", 0.9999999999999999), "1 alloc");
        assert_eq!(count_cell("allocations", 1.0 / 3.0), "0.33 allocs");
        assert!(is_alloc_source(Some("allocs-preload")) && is_alloc_source(Some("allocs-wrapper")));
        assert!(!is_alloc_source(Some("valgrind-callgrind 3.19")) && !is_alloc_source(None));
    }
}
