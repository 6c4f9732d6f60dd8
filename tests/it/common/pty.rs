//! Driving orla on a real pseudo-terminal (expectrl), as a person would.

use std::time::Duration;

use expectrl::{Eof, Session, WaitStatus};

use super::TestContext;

/// Spawns `orla ARGS` on a pseudo-terminal with the test's environment.
pub fn spawn(ctx: &TestContext, args: &[&str]) -> Session {
    let mut cmd = ctx.terminal_command(args);
    cmd.env("TERM", "xterm");
    let mut session = Session::spawn(cmd).expect("spawn on a pty");
    session.get_process_mut().set_window_size(120, 40).unwrap();
    session.set_expect_timeout(Some(Duration::from_secs(30)));
    session
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
