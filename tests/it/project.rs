//! Projects: `orla init`, strict orla.yaml, requirements recorded
//! in orla.yaml and pinned in orla.lock, reproducible installs on a second
//! machine, `--locked` and `--frozen`, comment-preserving edits, RFC 1
//! discovery of loose executables, project tools shadowing global ones,
//! and `orla use`.

use crate::common;

use std::path::{Path, PathBuf};

use common::server::{Behaviour, Server};
use common::{snapshot, write_file, IndexBuilder, PackageBuilder, TestContext};

/// A fresh project directory under the context's work dir.
fn project(t: &TestContext, yaml: &str) -> PathBuf {
    let dir = t.work.join("proj");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("orla.yaml"), yaml).unwrap();
    dir
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn lock(dir: &Path) -> toml::Value {
    toml::from_str(&read(&dir.join("orla.lock"))).unwrap()
}

fn pin<'a>(lock: &'a toml::Value, name: &str) -> &'a toml::Value {
    lock["tool"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"].as_str() == Some(name))
        .unwrap_or_else(|| panic!("{name} not in the lock: {lock}"))
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&read(&dir.join(".orla/manifest.json"))).unwrap()
}

/// name -> (version, root) of what a manifest serves.
fn served(manifest: &serde_json::Value) -> Vec<(String, String, String)> {
    manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["version"].as_str().unwrap().to_string(),
                t["root"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn receipt(pkg: &Path) -> serde_json::Value {
    serde_json::from_str(&read(&pkg.join(".orla-receipt.json"))).unwrap()
}

#[test]
fn init_writes_every_rfc1_option_and_never_overwrites() {
    let t = TestContext::new();
    t.run(&["init", "proj"])
        .success()
        .stderr_has("Created")
        .stderr_has("proj/orla.yaml");
    let path = t.work.join("proj/orla.yaml");
    let text = read(&path);
    for line in [
        "tools_dir: ./tools\n",
        "port: 8080\n",
        "timeout: 30\n",
        "log_format: json\n",
        "log_level: info\n",
        "tools:\n",
        "# registries:\n",
    ] {
        assert!(text.contains(line), "{line:?} missing from:\n{text}");
    }
    assert!(text.lines().filter(|l| l.starts_with('#')).count() > 10);
    // A project with nothing installed: an empty list, settings at defaults.
    let proj = t.work.join("proj");
    t.run_in(&proj, &["list", "--json"]).success();
    let m = manifest(&proj);
    assert_eq!(m["settings"]["port"], 8080);
    assert_eq!(m["settings"]["timeout_ms"], 30000);
    assert_eq!(m["settings"]["log_format"], "json");
    assert_eq!(m["settings"]["log_level"], "info");

    std::fs::write(&path, "port: 9000\n").unwrap();
    t.run(&["init", "proj"])
        .failure(1)
        .stderr_has("already exists")
        .stderr_has("hint: orla init never overwrites it");
    assert_eq!(read(&path), "port: 9000\n");
}

/// As `cargo init` ignores target/: what `orla install` recreates is not
/// committed; what the project is (orla.yaml, orla.lock, its own loose
/// executables) is.
#[test]
fn init_keeps_installed_packages_out_of_git_and_warns_when_nested() {
    let t = TestContext::new();
    let dir = t.work.join("proj");
    std::fs::create_dir_all(&dir).unwrap();
    let repo = git2::Repository::init(&dir).unwrap();
    std::fs::write(dir.join(".gitignore"), "target/\n").unwrap();
    t.run_in(&dir, &["init"])
        .success()
        .stderr_has("Updated ")
        .stderr_has(".gitignore (ignores /tools/*/ and /.orla/");
    assert!(read(&dir.join(".gitignore")).starts_with("target/\n"));
    t.run_in(&dir, &["install", "fs-read@1.2"]).success();
    write_file(&dir.join("tools/mine.sh"), "#!/bin/sh\n", true);
    let ignored = |path: &str| repo.status_should_ignore(Path::new(path)).unwrap();
    assert!(ignored("tools/fs-read/1.2.1/tool.yaml"));
    assert!(ignored(".orla/manifest.json"));
    for kept in ["orla.yaml", "orla.lock", "tools/mine.sh", ".gitignore"] {
        assert!(!ignored(kept), "{kept} is ignored");
    }

    // Inside a project: said, since commands there stop reaching it.
    let run = t.run_in(&dir, &["init", "sub/a"]);
    run.success().stderr_has(&format!(
        "warning: this project is inside the one of {}",
        dir.join("orla.yaml").display()
    ));
    // Not in a fresh place.
    let alone = t.run(&["init", "elsewhere"]);
    assert!(!alone.stderr.contains("warning"), "{}", alone.stderr);
}

#[test]
fn orla_yaml_errors_name_the_key_and_the_line() {
    let t = TestContext::new();
    for (yaml, needles) in [
        (
            "# my project\ntools_dir: ./tools\nprot: 8080\n",
            &[
                "orla.yaml, line 3: unknown key 'prot'",
                "hint: did you mean 'port'?",
            ][..],
        ),
        (
            "port: 80\nlog_level: loud\n",
            &["line 2: log_level: unknown value `loud`"][..],
        ),
        (
            "timeout: -4\n",
            &["line 1: timeout: -4 is not a timeout"][..],
        ),
        (
            "port: 70000\n",
            &["line 1: port: 70000 is not a port number"][..],
        ),
        (
            "tools:\n  fs-read: \"^1.2\"\n  json-query: soon\n",
            &["line 3: tools: json-query: 'soon' is neither a version nor a requirement"][..],
        ),
        ("port: 1\nport: 2\n", &["line 2: 'port' is given twice"][..]),
    ] {
        let dir = project(&t, yaml);
        let run = t.run_in(&dir, &["list"]);
        run.failure(1);
        for needle in needles {
            run.stderr_has(needle);
        }
        // Installing is refused the same way, before anything happens.
        t.run_in(&dir, &["install", "fs-read"]).failure(1);
        assert!(!dir.join("tools").exists());
        assert!(!dir.join("orla.lock").exists());
    }
}

#[test]
fn install_records_the_requirement_and_pins_the_exact_version() {
    let t = TestContext::new();
    t.run(&["init", "proj"]).success();
    let dir = t.work.join("proj");
    t.run_in(&dir, &["install", "fs-read@1.1"])
        .success()
        .stderr_has("Installed fs-read 1.1.0")
        .stderr_has("Locked fs-read 1.1.0 (\"1.1\")");
    // A bare name records `^VERSION`, as cargo add does.
    t.run_in(&dir, &["install", "json-query"]).success();
    let yaml = read(&dir.join("orla.yaml"));
    assert!(
        yaml.ends_with("tools:\n  fs-read: \"1.1\"\n  json-query: \"^1.0.0\"\n"),
        "{yaml}"
    );

    let text = read(&dir.join("orla.lock"));
    assert!(text.starts_with("# This file is generated by orla; do not edit it by hand."));
    let lock = lock(&dir);
    assert_eq!(lock["lock_version"].as_integer(), Some(1));
    let fs = pin(&lock, "fs-read");
    assert_eq!(fs["version"].as_str(), Some("1.1.0"));
    assert_eq!(fs["requirement"].as_str(), Some("1.1"));
    assert_eq!(fs["registry"].as_str(), Some("builtin"));
    assert_eq!(
        fs["archive"].as_str(),
        Some("builtin:archives/fs-read/fs-read-1.1.0.tar.gz")
    );
    let pkg = dir.join("tools/fs-read/1.1.0");
    let r = receipt(&pkg);
    assert_eq!(fs["blake3"].as_str(), r["source"]["blake3"].as_str());
    assert_eq!(fs["size"].as_integer(), r["source"]["size"].as_i64());
    // Stable ordering: tools by name, fields in a fixed order.
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("name = "))
        .collect();
    assert_eq!(names, ["\"fs-read\"", "\"json-query\""]);
    let keys: Vec<&str> = text
        .split("[[tool]]")
        .nth(1)
        .unwrap()
        .lines()
        .filter_map(|l| l.split(" = ").next())
        .filter(|k| !k.is_empty())
        .collect();
    assert_eq!(
        keys,
        [
            "name",
            "version",
            "requirement",
            "registry",
            "archive",
            "blake3",
            "size",
            "permissions"
        ]
    );

    // Installing again changes nothing, not even the lock's bytes.
    let before = snapshot(&dir);
    t.run_in(&dir, &["install"])
        .success()
        .stderr_has("Up to date");
    t.run_in(&dir, &["install", "fs-read"]).success();
    let after = snapshot(&dir);
    // The manifest is not even rewritten: it says that already.
    assert_eq!(before, after);

    // Updating the requirement moves the pin.
    t.run_in(&dir, &["install", "fs-read@^1.2"])
        .success()
        .stderr_has("Locked fs-read 1.2.1 (\"^1.2\")");
    assert_eq!(
        pin(&lock_of(&dir), "fs-read")["version"].as_str(),
        Some("1.2.1")
    );
    assert!(read(&dir.join("orla.yaml")).contains("  fs-read: \"^1.2\"\n"));
    assert_eq!(
        served(&manifest(&dir))[0],
        ("fs-read".into(), "1.2.1".into(), "project".into())
    );
}

fn lock_of(dir: &Path) -> toml::Value {
    lock(dir)
}

/// A directory index whose archives are served over HTTP by `server`.
fn http_index(t: &TestContext, server: &Server, pkgs: &[(&str, &str)]) -> IndexBuilder {
    let mut index = IndexBuilder::new(&t.dir.path().join("index"));
    for (name, version) in pkgs {
        publish_http(&mut index, server, name, version);
    }
    index
}

fn publish_http(index: &mut IndexBuilder, server: &Server, name: &str, version: &str) {
    index.publish(&PackageBuilder::new(name, version));
    let rel = index.config.archive_for(name, version);
    let bytes = std::fs::read(index.root.join(&rel)).unwrap();
    let path = format!("/{name}-{version}.tar.gz");
    server.route(&path, Behaviour::Serve(bytes));
    let url = server.url(&path);
    let v: semver::Version = version.parse().unwrap();
    index.edit_records(name, |r| {
        if r.version == v {
            r.archive = Some(url.clone());
        }
    });
}

fn project_with_registry(t: &TestContext, index: &IndexBuilder) -> PathBuf {
    project(
        t,
        &format!(
            "# team tools\nregistries:\n  - name: team\n    location: {}\n\ntools:\n",
            index.location()
        ),
    )
}

#[test]
fn a_second_machine_installs_identical_bytes_from_the_lock() {
    let server = Server::start();
    let a = TestContext::new();
    let mut index = http_index(&a, &server, &[("alpha", "1.0.0"), ("beta", "2.0.0")]);
    let dir_a = project_with_registry(&a, &index);
    a.run_in(&dir_a, &["install", "alpha@1", "beta"]).success();
    assert_eq!(server.requests(), 2);
    let lock_text = read(&dir_a.join("orla.lock"));
    assert!(lock_text.contains(&server.url("/alpha-1.0.0.tar.gz")));

    // Newer versions appear; the lock still says 1.0.0 and 2.0.0.
    publish_http(&mut index, &server, "alpha", "1.1.0");
    publish_http(&mut index, &server, "beta", "2.1.0");

    // A clean machine: its own ORLA_HOME and cache, the same project files.
    let b = TestContext::new();
    let dir_b = b.work.join("proj");
    std::fs::create_dir_all(&dir_b).unwrap();
    for f in ["orla.yaml", "orla.lock"] {
        std::fs::copy(dir_a.join(f), dir_b.join(f)).unwrap();
    }
    b.run_in(&dir_b, &["install"])
        .success()
        .stderr_has("Installed alpha 1.0.0")
        .stderr_has("Installed beta 2.0.0");
    assert_eq!(server.requests(), 4);
    assert_eq!(read(&dir_b.join("orla.lock")), lock_text);
    for pkg in ["alpha/1.0.0", "beta/2.0.0"] {
        let (ra, rb) = (
            receipt(&dir_a.join("tools").join(pkg)),
            receipt(&dir_b.join("tools").join(pkg)),
        );
        assert_eq!(ra["source"]["blake3"], rb["source"]["blake3"]);
        assert_eq!(ra["files"], rb["files"], "{pkg}: every file's BLAKE3");
    }
    let (ma, mb) = (manifest(&dir_a), manifest(&dir_b));
    assert_eq!(served(&ma), served(&mb));
    assert!(!dir_b.join("tools/alpha/1.1.0").exists());
}

#[test]
fn locked_fails_on_drift_and_plain_install_resolves_only_what_changed() {
    let server = Server::start();
    let t = TestContext::new();
    let mut index = http_index(&t, &server, &[("alpha", "1.0.0"), ("beta", "1.0.0")]);
    let dir = project_with_registry(&t, &index);
    t.run_in(&dir, &["install", "alpha@^1", "beta@^1"])
        .success();
    publish_http(&mut index, &server, "alpha", "1.1.0");
    publish_http(&mut index, &server, "beta", "1.1.0");
    publish_http(&mut index, &server, "beta", "2.0.0");
    let lock_before = read(&dir.join("orla.lock"));

    // The lock answers every requirement: --locked installs, changes nothing.
    t.run_in(&dir, &["install", "--locked"]).success();
    assert_eq!(read(&dir.join("orla.lock")), lock_before);

    // Someone edits beta's requirement by hand.
    let yaml = read(&dir.join("orla.yaml")).replace("beta: \"^1\"", "beta: \"^2\"");
    std::fs::write(dir.join("orla.yaml"), &yaml).unwrap();
    let before = snapshot(&dir);
    t.run_in(&dir, &["install", "--locked"])
        .failure(1)
        .stderr_has("orla.lock is out of date and --locked forbids changing it")
        .stderr_has("beta: orla.yaml asks for \"^2\" but orla.lock pins 1.0.0 for \"^1\"")
        .stderr_has("hint: run `orla install` without --locked");
    assert_eq!(snapshot(&dir), before);
    // A new tool on the command line would change both files.
    t.run_in(&dir, &["install", "--locked", "fs-read"])
        .failure(1)
        .stderr_has("fs-read is not in orla.yaml");

    // Without --locked, only beta is resolved again: alpha stays at 1.0.0
    // although 1.1.0 matches its requirement.
    t.run_in(&dir, &["install"])
        .success()
        .stderr_has("Installed beta 2.0.0")
        .stderr_has("Locked beta 2.0.0 (\"^2\")");
    let lock = lock(&dir);
    assert_eq!(pin(&lock, "alpha")["version"].as_str(), Some("1.0.0"));
    assert_eq!(pin(&lock, "beta")["version"].as_str(), Some("2.0.0"));
    assert_eq!(read(&dir.join("orla.yaml")), yaml);

    // A tool removed from orla.yaml by hand loses its pin.
    let yaml = yaml.replace("  alpha: \"^1\"\n", "");
    std::fs::write(dir.join("orla.yaml"), &yaml).unwrap();
    t.run_in(&dir, &["install", "--locked"])
        .failure(1)
        .stderr_has("alpha is pinned in orla.lock but orla.yaml no longer asks for it");
    t.run_in(&dir, &["install"])
        .success()
        .stderr_has("Unlocked alpha");
    assert!(!read(&dir.join("orla.lock")).contains("alpha"));
}

#[test]
fn frozen_installs_from_the_cache_and_never_touches_the_network() {
    let server = Server::start();
    let a = TestContext::new();
    let index = http_index(&a, &server, &[("alpha", "1.0.0")]);
    let dir_a = project_with_registry(&a, &index);
    a.run_in(&dir_a, &["install", "alpha"]).success();
    assert_eq!(server.requests(), 1);
    // From now on the server serves nothing.
    server.route("/alpha-1.0.0.tar.gz", Behaviour::Status(500));

    // Same cache, same user (the receipt key that seals the cache's
    // records), fresh ORLA_HOME and project: installs with no request.
    let mut b = TestContext::new();
    b.cache = a.cache.clone();
    std::fs::create_dir_all(&b.home).unwrap();
    std::fs::copy(a.home.join("receipt.key"), b.home.join("receipt.key")).unwrap();
    let dir_b = b.work.join("proj");
    std::fs::create_dir_all(&dir_b).unwrap();
    for f in ["orla.yaml", "orla.lock"] {
        std::fs::copy(dir_a.join(f), dir_b.join(f)).unwrap();
    }
    b.run_in(&dir_b, &["install", "--frozen"])
        .success()
        .stderr_has("Installed alpha 1.0.0");
    assert_eq!(server.requests(), 1);
    assert_eq!(
        receipt(&dir_b.join("tools/alpha/1.0.0"))["files"],
        receipt(&dir_a.join("tools/alpha/1.0.0"))["files"]
    );

    // An empty cache: --frozen says which archive is missing, asks nothing
    // of the network, and installs nothing.
    let c = TestContext::new();
    let dir_c = c.work.join("proj");
    std::fs::create_dir_all(&dir_c).unwrap();
    for f in ["orla.yaml", "orla.lock"] {
        std::fs::copy(dir_a.join(f), dir_c.join(f)).unwrap();
    }
    c.run_in(&dir_c, &["install", "--frozen"])
        .failure(1)
        .stderr_has("--frozen forbids the network, and the archive of alpha 1.0.0")
        .stderr_has("is not in the download cache");
    assert_eq!(server.requests(), 1);
    assert!(!dir_c.join("tools").exists());
    // --frozen also refuses drift, before looking at any registry.
    std::fs::write(
        dir_c.join("orla.yaml"),
        read(&dir_c.join("orla.yaml")).replace("alpha: \"^1.0.0\"", "alpha: \"2\""),
    )
    .unwrap();
    c.run_in(&dir_c, &["install", "--frozen"])
        .failure(1)
        .stderr_has("--frozen forbids changing it");
    assert_eq!(server.requests(), 1);
}

#[test]
fn edits_of_orla_yaml_keep_comments_order_and_quoting() {
    let t = TestContext::new();
    let original = "\
# Tools for the docs team.
log_level: debug   # noisy on purpose

tools:
  # the JSON helper
  json-query: '1'      # keep it on 1.x
  fs-list: \"^1\"

# the rest is RFC 1
port: 9000
";
    let dir = project(&t, original);
    t.run_in(&dir, &["install", "json-query", "fs-list"])
        .success();
    assert_eq!(read(&dir.join("orla.yaml")), original, "nothing to change");

    t.run_in(&dir, &["install", "fs-read@~1.1"]).success();
    let added = original.replace(
        "  fs-list: \"^1\"\n",
        "  fs-list: \"^1\"\n  fs-read: \"~1.1\"\n",
    );
    assert_eq!(read(&dir.join("orla.yaml")), added);

    t.run_in(&dir, &["install", "json-query@1.0.0"]).success();
    let updated = added.replace("json-query: '1'      #", "json-query: \"1.0.0\"      #");
    assert_eq!(read(&dir.join("orla.yaml")), updated);

    // Uninstall removes the requirement and the pin, and only them.
    t.run_in(&dir, &["uninstall", "fs-list"])
        .success()
        .stderr_has("Removed fs-list 1.0.0")
        .stderr_has("Forgot fs-list");
    assert_eq!(
        read(&dir.join("orla.yaml")),
        updated.replace("  fs-list: \"^1\"\n", "")
    );
    assert!(!read(&dir.join("orla.lock")).contains("fs-list"));
    assert!(!dir.join("tools/fs-list").exists());
    // A project with no tools: block gets one.
    let dir2 = t.work.join("proj2");
    std::fs::create_dir_all(&dir2).unwrap();
    std::fs::write(dir2.join("orla.yaml"), "port: 1234 # mine\n").unwrap();
    t.run_in(&dir2, &["install", "fs-read@1.2"]).success();
    assert_eq!(
        read(&dir2.join("orla.yaml")),
        "port: 1234 # mine\n\ntools:\n  fs-read: \"1.2\"\n"
    );
    // Uninstalling a required tool this machine never installed still
    // removes it from the project.
    let dir3 = t.work.join("proj3");
    std::fs::create_dir_all(&dir3).unwrap();
    std::fs::copy(dir2.join("orla.yaml"), dir3.join("orla.yaml")).unwrap();
    std::fs::copy(dir2.join("orla.lock"), dir3.join("orla.lock")).unwrap();
    t.run_in(&dir3, &["uninstall", "fs-read"])
        .success()
        .stderr_has("Forgot fs-read");
    assert_eq!(
        read(&dir3.join("orla.yaml")),
        "port: 1234 # mine\n\ntools:\n"
    );
}

fn discovery_project(t: &TestContext) -> PathBuf {
    let dir = project(t, "tools_dir: ./tools\n");
    let tools = dir.join("tools");
    write_file(&tools.join("ls.sh"), "#!/bin/bash\nls \"$@\"\n", true);
    write_file(
        &tools.join("summarize.py"),
        "#!/usr/bin/env python3\nprint('summary')\n",
        true,
    );
    write_file(&tools.join("convert"), "\x7fELF not really\n", true);
    write_file(&tools.join("notes.txt"), "not a tool\n", false);
    dir
}

#[test]
fn loose_executables_are_discovered_with_their_interpreters() {
    let t = TestContext::new();
    let dir = discovery_project(&t);
    let list = t.run_in(&dir, &["list", "--json"]).success().json();
    let rows: Vec<(&str, &str, bool)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap(),
                e["source"]["kind"].as_str().unwrap(),
                e["active"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("convert", "discovered", true),
            ("ls", "discovered", true),
            ("summarize", "discovered", true)
        ]
    );
    let m = manifest(&dir);
    let tools = m["tools"].as_array().unwrap();
    let by_name = |n: &str| tools.iter().find(|t| t["name"] == n).unwrap().clone();
    let ls = by_name("ls");
    assert_eq!(ls["interpreter"], "bash");
    assert_eq!(
        ls["entrypoint"],
        dir.join("tools/ls.sh").display().to_string()
    );
    assert_eq!(ls["source"]["kind"], "discovered");
    assert_eq!(
        ls["source"]["blake3"],
        blake3::hash(b"#!/bin/bash\nls \"$@\"\n").to_hex().as_str()
    );
    assert_eq!(ls["source"]["size"], b"#!/bin/bash\nls \"$@\"\n".len());
    assert_eq!(ls["risk_level"], "high");
    assert_eq!(ls["mode"], "simple");
    assert_eq!(by_name("summarize")["interpreter"], "python3");
    assert_eq!(by_name("convert")["interpreter"], serde_json::Value::Null);
    assert!(tools.iter().all(|t| t["name"] != "notes"));

    // A table row says where it came from.
    t.run_in(&dir, &["list"]).success().stdout_has("discovered");
    // A file dropped in later is noticed by the next list.
    write_file(&dir.join("tools/late.sh"), "#!/bin/sh\n", true);
    let list = t.run_in(&dir, &["list", "--json"]).success().json();
    assert_eq!(list.as_array().unwrap().len(), 4);
    assert!(served(&manifest(&dir)).iter().any(|(n, _, _)| n == "late"));
}

