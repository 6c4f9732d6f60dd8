//! The Orla project's own registry layout (RFC 3 6-7), rebuilt with git2:
//! a registry repository holding only registry.yaml (one revision with
//! `versions:` lists, one without), and tool repositories with one `v` tag
//! per release, annotated and lightweight, including the mistakes the real
//! ones made: a tag whose tool.yaml states another version, a tool renamed
//! between tags, a tag without its entrypoint. Installed through the public
//! registry's fallback slot (pointed at the local copy), `--registry`, and
//! projects; nothing here touches the network.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::git::{GitHttp, Rfc3Registry, ToolRepository};
use common::{snapshot, to_run, Run, TestContext};

/// bin/file-read.py of the first releases: reads `--path` with argparse.
const FILE_READ_PY: &str = r#"#!/usr/bin/env python3
"""File read tool for orla"""

import argparse
import sys
from pathlib import Path


def main():
    parser = argparse.ArgumentParser(description="Read file contents")
    parser.add_argument("--path", required=True, help="Path to the file to read")
    args = parser.parse_args()
    file_path = Path(args.path)
    if not file_path.is_file():
        print(f"Error: File not found: {args.path}", file=sys.stderr)
        sys.exit(1)
    print(file_path.read_text(encoding="utf-8"), end="")


if __name__ == "__main__":
    main()
"#;

/// bin/fs.py of 0.2.x: an operation and its arguments as flags, JSON out.
const FS_PY: &str = r#"#!/usr/bin/env python3 -u
"""File system tool for orla"""

import argparse
import json
from pathlib import Path


def main():
    parser = argparse.ArgumentParser(description="File system operations")
    parser.add_argument("--operation", required=True)
    parser.add_argument("--path")
    args = parser.parse_args()
    if args.operation == "read":
        result = {"success": True, "content": Path(args.path).read_text(encoding="utf-8")}
    elif args.operation == "exists":
        result = {"success": True, "exists": Path(args.path).exists()}
    else:
        result = {"success": False, "error": f"unknown operation {args.operation}"}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
"#;

fn tool_yaml(name: &str, version: &str, description: &str, entrypoint: &str) -> String {
    format!(
        "name: {name}
version: {version}
description: {description}
entrypoint: {entrypoint}
author: dorcha-inc
license: MIT
repository: https://example.invalid/orla-tool-{name}
keywords:
  - file
  - filesystem
mcp:
  input_schema:
    type: object
    properties:
      path:
        type: string
        description: Path to the file
    required:
      - path
"
    )
}

/// The registry and its tools, with each tag's commit.
struct Orla {
    fs: ToolRepository,
    coinflip: ToolRepository,
    registry: Rfc3Registry,
    commits: BTreeMap<&'static str, String>,
}

/// A binary entrypoint: a real executable of this machine.
fn binary() -> Vec<u8> {
    std::fs::read("/bin/true").unwrap()
}

