//! `orla serve`: the runtime as MCP clients see it. The tests run `orla
//! serve` as a child and talk to it with real MCP clients: the official
//! Python SDK (tests/mcp/client.py, `mcp` from PyPI in the venv that .ci/run
//! makes; MCP_TEST_PYTHON names its python) over stdio and Streamable HTTP,
//! and rmcp's client from Rust.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use common::http_serve::HttpServe;
use common::{PackageBuilder, TestContext};

/// The python that has the `mcp` package. Unset, the test is skipped with
/// a message (a failure under ORLA_TEST_STRICT=1, as in CI).
pub(crate) fn python() -> Option<PathBuf> {
    match std::env::var_os("MCP_TEST_PYTHON") {
        Some(p) if !p.is_empty() => Some(PathBuf::from(p)),
        _ => {
            common::skip_unless_strict(
                "MCP_TEST_PYTHON is not set (a python with the `mcp` package; `bash .ci/run` sets one up)",
            );
            None
        }
    }
}

pub(crate) fn client_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py")
}

const ORLA: &str = env!("CARGO_BIN_EXE_orla");

/// Runs the Python client against `orla serve --stdio` with `plan`.
pub(crate) fn stdio_session(t: &TestContext, python: &Path, plan: Value) -> Value {
    let script = client_script();
    let args = [script.to_str().unwrap(), "stdio", ORLA, "serve", "--stdio"];
    run_client(t.program_command(python, &args), plan)
}

pub(crate) fn run_client(mut cmd: Command, plan: Value) -> Value {
    let out = common::output_with_stdin(&mut cmd, plan.to_string().as_bytes());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "client failed\nstdout: {stdout}\nstderr: {stderr}"
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\nstderr: {stderr}"))
}

fn names(tools: &Value) -> Vec<String> {
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

pub(crate) fn text_of(result: &Value) -> String {
    result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("no content: {result}"))
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn install_starters(t: &TestContext) {
    t.run(&[
        "install",
        "-y",
        "fs-read",
        "fs-list",
        "json-query",
        "http-get",
        "echo-capsule",
    ])
    .success();
}

#[test]
fn the_manifest_says_how_each_starter_tool_is_run() {
    let t = TestContext::new();
    install_starters(&t);
    let manifest = t.manifest();
    assert_eq!(manifest["manifest_version"], 2);
    for tool in manifest["tools"].as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        let command: Vec<&str> = tool["command"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(
            command.last().copied(),
            tool["entrypoint"].as_str(),
            "{name}"
        );
        assert_eq!(tool["working_dir"], tool["path"], "{name}");
        if name == "echo-capsule" {
            assert_eq!(tool["capsule"]["handshake"], "orla.hello");
            assert_eq!(tool["capsule"]["framing"], "json-lines");
        } else {
            assert_eq!(tool["arguments"], "json", "{name}");
            assert!(tool["capsule"].is_null(), "{name}");
        }
    }
}

#[test]
fn python_sdk_over_stdio_lists_and_calls_every_starter_tool() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    install_starters(&t);
    let server = common::server::Server::start();
    server.route(
        "/hello",
        common::server::Behaviour::Serve(b"hello web".to_vec()),
    );
    std::fs::write(t.work.join("notes.txt"), "line one\nline two\n").unwrap();
    let notes = t.work.join("notes.txt");
    let out = stdio_session(
        &t,
        &python,
        json!({"calls": [
            {"name": "fs-read", "arguments": {"path": notes, "offset": 5}},
            {"name": "fs-list", "arguments": {"path": t.work}},
            {"name": "json-query", "arguments": {"input": {"a": [1, {"b": "x"}]}, "path": "a[1].b"}},
            {"name": "http-get", "arguments": {"url": server.url("/hello")}},
            {"name": "echo-capsule", "arguments": {"message": "hi"}},
            {"name": "no-such-tool", "arguments": {}},
        ]}),
    );
    assert_eq!(
        names(&out["tools"]),
        [
            "echo-capsule",
            "fs-list",
            "fs-read",
            "http-get",
            "json-query"
        ]
    );
    let tool = |n: &str| {
        out["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == n)
            .unwrap()
            .clone()
    };
    assert_eq!(tool("fs-read")["annotations"]["readOnlyHint"], true);
    assert_eq!(tool("http-get")["annotations"]["openWorldHint"], true);
    assert_eq!(tool("http-get")["annotations"]["readOnlyHint"], false);
    assert_eq!(tool("fs-read")["inputSchema"]["required"], json!(["path"]));
    // fs-list's output schema is an array: served wrapped in an object.
    assert_eq!(
        tool("fs-list")["outputSchema"]["properties"]["result"]["type"],
        "array"
    );

    let calls = out["calls"].as_array().unwrap();
    for call in &calls[..5] {
        assert_eq!(call["isError"], false, "{call}");
    }
    assert!(text_of(&calls[0]).contains("one\nline two"), "{}", calls[0]);
    assert_eq!(
        calls[1]["structuredContent"]["result"][0]["name"],
        "notes.txt"
    );
    assert_eq!(calls[2]["structuredContent"]["result"], "x");
    assert_eq!(calls[3]["structuredContent"]["status"], 200);
    assert_eq!(calls[3]["structuredContent"]["body"], "hello web");
    assert_eq!(
        calls[4]["structuredContent"]["echo"]["arguments"]["message"],
        "hi"
    );
    let unknown = calls[5]["exception"].as_str().unwrap();
    assert!(unknown.contains("unknown tool 'no-such-tool'"), "{unknown}");
}

/// A tool in the Orla ecosystem's convention, like orla-tool-fs: argparse
/// flags, and an argument named `stdin` piped to stdin.
fn flags_tool() -> PackageBuilder {
    PackageBuilder::new("fs-flags", "1.0.0")
        .permissions(&["filesystem:read"])
        .yaml(
            "mcp:\n  input_schema:\n    type: object\n    properties:\n      path: {type: string}\n      max_bytes: {type: integer}\n      stdin: {type: string}\n",
        )
        .file(
            "bin/fs-flags",
            r#"#!/usr/bin/env python3
import argparse, json, sys
p = argparse.ArgumentParser()
p.add_argument("--mode")
p.add_argument("--path", required=True)
p.add_argument("--max-bytes", type=int)
a = p.parse_args()
print(json.dumps({"argv": sys.argv[1:], "path": a.path, "max_bytes": a.max_bytes, "stdin": sys.stdin.read()}))
"#,
            true,
        )
}

pub(crate) fn install_local(t: &TestContext, pkg: &PackageBuilder) {
    let src = pkg.write(&t.work);
    t.run(&["install", "-y", "--local", src.to_str().unwrap()])
        .success();
}

#[test]
fn a_flags_tool_gets_key_value_flags_after_its_runtime_args() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    install_local(
        &t,
        &flags_tool().yaml("runtime:\n  args: [\"--mode\", \"fast\"]\n"),
    );
    assert_eq!(t.manifest()["tools"][0]["arguments"], "flags");
    let out = stdio_session(
        &t,
        &python,
        json!({"calls": [{"name": "fs-flags", "arguments": {"stdin": "piped text", "max_bytes": 12, "path": "a b.txt"}}]}),
    );
    let call = &out["calls"][0];
    assert_eq!(call["isError"], false, "{call}");
    let got: Value = serde_json::from_str(text_of(call).trim()).unwrap();
    assert_eq!(
        got["argv"],
        json!(["--mode", "fast", "--path", "a b.txt", "--max-bytes", "12"])
    );
    assert_eq!(got["stdin"], "piped text");
    assert_eq!(got["max_bytes"], 12);
}