#[test]
fn an_installed_package_wins_over_a_discovered_file_of_the_same_name() {
    let t = TestContext::new();
    let dir = discovery_project(&t);
    write_file(
        &dir.join("tools/fs-read.sh"),
        "#!/bin/sh\necho mine\n",
        true,
    );
    t.run_in(&dir, &["install", "fs-read@1.2"])
        .success()
        .stderr_has("fs-read.sh is not served: the installed package fs-read has the same name");
    let m = manifest(&dir);
    let fs: Vec<_> = m["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"] == "fs-read")
        .collect();
    assert_eq!(fs.len(), 1);
    assert_eq!(fs[0]["source"]["kind"], "registry");
    let loose = m["installed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "fs-read" && e["source"]["kind"] == "discovered")
        .unwrap();
    assert_eq!(loose["active"], false);
    // Removing the package serves the file again.
    t.run_in(&dir, &["uninstall", "fs-read"]).success();
    let m = manifest(&dir);
    let fs = m["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "fs-read")
        .unwrap();
    assert_eq!(fs["source"]["kind"], "discovered");
}

#[test]
fn project_tools_shadow_global_tools_of_the_same_name() {
    let t = TestContext::new();
    // Global: fs-read 1.1.0 and json-query.
    t.run(&["install", "fs-read@1.1", "json-query"]).success();
    let dir = project(&t, "tools:\n");
    t.run_in(&dir, &["install", "fs-read@1.2"]).success();

    let m = manifest(&dir);
    assert_eq!(
        served(&m),
        [
            ("fs-read".into(), "1.2.1".into(), "project".into()),
            ("json-query".into(), "1.0.0".into(), "global".into()),
        ]
    );
    // The default list shows both roots; the global fs-read is shadowed.
    let list = t.run_in(&dir, &["list", "--json"]).success().json();
    let rows: Vec<(String, String, String, bool)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().into(),
                e["version"].as_str().unwrap().into(),
                e["root"].as_str().unwrap().into(),
                e["active"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("fs-read".into(), "1.2.1".into(), "project".into(), true),
            ("fs-read".into(), "1.1.0".into(), "global".into(), false),
            ("json-query".into(), "1.0.0".into(), "global".into(), true),
        ]
    );
    t.run_in(&dir, &["list"]).success().stdout_has("ROOT");
    let project_only = t
        .run_in(&dir, &["list", "--project", "--json"])
        .success()
        .json();
    assert_eq!(project_only.as_array().unwrap().len(), 1);
    let global = t
        .run_in(&dir, &["list", "--global", "--json"])
        .success()
        .json();
    let global: Vec<&str> = global
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["version"].as_str().unwrap())
        .collect();
    assert_eq!(global, ["1.1.0", "1.0.0"]);
    t.run(&["list", "--project"])
        .failure(2)
        .stderr_has("no orla.yaml");

    // A global install made elsewhere shows up in the project's next list.
    t.run(&["install", "fs-list"]).success();
    t.run_in(&dir, &["list", "--json"]).success();
    assert!(served(&manifest(&dir)).contains(&("fs-list".into(), "1.0.0".into(), "global".into())));
}