fn orla(t: &TestContext) -> Orla {
    let fs = ToolRepository::new(&t.dir.path().join("orla-tool-fs"));
    let mut commits = BTreeMap::new();
    let read = "Read and return the contents of a file";
    let file_read = |version: &str, stated: &str, annotated: bool| {
        let yaml = tool_yaml("file-read", stated, read, "bin/file-read.py");
        let tag = format!("v{version}");
        fs.release(
            &tag,
            &[
                ("tool.yaml", yaml.as_bytes(), false),
                ("bin/file-read.py", FILE_READ_PY.as_bytes(), true),
                ("README.md", b"# file-read\n", false),
                ("LICENSE", b"MIT\n", false),
            ],
            annotated,
        )
        .to_string()
    };
    commits.insert("v0.1.0", file_read("0.1.0", "0.1.0", false));
    commits.insert("v0.1.1", file_read("0.1.1", "0.1.1", true));
    // The tag says 0.1.2, its tool.yaml still 0.1.1 (as in the real repository).
    commits.insert("v0.1.2", file_read("0.1.2", "0.1.1", false));
    commits.insert("v0.1.3", file_read("0.1.3", "0.1.3", true));
    let yaml = tool_yaml("readfile", "0.1.4", read, "bin/readfile.py");
    let oid = fs.release(
        "v0.1.4",
        &[
            ("tool.yaml", yaml.as_bytes(), false),
            ("bin/readfile.py", FILE_READ_PY.as_bytes(), true),
        ],
        false,
    );
    commits.insert("v0.1.4", oid.to_string());
    for (version, annotated) in [("0.2.0", true), ("0.2.1", false)] {
        let yaml = tool_yaml(
            "fs",
            version,
            "Comprehensive file system operations tool",
            "bin/fs.py",
        );
        let oid = fs.release(
            &format!("v{version}"),
            &[
                ("tool.yaml", yaml.as_bytes(), false),
                ("bin/fs.py", FS_PY.as_bytes(), true),
                (".gitignore", b"__pycache__/\n", false),
            ],
            annotated,
        );
        commits.insert(
            if version == "0.2.0" {
                "v0.2.0"
            } else {
                "v0.2.1"
            },
            oid.to_string(),
        );
    }
    // Switched to Go: the tag names bin/fs, which was never committed.
    let yaml = tool_yaml(
        "fs",
        "0.3.0",
        "Comprehensive file system operations tool",
        "bin/fs",
    );
    let oid = fs.release(
        "v0.3.0",
        &[
            ("tool.yaml", yaml.as_bytes(), false),
            ("cmd/fs/main.go", b"package main\n\nfunc main() {}\n", false),
            ("go.mod", b"module example.invalid/fs\n", false),
        ],
        true,
    );
    commits.insert("v0.3.0", oid.to_string());
    let yaml = tool_yaml(
        "fs",
        "0.3.1",
        "Comprehensive file system operations tool",
        "bin/fs.tool",
    );
    let bin = binary();
    let oid = fs.release(
        "v0.3.1",
        &[
            ("tool.yaml", yaml.as_bytes(), false),
            ("bin/fs.tool", &bin, true),
            ("cmd/fs/main.go", b"package main\n\nfunc main() {}\n", false),
        ],
        false,
    );
    commits.insert("v0.3.1", oid.to_string());

    let coinflip = ToolRepository::new(&t.dir.path().join("orla-tool-coinflip"));
    for version in ["0.1.0", "0.1.1"] {
        let yaml = format!(
            "name: coinflip\nversion: {version}\ndescription: Flip a coin and return heads or tails\nentrypoint: bin/coinflip.sh\n"
        );
        coinflip.release(
            &format!("v{version}"),
            &[
                ("tool.yaml", yaml.as_bytes(), false),
                ("bin/coinflip.sh", b"#!/bin/sh\necho heads\n", true),
            ],
            true,
        );
    }
    let registry = Rfc3Registry::new(t.dir.path(), "orla-registry");
    let orla = Orla {
        fs,
        coinflip,
        registry,
        commits,
    };
    orla.registry.publish(&orla.listing(true, &[]));
    orla
}

impl Orla {
    /// registry.yaml: with the `versions:` lists of its first revisions
    /// (plus `extra` listed fs versions), or without, as it is now.
    fn listing(&self, with_versions: bool, extra: &[(&str, &str)]) -> String {
        let mut fs_versions = String::new();
        let mut coin_versions = String::new();
        if with_versions {
            fs_versions.push_str("    versions:\n");
            for (v, tag) in [("0.2.0", "v0.2.0"), ("0.2.1", "v0.2.1")]
                .iter()
                .chain(extra)
            {
                fs_versions.push_str(&format!("      - version: {v}\n        tag: {tag}\n"));
            }
            coin_versions.push_str("    versions:\n      - version: 0.1.1\n        tag: v0.1.1\n");
        }
        format!(
            "version: 1
registry_url: https://example.invalid/orla-registry
tools:
  - name: coinflip
    description: Flip a coin and return heads or tails
    repository: {coin}
{coin_versions}    maintainer: dorcha-inc
    keywords:
      - random
      - coin
  - name: fs
    description: Comprehensive file system operations tool for reading, writing, listing, and managing files and directories
    repository: {fs}
{fs_versions}    maintainer: dorcha-inc
    keywords:
      - file
      - filesystem
      - read
",
            coin = self.coinflip.url(),
            fs = self.fs.url(),
        )
    }

    /// Runs orla with this registry as the public registry (the fallback
    /// for tools builtin lacks), as a user of the Orla project would.
    fn run(&self, t: &TestContext, args: &[&str]) -> Run {
        self.run_in(t, &t.work, args)
    }

