//! Run-time trust: what orla shows at install time is what a call gets.
//! Arguments checked against the input schema before anything runs, only
//! declared arguments passed as options, answers checked against the
//! output schema; each seen through the official Python SDK client, which
//! must get a tool error (`isError`), never a failed request. `orla run`
//! keeps the same promises from the terminal: the clean environment, the
//! confinement, and only declared, valid arguments.

use std::path::Path;

use serde_json::{json, Value};

use crate::common::{self, IndexBuilder, PackageBuilder, TestContext};
use crate::serve::{install_local, python, script_tool, stdio_session, text_of};

fn tool_code(result: &Value) -> &str {
    result["_meta"]["orla/error"]["tool_code"]
        .as_str()
        .unwrap_or_else(|| panic!("no tool_code: {result}"))
}

#[test]
fn arguments_that_break_the_input_schema_are_a_tool_error_and_nothing_runs() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    let ran = t.work.join("ran");
    install_local(
        &t,
        &script_tool(
            "get-item",
            &format!("#!/bin/sh\nread -r line\necho \"$line\" >> '{}'\necho ok\n", ran.display()),
            "runtime:\n  arguments: json\nmcp:\n  input_schema:\n    type: object\n    properties:\n      id: {type: integer, minimum: 1}\n      tags: {type: array, items: {type: string}}\n    required: [id]\n",
        )
        .permissions(&["filesystem:write"]),
    );
    let out = stdio_session(
        &t,
        &python,
        json!({"calls": [
            {"name": "get-item", "arguments": {"id": "not-an-integer"}},
            {"name": "get-item", "arguments": {}},
            {"name": "get-item", "arguments": {"id": 0}},
            {"name": "get-item", "arguments": {"id": 2, "tags": ["a", 3]}},
            {"name": "get-item", "arguments": {"id": 7}}
        ]}),
    );
    let calls = out["calls"].as_array().unwrap();
    for (i, needle) in [
        (0, "argument 'id' breaks rule 'type'"),
        (1, "rule 'required'"),
        (2, "argument 'id' breaks rule 'minimum'"),
        (3, "argument 'tags/1' breaks rule 'type'"),
    ] {
        let call = &calls[i];
        assert!(call.get("exception").is_none(), "{call}");
        assert_eq!(call["isError"], true, "{call}");
        assert_eq!(tool_code(call), "invalid_arguments", "{call}");
        assert_eq!(call["_meta"]["orla/error"]["retryable"], false);
        assert!(text_of(call).contains(needle), "{i}: {}", text_of(call));
        assert!(call["_meta"]["orla/violations"][0]["rule"].is_string());
    }
    assert_eq!(calls[4]["isError"], false, "{}", calls[4]);
    // Only the valid call ran the tool.
    assert_eq!(std::fs::read_to_string(&ran).unwrap(), "{\"id\":7}\n");
}

/// An argparse tool like the one the issue describes: annotated read-only,
/// it declares `path` and `all`, and hides a `--write-to` option.
const HIDDEN_OPTION: &str = r#"#!/usr/bin/env python3
import argparse, json, sys
p = argparse.ArgumentParser()
p.add_argument("--path", required=True)
p.add_argument("--all", action="store_true")
p.add_argument("--write-to")
a = p.parse_args()
if a.write_to:
    open(a.write_to, "w").write("written")
print(json.dumps({"argv": sys.argv[1:], "all": a.all}))
"#;

#[test]
fn under_flags_only_declared_arguments_become_options() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    install_local(
        &t,
        &PackageBuilder::new("lister", "1.0.0")
            .permissions(&["filesystem:read"])
            .yaml("mcp:\n  input_schema:\n    type: object\n    properties:\n      path: {type: string}\n      all: {type: boolean}\n")
            .file("bin/lister", HIDDEN_OPTION, true),
    );
    let target = t.work.join("written");
    let target = target.to_str().unwrap();
    let out = stdio_session(
        &t,
        &python,
        json!({"calls": [
            // The schema allows additional properties: they pass its check,
            // and still never become options.
            {"name": "lister", "arguments": {"path": "p", "write_to": target}},
            {"name": "lister", "arguments": {"path": "p", "write": target}},
            {"name": "lister", "arguments": {"path": "p", "": target, "path=x": target, "all": true}},
            {"name": "lister", "arguments": {"path": "-x", "all": false}}
        ]}),
    );
    let calls = out["calls"].as_array().unwrap();
    for (i, argv) in [
        (0, json!(["--path", "p"])),
        (1, json!(["--path", "p"])),
        (2, json!(["--path", "p", "--all"])),
    ] {
        assert_eq!(calls[i]["isError"], false, "{}", calls[i]);
        let got: Value = serde_json::from_str(text_of(&calls[i]).trim()).unwrap();
        assert_eq!(got["argv"], argv, "{i}");
    }
    // A value that looks like an option stays the value of its option:
    // argparse refuses it instead of reading it as one.
    assert_eq!(tool_code(&calls[3]), "exit_nonzero", "{}", calls[3]);
    assert!(!Path::new(target).exists(), "the hidden option was reached");
}

