//! Progress for long commands. On a terminal an indicatif bar; in a log (stderr not a terminal,
//! where the bar draws nothing) a line now and then, so CI logs show that work goes on.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Seconds between two log lines of a long step.
const LOG_EVERY: Duration = Duration::from_secs(10);

pub struct Progress {
    bar: ProgressBar,
    logging: bool,
    start: Instant,
    last_line: Mutex<Instant>,
}

impl Progress {
    /// A bar of `len` steps (a spinner without one) drawn with `template`, ticking every second
    /// so that its elapsed time moves while a step runs.
    pub fn new(len: Option<u64>, template: &str) -> Progress {
        let bar = match len {
            Some(n) => ProgressBar::new(n),
            None => ProgressBar::new_spinner(),
        };
        bar.set_style(ProgressStyle::with_template(template).expect("valid template"));
        bar.enable_steady_tick(Duration::from_secs(1));
        let now = Instant::now();
        Progress { bar, logging: !std::io::stderr().is_terminal(), start: now, last_line: Mutex::new(now) }
    }

    pub fn bar(&self) -> &ProgressBar {
        &self.bar
    }

    /// A line above the bar, or in the log.
    pub fn line(&self, text: &str) {
        self.bar.suspend(|| eprintln!("{text}"));
        *self.last_line.lock().expect("not poisoned") = Instant::now();
    }

    /// Position `pos`; in a log, a line `what(pos)` at most every [`LOG_EVERY`].
    pub fn set_position(&self, pos: u64, what: impl FnOnce(u64) -> String) {
        self.bar.set_position(pos);
        if self.logging {
            let mut last = self.last_line.lock().expect("not poisoned");
            if last.elapsed() >= LOG_EVERY {
                eprintln!("  {} after {:.0} s", what(pos), self.start.elapsed().as_secs_f64());
                *last = Instant::now();
            }
        }
    }

    /// Seconds since the start.
    pub fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