    fn run_in(&self, t: &TestContext, dir: &Path, args: &[&str]) -> Run {
        // The Orla project's tool.yaml files declare no permissions, which
        // orla treats as high risk: installing them takes --yes.
        let mut args = args.to_vec();
        if matches!(args.first(), Some(&"install" | &"update")) {
            args.push("--yes");
        }
        to_run(
            t.command(&args)
                .current_dir(dir)
                .env("ORLA_PUBLIC_REGISTRY", self.registry.url())
                .output()
                .unwrap(),
        )
    }
}

fn receipt(t: &TestContext, name: &str, version: &str) -> serde_json::Value {
    let path = t
        .tools_dir()
        .join(name)
        .join(version)
        .join(".orla-receipt.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn error_lines(run: &Run) -> usize {
    run.stderr
        .lines()
        .filter(|l| l.starts_with("error:"))
        .count()
}

#[test]
fn search_and_info_read_a_registry_yaml_only_registry() {
    let t = TestContext::new();
    let o = orla(&t);
    o.registry.publish(&o.listing(false, &[]));
    let hits = o.run(&t, &["search", "filesystem", "--json"]);
    hits.success();
    let hits = hits.json();
    let fs = hits
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "fs")
        .expect("fs is found");
    assert_eq!(fs["registry"], "orla");
    assert_eq!(fs["source"], "git");
    // The same registry named on the command line, as a URL and as a path.
    for location in [
        o.registry.url(),
        format!("git+{}", o.registry.url()),
        o.registry.bare.display().to_string(),
    ] {
        t.run(&["search", "coin", "--registry", &location])
            .success()
            .stdout_has("coinflip");
    }

    let info = o.run(&t, &["info", "fs", "--json"]);
    info.success();
    let info = info.json();
    assert_eq!(info["source"], "git");
    assert_eq!(info["registry"], "orla");
    assert_eq!(info["repository"], o.fs.url());
    assert_eq!(info["latest"], "0.3.1");
    let versions = info["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 9);
    for v in versions {
        let tag = v["tag"].as_str().unwrap();
        assert_eq!(v["commit"], o.commits[tag].as_str(), "{tag}");
    }
    let text = o.run(&t, &["info", "fs"]);
    text.success().stdout_has(&format!(
        "0.2.1        tag v0.2.1, commit {}",
        o.commits["v0.2.1"]
    ));
    // Nothing was installed by looking.
    assert!(!t.tools_dir().exists());
    // Search never fetches a tool's repository, but shows the newest
    // version of one in the cache (info fetched fs's tags).
    assert_eq!(fs["version"], serde_json::Value::Null);
    let hits = o.run(&t, &["search", "file", "--json"]).json();
    let versions: Vec<_> = hits
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["name"].as_str().unwrap(), h["version"].clone()))
        .collect();
    assert!(versions.contains(&("fs", "0.3.1".into())), "{versions:?}");
    o.run(&t, &["search", "filesystem"])
        .success()
        .stdout_has("fs       0.3.1    orla");
}

