//! Progress and status output. Stages report typed [`Event`]s through
//! `Reporter`, facts and no English; a renderer turns them into output:
//! [`Printer`] into the terminal lines a person reads (every sentence is in
//! `human.rs`; only it knows indicatif), [`JsonLines`] into one JSON object
//! per line (`--message-format json`, docs/events.md). Bars appear only
//! when stderr is a terminal and `--quiet` is off; status lines and events
//! go to stderr so stdout stays for data (`list --json`).
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

pub mod event;
mod human;
mod json;

use std::borrow::Cow;
use std::path::Path;

pub use event::{ClientChange, Event, ServedBecause, SkipReason, Warning, SCHEMA_VERSION};

pub use human::Printer;
pub use json::JsonLines;

/// Where a command's events go. Stages call [`Reporter::report`] with
/// typed events; `status` and `warn` remain for the commands whose events
/// are not typed yet (they become `Event::Status` and `Warning::Other`).
pub trait Reporter: Send + Sync {
    fn report(&self, event: Event);
    /// A download (or a git fetch) starts; the id names it in the calls
    /// that follow.
    fn download_start(&self, label: &str, total: Option<u64>) -> usize;
    fn download_progress(&self, id: usize, bytes: u64);
    fn download_finish(&self, id: usize);

    /// A cargo-style status line: `   Installed fs-read 1.2.1`.
    fn status(&self, verb: &str, message: &str) {
        self.report(Event::Status {
            verb: verb.to_string(),
            message: message.to_string(),
        });
    }
    fn warn(&self, message: &str) {
        self.report(Event::Warning(Warning::Other {
            message: message.to_string(),
        }));
    }
    fn waiting_for_lock(&self, what: &str, path: &Path) {
        self.report(Event::LockWait {
            what: what.to_string(),
            path: path.display().to_string(),
        });
    }
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

/// Whether `text` may hold a character to escape, looked at byte by byte
/// (a whole listing at a time, so without decoding it): an ASCII control
/// (but the line breaks and tabs of `lines`), the first byte of a C1
/// control (0xC2) and, unless only controls are escaped (`lines`), of
/// U+061C (0xD8) or of the other marks (0xE2).
fn maybe_unsafe(text: &str, lines: bool) -> bool {
    // Without an early exit inside a chunk, each loop is vectorised.
    fn any(bytes: &[u8], suspect: impl Fn(u8) -> bool) -> bool {
        bytes
            .chunks(1024)
            .any(|chunk| chunk.iter().fold(false, |any, &b| any | suspect(b)))
    }
    if lines {
        any(text.as_bytes(), |b| {
            (b < 0x20 && b != b'\n' && b != b'\t') | (b == 0x7f) | (b == 0xc2)
        })
    } else {
        any(text.as_bytes(), |b| {
            (b < 0x20) | (b == 0x7f) | (b == 0xc2) | (b == 0xd8) | (b == 0xe2)
        })
    }
}

/// True for the characters a terminal would act on rather than show.
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// `text` with the characters [`is_unsafe`] names escaped; with `lines`,
/// only the controls, and not the line breaks and tabs.
fn escape_with(text: &str, lines: bool) -> Cow<'_, str> {
    let keep = |c: char| lines && (c == '\n' || c == '\t' || !c.is_control());
    if !maybe_unsafe(text, lines) || !text.chars().any(|c| is_unsafe(c) && !keep(c)) {
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

/// `text` as one shell word, for commands printed to be pasted: quoted
/// only when it holds characters a shell would split or expand.
pub fn shell_quote(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// One field of output (a name, a description, a path) made safe to show:
/// every control character, line breaks included, written as `\u00XX`.
pub fn printable(text: &str) -> Cow<'_, str> {
    escape_with(text, false)
}

/// Whole lines of output made safe to show: as `printable`, but the line
/// breaks and tabs that lay the lines out are kept.
pub fn printable_lines(text: &str) -> Cow<'_, str> {
    escape_with(text, true)
}

/// Reports nothing; for library callers and tests.
pub struct Silent;

impl Reporter for Silent {
    fn report(&self, _: Event) {}
    fn download_start(&self, _: &str, _: Option<u64>) -> usize {
        0
    }
    fn download_progress(&self, _: usize, _: u64) {}
    fn download_finish(&self, _: usize) {}
}

/// Keeps the warnings reported and drops the rest; for a caller that
/// passes them on in a format of its own (`orla serve`'s log lines).
#[derive(Default)]
pub struct Collect {
    warnings: std::sync::Mutex<Vec<Warning>>,
}

impl Collect {
    /// The sentences of the warnings reported, in order.
    pub fn sentences(self) -> Vec<String> {
        let warnings = self
            .warnings
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        warnings.iter().map(human::warning_text).collect()
    }
}

impl Reporter for Collect {
    fn report(&self, event: Event) {
        if let Event::Warning(warning) = event {
            self.warnings
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(warning);
        }
    }
    fn download_start(&self, _: &str, _: Option<u64>) -> usize {
        0
    }
    fn download_progress(&self, _: usize, _: u64) {}
    fn download_finish(&self, _: usize) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte look never lets through a character the exact look escapes.
    #[test]
    fn the_quick_look_misses_no_character_to_escape() {
        for lines in [false, true] {
            for c in (0..=0x10ffff).filter_map(char::from_u32) {
                let text = format!("ab{c}cd");
                let exact = escape_with(&text, lines);
                if matches!(exact, Cow::Owned(_)) {
                    assert!(maybe_unsafe(&text, lines), "{:x} lines={lines}", c as u32);
                }
            }
        }
        assert!(!maybe_unsafe("naïve — ok\n\t", true));
    }

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