#[test]
fn scaffolded_flags_tools_read_every_kind_of_value_the_runtime_passes() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    let mut calls = Vec::new();
    let mut names = Vec::new();
    for language in ["bash", "python", "node"] {
        let name = format!("flags-{language}");
        t.run(&[
            "tool",
            "scaffold",
            &name,
            "--yes",
            "--language",
            language,
            "--arguments",
            "flags",
            "--param",
            "file_path:string",
            "--param",
            "count:integer?",
            "--param",
            "verbose:boolean?",
            "--param",
            "dry_run:boolean?",
            "--param",
            "tags:array?",
        ])
        .success();
        let dir = t.work.join(&name);
        t.run(&["install", "-y", "--local", dir.to_str().unwrap()])
            .success();
        calls.push(json!({"name": name, "arguments": {
            "file_path": "a \"b\"\nc", "count": 2, "verbose": true, "dry_run": false, "tags": ["x", "y"]
        }}));
        names.push(language);
    }
    let out = stdio_session(&t, &python, json!({ "calls": calls }));
    for (language, call) in names.iter().zip(out["calls"].as_array().unwrap()) {
        assert_eq!(call["isError"], false, "{language}: {call}");
        let answer: Value = serde_json::from_str(text_of(call).lines().next().unwrap())
            .unwrap_or_else(|e| panic!("{language}: {e}: {call}"));
        let args = &answer["arguments"];
        assert_eq!(args["file_path"], "a \"b\"\nc", "{language}");
        assert_eq!(args["verbose"], true, "{language}: {args}");
        assert!(args.get("dry_run").is_none(), "{language}: {args}");
        if *language == "bash" {
            // The bash template passes values on as text.
            assert_eq!(args["count"], "2", "{language}");
            assert_eq!(args["tags"], "[\"x\",\"y\"]", "{language}");
        } else {
            assert_eq!(args["count"], 2, "{language}");
            assert_eq!(args["tags"], json!(["x", "y"]), "{language}");
        }
    }
}

#[test]
fn an_answer_that_breaks_the_output_schema_is_a_tool_error_with_the_text_kept() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    let schema = "runtime:\n  arguments: json\nmcp:\n  output_schema:\n    type: object\n    properties:\n      n: {type: integer}\n    required: [n]\n";
    install_local(
        &t,
        &script_tool("prose", "#!/bin/sh\necho 'forty-two'\n", schema),
    );
    install_local(
        &t,
        &script_tool("wrong", "#!/bin/sh\necho '{\"n\": \"x\"}'\n", schema),
    );
    install_local(
        &t,
        &script_tool("right", "#!/bin/sh\necho '{\"n\": 42}'\n", schema),
    );
    install_local(
        &t,
        &script_tool(
            "listing",
            "#!/bin/sh\necho '[\"a\", 1]'\n",
            "runtime:\n  arguments: json\nmcp:\n  output_schema:\n    type: array\n    items: {type: string}\n",
        ),
    );
    let out = stdio_session(
        &t,
        &python,
        json!({"calls": [{"name": "prose"}, {"name": "wrong"}, {"name": "right"}, {"name": "listing"}]}),
    );
    let calls = out["calls"].as_array().unwrap();
    for (i, raw, needle) in [
        (0, "forty-two", "is not JSON"),
        (1, "{\"n\": \"x\"}", "value 'n' breaks rule 'type'"),
        (3, "[\"a\", 1]", "value '1' breaks rule 'type'"),
    ] {
        let call = &calls[i];
        assert!(call.get("exception").is_none(), "the SDK threw: {call}");
        assert_eq!(call["isError"], true, "{call}");
        assert_eq!(tool_code(call), "invalid_output", "{call}");
        assert!(call.get("structuredContent").is_none(), "{call}");
        let text = text_of(call);
        assert!(text.contains(raw) && text.contains(needle), "{text}");
    }
    assert_eq!(calls[2]["isError"], false, "{}", calls[2]);
    assert_eq!(calls[2]["structuredContent"], json!({"n": 42}));
}