#[test]
fn install_by_each_version_form_renamed_tools_and_binary_entrypoints() {
    let t = TestContext::new();
    let o = orla(&t);
    o.registry.publish(&o.listing(false, &[]));
    // Latest stable: v0.3.1, whose entrypoint is a binary.
    o.run(&t, &["install", "fs"])
        .success()
        .stderr_has("Installed fs 0.3.1");
    let manifest = t.manifest();
    let tool = &manifest["tools"][0];
    assert_eq!(tool["name"], "fs");
    assert_eq!(tool["interpreter"], serde_json::Value::Null);
    let entry = t.tools_dir().join("fs/0.3.1/bin/fs.tool");
    assert_eq!(
        tool["command"],
        serde_json::json!([entry.display().to_string()])
    );
    assert!(std::process::Command::new(&entry)
        .status()
        .unwrap()
        .success());
    let r = receipt(&t, "fs", "0.3.1");
    assert_eq!(r["source"]["kind"], "git");
    assert_eq!(r["source"]["registry"], "orla");
    assert_eq!(r["source"]["tag"], "v0.3.1");
    assert_eq!(r["source"]["commit"], o.commits["v0.3.1"].as_str());
    assert_eq!(r["source"]["repository"], o.fs.url());

    // A partial version, a v-tag, a bare version, a requirement. The tags
    // fetched a moment ago are younger than the TTL: no fetch.
    let run = o.run(&t, &["install", "fs@0.2"]);
    run.success().stderr_has("Installed fs 0.2.1");
    assert!(!run.stderr.contains("Fetching"), "{}", run.stderr);
    o.run(&t, &["install", "fs@v0.2.0"])
        .success()
        .stderr_has("Installed fs 0.2.0");
    o.run(&t, &["install", "fs@0.2.0"])
        .success()
        .stderr_has("already installed");
    // ^0.1.3 is 0.1.4, released as `readfile`: installed as the registry's fs.
    o.run(&t, &["install", "fs@^0.1.3"])
        .success()
        .stderr_has("fs 0.1.4: its tool.yaml calls it 'readfile'; installing it as 'fs', the registry's name")
        .stderr_has("Installed fs 0.1.4");
    // An annotated tag of the `file-read` days.
    o.run(&t, &["install", "fs@0.1.1"])
        .success()
        .stderr_has("its tool.yaml calls it 'file-read'");
    assert_eq!(
        t.list(),
        ["0.1.1", "0.1.4", "0.2.0", "0.2.1", "0.3.1"]
            .iter()
            .map(|v| ("fs".to_string(), v.to_string()))
            .collect::<Vec<_>>()
    );
    assert!(!t.tools_dir().join("readfile").exists());
    assert!(!t.tools_dir().join("file-read").exists());
    t.run(&["verify"]).success();
    // `info` marks what is installed.
    let info = o.run(&t, &["info", "fs", "--json"]).json();
    assert_eq!(
        info["installed"],
        serde_json::json!(["0.1.1", "0.1.4", "0.2.0", "0.2.1", "0.3.1"])
    );
}

#[test]
fn bad_tags_are_refused_with_one_line_and_nothing_on_disk() {
    let t = TestContext::new();
    let o = orla(&t);
    o.registry.publish(&o.listing(false, &[]));
    o.run(&t, &["install", "fs@0.2.1"]).success();
    let before = snapshot(&t.home);

    let run = o.run(&t, &["install", "fs@0.1.2"]);
    run.failure(1).stderr_has(&format!(
        "error: tag v0.1.2 of {} holds tool.yaml version 0.1.1; the tag and the version must match",
        o.fs.url()
    ));
    // The version its tool.yaml states has a tag that agrees.
    run.stderr_has("hint: nothing was installed; `orla install fs@0.1.1` installs a version whose tag and tool.yaml agree");
    assert_eq!(error_lines(&run), 1, "{}", run.stderr);
    assert!(!run.stderr.contains("wrong archive"), "{}", run.stderr);
    assert_eq!(snapshot(&t.home), before);

    // v0.3.0 names bin/fs, which its tree does not have.
    let run = o.run(&t, &["install", "fs@0.3.0"]);
    run.failure(1).stderr_has(&format!(
        "error: the tool.yaml of tag v0.3.0 of {} is invalid: entrypoint: 'bin/fs' does not exist in the package",
        o.fs.url()
    ));
    assert!(!run.stderr.contains("staging"), "{}", run.stderr);
    assert_eq!(snapshot(&t.home), before);

    let run = o.run(&t, &["install", "fs@0.9"]);
    run.failure(1).stderr_has("0.3.1");
    assert_eq!(snapshot(&t.home), before);
}

