//! Log lines on stderr (RFC 1 section 8): one JSON object per line by
//! default, `pretty` for people; levels debug < info < warn < error < fatal.
//! stdout belongs to the MCP stdio transport and is never written here.

use std::io::Write;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Debug = 0,
    Info = 1,
    Warn = 2,
    Error = 3,
    Fatal = 4,
}

impl Level {
    pub fn parse(text: &str) -> Option<Level> {
        Some(match text {
            "debug" => Level::Debug,
            "info" => Level::Info,
            "warn" => Level::Warn,
            "error" => Level::Error,
            "fatal" => Level::Fatal,
            _ => return None,
        })
    }

    fn as_str(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
            Level::Fatal => "fatal",
        }
    }
}

/// A cheap, clonable logger; format and level can change on reload.
#[derive(Clone)]
pub struct Logger {
    inner: Arc<Inner>,
}

struct Inner {
    level: AtomicU8,
    pretty: std::sync::atomic::AtomicBool,
}

impl Logger {
    pub fn new(level: Level, pretty: bool) -> Logger {
        Logger {
            inner: Arc::new(Inner {
                level: AtomicU8::new(level as u8),
                pretty: pretty.into(),
            }),
        }
    }

    pub fn configure(&self, level: Level, pretty: bool) {
        self.inner.level.store(level as u8, Ordering::Relaxed);
        self.inner.pretty.store(pretty, Ordering::Relaxed);
    }

    pub fn enabled(&self, level: Level) -> bool {
        level as u8 >= self.inner.level.load(Ordering::Relaxed)
    }

    /// Logs `msg` with `fields` (a JSON object's members).
    pub fn log(&self, level: Level, msg: &str, fields: Value) {
        if !self.enabled(level) {
            return;
        }
        let mut line = Map::new();
        line.insert("time".into(), Value::String(now_rfc3339()));
        line.insert("level".into(), Value::String(level.as_str().into()));
        line.insert("msg".into(), Value::String(msg.into()));
        if let Value::Object(extra) = fields {
            line.extend(extra);
        }
        let text = if self.inner.pretty.load(Ordering::Relaxed) {
            let mut t = format!(
                "{} {:5} {msg}",
                line["time"].as_str().unwrap_or(""),
                level.as_str().to_uppercase()
            );
            for (k, v) in line.iter().skip(3) {
                match v {
                    Value::String(s) => t.push_str(&format!(" {k}={s:?}")),
                    other => t.push_str(&format!(" {k}={other}")),
                }
            }
            t
        } else {
            Value::Object(line).to_string()
        };
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{text}");
    }

    pub fn info(&self, msg: &str, fields: Value) {
        self.log(Level::Info, msg, fields)
    }
    pub fn warn(&self, msg: &str, fields: Value) {
        self.log(Level::Warn, msg, fields)
    }
    pub fn error(&self, msg: &str, fields: Value) {
        self.log(Level::Error, msg, fields)
    }
    pub fn debug(&self, msg: &str, fields: Value) {
        self.log(Level::Debug, msg, fields)
    }
}

/// UTC time with milliseconds, e.g. `2026-01-02T03:04:05.678Z`.
pub fn now_rfc3339() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_millis()
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates() {
        assert_eq!(super::civil_from_days(0), (1970, 1, 1));
        assert_eq!(super::civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(super::civil_from_days(11_016), (2000, 2, 29));
    }
}