/// One real system call per action, its outcome as JSON: what a tool can
/// and cannot do under its permissions.
const PROBE: &str = r#"#!/usr/bin/env python3
import json, os, socket, subprocess, sys
a = json.load(sys.stdin)
act, arg = a["action"], a.get("arg", "")
out = {"ok": True}
try:
    if act == "read":
        open(arg).read()
    elif act == "list":
        os.listdir(arg)
    elif act == "write":
        open(arg, "w").write("x")
    elif act == "tcp":
        s = socket.create_connection(("127.0.0.1", int(arg)), timeout=5)
        s.close()
    elif act == "udp":
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", int(arg)))
    elif act == "unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(arg)
    elif act == "exec":
        subprocess.run([arg], check=True)
    elif act == "fork":
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    elif act == "alloc":
        b = bytearray(int(arg) * 1024 * 1024)
    elif act == "env":
        out["env"] = dict(os.environ)
    elif act == "tmp":
        p = os.path.join(os.environ["TMPDIR"], "scratch")
        open(p, "w").write("x")
        out["tmpdir"] = os.environ["TMPDIR"]
except Exception as e:
    out = {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}
print(json.dumps(out))
"#;

fn probe(name: &str, permissions: Option<&[&str]>) -> PackageBuilder {
    let pkg = PackageBuilder::new(name, "1.0.0")
        .yaml("runtime:\n  arguments: json\n")
        .file(&format!("bin/{name}"), PROBE, true);
    match permissions {
        Some(p) => pkg.permissions(p),
        None => pkg.undeclared(),
    }
}

/// Installs a probe without `permissions` (undeclared: unconfined).
fn install_undeclared(t: &TestContext, name: &str) {
    install_local(t, &probe(name, None));
}

/// What each call of `plan` gave: `ok`, or the error the tool saw.
fn outcomes(t: &TestContext, python: &Path, calls: &[(&str, &str, String)]) -> Vec<Value> {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(tool, action, arg)| json!({"name": tool, "arguments": {"action": action, "arg": arg}}))
        .collect();
    let out = stdio_session(t, python, json!({ "calls": calls }));
    out["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            assert_eq!(c["isError"], false, "{c}");
            serde_json::from_str(text_of(c).lines().next().unwrap()).unwrap()
        })
        .collect()
}

#[test]
fn each_permission_allows_what_it_names_and_nothing_else() {
    let Some(python) = python() else { return };
    if !common::landlock() {
        return;
    }
    let t = TestContext::new();
    for (name, perms) in [
        ("p-none", &[][..]),
        ("p-read", &["filesystem:read"][..]),
        ("p-write", &["filesystem:write"][..]),
        ("p-net", &["network"][..]),
    ] {
        install_local(&t, &probe(name, Some(perms)));
    }
    install_undeclared(&t, "p-any");
    // The workspace: the directory the server runs in (global root).
    let secret = t.work.join("secret.txt");
    std::fs::write(&secret, "s").unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let udp_port = udp.local_addr().unwrap().port().to_string();
    let sock = t.work.join("daemon.sock");
    let _unix = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let s = |p: &Path| p.display().to_string();
    let own = t.home.join("tools/p-none/1.0.0/tool.yaml");
    let outside = t.dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let cases: Vec<(&str, &str, String, bool)> = vec![
        // permissions: []: its own package, no workspace, no network, no exec.
        ("p-none", "read", s(&own), true),
        ("p-none", "read", s(&secret), false),
        ("p-none", "list", s(&t.work), false),
        ("p-none", "read", "/etc/shadow".into(), false),
        ("p-none", "read", s(&t.home.join("receipt.key")), false),
        ("p-none", "write", s(&t.work.join("w-none")), false),
        ("p-none", "tmp", String::new(), true),
        ("p-none", "tcp", port.clone(), false),
        ("p-none", "udp", udp_port.clone(), false),
        ("p-none", "unix", s(&sock), false),
        ("p-none", "exec", "/bin/true".into(), false),
        // filesystem:read: the workspace readable, not writable.
        ("p-read", "read", s(&secret), true),
        ("p-read", "list", s(&t.work), true),
        ("p-read", "write", s(&t.work.join("w-read")), false),
        ("p-read", "read", s(&outside), false),
        ("p-read", "tcp", port.clone(), false),
        // filesystem:write: the workspace writable, nothing outside it.
        ("p-write", "write", s(&t.work.join("w-write")), true),
        ("p-write", "write", s(&outside.join("w")), false),
        ("p-write", "tcp", port.clone(), false),
        // network: sockets, loopback included; still no workspace.
        ("p-net", "tcp", port.clone(), true),
        ("p-net", "udp", udp_port.clone(), true),
        ("p-net", "read", s(&secret), false),
        // Undeclared permissions: unconfined, as before.
        ("p-any", "write", s(&t.work.join("w-any")), true),
        ("p-any", "tcp", port.clone(), true),
        ("p-any", "exec", "/bin/true".into(), true),
    ];
    let calls: Vec<(&str, &str, String)> = cases
        .iter()
        .map(|(tool, action, arg, _)| (*tool, *action, arg.clone()))
        .collect();
    let got = outcomes(&t, &python, &calls);
    for ((tool, action, arg, allowed), result) in cases.iter().zip(&got) {
        assert_eq!(result["ok"], *allowed, "{tool} {action} {arg}: {result}");
        if !allowed {
            let error = result["error"].as_str().unwrap();
            assert!(
                error.contains("Permission denied") || error.contains("Errno 13"),
                "{tool} {action}: {error}"
            );
        }
    }
    for (name, allowed) in [
        ("w-none", false),
        ("w-read", false),
        ("w-write", true),
        ("w-any", true),
    ] {
        assert_eq!(t.work.join(name).exists(), allowed, "{name}");
    }
    drop(listener);
}

