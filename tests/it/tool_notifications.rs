//! A simple tool's stderr while a call runs: its lines reach the client as
//! `notifications/message` at the level their prefix names (filtered by
//! `logging/setLevel`), and its `progress:` lines as `notifications/progress`
//! for a call that carries a progress token (docs/runtime.md, "Logging and
//! progress"). Driven with the official Python SDK over stdio and HTTP.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use serde_json::{json, Value};

use crate::common::http_serve::HttpServe;
use crate::common::TestContext;
use crate::serve::{install_local, python, script_tool, stdio_session, text_of};

/// Writes a line of each kind on stderr, then its answer on stdout.
const CHATTY: &str = "#!/bin/sh
echo 'debug: parsed the arguments' >&2
echo 'info: fetching 2 pages' >&2
echo 'progress: 1/2 page 1' >&2
echo 'warning: page 2 is slow' >&2
echo 'progress: 1/2 page 1 again' >&2
echo '<3>page 2 had a bad link' >&2
echo 'progress: 2/2' >&2
echo 'a line with no prefix' >&2
echo done
";

fn install_chatty(t: &TestContext) {
    install_local(t, &script_tool("chatty", CHATTY, "").undeclared());
}

/// The (level, data) of each log message, in order.
fn logs(out: &Value) -> Vec<(String, String)> {
    out["logs"]
        .as_array()
        .unwrap_or_else(|| panic!("no logs: {out}"))
        .iter()
        .map(|l| {
            assert_eq!(l["logger"], "chatty", "{l}");
            (
                l["level"].as_str().unwrap().to_string(),
                l["data"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(l, d)| (l.to_string(), d.to_string()))
        .collect()
}

#[test]
fn stderr_lines_arrive_as_log_messages_at_their_level_filtered_by_set_level() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    install_chatty(&t);
    let everything = pairs(&[
        ("debug", "parsed the arguments"),
        ("info", "fetching 2 pages"),
        ("warning", "page 2 is slow"),
        ("error", "page 2 had a bad link"),
        ("info", "a line with no prefix"),
    ]);
    for (level, expected) in [
        // No logging/setLevel: info and above.
        (Value::Null, everything[1..].to_vec()),
        (json!("debug"), everything.clone()),
        (json!("warning"), everything[2..4].to_vec()),
    ] {
        let out = stdio_session(
            &t,
            &python,
            json!({"log_level": level, "calls": [{"name": "chatty"}]}),
        );
        let call = &out["calls"][0];
        assert_eq!(call["isError"], false, "{call}");
        // stderr went to the client as messages, not into the result.
        assert_eq!(text_of(call), "done\n", "{call}");
        assert_eq!(logs(&out), expected, "log level {level}");
    }
}

#[test]
fn log_messages_reach_an_http_client_and_each_session_has_its_own_level() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    install_chatty(&t);
    let server = HttpServe::start(&t, &[]);
    let out = server.call(
        &t,
        &python,
        json!({"log_level": "error", "calls": [{"name": "chatty"}], "wait_logs": 1}),
    );
    assert_eq!(logs(&out), pairs(&[("error", "page 2 had a bad link")]));
    // A second session did not set a level: it gets info and above.
    let out = server.call(
        &t,
        &python,
        json!({"calls": [{"name": "chatty"}], "wait_logs": 4}),
    );
    let levels: Vec<String> = logs(&out).into_iter().map(|(l, _)| l).collect();
    assert_eq!(levels, ["info", "warning", "error", "info"], "{out}");
}

#[test]
fn progress_lines_arrive_in_order_with_the_clients_token_over_stdio_and_http() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    install_chatty(&t);
    let plan = json!({"calls": [{"name": "chatty", "progress": true}]});
    let expected = json!([[1.0, 2.0, "page 1"], [2.0, 2.0, null]]);
    let out = stdio_session(&t, &python, plan.clone());
    // The repeated 1/2 is dropped: progress must increase.
    assert_eq!(out["calls"][0]["progress"], expected, "{out}");
    // Progress lines are not log messages.
    assert!(
        logs(&out).iter().all(|(_, d)| !d.contains("page 1")),
        "{out}"
    );
    let server = HttpServe::start(&t, &[]);
    let out = server.call(&t, &python, plan);
    assert_eq!(out["calls"][0]["progress"], expected, "{out}");
}

#[test]
fn a_call_without_a_progress_token_gets_no_progress_notifications() {
    let t = TestContext::new();
    install_chatty(&t);
    let call = |id: u32, meta: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "chatty", "arguments": {}, "_meta": meta}})
    };
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        call(2, json!({})),
        call(3, json!({"progressToken": 7})),
    ];
    let input: String = messages.iter().map(|m| format!("{m}\n")).collect();
    // stdin stays open until the calls are answered: at its end the server stops.
    let mut child = t
        .command(&["serve", "--stdio"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // Everything the calls notify comes before the last of their responses.
    let mut answered = 0;
    let mut notes = Vec::new();
    while answered < 2 {
        let message: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        match message["id"].as_u64() {
            Some(1) => {}
            Some(_) => {
                assert_eq!(message["result"]["isError"], false, "{message}");
                answered += 1;
            }
            None => notes.push(message),
        }
    }
    let of = |method: &str| -> Vec<&Value> {
        notes
            .iter()
            .filter(|n| n["method"] == method)
            .map(|n| &n["params"])
            .collect()
    };
    // Only the call with a token got progress, with that token.
    let progress = of("notifications/progress");
    assert_eq!(progress.len(), 2, "{notes:?}");
    assert!(
        progress.iter().all(|p| p["progressToken"] == 7),
        "{notes:?}"
    );
    // Both got their log messages.
    assert_eq!(of("notifications/message").len(), 8, "{notes:?}");
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_failed_call_keeps_its_reason_from_stderr_and_logs_it_too() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    install_local(
        &t,
        &script_tool(
            "broken",
            "#!/bin/sh\necho 'progress: 1/3' >&2\necho 'error: the input file is missing' >&2\necho 'progress: 2/3' >&2\nexit 2\n",
            "",
        )
        .undeclared(),
    );
    let out = stdio_session(&t, &python, json!({"calls": [{"name": "broken"}]}));
    let call = &out["calls"][0];
    assert_eq!(call["isError"], true, "{call}");
    let reason = call["_meta"]["orla/error"]["tool_reason"].as_str().unwrap();
    assert_eq!(
        reason,
        "broken exited with status 2: error: the input file is missing"
    );
    let text = text_of(call);
    assert!(
        text.contains("stderr:\nerror: the input file is missing\n"),
        "{text}"
    );
    assert!(!text.contains("progress:"), "{text}");
    assert_eq!(out["logs"][0]["level"], "error", "{out}");
    assert_eq!(out["logs"][0]["data"], "the input file is missing", "{out}");
}