#[test]
fn use_chooses_the_served_version() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.1", "fs-read@1.2"]).success();
    assert_eq!(t.manifest()["tools"][0]["version"], "1.2.1");
    t.run(&["use", "fs-read@1.1.0"])
        .success()
        .stderr_has("Using fs-read 1.1.0");
    assert_eq!(t.manifest()["tools"][0]["version"], "1.1.0");
    let pins: serde_json::Value = serde_json::from_str(&read(&t.home.join("pins.json"))).unwrap();
    assert_eq!(pins["tools"]["fs-read"], "1.1.0");
    // A pin survives a newer install.
    t.run(&["install", "fs-read@1.0"]).success();
    assert_eq!(t.manifest()["tools"][0]["version"], "1.1.0");
    // `orla use NAME` goes back to the newest.
    t.run(&["use", "fs-read"]).success();
    assert_eq!(t.manifest()["tools"][0]["version"], "1.2.1");
    assert!(!t.home.join("pins.json").exists());
    t.run(&["use", "fs-read@2"])
        .failure(1)
        .stderr_has("no installed version of fs-read matches '2'; installed: 1.0.0, 1.1.0, 1.2.1");
    t.run(&["use", "json-query@1"])
        .failure(1)
        .stderr_has("json-query");
    // Uninstalling the pinned version drops the pin.
    t.run(&["use", "fs-read@1.0.0"]).success();
    t.run(&["uninstall", "fs-read@1.0.0"]).success();
    assert!(!t.home.join("pins.json").exists());

    // In a project the choice goes into orla.lock (and orla.yaml when the
    // requirement does not allow it), so every machine serves it.
    let dir = project(&t, "tools:\n  fs-read: \"^1.1\" # any 1.x from 1.1\n");
    t.run_in(&dir, &["install"]).success();
    t.run_in(&dir, &["install", "fs-read@1.1.0"]).success();
    assert!(read(&dir.join("orla.yaml")).contains("fs-read: \"1.1.0\" # any 1.x"));
    t.run_in(&dir, &["install", "fs-read@^1.1"]).success();
    assert_eq!(served(&manifest(&dir))[0].1, "1.2.1");
    t.run_in(&dir, &["use", "fs-read@1.1.0"]).success();
    assert_eq!(served(&manifest(&dir))[0].1, "1.1.0");
    assert!(read(&dir.join("orla.yaml")).contains("fs-read: \"^1.1\" # any 1.x"));
    assert_eq!(
        pin(&lock(&dir), "fs-read")["version"].as_str(),
        Some("1.1.0")
    );
    assert_eq!(
        pin(&lock(&dir), "fs-read")["requirement"].as_str(),
        Some("^1.1")
    );
    // The lock is consistent: --locked accepts it and serves 1.1.0.
    t.run_in(&dir, &["install", "--locked"]).success();
    assert_eq!(served(&manifest(&dir))[0].1, "1.1.0");
    // Outside the requirement: orla.yaml follows.
    t.run_in(&dir, &["install", "fs-read@1.0.0"]).success();
    t.run_in(&dir, &["install", "fs-read@^1.1"]).success();
    t.run_in(&dir, &["use", "fs-read@1.0.0"])
        .success()
        .stderr_has("orla.yaml: fs-read: \"1.0.0\"");
    assert!(read(&dir.join("orla.yaml")).contains("fs-read: \"1.0.0\" # any 1.x"));
    assert_eq!(served(&manifest(&dir))[0].1, "1.0.0");
    // --global acts on the global root from inside the project.
    t.run_in(&dir, &["use", "--global", "fs-read@1.1.0"])
        .success();
    assert_eq!(t.manifest()["tools"][0]["version"], "1.1.0");
}