#[test]
fn sandboxed_tools_are_limited_and_cannot_start_processes() {
    let Some(python) = python() else { return };
    if !common::landlock() {
        return;
    }
    let t = TestContext::new();
    // filesystem:write is high risk: sandboxed by default (Orloj).
    install_local(&t, &probe("p-high", Some(&["filesystem:write"])));
    // Low risk, made sandboxed by tool.yaml.
    install_local(
        &t,
        &probe("p-boxed", Some(&[])).yaml("  isolation_mode: sandboxed\n"),
    );
    install_local(&t, &probe("p-low", Some(&[])));
    let got = outcomes(
        &t,
        &python,
        &[
            ("p-high", "fork", String::new()),
            ("p-high", "alloc", "1024".into()),
            ("p-high", "alloc", "64".into()),
            ("p-boxed", "fork", String::new()),
            ("p-low", "fork", String::new()),
            ("p-low", "alloc", "1024".into()),
        ],
    );
    let ok: Vec<bool> = got.iter().map(|r| r["ok"].as_bool().unwrap()).collect();
    assert_eq!(ok, [false, false, true, false, true, true], "{got:?}");
    assert!(
        got[1]["error"].as_str().unwrap().contains("MemoryError"),
        "{}",
        got[1]
    );
    let manifest = t.manifest();
    let mode = |name: &str| {
        manifest["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap()["isolation_mode"]
            .clone()
    };
    assert_eq!(mode("p-high"), "sandboxed");
    assert_eq!(mode("p-boxed"), "sandboxed");
    assert_eq!(mode("p-low"), "none");
}

#[test]
fn the_environment_is_clean_and_passes_only_what_is_named() {
    let Some(python) = python() else { return };
    let t = TestContext::new();
    install_local(
        &t,
        &probe("p-env", Some(&["network"])).yaml("  env: {TOOL_SET: from-tool-yaml}\n"),
    );
    install_undeclared(&t, "p-env-any");
    std::fs::create_dir_all(&t.home).unwrap();
    std::fs::write(
        t.home.join("config.yaml"),
        "runtime:\n  pass_env: [SHARED_SETTING]\n  tools:\n    p-env:\n      pass_env: [GITHUB_TOKEN, NOT_SET_ANYWHERE]\n",
    )
    .unwrap();
    // Any command brings the manifest up to date with config.yaml.
    t.run(&["list"]).success();
    let script = crate::serve::client_script();
    let mut cmd = t.program_command(
        &python,
        &[
            script.to_str().unwrap(),
            "stdio",
            env!("CARGO_BIN_EXE_orla"),
            "serve",
            "--stdio",
        ],
    );
    cmd.env("GITHUB_TOKEN", "ghp_secret")
        .env("AWS_SECRET_ACCESS_KEY", "aws_secret")
        .env("SHARED_SETTING", "shared")
        .env("LANG", "C.UTF-8");
    let plan = json!({"calls": [
        {"name": "p-env", "arguments": {"action": "env"}},
        {"name": "p-env-any", "arguments": {"action": "env"}}
    ]});
    let out = crate::serve::run_client(cmd, plan);
    let env = |i: usize| -> Value {
        let text = text_of(&out["calls"][i]);
        serde_json::from_str::<Value>(text.lines().next().unwrap()).unwrap()["env"].clone()
    };
    let named = env(0);
    assert_named_environment(&named);
    // The undeclared tool gets the clean environment too, without the
    // variable passed to p-env alone.
    let other = env(1);
    assert!(other.get("GITHUB_TOKEN").is_none(), "{other}");
    assert!(other.get("AWS_SECRET_ACCESS_KEY").is_none(), "{other}");
    assert!(other.get("ORLA_HOME").is_none(), "{other}");
    assert_eq!(other["SHARED_SETTING"], "shared");
}

/// A critical tool (process:exec) that records each run.
fn critical(t: &TestContext) -> std::path::PathBuf {
    let ran = t.work.join("deployed");
    install_local(
        t,
        &script_tool(
            "deploy",
            &format!("#!/bin/sh\necho ran >> '{}'\necho done\n", ran.display()),
            "runtime:\n  arguments: json\n",
        )
        .permissions(&["process:exec", "filesystem:write"]),
    );
    ran
}

#[test]
fn a_critical_tool_asks_before_each_call_and_fails_closed_without_a_way_to_ask() {
    let Some(python) = python() else { return };
    if !common::landlock() {
        return;
    }
    let t = TestContext::new();
    let ran = critical(&t);
    assert_eq!(t.manifest()["tools"][0]["approval_required"], true);
    let call = json!({"name": "deploy", "arguments": {"target": "prod"}});
    // A client without elicitation: refused, nothing ran.
    let out = stdio_session(&t, &python, json!({"calls": [call]}));
    let refused = &out["calls"][0];
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(tool_code(refused), "approval_required");
    assert!(
        text_of(refused).contains("approval: pre-approved"),
        "{}",
        text_of(refused)
    );
    assert!(!ran.exists());
    // A person who declines: refused.
    let out = stdio_session(
        &t,
        &python,
        json!({"calls": [call], "elicitation": "decline"}),
    );
    assert_eq!(tool_code(&out["calls"][0]), "approval_denied", "{out}");
    assert!(!ran.exists());
    let question = out["elicited"][0].as_str().unwrap();
    assert!(
        question.contains("deploy") && question.contains("critical") && question.contains("prod"),
        "{question}"
    );
    // A person who accepts: it runs, once per call, asked each time.
    let out = stdio_session(
        &t,
        &python,
        json!({"calls": [call, call], "elicitation": "accept"}),
    );
    assert_eq!(out["calls"][1]["isError"], false, "{out}");
    assert_eq!(out["elicited"].as_array().unwrap().len(), 2);
    assert_eq!(std::fs::read_to_string(&ran).unwrap(), "ran\nran\n");
}

#[test]
fn config_yaml_pre_approves_and_orla_yaml_can_only_require_approval() {
    let Some(python) = python() else { return };
    if !common::landlock() {
        return;
    }
    let t = TestContext::new();
    let ran = critical(&t);
    std::fs::write(
        t.home.join("config.yaml"),
        "runtime:\n  tools:\n    deploy: {approval: pre-approved}\n",
    )
    .unwrap();
    t.run(&["list"]).success();
    assert!(t.manifest()["tools"][0].get("approval_required").is_none());
    let out = stdio_session(&t, &python, json!({"calls": [{"name": "deploy"}]}));
    assert_eq!(out["calls"][0]["isError"], false, "{out}");
    assert!(ran.exists());
    // A project's orla.yaml comes with the repository: it may not
    // pre-approve, nor grant paths outside the project.
    let project = t.work.join("proj");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("orla.yaml"),
        "runtime:\n  tools:\n    deploy: {approval: pre-approved}\n",
    )
    .unwrap();
    t.run_in(&project, &["list"])
        .failure(1)
        .stderr_has("`approval: pre-approved` is not taken from orla.yaml")
        .stderr_has("hint: pre-approve deploy in your own ~/.orla/config.yaml");
    std::fs::write(
        project.join("orla.yaml"),
        "runtime:\n  allow_write: [/etc]\n",
    )
    .unwrap();
    t.run_in(&project, &["list"])
        .failure(1)
        .stderr_has("'/etc' is outside the project");
}

