//! Progress and status output. Stages report events through `Reporter`;
//! only `Printer` knows indicatif. Bars appear only when stderr is a
//! terminal and `--quiet` is off; status lines go to stderr so stdout stays
//! for data (`list --json`).

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

pub trait Reporter: Send + Sync {
    /// A cargo-style status line: `   Installed fs-read 1.2.1`.
    fn status(&self, verb: &str, message: &str);
    fn warn(&self, message: &str);
    fn waiting_for_lock(&self, what: &str, path: &Path);
    fn download_start(&self, label: &str, total: Option<u64>) -> usize;
    fn download_progress(&self, id: usize, bytes: u64);
    fn download_finish(&self, id: usize);
}

/// Writes one line to stderr. A closed or full stderr (`orla verify 2>&1 |
/// head -1`, `2>/dev/full`) loses the line: `eprintln!` would panic instead.
pub fn eprint_line(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Reports nothing; for library callers and tests.
pub struct Silent;

impl Reporter for Silent {
    fn status(&self, _: &str, _: &str) {}
    fn warn(&self, _: &str) {}
    fn waiting_for_lock(&self, _: &str, _: &Path) {}
    fn download_start(&self, _: &str, _: Option<u64>) -> usize {
        0
    }
    fn download_progress(&self, _: usize, _: u64) {}
    fn download_finish(&self, _: usize) {}
}

/// The terminal printer.
pub struct Printer {
    quiet: bool,
    color: bool,
    multi: Option<MultiProgress>,
    bars: Mutex<HashMap<usize, ProgressBar>>,
    next: AtomicUsize,
}

impl Printer {
    /// `no_color`: the user asked for no colours (`NO_COLOR`, read by
    /// `Context`, where the environment is read).
    pub fn new(quiet: bool, no_color: bool) -> Printer {
        let tty = std::io::stderr().is_terminal();
        let multi =
            (tty && !quiet).then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr()));
        Printer {
            quiet,
            color: tty && !no_color,
            multi,
            bars: Mutex::new(HashMap::new()),
            next: AtomicUsize::new(1),
        }
    }

    fn print(&self, line: String) {
        match &self.multi {
            Some(multi) => multi.suspend(|| eprint_line(&line)),
            None => eprint_line(&line),
        }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

impl Reporter for Printer {
    fn status(&self, verb: &str, message: &str) {
        if !self.quiet {
            self.print(format!(
                "{} {message}",
                self.paint("1;32", &format!("{verb:>12}"))
            ));
        }
    }

    fn warn(&self, message: &str) {
        self.print(format!("{}: {message}", self.paint("1;33", "warning")));
    }

    fn waiting_for_lock(&self, what: &str, path: &Path) {
        // Always shown, even with --quiet: a silent hang looks like a bug.
        self.print(format!(
            "{} for lock on {what} ({}): another orla is running",
            self.paint("1;36", &format!("{:>12}", "Waiting")),
            path.display()
        ));
    }

    fn download_start(&self, label: &str, total: Option<u64>) -> usize {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        if let Some(multi) = &self.multi {
            // Hidden until it joins the MultiProgress: a bar that draws on
            // its own first leaves an orphan line on the terminal.
            let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
            bar.set_style(
                ProgressStyle::with_template(if total.is_some() {
                    "{prefix:>12.cyan.bold} {msg} [{bar:30}] {bytes}/{total_bytes}"
                } else {
                    "{prefix:>12.cyan.bold} {msg} {spinner} {bytes}"
                })
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar.set_prefix("Fetching");
            bar.set_message(label.to_string());
            let bar = multi.add(bar);
            self.bars.lock().expect("bars lock").insert(id, bar);
        }
        id
    }

    fn download_progress(&self, id: usize, bytes: u64) {
        if let Some(bar) = self.bars.lock().expect("bars lock").get(&id) {
            bar.inc(bytes);
        }
    }

    fn download_finish(&self, id: usize) {
        if let Some(bar) = self.bars.lock().expect("bars lock").remove(&id) {
            bar.finish_and_clear();
            // A finished bar stays in the MultiProgress (and on screen) until
            // it is removed from it.
            if let Some(multi) = &self.multi {
                multi.remove(&bar);
            }
        }
    }
}
