//! `orla tool publish` and `orla tool yank` into directory indexes, git
//! working trees and bare repositories; installing what was published; and
//! the repository's own registry-index/ being exactly what publish makes.

use crate::common;

use std::path::{Path, PathBuf};

use common::{snapshot, PackageBuilder, TestContext};
use orla::index::{shard_path, RegistryYaml, VersionRecord};

fn index_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("registry-index")
}

fn records(index: &Path, name: &str) -> Vec<VersionRecord> {
    let bytes = std::fs::read(index.join(shard_path(name))).unwrap();
    VersionRecord::parse_file(&bytes, name).unwrap()
}

fn publish(ctx: &TestContext, src: &Path, index: &str, extra: &[&str]) -> common::Run {
    let mut args = vec!["tool", "publish", src.to_str().unwrap(), "--index", index];
    args.extend_from_slice(extra);
    ctx.run(&args)
}

#[test]
fn publish_into_a_directory_then_install_from_it() {
    let ctx = TestContext::new();
    let index = ctx.work.join("index");
    let src = PackageBuilder::new("greet", "1.0.0")
        .yaml("keywords: [hello]\nauthor: Ada\n")
        .write(&ctx.work);
    let loc = index.to_str().unwrap();

    publish(&ctx, &src, loc, &[])
        .failure(1)
        .stderr_has("has no config.json")
        .stderr_has("--init");
    assert!(!index.exists());

    let run = publish(&ctx, &src, loc, &["--init", "--json"]);
    run.success().stderr_has("Published greet 1.0.0");
    let json = run.json();
    assert_eq!(json["archive"], "archives/greet/greet-1.0.0.tar.gz");
    assert_eq!(json["changed"], true);
    assert!(json["commit"].is_null());

    let archive = std::fs::read(index.join("archives/greet/greet-1.0.0.tar.gz")).unwrap();
    let recs = records(&index, "greet");
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0].blake3, orla::verify::Digest::of(&archive));
    assert_eq!(recs[0].size, archive.len() as u64);
    assert_eq!(recs[0].keywords, ["hello"]);
    assert_eq!(json["record"]["blake3"], recs[0].blake3.to_hex());
    let listing =
        RegistryYaml::parse(&std::fs::read(index.join("registry.yaml")).unwrap()).unwrap();
    assert_eq!(listing.version, 1);
    assert_eq!(listing.tools[0].name, "greet");
    assert_eq!(listing.tools[0].maintainer.as_deref(), Some("Ada"));
    assert_eq!(
        listing.tools[0].repository.as_deref(),
        Some("archives/greet")
    );

    ctx.run(&["install", "greet", "--registry", loc]).success();
    assert_eq!(ctx.list(), [("greet".to_string(), "1.0.0".to_string())]);

    // The same bytes again: a no-op that touches nothing.
    let before = snapshot(&index);
    publish(&ctx, &src, loc, &[])
        .success()
        .stderr_has("already published");
    assert_eq!(snapshot(&index), before);

    // A lost archive is restored by publishing the same bytes again.
    std::fs::remove_file(index.join("archives/greet/greet-1.0.0.tar.gz")).unwrap();
    publish(&ctx, &src, loc, &[]).success();
    assert_eq!(snapshot(&index), before);

    // Other bytes under the same version: refused, nothing changed.
    std::fs::write(src.join("README.md"), "# greet, changed\n").unwrap();
    publish(&ctx, &src, loc, &[])
        .failure(1)
        .stderr_has("greet 1.0.0 is already published")
        .stderr_has("with different contents")
        .stderr_has("hint: a published version never changes");
    assert_eq!(snapshot(&index), before);

    // A new version goes in; the newest describes the tool; an older one
    // published later does not take over registry.yaml.
    let v2 = PackageBuilder::new("greet", "2.0.0")
        .yaml("author: Grace\n")
        .write(&ctx.work);
    publish(&ctx, &v2, loc, &[]).success();
    let v15 = PackageBuilder::new("greet", "1.5.0")
        .yaml("author: Old\n")
        .write(&ctx.work);
    publish(&ctx, &v15, loc, &[]).success();
    let versions: Vec<String> = records(&index, "greet")
        .iter()
        .map(|r| r.version.to_string())
        .collect();
    assert_eq!(versions, ["1.0.0", "2.0.0", "1.5.0"]);
    let listing =
        RegistryYaml::parse(&std::fs::read(index.join("registry.yaml")).unwrap()).unwrap();
    assert_eq!(listing.tools.len(), 1);
    assert_eq!(listing.tools[0].maintainer.as_deref(), Some("Grace"));

    // A second tool lands in name order.
    let other = PackageBuilder::new("abc", "0.1.0").write(&ctx.work);
    publish(&ctx, &other, loc, &[]).success();
    let listing =
        RegistryYaml::parse(&std::fs::read(index.join("registry.yaml")).unwrap()).unwrap();
    let names: Vec<&str> = listing.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["abc", "greet"]);
}

