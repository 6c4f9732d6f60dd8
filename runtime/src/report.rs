//! What a simple tool reports on stderr while a call runs: each line is a
//! log message for the client (`notifications/message`, at the level its
//! prefix names) or, in the `progress:` format, progress of the call
//! (`notifications/progress`, when the call carries a progress token).
//! docs/runtime.md, "Logging and progress", describes the line format.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

#[allow(deprecated)] // logging: deprecated from MCP 2026-07-28 on, still in 2025-11-25
use rmcp::model::LoggingMessageNotificationParam;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::Peer;
use rmcp::RoleServer;
use serde_json::Value;

/// MCP's log levels (those of syslog), most severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Emergency = 0,
    Alert = 1,
    Critical = 2,
    Error = 3,
    Warning = 4,
    Notice = 5,
    Info = 6,
    Debug = 7,
}

const SEVERITIES: [Severity; 8] = [
    Severity::Emergency,
    Severity::Alert,
    Severity::Critical,
    Severity::Error,
    Severity::Warning,
    Severity::Notice,
    Severity::Info,
    Severity::Debug,
];

impl Severity {
    /// The level of a line without a prefix, and the level sent from when
    /// the client has not set one.
    pub const DEFAULT: Severity = Severity::Info;

    /// The level a prefix word names (`error`, `WARN`, ...).
    fn named(word: &str) -> Option<Severity> {
        Some(match word.to_ascii_lowercase().as_str() {
            "emergency" | "emerg" => Severity::Emergency,
            "alert" => Severity::Alert,
            "critical" | "crit" => Severity::Critical,
            "error" | "err" => Severity::Error,
            "warning" | "warn" => Severity::Warning,
            "notice" => Severity::Notice,
            "info" => Severity::Info,
            "debug" => Severity::Debug,
            _ => return None,
        })
    }

    #[allow(deprecated)] // logging: deprecated from MCP 2026-07-28 on, still in 2025-11-25
    pub fn to_mcp(self) -> rmcp::model::LoggingLevel {
        use rmcp::model::LoggingLevel as L;
        match self {
            Severity::Emergency => L::Emergency,
            Severity::Alert => L::Alert,
            Severity::Critical => L::Critical,
            Severity::Error => L::Error,
            Severity::Warning => L::Warning,
            Severity::Notice => L::Notice,
            Severity::Info => L::Info,
            Severity::Debug => L::Debug,
        }
    }

    #[allow(deprecated)] // logging: deprecated from MCP 2026-07-28 on, still in 2025-11-25
    pub fn from_mcp(level: rmcp::model::LoggingLevel) -> Severity {
        SEVERITIES
            .into_iter()
            .find(|s| s.to_mcp() == level)
            .unwrap_or(Severity::DEFAULT)
    }
}

/// One line of a tool's stderr.
#[derive(Debug, PartialEq)]
pub enum Line<'a> {
    Log {
        level: Severity,
        text: &'a str,
    },
    Progress {
        progress: f64,
        total: Option<f64>,
        message: Option<&'a str>,
    },
}

/// Reads one line (without its newline); None for a blank line.
///
/// - `progress: DONE[/TOTAL] [MESSAGE]` (numbers, not negative) is progress;
/// - `LEVEL: text` (`debug`, `info`, `notice`, `warning`/`warn`, `error`,
///   `critical`, `alert`, `emergency`, any case) or a syslog prefix `<N>text`
///   (0 emergency .. 7 debug, as systemd reads stderr) is a message at that level;
/// - any other line is a message at [`Severity::DEFAULT`].
pub fn parse(line: &str) -> Option<Line<'_>> {
    let line = line.trim_end();
    if line.trim_start().is_empty() {
        return None;
    }
    if let [b'<', digit @ b'0'..=b'7', b'>', ..] = line.as_bytes() {
        return Some(Line::Log {
            level: SEVERITIES[usize::from(digit - b'0')],
            text: line[3..].trim_start(),
        });
    }
    if let Some((word, rest)) = line.split_once(':') {
        if word.eq_ignore_ascii_case("progress") {
            if let Some(progress) = progress(rest) {
                return Some(progress);
            }
        } else if let Some(level) = Severity::named(word) {
            return Some(Line::Log {
                level,
                text: rest.trim_start(),
            });
        }
    }
    Some(Line::Log {
        level: Severity::DEFAULT,
        text: line,
    })
}

fn progress(rest: &str) -> Option<Line<'_>> {
    let rest = rest.trim_start();
    let (numbers, message) = match rest.split_once(char::is_whitespace) {
        Some((numbers, message)) => (numbers, Some(message.trim()).filter(|m| !m.is_empty())),
        None => (rest, None),
    };
    let number = |s: &str| s.parse::<f64>().ok().filter(|n| n.is_finite() && *n >= 0.0);
    let (progress, total) = match numbers.split_once('/') {
        Some((done, total)) => (number(done)?, Some(number(total)?)),
        None => (number(numbers)?, None),
    };
    Some(Line::Progress {
        progress,
        total,
        message,
    })
}

