//! `PlainBar`: the progress line of a build without indicatif (feature `progress` off, as
//! harness-criterion builds a bench): the phase, the time so far, processes done out of planned
//! and the message, rewritten in place at most ten times a second. Like indicatif's bar it is
//! drawn only when stderr is a terminal; nothing of it reaches a pipe or a CI log. No bar
//! graphic and no time-left estimate: the counts say how far the run is.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Where the line goes: stderr when it is a terminal, or nowhere.
pub struct DrawTarget(Option<Box<dyn Write + Send>>);

impl DrawTarget {
    /// stderr, if it is a terminal; otherwise hidden.
    pub fn stderr() -> Self {
        let err = std::io::stderr();
        DrawTarget(err.is_terminal().then(|| Box::new(err) as Box<dyn Write + Send>))
    }

    /// Nowhere.
    #[cfg(test)]
    pub fn hidden() -> Self {
        DrawTarget(None)
    }

    /// Into `w` (tests read what a terminal would have been sent).
    #[cfg(test)]
    pub fn to(w: impl Write + Send + 'static) -> Self {
        DrawTarget(Some(Box::new(w)))
    }
}

/// The subset of indicatif's `ProgressBar` that `ProgressReporter` uses, as one plain line.
pub struct PlainBar {
    out: Option<Box<dyn Write + Send>>,
    prefix: String,
    message: String,
    position: u64,
    length: u64,
    started: Instant,
    drawn_at: Option<Instant>,
    redraw: Duration,
    finished: bool,
}

/// At most this often a redraw (a burst of short processes would otherwise flood the terminal).
const REDRAW: Duration = Duration::from_millis(100);
/// Back to the line's start, then erase it.
const CLEAR: &str = "\r\x1b[2K";

impl PlainBar {
    /// A line of `length` processes (0 when `None`) drawn to `target`.
    pub fn with_draw_target(length: Option<u64>, target: DrawTarget) -> Self {
        PlainBar {
            out: target.0,
            prefix: String::new(),
            message: String::new(),
            position: 0,
            length: length.unwrap_or(0),
            started: Instant::now(),
            drawn_at: None,
            redraw: REDRAW,
            finished: false,
        }
    }

    /// Redraws at most once per `every` (tests: never twice, whatever the machine's load).
    #[cfg(test)]
    fn redraw_every(mut self, every: Duration) -> Self {
        self.redraw = every;
        self
    }

    /// Prints `line` above the progress line.
    pub fn println(&mut self, line: impl AsRef<str>) {
        if let Some(out) = &mut self.out {
            let _ = writeln!(out, "{CLEAR}{}", line.as_ref());
        }
        self.draw(true);
    }

    /// The phase shown first.
    pub fn set_prefix(&mut self, prefix: String) {
        self.prefix = prefix;
        self.draw(false);
    }

    /// The phase shown first.
    #[cfg(test)]
    pub fn prefix(&self) -> String {
        self.prefix.clone()
    }

    /// The text shown last.
    pub fn set_message(&mut self, message: String) {
        self.message = message;
        self.draw(false);
    }

    /// Processes done.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Processes planned.
    pub fn length(&self) -> Option<u64> {
        Some(self.length)
    }

    /// `n` more processes planned.
    pub fn inc_length(&mut self, n: u64) {
        self.length += n;
        self.draw(false);
    }

    /// `n` more processes done.
    pub fn inc(&mut self, n: u64) {
        self.position += n;
        self.draw(false);
    }

    /// Erases the line; nothing is drawn after this.
    pub fn finish_and_clear(&mut self) {
        if let (Some(out), Some(_)) = (&mut self.out, self.drawn_at) {
            let _ = write!(out, "{CLEAR}");
            let _ = out.flush();
        }
        self.finished = true;
        self.drawn_at = None;
    }

    fn draw(&mut self, now_anyway: bool) {
        let Some(out) = &mut self.out else { return };
        let now = Instant::now();
        if self.finished || (!now_anyway && self.drawn_at.is_some_and(|t| now.duration_since(t) < self.redraw)) {
            return;
        }
        let s = now.duration_since(self.started).as_secs();
        let line = format!(
            "{} {:02}:{:02}:{:02} {}/{} processes {}",
            self.prefix,
            s / 3600,
            s / 60 % 60,
            s % 60,
            self.position,
            self.length,
            self.message
        );
        let _ = write!(out, "{CLEAR}{}", line.trim_end());
        let _ = out.flush();
        self.drawn_at = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// A writer whose bytes the test keeps a handle on.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        /// What was written, each `HH:MM:SS` as `T` (a loaded machine may take a second).
        fn text(&self) -> String {
            let text = String::from_utf8(self.0.lock().unwrap().clone()).unwrap();
            let clock = |w: &[u8]| {
                w.iter()
                    .enumerate()
                    .all(|(i, b)| if i % 3 == 2 { *b == b':' } else { b.is_ascii_digit() })
            };
            let mut out = String::new();
            let mut rest = text.as_str();
            while !rest.is_empty() {
                if rest.len() >= 8 && clock(&rest.as_bytes()[..8]) {
                    out.push('T');
                    rest = &rest[8..];
                } else {
                    let c = rest.chars().next().unwrap();
                    out.push(c);
                    rest = &rest[c.len_utf8()..];
                }
            }
            out
        }
    }

    #[test]
    fn the_line_is_rewritten_in_place_lines_go_above_it_and_it_is_erased_at_the_end() {
        let out = Shared::default();
        let mut bar = PlainBar::with_draw_target(Some(0), DrawTarget::to(out.clone())).redraw_every(Duration::from_secs(3600));
        bar.set_prefix("run".into());
        bar.inc_length(3);
        bar.inc(1);
        // Within the redraw interval of the first draw: the prefix was drawn, the counts not yet.
        assert_eq!(out.text(), format!("{CLEAR}run T 0/0 processes"));
        bar.println("FAIL a");
        let text = out.text();
        assert!(text.ends_with(&format!("{CLEAR}FAIL a\n{CLEAR}run T 1/3 processes")), "{text:?}");
        bar.finish_and_clear();
        bar.inc(1);
        bar.println("after");
        let text = out.text();
        assert!(text.ends_with(&format!("1/3 processes{CLEAR}{CLEAR}after\n")), "{text:?}");
        assert_eq!((bar.position(), bar.length()), (2, Some(3)));
    }

    #[test]
    fn a_hidden_line_only_counts() {
        let mut bar = PlainBar::with_draw_target(None, DrawTarget::hidden());
        bar.inc_length(2);
        bar.inc(1);
        bar.println("not shown");
        bar.finish_and_clear();
        assert_eq!((bar.position(), bar.length()), (1, Some(2)));
    }
}
