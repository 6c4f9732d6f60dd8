//! `orla export`: each format parsed back and checked against its JSON
//! Schema in docs/ (the openwop ToolDescriptor's with the RFC's cross-field
//! rules), for the built-in registry's tools, a capsule, a discovered
//! executable, an undeclared-permissions tool and an exec-tier one; each
//! says what the manifest (what `tools/list` serves) says; a Runloop
//! bundle gets tools.json and its digest with the rest of manifest.toml
//! kept; names a format cannot hold are refused.

use crate::common;

use std::path::Path;

use common::tool_kinds::{
    assert_no_secrets, assert_valid, by_name, project, schema, served, NAMES,
};
use common::{PackageBuilder, TestContext};
use serde_json::{json, Value};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_openwop_descriptor_is_valid_and_says_what_the_manifest_says() {
    let t = TestContext::new();
    let dir = project(&t);
    let out = t
        .run_in(&dir, &["export", "--format", "openwop"])
        .success()
        .json();
    let tools = served(&dir);
    let validator = schema("tool-descriptor.schema.json");
    let descriptors = out.as_array().unwrap();
    let mut titles: Vec<&str> = descriptors
        .iter()
        .map(|d| d["title"].as_str().unwrap())
        .collect();
    titles.sort();
    assert_eq!(titles, NAMES);
    for d in descriptors {
        assert_valid(&validator, d);
        let tool = by_name(&tools, d["title"].as_str().unwrap());
        assert_eq!(d["inputSchema"], tool["input_schema"], "{d}");
        assert_eq!(d["safetyTier"], tool["safety_tier"], "{d}");
        let exec = tool["safety_tier"] == "exec";
        let id = d["toolId"].as_str().unwrap();
        if exec {
            assert_eq!(d["source"], "host-extension", "{d}");
            assert_eq!(
                id,
                format!("x-host-orla-{}", tool["name"].as_str().unwrap())
            );
        } else {
            assert_eq!(d["source"], "mcp", "{d}");
            assert_eq!(id, format!("mcp:{}", tool["name"].as_str().unwrap()));
        }
        let critical = tool["risk_level"] == "critical";
        assert_eq!(
            d["approval"],
            if critical { "always" } else { "never" },
            "{d}"
        );
        match tool["description"].as_str().unwrap() {
            "" => assert!(d.get("description").is_none(), "{d}"),
            text => assert_eq!(d["description"], text),
        }
        assert!(
            !d.to_string().contains(dir.to_str().unwrap()),
            "no paths: {d}"
        );
    }
    let d = |name: &str| {
        descriptors
            .iter()
            .find(|d| d["title"] == name)
            .unwrap()
            .clone()
    };
    // Exec tier: process:exec, undeclared permissions, a discovered executable.
    for name in ["shell", "anything", "convert"] {
        assert_eq!(d(name)["safetyTier"], "exec", "{name}");
    }
    assert_eq!(d("shell")["approval"], "always");
    assert_eq!(d("fs-read")["egress"], "none");
    assert_eq!(d("http-get")["egress"], "host-owned");
    assert_eq!(d("anything")["egress"], "host-owned");
    assert_eq!(d("slow-net")["egress"], "host-owned");
    assert_eq!(d("fs-read")["toolId"], "mcp:fs-read");

    assert_no_secrets(&out.to_string());

    // Read again: the same ids (RFC 0078 C-3).
    let again = t
        .run_in(&dir, &["export", "--format", "openwop"])
        .success()
        .json();
    assert_eq!(again, out);
}

#[test]
fn the_descriptor_schema_enforces_the_rfcs_cross_field_rules() {
    let validator = schema("tool-descriptor.schema.json");
    // The RFC's positive examples.
    for ok in [
        json!({"toolId": "mcp:fs.read", "source": "mcp", "title": "Read file", "inputSchema": {},
               "auth": {"scopes": ["tools:fs:read"]}, "egress": "none", "approval": "never",
               "replayPolicy": "idempotent", "safetyTier": "read", "costHint": "low", "latencyHint": "low"}),
        json!({"toolId": "x-host-acme-shell", "source": "host-extension", "safetyTier": "exec",
               "approval": "always", "egress": "host-owned"}),
    ] {
        assert_valid(&validator, &ok);
    }
    // Its negative ones, and an exec tool whose id is not a host extension's.
    for bad in [
        json!({"toolId": "openwop:run-shell", "source": "node-pack", "safetyTier": "exec"}),
        json!({"toolId": "mcp:shell", "source": "mcp", "safetyTier": "exec"}),
        json!({"toolId": "x", "source": "mcp"}),
        json!({"toolId": "mcp:shell", "source": "host-extension", "safetyTier": "exec"}),
        json!({"toolId": "mcp:a", "source": "mcp", "safetyTier": "read", "secret": "s"}),
    ] {
        assert!(!validator.is_valid(&bad), "accepted {bad}");
    }
}