/// A directory registry publishing `packages`, for `orla run --registry`.
fn run_registry(t: &TestContext, packages: &[PackageBuilder]) -> String {
    let mut index = IndexBuilder::new(&t.dir.path().join("run-index"));
    for package in packages {
        index.publish(package);
    }
    index.location()
}

/// `orla run --yes --registry REGISTRY NAME -- ARGS` with `input` on stdin.
fn orla_run(
    t: &TestContext,
    registry: &str,
    name: &str,
    args: &[&str],
    input: &str,
) -> common::Run {
    let mut words = vec!["run", "--yes", "--registry", registry, name];
    if !args.is_empty() {
        words.push("--");
        words.extend_from_slice(args);
    }
    common::to_run(common::output_with_stdin(
        &mut t.command(&words),
        input.as_bytes(),
    ))
}

/// What the probe `name` saw doing `action` on `arg` under `orla run`.
fn run_probe(
    t: &TestContext,
    registry: &str,
    name: &str,
    action: &str,
    arg: &str,
) -> (common::Run, Value) {
    let input = json!({"action": action, "arg": arg}).to_string();
    let run = orla_run(t, registry, name, &[], &input);
    let seen = serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("{name} {action}: {e}: {} {}", run.stdout, run.stderr));
    (run, seen)
}

