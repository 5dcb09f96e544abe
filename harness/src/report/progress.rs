//! `ProgressReporter`: a progress bar on stderr for `run`, `detect` and `compare` — the phase,
//! processes done out of planned, failures so far and the time left — drawn only when stderr is
//! a terminal (indicatif hides it otherwise: nothing of it reaches a pipe or a CI log). Without
//! the `progress` feature (a lean suite binary) the same counts as one plain line
//! (`plain_bar::PlainBar`), with no bar graphic or time left.

use std::time::Instant;

#[cfg(not(feature = "progress"))]
use super::plain_bar::{DrawTarget as ProgressDrawTarget, PlainBar as ProgressBar};
#[cfg(feature = "progress")]
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::errors::Error;
use crate::events::{Reporter, RunEvent};

/// Shows the phase, processes done out of processes planned, and failures so far; where a
/// command's phases overlap (detect), processes and time per phase.
pub struct ProgressReporter {
    bar: ProgressBar,
    failures: usize,
    print_failures: bool,
    phases: Vec<PhaseTally>,
}

/// One phase as the bar shows it: processes done (of planned, when known) and time so far.
struct PhaseTally {
    name: String,
    done: usize,
    planned: usize,
    first: Option<Instant>,
    last: Option<Instant>,
}

impl PhaseTally {
    fn text(&self) -> String {
        let secs = match (self.first, self.last) {
            (Some(a), Some(b)) => b.duration_since(a).as_secs_f64(),
            _ => 0.0,
        };
        if self.planned > 0 {
            format!("{} {}/{} {secs:.1}s", self.name, self.done, self.planned)
        } else {
            format!("{} {} {secs:.1}s", self.name, self.done)
        }
    }
}

impl Default for ProgressReporter {
    fn default() -> Self {
        Self::new(ProgressDrawTarget::stderr())
    }
}

impl ProgressReporter {
    /// A bar drawn to `target` (tests use a hidden or in-memory one).
    pub fn new(target: ProgressDrawTarget) -> Self {
        let bar = ProgressBar::with_draw_target(Some(0), target);
        #[cfg(feature = "progress")]
        bar.set_style(
            ProgressStyle::with_template("{prefix} {elapsed_precise} [{bar:24}] {pos}/{len} processes, {eta} left {msg}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        ProgressReporter {
            bar,
            failures: 0,
            print_failures: true,
            phases: Vec::new(),
        }
    }

    /// Counts failing processes without printing each one: in `detect` a failing process is
    /// evidence being gathered (a victim probed again and again), not news.
    #[cfg(feature = "cli")]
    pub fn without_failure_lines(mut self) -> Self {
        self.print_failures = false;
        self
    }

    fn finished_process(&mut self, failed: Option<String>) {
        if let Some(line) = failed {
            self.failures += 1;
            if self.print_failures {
                self.bar.println(line);
            }
        }
        self.show_message();
        // More processes than planned (a crash split a schedule): the plan grows with them.
        if self.bar.position() >= self.bar.length().unwrap_or(0) {
            self.bar.inc_length(1);
        }
        self.bar.inc(1);
    }
}

impl ProgressReporter {
    fn tally(&mut self, name: &str) -> &mut PhaseTally {
        if let Some(i) = self.phases.iter().position(|p| p.name == name) {
            return &mut self.phases[i];
        }
        self.phases.push(PhaseTally {
            name: name.to_owned(),
            done: 0,
            planned: 0,
            first: None,
            last: None,
        });
        self.phases.last_mut().expect("just pushed")
    }

    fn show_message(&mut self) {
        let mut parts: Vec<String> = self.phases.iter().filter(|p| p.done > 0).map(PhaseTally::text).collect();
        if self.failures > 0 {
            parts.push(format!("{} failed", self.failures));
        }
        if !parts.is_empty() {
            self.bar.set_message(parts.join(" | "));
        }
    }
}

impl Reporter for ProgressReporter {
    fn on_event(&mut self, event: &RunEvent<'_>) -> Result<(), Error> {
        match event {
            // Detect plans by phase and prints its seed per target itself: no `seed` line, no
            // bar of 0/0 processes.
            RunEvent::Started { meta, total } => {
                if *total > 0 {
                    self.bar.println(format!("seed {} ({total} processes planned)", meta.seed));
                }
            }
            RunEvent::PhaseStarted { name, planned } => {
                self.bar.set_prefix(name.to_string());
                self.bar.inc_length(*planned as u64);
                self.tally(name).planned += planned;
            }
            RunEvent::PhaseProcess { name } => {
                let now = Instant::now();
                // The label follows the phase whose process ran (phases overlap in detect).
                self.bar.set_prefix(name.to_string());
                let t = self.tally(name);
                t.done += 1;
                // A crash continuation adds a process to its phase: the plan grows, never `8/7`.
                if t.planned > 0 {
                    t.planned = t.planned.max(t.done);
                }
                t.first.get_or_insert(now);
                t.last = Some(now);
                self.show_message();
            }
            RunEvent::Planned { added } => self.bar.inc_length(*added as u64),
            RunEvent::ProcessFinished { records } => {
                let failed = records
                    .iter()
                    .find(|r| r.outcome.is_failure())
                    .map(|r| format!("{} {}", r.outcome.short(), r.scenario));
                self.finished_process(failed);
            }
            RunEvent::Finished(_) => self.bar.finish_and_clear(),
            RunEvent::PhaseFinished { .. } | RunEvent::ProcessStarted { .. } | RunEvent::Finding(_) => {}
        }
        Ok(())
    }
}

impl Drop for ProgressReporter {
    fn drop(&mut self) {
        // A command that ends without `Finished` (calibrate, an error) leaves no bar behind.
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_label_follows_the_running_phase_and_done_never_exceeds_planned() {
        let mut p = ProgressReporter::new(ProgressDrawTarget::hidden());
        p.on_event(&RunEvent::PhaseStarted {
            name: "shared",
            planned: 2,
        })
        .unwrap();
        p.on_event(&RunEvent::PhaseStarted {
            name: "localization",
            planned: 0,
        })
        .unwrap();
        for _ in 0..3 {
            p.on_event(&RunEvent::PhaseProcess { name: "shared" }).unwrap();
        }
        assert_eq!(p.bar.prefix(), "shared");
        let shared = p.phases.iter().find(|t| t.name == "shared").unwrap();
        assert!(shared.text().starts_with("shared 3/3 "), "{}", shared.text());
        p.on_event(&RunEvent::PhaseProcess { name: "localization" }).unwrap();
        assert_eq!(p.bar.prefix(), "localization");
    }
}