#[test]
fn versions_lists_are_the_allowed_set() {
    let t = TestContext::new();
    let o = orla(&t);
    let info = o.run(&t, &["info", "fs", "--json"]).json();
    let tags: Vec<_> = info["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["tag"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(tags, ["v0.2.1", "v0.2.0"]);
    assert_eq!(info["latest"], "0.2.1");
    o.run(&t, &["install", "fs"])
        .success()
        .stderr_has("Installed fs 0.2.1");
    // A tag the list does not name is not offered.
    o.run(&t, &["install", "fs@0.3.1"])
        .failure(1)
        .stderr_has("0.2.0, 0.2.1");
    o.run(&t, &["install", "coinflip"])
        .success()
        .stderr_has("Installed coinflip 0.1.1");
    o.run(&t, &["install", "coinflip@0.1.0"]).failure(1);

    // A listed tag the repository lacks: a clear error, nothing installed.
    o.registry.publish(&o.listing(true, &[("0.4.0", "v0.4.0")]));
    let before = snapshot(&t.home);
    let run = to_run(
        t.command(&["install", "fs", "--refresh", "--yes"])
            .env("ORLA_PUBLIC_REGISTRY", o.registry.url())
            .output()
            .unwrap(),
    );
    run.failure(1).stderr_has(&format!(
        "registry orla lists fs 0.4.0 at tag v0.4.0, but the repository {} has no tag v0.4.0",
        o.fs.url()
    ));
    assert_eq!(snapshot(&t.home), before);
    o.run(&t, &["info", "fs"])
        .success()
        .stdout_has("tag v0.4.0 (not in the repository)");
}

#[test]
fn update_follows_the_registry_after_its_ttl_or_refresh() {
    let t = TestContext::new();
    let o = orla(&t);
    o.run(&t, &["install", "fs"])
        .success()
        .stderr_has("Installed fs 0.2.1");
    // The registry drops its versions lists: every tag is offered, but the
    // cached copy is used until the TTL passes.
    o.registry.publish(&o.listing(false, &[]));
    o.run(&t, &["update"])
        .success()
        .stderr_has("Up to date fs 0.2.1");
    let dry = o.run(&t, &["update", "--dry-run", "--refresh"]);
    dry.success();
    assert_eq!(dry.stdout, "fs 0.2.1 -> 0.3.1\n");
    o.run(&t, &["update", "--refresh"])
        .success()
        .stderr_has("Updated fs 0.2.1 -> 0.3.1");
    assert_eq!(t.list(), [("fs".into(), "0.3.1".into())]);
    // A new release is seen once the TTL has passed.
    let yaml = tool_yaml(
        "fs",
        "0.3.2",
        "Comprehensive file system operations tool",
        "bin/fs.tool",
    );
    o.fs.release(
        "v0.3.2",
        &[
            ("tool.yaml", yaml.as_bytes(), false),
            ("bin/fs.tool", &binary(), true),
        ],
        true,
    );
    let run = to_run(
        t.command(&["update", "--yes"])
            .env("ORLA_PUBLIC_REGISTRY", o.registry.url())
            .env("ORLA_REGISTRY_TTL", "0")
            .output()
            .unwrap(),
    );
    run.success().stderr_has("Updated fs 0.3.1 -> 0.3.2");
}

#[test]
fn offline_uses_the_cached_registry_and_tags() {
    let t = TestContext::new();
    let o = orla(&t);
    o.registry.publish(&o.listing(false, &[]));
    let run = o.run(&t, &["install", "fs", "--offline"]);
    run.failure(1)
        .stderr_has("no tool 'fs' in registry builtin, and registry orla")
        .stderr_has("has not been fetched yet, and --offline forbids the network");
    assert!(!t.tools_dir().join("fs").exists());
    o.run(&t, &["install", "fs@0.2.0"]).success();
    t.run(&["uninstall", "fs"]).success();
    // Both the registry and the tags are in the cache now.
    o.run(&t, &["install", "fs@0.2.0", "--offline"]).success();
    o.run(&t, &["install", "fs@0.2.1", "--offline"]).success();
    o.run(&t, &["info", "fs", "--offline"])
        .success()
        .stdout_has("tag v0.3.1");
    o.run(&t, &["search", "coin", "--offline"])
        .success()
        .stdout_has("coinflip");
}

#[test]
fn the_public_registry_is_a_fallback_that_can_be_dropped() {
    let t = TestContext::new();
    // Nothing listens on port 1: the registry cannot be reached.
    let unreachable = "http://127.0.0.1:1/orla-registry.git";
    let with = |args: &[&str], location: &str| {
        to_run(
            t.command(args)
                .env("ORLA_PUBLIC_REGISTRY", location)
                .output()
                .unwrap(),
        )
    };
    let run = with(&["install", "fs"], unreachable);
    run.failure(1)
        .stderr_has(&format!(
            "error: no tool 'fs' in registry builtin, and registry orla ({unreachable}) could not be reached"
        ))
        .stderr_has("--offline uses the cached copy");
    assert!(!t.tools_dir().exists() || std::fs::read_dir(t.tools_dir()).unwrap().count() == 0);
    // A tool builtin has never asks the public registry.
    with(&["install", "fs-read"], unreachable).success();
    // A typo of a builtin tool is answered with "did you mean".
    with(&["install", "fs-raed"], unreachable)
        .failure(1)
        .stderr_has("did you mean 'fs-read'?");
    // Search says it skipped the registry, in one short line, and lists the others.
    let search = with(&["search", "fs"], unreachable);
    search.success().stdout_has("fs-read");
    let warnings: Vec<&str> = search
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    assert_eq!(
        warnings,
        ["warning: skipping registry orla: unreachable (--offline skips it quietly)"],
        "{}",
        search.stderr
    );

    // config.yaml drops it (the environment left unset) or replaces it.
    std::fs::create_dir_all(&t.home).unwrap();
    std::fs::write(t.home.join("config.yaml"), "public_registry: false\n").unwrap();
    let dropped = to_run(
        t.command(&["install", "fs"])
            .env_remove("ORLA_PUBLIC_REGISTRY")
            .output()
            .unwrap(),
    );
    dropped
        .failure(1)
        .stderr_has("error: no tool 'fs' in registry builtin");
    assert!(
        !dropped.stderr.contains("orla-registry"),
        "{}",
        dropped.stderr
    );
    std::fs::write(
        t.home.join("config.yaml"),
        format!("public_registry: {unreachable}\n"),
    )
    .unwrap();
    let replaced = to_run(
        t.command(&["install", "fs"])
            .env_remove("ORLA_PUBLIC_REGISTRY")
            .output()
            .unwrap(),
    );
    replaced.failure(1).stderr_has("could not be reached");
    std::fs::write(t.home.join("config.yaml"), "public_registry: [1]\n").unwrap();
    t.run(&["list"]).failure(1).stderr_has("public_registry");
}

#[test]
fn project_lock_pins_the_commit_and_frozen_installs_it() {
    let t = TestContext::new();
    let o = orla(&t);
    o.registry.publish(&o.listing(false, &[]));
    let project = t.work.join("proj");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("orla.yaml"), "tools_dir: ./tools\n").unwrap();
    o.run_in(&t, &project, &["install", "fs@0.2"]).success();
    let lock = std::fs::read_to_string(project.join("orla.lock")).unwrap();
    assert!(lock.contains("kind = \"git\""), "{lock}");
    assert!(lock.contains("tag = \"v0.2.1\""), "{lock}");
    assert!(lock.contains(&o.commits["v0.2.1"]), "{lock}");
    assert!(lock.contains("registry = \"orla\""), "{lock}");

    // A fresh checkout of the project installs exactly the lock, offline.
    std::fs::remove_dir_all(project.join("tools")).unwrap();
    o.run_in(&t, &project, &["install", "--frozen", "--offline"])
        .success();
    assert!(project.join("tools/fs/0.2.1/bin/fs.py").is_file());

    // The tag is moved upstream: a fetch sees it, and the pinned commit is
    // held against it.
    let moved = o.fs.commit(
        &[
            (
                "tool.yaml",
                tool_yaml("fs", "0.2.1", "changed", "bin/fs.py").as_bytes(),
                false,
            ),
            ("bin/fs.py", b"#!/bin/sh\necho changed\n", true),
        ],
        "moved",
    );
    o.fs.tag("v0.2.1", moved, false);
    std::fs::remove_dir_all(project.join("tools")).unwrap();
    let before = snapshot(&project);
    let run = to_run(
        t.command(&["install", "--locked", "--yes"])
            .current_dir(&project)
            .env("ORLA_PUBLIC_REGISTRY", o.registry.url())
            .env("ORLA_REGISTRY_TTL", "0")
            .output()
            .unwrap(),
    );
    run.failure(1)
        .stderr_has(&format!("orla.lock pins commit {}", o.commits["v0.2.1"]));
    assert_eq!(snapshot(&project), before);
    // Without the cached repository, --frozen cannot install it at all.
    t.run(&["cache", "clear"]).success();
    o.run_in(&t, &project, &["install", "--frozen"])
        .failure(1)
        .stderr_has("--offline forbids the network");
    assert_eq!(snapshot(&project), before);
}