pub(crate) fn script_tool(name: &str, script: &str, yaml: &str) -> PackageBuilder {
    PackageBuilder::new(name, "1.0.0")
        .yaml(yaml)
        .file(&format!("bin/{name}"), script, true)
}

/// Whether a process is gone (or a zombie about to be reaped by init).
fn is_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

#[test]
fn failures_are_distinct_errors_with_the_taxonomy() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    let pidfile = t.work.join("child.pid");
    install_local(
        &t,
        &script_tool(
            "slow",
            &format!(
                "#!/bin/sh\nsleep 60 &\necho $! > '{}'\nsleep 60\n",
                pidfile.display()
            ),
            "runtime:\n  timeout_ms: 300\n",
        )
        .undeclared(),
    );
    install_local(
        &t,
        &script_tool(
            "fails",
            "#!/bin/sh\necho partial\necho 'bad input' >&2\nexit 3\n",
            "",
        )
        .undeclared(),
    );
    install_local(
        &t,
        &script_tool("flood", "#!/bin/sh\nexec yes orla\n", "").undeclared(),
    );
    install_local(
        &t,
        &script_tool("gone", "#!/nonexistent/interpreter\n", "").undeclared(),
    );
    // A child that leaves the process group keeps stdout open after the tool exits.
    install_local(
        &t,
        &script_tool(
            "escaper",
            &format!(
                "#!/bin/sh\necho kept\nsetsid sh -c 'echo in > \"$0\"; exec sleep 4' '{0}' &\nwhile [ ! -s '{0}' ]; do sleep 0.05; done\n",
                t.work.join("escaped").display()
            ),
            "",
        )
        .undeclared(),
    );
    let out = stdio_session(
        &t,
        &python,
        json!({"calls": [
            {"name": "slow"}, {"name": "fails"}, {"name": "flood"}, {"name": "gone"},
            {"name": "escaper"}
        ]}),
    );
    let calls = out["calls"].as_array().unwrap();
    let error = |i: usize| calls[i]["_meta"]["orla/error"].clone();
    for (i, code, retryable) in [
        (0, "timeout", true),
        (1, "exit_nonzero", false),
        (2, "output_too_large", false),
        (3, "spawn_failed", false),
    ] {
        assert_eq!(calls[i]["isError"], true, "{}", calls[i]);
        assert_eq!(error(i)["tool_code"], code, "{}", calls[i]);
        assert_eq!(error(i)["retryable"], retryable, "{}", calls[i]);
    }
    assert_eq!(calls[1]["_meta"]["orla/exit_code"], 3);
    assert_eq!(calls[4]["isError"], false, "{}", calls[4]);
    assert_eq!(text_of(&calls[4]), "kept\n");
    let failed = text_of(&calls[1]);
    assert!(
        failed.contains("exited with status 3: bad input"),
        "{failed}"
    );
    assert!(failed.contains("partial"), "{failed}");
    // The timeout killed the tool's whole process group, its child too.
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        is_gone(pid),
        "the background child {pid} outlived the timeout"
    );
}