/// A tool's stderr without its progress lines: what a failed call's
/// result keeps of it.
pub fn without_progress(stderr: &str) -> String {
    stderr
        .lines()
        .filter(|l| !matches!(parse(l), Some(Line::Progress { .. })))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The level a session asked for with `logging/setLevel`.
#[derive(Clone)]
pub struct SessionLevel(Arc<AtomicU8>);

impl Default for SessionLevel {
    fn default() -> Self {
        SessionLevel(Arc::new(AtomicU8::new(Severity::DEFAULT as u8)))
    }
}

impl SessionLevel {
    pub fn set(&self, level: Severity) {
        self.0.store(level as u8, Ordering::Relaxed);
    }

    fn admits(&self, level: Severity) -> bool {
        level as u8 <= self.0.load(Ordering::Relaxed)
    }
}

/// Turns the stderr lines of one call into notifications to its client.
pub struct Reporter {
    peer: Peer<RoleServer>,
    level: SessionLevel,
    /// The tool's name: the messages' `logger`.
    logger: String,
    token: Option<ProgressToken>,
    /// The last progress sent: MCP requires it to increase.
    last: Option<f64>,
}

impl Reporter {
    pub fn new(
        peer: Peer<RoleServer>,
        level: SessionLevel,
        logger: &str,
        token: Option<ProgressToken>,
    ) -> Reporter {
        Reporter {
            peer,
            level,
            logger: logger.to_string(),
            token,
            last: None,
        }
    }

    pub async fn line(&mut self, line: &str) {
        match parse(line) {
            Some(Line::Log { level, text }) if self.level.admits(level) => {
                #[allow(deprecated)] // logging: deprecated from MCP 2026-07-28 on
                let message = LoggingMessageNotificationParam::new(
                    level.to_mcp(),
                    Value::String(text.to_string()),
                )
                .with_logger(self.logger.clone());
                #[allow(deprecated)]
                let _ = self.peer.notify_logging_message(message).await;
            }
            Some(Line::Progress {
                progress,
                total,
                message,
            }) => {
                let Some(token) = &self.token else { return };
                if self.last.is_some_and(|last| progress <= last) {
                    return;
                }
                self.last = Some(progress);
                let mut note = ProgressNotificationParam::new(token.clone(), progress);
                note.total = total;
                note.message = message.map(str::to_string);
                let _ = self.peer.notify_progress(note).await;
            }
            // Blank, or below the session's level.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(level: Severity, text: &str) -> Option<Line<'_>> {
        Some(Line::Log { level, text })
    }

    #[test]
    fn a_prefix_names_the_level() {
        assert_eq!(
            parse("error: no such file"),
            log(Severity::Error, "no such file")
        );
        assert_eq!(
            parse("WARNING:root:slow"),
            log(Severity::Warning, "root:slow")
        );
        assert_eq!(parse("warn: x"), log(Severity::Warning, "x"));
        assert_eq!(parse("debug:x\r"), log(Severity::Debug, "x"));
        assert_eq!(parse("Notice: n"), log(Severity::Notice, "n"));
        assert_eq!(parse("crit: c"), log(Severity::Critical, "c"));
        assert_eq!(parse("<3>disk full"), log(Severity::Error, "disk full"));
        assert_eq!(parse("<7> detail"), log(Severity::Debug, "detail"));
        assert_eq!(parse("<0>down"), log(Severity::Emergency, "down"));
    }

    #[test]
    fn any_other_line_is_at_the_default_level() {
        assert_eq!(
            parse("fetching 3 pages"),
            log(Severity::Info, "fetching 3 pages")
        );
        assert_eq!(
            parse("note: kept whole"),
            log(Severity::Info, "note: kept whole")
        );
        assert_eq!(parse("<8>not syslog"), log(Severity::Info, "<8>not syslog"));
        assert_eq!(
            parse("<12>two digits"),
            log(Severity::Info, "<12>two digits")
        );
        assert_eq!(parse("  indented"), log(Severity::Info, "  indented"));
        assert_eq!(parse(""), None);
        assert_eq!(parse("  \t\r"), None);
    }

    #[test]
    fn progress_lines_carry_numbers_and_an_optional_message() {
        let p = |progress, total, message| {
            Some(Line::Progress {
                progress,
                total,
                message,
            })
        };
        assert_eq!(
            parse("progress: 3/10 fetching page 3"),
            p(3.0, Some(10.0), Some("fetching page 3"))
        );
        assert_eq!(parse("progress: 50/100"), p(50.0, Some(100.0), None));
        assert_eq!(parse("progress:0.5"), p(0.5, None, None));
        assert_eq!(parse("PROGRESS: 7 items  "), p(7.0, None, Some("items")));
        // Not numbers: an ordinary line, so the author sees it.
        assert_eq!(
            parse("progress: almost"),
            log(Severity::Info, "progress: almost")
        );
        assert_eq!(
            parse("progress: -1/10"),
            log(Severity::Info, "progress: -1/10")
        );
        assert_eq!(parse("progress: 1/x"), log(Severity::Info, "progress: 1/x"));
        assert_eq!(parse("progress: NaN"), log(Severity::Info, "progress: NaN"));
    }

    #[test]
    fn severities_round_trip_through_mcp_levels() {
        for s in SEVERITIES {
            assert_eq!(Severity::from_mcp(s.to_mcp()), s);
        }
        let level = SessionLevel::default();
        assert!(level.admits(Severity::Info) && !level.admits(Severity::Debug));
        level.set(Severity::Error);
        assert!(level.admits(Severity::Critical) && !level.admits(Severity::Warning));
    }

    #[test]
    fn a_failed_calls_stderr_keeps_everything_but_progress() {
        assert_eq!(
            without_progress("progress: 1/2\nerror: bad\nprogress: x\n"),
            "error: bad\nprogress: x\n"
        );
    }
}
