//! Driving orla on a real pseudo-terminal (expectrl), as a person would.

use std::time::Duration;

use expectrl::{Eof, Session, WaitStatus};

use super::TestContext;

/// Spawns `orla ARGS` on a pseudo-terminal with the test's environment.
pub fn spawn(ctx: &TestContext, args: &[&str]) -> Session {
    spawn_sized(ctx, args, 120, 40)
}

/// As `spawn`, on a terminal `columns` wide and `rows` high.
pub fn spawn_sized(ctx: &TestContext, args: &[&str], columns: u16, rows: u16) -> Session {
    let mut cmd = ctx.terminal_command(args);
    cmd.env("TERM", "xterm");
    let mut session = Session::spawn(cmd).expect("spawn on a pty");
    session
        .get_process_mut()
        .set_window_size(columns, rows)
        .unwrap();
    session.set_expect_timeout(Some(Duration::from_secs(30)));
    session
}

/// A session whose every byte of output is kept, to be replayed on a
/// terminal emulator (`screen`): what a person would see at the end.
pub struct Recorded {
    pub session: Session,
    pub output: Vec<u8>,
}

impl Recorded {
    pub fn expect(&mut self, needle: &str) {
        match self.session.expect(needle) {
            Ok(found) => self.output.extend_from_slice(found.as_bytes()),
            Err(e) => panic!("waiting for {needle:?}: {e}"),
        }
    }

    pub fn send(&mut self, keys: &str) {
        self.session.send(keys).unwrap();
    }

    /// Waits for orla to end with `expected`, then returns the screen's
    /// rows as they are left, on a terminal `columns` wide and `rows` high.
    pub fn screen(mut self, expected: i32, columns: u16, rows: u16) -> Vec<String> {
        let rest = self.session.expect(Eof).unwrap();
        self.output.extend_from_slice(rest.as_bytes());
        match self.session.get_process().wait().unwrap() {
            WaitStatus::Exited(_, code) => assert_eq!(code, expected),
            other => panic!("orla ended with {other:?}"),
        }
        let size = |n: u16| std::num::NonZeroU16::new(n).expect("a terminal has a size");
        let mut parser = vt100::Parser::new(size(rows), size(columns), 0);
        parser.process(&self.output);
        parser.screen().rows(0, columns).collect()
    }
}

pub fn expect(session: &mut Session, needle: &str) {
    if let Err(e) = session.expect(needle) {
        panic!("waiting for {needle:?}: {e}");
    }
}

pub fn send(session: &mut Session, keys: &str) {
    session.send(keys).unwrap();
}

/// Waits for orla to end and checks that it succeeded.
pub fn finish(session: Session) {
    finish_with(session, 0);
}

/// Waits for orla to end and checks its exit code.
pub fn finish_with(mut session: Session, expected: i32) {
    session.expect(Eof).unwrap();
    match session.get_process().wait().unwrap() {
        WaitStatus::Exited(_, code) => assert_eq!(code, expected),
        other => panic!("orla ended with {other:?}"),
    }
}
