//! `orla migrate capsule` on a corpus of RFC 2 capsules that the tests
//! build themselves: minimal, every optional field, a nested entrypoint,
//! and invalid ones; then a round trip through install and the manifest.

use crate::common;

use std::path::{Path, PathBuf};

use common::{snapshot, write_file, TestContext};

const CAPSULE_MAIN: &str = r#"#!/usr/bin/env python3
import json, sys
print(json.dumps({"jsonrpc": "2.0", "method": "orla.hello",
                  "params": {"name": "legacy", "version": "1.0.0", "capabilities": ["tools"]}}), flush=True)
for line in sys.stdin:
    req = json.loads(line)
    if "id" in req:
        print(json.dumps({"jsonrpc": "2.0", "id": req["id"], "result": {"env": sys.argv[1:]}}), flush=True)
"#;

/// A capsule directory with `orla-tool.json` = `json` and an executable entrypoint at `entry`.
fn capsule(root: &Path, dir: &str, json: &str, entry: &str, readme: Option<&str>) -> PathBuf {
    let path = root.join(dir);
    write_file(&path.join("orla-tool.json"), json, false);
    if !entry.is_empty() && !entry.starts_with('/') && !entry.contains("..") {
        write_file(&path.join(entry), CAPSULE_MAIN, true);
    }
    if let Some(text) = readme {
        write_file(&path.join("README.md"), text, false);
    }
    path
}

const MINIMAL: &str = r#"{"name": "minimal", "version": "0.3.0", "entrypoint": "main.py"}"#;

const FULL: &str = r#"{
  "name": "full-capsule",
  "version": "1.2.3",
  "entrypoint": "src/server/main.py",
  "language": "python",
  "hot_load": {"watch": ["./", "src"], "mode": "restart", "debounce_ms": 250},
  "env": {"LOG_LEVEL": "debug", "WORKERS": "4"},
  "args": ["--fast", "--port=0"],
  "startup_timeout_ms": 7000,
  "maintainer_notes": "kept in a drawer"
}"#;

const FULL_README: &str = "# full-capsule\n\n[![ci](badge.svg)](ci)\n\nServes the full set of capsule options\nfor testing migrations.\n\n## Usage\n\nRun it.\n";

#[test]
fn minimal_capsule_gets_a_placeholder_description_that_validate_warns_about() {
    let ctx = TestContext::new();
    let dir = capsule(&ctx.work, "minimal", MINIMAL, "main.py", None);
    let run = ctx.run(&["migrate", "capsule", "minimal"]);
    run.success()
        .stderr_has("name -> name")
        .stderr_has("entrypoint -> entrypoint")
        .stderr_has("placeholder")
        .stderr_has("Migrated");
    let tool = orla::package::ToolYaml::read(&dir).unwrap();
    assert_eq!(tool.name.as_deref(), Some("minimal"));
    assert_eq!(tool.version.as_deref(), Some("0.3.0"));
    assert_eq!(tool.entrypoint.as_deref(), Some("main.py"));
    assert_eq!(tool.mode(), orla::package::Mode::Capsule);
    assert!(tool.description.unwrap().starts_with("TODO"));
    assert!(!dir.join("orla-tool.json").exists());
    assert_eq!(
        std::fs::read_to_string(dir.join("orla-tool.json.bak")).unwrap(),
        MINIMAL
    );
    ctx.run(&["tool", "validate", "minimal"])
        .success()
        .stderr_has("description: is a placeholder");
}