#[test]
fn retry_applies_only_to_retryable_failures() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    let count = t.work.join("count");
    let script = format!("#!/bin/sh\necho x >> '{}'\nsleep 5\n", count.display());
    install_local(
        &t,
        &script_tool(
            "flaky",
            &script,
            "runtime:\n  timeout_ms: 200\n  retry: {max_attempts: 3, backoff: 10ms}\n",
        )
        .undeclared(),
    );
    let count2 = t.work.join("count2");
    install_local(
        &t,
        &script_tool(
            "broken",
            &format!("#!/bin/sh\necho x >> '{}'\nexit 1\n", count2.display()),
            "runtime:\n  retry: {max_attempts: 3, backoff: 10ms}\n",
        )
        .undeclared(),
    );
    let out = stdio_session(
        &t,
        &python,
        json!({"calls": [{"name": "flaky"}, {"name": "broken"}]}),
    );
    assert_eq!(
        out["calls"][0]["_meta"]["orla/error"]["tool_code"],
        "timeout"
    );
    assert_eq!(std::fs::read_to_string(&count).unwrap().lines().count(), 3);
    assert_eq!(
        out["calls"][1]["_meta"]["orla/error"]["tool_code"],
        "exit_nonzero"
    );
    assert_eq!(std::fs::read_to_string(&count2).unwrap().lines().count(), 1);
}

const CRASHY_CAPSULE: &str = r#"#!/usr/bin/env python3
import json, os, sys
print(json.dumps({"jsonrpc": "2.0", "method": "orla.hello", "params": {"name": "crashy", "version": "1.0.0", "capabilities": ["tools"]}}), flush=True)
for line in sys.stdin:
    req = json.loads(line)
    args = req["params"]["arguments"]
    if args.get("crash"):
        os._exit(9)
    print(json.dumps({"jsonrpc": "2.0", "id": req["id"], "result": {"content": [{"type": "text", "text": "pid %d" % os.getpid()}]}}), flush=True)
"#;

#[test]
fn a_capsule_is_restarted_after_a_crash_and_one_without_handshake_is_stopped() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    install_local(
        &t,
        &script_tool(
            "crashy",
            CRASHY_CAPSULE,
            "runtime:\n  mode: capsule\n  startup_timeout_ms: 5000\n",
        ),
    );
    install_local(
        &t,
        &script_tool(
            "mute",
            "#!/bin/sh\nexec sleep 60\n",
            "runtime:\n  mode: capsule\n  startup_timeout_ms: 100\n",
        ),
    );
    install_local(
        &t,
        &script_tool(
            "floody",
            "#!/usr/bin/env python3\nimport sys\nprint('{\"jsonrpc\":\"2.0\",\"method\":\"orla.hello\",\"params\":{}}', flush=True)\nsys.stdin.readline()\nwhile True:\n    sys.stdout.write('x' * 65536)\n",
            "runtime:\n  mode: capsule\n",
        ),
    );
    let out = stdio_session(
        &t,
        &python,
        json!({"calls": [
            {"name": "crashy", "arguments": {}},
            {"name": "crashy", "arguments": {"crash": true}},
            {"name": "crashy", "arguments": {}},
            {"name": "mute", "arguments": {}},
            {"name": "floody", "arguments": {}},
        ]}),
    );
    let calls = out["calls"].as_array().unwrap();
    assert_eq!(calls[0]["isError"], false, "{}", calls[0]);
    assert_eq!(calls[1]["isError"], true);
    assert_eq!(
        calls[1]["_meta"]["orla/error"]["tool_code"],
        "capsule_unavailable"
    );
    assert_eq!(calls[1]["_meta"]["orla/error"]["retryable"], true);
    assert_eq!(calls[2]["isError"], false, "{}", calls[2]);
    assert_ne!(
        text_of(&calls[0]),
        text_of(&calls[2]),
        "a new process answers after the crash"
    );
    assert_eq!(calls[3]["isError"], true);
    assert_eq!(
        calls[3]["_meta"]["orla/error"]["tool_code"],
        "capsule_unavailable"
    );
    // A capsule that floods its stdout is stopped, not buffered.
    assert_eq!(
        calls[4]["_meta"]["orla/error"]["tool_code"],
        "capsule_unavailable"
    );
    assert!(text_of(&calls[4]).contains("longer than"), "{}", calls[4]);
    assert!(
        text_of(&calls[3]).contains("stopped after 5 failures"),
        "{}",
        calls[3]
    );
}

/// MCP through the Python client against the server, with `plan`.
impl HttpServe {
    pub(crate) fn call(&self, t: &TestContext, python: &Path, plan: Value) -> Value {
        let script = client_script();
        run_client(
            t.program_command(python, &[script.to_str().unwrap(), "http", &self.url]),
            plan,
        )
    }
}