#[test]
fn invalid_packages_are_not_published() {
    let ctx = TestContext::new();
    let index = ctx.work.join("index");
    let src = PackageBuilder::new("bad", "1.0.0").write(&ctx.work);
    std::fs::remove_file(src.join("bin/bad")).unwrap();
    publish(&ctx, &src, index.to_str().unwrap(), &["--init"])
        .failure(1)
        .stderr_has("entrypoint: 'bin/bad' does not exist");
    assert!(!index.exists());
}

#[test]
fn yank_hides_a_version_from_ranges() {
    let ctx = TestContext::new();
    let index = ctx.work.join("index");
    let loc = index.to_str().unwrap();
    for v in ["1.0.0", "1.1.0"] {
        let src = PackageBuilder::new("yk", v).write(&ctx.work);
        publish(&ctx, &src, loc, &["--init"]).success();
    }
    let before = std::fs::read_to_string(index.join(shard_path("yk"))).unwrap();
    ctx.run(&["tool", "yank", "yk@1.1.0", "--index", loc])
        .success()
        .stderr_has("Yanked yk 1.1.0");
    let after = std::fs::read_to_string(index.join(shard_path("yk"))).unwrap();
    // Only that record's line changed.
    assert_eq!(before.lines().next(), after.lines().next());
    assert!(records(&index, "yk")[1].yanked);
    ctx.run(&["tool", "yank", "yk@1.1.0", "--index", loc])
        .success()
        .stderr_has("already yanked");

    ctx.run(&["install", "yk", "--registry", loc]).success();
    assert_eq!(ctx.list(), [("yk".to_string(), "1.0.0".to_string())]);
    ctx.run(&["install", "yk@^1", "--registry", loc]).success();
    assert_eq!(ctx.list().len(), 1);
    // An exact pin still reaches it, with a warning.
    ctx.run(&["install", "yk@1.1.0", "--registry", loc])
        .success()
        .stderr_has("yanked");

    ctx.run(&["tool", "yank", "yk@1.1.0", "--undo", "--index", loc])
        .success()
        .stderr_has("Unyanked yk 1.1.0");
    assert_eq!(
        std::fs::read_to_string(index.join(shard_path("yk"))).unwrap(),
        before
    );
    let fresh = TestContext::new();
    fresh.run(&["install", "yk", "--registry", loc]).success();
    assert_eq!(fresh.list(), [("yk".to_string(), "1.1.0".to_string())]);

    ctx.run(&["tool", "yank", "yk@9.9.9", "--index", loc])
        .failure(1)
        .stderr_has("no version 9.9.9 of 'yk'");
    ctx.run(&["tool", "yank", "yk", "--index", loc])
        .failure(2)
        .stderr_has("is not NAME@VERSION");
}

#[test]
fn all_yanked_says_how_to_install_one_anyway() {
    let ctx = TestContext::new();
    let index = ctx.work.join("index");
    let loc = index.to_str().unwrap();
    let src = PackageBuilder::new("gone", "1.0.0").write(&ctx.work);
    publish(&ctx, &src, loc, &["--init"]).success();
    ctx.run(&["tool", "yank", "gone@1.0.0", "--index", loc])
        .success();
    ctx.run(&["install", "gone", "--registry", loc])
        .failure(1)
        .stderr_has("error: every version of gone is yanked")
        .stderr_has("hint: a yanked version is installed only when named exactly, e.g. `orla install gone@VERSION`");
    ctx.run(&["install", "gone@1.0.0", "--registry", loc])
        .success();
}

fn head_message(repo: &git2::Repository) -> String {
    repo.head()
        .unwrap()
        .peel_to_commit()
        .unwrap()
        .message()
        .unwrap()
        .to_string()
}

fn head_file(repo: &git2::Repository, rel: &str) -> Vec<u8> {
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    let entry = tree.get_path(Path::new(rel)).unwrap();
    entry
        .to_object(repo)
        .unwrap()
        .as_blob()
        .unwrap()
        .content()
        .to_vec()
}

