//! The manifest is rewritten incrementally: name directories that did not
//! change since the last manifest are not read again and their entries are
//! copied from it (docs/manifest.md, "The manifest cache"). What is copied
//! must be byte for byte what a full regeneration writes, and anything
//! added, removed or replaced in the store (or in the manifest) since must
//! still be read and checked.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::{IndexBuilder, PackageBuilder, TestContext};

/// Name directories changed less than two seconds ago are read again by
/// the next command; waiting this long lets the next one trust them.
fn settle() {
    std::thread::sleep(Duration::from_millis(2100));
}

/// Where the cache's text says the first version of `name` has its
/// `tools` entry in the manifest: `@ LEN` and the line's end.
pub fn tools_range(cache: &str, name: &str) -> String {
    let at = cache.find(&format!("\nN {name} ")).unwrap() + 1;
    let line = at + cache[at..].find("\nP ").unwrap() + 1;
    let end = line + cache[line..].find('\n').unwrap() + 1;
    let from = line + cache[line..end].find(" @ ").unwrap() + 1;
    cache[from..end].to_string()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn description(t: &TestContext, name: &str) -> Option<String> {
    t.manifest()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .map(|e| e["description"].as_str().unwrap().to_string())
}

fn served(t: &TestContext, name: &str) -> Option<String> {
    t.manifest()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .map(|e| e["version"].as_str().unwrap().to_string())
}

/// The manifest as a full regeneration writes it: with the manifest
/// damaged, `orla list` reads every package again and rewrites it.
fn regenerated(t: &TestContext) -> String {
    let path = t.home.join("manifest.json");
    std::fs::write(&path, "{ damaged").unwrap();
    t.run(&["list"]).success().stderr_has("writing it again");
    read(&path)
}

#[test]
fn the_incremental_manifest_equals_a_full_regeneration() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.1", "json-query", "echo-capsule"])
        .success();
    t.run(&["install", "fs-read@1.2"]).success();
    t.run(&["install", "fs-read@2.0.0-rc.1"]).success();
    settle();
    // Taken from the last manifest: a version served before and now not
    // (its `installed` entry's `active` turned), one served now that was
    // not (its `tools` entry remembered outside the manifest).
    t.run(&["use", "fs-read@1.1"]).success();
    assert_eq!(served(&t, "fs-read").as_deref(), Some("1.1.0"));
    settle();
    t.run(&["use", "fs-read@1.2"]).success();
    t.run(&["install", "fs-list"]).success();
    settle();
    t.run(&["uninstall", "json-query"]).success();
    assert_eq!(served(&t, "fs-read").as_deref(), Some("1.2.1"));
    let incremental = read(&t.home.join("manifest.json"));
    assert_eq!(incremental, regenerated(&t));
    // And once more with everything remembered.
    settle();
    t.run(&["install", "http-get", "--yes"]).success();
    let incremental = read(&t.home.join("manifest.json"));
    assert_eq!(incremental, regenerated(&t));
}

/// A name directory deleted outside orla is dropped by the next command
/// (tools_dir changed). A version deleted inside a name directory the next
/// command does not touch stays in the manifest, as an edit inside a
/// package does (docs/manifest.md): `orla list` marks it missing, `orla
/// verify` fails on it, and a command on that tool drops it.
#[test]
fn a_package_removed_by_hand_is_dropped_by_a_command_on_its_tool() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.1", "json-query", "fs-list"])
        .success();
    t.run(&["install", "fs-read@1.2"]).success();
    settle();
    // The next command remembers fs-read's directory as settled.
    t.run(&["install", "http-get", "--yes"]).success();
    std::fs::remove_dir_all(t.tools_dir().join("fs-read/1.2.1")).unwrap();
    std::fs::remove_dir_all(t.tools_dir().join("json-query")).unwrap();
    let run = t.run(&["uninstall", "http-get"]);
    run.success()
        .stderr_has("json-query 1.0.0 was deleted outside orla");
    assert!(
        !run.stderr.contains("fs-read 1.2.1 was deleted"),
        "{}",
        run.stderr
    );
    let listed = t.list();
    assert!(!listed.iter().any(|(n, _)| n == "json-query"));
    assert!(listed.iter().any(|(n, v)| n == "fs-read" && v == "1.2.1"));
    t.run(&["list"]).success().stdout_has("missing");
    t.run(&["verify"])
        .failure(1)
        .stderr_has("`orla uninstall fs-read@1.2.1` drops it from the manifest");
    t.run(&["uninstall", "fs-read@1.2.1"])
        .success()
        .stderr_has("fs-read 1.2.1 was deleted outside orla");
    assert!(!t.list().iter().any(|(n, v)| n == "fs-read" && v == "1.2.1"));
    assert_eq!(served(&t, "fs-read").as_deref(), Some("1.1.0"));
    assert!(served(&t, "fs-list").is_some());
    t.run(&["uninstall", "fs-read@1.2.1"])
        .failure(1)
        .stderr_has("fs-read@1.2.1 is not installed");
    let incremental = read(&t.home.join("manifest.json"));
    assert_eq!(incremental, regenerated(&t));
}