#[test]
fn update_in_a_project_moves_the_pin_too() {
    let server = Server::start();
    let t = TestContext::new();
    let mut index = http_index(&t, &server, &[("alpha", "1.0.0")]);
    let dir = project_with_registry(&t, &index);
    t.run_in(&dir, &["install", "alpha@^1"]).success();
    publish_http(&mut index, &server, "alpha", "1.1.0");
    publish_http(&mut index, &server, "alpha", "2.0.0");
    let run = t.run_in(&dir, &["update"]);
    run.success();
    // What moved first, then the lock that records it.
    let updated = run.stderr.find("Updated alpha 1.0.0 -> 1.1.0").unwrap();
    let locked = run.stderr.find("Locked the updated versions in").unwrap();
    assert!(updated < locked, "{}", run.stderr);
    let lock = lock(&dir);
    assert_eq!(pin(&lock, "alpha")["version"].as_str(), Some("1.1.0"));
    assert_eq!(pin(&lock, "alpha")["requirement"].as_str(), Some("^1"));
    assert_eq!(served(&manifest(&dir))[0].1, "1.1.0");
    // The lock agrees with what is installed: nothing to do.
    t.run_in(&dir, &["install", "--frozen"])
        .success()
        .stderr_has("Up to date");
}

#[test]
fn uninstall_naming_a_tool_twice_forgets_it_once() {
    let t = TestContext::new();
    let dir = project(&t, "tools_dir: ./tools\n");
    t.run_in(&dir, &["install", "fs-read"]).success();
    let run = t.run_in(&dir, &["uninstall", "fs-read", "fs-read"]);
    run.success();
    assert_eq!(
        run.stderr.matches("Forgot fs-read").count(),
        1,
        "{}",
        run.stderr
    );
    assert!(!read(&dir.join("orla.yaml")).contains("fs-read"));
}