#[test]
fn runloop_tools_json_is_valid_and_runs_the_entrypoint() {
    let t = TestContext::new();
    let dir = project(&t);
    let out = t
        .run_in(&dir, &["export", "--format", "runloop"])
        .success()
        .json();
    assert_valid(&schema("runloop-tools.schema.json"), &out);
    assert_eq!(out["version"], 1);
    let tools = served(&dir);
    let entries = out["tools"].as_array().unwrap();
    assert_eq!(entries.len(), NAMES.len());
    for e in entries {
        let tool = by_name(&tools, e["id"].as_str().unwrap());
        assert_eq!(e["description"], tool["description"]);
        assert_eq!(e["input_schema"], tool["input_schema"]);
        assert_eq!(e["transport"]["kind"], "exec");
        assert_eq!(e["transport"]["command"], tool["entrypoint"]);
        assert_eq!(
            e["requires_confirmation"],
            tool["risk_level"] == "critical",
            "{e}"
        );
        assert!(!e.to_string().contains("env"), "{e}");
    }
    assert_no_secrets(&out.to_string());
    let e = |id: &str| entries.iter().find(|e| e["id"] == id).unwrap().clone();
    assert_eq!(e("fs-read")["capabilities"], json!(["fs"]));
    assert_eq!(e("http-get")["capabilities"], json!(["net"]));
    assert_eq!(e("shell")["capabilities"], json!(["exec"]));
    assert_eq!(e("anything")["capabilities"], json!(["exec", "fs", "net"]));
    assert_eq!(e("json-query")["capabilities"], json!([]));
    assert_eq!(
        e("slow-net")["observability"]["tags"],
        json!(["orla", "risk:high", "safety:read"])
    );
    assert_eq!(e("fs-read")["result_schema"], json!({}));
}