/// `orla use` reads the directory of the tool it names again: a version
/// deleted there outside orla is dropped, and another one served.
#[test]
fn use_reads_its_tool_s_directory_again() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.1", "json-query"]).success();
    t.run(&["install", "fs-read@1.2"]).success();
    settle();
    t.run(&["install", "fs-list"]).success();
    std::fs::remove_dir_all(t.tools_dir().join("fs-read/1.2.1")).unwrap();
    t.run(&["use", "fs-read@1.1"])
        .success()
        .stderr_has("fs-read 1.2.1 was deleted outside orla");
    assert_eq!(served(&t, "fs-read").as_deref(), Some("1.1.0"));
    assert!(!t.list().iter().any(|(_, v)| v == "1.2.1"));
}

#[test]
fn a_package_planted_beside_remembered_ones_is_still_refused() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2", "json-query"]).success();
    settle();
    // A copy of an installed package: its receipt is bound to another path.
    let from = t.tools_dir().join("fs-read/1.2.1");
    for to in [
        t.tools_dir().join("fs-read/9.9.9"),
        t.tools_dir().join("planted/1.0.0"),
    ] {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        let copied = std::process::Command::new("cp")
            .arg("-a")
            .arg(&from)
            .arg(&to)
            .status()
            .unwrap();
        assert!(copied.success());
        assert!(to.join("tool.yaml").exists());
    }
    for _ in 0..2 {
        t.run(&["install", "fs-list"])
            .success()
            .stderr_has(&format!(
                "skipping {}",
                t.tools_dir().join("fs-read/9.9.9").display()
            ))
            .stderr_has(&format!(
                "skipping {}",
                t.tools_dir().join("planted/1.0.0").display()
            ));
        let listed = t.list();
        assert!(!listed.iter().any(|(_, v)| v == "9.9.9"));
        assert!(!listed.iter().any(|(n, _)| n == "planted"));
        settle();
        t.run(&["uninstall", "fs-list"]).success();
    }
}

#[test]
fn a_manifest_edited_by_hand_is_not_copied_from() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2", "json-query"]).success();
    settle();
    t.run(&["install", "fs-list"]).success();
    let genuine = description(&t, "json-query").unwrap();
    let path = t.home.join("manifest.json");
    let text = read(&path);
    let forged = text.replacen(&genuine, &"x".repeat(genuine.len()), 1);
    assert_ne!(forged, text);
    std::fs::write(&path, forged).unwrap();
    t.run(&["uninstall", "fs-list"]).success();
    assert_eq!(description(&t, "json-query"), Some(genuine));
}

#[test]
fn a_cache_written_without_the_key_is_not_believed() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2", "json-query"]).success();
    settle();
    t.run(&["install", "fs-list"]).success();
    let cache = t.home.join(".manifest-cache");
    let text = read(&cache);
    // Its entries say json-query is served from where fs-read's is: were
    // that believed, the manifest would be spliced from the wrong bytes.
    let forged = text.replacen(
        &tools_range(&text, "json-query"),
        &tools_range(&text, "fs-read"),
        1,
    );
    assert_ne!(forged, text);
    std::fs::write(&cache, forged).unwrap();
    let genuine = description(&t, "json-query");
    t.run(&["uninstall", "fs-list"]).success();
    assert_eq!(description(&t, "json-query"), genuine);
    assert_ne!(description(&t, "json-query"), description(&t, "fs-read"));
}

/// The decision docs/manifest.md records: an edit inside an installed
/// package directory (its name directory unchanged) is not read by the next
/// command; `orla verify` reports it, and reinstalling reads it.
#[test]
fn an_edit_inside_a_package_waits_for_verify_or_a_reinstall() {
    let t = TestContext::new();
    t.run(&["install", "json-query"]).success();
    settle();
    t.run(&["install", "fs-list"]).success();
    let genuine = description(&t, "json-query").unwrap();
    let dir = t.tools_dir().join(
        t.list()
            .iter()
            .find(|(n, _)| n == "json-query")
            .map(|(n, v)| format!("{n}/{v}"))
            .unwrap(),
    );
    let yaml = dir.join("tool.yaml");
    let edited = read(&yaml).replace(&genuine, "edited by hand");
    std::fs::write(&yaml, edited).unwrap();
    t.run(&["uninstall", "fs-list"]).success();
    assert_eq!(
        description(&t, "json-query").as_deref(),
        Some(genuine.as_str())
    );
    t.run(&["verify", "json-query"])
        .failure(1)
        .stdout_has("tool.yaml");
    t.run(&["install", "json-query", "--force"]).success();
    assert_eq!(
        description(&t, "json-query").as_deref(),
        Some(genuine.as_str())
    );
}

