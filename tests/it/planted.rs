//! A package directory orla did not create in this root is never trusted:
//! a cloned project that ships `tools/NAME/VERSION/` with its own files and
//! a forged install receipt is not served, `orla verify` reports it, and
//! `orla install --frozen` replaces it with the bytes orla.lock pins. A
//! receipt copied from another root (another user's key) is refused too.

use crate::common;

use std::path::Path;

use common::{copy_dir, TestContext};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Replaces one file of the package at `pkg` with `code` and rewrites its
/// receipt to match, as an attacker who can write the directory would: the
/// receipt's file digests are right, only its binding cannot be forged.
fn plant(pkg: &Path, code: &str, keep_binding: bool) -> String {
    let path = pkg.join(".orla-receipt.json");
    let mut receipt: serde_json::Value = serde_json::from_str(&read(&path)).unwrap();
    let file = receipt["files"]
        .as_object()
        .unwrap()
        .keys()
        .find(|f| f.as_str() != "tool.yaml")
        .expect("a file besides tool.yaml")
        .clone();
    std::fs::write(pkg.join(&file), code).unwrap();
    let record = &mut receipt["files"][&file];
    record["blake3"] = blake3::hash(code.as_bytes()).to_hex().to_string().into();
    record["size"] = (code.len() as u64).into();
    if !keep_binding {
        receipt.as_object_mut().unwrap().remove("binding");
    }
    std::fs::write(&path, serde_json::to_string_pretty(&receipt).unwrap()).unwrap();
    file
}

/// The tools the manifest of a project serves from its own tools_dir.
fn served_from(dir: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(dir.join(".orla/manifest.json")) else {
        return Vec::new();
    };
    let manifest: serde_json::Value = serde_json::from_str(&text).unwrap();
    let tools = dir.join("tools").display().to_string();
    manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["path"].as_str().is_some_and(|p| p.starts_with(&tools)))
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_cloned_project_with_a_planted_package_is_not_served_and_frozen_replaces_it() {
    // The author's machine: a genuine install, which verifies.
    let author = TestContext::new();
    author.run(&["init", "proj"]).success();
    let origin = author.work.join("proj");
    author
        .run_in(&origin, &["install", "fs-read@1.2.1"])
        .success();
    author.run_in(&origin, &["verify"]).success();
    let genuine = origin.join("tools/fs-read/1.2.1");

    for keep_binding in [true, false] {
        // The repository as cloned elsewhere: orla.yaml, orla.lock and a
        // planted package whose receipt matches its files.
        let victim = TestContext::new();
        let dir = victim.work.join("proj");
        std::fs::create_dir_all(&dir).unwrap();
        for f in ["orla.yaml", "orla.lock"] {
            std::fs::copy(origin.join(f), dir.join(f)).unwrap();
        }
        let pkg = dir.join("tools/fs-read/1.2.1");
        copy_dir(&genuine, &pkg);
        let file = plant(&pkg, "#!/bin/sh\necho planted\n", keep_binding);

        victim
            .run_in(&dir, &["verify"])
            .failure(1)
            .stdout_has("not installed by orla in this root");
        let listed = victim.run_in(&dir, &["list"]);
        assert!(
            !served_from(&dir).contains(&"fs-read".to_string()),
            "the planted package is served: {}",
            listed.stderr
        );

        victim
            .run_in(&dir, &["install", "--frozen"])
            .success()
            .stderr_has("was not installed by orla in this root")
            .stderr_has("Installed fs-read 1.2.1");
        assert_eq!(read(&pkg.join(&file)), read(&genuine.join(&file)));
        assert_eq!(
            served_from(&dir),
            vec!["fs-read".to_string()],
            "{}",
            read(&dir.join(".orla/manifest.json"))
        );
        victim.run_in(&dir, &["verify"]).success();
        // Now it is orla's own: up to date.
        victim
            .run_in(&dir, &["install", "--frozen"])
            .success()
            .stderr_has("Up to date");
    }
}

#[test]
fn a_receipt_copied_from_another_root_is_refused() {
    let a = TestContext::new();
    a.run(&["install", "fs-read@1.2.1"]).success();
    a.run(&["verify"]).success();
    let genuine = a.tools_dir().join("fs-read/1.2.1");

    // Byte for byte the same package, in another user's global root: its
    // receipt is bound to the other ORLA_HOME's key.
    let b = TestContext::new();
    b.run(&["install", "json-query"]).success();
    copy_dir(&genuine, &b.tools_dir().join("fs-read/1.2.1"));
    b.run(&["verify"])
        .failure(1)
        .stdout_has("not installed by orla in this root")
        .stdout_has("orla install --force fs-read@1.2.1");
    b.run(&["list"]).success();
    assert!(
        !b.list().iter().any(|(name, _)| name == "fs-read"),
        "{:?}",
        b.list()
    );
    b.run(&["install", "fs-read@1.2.1"])
        .failure(1)
        .stderr_has("was not installed by orla in this root")
        .stderr_has("--force` replaces it");
    b.run(&["install", "--force", "fs-read@1.2.1"]).success();
    b.run(&["verify"]).success();
    assert!(b.list().iter().any(|(name, _)| name == "fs-read"));
}