#[test]
fn publish_into_a_git_working_tree_commits() {
    let ctx = TestContext::new();
    let index = ctx.work.join("git-index");
    let repo = git2::Repository::init(&index).unwrap();
    // Someone's unrelated staged work is not swept into the commit.
    std::fs::write(index.join("notes.txt"), "wip").unwrap();
    let mut git_index = repo.index().unwrap();
    git_index.add_path(Path::new("notes.txt")).unwrap();
    git_index.write().unwrap();

    let loc = index.to_str().unwrap();
    let src = PackageBuilder::new("gt", "1.0.0").write(&ctx.work);
    publish(&ctx, &src, loc, &["--init"])
        .success()
        .stderr_has("Committed");
    assert_eq!(head_message(&repo), "Publish gt 1.0.0");
    let archive = std::fs::read(index.join("archives/gt/gt-1.0.0.tar.gz")).unwrap();
    assert_eq!(head_file(&repo, "archives/gt/gt-1.0.0.tar.gz"), archive);
    assert!(head_file(&repo, "config.json").starts_with(b"{"));
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    assert!(tree.get_path(Path::new("notes.txt")).is_err());
    // The published files are clean in `git status`; the staged note is still staged.
    let statuses = repo.statuses(None).unwrap();
    let dirty: Vec<String> = statuses
        .iter()
        .map(|s| s.path().unwrap().to_string())
        .collect();
    assert_eq!(dirty, ["notes.txt"]);

    let v2 = PackageBuilder::new("gt", "1.1.0").write(&ctx.work);
    publish(&ctx, &v2, loc, &[]).success();
    assert_eq!(head_message(&repo), "Publish gt 1.1.0");
    let parents = repo
        .head()
        .unwrap()
        .peel_to_commit()
        .unwrap()
        .parent_count();
    assert_eq!(parents, 1);

    ctx.run(&["tool", "yank", "gt@1.1.0", "--index", loc])
        .success();
    assert_eq!(head_message(&repo), "Yank gt 1.1.0");
    ctx.run(&["install", "gt", "--registry", loc]).success();
    assert_eq!(ctx.list(), [("gt".to_string(), "1.0.0".to_string())]);
}

#[test]
fn publish_into_a_bare_repository_then_install_from_it() {
    let ctx = TestContext::new();
    let bare = ctx.work.join("index.git");
    let repo = git2::Repository::init_bare(&bare).unwrap();
    let url = format!("file://{}", bare.display());

    let src = PackageBuilder::new("br", "1.0.0")
        .permissions(&["filesystem:read"])
        .write(&ctx.work);
    publish(&ctx, &src, &url, &["--init"]).success();
    assert_eq!(head_message(&repo), "Publish br 1.0.0");
    // A plain path to the bare repository works as well.
    let v2 = PackageBuilder::new("br", "1.1.0")
        .permissions(&["filesystem:read"])
        .write(&ctx.work);
    publish(&ctx, &v2, bare.to_str().unwrap(), &[]).success();
    assert_eq!(head_message(&repo), "Publish br 1.1.0");
    // Republishing reads the bare repository's tree.
    let tip = repo.head().unwrap().target().unwrap();
    publish(&ctx, &v2, &url, &[])
        .success()
        .stderr_has("already published");
    std::fs::write(v2.join("README.md"), "changed").unwrap();
    publish(&ctx, &v2, &url, &[])
        .failure(1)
        .stderr_has("different contents");
    assert_eq!(repo.head().unwrap().target().unwrap(), tip);
    ctx.run(&["tool", "yank", "br@1.1.0", "--index", &url])
        .success();
    assert_eq!(head_message(&repo), "Yank br 1.1.0");

    let clone_dir = ctx.work.join("clone");
    git2::Repository::clone(&url, &clone_dir).unwrap();
    ctx.run(&["install", "br", "--registry", clone_dir.to_str().unwrap()])
        .success();
    assert_eq!(ctx.list(), [("br".to_string(), "1.0.0".to_string())]);

    // orla reads the bare repository as a git registry too.
    let fresh = TestContext::new();
    fresh.run(&["install", "br", "--registry", &url]).success();
    assert_eq!(fresh.list(), [("br".to_string(), "1.0.0".to_string())]);
    fresh
        .run(&["install", "br@1.1.0", "--registry", &url])
        .success()
        .stderr_has("yanked");
}