#[test]
fn python_tools_read_their_argparse_flags_from_the_manifest_command() {
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        common::skip_unless_strict("python3 is not installed");
        return;
    }
    let t = TestContext::new();
    let o = orla(&t);
    o.registry.publish(&o.listing(false, &[]));
    let file = t.work.join("hello.txt");
    std::fs::write(&file, "hello orla\n").unwrap();
    for (spec, flags, expected) in [
        ("fs@0.1.0", vec!["--path"], "hello orla\n"),
        (
            "fs@0.2.1",
            vec!["--operation", "read", "--path"],
            "{\"success\": true, \"content\": \"hello orla\\n\"}\n",
        ),
    ] {
        o.run(&t, &["install", spec]).success();
        t.run(&["use", spec]).success();
        let manifest = t.manifest();
        let tool = &manifest["tools"][0];
        assert_eq!(tool["arguments"], "flags", "{spec}");
        assert_eq!(tool["interpreter"], "python3", "{spec}");
        let command: Vec<String> = tool["command"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap().to_string())
            .collect();
        let out = std::process::Command::new(&command[0])
            .args(&command[1..])
            .args(&flags)
            .arg(&file)
            .current_dir(tool["working_dir"].as_str().unwrap())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{spec}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected, "{spec}");
    }
}