#[test]
fn python_sdk_over_http_makes_50_concurrent_calls() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    install_starters(&t);
    let serve = HttpServe::start(&t, &[]);
    assert!(serve.url.starts_with("http://127.0.0.1:"), "{}", serve.url);
    std::fs::write(t.work.join("n.txt"), "concurrent").unwrap();
    let calls: Vec<Value> = (0..50)
        .map(|i| {
            if i % 2 == 0 {
                json!({"name": "fs-read", "arguments": {"path": t.work.join("n.txt")}})
            } else {
                json!({"name": "echo-capsule", "arguments": {"message": format!("m{i}")}})
            }
        })
        .collect();
    let script = client_script();
    let out = run_client(
        t.program_command(&python, &[script.to_str().unwrap(), "http", &serve.url]),
        json!({"calls": calls, "concurrent": true}),
    );
    assert_eq!(names(&out["tools"]).len(), 5);
    for (i, call) in out["calls"].as_array().unwrap().iter().enumerate() {
        assert_eq!(call["isError"], false, "call {i}: {call}");
        if i % 2 == 0 {
            assert_eq!(text_of(call), "concurrent");
        } else {
            assert_eq!(
                call["structuredContent"]["echo"]["arguments"]["message"],
                format!("m{i}")
            );
        }
    }
}

#[test]
fn http_refuses_a_foreign_origin() {
    let t = TestContext::new();
    let serve = HttpServe::start(&t, &[]);
    assert_eq!(serve.post_initialize(""), 200);
    assert_eq!(
        serve.post_initialize("Origin: http://localhost:3000\r\n"),
        200
    );
    assert_eq!(
        serve.post_initialize("Origin: https://evil.example\r\n"),
        403
    );
    let allowed = HttpServe::start(&t, &["--allow-origin", "https://app.example"]);
    assert_eq!(
        allowed.post_initialize("Origin: https://app.example\r\n"),
        200
    );
}

#[test]
fn an_install_while_serving_notifies_the_client_and_adds_the_tool() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    t.run(&["install", "fs-read"]).success();
    let (out, log) = serve_while(&t, &python, &t.work, || {
        t.run(&["install", "fs-list"]).success();
    });
    assert_eq!(names(&out["tools"]), ["fs-read"]);
    assert_eq!(names(&out["tools_after"]), ["fs-list", "fs-read"]);
    assert!(log.contains("\"msg\":\"reloaded\""), "{log}");
}

#[test]
fn a_project_server_sees_a_global_install() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    let project = t.work.join("p");
    std::fs::create_dir_all(&project).unwrap();
    t.run_in(&project, &["init"]).success();
    t.run_in(&project, &["install", "fs-read"]).success();
    let (out, _) = serve_while(&t, &python, &project, || {
        // Outside the project: a global install.
        t.run_in(&t.work, &["install", "json-query"]).success();
    });
    assert_eq!(names(&out["tools"]), ["fs-read"]);
    assert_eq!(names(&out["tools_after"]), ["fs-read", "json-query"]);
}

/// Runs `orla serve --stdio` in `dir` under the Python client, does
/// `action` once the client has listed the tools, and returns the client's
/// output (with `tools_after`, listed on `tools/list_changed`) and stderr.
fn serve_while(
    t: &TestContext,
    python: &Path,
    dir: &Path,
    action: impl FnOnce(),
) -> (Value, String) {
    let script = client_script();
    let mut cmd = t.program_command(
        python,
        &[script.to_str().unwrap(), "stdio", ORLA, "serve", "--stdio"],
    );
    cmd.current_dir(dir);
    client_while(cmd, action)
}

/// Runs the Python client `cmd` waiting for `tools/list_changed`, does
/// `action` once it has listed the tools, and returns its output (with
/// `tools_after`) and stderr.
fn client_while(mut cmd: Command, action: impl FnOnce()) -> (Value, String) {
    let mut child = common::spawn_with_stdin(
        &mut cmd,
        json!({"wait_list_changed": true}).to_string().as_bytes(),
    );
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        if stderr.read_line(&mut line).unwrap() == 0 {
            panic!("the client ended before listing: {seen}");
        }
        seen.push_str(&line);
        if line.trim() == "ready: list" {
            break;
        }
    }
    action();
    let drain = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = stderr.read_to_string(&mut rest);
        rest
    });
    let out = child.wait_with_output().unwrap();
    let rest = drain.join().unwrap();
    assert!(out.status.success(), "{seen}{rest}");
    (serde_json::from_slice(&out.stdout).unwrap(), seen + &rest)
}

#[test]
fn the_rmcp_client_lists_and_calls_over_stdio() {
    let t = TestContext::new();
    t.run(&["install", "fs-read", "echo-capsule"]).success();
    std::fs::write(t.work.join("r.txt"), "from rust").unwrap();
    let path = t.work.join("r.txt");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        use rmcp::model::CallToolRequestParams;
        use rmcp::transport::TokioChildProcess;
        use rmcp::ServiceExt;
        let cmd = tokio::process::Command::from(t.command(&["serve", "--stdio"]));
        let (transport, _) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let client = ().serve(transport).await.unwrap();
        let tools = client.list_all_tools().await.unwrap();
        let mut listed: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
        listed.sort();
        assert_eq!(listed, ["echo-capsule", "fs-read"]);
        let mut args = serde_json::Map::new();
        args.insert("path".into(), json!(path));
        let result = client
            .call_tool(CallToolRequestParams::new("fs-read").with_arguments(args))
            .await
            .unwrap();
        assert_eq!(result.is_error, Some(false));
        let value = serde_json::to_value(&result).unwrap();
        assert_eq!(text_of(&value), "from rust");
        // An unknown tool is a protocol error carrying the taxonomy.
        let error = client
            .call_tool(CallToolRequestParams::new("no-such-tool"))
            .await
            .unwrap_err();
        let rmcp::ServiceError::McpError(error) = error else {
            panic!("not an MCP error: {error:?}");
        };
        assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        let data = error.data.unwrap();
        assert_eq!(data["tool_code"], "unsupported_tool");
        assert_eq!(data["retryable"], false);
        client.cancel().await.unwrap();
    });
}

