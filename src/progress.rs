//! Progress and status output. Stages report events through `Reporter`;
//! only `Printer` knows indicatif. Bars appear only when stderr is a
//! terminal and `--quiet` is off; status lines go to stderr so stdout stays
//! for data (`list --json`).
//!
//! Text that reaches a terminal may come from a registry, a tool.yaml or an
//! archive entry's name, so it is escaped before it is written: control
//! characters (C0, DEL, C1: cursor movement, colours, erasing lines) and the
//! Unicode controls that reorder what is shown (bidirectional overrides and
//! isolates) are written as `\u001b`, which is also how JSON writes them, so
//! JSON output stays valid JSON with the same meaning. Otherwise a description could draw a
//! fake `Installed` line over an error. `printable` escapes one field (line
//! breaks too, so a field cannot start a line of its own); the writers
//! (`eprint_line` and the command layer's stdout writer) escape every line
//! they write as a last resort, keeping the line breaks and tabs they were
//! given and the bidirectional controls, which JSON output may carry raw and
//! which do not move the cursor; `Printer` escapes the parts it is given and adds only its own
//! colours.

use std::borrow::Cow;
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

/// Writes one line (or several, separated by `\n`) to stderr, escaped. A
/// closed or full stderr (`orla verify 2>&1 | head -1`, `2>/dev/full`)
/// loses the line: `eprintln!` would panic instead.
pub fn eprint_line(line: &str) {
    write_stderr(&printable_lines(line));
}

fn write_stderr(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Writes an error as `Error::render` gives it (`error: ...`, then
/// `hint: ...`), escaped, with the two labels coloured when `color`: red
/// for the error, so it stands apart from yellow warnings.
pub fn eprint_error(rendered: &str, color: bool) {
    let text = printable_lines(rendered);
    if !color {
        return write_stderr(&text);
    }
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            if let Some(rest) = line.strip_prefix("error:") {
                format!("\x1b[1;31merror\x1b[0m:{rest}")
            } else if let Some(rest) = line.strip_prefix("hint:") {
                format!("\x1b[1;36mhint\x1b[0m:{rest}")
            } else {
                line.to_string()
            }
        })
        .collect();
    write_stderr(&lines.join("\n"));
}

/// True for the characters a terminal would act on rather than show.
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

fn escape_with(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(|c| is_unsafe(c) && !keep(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe(c) && !keep(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// One field of output (a name, a description, a path) made safe to show:
/// every control character, line breaks included, written as `\u00XX`.
pub fn printable(text: &str) -> Cow<'_, str> {
    escape_with(text, |_| false)
}

/// Whole lines of output made safe to show: as `printable`, but the line
/// breaks and tabs that lay the lines out are kept.
pub fn printable_lines(text: &str) -> Cow<'_, str> {
    escape_with(text, |c| c == '\n' || c == '\t' || !c.is_control())
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
    /// `color`: whether stderr gets colours (`--color`, `NO_COLOR`,
    /// `CLICOLOR_FORCE`, `FORCE_COLOR` and the terminal, decided by
    /// `Context`, where the environment is read).
    pub fn new(quiet: bool, color: bool) -> Printer {
        let tty = std::io::stderr().is_terminal();
        let multi =
            (tty && !quiet).then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr()));
        Printer {
            quiet,
            color,
            multi,
            bars: Mutex::new(HashMap::new()),
            next: AtomicUsize::new(1),
        }
    }

    /// `line` is escaped by the caller: it holds this printer's colours.
    fn print(&self, line: String) {
        match &self.multi {
            Some(multi) => multi.suspend(|| write_stderr(&line)),
            None => write_stderr(&line),
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
                "{} {}",
                self.paint("1;32", &format!("{:>12}", printable(verb))),
                printable(message)
            ));
        }
    }

    fn warn(&self, message: &str) {
        self.print(format!(
            "{}: {}",
            self.paint("1;33", "warning"),
            printable(message)
        ));
    }

    fn waiting_for_lock(&self, what: &str, path: &Path) {
        // Always shown, even with --quiet: a silent hang looks like a bug.
        self.print(format!(
            "{} for lock on {} ({}): another orla is running",
            self.paint("1;36", &format!("{:>12}", "Waiting")),
            printable(what),
            printable(&path.display().to_string())
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
            bar.set_message(printable(label).into_owned());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(printable("fs-read 1.2.1"), "fs-read 1.2.1");
        assert_eq!(
            printable("ok\x1b[2K\r   Installed\nx\u{9b}y\u{202e}z"),
            "ok\\u001b[2K\\u000d   Installed\\u000ax\\u009by\\u202ez"
        );
        assert_eq!(
            printable_lines("a\tb\nc\x07\u{202e}"),
            "a\tb\nc\\u0007\u{202e}"
        );
        // Escaping twice changes nothing more.
        let once = printable("\x1b]0;title\x07").into_owned();
        assert_eq!(printable(&once), once);
        assert_eq!(printable("naïve — ok"), "naïve — ok");
    }
}