#[test]
fn orla_run_gives_a_tool_the_environment_orla_serve_gives_it() {
    if !crate::tool_authoring::have("python3") || !common::landlock() {
        return;
    }
    let t = TestContext::new();
    let registry = run_registry(
        &t,
        &[
            probe("p-env", Some(&["network"])).yaml("  env: {TOOL_SET: from-tool-yaml}\n"),
            probe("p-env-any", None),
        ],
    );
    std::fs::create_dir_all(&t.home).unwrap();
    std::fs::write(
        t.home.join("config.yaml"),
        "runtime:\n  pass_env: [SHARED_SETTING]\n  tools:\n    p-env:\n      pass_env: [GITHUB_TOKEN, NOT_SET_ANYWHERE]\n",
    )
    .unwrap();
    let env_of = |name: &str| {
        let mut command = t.command(&["run", "--yes", "--registry", &registry, name]);
        command
            .env("GITHUB_TOKEN", "ghp_secret")
            .env("AWS_SECRET_ACCESS_KEY", "aws_secret")
            .env("SHARED_SETTING", "shared")
            .env("LANG", "C.UTF-8");
        let run = common::to_run(common::output_with_stdin(
            &mut command,
            br#"{"action": "env"}"#,
        ));
        let seen: Value = serde_json::from_str(run.stdout.trim()).unwrap();
        (run, seen["env"].clone())
    };
    let (run, named) = env_of("p-env");
    run.success();
    assert_named_environment(&named);
    // A confined tool's TMPDIR is its own, under the cache, and a later
    // run removes it once the tool is gone.
    let tmpdir = Path::new(named["TMPDIR"].as_str().unwrap());
    assert!(tmpdir.starts_with(t.cache.join("run-tmp")), "{tmpdir:?}");
    assert!(!run.stderr.contains("unconfined"), "{}", run.stderr);
    // The undeclared tool gets the clean environment too, and orla says
    // it runs unconfined.
    let (run, other) = env_of("p-env-any");
    run.success()
        .stderr_has("p-env-any 1.0.0 runs unconfined: its tool.yaml declares no permissions");
    assert!(other.get("GITHUB_TOKEN").is_none(), "{other}");
    assert!(other.get("AWS_SECRET_ACCESS_KEY").is_none(), "{other}");
    assert!(other.get("ORLA_HOME").is_none(), "{other}");
    assert_eq!(other["SHARED_SETTING"], "shared");
}

#[test]
fn orla_run_confines_a_tool_to_its_permissions() {
    if !crate::tool_authoring::have("python3") || !common::landlock() {
        return;
    }
    let t = TestContext::new();
    let registry = run_registry(
        &t,
        &[
            probe("p-none", Some(&[])),
            probe("p-read", Some(&["filesystem:read"])),
            probe("p-net", Some(&["network"])),
            // High risk: sandboxed by default, as under `orla serve`.
            probe("p-high", Some(&["filesystem:write"])),
            probe("p-any", None),
        ],
    );
    // The workspace: the directory orla runs in.
    let secret = t.work.join("secret.txt");
    std::fs::write(&secret, "s").unwrap();
    let outside = t.dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("file"), "o").unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let s = |p: &Path| p.display().to_string();
    let cases: Vec<(&str, &str, String, bool)> = vec![
        ("p-read", "read", s(&secret), true),
        ("p-read", "list", s(&t.work), true),
        ("p-read", "write", s(&t.work.join("w-read")), false),
        ("p-read", "write", s(&outside.join("w-read")), false),
        ("p-read", "read", s(&outside.join("file")), false),
        ("p-read", "read", s(&t.home.join("receipt.key")), false),
        ("p-read", "tcp", port.clone(), false),
        ("p-none", "read", s(&secret), false),
        ("p-none", "tcp", port.clone(), false),
        ("p-none", "exec", "/bin/true".into(), false),
        ("p-none", "tmp", String::new(), true),
        ("p-net", "tcp", port.clone(), true),
        ("p-high", "write", s(&t.work.join("w-high")), true),
        ("p-high", "fork", String::new(), false),
        ("p-high", "alloc", "1024".into(), false),
        ("p-any", "write", s(&t.work.join("w-any")), true),
    ];
    for (name, action, arg, allowed) in &cases {
        let (run, seen) = run_probe(&t, &registry, name, action, arg);
        run.success();
        assert_eq!(seen["ok"], *allowed, "{name} {action} {arg}: {seen}");
        if !allowed {
            let error = seen["error"].as_str().unwrap();
            let expected = match *action {
                "alloc" => "MemoryError",
                _ => "Errno 13",
            };
            assert!(
                error.contains(expected) || error.contains("Permission denied"),
                "{name} {action}: {error}"
            );
        }
    }
    assert!(!t.work.join("w-read").exists());
    assert!(!outside.join("w-read").exists());
    assert!(t.work.join("w-any").exists());
    drop(listener);
}

