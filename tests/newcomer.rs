//! What a newcomer trips on: state that lies, skips that look like success,
//! hints that are missing. Each test pins one of them, with a snapshot of
//! what the user sees. Refresh the snapshots after an intended change with
//! `SNAPSHOTS=overwrite cargo test --test newcomer`.

mod common;

use std::path::{Path, PathBuf};

use snapbox::{Assert, Data, Redactions};

use common::TestContext;

fn snapshot_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots/newcomer")
        .join(format!("{name}.txt"))
}

fn assert_snapshot(t: &TestContext, name: &str, actual: String) {
    let mut r = Redactions::new();
    r.insert("[ROOT]", t.dir.path().display().to_string())
        .unwrap();
    Assert::new()
        .action_env(snapbox::assert::DEFAULT_ACTION_ENV)
        .redact_with(r)
        .eq(actual, Data::read_from(&snapshot_file(name), None));
}

/// The command line, its exit code, stdout and stderr, as one document.
fn transcript(t: &TestContext, args: &[&str]) -> String {
    transcript_in(t, &t.work, args)
}

fn transcript_in(t: &TestContext, dir: &Path, args: &[&str]) -> String {
    shown(args, &t.run_in(dir, args))
}

fn shown(args: &[&str], run: &common::Run) -> String {
    format!(
        "$ orla {}\nexit: {}\n--- stdout\n{}--- stderr\n{}\n",
        args.join(" "),
        run.code,
        run.stdout,
        run.stderr
    )
}

#[test]
fn a_manifest_from_a_newer_orla_is_refused_by_every_command_that_writes_it() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2"]).success();
    t.run(&["install", "fs-read@1.1"]).success();
    let path = t.home.join("manifest.json");
    let mut manifest = t.manifest();
    manifest["manifest_version"] = 99.into();
    let newer = serde_json::to_string_pretty(&manifest).unwrap();
    std::fs::write(&path, &newer).unwrap();

    let mut out = String::new();
    for args in [
        &["install", "json-query"][..],
        &["uninstall", "fs-read@1.1"],
        &["use", "fs-read@1.1.0"],
        &["update"],
        &["list"],
    ] {
        let run = t.run(args);
        run.failure(1).stderr_has("upgrade orla");
        out.push_str(&shown(args, &run));
        // Neither rewritten as this orla's version nor anything installed
        // or removed.
        assert_eq!(std::fs::read_to_string(&path).unwrap(), newer, "{args:?}");
    }
    assert!(!t.tools_dir().join("json-query").exists());
    assert!(t.tools_dir().join("fs-read/1.1.0").exists());
    assert_snapshot(&t, "newer-manifest", out);
}

#[test]
fn a_package_deleted_behind_orlas_back_is_reported_marked_and_dropped() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2"]).success();
    t.run(&["install", "fs-read@1.1"]).success();
    std::fs::remove_dir_all(t.tools_dir().join("fs-read/1.2.1")).unwrap();

    let mut out = String::new();
    // verify fails on it; list marks it and does not call it active.
    let verify = t.run(&["verify"]);
    verify.failure(1);
    out.push_str(&shown(&["verify"], &verify));
    let list = t.run(&["list"]);
    list.success();
    assert!(!list.stdout.contains("1.2.1    *"), "{}", list.stdout);
    out.push_str(&shown(&["list"], &list));
    let json = t.run(&["list", "--json"]).json();
    assert_eq!(json[1]["version"], "1.2.1");
    assert_eq!(json[1]["missing"], true);
    assert!(json[0].get("missing").is_none());
    // The next command that writes the manifest drops it, and says so.
    let install = t.run(&["install", "json-query"]);
    install
        .success()
        .stderr_has("fs-read 1.2.1 was deleted outside orla");
    out.push_str(&shown(&["install", "json-query"], &install));
    let served: Vec<(String, String)> = t.manifest()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["version"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(served.contains(&("fs-read".into(), "1.1.0".into())));
    out.push_str(&transcript(&t, &["verify"]));
    assert_snapshot(&t, "deleted-package", out);
}

#[test]
fn a_changed_package_fails_verify_and_an_uninstall_does_not_count_as_deleted() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2"]).success();
    t.run(&["install", "json-query"]).success();
    let entry = t.tools_dir().join("json-query/1.0.0/bin/json-query");
    std::fs::write(&entry, "#!/bin/sh\necho changed\n").unwrap();
    t.run(&["verify"])
        .failure(1)
        .stdout_has("changed  bin/json-query");
    // A removal orla made itself is not reported as a deletion.
    let run = t.run(&["uninstall", "fs-read"]);
    run.success();
    assert!(
        !run.stderr.contains("deleted outside orla"),
        "{}",
        run.stderr
    );
}