fn claude_config(t: &TestContext) -> PathBuf {
    t.dir
        .path()
        .join("user/.config/Claude/claude_desktop_config.json")
}

#[test]
fn client_add_claude_desktop_writes_an_entry_that_serves_and_keeps_the_rest() {
    let t = TestContext::new();
    t.run(&["install", "fs-read"]).success();
    let config = claude_config(&t);
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let original = "{\"globalShortcut\": \"Ctrl+Space\",\n \"mcpServers\": {\"other\": {\"command\": \"npx\", \"args\": [\"x\"]}}}\n";
    std::fs::write(&config, original).unwrap();

    let dry = t.run(&["client", "add", "claude-desktop", "--dry-run"]);
    dry.success()
        .stdout_has("would change")
        .stdout_has("+ \"orla\": {");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);

    t.run(&["client", "add", "claude-desktop"])
        .success()
        .stderr_has("Added");
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    assert_eq!(written["globalShortcut"], "Ctrl+Space");
    assert_eq!(written["mcpServers"]["other"]["command"], "npx");
    let entry = &written["mcpServers"]["orla"];
    assert_eq!(entry["command"], ORLA);
    assert_eq!(entry["args"], json!(["serve", "--stdio", "--global"]));
    assert_eq!(entry["env"]["ORLA_HOME"], t.home.display().to_string());
    let keys: Vec<&String> = written["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["other", "orla"], "order kept, orla appended");
    let backup = config.with_file_name("claude_desktop_config.json.orla-backup");
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), original);

    // Adding again changes nothing.
    t.run(&["client", "add", "claude-desktop"])
        .success()
        .stderr_has("Unchanged");

    let listed = t.run(&["client", "list", "--json"]);
    listed.success();
    let claude = listed
        .json()
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["client"] == "claude-desktop")
        .unwrap()
        .clone();
    assert_eq!(
        claude["entries"],
        json!([{"name": "orla", "serves": "global"}])
    );

    // The entry works: an MCP client starting exactly what it says sees the tools.
    if let Some(python) = python() {
        let script = client_script();
        let mut args = vec![script.to_str().unwrap().to_string(), "stdio".into()];
        args.push(entry["command"].as_str().unwrap().into());
        for a in entry["args"].as_array().unwrap() {
            args.push(a.as_str().unwrap().into());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run_client(t.program_command(&python, &args), json!({}));
        assert_eq!(names(&out["tools"]), ["fs-read"]);
    }

    t.run(&["client", "remove", "claude-desktop"])
        .success()
        .stderr_has("Removed");
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    assert!(after["mcpServers"].get("orla").is_none());
    assert_eq!(after["mcpServers"]["other"]["command"], "npx");
    t.run(&["client", "remove", "claude-desktop"])
        .failure(1)
        .stderr_has("has no entry \"orla\"");
}

#[test]
fn serve_project_dir_serves_that_project_from_anywhere() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    let project = t.work.join("p");
    std::fs::create_dir_all(&project).unwrap();
    t.run_in(&project, &["init"]).success();
    t.run_in(&project, &["install", "fs-list"]).success();
    let script = client_script();
    let dir = project.display().to_string();
    let out = run_client(
        t.program_command(
            &python,
            &[
                script.to_str().unwrap(),
                "stdio",
                ORLA,
                "serve",
                "--stdio",
                "--project",
                &dir,
            ],
        ),
        json!({}),
    );
    assert_eq!(names(&out["tools"]), ["fs-list"]);
}