#[test]
fn every_field_is_mapped_or_reported_dropped() {
    let ctx = TestContext::new();
    let dir = capsule(
        &ctx.work,
        "full",
        FULL,
        "src/server/main.py",
        Some(FULL_README),
    );
    let run = ctx.run(&["migrate", "capsule", "full"]);
    run.success();
    for line in [
        "name -> name",
        "version -> version",
        "entrypoint -> entrypoint",
        "language -> keywords",
        "hot_load.watch -> runtime.hot_load.watch",
        "hot_load.mode -> runtime.hot_load.mode",
        "hot_load.debounce_ms -> runtime.hot_load.debounce_ms",
        "env -> runtime.env",
        "args -> runtime.args",
        "startup_timeout_ms -> runtime.startup_timeout_ms",
        "maintainer_notes dropped: not an RFC 2 orla-tool.json field",
        "description: taken from the README",
    ] {
        run.stderr_has(line);
    }
    let tool = orla::package::ToolYaml::read(&dir).unwrap();
    assert_eq!(
        tool.description.as_deref(),
        Some("Serves the full set of capsule options for testing migrations.")
    );
    assert_eq!(tool.entrypoint.as_deref(), Some("src/server/main.py"));
    assert_eq!(tool.keywords, ["python"]);
    let rt = tool.runtime.unwrap();
    assert_eq!(rt.startup_timeout_ms, Some(7000));
    assert_eq!(rt.env["LOG_LEVEL"], "debug");
    assert_eq!(rt.args, ["--fast", "--port=0"]);
    let hot = rt.hot_load.unwrap();
    assert_eq!(hot.watch, ["./", "src"]);
    assert_eq!(hot.debounce_ms, Some(250));
    let text = std::fs::read_to_string(dir.join("tool.yaml")).unwrap();
    assert!(text.starts_with("# Migrated from orla-tool.json"));
    ctx.run(&["tool", "validate", "full"]).success();
}

#[test]
fn dry_run_prints_and_changes_nothing() {
    let ctx = TestContext::new();
    let dir = capsule(
        &ctx.work,
        "full",
        FULL,
        "src/server/main.py",
        Some(FULL_README),
    );
    let before = snapshot(&dir);
    let run = ctx.run(&["migrate", "capsule", "full", "--dry-run"]);
    run.success()
        .stdout_has("name: full-capsule")
        .stdout_has("mode: capsule")
        .stdout_has("debounce_ms: 250");
    assert_eq!(snapshot(&dir), before);
    // What it printed is exactly what a real run writes.
    ctx.run(&["migrate", "capsule", "full/orla-tool.json"])
        .success();
    assert_eq!(
        std::fs::read_to_string(dir.join("tool.yaml")).unwrap(),
        run.stdout
    );
}

#[test]
fn migrating_twice_is_harmless_and_remove_legacy_deletes_the_old_file() {
    let ctx = TestContext::new();
    let dir = capsule(&ctx.work, "twice", MINIMAL, "main.py", None);
    ctx.run(&["migrate", "capsule", "twice"]).success();
    let after_first = snapshot(&dir);
    ctx.run(&["migrate", "capsule", "twice"])
        .success()
        .stderr_has("already migrated");
    assert_eq!(snapshot(&dir), after_first);

    let dir = capsule(&ctx.work, "gone", MINIMAL, "main.py", None);
    ctx.run(&["migrate", "capsule", "gone", "--remove-legacy"])
        .success()
        .stderr_has("removed orla-tool.json");
    assert!(!dir.join("orla-tool.json").exists());
    assert!(!dir.join("orla-tool.json.bak").exists());
    assert!(dir.join("tool.yaml").is_file());

    // A hand-written tool.yaml that differs is not overwritten without --force.
    let dir = capsule(&ctx.work, "clash", MINIMAL, "main.py", None);
    std::fs::write(dir.join("tool.yaml"), "name: mine\n").unwrap();
    let before = snapshot(&dir);
    ctx.run(&["migrate", "capsule", "clash"])
        .failure(1)
        .stderr_has("already has a tool.yaml")
        .stderr_has("--force");
    assert_eq!(snapshot(&dir), before);
    ctx.run(&["migrate", "capsule", "clash", "--force"])
        .success();
    assert!(std::fs::read_to_string(dir.join("tool.yaml"))
        .unwrap()
        .contains("name: minimal"));
}