/// The receipt `value` bound with this user's key, as orla would write it:
/// what is checked here is the tree digest, not the binding.
fn rebound(t: &TestContext, value: &serde_json::Value) -> String {
    let root = orla::root::InstallRoot::global(&t.home);
    let mut receipt: orla::root::receipt::Receipt = serde_json::from_value(value.clone()).unwrap();
    let key = root.receipt_key_or_create().unwrap();
    let dir = root.package_dir(&receipt.name, &receipt.version);
    orla::root::binding::bind(&mut receipt, &key, &dir);
    serde_json::to_string(&receipt).unwrap()
}

#[test]
fn receipts_keep_commit_and_tree_and_verify_checks_the_tree() {
    let t = TestContext::new();
    let o = orla(&t);
    o.registry.publish(&o.listing(false, &[]));
    o.run(&t, &["install", "fs@0.2.1"]).success();
    let path = t.tools_dir().join("fs/0.2.1/.orla-receipt.json");
    let r = receipt(&t, "fs", "0.2.1");
    assert_eq!(r["source"]["commit"], o.commits["v0.2.1"].as_str());
    assert_eq!(r["source"]["blake3"].as_str().unwrap().len(), 64);
    t.run(&["verify"]).success();
    // A file changed and its receipt entry rewritten to match: the files
    // agree with the receipt, but no longer give the tree digest recorded
    // for the commit.
    let mut edited = r.clone();
    edited["files"]["bin/fs.py"] = serde_json::json!({
        "blake3": orla::verify::Digest::of(b"tampered").to_hex(),
        "size": 8,
        "executable": true
    });
    std::fs::write(&path, rebound(&t, &edited)).unwrap();
    std::fs::write(t.tools_dir().join("fs/0.2.1/bin/fs.py"), "tampered").unwrap();
    t.run(&["verify"]).failure(1).stdout_has("tree digest");

    // A receipt that names another commit than the one installed: the files
    // match it, but the cached repository says that commit's tree differs.
    let mut other = r.clone();
    other["source"]["commit"] = serde_json::json!(o.commits["v0.2.0"]);
    std::fs::write(&path, rebound(&t, &other)).unwrap();
    std::fs::write(t.tools_dir().join("fs/0.2.1/bin/fs.py"), FS_PY).unwrap();
    t.run(&["verify"]).failure(1).stdout_has(&format!(
        "commit {} of {} has tree digest",
        o.commits["v0.2.0"],
        o.fs.url()
    ));
    std::fs::write(&path, serde_json::to_string(&r).unwrap()).unwrap();
    t.run(&["verify"]).success();
}