#[test]
fn sighup_reloads_and_a_hot_load_capsule_restarts_on_a_change() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    install_local(
        &t,
        &script_tool(
            "crashy",
            CRASHY_CAPSULE,
            "runtime:\n  mode: capsule\n  hot_load: {watch: [\"./\"], debounce_ms: 50}\n",
        ),
    );
    let serve = HttpServe::start(&t, &[]);
    serve.wait_for_log("\"capsule ready\"", 1);
    let plan = json!({"calls": [{"name": "crashy", "arguments": {}}]});
    let first = text_of(&serve.call(&t, &python, plan.clone())["calls"][0]);

    // A change under a watched path restarts the capsule.
    let package = t.tools_dir().join("crashy/1.0.0");
    std::fs::write(package.join("data.txt"), "changed").unwrap();
    serve.wait_for_log("\"capsule reloading\"", 1);
    serve.wait_for_log("\"capsule ready\"", 2);
    let second = text_of(&serve.call(&t, &python, plan)["calls"][0]);
    assert_ne!(first, second, "another process answers after the reload");

    // SIGHUP reloads the manifest.
    let status = Command::new("kill")
        .args(["-HUP", &serve.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    serve.wait_for_log("\"reason\":\"SIGHUP\"", 1);
}

#[test]
fn the_runtime_reads_what_orla_writes_and_serves_a_discovered_executable() {
    let t = TestContext::new();
    let project = t.work.join("proj");
    std::fs::create_dir_all(&project).unwrap();
    t.run_in(&project, &["init"]).success();
    t.run_in(&project, &["install", "-y", "fs-read", "echo-capsule"])
        .success();
    // An RFC 1 executable dropped into tools_dir: flags, run in the project.
    common::write_file(
        &project.join("tools/where.sh"),
        "#!/bin/sh\necho \"$(pwd) $*\"\n",
        true,
    );
    t.run_in(&project, &["list"]).success();
    let path = project.join(".orla/manifest.json");
    let manifest = orla_runtime::manifest::Manifest::read(&path).unwrap();
    let tool = |n: &str| manifest.tool(n).unwrap().clone();
    assert_eq!(
        tool("fs-read").arguments,
        orla_runtime::manifest::Arguments::Json
    );
    assert!(tool("echo-capsule").capsule.is_some());
    let found = tool("where");
    assert_eq!(found.arguments, orla_runtime::manifest::Arguments::Flags);
    assert_eq!(
        found.command,
        ["/bin/sh", project.join("tools/where.sh").to_str().unwrap()]
    );
    assert_eq!(found.working_dir, project.display().to_string());
    assert_eq!(found.source.kind, "discovered");

    let Some(python) = python() else { return };
    let script = client_script();
    let dir = project.display().to_string();
    let out = run_client(
        t.program_command(
            &python,
            &[
                script.to_str().unwrap(),
                "stdio",
                ORLA,
                "serve",
                "--stdio",
                "--project",
                &dir,
            ],
        ),
        json!({"calls": [{"name": "where", "arguments": {"some_flag": "v"}}]}),
    );
    let tools = out["tools"].as_array().unwrap();
    let served = tools.iter().find(|t| t["name"] == "where").unwrap();
    assert!(served.get("annotations").is_none(), "{served}");
    assert_eq!(
        text_of(&out["calls"][0]).trim(),
        format!("{dir} --some-flag v")
    );
}

#[test]
fn an_http_session_stays_open_across_a_reload_and_is_notified() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    t.run(&["install", "fs-read"]).success();
    let serve = HttpServe::start(&t, &[]);
    let script = client_script();
    let cmd = t.program_command(&python, &[script.to_str().unwrap(), "http", &serve.url]);
    let (out, _) = client_while(cmd, || {
        t.run(&["install", "json-query"]).success();
    });
    assert_eq!(names(&out["tools"]), ["fs-read"]);
    assert_eq!(names(&out["tools_after"]), ["fs-read", "json-query"]);
}

#[test]
fn logs_are_json_lines_unless_pretty_is_asked_for() {
    let t = TestContext::new();
    let json_serve = HttpServe::start(&t, &[]);
    json_serve.wait_for_log("\"msg\":\"listening\"", 1);
    let log = json_serve.log.lock().unwrap().clone();
    for line in log.lines().filter(|l| l.starts_with('{')) {
        let v: Value = serde_json::from_str(line).unwrap();
        assert!(
            v["time"].is_string() && v["level"].is_string() && v["msg"].is_string(),
            "{line}"
        );
    }
    let pretty = HttpServe::start(&t, &["--log-format", "pretty"]);
    pretty.wait_for_log(" INFO  listening url=", 1);
}

/// A manifest orla did not write: `manifest`'s own with a capsule added
/// that, if it were ever started, would leave `marker` behind.
fn planted_manifest(manifest: &Path, marker: &Path) -> Value {
    let mut m: Value = serde_json::from_slice(&std::fs::read(manifest).unwrap()).unwrap();
    let mut tool = m["tools"][0].clone();
    tool["name"] = json!("planted");
    tool["mode"] = json!("capsule");
    tool["args"] = json!([]);
    tool["command"] = json!([
        "/bin/sh",
        "-c",
        format!("touch '{}'; sleep 30", marker.display())
    ]);
    tool["capsule"] =
        json!({"framing": "json-lines", "handshake": "orla.hello", "first_request": "tools/call"});
    m["tools"].as_array_mut().unwrap().push(tool);
    m
}