#[test]
fn orla_run_reads_args_by_the_input_schema_and_refuses_what_it_does_not_declare() {
    if !crate::tool_authoring::have("python3") || !common::landlock() {
        return;
    }
    let t = TestContext::new();
    let ran = t.work.join("ran");
    let registry = run_registry(
        &t,
        &[
            PackageBuilder::new("lister", "1.0.0")
                .permissions(&["filesystem:read"])
                .yaml("mcp:\n  input_schema:\n    type: object\n    properties:\n      path: {type: string, description: Where to look}\n      all: {type: boolean}\n    required: [path]\n")
                .file("bin/lister", HIDDEN_OPTION, true),
            script_tool(
                "get-item",
                &format!("#!/bin/sh\nread -r line\necho \"$line\" >> '{}'\necho ok\n", ran.display()),
                "runtime:\n  arguments: json\nmcp:\n  input_schema:\n    type: object\n    properties:\n      id: {type: integer, minimum: 1}\n    required: [id]\n",
            )
            .permissions(&["filesystem:write"]),
            // No input schema: ARGS pass as they are.
            script_tool("echoer", "#!/bin/sh\necho \"$@\"\n", "").permissions(&[]),
        ],
    );
    let target = t.work.join("written");
    let target = target.to_str().unwrap();
    // The hidden option is refused by name before anything runs.
    orla_run(
        &t,
        &registry,
        "lister",
        &["--path", "p", "--write-to", target],
        "",
    )
    .failure(1)
    .stderr_has("error: lister has no option '--write-to' (its options: --path, --all)")
    .stderr_has("hint: `orla run lister -- --help` describes its arguments");
    assert!(!Path::new(target).exists(), "the hidden option was reached");
    // Schema violations name the argument and the rule.
    orla_run(&t, &registry, "lister", &["--all"], "")
        .failure(1)
        .stderr_has("error: invalid arguments for lister: rule 'required'");
    orla_run(&t, &registry, "lister", &["--path", "p", "--all=maybe"], "")
        .failure(1)
        .stderr_has("argument 'all' breaks rule 'type'");
    // Declared options reach the tool as `orla serve` passes them.
    let run = orla_run(&t, &registry, "lister", &["--all", "--path=p q"], "");
    run.success();
    let got: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(got["argv"], json!(["--path", "p q", "--all"]));
    // `--help` describes the declared options and runs nothing.
    orla_run(&t, &registry, "lister", &["--help"], "")
        .success()
        .stdout_has("Usage: orla run lister -- [OPTIONS]")
        .stdout_has("--path <string>  (required) Where to look");
    // A json tool: stdin is the call, checked before the tool sees it.
    orla_run(&t, &registry, "get-item", &[], r#"{"id": "x"}"#)
        .failure(1)
        .stderr_has("error: invalid arguments for get-item: argument 'id' breaks rule 'type'");
    orla_run(&t, &registry, "get-item", &[], "[1]")
        .failure(1)
        .stderr_has("error: the input of get-item is not a JSON object: it is an array");
    orla_run(&t, &registry, "get-item", &["--id", "1"], "")
        .failure(1)
        .stderr_has("takes no ARGS");
    assert!(!ran.exists(), "a refused call ran");
    orla_run(&t, &registry, "get-item", &[], r#"{"id": 7}"#)
        .success()
        .stdout_has("ok");
    assert_eq!(std::fs::read_to_string(&ran).unwrap(), "{\"id\":7}\n");
    // Without a schema, ARGS are the tool's own.
    orla_run(&t, &registry, "echoer", &["--anything", "-x", "y"], "")
        .success()
        .stdout_has("--anything -x y");
}

#[test]
fn orla_run_asks_before_each_run_of_a_tool_serve_asks_about() {
    if !common::landlock() {
        return;
    }
    let t = TestContext::new();
    let ran = t.work.join("ran");
    let script = format!("#!/bin/sh\necho ran >> '{}'\n", ran.display());
    let registry = run_registry(
        &t,
        &[
            script_tool("deploy", &script, "runtime:\n  arguments: json\n")
                .permissions(&["process:exec", "filesystem:write"]),
            script_tool("note", "#!/bin/sh\necho noted\n", "").permissions(&[]),
        ],
    );
    let asked = |name: &str| {
        t.run(&["run", "--registry", &registry, name])
            .failure(1)
            .stderr_has("hint: pass --yes");
    };
    // Critical: asked on every run, cached or not; without a terminal or
    // --yes it fails closed.
    asked("deploy");
    orla_run(&t, &registry, "deploy", &[], "").success();
    asked("deploy");
    assert_eq!(std::fs::read_to_string(&ran).unwrap(), "ran\n");
    // Low risk runs once cached without a question, until the user's
    // settings require approval for it, as they do for `orla serve`.
    orla_run(&t, &registry, "note", &[], "").success();
    t.run(&["run", "--registry", &registry, "note"])
        .success()
        .stdout_has("noted");
    std::fs::create_dir_all(&t.home).unwrap();
    std::fs::write(
        t.home.join("config.yaml"),
        "runtime:\n  tools:\n    note: {approval: required}\n",
    )
    .unwrap();
    asked("note");
    orla_run(&t, &registry, "note", &[], "")
        .success()
        .stdout_has("noted");
}

#[test]
fn orla_run_removes_private_directories_once_no_tool_holds_them() {
    use std::os::fd::AsRawFd;
    if !crate::tool_authoring::have("python3") || !common::landlock() {
        return;
    }
    let t = TestContext::new();
    let registry = run_registry(&t, &[probe("p-tmp", Some(&[]))]);
    let (run, seen) = run_probe(&t, &registry, "p-tmp", "tmp", "");
    run.success();
    // orla is gone once the tool runs: its directory outlives it.
    let first = std::path::PathBuf::from(seen["tmpdir"].as_str().unwrap());
    assert!(first.join("scratch").exists(), "{seen}");
    // One a running tool holds (its lock taken here, as the tool's
    // inherited descriptor holds it).
    let held = t.cache.join("run-tmp/tmp-held");
    std::fs::create_dir_all(&held).unwrap();
    let lock = std::fs::File::open(&held).unwrap();
    assert_eq!(unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) }, 0);
    // Both last changed long enough ago to be taken.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(600);
    for dir in [&first, &held] {
        std::fs::File::open(dir).unwrap().set_modified(old).unwrap();
    }
    let (run, seen) = run_probe(&t, &registry, "p-tmp", "tmp", "");
    run.success();
    assert!(!first.exists(), "a directory no tool holds is removed");
    assert!(held.exists(), "a directory a tool holds is kept");
    assert_ne!(seen["tmpdir"].as_str().unwrap(), first.to_str().unwrap());
    drop(lock);
}

