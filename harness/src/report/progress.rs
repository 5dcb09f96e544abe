//! `ProgressReporter`: a progress bar on stderr, drawn only when stderr is a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::errors::Error;
use crate::events::{Reporter, RunEvent};

/// Shows runs done out of runs planned, and failures so far.
pub struct ProgressReporter {
    bar: ProgressBar,
    failures: usize,
}

impl Default for ProgressReporter {
    fn default() -> Self {
        // indicatif hides a stderr target that is not a terminal: quiet in CI and pipes.
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        ProgressReporter { bar, failures: 0 }
    }
}

impl Reporter for ProgressReporter {
    fn on_event(&mut self, event: &RunEvent<'_>) -> Result<(), Error> {
        match event {
            RunEvent::Started { meta, total } => {
                self.bar.println(format!("seed {} ({} runs planned)", meta.seed, total));
                self.bar.set_length(*total as u64);
            }
            RunEvent::Planned { added } => self.bar.inc_length(*added as u64),
            RunEvent::RunFinished { record } => {
                if record.outcome.is_failure() {
                    self.failures += 1;
                    self.bar.println(format!("{} {}", record.outcome.short(), record.scenario));
                }
                self.bar.set_message(if self.failures > 0 {
                    format!("{} failed", self.failures)
                } else {
                    String::new()
                });
                self.bar.inc(1);
            }
            RunEvent::Finished { .. } => self.bar.finish_and_clear(),
        }
        Ok(())
    }
}