#[test]
fn remote_urls_are_refused_with_a_hint() {
    let ctx = TestContext::new();
    let src = PackageBuilder::new("rm", "1.0.0").write(&ctx.work);
    publish(&ctx, &src, "https://example.invalid/index.git", &[])
        .failure(1)
        .stderr_has("remote URL")
        .stderr_has("clone it, publish into the clone and push");
}

/// (name, version, source dir) of the built-in registry, in publish order.
fn builtin_sources() -> Vec<(String, semver::Version, PathBuf)> {
    let mut out = Vec::new();
    for name in std::fs::read_dir(index_dir().join("packages")).unwrap() {
        let name = name.unwrap();
        for version in std::fs::read_dir(name.path()).unwrap() {
            let version = version.unwrap();
            out.push((
                name.file_name().to_string_lossy().into_owned(),
                version.file_name().to_string_lossy().parse().unwrap(),
                version.path(),
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn the_builtin_registry_is_what_publish_makes() {
    let ctx = TestContext::new();
    // Republishing every source into a copy of registry-index/ changes nothing.
    let copy = ctx.work.join("copy");
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(index_dir())
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    let before = snapshot(&copy);
    for (_, _, src) in builtin_sources() {
        publish(&ctx, &src, copy.to_str().unwrap(), &[])
            .success()
            .stderr_has("already published");
    }
    assert_eq!(snapshot(&copy), before);

    // Publishing every source from scratch gives the same index files and
    // archives, byte for byte, and the same registry.yaml listing.
    let fresh = ctx.work.join("fresh");
    for (_, _, src) in builtin_sources() {
        publish(&ctx, &src, fresh.to_str().unwrap(), &["--init"]).success();
    }
    let made = snapshot(&fresh);
    let shipped: std::collections::BTreeMap<String, String> = snapshot(&index_dir())
        .into_iter()
        .filter(|(k, _)| !k.starts_with("packages") && !k.ends_with(".md"))
        .collect();
    let without_listing = |m: &std::collections::BTreeMap<String, String>| {
        m.iter()
            .filter(|(k, _)| k.as_str() != "registry.yaml")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(without_listing(&made), without_listing(&shipped));
    let listing = |dir: &Path| {
        let mut l =
            RegistryYaml::parse(&std::fs::read(dir.join("registry.yaml")).unwrap()).unwrap();
        l.version = 1;
        l
    };
    assert_eq!(listing(&fresh), listing(&index_dir()));
}

#[test]
fn concurrent_publishers_lose_no_update() {
    let ctx = TestContext::new();
    let index = ctx.work.join("index");
    let seed = PackageBuilder::new("seed", "1.0.0").write(&ctx.work);
    publish(&ctx, &seed, index.to_str().unwrap(), &["--init"]).success();
    let sources: Vec<PathBuf> = (0..6)
        .map(|i| PackageBuilder::new(&format!("par{i}"), "1.0.0").write(&ctx.work))
        .collect();
    // Every publish rewrites registry.yaml; without the lock some would be lost.
    let children: Vec<_> = sources
        .iter()
        .map(|src| {
            ctx.command(&[
                "tool",
                "publish",
                src.to_str().unwrap(),
                "--index",
                index.to_str().unwrap(),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let listing =
        RegistryYaml::parse(&std::fs::read(index.join("registry.yaml")).unwrap()).unwrap();
    let names: Vec<&str> = listing.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        ["par0", "par1", "par2", "par3", "par4", "par5", "seed"]
    );
}

#[test]
fn author_journey_scaffold_publish_to_git_install_and_run() {
    let ctx = TestContext::new();
    let bare = ctx.work.join("registry.git");
    git2::Repository::init_bare(&bare).unwrap();
    let url = format!("file://{}", bare.display());
    ctx.run(&[
        "tool",
        "scaffold",
        "journey",
        "--yes",
        "--param",
        "name:string",
    ])
    .success();
    ctx.run(&["tool", "validate", "journey"]).success();
    publish(&ctx, &ctx.work.join("journey"), &url, &["--init"]).success();

    let user = TestContext::new();
    user.run(&["install", "journey", "--registry", &url])
        .success();
    let manifest = user.manifest();
    let entry = &manifest["tools"][0];
    assert_eq!(entry["name"], "journey");
    let out = std::process::Command::new(entry["entrypoint"].as_str().unwrap())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(br#"{"name":"orla"}"#)?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(out.status.success());
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["arguments"]["name"], "orla");
}