/// Replaces `path` by rename, as git does.
fn replace(path: &Path, bytes: &[u8]) {
    let tmp = path.with_extension("planted");
    std::fs::write(&tmp, bytes).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// Waits until `path` no longer holds `bytes` (a generous deadline only
/// stops a broken server from hanging the test).
fn wait_until_rewritten(path: &Path, bytes: &[u8]) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::fs::read(path).ok().as_deref() == Some(bytes) {
        assert!(
            std::time::Instant::now() < deadline,
            "{} was never written again",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn a_project_manifest_replaced_while_serving_over_stdio_is_never_served() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    let project = t.work.join("p");
    std::fs::create_dir_all(&project).unwrap();
    t.run_in(&project, &["init"]).success();
    t.run_in(&project, &["install", "fs-read"]).success();
    let manifest = project.join(".orla/manifest.json");
    let marker = t.work.join("planted-capsule-ran");
    let (out, log) = serve_while(&t, &python, &project, || {
        // A `git pull` brings another manifest.
        let planted = planted_manifest(&manifest, &marker).to_string();
        replace(&manifest, planted.as_bytes());
        wait_until_rewritten(&manifest, planted.as_bytes());
        t.run_in(&project, &["install", "fs-list"]).success();
    });
    assert_eq!(names(&out["tools"]), ["fs-read"]);
    assert_eq!(names(&out["tools_after"]), ["fs-list", "fs-read"]);
    assert!(!marker.exists(), "the planted capsule was started");
    assert!(
        log.contains("is not the one orla wrote from the store; writing it again"),
        "{log}"
    );
    let written = std::fs::read_to_string(&manifest).unwrap();
    assert!(!written.contains("planted"), "{written}");
}

#[test]
fn a_manifest_replaced_while_serving_over_http_is_rewritten_or_refused() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    t.run(&["install", "fs-read"]).success();
    let serve = HttpServe::start(&t, &[]);
    let manifest = t.home.join("manifest.json");
    let marker = t.work.join("planted-capsule-ran");
    // One orla's own reader rejects (no `root`, no `installed`) but the
    // runtime's would take: written again from the store.
    let mut planted = planted_manifest(&manifest, &marker);
    planted.as_object_mut().unwrap().remove("installed");
    planted.as_object_mut().unwrap().remove("root");
    let planted = planted.to_string();
    replace(&manifest, planted.as_bytes());
    wait_until_rewritten(&manifest, planted.as_bytes());
    let out = serve.call(&t, &python, json!({}));
    assert_eq!(names(&out["tools"]), ["fs-read"]);
    // One only a newer orla could have written: refused, the tools served
    // stay, and the file is left for that orla.
    let mut newer = planted_manifest(&manifest, &marker);
    newer["manifest_version"] = json!(99);
    replace(&manifest, newer.to_string().as_bytes());
    serve.wait_for_log("manifest refused; keeping the tools already loaded", 1);
    let out = serve.call(&t, &python, json!({}));
    assert_eq!(names(&out["tools"]), ["fs-read"]);
    assert!(!marker.exists(), "a planted capsule was started");
    // The openwop catalog describes what MCP serves, never the file.
    let catalog = serve.get("/v1/tools", "").json();
    assert_eq!(catalog["tools"][0]["toolId"], "mcp:fs-read", "{catalog}");
    assert_eq!(catalog["tools"].as_array().unwrap().len(), 1, "{catalog}");
    assert_eq!(serve.get("/v1/tools/mcp%3Aplanted", "").status, 404);
}

#[test]
fn a_deleted_package_is_not_served_and_serve_says_so() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    t.run(&["install", "fs-read", "fs-list", "json-query"])
        .success();
    let version_dir = |name: &str| {
        std::fs::read_dir(t.home.join("tools").join(name))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path()
    };
    // Before the server starts, and while it runs.
    std::fs::remove_dir_all(version_dir("json-query")).unwrap();
    let fs_list = version_dir("fs-list");
    let (out, log) = serve_while(&t, &python, &t.work, || {
        std::fs::remove_dir_all(&fs_list).unwrap();
    });
    assert_eq!(names(&out["tools"]), ["fs-list", "fs-read"]);
    assert_eq!(names(&out["tools_after"]), ["fs-read"]);
    assert!(
        log.contains("warning: json-query") && log.contains("was deleted outside orla"),
        "{log}"
    );
    assert!(log.contains("\"msg\":\"fs-list "), "{log}");
}

#[test]
fn serve_warns_when_it_serves_no_tools() {
    let t = TestContext::new();
    let out = common::output_with_stdin(&mut t.command(&["serve", "--stdio"]), b"");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: serving no tools: nothing is installed in")
            && stderr.contains("`orla install NAME` adds one"),
        "{stderr}"
    );
}

#[test]
fn a_line_that_is_not_json_on_stdio_gets_a_parse_error_and_a_log_line() {
    let t = TestContext::new();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let input = format!("hello\n{initialize}\n");
    let out = common::output_with_stdin(&mut t.command(&["serve", "--stdio"]), input.as_bytes());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let replies: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(replies.len(), 2, "{stdout}");
    assert_eq!(replies[0]["id"], Value::Null);
    assert_eq!(replies[0]["error"]["code"], -32700);
    assert_eq!(replies[1]["id"], 1);
    assert_eq!(replies[1]["result"]["serverInfo"]["name"], "orla");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("\"msg\":\"invalid input on stdin; answered with an error\",\"code\":-32700"),
        "{stderr}"
    );
}

/// The peak resident memory of a process, in bytes (VmHWM in /proc).
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no VmHWM in {status}"));
    kb * 1024
}

/// One raw HTTP/1.1 POST to the server's /mcp with `headers`; the status
/// line's code, the response headers and body (read to the end: the
/// request says `Connection: close`).
fn raw_post(addr: &str, headers: &str, body: &str) -> (u16, String) {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let response = String::from_utf8_lossy(&response).into_owned();
    let code = response
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status in {response:.200}"));
    (code, response)
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}"#;

