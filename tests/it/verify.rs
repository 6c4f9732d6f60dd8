//! `orla verify [NAME] [--json]`: installed files re-hashed against the
//! receipt written at install time; every added, removed or changed file is
//! reported and any difference exits 1.

use crate::common;

use std::os::unix::fs::PermissionsExt;

use common::{snapshot, TestContext};

fn installed() -> TestContext {
    let t = TestContext::new();
    t.run(&["install", "fs-list", "fs-read@1.2.1", "fs-read@1.0.0"])
        .success();
    t
}

#[test]
fn untouched_packages_verify() {
    let t = installed();
    let before = snapshot(t.dir.path());
    let run = t.run(&["verify"]);
    run.success()
        .stdout_has("fs-list 1.0.0: ok (")
        .stdout_has("fs-read 1.0.0: ok (")
        .stdout_has("fs-read 1.2.1: ok (")
        .stderr_has("Verified 3 installed packages match their receipts");
    // Verifying changes nothing.
    assert_eq!(snapshot(t.dir.path()), before);
    let json = t.run(&["verify", "fs-read", "--json"]).success().json();
    let reports = json.as_array().unwrap();
    assert_eq!(reports.len(), 2);
    for r in reports {
        assert_eq!(r["name"], "fs-read");
        assert!(r["differences"].as_array().unwrap().is_empty());
        assert!(r["files"].as_u64().unwrap() >= 2);
        assert!(r.get("error").is_none());
    }
}

#[test]
fn every_difference_is_reported_and_exits_1() {
    let t = installed();
    let pkg = t.tools_dir().join("fs-read/1.2.1");
    let entry = t.manifest()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "fs-read")
        .unwrap()["entrypoint"]
        .as_str()
        .unwrap()
        .to_string();
    // Changed content, a new file, a removed file, a setuid bit, a file
    // swapped for a symbolic link.
    std::fs::write(&entry, "#!/bin/sh\necho owned\n").unwrap();
    std::fs::write(pkg.join("planted.sh"), "evil").unwrap();
    std::fs::remove_file(pkg.join("README.md")).unwrap();
    std::fs::set_permissions(
        pkg.join("tool.yaml"),
        std::fs::Permissions::from_mode(0o4644),
    )
    .unwrap();
    let other = t.tools_dir().join("fs-read/1.0.0/tool.yaml");
    std::fs::remove_file(&other).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", &other).unwrap();

    let rel_entry = entry
        .strip_prefix(&format!("{}/", pkg.display()))
        .unwrap()
        .to_string();
    let run = t.run(&["verify"]);
    run.failure(1)
        .stdout_has("fs-list 1.0.0: ok")
        .stdout_has("fs-read 1.2.1: 4 differences")
        .stdout_has(&format!("changed  {rel_entry} (content: expected"))
        .stdout_has("added    planted.sh")
        .stdout_has("removed  README.md")
        .stdout_has("changed  tool.yaml (mode: expected 644, found 4644)")
        .stdout_has("fs-read 1.0.0: 1 difference")
        .stdout_has("changed  tool.yaml (type: expected regular file, found symbolic link)")
        .stderr_has("error: 2 of 3 installed packages differ from their receipts")
        // The hint's command restores both, not only the first.
        .stderr_has("hint: reinstall to restore the published files: `orla install fs-read@1.0.0 fs-read@1.2.1 --force`");

    // Only the named tool, as JSON; still exit 1.
    let json = t.run(&["verify", "fs-read", "--json"]);
    json.failure(1);
    let reports = json.json();
    let newest = reports
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["version"] == "1.2.1")
        .unwrap();
    let changes: Vec<(String, String)> = newest["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap().to_string(),
                d["change"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        changes,
        [
            ("README.md".to_string(), "removed".to_string()),
            (rel_entry.clone(), "changed".to_string()),
            ("planted.sh".to_string(), "added".to_string()),
            ("tool.yaml".to_string(), "changed".to_string()),
        ]
    );
    // fs-list alone is fine.
    t.run(&["verify", "fs-list"]).success();

    // A reinstall repairs it.
    t.run(&["install", "fs-read@1.2.1", "--force"]).success();
    let run = t.run(&["verify", "fs-read"]);
    run.failure(1).stdout_has("fs-read 1.2.1: ok");
}

#[test]
fn a_missing_receipt_is_reported() {
    let t = installed();
    std::fs::remove_file(t.tools_dir().join("fs-list/1.0.0/.orla-receipt.json")).unwrap();
    t.run(&["verify"])
        .failure(1)
        .stdout_has("fs-list 1.0.0: no readable install receipt");
}

#[test]
fn nothing_installed_and_unknown_names() {
    let t = TestContext::new();
    t.run(&["verify"])
        .success()
        .stderr_has("Verified 0 installed packages");
    assert!(!t.home.exists(), "verify created the root");
    t.run(&["install", "fs-list"]).success();
    t.run(&["verify", "nope"])
        .failure(1)
        .stderr_has("error: nope is not installed");
}

/// `orla verify fs-read@1.2.1` used to answer "fs-read@1.2.1 is not
/// installed" (exit 1) with the version installed; commands that take
/// names say so, with the command that works.
#[test]
fn name_only_commands_refuse_a_version_with_a_hint() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2.1"]).success();
    let before = snapshot(&t.home);
    for command in ["verify", "update"] {
        t.run(&[command, "fs-read@1.2.1"])
            .failure(2)
            .stderr_has(&format!(
                "error: `orla {command}` takes a tool name, not 'fs-read@1.2.1'"
            ))
            .stderr_has(&format!("hint: run `orla {command} fs-read`"));
    }
    assert_eq!(snapshot(&t.home), before);
}

/// A package whose receipt is damaged is not counted by `list`; `install`
/// skipped it as "already installed" and exited 0 with nothing served. It
/// fails, says why, and names the command that repairs it.
#[test]
fn install_fails_on_a_package_with_a_damaged_receipt_and_names_the_repair() {
    let t = TestContext::new();
    t.run(&["install", "fs-list"]).success();
    let dir = t.tools_dir().join("fs-list/1.0.0");
    std::fs::write(dir.join(".orla-receipt.json"), "garbage").unwrap();
    t.run(&["install", "fs-list"])
        .failure(1)
        .stderr_has("exists but is damaged")
        .stderr_has("hint: `orla install fs-list@1.0.0 --force` replaces it");
    t.run(&["install", "fs-list", "--force"]).success();
    t.run(&["verify", "fs-list"]).success();
}

/// A directory in tools_dir without a receipt (not orla's) got the hint to
/// reinstall a version the registry may not have.
#[test]
fn a_package_directory_without_a_receipt_hints_it_may_not_be_orlas() {
    let t = TestContext::new();
    t.run(&["install", "fs-list"]).success();
    std::fs::create_dir_all(t.tools_dir().join("fs-list/9.9.9")).unwrap();
    t.run(&["verify"])
        .failure(1)
        .stdout_has("fs-list 9.9.9: no readable install receipt")
        .stderr_has(&format!(
            "`orla install fs-list@9.9.9 --force` (remove {} instead if orla did not install it)",
            t.tools_dir().join("fs-list/9.9.9").display()
        ));
}
