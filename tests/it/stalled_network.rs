//! A server that accepts connections and never answers (a captive portal,
//! a stalled proxy): every command that asks a git or sparse registry
//! through it says what it waits for after a moment, gives up after the
//! inactivity timeout (`ORLA_HTTP_TIMEOUT`) with a hint, never retries the
//! silent server, and stops at once on Ctrl-C.

use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use crate::common::{to_run, Run, TestContext, Watched};

/// A loopback port that accepts every connection and never sends a byte:
/// its address, and how many connections it accepted. The connections are
/// held open for the life of the test process.
fn black_hole() -> (String, Arc<Mutex<Vec<TcpStream>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let held = Arc::new(Mutex::new(Vec::new()));
    let keep = held.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            keep.lock().unwrap().push(stream);
        }
    });
    (addr, held)
}

/// Runs each command line at once, each an orla of its own with its own
/// home and cache (one cache would make them wait for each other's lock),
/// with `env` set: their results, in order.
fn run_all(env: &[(&str, &str)], commands: &[&[&str]]) -> Vec<Run> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = commands
            .iter()
            .map(|args| {
                scope.spawn(move || {
                    let t = TestContext::new();
                    let mut cmd = t.command(args);
                    cmd.envs(env.iter().copied());
                    to_run(cmd.output().unwrap())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// What every command says of a registry that never answered.
fn gave_up_saying_why(run: &Run, waited_for: &str) {
    run.failure(1)
        .stderr_has(&format!(
            "Waiting for {waited_for} to answer; orla gives up after 3 s"
        ))
        .stderr_has("did not answer within 3 s")
        .stderr_has("hint: the server sent nothing for 3 s: a captive portal or a stalled proxy");
    assert_eq!(
        run.stderr
            .matches(&format!("Waiting for {waited_for}"))
            .count(),
        1,
        "one line per server:\n{}",
        run.stderr
    );
}

#[test]
fn a_git_registry_that_never_answers_fails_after_the_timeout_for_every_command() {
    let (addr, _held) = black_hole();
    let url = format!("http://{addr}/orla-registry.git");
    let env = [
        ("ORLA_PUBLIC_REGISTRY", url.as_str()),
        ("ORLA_HTTP_TIMEOUT", "3"),
    ];
    let runs = run_all(
        &env,
        &[
            &["install", "nosuchtool"],
            &["info", "nosuchtool"],
            &["run", "nosuchtool"],
            &["search", "--registry", "orla", "file"],
        ],
    );
    for run in &runs {
        gave_up_saying_why(run, &format!("registry orla ({url})"));
    }
}

#[test]
fn a_sparse_registry_that_never_answers_fails_after_one_timeout_for_every_command() {
    let (addr, held) = black_hole();
    let location = format!("sparse+http://{addr}/");
    let env = [("ORLA_HTTP_TIMEOUT", "3"), ("ORLA_PUBLIC_REGISTRY", "off")];
    let commands: [&[&str]; 4] = [
        &["install", "--registry", &location, "foo"],
        &["info", "--registry", &location, "foo"],
        &["run", "--registry", &location, "foo"],
        &["search", "--registry", &location, "foo"],
    ];
    let runs = run_all(&env, &commands);
    for run in &runs {
        gave_up_saying_why(run, &format!("registry {location}"));
        assert!(!run.stderr.contains("attempts"), "{}", run.stderr);
    }
    // A silent server is not asked again: each command sent config.json
    // and at most the tool's file (fetched with it), never a retry of
    // either (four attempts each before).
    let connections = held.lock().unwrap().len();
    assert!(
        connections <= 2 * commands.len(),
        "{connections} connections"
    );
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_a_command_waiting_for_a_registry() {
    let t = TestContext::new();
    let (addr, _held) = black_hole();
    let url = format!("http://{addr}/orla-registry.git");
    let mut cmd = t.command(&["install", "nosuchtool"]);
    cmd.env("ORLA_PUBLIC_REGISTRY", &url);
    let watched = Watched::spawn(&mut cmd);
    watched.wait_for("Waiting for registry orla");
    // SAFETY: a signal to the child this test spawned.
    unsafe {
        libc::kill(watched.pid() as i32, libc::SIGINT);
    }
    let run = watched.finish();
    // Ended by the signal (no exit code), not by the 30 s timeout (exit 1).
    assert!(run.code == -1 || run.code == 130, "{}", run.stderr);
}