#[test]
fn registries_on_this_machine_may_name_local_tool_repositories_and_remote_ones_may_not() {
    let t = TestContext::new();
    let o = orla(&t);
    // A plain directory holding only registry.yaml, naming the tool by a
    // path relative to itself.
    let dir = t.dir.path().join("mirror");
    std::fs::create_dir_all(&dir).unwrap();
    let listing = o
        .listing(false, &[])
        .replace(&o.fs.url(), "../orla-tool-fs");
    std::fs::write(dir.join("registry.yaml"), &listing).unwrap();
    t.run(&[
        "install",
        "fs@0.2.0",
        "--yes",
        "--registry",
        &dir.display().to_string(),
    ])
    .success();
    assert_eq!(
        receipt(&t, "fs", "0.2.0")["source"]["repository"],
        dir.join("../orla-tool-fs").display().to_string()
    );

    // The same registry served over HTTP may not name this machine's repositories.
    let Some(http) = GitHttp::start(t.dir.path()) else {
        common::skip_unless_strict("git http-backend is not installed");
        return;
    };
    o.registry.publish(&o.listing(false, &[]));
    let url = format!("{}/orla-registry.git", http.addr);
    let before = snapshot(&t.home);
    t.run(&["install", "coinflip", "--registry", &url])
        .failure(1)
        .stderr_has(
            "of coinflip is on this machine, which only a registry on this machine may name",
        );
    assert_eq!(snapshot(&t.home), before);
}

#[test]
fn an_orla_yaml_written_for_the_orla_runtime_names_the_replacement_of_tools_registry() {
    let t = TestContext::new();
    // The Orla project's own example (examples/registry/orla.yaml).
    std::fs::write(
        t.work.join("orla.yaml"),
        "tools_registry:
  tools:
    echo:
      name: echo
      description: Echo a message back to the user
      path: ./tools/echo.sh
      interpreter: /bin/bash
port: 8080
timeout: 30
log_format: pretty
log_level: info
",
    )
    .unwrap();
    let run = t.run(&["list"]);
    run.failure(1)
        .stderr_has(
            "line 1: tools_registry (the Orla runtime's inline list of tools) is not read by orla",
        )
        .stderr_has("hint: move the executables it lists into tools_dir");
    assert!(!run.stderr.contains("unknown key"), "{}", run.stderr);
}

#[test]
fn a_tool_that_declares_no_permissions_is_confirmed_once_with_its_real_risk() {
    let t = TestContext::new();
    let o = orla(&t);
    o.registry.publish(&o.listing(false, &[]));
    let run = to_run(
        t.command(&["install", "fs@0.2.1"])
            .env("ORLA_PUBLIC_REGISTRY", o.registry.url())
            .output()
            .unwrap(),
    );
    run.failure(1)
        .stderr_has("Permissions fs 0.2.1: undeclared permissions (risk: high)")
        .stderr_has("pass --yes");
    let shown = run.stderr.matches("Permissions fs 0.2.1").count();
    assert_eq!(shown, 1, "{}", run.stderr);
    assert!(!run.stderr.contains("none (risk: low)"), "{}", run.stderr);
    assert!(!t.tools_dir().join("fs").exists());
}

#[test]
fn an_rfc3_registry_named_in_config_yaml_or_orla_yaml() {
    let t = TestContext::new();
    let o = orla(&t);
    o.registry.publish(&o.listing(false, &[]));
    std::fs::create_dir_all(&t.home).unwrap();
    std::fs::write(
        t.home.join("config.yaml"),
        format!("registries:\n  mirror: {}\n", o.registry.url()),
    )
    .unwrap();
    // The public registry stays off (the harness drops it): the named one answers.
    t.run(&["install", "coinflip", "--yes"])
        .success()
        .stderr_has("Installed coinflip 0.1.1");
    assert_eq!(
        receipt(&t, "coinflip", "0.1.1")["source"]["registry"],
        "mirror"
    );
    t.run(&["info", "coinflip", "--registry", "mirror"])
        .success()
        .stdout_has("registry:    mirror (");
    t.run(&["update", "--yes"])
        .success()
        .stderr_has("Up to date coinflip 0.1.1");

    // A project names it in orla.yaml, relative to the project.
    std::fs::remove_file(t.home.join("config.yaml")).unwrap();
    let project = t.work.join("proj");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("orla.yaml"),
        format!(
            "registries:\n  - name: orla-mirror\n    location: {}\n",
            o.registry.bare.display()
        ),
    )
    .unwrap();
    t.run_in(&project, &["install", "fs@0.2", "--yes"])
        .success()
        .stderr_has("Installed fs 0.2.1");
    let lock = std::fs::read_to_string(project.join("orla.lock")).unwrap();
    assert!(lock.contains("registry = \"orla-mirror\""), "{lock}");
}
