//! Run-time trust: what orla shows at install time is what a call gets.
//! Arguments checked against the input schema before anything runs, only
//! declared arguments passed as options, answers checked against the
//! output schema; each seen through the official Python SDK client, which
//! must get a tool error (`isError`), never a failed request.

use std::path::Path;

use serde_json::{json, Value};

use crate::common::{PackageBuilder, TestContext};
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
            &format!("#!/bin/sh\ncat >> '{}'\necho ok\n", ran.display()),
            "runtime:\n  arguments: json\nmcp:\n  input_schema:\n    type: object\n    properties:\n      id: {type: integer, minimum: 1}\n      tags: {type: array, items: {type: string}}\n    required: [id]\n",
        ),
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
