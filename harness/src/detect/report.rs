//! Detect's own outputs as reporters on the event seam: `detect.json` (array of
//! [`DetectEntry`]) and `detect-run.json` ([`DetectRun`]) through the one atomic writer, and the
//! terminal summary.

use std::io::Write;
use std::path::PathBuf;

use crate::errors::Error;
use crate::events::{Done, Reporter, RunEvent};
use crate::model::{DetectEntry, DetectRun, OrderVerdict};
use crate::report::{io_err, write_json};

/// Writes `detect.json` and `detect-run.json` when detect finishes.
pub struct DetectFiles {
    dir: PathBuf,
}

impl DetectFiles {
    /// Writes into `dir`.
    pub fn new(dir: PathBuf) -> Self {
        DetectFiles { dir }
    }
}

impl Reporter for DetectFiles {
    fn on_event(&mut self, event: &RunEvent<'_>) -> Result<(), Error> {
        if let RunEvent::Finished(Done::Detect { entries, run }) = event {
            write_json(&self.dir.join("detect.json"), entries)?;
            write_json(&self.dir.join("detect-run.json"), run)?;
        }
        Ok(())
    }
}

/// Prints the terminal summary when detect finishes.
pub struct DetectSummary<W: Write> {
    out: W,
}

impl<W: Write> DetectSummary<W> {
    /// Writes to `out`.
    pub fn new(out: W) -> Self {
        DetectSummary { out }
    }
}

impl<W: Write + Send> Reporter for DetectSummary<W> {
    fn on_event(&mut self, event: &RunEvent<'_>) -> Result<(), Error> {
        if let RunEvent::Finished(Done::Detect { entries, run }) = event {
            write_summary(&mut self.out, entries, run).map_err(io_err("writing the detect summary"))?;
        }
        Ok(())
    }
}

/// The terminal summary: victims and brittle scenarios in blocks by shared cause
/// ([`super::screen`]), one line per other finding, then counts and runs spent.
pub fn write_summary(w: &mut dyn Write, entries: &[DetectEntry], run: &DetectRun) -> std::io::Result<()> {
    let count = |v: OrderVerdict| entries.iter().filter(|e| e.verdict == v).count();
    writeln!(w, "\ndetect: {} scenarios in {}", entries.len(), run.binary)?;
    super::screen::write_blocks(w, entries)?;
    for e in entries {
        let label = match &e.binary {
            Some(b) => format!("{} ({b})", e.name),
            None => e.name.clone(),
        };
        // Victims and brittle scenarios are in the blocks above.
        let grouped = matches!(e.verdict, OrderVerdict::Victim | OrderVerdict::Brittle);
        let mut parts = Vec::new();
        if !grouped && !e.cleaners.is_empty() {
            parts.push(format!("masked by {}", super::screen::cleaners(e)));
        }
        if let Some(r) = &e.failure_rate {
            parts.push(format!(
                "fails {:.0}% [{:.0}%, {:.0}%] of {} runs",
                r.estimate * 100.0,
                r.low * 100.0,
                r.high * 100.0,
                r.n
            ));
        }
        if !grouped && (e.verdict != OrderVerdict::Pass || !parts.is_empty()) {
            writeln!(w, "  {:<8} {label}  {}", e.verdict.as_str(), parts.join("; "))?;
        }
        for s in &e.value_shifts {
            writeln!(
                w,
                "  {:<8} {label}  {} {:+.1}% [{:+.1}%, {:+.1}%] in-suite (p_adj {:.2e}){}",
                "shift",
                s.metric,
                s.shift_pct,
                s.low_pct,
                s.high_pct,
                s.p_adjusted,
                if s.culprits.is_empty() {
                    String::new()
                } else {
                    format!(" after {}", s.culprits.join(", "))
                }
            )?;
        }
        if !grouped {
            if e.verdict != OrderVerdict::Pass
                && let Some(m) = e.evidence.iter().find_map(|ev| ev.message.as_deref())
            {
                writeln!(w, "  {:<8} {}", "", crate::model::headline(m))?;
            }
            if let Some(r) = &e.reproduce {
                writeln!(w, "  {:<8} {r}", "")?;
            }
        }
        for d in &e.would_decide {
            writeln!(w, "  {:<8} would decide: {}", "", d.detail)?;
        }
        if !e.hazards.is_empty() {
            let vars: Vec<&str> = e.hazards.iter().map(|h| h.name.as_str()).collect();
            writeln!(w, "  {:<8} {label}  changes {}", "hazard", vars.join(", "))?;
        }
    }
    let unknown = match count(OrderVerdict::Unknown) {
        0 => String::new(),
        n => format!(", {n} unknown"),
    };
    writeln!(
        w,
        "verdicts: {} pass, {} fail, {} victim, {} brittle, {} flaky{unknown}",
        count(OrderVerdict::Pass),
        count(OrderVerdict::Fail),
        count(OrderVerdict::Victim),
        count(OrderVerdict::Brittle),
        count(OrderVerdict::Flaky)
    )?;
    writeln!(
        w,
        "runs: {} isolated, {} shared, {} localization, {} total (seed {})",
        run.runs.isolated, run.runs.shared, run.runs.localization, run.runs.total, run.seed
    )?;
    if !run.phases.is_empty() {
        let parts: Vec<String> = run
            .phases
            .iter()
            .map(|p| format!("{} {} in {:.1}s", p.name, p.processes, p.wall_s))
            .collect();
        writeln!(w, "phases: {}", parts.join(", "))?;
    }
    for n in &run.notes {
        writeln!(w, "note: {n}")?;
    }
    Ok(())
}
