//! The manifest is derived whole from the store by every command that
//! changes a root: what it says is what a regeneration from nothing says,
//! it is plain JSON with nothing beside it, and whatever changed in the
//! store by hand (a package deleted, planted, a tool.yaml edited) is read
//! by the next command that writes it.

use crate::common;

use std::path::Path;

use common::{IndexBuilder, PackageBuilder, TestContext};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn tool(t: &TestContext, name: &str, key: &str) -> Option<String> {
    t.manifest()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .map(|e| e[key].as_str().unwrap().to_string())
}

/// The manifest as a full regeneration writes it: with the manifest
/// damaged, `orla list` reads every package again and rewrites it.
fn regenerated(t: &TestContext) -> String {
    let path = t.home.join("manifest.json");
    std::fs::write(&path, "{ damaged").unwrap();
    t.run(&["list"]).success().stderr_has("writing it again");
    read(&path)
}

/// Plain JSON: no line of spaces or empty line anywhere, one line per
/// entry, and no other copy of it (nor a cache of it) beside it.
fn assert_plain(t: &TestContext) {
    let text = read(&t.home.join("manifest.json"));
    serde_json::from_str::<serde_json::Value>(&text).unwrap();
    for line in text.lines() {
        assert!(!line.trim().is_empty(), "a blank line in\n{text}");
    }
    for name in std::fs::read_dir(&t.home).unwrap().flatten() {
        let name = name.file_name().to_string_lossy().into_owned();
        assert!(
            !name.starts_with(".manifest") || name == ".manifest-pending",
            "{name} beside the manifest"
        );
    }
}

#[test]
fn every_command_writes_what_a_regeneration_writes() {
    let t = TestContext::new();
    // What an earlier orla kept beside the manifest goes with the next write.
    std::fs::create_dir_all(&t.home).unwrap();
    std::fs::write(t.home.join(".manifest-spare"), "{}").unwrap();
    std::fs::write(t.home.join(".manifest-cache"), "old").unwrap();
    t.run(&["install", "fs-read@1.1", "json-query", "echo-capsule"])
        .success();
    assert_plain(&t);
    t.run(&["install", "fs-read@1.2"]).success();
    t.run(&["install", "fs-read@2.0.0-rc.1"]).success();
    t.run(&["use", "fs-read@1.1"]).success();
    assert_eq!(tool(&t, "fs-read", "version").as_deref(), Some("1.1.0"));
    t.run(&["use", "fs-read@1.2"]).success();
    t.run(&["install", "fs-list"]).success();
    t.run(&["uninstall", "json-query"]).success();
    assert_eq!(tool(&t, "fs-read", "version").as_deref(), Some("1.2.1"));
    let written = read(&t.home.join("manifest.json"));
    assert_eq!(written, regenerated(&t));
    assert_plain(&t);
}

/// A package deleted outside orla is dropped, and said to be, by the next
/// command that writes the manifest, whatever tool it is about; until then
/// `orla list` marks it missing and `orla verify` fails on it.
#[test]
fn a_package_removed_by_hand_is_dropped_by_the_next_command() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.1", "json-query", "fs-list"])
        .success();
    t.run(&["install", "fs-read@1.2"]).success();
    std::fs::remove_dir_all(t.tools_dir().join("fs-read/1.2.1")).unwrap();
    t.run(&["list"]).success().stdout_has("missing");
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&t.run(&["list", "--json"]).success().stdout).unwrap();
    let gone = rows
        .iter()
        .find(|r| r["name"] == "fs-read" && r["version"] == "1.2.1")
        .unwrap();
    assert_eq!(gone["missing"], true);
    t.run(&["verify"])
        .failure(1)
        .stderr_has("`orla uninstall fs-read@1.2.1` drops it from the manifest");
    std::fs::remove_dir_all(t.tools_dir().join("json-query")).unwrap();
    t.run(&["install", "http-get", "--yes"])
        .success()
        .stderr_has("json-query 1.0.0 was deleted outside orla")
        .stderr_has("fs-read 1.2.1 was deleted outside orla");
    let listed = t.list();
    assert!(!listed.iter().any(|(n, _)| n == "json-query"));
    assert!(!listed.iter().any(|(n, v)| n == "fs-read" && v == "1.2.1"));
    assert_eq!(tool(&t, "fs-read", "version").as_deref(), Some("1.1.0"));
    t.run(&["uninstall", "fs-read@1.2.1"])
        .failure(1)
        .stderr_has("fs-read@1.2.1 is not installed");
}