#[cfg(unix)]
#[test]
fn orla_run_asks_on_a_terminal_before_each_run_that_needs_approval() {
    use common::pty::{expect, finish, finish_with, send, spawn};
    if !common::landlock() {
        return;
    }
    let t = TestContext::new();
    let registry = run_registry(
        &t,
        &[script_tool("note", "#!/bin/sh\necho noted\n", "").permissions(&[])],
    );
    std::fs::create_dir_all(&t.home).unwrap();
    std::fs::write(
        t.home.join("config.yaml"),
        "runtime:\n  tools:\n    note: {approval: required}\n",
    )
    .unwrap();
    let mut declined = spawn(&t, &["run", "--registry", &registry, "note"]);
    expect(&mut declined, "Run note 1.0.0 with");
    send(&mut declined, "n");
    expect(&mut declined, "note 1.0.0 was not run: you declined");
    finish_with(declined, 1);
    for _ in 0..2 {
        let mut accepted = spawn(&t, &["run", "--registry", &registry, "note"]);
        expect(&mut accepted, "Run note 1.0.0 with");
        send(&mut accepted, "y");
        expect(&mut accepted, "noted");
        finish(accepted);
    }
}

#[cfg(unix)]
#[test]
fn orla_run_reads_a_json_tools_arguments_from_the_terminal_and_says_so() {
    use common::pty::{expect, finish, send, spawn};
    if !crate::tool_authoring::have("python3") || !common::landlock() {
        return;
    }
    let t = TestContext::new();
    std::fs::write(t.work.join("notes.txt"), "from the notes\n").unwrap();
    let mut session = spawn(&t, &["run", "fs-read@1.2"]);
    expect(
        &mut session,
        "Reading the arguments of fs-read from the terminal: one JSON object, then Ctrl-D",
    );
    send(&mut session, "{\"path\": \"notes.txt\"}\n\x04");
    expect(&mut session, "from the notes");
    finish(session);
}

/// p-env's environment: the base variables, its tool.yaml `env` and what
/// `pass_env` names for it and for all, nothing else of the caller's.
fn assert_named_environment(named: &Value) {
    let mut keys: Vec<&str> = named
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "GITHUB_TOKEN",
            "HOME",
            "LANG",
            "PATH",
            "SHARED_SETTING",
            "TMPDIR",
            "TOOL_SET"
        ],
        "{named}"
    );
    assert_eq!(named["GITHUB_TOKEN"], "ghp_secret");
    assert_eq!(named["TOOL_SET"], "from-tool-yaml");
}