#[test]
fn invalid_capsules_are_clear_errors_that_change_nothing() {
    let ctx = TestContext::new();
    let cases = [
        (
            "bad-json",
            r#"{"name": "x", "version": "1.0.0", "#,
            "main.py",
            "is not valid JSON",
        ),
        (
            "not-object",
            r#"["name"]"#,
            "main.py",
            "must hold a JSON object",
        ),
        (
            "missing",
            r#"{"name": "x"}"#,
            "main.py",
            "lacks required fields: version, entrypoint",
        ),
        (
            "outside",
            r#"{"name": "x", "version": "1.0.0", "entrypoint": "../escape.py"}"#,
            "",
            "entrypoint '../escape.py' is outside the capsule directory",
        ),
        (
            "absolute",
            r#"{"name": "x", "version": "1.0.0", "entrypoint": "/usr/bin/python3"}"#,
            "",
            "is outside the capsule directory",
        ),
        (
            "reload-mode",
            r#"{"name": "x", "version": "1.0.0", "entrypoint": "main.py", "hot_load": {"mode": "patch"}}"#,
            "main.py",
            "hot_load.mode 'patch' is unknown",
        ),
        (
            "bad-version",
            r#"{"name": "x", "version": "latest", "entrypoint": "main.py"}"#,
            "main.py",
            "'latest' is not a semantic version",
        ),
        (
            "bad-env",
            r#"{"name": "x", "version": "1.0.0", "entrypoint": "main.py", "env": {"A": [1]}}"#,
            "main.py",
            "env.A must be a string",
        ),
        (
            "no-entry-file",
            r#"{"name": "x", "version": "1.0.0", "entrypoint": "missing.py"}"#,
            "",
            "'missing.py' does not exist",
        ),
    ];
    for (dir, json, entry, needle) in cases {
        let path = capsule(&ctx.work, dir, json, entry, None);
        let before = snapshot(&path);
        ctx.run(&["migrate", "capsule", dir])
            .failure(1)
            .stderr_has(needle)
            .stderr_has("hint:");
        assert_eq!(snapshot(&path), before, "{dir} changed");
    }
    ctx.run(&["migrate", "capsule", "nowhere"])
        .failure(1)
        .stderr_has("nowhere does not exist");
    std::fs::create_dir(ctx.work.join("empty")).unwrap();
    ctx.run(&["migrate", "capsule", "empty"])
        .failure(1)
        .stderr_has("has no orla-tool.json");
}

#[test]
fn all_migrates_every_capsule_under_a_tools_directory() {
    let ctx = TestContext::new();
    let tools = ctx.work.join("tools");
    capsule(&tools, "one", MINIMAL, "main.py", None);
    capsule(
        &tools,
        "nested/two",
        FULL,
        "src/server/main.py",
        Some(FULL_README),
    );
    let broken = capsule(&tools, "three", r#"{"name": "three"}"#, "main.py", None);
    write_file(&tools.join("loose.sh"), "#!/bin/sh\necho '{}'\n", true);
    let broken_before = snapshot(&broken);
    let all_before = snapshot(&tools);

    // A dry run over the tree prints one labelled YAML document per capsule.
    let run = ctx.run(&["migrate", "capsule", "--all", "tools", "--dry-run"]);
    run.failure(1).stderr_has("2 to migrate, 1 failed");
    assert_eq!(run.stdout.matches("--- # ").count(), 2, "{}", run.stdout);
    assert_eq!(snapshot(&tools), all_before);

    let run = ctx.run(&["migrate", "capsule", "--all", "tools"]);
    run.failure(1)
        .stderr_has("lacks required field")
        .stderr_has("3 capsule(s)")
        .stderr_has("2 migrated, 1 failed");
    assert!(tools.join("one/tool.yaml").is_file());
    assert!(tools.join("nested/two/tool.yaml").is_file());
    assert_eq!(snapshot(&broken), broken_before);

    // Fixed, a second run migrates the rest and leaves the others alone.
    let done_before = snapshot(&tools.join("one"));
    std::fs::write(
        broken.join("orla-tool.json"),
        r#"{"name": "three", "version": "3.0.0", "entrypoint": "main.py"}"#,
    )
    .unwrap();
    ctx.run(&["migrate", "capsule", "--all", "tools"])
        .success()
        .stderr_has("1 migrated, 0 failed, 2 already migrated");
    assert!(broken.join("tool.yaml").is_file());
    assert_eq!(snapshot(&tools.join("one")), done_before);
}

#[test]
fn a_migrated_capsule_installs_and_the_manifest_keeps_its_settings() {
    let ctx = TestContext::new();
    let dir = capsule(
        &ctx.work,
        "full",
        FULL,
        "src/server/main.py",
        Some(FULL_README),
    );
    ctx.run(&["migrate", "capsule", "full"]).success();
    // The capsule declares no permissions, so neither does its tool.yaml:
    // undeclared, high risk, so the install needs consent.
    ctx.run(&["install", "--local", dir.to_str().unwrap()])
        .failure(1)
        .stderr_has("asks for undeclared permissions (risk: high)");
    ctx.run(&["install", "--local", dir.to_str().unwrap(), "--yes"])
        .success();
    let manifest = ctx.manifest();
    let entry = manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "full-capsule")
        .unwrap()
        .clone();
    assert_eq!(entry["version"], "1.2.3");
    assert_eq!(entry["mode"], "capsule");
    assert_eq!(entry["startup_timeout_ms"], 7000);
    assert_eq!(
        entry["env"],
        serde_json::json!({"LOG_LEVEL": "debug", "WORKERS": "4"})
    );
    assert_eq!(entry["args"], serde_json::json!(["--fast", "--port=0"]));
    assert_eq!(entry["hot_load"]["mode"], "restart");
    assert_eq!(entry["hot_load"]["debounce_ms"], 250);
    let package_dir = Path::new(entry["path"].as_str().unwrap());
    let watch: Vec<PathBuf> = entry["hot_load"]["watch"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| PathBuf::from(w.as_str().unwrap()))
        .collect();
    assert_eq!(watch.len(), 2);
    assert!(watch
        .iter()
        .all(|w| w.is_absolute() && w.starts_with(package_dir)));
    assert!(entry["entrypoint"]
        .as_str()
        .unwrap()
        .ends_with("src/server/main.py"));
    assert_eq!(entry["interpreter"], "python3");
}

