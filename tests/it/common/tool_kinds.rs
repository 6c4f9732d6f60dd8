//! A project holding every kind of tool a runtime's reader must describe
//! (the built-in registry's tools, a capsule, a discovered executable, an
//! undeclared-permissions tool, an exec-tier one, a network tool with
//! tool.yaml settings and secrets in its environment), and the JSON Schemas
//! of docs/ that `orla export` and the openwop catalog are checked against.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{write_file, PackageBuilder, TestContext};

/// The tools of [`project`], sorted.
pub const NAMES: [&str; 9] = [
    "anything",
    "convert",
    "echo-capsule",
    "fs-list",
    "fs-read",
    "http-get",
    "json-query",
    "shell",
    "slow-net",
];

/// Secrets in the environment a tool of [`project`] gets: slow-net's
/// tool.yaml `runtime.env` value, and the variable orla.yaml passes it
/// (`pass_env`), set to [`PASSED_SECRET`] in a server's environment.
pub const TOOL_YAML_SECRET: &str = "s3cr3t-from-tool-yaml";
pub const PASSED_VARIABLE: &str = "SLOW_NET_TOKEN";
pub const PASSED_SECRET: &str = "s3cr3t-from-the-server-environment";

/// A project serving every built-in tool (echo-capsule is a capsule), a
/// tool whose tool.yaml has no `permissions` key, an exec-tier tool, a
/// network tool with a timeout, a retry policy, a raised risk level and
/// secrets in its environment, and a loose executable in tools_dir.
pub fn project(t: &TestContext) -> PathBuf {
    let dir = t.work.join("proj");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("orla.yaml"),
        format!(
            "tools_dir: ./tools\nruntime:\n  tools:\n    slow-net:\n      pass_env: [{PASSED_VARIABLE}]\n"
        ),
    )
    .unwrap();
    t.run_in(
        &dir,
        &[
            "install",
            "fs-read",
            "fs-list",
            "http-get",
            "json-query",
            "echo-capsule",
            "--yes",
        ],
    )
    .success();
    let src = t.work.join("src");
    let undeclared = PackageBuilder::new("anything", "1.0.0").write(&src);
    let yaml = std::fs::read_to_string(undeclared.join("tool.yaml"))
        .unwrap()
        .replace("permissions: []\n", "");
    std::fs::write(undeclared.join("tool.yaml"), yaml).unwrap();
    let shell = PackageBuilder::new("shell", "1.0.0")
        .permissions(&["process:exec"])
        .write(&src);
    let net = PackageBuilder::new("slow-net", "2.0.0")
        .permissions(&["network"])
        .yaml(&format!(
            "risk_level: high\nruntime:\n  timeout_ms: 1500\n  retry:\n    max_attempts: 3\n    backoff: 500ms\n    max_backoff: 5s\n    jitter: full\n  env:\n    API_TOKEN: {TOOL_YAML_SECRET}\n",
        ))
        .write(&src);
    for pkg in [&undeclared, &shell, &net] {
        t.run_in(
            &dir,
            &["install", "--local", pkg.to_str().unwrap(), "--yes"],
        )
        .success();
    }
    write_file(
        &dir.join("tools/convert"),
        "#!/bin/sh\necho converted\n",
        true,
    );
    dir
}

/// The `tools` of the project's manifest: what `orla serve` lists.
pub fn served(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join(".orla/manifest.json")).unwrap();
    let manifest: Value = serde_json::from_str(&text).unwrap();
    manifest["tools"].as_array().unwrap().clone()
}

pub fn by_name<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

/// The JSON Schema `docs/FILE`.
pub fn schema(file: &str) -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

#[track_caller]
pub fn assert_valid(validator: &jsonschema::Validator, instance: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{instance}\n{errors:#?}");
}

/// Asserts that nothing of the environment the project's tools get (the
/// secrets, the variable's name, tool.yaml's `env` key) is in `text`.
#[track_caller]
pub fn assert_no_secrets(text: &str) {
    for secret in [
        TOOL_YAML_SECRET,
        PASSED_VARIABLE,
        PASSED_SECRET,
        "API_TOKEN",
    ] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
}