/// Uninstall, use and info read only the directories of the tools they
/// name, not every package of the root: a directory orla refuses under
/// another name is reported once, by the manifest's rewrite, or (by info,
/// which writes nothing) not at all.
#[test]
fn commands_about_some_tools_read_only_their_directories() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.1", "json-query"]).success();
    t.run(&["install", "fs-read@1.2"]).success();
    let planted = t.tools_dir().join("planted/1.0.0");
    std::fs::create_dir_all(planted.parent().unwrap()).unwrap();
    let copied = std::process::Command::new("cp")
        .arg("-a")
        .arg(t.tools_dir().join("fs-read/1.2.1"))
        .arg(&planted)
        .status()
        .unwrap();
    assert!(copied.success());
    let warning = format!("skipping {}", planted.display());
    let times = |stderr: &str| stderr.matches(&warning).count();
    let run = t.run(&["use", "fs-read@1.1"]);
    run.success();
    assert_eq!(times(&run.stderr), 1, "{}", run.stderr);
    let run = t.run(&["uninstall", "json-query"]);
    run.success();
    assert_eq!(times(&run.stderr), 1, "{}", run.stderr);
    let run = t.run(&["info", "fs-read"]);
    assert_eq!(times(&run.stderr), 0, "{}", run.stderr);
    assert!(run.stdout.contains("1.1.0"), "{}", run.stdout);
}

/// A name directory the cache remembers as unchanged is read again by the
/// install that puts a version into it, or replaces one in it.
#[test]
fn an_install_into_a_remembered_name_directory_is_served() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.1", "json-query"]).success();
    settle();
    // The next command remembers fs-read's directory; a version goes into it.
    t.run(&["install", "fs-list"]).success();
    t.run(&["install", "fs-read@1.2"]).success();
    assert_eq!(served(&t, "fs-read").as_deref(), Some("1.2.1"));
    assert!(t.list().iter().any(|(n, v)| n == "fs-read" && v == "1.1.0"));
    settle();
    // And a reinstall over the served version, the name directory swapped.
    t.run(&["install", "http-get", "--yes"]).success();
    t.run(&["install", "fs-read@1.2", "--force"]).success();
    assert_eq!(served(&t, "fs-read").as_deref(), Some("1.2.1"));
    let incremental = read(&t.home.join("manifest.json"));
    assert_eq!(incremental, regenerated(&t));
}

/// The lines of a manifest that are room left between its entries (a
/// line of spaces, docs/manifest.md "Layout"), and where each line of the
/// `tools` and `installed` entries of `name` starts.
fn layout_of(text: &str, name: &str) -> (usize, Vec<usize>) {
    let mut room = 0;
    let mut entries = Vec::new();
    let mut at = 0;
    let prefix = format!("    {{\"name\":\"{name}\",");
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        if body.bytes().all(|b| b == b' ') {
            room += 1;
        } else if body.starts_with(&prefix) {
            entries.push(at);
        }
        at += line.len();
    }
    (room, entries)
}

/// A root of 60 tools `tool-00`..`tool-59` at 1.0.0 (a manifest of about
/// 90 KB), from a registry (returned) that also has `aaa-first`,
/// `tool-20a`, `zzz-last` and `tool-05@2.0.0`.
fn large_root(t: &TestContext) -> String {
    let mut index = IndexBuilder::new(&t.dir.path().join("index"));
    let mut names = Vec::new();
    for i in 0..60 {
        let name = format!("tool-{i:02}");
        index.publish(
            &PackageBuilder::new(&name, "1.0.0")
                .yaml(&format!("keywords: [{}]\n", "padding ".repeat(20).trim())),
        );
        names.push(format!("{name}@1.0.0"));
    }
    for name in ["aaa-first", "tool-20a", "zzz-last"] {
        index.publish(&PackageBuilder::new(name, "1.0.0"));
    }
    index.publish(&PackageBuilder::new("tool-05", "2.0.0"));
    let registry = index.location();
    let mut args = vec!["install"];
    args.extend(names.iter().map(String::as_str));
    args.extend(["--registry", &registry]);
    t.run(&args).success();
    registry
}

