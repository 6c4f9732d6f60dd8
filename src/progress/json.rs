//! The machine renderer (`--message-format json`): one JSON object per
//! event and per line on stderr, `{"v":1,"event":"...",...}`, in the order
//! things happened. stdout keeps the command's data, as in the human
//! format. A warning also carries the `message` a person would read. No
//! bars and no per-chunk progress: a download is one `download_started`
//! (with its size when known) and one `download_finished` (with the bytes
//! read). The schema is docs/events.md.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde::Serialize;

use super::event::{Event, Warning, SCHEMA_VERSION};
use super::{write_stderr, Reporter};

/// Writes every event as one line of JSON on stderr.
pub struct JsonLines {
    quiet: bool,
    next: AtomicUsize,
    /// Label and bytes so far of each download in progress.
    downloads: Mutex<HashMap<usize, (String, u64)>>,
}

#[derive(Serialize)]
struct Line<'a> {
    v: u32,
    #[serde(flatten)]
    event: &'a Event,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
}

impl JsonLines {
    /// `quiet`: only warnings, lock waits and the error, as `--quiet` does
    /// for the human format.
    pub fn new(quiet: bool) -> JsonLines {
        JsonLines {
            quiet,
            next: AtomicUsize::new(1),
            downloads: Mutex::new(HashMap::new()),
        }
    }

    /// The line of `event`, without its newline.
    pub fn line(event: &Event) -> String {
        let message = match event {
            Event::Warning(Warning::Other { .. }) => None,
            Event::Warning(warning) => Some(super::human::warning_text(warning)),
            _ => None,
        };
        let line = Line {
            v: SCHEMA_VERSION,
            event,
            message,
        };
        serde_json::to_string(&line).expect("events serialise")
    }
}

impl Reporter for JsonLines {
    fn report(&self, event: Event) {
        if self.quiet && event.is_status() {
            return;
        }
        // serde_json escapes C0 controls; the C1 ones (which a terminal
        // also acts on) are escaped here, the same way.
        write_stderr(&super::printable_lines(&JsonLines::line(&event)));
    }

    fn download_start(&self, label: &str, total: Option<u64>) -> usize {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.downloads
            .lock()
            .expect("downloads lock")
            .insert(id, (label.to_string(), 0));
        self.report(Event::DownloadStarted {
            id,
            label: label.to_string(),
            size: total,
        });
        id
    }

    fn download_progress(&self, id: usize, bytes: u64) {
        if let Some((_, done)) = self.downloads.lock().expect("downloads lock").get_mut(&id) {
            *done += bytes;
        }
    }

    fn download_finish(&self, id: usize) {
        let finished = self.downloads.lock().expect("downloads lock").remove(&id);
        if let Some((label, bytes)) = finished {
            self.report(Event::DownloadFinished { id, label, bytes });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::SkipReason;

    #[test]
    fn every_line_has_its_version_and_kind_first() {
        let line = JsonLines::line(&Event::Skipped {
            name: "fs-read".into(),
            version: Some(semver::Version::new(1, 2, 1)),
            reason: SkipReason::NotInstalledByOrla { path: "/x".into() },
        });
        assert_eq!(
            line,
            r#"{"v":1,"event":"skipped","name":"fs-read","version":"1.2.1","reason":"not_installed_by_orla","path":"/x"}"#
        );
        let line = JsonLines::line(&Event::Warning(Warning::Yanked {
            name: "a".into(),
            version: semver::Version::new(1, 0, 0),
        }));
        assert_eq!(
            line,
            r#"{"v":1,"event":"warning","kind":"yanked","name":"a","version":"1.0.0","message":"a 1.0.0 is yanked; installing it because it was asked for exactly"}"#
        );
        assert_eq!(
            JsonLines::line(&Event::NothingToUpdate),
            r#"{"v":1,"event":"nothing_to_update"}"#
        );
        assert_eq!(
            JsonLines::line(&Event::Warning(Warning::Other {
                message: "m".into()
            })),
            r#"{"v":1,"event":"warning","kind":"other","message":"m"}"#
        );
    }
}