#[test]
fn uninstall_or_use_of_a_tool_not_installed_leaves_a_fresh_root_untouched() {
    let t = TestContext::new();
    let before = snapshot(t.dir.path());
    t.run(&["uninstall", "fs-read"])
        .failure(1)
        .stderr_has("fs-read is not installed");
    t.run(&["use", "fs-read@1.0.0"])
        .failure(1)
        .stderr_has("fs-read is not installed");
    assert_eq!(snapshot(t.dir.path()), before);
    assert!(!t.home.exists(), "no ORLA_HOME (or lock file) was created");
}

/// `orla install --local PKG json-query` in a project installed json-query
/// without recording it in orla.yaml or orla.lock (so `--frozen` then
/// failed), and `--local --locked` said there was no orla.yaml.
#[test]
fn local_in_a_project_takes_no_tool_names_and_no_lock_flags() {
    let t = TestContext::new();
    let dir = project(&t, "");
    let pkg = PackageBuilder::new("mine", "0.1.0").write(t.dir.path());
    let pkg = pkg.to_str().unwrap();
    let before = snapshot(&dir);
    t.run_in(&dir, &["install", "--local", pkg, "json-query"])
        .failure(2)
        .stderr_has("--local cannot be combined with tool names");
    t.run_in(&dir, &["install", "--local", pkg, "--frozen"])
        .failure(2)
        .stderr_has("it cannot be combined with --locked or --frozen");
    assert_eq!(snapshot(&dir), before);
    t.run_in(&dir, &["install", "--local", pkg]).success();
    assert!(dir.join("tools/mine/0.1.0/tool.yaml").is_file());
}