/// In a large root an install writes a few pages of the manifest, not all
/// of it: the entries it copies stay where they were, the room between
/// them taking up what moved, and only what the spare lacks is written.
/// What it says is what a full regeneration says, and `list --json` reads
/// the same rows past the room.
#[test]
fn a_large_manifest_keeps_its_entries_in_place_and_says_what_a_regeneration_says() {
    let t = TestContext::new();
    let registry = large_root(&t);
    let manifest = t.home.join("manifest.json");
    let first = read(&manifest);
    assert!(first.len() >= 32 * 1024, "{}", first.len());
    let (room, tool_59) = layout_of(&first, "tool-59");
    assert!(
        room >= 1,
        "a fresh layout of {} bytes leaves room",
        first.len()
    );
    assert_eq!(tool_59.len(), 2);
    let json = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap();
    let entries =
        |text: &str, list: &str| -> std::collections::BTreeMap<String, serde_json::Value> {
            json(text)[list]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| (format!("{}@{}", e["name"], e["version"]), e.clone()))
                .collect()
        };
    let mut installed: std::collections::BTreeSet<String> =
        entries(&first, "installed").into_keys().collect();
    // The entries of the name directories no step changes are then copied
    // from the last manifest.
    settle();
    for (step, args) in [
        vec!["install", "aaa-first"],
        vec!["install", "tool-20a"],
        vec!["uninstall", "tool-10"],
        vec!["install", "tool-05@2.0.0"],
        vec!["uninstall", "tool-05@1.0.0", "tool-30"],
        vec!["install", "zzz-last"],
    ]
    .into_iter()
    .enumerate()
    {
        let mut args = args.clone();
        if args[0] == "install" {
            args.extend(["--registry", &registry]);
        }
        t.run(&args).success();
        let after = read(&manifest);
        // tool-59's entries come after every change but the last: they
        // stay where they were, the room before them taking the change.
        if step < 5 {
            assert_eq!(
                layout_of(&after, "tool-59").1,
                tool_59,
                "step {step} ({args:?})"
            );
        }
        // What it says: every entry it had, the changes, nothing else.
        for arg in &args[1..] {
            let (name, version) = arg.split_once('@').unwrap_or((arg, "1.0.0"));
            let key = format!("\"{name}\"@\"{version}\"");
            match args[0] {
                "install" if !arg.starts_with("--") && !arg.starts_with('/') => {
                    installed.insert(key)
                }
                "uninstall" => installed.remove(&key),
                _ => false,
            };
        }
        let now = entries(&after, "installed");
        assert_eq!(
            now.keys()
                .cloned()
                .collect::<std::collections::BTreeSet<_>>(),
            installed
        );
        let was = entries(&first, "installed");
        for (key, entry) in &now {
            if let Some(old) = was.get(key).filter(|_| !key.starts_with("\"tool-05\"")) {
                assert_eq!(entry, old, "step {step}: {key}");
            }
        }
        let listed = t.run(&["list", "--json"]).success().stdout.clone();
        let rows: Vec<serde_json::Value> = serde_json::from_str(&listed).unwrap();
        assert_eq!(rows.len(), installed.len(), "step {step}");
    }
    // `list --json` reads the same rows from the file, past its room, as
    // through a parse of it (once the file is not as orla lays it out).
    let listed = t.run(&["list", "--json"]).success().stdout.clone();
    assert!(layout_of(&read(&manifest), "-").0 > 0);
    std::fs::remove_file(t.home.join(".manifest-cache")).unwrap();
    assert_eq!(t.run(&["list", "--json"]).success().stdout, listed);
    let written = read(&manifest);
    let value = json(&written);
    std::fs::write(&manifest, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    assert_eq!(t.run(&["list", "--json"]).success().stdout, listed);
    std::fs::write(&manifest, &written).unwrap();
    assert_eq!(value, json(&regenerated(&t)));
}

/// An uninstall killed once its manifest took effect (swapped in), before
/// its journal went and its cache was written: the next command finishes
/// it forward, though rendered without that cache the same entries are
/// laid out with room in other places than in the manifest on disk.
#[test]
fn a_large_root_killed_once_its_manifest_took_effect_is_finished_forward() {
    let t = TestContext::new();
    large_root(&t);
    settle();
    t.run(&["uninstall", "tool-03"]).success();
    let cache = t.home.join(".manifest-cache");
    let cache_before = std::fs::read(&cache).unwrap();
    let tool_30 = t.tools_dir().join("tool-30/1.0.0");
    let kept = t.dir.path().join("tool-30");
    common::copy_dir(&tool_30, &kept);
    t.run(&["uninstall", "tool-30"]).success();
    let manifest = read(&t.home.join("manifest.json"));
    assert!(!manifest.contains("\"name\":\"tool-30\""));
    assert!(layout_of(&manifest, "-").0 > 0, "with room");
    // The state a kill there leaves: the package still in place, the
    // journal naming its removal, the pending marker, the last cache.
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
    std::fs::write(&cache, cache_before).unwrap();
    let listed = t.list();
    assert!(!listed.iter().any(|(n, _)| n == "tool-30"), "{listed:?}");
    assert!(!t.tools_dir().join("tool-30").exists(), "finished forward");
    assert!(!staging.exists());
    assert!(!read(&t.home.join("manifest.json")).contains("\"name\":\"tool-30\""));
}
