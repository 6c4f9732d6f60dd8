//! What every network operation shares, HTTP (reqwest) and git (libgit2)
//! alike: a server that accepts the connection and never answers (a
//! captive portal, a stalled proxy) must neither hang orla nor keep it
//! silent.
//!
//! - Each operation is bounded: connecting and every read by the
//!   inactivity timeout (`ORLA_HTTP_TIMEOUT`, default 30 s), the whole
//!   operation by the deadline (`ORLA_HTTP_DEADLINE`). For git, libgit2's
//!   server timeouts bound connecting and each read, and the transfer's
//!   progress callback stops a fetch past the deadline.
//! - A timeout is final, not retried: a server that let the timeout pass
//!   once will not answer a second request, and four tries cost four
//!   timeouts (two minutes of silence).
//! - An operation that has had no answer after [`NOTICE_AFTER`] says what
//!   it waits for and when it gives up, once per server and process
//!   ([`watched`]); an answer that takes a while (a large download with
//!   its progress bar) says nothing.
//! - Ctrl-C ends orla at any point of a network wait: nothing here catches
//!   SIGINT.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex, OnceLock};
use std::time::Duration;

use crate::progress::{Event, Reporter};

/// How long an operation waits for its first answer before it says so.
pub const NOTICE_AFTER: Duration = Duration::from_secs(2);

/// Set by the operation once the server has answered (headers, or git's
/// first bytes): from then on, a slow transfer shows its progress and
/// needs no notice.
#[derive(Default)]
pub struct Answered(AtomicBool);

impl Answered {
    pub fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    fn get(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Runs `op`, a network operation on `what` (`registry orla (URL)`, a URL).
/// If it has neither finished nor been answered after [`NOTICE_AFTER`],
/// reports [`Event::NetworkWait`] with `timeout`, once per `what` in the
/// process (parallel requests to one registry give one line).
pub fn watched<T>(
    reporter: &dyn Reporter,
    what: &str,
    timeout: Duration,
    op: impl FnOnce(&Answered) -> T,
) -> T {
    let answered = Answered::default();
    let (done, finished) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        let answered = &answered;
        scope.spawn(move || {
            if finished.recv_timeout(NOTICE_AFTER) == Err(mpsc::RecvTimeoutError::Timeout)
                && !answered.get()
                && first_notice(what)
            {
                reporter.report(Event::NetworkWait {
                    what: what.to_string(),
                    timeout_secs: timeout.as_secs(),
                });
            }
        });
        let out = op(answered);
        drop(done);
        out
    })
}

/// True the first time `what` is waited for in this process.
fn first_notice(what: &str) -> bool {
    static NOTIFIED: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    NOTIFIED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(what.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;

    /// Collects the events it is given.
    #[derive(Default)]
    struct Seen(Mutex<Vec<Event>>);

    impl Reporter for Seen {
        fn report(&self, event: Event) {
            self.0.lock().unwrap().push(event);
        }
        fn download_start(&self, _: &str, _: Option<u64>) -> usize {
            0
        }
        fn download_progress(&self, _: usize, _: u64) {}
        fn download_finish(&self, _: usize) {}
    }

    #[test]
    fn a_wait_without_an_answer_is_said_once_per_server() {
        let seen = Seen::default();
        let timeout = Duration::from_secs(7);
        for _ in 0..2 {
            watched(&seen, "registry stalled (http://x/)", timeout, |_| {
                std::thread::sleep(NOTICE_AFTER + Duration::from_millis(300))
            });
        }
        assert_eq!(
            *seen.0.lock().unwrap(),
            vec![Event::NetworkWait {
                what: "registry stalled (http://x/)".into(),
                timeout_secs: 7
            }]
        );
    }

    #[test]
    fn an_answered_or_finished_operation_says_nothing() {
        let seen = Seen::default();
        watched(&seen, "answered", Duration::from_secs(1), |answered| {
            answered.set();
            std::thread::sleep(NOTICE_AFTER + Duration::from_millis(300))
        });
        assert_eq!(watched(&seen, "quick", Duration::from_secs(1), |_| 5), 5);
        assert!(seen.0.lock().unwrap().is_empty());
        watched(&Silent, "silent", Duration::from_secs(1), |_| ());
    }
}