/// A path that does not exist was reported as "is not a directory".
#[test]
fn a_missing_capsule_path_is_said_not_to_exist() {
    let t = TestContext::new();
    t.run(&["migrate", "capsule", "no-such-capsule"])
        .failure(1)
        .stderr_has("no-such-capsule does not exist");
    t.run(&["migrate", "capsule", "--all", "no-such-dir"])
        .failure(1)
        .stderr_has("no-such-dir does not exist");
    std::fs::write(t.work.join("a-file"), "x").unwrap();
    t.run(&["migrate", "capsule", "a-file"])
        .failure(1)
        .stderr_has("a-file is not a directory");
}

/// With several wrong fields only the first was reported.
#[test]
fn every_field_that_cannot_be_migrated_is_reported_at_once() {
    let ctx = TestContext::new();
    let path = capsule(
        &ctx.work,
        "t1",
        r#"{"name": "t1", "version": "latest", "entrypoint": "main.py", "env": {"PORT": [8080]}, "hot_load": {"mode": "patch"}, "startup_timeout_ms": -1}"#,
        "main.py",
        None,
    );
    let before = snapshot(&path);
    let run = ctx.run(&["migrate", "capsule", "t1"]);
    run.failure(1)
        .stderr_has("error: version: 'latest' is not a semantic version (MAJOR.MINOR.PATCH)\n    hint: fix the field in orla-tool.json")
        .stderr_has("error: env.PORT: must be a string, not an array\n")
        .stderr_has("error: hot_load.mode: 'patch' is unknown; the only mode is \"restart\"\n    hint: set hot_load.mode to \"restart\" or remove it\n")
        .stderr_has("error: startup_timeout_ms: must be a whole number of milliseconds")
        .stderr_has(&format!(
            "error: {}/orla-tool.json: 4 fields cannot be migrated: version, hot_load.mode, env.PORT, startup_timeout_ms\nhint: fix each field above in orla-tool.json",
            path.display()
        ));
    assert_eq!(snapshot(&path), before);
}

/// `migrate capsule t2`, where only a subdirectory is a capsule, said
/// "has no orla-tool.json" and nothing of `--all`.
#[test]
fn a_directory_holding_capsules_below_it_points_at_all() {
    let ctx = TestContext::new();
    capsule(&ctx.work, "t2/x", MINIMAL, "main.py", None);
    let t2 = ctx.work.join("t2");
    ctx.run(&["migrate", "capsule", "t2"])
        .failure(1)
        .stderr_has("has no orla-tool.json\nhint: a capsule lies in a subdirectory: name it, or `orla migrate capsule --all ")
        .stderr_has(&format!("--all {}` migrates it", t2.display()));
    capsule(&ctx.work, "t2/y", MINIMAL, "main.py", None);
    ctx.run(&["migrate", "capsule", "t2"])
        .failure(1)
        .stderr_has(&format!(
            "hint: 2 capsules lie in its subdirectories; `orla migrate capsule --all {}` migrates them all",
            t2.display()
        ));
}