#[test]
fn a_runloop_bundle_gets_tools_json_and_its_digest_and_keeps_the_rest() {
    let t = TestContext::new();
    let dir = project(&t);
    let bundle = t.work.join("agents/x");
    std::fs::create_dir_all(&bundle).unwrap();
    let toml = "# signed by rlp\n[agent]\nname = \"x\" # kept\n\n[artifacts.policy]\npath = \"policy.caps\"\nblake3 = \"00\"\n";
    std::fs::write(bundle.join("manifest.toml"), toml).unwrap();
    // An entry the bundle's author wrote stays; orla's own are replaced.
    let authored = json!({"id": "mail.smtp_send", "description": "Send mail",
        "transport": {"kind": "http", "method": "POST", "url": "https://mail.invalid/send"},
        "input_schema": {}, "result_schema": {}});
    let stale = json!({"id": "gone", "description": "", "transport": {"kind": "exec", "command": "/x"},
        "input_schema": {}, "result_schema": {}, "observability": {"tags": ["orla"]}});
    std::fs::write(
        bundle.join("tools.json"),
        json!({"version": 1, "tools": [authored, stale]}).to_string(),
    )
    .unwrap();
    t.run_in(
        &dir,
        &[
            "export",
            "--format",
            "runloop",
            "--bundle",
            bundle.to_str().unwrap(),
        ],
    )
    .success();
    let bytes = std::fs::read(bundle.join("tools.json")).unwrap();
    let written: Value = serde_json::from_slice(&bytes).unwrap();
    assert_valid(&schema("runloop-tools.schema.json"), &written);
    let ids: Vec<&str> = written["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids[0], "mail.smtp_send");
    assert!(!ids.contains(&"gone"), "{ids:?}");
    assert_eq!(ids.len(), 1 + NAMES.len());
    let manifest_toml = read(&bundle.join("manifest.toml"));
    assert!(manifest_toml.starts_with(toml), "{manifest_toml}");
    let parsed: toml::Value = toml::from_str(&manifest_toml).unwrap();
    let tools = &parsed["artifacts"]["tools"];
    assert_eq!(tools["path"].as_str(), Some("tools.json"));
    assert_eq!(tools["version"].as_integer(), Some(1));
    assert_eq!(
        tools["blake3"].as_str().unwrap(),
        blake3::hash(&bytes).to_hex().as_str()
    );
    // The same export again changes nothing.
    t.run_in(
        &dir,
        &[
            "export",
            "--format",
            "runloop",
            "--bundle",
            bundle.to_str().unwrap(),
        ],
    )
    .success();
    assert_eq!(std::fs::read(bundle.join("tools.json")).unwrap(), bytes);
    assert_eq!(read(&bundle.join("manifest.toml")), manifest_toml);
}

#[test]
fn a_bundle_orla_cannot_write_is_refused_and_left_as_it_was() {
    let t = TestContext::new();
    let dir = project(&t);
    let bundle = t.work.join("agents/x");
    std::fs::create_dir_all(&bundle).unwrap();
    let arg = bundle.to_str().unwrap().to_string();
    let export = |extra: &[&str]| {
        let mut args = vec!["export", "--format", "runloop", "--bundle", arg.as_str()];
        args.extend_from_slice(extra);
        t.run_in(&dir, &args)
    };
    export(&[])
        .failure(1)
        .stderr_has("is not a Runloop bundle: it has no manifest.toml")
        .stderr_has("hint: pass the bundle's directory");

    std::fs::write(bundle.join("manifest.toml"), "[agent]\n").unwrap();
    let future = "{\"version\": 2, \"tools\": []}";
    std::fs::write(bundle.join("tools.json"), future).unwrap();
    export(&[])
        .failure(1)
        .stderr_has("tools.json has version 2; orla reads and writes version 1");
    assert_eq!(read(&bundle.join("tools.json")), future);
    assert_eq!(read(&bundle.join("manifest.toml")), "[agent]\n");

    std::fs::write(
        bundle.join("tools.json"),
        json!({"version": 1, "tools": [{"id": "fs-read"}]}).to_string(),
    )
    .unwrap();
    export(&[])
        .failure(1)
        .stderr_has("already has a tool 'fs-read' that orla did not write");
    assert_eq!(read(&bundle.join("manifest.toml")), "[agent]\n");

    t.run_in(
        &dir,
        &["export", "--format", "orloj", "--bundle", arg.as_str()],
    )
    .failure(2)
    .stderr_has("--bundle writes a Runloop bundle's tools.json");
}

#[test]
fn orloj_tools_match_the_seeds_shape_and_carry_tool_yaml() {
    let t = TestContext::new();
    let dir = project(&t);
    let out_file = t.work.join("tools.yaml");
    t.run_in(
        &dir,
        &[
            "export",
            "--format",
            "orloj",
            "--output",
            out_file.to_str().unwrap(),
        ],
    )
    .success();
    let text = read(&out_file);
    assert_no_secrets(&text);
    let validator = schema("orloj-tool.schema.json");
    let tools = served(&dir);
    let mut docs = Vec::new();
    for doc in serde_yaml::Deserializer::from_str(&text) {
        let value: Value = serde::Deserialize::deserialize(doc).unwrap();
        assert_valid(&validator, &value);
        let tool = by_name(&tools, value["metadata"]["name"].as_str().unwrap());
        assert_eq!(value["spec"]["mcp_tool_name"], tool["name"]);
        assert_eq!(value["spec"]["input_schema"], tool["input_schema"]);
        assert_eq!(value["spec"]["risk_level"], tool["risk_level"]);
        assert_eq!(value["spec"]["capabilities"], tool["permissions"]);
        assert_eq!(
            value["spec"]["runtime"]["isolation_mode"],
            tool["isolation_mode"]
        );
        docs.push(value);
    }
    assert_eq!(docs.len(), NAMES.len());
    let doc = |name: &str| docs.iter().find(|d| d["metadata"]["name"] == name).unwrap();
    assert_eq!(
        doc("slow-net")["spec"]["runtime"],
        json!({"isolation_mode": "sandboxed", "timeout": "1500ms",
               "retry": {"max_attempts": 3, "backoff": "500ms", "max_backoff": "5s", "jitter": "full"}})
    );
    // No timeout of its own: the project's (orla.yaml `timeout`, 30 s by default).
    assert_eq!(doc("anything")["spec"]["runtime"]["timeout"], "30s");
    assert_eq!(doc("fs-read")["spec"]["runtime"]["timeout"], "10s");
    assert_eq!(doc("fs-read")["spec"]["runtime"]["isolation_mode"], "none");
}

#[test]
fn a_name_a_format_cannot_hold_is_refused_naming_the_tool_and_the_rule() {
    let t = TestContext::new();
    let src = PackageBuilder::new("trailing-", "1.0.0").write(&t.work.join("src"));
    t.run(&["install", "--local", src.to_str().unwrap(), "--yes"])
        .success();
    let run = t.run(&["export", "--format", "orloj"]);
    run.failure(1).stderr_has(
        "error: tool 'trailing-' cannot be exported as orloj: an Orloj resource name ends with a lowercase letter or digit",
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    // The other formats hold it as it is.
    let out = t.run(&["export", "--format", "openwop"]).success().json();
    assert_eq!(out[0]["toolId"], "mcp:trailing-");
    let out = t.run(&["export", "--format", "runloop"]).success().json();
    assert_eq!(out["tools"][0]["id"], "trailing-");
}

#[test]
fn an_empty_root_exports_nothing_and_writes_nothing() {
    let t = TestContext::new();
    assert_eq!(
        t.run(&["export", "--format", "openwop"]).success().json(),
        json!([])
    );
    assert_eq!(
        t.run(&["export", "--format", "runloop"]).success().json(),
        json!({"version": 1, "tools": []})
    );
    assert!(t
        .run(&["export", "--format", "orloj"])
        .success()
        .stdout
        .is_empty());
    assert!(!t.home.exists(), "an export created the root");
}