#[test]
fn an_empty_directory_the_user_made_in_tools_dir_survives_an_install() {
    // Recovery removes name directories a killed install left empty, but
    // only when there is something to recover: a project's tools_dir is the
    // user's too.
    let t = TestContext::new();
    let dir = project(&t, "tools_dir: ./tools\n");
    std::fs::create_dir_all(dir.join("tools/my-scripts")).unwrap();
    t.run_in(&dir, &["install", "fs-list"]).success();
    t.run_in(&dir, &["uninstall", "fs-list"]).success();
    assert!(dir.join("tools/my-scripts").is_dir());
}

/// In a project, `orla list` shows global tools; `use`, `verify` and
/// `uninstall` of one said only "not installed; `orla list` shows what is
/// installed", and the list showed it installed.
#[test]
fn commands_on_a_global_tool_inside_a_project_say_where_it_is() {
    let t = TestContext::new();
    t.run(&["install", "json-query"]).success();
    let dir = project(&t, "");
    t.run_in(&dir, &["list"]).success().stdout_has("json-query");
    t.run_in(&dir, &["use", "json-query@1.0.0"])
        .failure(1)
        .stderr_has("hint: json-query is installed globally")
        .stderr_has("pass --global");
    t.run_in(&dir, &["verify", "json-query"])
        .failure(1)
        .stderr_has("hint: json-query is installed globally")
        .stderr_has("run the command outside this project");
    // uninstall takes --global.
    t.run_in(&dir, &["uninstall", "json-query"])
        .failure(1)
        .stderr_has("hint: json-query is installed globally")
        .stderr_has("pass --global");
    t.run_in(&dir, &["uninstall", "nothing-here"])
        .failure(1)
        .stderr_has("hint: `orla list` shows what is installed");
}

