//! Counting under Callgrind, child side: instrumentation switched on around a measurement's
//! calls, the statistics zeroed before each measured call and dumped after it, and each dump's
//! `summary:` line read back into per-call counts.
//!
//! Scoping follows CodSpeed's use of the same requests. The process starts with instrumentation
//! off (`--instr-atstart=no`), so start-up, set-up and the harness's own code run uninstrumented.
//! `START_INSTRUMENTATION` comes before the warm-up calls, which thereby warm the simulated
//! caches as they warm the real ones; instrumentation is global, so threads the routine starts
//! or wakes are counted too. Per measured call: input built, `ZERO_STATS`, the call,
//! `DUMP_STATS_AT`; Callgrind sums every thread into the dump (`--separate-threads=no`).

use std::ffi::CString;
use std::fs;
use std::path::{Path, PathBuf};

use super::client_request::{DUMP_STATS_AT, START_INSTRUMENTATION, STOP_INSTRUMENTATION, ZERO_STATS, request};
use super::costs::CacheCosts;
use super::profile::{profile, self_costs};
use crate::model::Profile;

/// A measurement's Callgrind session inside a child.
pub(crate) struct Session {
    /// Callgrind's `--callgrind-out-file`; dump k of the process goes to `<out>.<k>`.
    out: PathBuf,
    /// Reasons of this session's dumps, with their dump numbers.
    dumps: Vec<(usize, String)>,
}

/// Dumps made so far by this process: Callgrind numbers them from 1 across the process.
static DUMPS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl Session {
    /// Switch instrumentation on. `out` is the `--callgrind-out-file` the parent chose.
    pub(crate) fn begin(out: &Path) -> Session {
        request(START_INSTRUMENTATION, 0, 0);
        Session {
            out: out.to_owned(),
            dumps: Vec::new(),
        }
    }

    /// Count one call of `call`: statistics zeroed right before it and dumped right after.
    #[inline(never)]
    pub(crate) fn count<R>(&mut self, call: impl FnOnce() -> R) -> R {
        let n = DUMPS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let reason = format!("harness-call-{n}");
        // Built before the zero, so its allocation is not counted.
        let c_reason = CString::new(reason.as_str()).expect("no NUL in a number");
        request(ZERO_STATS, 0, 0);
        let r = call();
        request(DUMP_STATS_AT, c_reason.as_ptr() as usize, 0);
        self.dumps.push((n, reason));
        r
    }

    /// Whether the first two calls counted the same instructions to within [`AGREE`]: then a
    /// slow routine's third call would only repeat them. Reads their dumps, which stay for
    /// [`Session::finish`].
    pub(crate) fn first_two_agree(&self) -> bool {
        let ir = |(n, reason): &(usize, String)| {
            let path = PathBuf::from(format!("{}.{n}", self.out.display()));
            let text = fs::read_to_string(path).ok()?;
            parse_dump(&text, reason).ok().map(|c| c.ir as f64)
        };
        match (self.dumps.first().and_then(ir), self.dumps.get(1).and_then(ir)) {
            (Some(a), Some(b)) => agree(a, b),
            _ => false,
        }
    }

    /// Switch instrumentation off and read this session's dumps, one [`CacheCosts`] per call
    /// in call order, with the call's instructions by function when `profiles` (explain). An
    /// error names the dump file and what is wrong with it.
    pub(crate) fn finish(self, profiles: bool) -> Result<Vec<(CacheCosts, Option<Profile>)>, String> {
        request(STOP_INSTRUMENTATION, 0, 0);
        self.dumps
            .iter()
            .map(|(n, reason)| {
                let path = PathBuf::from(format!("{}.{n}", self.out.display()));
                let text = fs::read_to_string(&path).map_err(|e| format!("reading Callgrind dump {}: {e}", path.display()))?;
                let _ = fs::remove_file(&path);
                let costs = parse_dump(&text, reason).map_err(|e| format!("Callgrind dump {}: {e}", path.display()))?;
                // A profile that cannot be read leaves the row unexplained, never uncounted.
                let profile = profiles
                    .then(|| self_costs(&text).ok().map(|(c, unnamed)| profile(c, &unnamed)))
                    .flatten();
                Ok((costs, profile))
            })
            .collect()
    }
}

/// Relative difference of two calls' instructions within which they count as the same call.
pub(crate) const AGREE: f64 = 1e-4;

/// Whether two instruction counts agree to within [`AGREE`].
pub(crate) fn agree(a: f64, b: f64) -> bool {
    (a - b).abs() <= AGREE * a.abs().max(b.abs())
}

/// The costs of one dump, checked to be the dump that `reason` asked for.
pub(crate) fn parse_dump(text: &str, reason: &str) -> Result<CacheCosts, String> {
    let trigger = format!("desc: Trigger: Client Request: {reason}");
    if !text.lines().any(|l| l.trim_end() == trigger) {
        return Err(format!("not the dump of {reason:?} (no line {trigger:?})"));
    }
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .ok_or_else(|| format!("no {key:?} line"))
    };
    let events: Vec<&str> = field("events:")?.split_whitespace().collect();
    let values = field("summary:")?
        .split_whitespace()
        .map(|v| v.parse::<u64>().map_err(|e| format!("summary value {v:?}: {e}")))
        .collect::<Result<Vec<u64>, String>>()?;
    // Callgrind drops trailing zero values from a cost line.
    let get = |name: &str| events.iter().position(|e| *e == name).map(|i| values.get(i).copied().unwrap_or(0));
    let need = |name: &str| get(name).ok_or_else(|| format!("event {name} not collected (was --cache-sim=yes given?)"));
    Ok(CacheCosts {
        ir: need("Ir")?,
        dr: need("Dr")?,
        dw: need("Dw")?,
        i1mr: need("I1mr")?,
        d1mr: need("D1mr")?,
        d1mw: need("D1mw")?,
        ilmr: need("ILmr")?,
        dlmr: need("DLmr")?,
        dlmw: need("DLmw")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_calls_agree_within_a_hundredth_of_a_percent() {
        assert!(agree(235_111_852.0, 235_111_984.0), "132 of 235 M");
        assert!(!agree(16_800_000.0, 11_200_000.0), "a first call paying a one-time cost");
        assert!(!agree(10_000.0, 10_002.0), "2 of 10 000 is 0.02%");
        assert!(agree(0.0, 0.0));
    }

    const DUMP: &str = "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\n\ndesc: Trigger: Client Request: harness-call-2\n\npositions: line\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\nsummary: 14664 2143 2109 5 0 0 5\n\nfn=(1) x\n1 2\ntotals: 14666 2144 2111 5 0 0 5\n";

    #[test]
    fn a_dump_summary_is_read_with_trailing_zeros_restored() {
        let c = parse_dump(DUMP, "harness-call-2").unwrap();
        assert_eq!(
            (c.ir, c.dr, c.dw, c.i1mr, c.d1mr, c.d1mw, c.ilmr, c.dlmr, c.dlmw),
            (14664, 2143, 2109, 5, 0, 0, 5, 0, 0)
        );
    }

    #[test]
    fn a_dump_of_another_call_or_without_cache_events_is_refused() {
        assert!(parse_dump(DUMP, "harness-call-3").unwrap_err().contains("not the dump"));
        let no_cache = DUMP.replace("events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw", "events: Ir");
        assert!(parse_dump(&no_cache, "harness-call-2").unwrap_err().contains("Dr"));
        let garbage = DUMP.replace("summary: 14664", "summary: x14664");
        assert!(parse_dump(&garbage, "harness-call-2").unwrap_err().contains("x14664"));
    }
}