#[test]
fn global_receipts_from_before_bindings_are_still_served() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2.1"]).success();
    let path = t.tools_dir().join("fs-read/1.2.1/.orla-receipt.json");
    let mut receipt: serde_json::Value = serde_json::from_str(&read(&path)).unwrap();
    assert!(receipt["binding"].is_string(), "{receipt}");
    assert_eq!(
        std::fs::metadata(t.home.join("receipt.key")).unwrap().len(),
        32
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(t.home.join("receipt.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    receipt.as_object_mut().unwrap().remove("binding");
    std::fs::write(&path, serde_json::to_string_pretty(&receipt).unwrap()).unwrap();
    t.run(&["verify"]).success();
    t.run(&["list"]).success();
    assert!(t.list().iter().any(|(name, _)| name == "fs-read"));
    // A wrong binding is refused even in the global root.
    receipt["binding"] = "0".repeat(64).into();
    std::fs::write(&path, serde_json::to_string_pretty(&receipt).unwrap()).unwrap();
    t.run(&["verify"])
        .failure(1)
        .stdout_has("not installed by orla in this root");
}

/// A repository can also ship `.orla/manifest.json` itself, naming any
/// program. `orla serve` writes a project's manifest again from its store
/// before serving it, so what it serves is what orla installed there.
#[test]
fn a_planted_project_manifest_is_rewritten_before_it_is_served() {
    let t = TestContext::new();
    t.run(&["init", "proj"]).success();
    let dir = t.work.join("proj");
    t.run_in(&dir, &["install", "fs-list"]).success();
    let path = dir.join(".orla/manifest.json");
    let mut manifest: serde_json::Value = serde_json::from_str(&read(&path)).unwrap();
    let mut evil = manifest["tools"][0].clone();
    evil["name"] = "evil".into();
    evil["command"] = serde_json::json!(["/bin/sh", "-c", "echo planted"]);
    manifest["tools"].as_array_mut().unwrap().push(evil);
    std::fs::write(&path, manifest.to_string()).unwrap();

    // No client: the server starts, finds stdin closed and stops.
    let run = t.run_in(&dir, &["serve", "--stdio"]);
    assert!(run.stderr.contains("\"tools\":1"), "{}", run.stderr);
    let text = read(&path);
    assert!(!text.contains("planted"), "{text}");
    assert_eq!(served_from(&dir), ["fs-list"]);
}

/// Replaces the first occurrence of `from` in the file at `path` by `to`
/// (as long), in place, and puts its modification time back: only its
/// ctime tells that it changed.
fn rewrite_keeping_size_and_mtime(path: &Path, from: &str, to: &str) {
    assert_eq!(from.len(), to.len());
    let before = std::fs::metadata(path).unwrap();
    let text = read(path).replacen(from, to, 1);
    let mut file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    std::io::Write::write_all(&mut file, text.as_bytes()).unwrap();
    file.set_modified(before.modified().unwrap()).unwrap();
    drop(file);
    let after = std::fs::metadata(path).unwrap();
    assert_eq!(after.len(), before.len());
    assert_eq!(after.modified().unwrap(), before.modified().unwrap());
}

/// A receipt forged in place (its size and modification time kept, its
/// binding now wrong) is never served: the next command that rewrites the
/// manifest reads every package again and refuses it, and `orla verify`
/// reports it before that.
#[test]
fn a_receipt_forged_in_place_is_refused_by_the_next_command() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2.1", "json-query"]).success();
    let fs_read = t.tools_dir().join("fs-read/1.2.1");
    let receipt = fs_read.join(".orla-receipt.json");
    let binding: serde_json::Value = serde_json::from_str(&read(&receipt)).unwrap();
    let binding = binding["binding"].as_str().unwrap().to_string();
    let flipped = format!(
        "{}{}",
        if binding.starts_with('0') { '1' } else { '0' },
        &binding[1..]
    );
    rewrite_keeping_size_and_mtime(&receipt, &binding, &flipped);
    t.run(&["verify", "fs-read"])
        .failure(1)
        .stdout_has("not installed by orla in this root");
    t.run(&["install", "fs-list"])
        .success()
        .stderr_has(&format!("skipping {}", fs_read.display()));
    assert!(!t
        .list()
        .iter()
        .any(|(name, v)| name == "fs-read" && v == "1.2.1"));
}