#[test]
fn a_package_planted_in_the_store_is_refused_by_every_write() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2", "json-query"]).success();
    // A copy of an installed package: its receipt is bound to another path.
    let from = t.tools_dir().join("fs-read/1.2.1");
    let planted = [
        t.tools_dir().join("fs-read/9.9.9"),
        t.tools_dir().join("planted/1.0.0"),
    ];
    for to in &planted {
        common::copy_dir(&from, to);
        assert!(to.join("tool.yaml").exists());
    }
    for args in [vec!["install", "fs-list"], vec!["uninstall", "fs-list"]] {
        let run = t.run(&args);
        run.success();
        for to in &planted {
            run.stderr_has(&format!("skipping {}", to.display()));
        }
        let listed = t.list();
        assert!(!listed.iter().any(|(_, v)| v == "9.9.9"));
        assert!(!listed.iter().any(|(n, _)| n == "planted"));
    }
}

/// The manifest is never a source: one edited by hand is written again
/// from the store by the next command.
#[test]
fn a_manifest_edited_by_hand_is_written_again_from_the_store() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2", "json-query"]).success();
    let genuine = tool(&t, "json-query", "description").unwrap();
    let path = t.home.join("manifest.json");
    let text = read(&path);
    let forged = text.replacen(&genuine, &"x".repeat(genuine.len()), 1);
    assert_ne!(forged, text);
    std::fs::write(&path, forged).unwrap();
    t.run(&["install", "fs-list"]).success();
    assert_eq!(tool(&t, "json-query", "description"), Some(genuine));
}

/// An edit inside an installed package is read by the next command that
/// writes the manifest (it says what the store holds); `orla verify`
/// reports it, and a reinstall puts the package back as published.
#[test]
fn an_edit_inside_a_package_is_reported_by_verify_and_undone_by_a_reinstall() {
    let t = TestContext::new();
    t.run(&["install", "json-query"]).success();
    let genuine = tool(&t, "json-query", "description").unwrap();
    let dir = Path::new(&tool(&t, "json-query", "path").unwrap()).to_path_buf();
    let yaml = dir.join("tool.yaml");
    std::fs::write(&yaml, read(&yaml).replace(&genuine, "edited by hand")).unwrap();
    t.run(&["verify", "json-query"])
        .failure(1)
        .stdout_has("tool.yaml");
    t.run(&["install", "json-query", "--force"]).success();
    assert_eq!(
        tool(&t, "json-query", "description").as_deref(),
        Some(genuine.as_str())
    );
    t.run(&["verify", "json-query"]).success();
}

/// An uninstall killed once its manifest took effect, before its journal
/// went: the next command finishes it forward (the manifest on disk is the
/// one the store gives without the package), in a root of many tools.
#[test]
fn an_uninstall_killed_once_its_manifest_took_effect_is_finished_forward() {
    let t = TestContext::new();
    let mut index = IndexBuilder::new(&t.dir.path().join("index"));
    let mut args = vec!["install".to_string()];
    for i in 0..40 {
        let name = format!("tool-{i:02}");
        index.publish(&PackageBuilder::new(&name, "1.0.0"));
        args.push(format!("{name}@1.0.0"));
    }
    let registry = index.location();
    args.extend(["--registry".to_string(), registry]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    t.run(&args).success();
    let tool_30 = t.tools_dir().join("tool-30/1.0.0");
    let kept = t.dir.path().join("tool-30");
    common::copy_dir(&tool_30, &kept);
    t.run(&["uninstall", "tool-30"]).success();
    let manifest = read(&t.home.join("manifest.json"));
    assert!(!manifest.contains("\"name\":\"tool-30\""));
    // The state a kill there leaves: the package still in place, the
    // journal naming its removal, the pending marker.
    std::fs::create_dir_all(tool_30.parent().unwrap()).unwrap();
    std::fs::rename(&kept, &tool_30).unwrap();
    let staging = t.tools_dir().join(".orla-staging");
    std::fs::create_dir_all(staging.join("stage-killed")).unwrap();
    std::fs::write(
        staging.join("journal"),
        "remove tool-30/1.0.0 stage-killed\n",
    )
    .unwrap();
    std::fs::write(t.home.join(".manifest-pending"), "").unwrap();
    let listed = t.list();
    assert!(!listed.iter().any(|(n, _)| n == "tool-30"), "{listed:?}");
    assert_eq!(listed.len(), 39);
    assert!(!t.tools_dir().join("tool-30").exists(), "finished forward");
    assert!(!staging.exists());
    assert_eq!(read(&t.home.join("manifest.json")), manifest);
}