/// Floods with bounded counts: thousands of sessions opened and never
/// closed, 100 concurrent calls of a tool writing 8 MB, a request whose
/// headers never end. The server refuses what is over its bounds, closes
/// the stalled connection, and its peak memory stays under 100 MB.
#[test]
fn http_floods_stay_within_bounds() {
    let t = TestContext::new();
    install_local(
        &t,
        &script_tool(
            "big",
            "#!/bin/sh\nhead -c 8000000 /dev/zero | tr '\\0' a\n",
            "",
        ),
    );
    let serve = HttpServe::start(&t, &["--max-sessions", "64"]);
    let pid = serve.child.id();
    let addr = serve.addr();

    // A request whose headers never end is closed by the server.
    let mut stalled = std::net::TcpStream::connect(&addr).unwrap();
    write!(stalled, "POST /mcp HTTP/1.1\r\nHost: {addr}\r\n").unwrap();

    // 2,000 sessions opened from 8 threads and never closed.
    let codes: Vec<u16> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..8)
            .map(|_| {
                s.spawn(|| {
                    (0..250)
                        .map(|_| raw_post(&addr, "", INITIALIZE).0)
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    let opened = codes.iter().filter(|&&c| c == 200).count();
    let refused = codes.iter().filter(|&&c| c == 503).count();
    assert_eq!(opened + refused, codes.len(), "{codes:?}");
    assert!(
        opened <= 64 && refused >= 2000 - 64,
        "{opened} opened, {refused} refused"
    );

    let peak = peak_rss(pid);
    eprintln!(
        "peak RSS through 2,000 sessions: {} MB",
        peak / (1024 * 1024)
    );
    assert!(
        peak < 100 * 1024 * 1024,
        "sessions: peak RSS {} MB",
        peak / (1024 * 1024)
    );

    // The stalled request was closed (a generous deadline only stops a
    // broken server from hanging the test).
    stalled
        .set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    let mut rest = Vec::new();
    let read = stalled.read_to_end(&mut rest);
    assert!(
        read.is_ok(),
        "the stalled connection was not closed: {read:?}"
    );
    drop(serve);

    // 100 concurrent calls of a tool writing 8 MB (each stopped at the
    // output cap) in one session.
    let serve = HttpServe::start(&t, &[]);
    let pid = serve.child.id();
    let addr = serve.addr();
    let (code, response) = raw_post(&addr, "", INITIALIZE);
    assert_eq!(code, 200, "{response}");
    let id = response
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("mcp-session-id")
                .then(|| v.trim().to_string())
        })
        .unwrap_or_else(|| panic!("no session id in {response}"));
    let headers = format!("Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-06-18\r\n");
    let (code, _) = raw_post(
        &addr,
        &headers,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(code, 202);
    let answers: Vec<(u16, usize, bool)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..100)
            .map(|i| {
                let (addr, headers) = (&addr, &headers);
                s.spawn(move || {
                    let body = json!({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
                                      "params": {"name": "big", "arguments": {}}});
                    let (code, response) = raw_post(addr, headers, &body.to_string());
                    let cut = response.contains("output_too_large")
                        && response.contains("earlier bytes left out");
                    (code, response.len(), cut)
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    // Each is stopped at the cap, its answer keeping the end of the output.
    for (code, len, cut) in &answers {
        assert_eq!(*code, 200);
        assert!(*cut && *len < 128 * 1024, "an answer of {len} bytes");
    }
    let peak = peak_rss(pid);
    eprintln!(
        "peak RSS through 100 calls of 8 MB: {} MB",
        peak / (1024 * 1024)
    );
    assert!(
        peak < 100 * 1024 * 1024,
        "calls: peak RSS {} MB",
        peak / (1024 * 1024)
    );

    // Closing the session: 200, as the SDKs expect.
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    write!(
        stream,
        "DELETE /mcp HTTP/1.1\r\nHost: {addr}\r\n{headers}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut r = String::new();
    let _ = stream.read_to_string(&mut r);
    assert!(r.starts_with("HTTP/1.1 200"), "{r}");
}

#[test]
fn a_bearer_token_is_required_when_given_and_off_loopback() {
    let t = TestContext::new();
    let token = "0123456789abcdef0123456789abcdef";
    std::fs::write(t.work.join("token"), format!("{token}\n")).unwrap();
    let serve = HttpServe::start(&t, &["--token-file", "token"]);
    assert_eq!(serve.post_initialize(""), 401);
    assert_eq!(
        serve.post_initialize("Authorization: Bearer 0123456789abcdef0123456789abcdeX\r\n"),
        401
    );
    assert_eq!(
        serve.post_initialize(&format!("Authorization: Bearer {token}\r\n")),
        200
    );
    drop(serve);

    // Off loopback, a token is required.
    let out = t
        .command(&["serve", "--host", "0.0.0.0", "--port", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error: serving on 0.0.0.0 exposes every tool to the network, which needs a bearer token")
            && stderr.contains("hint: pass --token-file FILE or --generate-token, or set ORLA_SERVE_TOKEN"),
        "{stderr}"
    );

    // --generate-token prints the one it made up, once, on stdout.
    let mut child = t
        .command(&["serve", "--port", "0", "--generate-token"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let generated = line.trim();
    assert_eq!(generated.len(), 64, "{line}");
    assert!(generated.chars().all(|c| c.is_ascii_hexdigit()), "{line}");
}

#[test]
fn logging_set_level_is_accepted() {
    let t = TestContext::new();
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "warning"}}),
    ];
    let input: String = messages.iter().map(|m| format!("{m}\n")).collect();
    let mut cmd = t.command(&["serve", "--stdio"]);
    let mut child = common::spawn_with_stdin(&mut cmd, input.as_bytes());
    let mut replies = BufReader::new(child.stdout.take().unwrap()).lines();
    let init: Value = serde_json::from_str(&replies.next().unwrap().unwrap()).unwrap();
    assert!(
        init["result"]["capabilities"]["logging"].is_object(),
        "{init}"
    );
    let set: Value = serde_json::from_str(&replies.next().unwrap().unwrap()).unwrap();
    assert_eq!(set["id"], 2);
    assert_eq!(set["result"], json!({}), "{set}");
    let _ = child.kill();
    let _ = child.wait();
}