/// `orla install fs-read@1.2 fs-read@1.1` in a project recorded the last
/// one and silently dropped the first.
#[test]
fn a_tool_named_twice_with_different_versions_is_a_usage_error() {
    let t = TestContext::new();
    let dir = project(&t, "");
    let before = snapshot(&dir);
    t.run_in(&dir, &["install", "fs-read@1.2", "fs-read@1.1"])
        .failure(2)
        .stderr_has("fs-read is named twice with different versions ('1.2' and '1.1')");
    assert_eq!(snapshot(&dir), before);
    t.run_in(&dir, &["install", "fs-read@1.1", "fs-read@1.1"])
        .success();
    assert!(read(&dir.join("orla.yaml")).contains("fs-read: \"1.1\""));
}

/// `orla init DIR` from elsewhere suggested `orla install`, which would
/// then have installed outside the new project.
#[test]
fn init_elsewhere_says_to_cd_into_the_project_first() {
    let t = TestContext::new();
    t.run(&["init", "my proj"]).success().stderr_has(&format!(
        "Next `cd '{}' && orla install NAME@VERSION`",
        t.work.join("my proj").display()
    ));
    t.run_in(&t.work.join("my proj"), &["list"]).success();
    std::fs::create_dir_all(t.work.join("here")).unwrap();
    let here = t.run_in(&t.work.join("here"), &["init"]);
    here.success()
        .stderr_has("Next `orla install NAME@VERSION`");
}

/// Regression: orla.lock could name any local file (`--frozen` hashed
/// /etc/hostname and printed its digest and size). A lock comes with the
/// project, so its entries obey the rules of index records: a local file
/// only from a local directory registry, and only inside it.
#[test]
fn a_lock_cannot_name_a_local_file_outside_its_registry() {
    let t = TestContext::new();
    let mut index = IndexBuilder::new(&t.dir.path().join("index"));
    index.publish(&PackageBuilder::new("alpha", "1.0.0"));
    let dir = project_with_registry(&t, &index);
    t.run_in(&dir, &["install", "alpha"]).success();
    let good_lock = read(&dir.join("orla.lock"));
    let local = pin(&lock(&dir), "alpha")["archive"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(local.contains("index"), "{local}");

    let secret = t.dir.path().join("secret.txt");
    std::fs::write(&secret, "a private file\n").unwrap();
    let secret_digest = orla::verify::Digest::of(b"a private file\n").to_string();
    let planted = |registry: &str, archive: &str| {
        let mut text = good_lock.replace(&local, archive);
        text = text.replace("registry = \"team\"", &format!("registry = \"{registry}\""));
        text
    };
    for (case, registry, archive) in [
        (
            "outside the directory registry",
            "team",
            secret.display().to_string(),
        ),
        (
            "file URL outside it",
            "team",
            format!("file://{}", secret.display()),
        ),
        (
            "from the built-in registry",
            "builtin",
            secret.display().to_string(),
        ),
    ] {
        let other = TestContext::new();
        let proj = other.work.join("proj");
        std::fs::create_dir_all(&proj).unwrap();
        std::fs::copy(dir.join("orla.yaml"), proj.join("orla.yaml")).unwrap();
        std::fs::write(proj.join("orla.lock"), planted(registry, &archive)).unwrap();
        let run = other.run_in(&proj, &["install", "--frozen"]);
        run.failure(1)
            .stderr_has("orla.lock: ")
            .stderr_has("is a local file");
        assert!(
            !run.stderr.contains(&secret_digest),
            "{case}: {}",
            run.stderr
        );
        assert!(!proj.join("tools/alpha").exists(), "{case}");
    }
    // The lock's own pin, inside the directory registry, still installs.
    let other = TestContext::new();
    let proj = other.work.join("proj");
    std::fs::create_dir_all(&proj).unwrap();
    for f in ["orla.yaml", "orla.lock"] {
        std::fs::copy(dir.join(f), proj.join(f)).unwrap();
    }
    other.run_in(&proj, &["install", "--frozen"]).success();
}

/// Regression: a project's tools_dir could point anywhere: with
/// `tools_dir: /usr/bin`, RFC 1 discovery served every system binary as a
/// tool (1,035 of them), and orla would install into a directory the
/// project does not own. tools_dir must lie inside the project, `..` and
/// symbolic links resolved.
#[test]
fn a_tools_dir_outside_the_project_is_refused() {
    let t = TestContext::new();
    let elsewhere = t.dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    write_file(&elsewhere.join("rm-all.sh"), "#!/bin/sh\necho gone\n", true);
    let dir = project(&t, "tools_dir: ./tools\n");
    std::os::unix::fs::symlink(&elsewhere, dir.join("linked")).unwrap();
    for tools_dir in [
        elsewhere.display().to_string(),
        "../../elsewhere".to_string(),
        "./tools/../../x".to_string(),
        "./linked".to_string(),
        "./linked/sub".to_string(),
    ] {
        std::fs::write(dir.join("orla.yaml"), format!("tools_dir: {tools_dir}\n")).unwrap();
        for args in [&["list"][..], &["install", "fs-read"]] {
            t.run_in(&dir, args)
                .failure(1)
                .stderr_has(&format!("tools_dir: '{tools_dir}' is outside the project"))
                .stderr_has("hint: use a directory inside the project");
        }
        assert!(!elsewhere.join("fs-read").exists(), "{tools_dir}");
        assert!(!dir.join(".orla").exists(), "{tools_dir}");
    }
    // Inside the project (also through a link that stays inside) is fine.
    std::fs::create_dir_all(dir.join("real")).unwrap();
    std::os::unix::fs::symlink(dir.join("real"), dir.join("inside")).unwrap();
    for tools_dir in ["./tools", "tools/../mcp", "./inside"] {
        std::fs::write(dir.join("orla.yaml"), format!("tools_dir: {tools_dir}\n")).unwrap();
        t.run_in(&dir, &["list"]).success();
    }
}

/// As `uv sync`: `orla install` alone leaves tools_dir as orla.lock says.
#[test]
fn install_alone_removes_what_orla_lock_no_longer_pins() {
    let t = TestContext::new();
    let dir = project(&t, "tools_dir: ./tools\n");
    t.run_in(&dir, &["install", "fs-read@1.2", "fs-list"])
        .success();
    let local = PackageBuilder::new("mine", "0.1.0").write(t.dir.path());
    t.run_in(&dir, &["install", "--local", local.to_str().unwrap()])
        .success();
    // A requirement narrowed by hand, and a tool dropped.
    let yaml = read(&dir.join("orla.yaml"))
        .replace("fs-read: \"1.2\"", "fs-read: \"1.1\"")
        .replace("  fs-list: \"^1.0.0\"\n", "");
    std::fs::write(dir.join("orla.yaml"), &yaml).unwrap();
    let run = t.run_in(&dir, &["install"]);
    run.success()
        .stderr_has("Installed fs-read 1.1.0")
        .stderr_has("Unlocked fs-list")
        .stderr_has("Removed fs-read 1.2.1")
        .stderr_has("Removed fs-list 1.0.0");
    let tools = dir.join("tools");
    assert!(tools.join("fs-read/1.1.0").is_dir());
    assert!(!tools.join("fs-read/1.2.1").exists());
    assert!(!tools.join("fs-list").exists());
    // orla.lock does not record --local installs: they stay.
    assert!(tools.join("mine/0.1.0").is_dir());
    let names: Vec<String> = served(&manifest(&dir))
        .into_iter()
        .map(|(n, _, _)| n)
        .collect();
    assert!(!names.contains(&"fs-list".to_string()), "{names:?}");
    // Named installs add beside what is there (`orla use` chooses among them).
    t.run_in(&dir, &["install", "fs-read@1.2"]).success();
    assert!(tools.join("fs-read/1.1.0").is_dir());
    // Nothing stale: up to date.
    t.run_in(&dir, &["install"])
        .success()
        .stderr_has("Removed fs-read 1.1.0");
    t.run_in(&dir, &["install"])
        .success()
        .stderr_has("Up to date");
}

/// A file of tools_dir that is not served is said once per change, not by
/// every command after it.
#[test]
fn an_unserved_file_is_warned_about_once_per_change() {
    let t = TestContext::new();
    let dir = project(&t, "tools_dir: ./tools\n");
    t.run_in(&dir, &["install", "fs-read"]).success();
    let bad = dir.join("tools/My Tool.py");
    write_file(&bad, "#!/bin/sh\necho hi\n", true);
    let warning = "tools/My Tool.py is not served as a tool";
    t.run_in(&dir, &["list"]).success().stderr_has(warning);
    for args in [&["list"][..], &["install", "--force", "fs-read"], &["list"]] {
        let run = t.run_in(&dir, args);
        run.success();
        assert!(!run.stderr.contains(warning), "{args:?}: {}", run.stderr);
    }
    // Fixed, then broken again: a change, said again.
    let good = dir.join("tools/my-tool.py");
    std::fs::rename(&bad, &good).unwrap();
    t.run_in(&dir, &["list"]).success();
    std::fs::rename(&good, &bad).unwrap();
    t.run_in(&dir, &["install", "--force", "fs-read"])
        .success()
        .stderr_has(&format!(
            "warning: {} is not served as a tool",
            bad.display()
        ));
}
