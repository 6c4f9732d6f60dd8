//! `orla install`, `list` and `uninstall` end to end: the real binary against
//! a temporary ORLA_HOME, the built-in registry, directory indexes and a real
//! HTTP server on 127.0.0.1.

use crate::common;

use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::archive::{self, Entry};
use common::server::{Behaviour, Server};
use common::{snapshot, IndexBuilder, PackageBuilder, TestContext};

fn installed_version(spec: &str) -> String {
    let t = TestContext::new();
    t.run(&["install", spec]).success();
    let list = t.list();
    assert_eq!(list.len(), 1, "{spec}: {list:?}");
    list[0].1.clone()
}

#[test]
fn version_rules_on_the_builtin_registry() {
    for (spec, version) in [
        ("fs-read@1.2", "1.2.1"),
        ("fs-read@1", "1.2.1"),
        ("fs-read", "1.2.1"),
        ("fs-read@latest", "1.2.1"),
        ("fs-read@2.0.0-rc.1", "2.0.0-rc.1"),
        ("fs-read@v1.1.0", "1.1.0"),
        ("fs-read@^1.0", "1.2.1"),
        ("fs-read@~1.1", "1.1.0"),
    ] {
        assert_eq!(installed_version(spec), version, "{spec}");
    }
}

#[test]
fn install_lays_out_the_package_and_the_manifest() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2"])
        .success()
        .stderr_has("Permissions fs-read 1.2.1: filesystem:read (risk: low)")
        .stderr_has("Installed fs-read 1.2.1");
    let pkg = t.tools_dir().join("fs-read/1.2.1");
    assert!(pkg.join("tool.yaml").is_file());
    assert!(pkg.join("bin/fs-read").is_file());
    assert!(pkg.join(".orla-receipt.json").is_file());
    assert!(!t.tools_dir().join(".orla-staging").exists());

    let manifest = t.manifest();
    assert_eq!(manifest["manifest_version"], 2);
    let tool = &manifest["tools"][0];
    assert_eq!(tool["name"], "fs-read");
    assert_eq!(tool["version"], "1.2.1");
    assert_eq!(tool["path"], pkg.display().to_string());
    assert_eq!(
        tool["entrypoint"],
        pkg.join("bin/fs-read").display().to_string()
    );
    assert_eq!(tool["interpreter"], "python3");
    assert_eq!(tool["mode"], "simple");
    assert_eq!(tool["risk_level"], "low");
    assert_eq!(tool["safety_tier"], "read");
    assert_eq!(tool["permissions"][0], "filesystem:read");
    assert_eq!(tool["input_schema"]["type"], "object");
    assert_eq!(tool["input_schema"]["required"][0], "path");
    assert_eq!(tool["source"]["kind"], "registry");
    assert_eq!(tool["source"]["registry"], "builtin");
    assert_eq!(tool["source"]["blake3"].as_str().unwrap().len(), 64);
}

#[test]
fn installed_tool_runs_with_json_on_stdin() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.2"]).success();
    let file = t.work.join("hello.txt");
    std::fs::write(&file, "hello world\n").unwrap();
    let manifest = t.manifest();
    let entry = manifest["tools"][0]["entrypoint"].as_str().unwrap();
    let mut child = std::process::Command::new(entry)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    write!(
        child.stdin.take().unwrap(),
        r#"{{"path":"{}","offset":6}}"#,
        file.display()
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "world\n");
}

/// `list --json` prints one row per line, and the same bytes however the
/// manifest is laid out (it is parsed, not copied).
#[test]
fn list_json_is_the_same_however_the_manifest_is_read() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.1.0", "fs-read@1.2", "json-query"])
        .success();
    let taken = t.run(&["list", "--json"]).success().stdout.clone();
    let lines: Vec<&str> = taken.lines().collect();
    assert_eq!(lines.len(), 5, "{taken}");
    assert_eq!((lines[0], lines[4]), ("[", "]"));
    for row in &lines[1..4] {
        assert!(row.starts_with("  {\"name\":"), "{row}");
        let row = row.trim_start().trim_end_matches(',');
        serde_json::from_str::<serde_json::Value>(row).unwrap();
    }
    let manifest = t.home.join("manifest.json");
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    std::fs::write(&manifest, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    assert_eq!(t.run(&["list", "--json"]).success().stdout, taken);
}

#[test]
fn list_json_has_one_object_per_installed_version() {
    let t = TestContext::new();
    let empty = t.run(&["list", "--json"]);
    empty.success();
    assert_eq!(empty.json(), serde_json::json!([]));

    t.run(&["install", "fs-read@1.1.0", "fs-read@1.2", "json-query"])
        .success();
    let list = t.run(&["list", "--json"]).json();
    let rows = list.as_array().unwrap();
    assert_eq!(rows.len(), 3);
    for row in rows {
        for key in [
            "name",
            "version",
            "description",
            "path",
            "entrypoint",
            "mode",
            "active",
            "source",
        ] {
            assert!(row.get(key).is_some(), "{key} missing in {row}");
        }
        assert_eq!(row["source"]["kind"], "registry");
        assert_eq!(row["source"]["registry"], "builtin");
    }
    let active: Vec<_> = rows
        .iter()
        .filter(|r| r["active"] == true)
        .map(|r| r["version"].clone())
        .collect();
    assert_eq!(active, ["1.2.1", "1.0.0"]);
    // The manifest serves only the active versions.
    let manifest = t.manifest();
    assert_eq!(manifest["tools"].as_array().unwrap().len(), 2);

    let table = t.run(&["list"]);
    table.success().stdout_has("NAME").stdout_has("1.2.1    *");
}

#[test]
fn capsule_mode_reaches_the_manifest() {
    let t = TestContext::new();
    t.run(&["install", "echo-capsule"]).success();
    let tool = &t.manifest()["tools"][0];
    assert_eq!(tool["mode"], "capsule");
    assert_eq!(tool["startup_timeout_ms"], 5000);
    assert_eq!(tool["safety_tier"], "pure");
}

#[test]
fn uninstall_one_version_or_all() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.1.0", "fs-read@1.2.0", "fs-list"])
        .success();
    t.run(&["uninstall", "fs-read@1.1.0"])
        .success()
        .stderr_has("Removed fs-read 1.1.0");
    assert_eq!(
        t.list(),
        [
            ("fs-list".into(), "1.0.0".into()),
            ("fs-read".into(), "1.2.0".into())
        ]
    );
    assert!(!t.tools_dir().join("fs-read/1.1.0").exists());

    t.run(&["uninstall", "fs-read"]).success();
    assert_eq!(t.list(), [("fs-list".to_string(), "1.0.0".to_string())]);
    assert!(!t.tools_dir().join("fs-read").exists());
    assert_eq!(t.manifest()["tools"].as_array().unwrap().len(), 1);

    let before = snapshot(&t.home);
    t.run(&["uninstall", "fs-read"])
        .failure(1)
        .stderr_has("fs-read is not installed");
    t.run(&["uninstall", "fs-list@9.9.9"])
        .failure(1)
        .stderr_has("fs-list@9.9.9 is not installed; installed: 1.0.0");
    t.run(&["use", "fs-raed@1.0.0"])
        .failure(1)
        .stderr_has("error: fs-raed is not installed in ");
    assert_eq!(snapshot(&t.home), before);
}

#[test]
fn reinstall_is_skipped_unless_forced() {
    let t = TestContext::new();
    t.run(&["install", "fs-list"]).success();
    let bin = t.tools_dir().join("fs-list/1.0.0/bin/fs-list");
    std::fs::write(&bin, "tampered").unwrap();
    t.run(&["install", "fs-list"])
        .success()
        .stderr_has("already installed");
    assert_eq!(std::fs::read_to_string(&bin).unwrap(), "tampered");
    t.run(&["install", "fs-list", "--force"])
        .success()
        .stderr_has("Reinstalled fs-list 1.0.0");
    assert!(std::fs::read_to_string(&bin).unwrap().starts_with("#!"));
    assert!(!t.tools_dir().join(".orla-staging").exists());
}

#[test]
fn risky_permissions_need_consent() {
    let t = TestContext::new();
    let before = snapshot(t.dir.path());
    t.run(&["install", "http-get"])
        .failure(1)
        .stderr_has("Permissions http-get 1.0.0: network (risk: medium)")
        .stderr_has("error: http-get 1.0.0 asks for network (risk: medium) and there is no terminal to confirm it")
        .stderr_has("hint: pass --yes");
    assert_eq!(
        snapshot(t.dir.path()),
        before,
        "a refused install changes nothing"
    );
    t.run(&["install", "http-get", "--yes"]).success();
    assert_eq!(t.manifest()["tools"][0]["risk_level"], "medium");
}

#[test]
fn a_refusal_among_several_tools_names_the_command_that_installs_the_others() {
    let t = TestContext::new();
    t.run(&["install", "fs-list", "http-get", "echo-capsule@^1"])
        .failure(1)
        .stderr_has("hint: pass --yes to accept these permissions; nothing was installed, and `orla install fs-list 'echo-capsule@^1'` installs the others");
    assert!(t.list().is_empty());
    // Alone, there are no others to name.
    let alone = t.run(&["install", "http-get"]);
    assert!(!alone.stderr.contains("the others"), "{}", alone.stderr);
}

#[test]
fn bad_specs_and_names_get_one_line_errors() {
    let t = TestContext::new();
    let before = snapshot(t.dir.path());
    t.run(&["install", "fs-raed"])
        .failure(1)
        .stderr_has("error: no tool 'fs-raed' in registry builtin\nhint: did you mean 'fs-read'?");
    t.run(&["install", "fs-read@3"]).failure(1).stderr_has(
        "error: no version of fs-read matches '3'; available: 1.0.0, 1.1.0, 1.2.0, 1.2.1, 2.0.0-rc.1",
    );
    t.run(&["install", "fs-read@@1"])
        .failure(2)
        .stderr_has("error: invalid tool spec 'fs-read@@1'")
        .stderr_has("hint: write NAME, NAME@VERSION");
    t.run(&["install", "../etc"])
        .failure(2)
        .stderr_has("'../etc' looks like a path, not a tool name")
        .stderr_has("hint: to install a local package, run `orla install --local ../etc`");
    t.run(&["install", "FS-READ"])
        .failure(2)
        .stderr_has("did you mean 'fs-read'?");
    t.run(&["install"])
        .failure(2)
        .stderr_has("error: nothing to install");
    t.run(&["frobnicate"]).failure(2);
    // A bad spec among good ones installs nothing.
    t.run(&["install", "fs-list", "nope-nope"]).failure(1);
    assert_eq!(snapshot(t.dir.path()), before);
}

fn local_index(t: &TestContext) -> IndexBuilder {
    IndexBuilder::new(&t.dir.path().join("index"))
}

#[test]
fn directory_registry_installs() {
    let t = TestContext::new();
    let mut index = local_index(&t);
    index.publish(&PackageBuilder::new("alpha", "0.1.0"));
    index.publish(&PackageBuilder::new("alpha", "0.2.0"));
    t.run(&["install", "alpha", "--registry", &index.location()])
        .success();
    assert_eq!(t.list(), [("alpha".to_string(), "0.2.0".to_string())]);
    let source = &t.manifest()["tools"][0]["source"];
    assert_eq!(source["registry"], index.location());
}

#[test]
fn tampered_archive_leaves_nothing_behind() {
    let t = TestContext::new();
    let mut index = local_index(&t);
    index.publish(&PackageBuilder::new("alpha", "0.1.0"));
    // Swap the archive for another package's bytes after publishing.
    let other = PackageBuilder::new("alpha", "0.1.0")
        .file("bin/extra", "evil", true)
        .write(t.dir.path());
    let (_, evil) = orla::package::pack::pack_to_vec(&other).unwrap();
    std::fs::write(index.root.join("archives/alpha/alpha-0.1.0.tar.gz"), evil).unwrap();

    t.run(&["install", "fs-list"]).success();
    let home = snapshot(&t.home);
    t.run(&["install", "alpha", "--registry", &index.location()])
        .failure(1)
        .stderr_has("error: alpha 0.1.0: size mismatch: expected")
        .stderr_has("nothing was installed");
    assert_eq!(snapshot(&t.home), home);
    assert!(!t.tools_dir().join("alpha").exists());

    // Same size, one byte flipped: the digest catches it.
    index.publish(&PackageBuilder::new("beta", "0.1.0"));
    let path = index.root.join("archives/beta/beta-0.1.0.tar.gz");
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 10;
    bytes[last] ^= 0xff;
    std::fs::write(&path, bytes).unwrap();
    t.run(&["install", "beta", "--registry", &index.location()])
        .failure(1)
        .stderr_has("error: beta 0.1.0: digest mismatch: expected blake3");
    assert_eq!(snapshot(&t.home), home);
}

#[test]
fn traversal_and_symlink_archives_are_refused() {
    let cases: Vec<(&str, Vec<Entry>, &str)> = vec![
        (
            "dotdot",
            {
                let mut e = archive::package("", "evil", "1.0.0");
                e.push(archive::file("../../escaped", "x"));
                e
            },
            "climbs out of the package",
        ),
        (
            "absolute",
            {
                let mut e = archive::package("", "evil", "1.0.0");
                e.push(archive::file("/tmp/orla-escaped", "x"));
                e
            },
            "is an absolute path",
        ),
        (
            "symlink",
            {
                let mut e = archive::package("", "evil", "1.0.0");
                e.push(Entry::Symlink {
                    path: b"etc".to_vec(),
                    target: b"/etc".to_vec(),
                });
                e.push(archive::file("etc/orla-escaped", "x"));
                e
            },
            "is a symbolic link",
        ),
    ];
    for (label, entries, message) in cases {
        let t = TestContext::new();
        t.run(&["install", "fs-list"]).success();
        let mut index = local_index(&t);
        let bytes = archive::targz(&entries);
        index.publish_bytes(
            &PackageBuilder::new("evil", "1.0.0"),
            &bytes,
            "archives/evil/evil-1.0.0.tar.gz",
        );
        let before = (snapshot(&t.home), snapshot(&t.cache));
        t.run(&["install", "evil", "--registry", &index.location()])
            .failure(1)
            .stderr_has(message);
        assert_eq!((snapshot(&t.home), snapshot(&t.cache)), before, "{label}");
        assert!(
            !std::path::Path::new("/tmp/orla-escaped").exists(),
            "{label}"
        );
        assert!(!t.dir.path().join("escaped").exists(), "{label}");
    }
}

#[test]
fn local_directory_and_archive_installs() {
    let t = TestContext::new();
    let src = PackageBuilder::new("mine", "0.3.0").write(t.dir.path());
    t.run(&["install", "--local", src.to_str().unwrap()])
        .success()
        .stderr_has("Installed mine 0.3.0");
    let source = &t.manifest()["tools"][0]["source"];
    assert_eq!(source["kind"], "local");
    assert_eq!(source["path"], src.display().to_string());

    let archive = archive::targz(&archive::package("wrapped-0.1.0/", "wrapped", "0.1.0"));
    let path = t.dir.path().join("wrapped.tar.gz");
    std::fs::write(&path, archive).unwrap();
    t.run(&["install", "--local", path.to_str().unwrap()])
        .success();
    assert!(t.tools_dir().join("wrapped/0.1.0/tool.yaml").is_file());

    let broken =
        PackageBuilder::new("broken", "0.1.0").yaml("runtime:\n  hot_load:\n    mode: reload\n");
    let dir = broken.write(t.dir.path());
    t.run(&["install", "--local", dir.to_str().unwrap()])
        .failure(1)
        .stderr_has("runtime.hot_load.mode: unknown mode 'reload'");
}

/// `--local /dev/zero` would be read into memory without end.
#[cfg(unix)]
#[test]
fn a_local_path_that_is_not_a_regular_file_is_refused_before_reading() {
    let t = TestContext::new();
    let before = snapshot(t.dir.path());
    t.run(&["install", "--local", "/dev/null"])
        .failure(1)
        .stderr_has("/dev/null is not a regular file");
    assert_eq!(snapshot(t.dir.path()), before);
}

/// A local archive's permissions were shown under its path
/// (`Permissions /home/you/./x.tar.gz: network`), and its receipt kept the `./`.
#[test]
fn local_archive_consent_names_the_package_and_a_clean_path() {
    let t = TestContext::new();
    let src = PackageBuilder::new("netty", "0.2.0")
        .permissions(&["network"])
        .write(t.dir.path());
    t.run(&["tool", "pack", src.to_str().unwrap(), "-o", "netty.tar.gz"])
        .success();
    t.run(&["install", "--local", "./netty.tar.gz"])
        .failure(1)
        .stderr_has("Permissions netty 0.2.0: network (risk: medium)")
        .stderr_has("error: netty 0.2.0 asks for network");
    t.run(&["install", "--local", "./netty.tar.gz", "--yes"])
        .success();
    let source = &t.manifest()["tools"][0]["source"];
    assert_eq!(
        source["path"],
        t.work.join("netty.tar.gz").display().to_string()
    );
}

#[test]
fn http_archives_download_and_cache() {
    let t = TestContext::new();
    let server = Server::start();
    let mut index = local_index(&t);
    index.publish(&PackageBuilder::new("remote", "1.0.0"));
    let bytes = std::fs::read(index.root.join("archives/remote/remote-1.0.0.tar.gz")).unwrap();
    server.route("/remote-1.0.0.tar.gz", Behaviour::Serve(bytes));
    let url = server.url("/remote-1.0.0.tar.gz");
    index.edit_records("remote", |r| r.archive = Some(url.clone()));

    t.run(&["install", "remote", "--registry", &index.location()])
        .success();
    assert_eq!(server.requests(), 1);
    assert_eq!(t.manifest()["tools"][0]["source"]["archive"], url);
    // The cache answers a reinstall: no second request.
    t.run(&[
        "install",
        "remote",
        "--force",
        "--registry",
        &index.location(),
    ])
    .success();
    assert_eq!(server.requests(), 1);

    server.route("/missing.tar.gz", Behaviour::Status(404));
    index.publish(&PackageBuilder::new("gone", "1.0.0"));
    let missing = server.url("/missing.tar.gz");
    index.edit_records("gone", |r| r.archive = Some(missing.clone()));
    t.run(&["install", "gone", "--registry", &index.location()])
        .failure(1)
        .stderr_has("HTTP 404");
}

/// An index whose one archive is served by `server` and stalls mid-body.
pub(crate) fn stalling_index(t: &TestContext, server: &Server, name: &str) -> IndexBuilder {
    let mut index = IndexBuilder::new(&t.dir.path().join(format!("index-{name}")));
    let big = "x".repeat(300_000);
    // Random-ish content so gzip cannot shrink it below the stall point.
    let noise: String = (0..200_000u32)
        .map(|i| char::from(b'a' + (i.wrapping_mul(2654435761) >> 27) as u8 % 26))
        .collect();
    index.publish(
        &PackageBuilder::new(name, "1.0.0")
            .file("data/big", &big, false)
            .file("data/noise", &noise, false),
    );
    let rel = format!("archives/{name}/{name}-1.0.0.tar.gz");
    let bytes = std::fs::read(index.root.join(&rel)).unwrap();
    let half = bytes.len() / 2;
    server.route(&format!("/{name}.tar.gz"), Behaviour::Stall(bytes, half));
    let url = server.url(&format!("/{name}.tar.gz"));
    index.edit_records(name, |r| r.archive = Some(url.clone()));
    index
}

fn wait_for(what: &str, cond: impl Fn() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn killed_install_leaves_the_old_state_and_is_cleaned_next_run() {
    let t = TestContext::new();
    t.run(&["install", "fs-list"]).success();
    let before = snapshot(&t.home);
    let server = Server::start();
    let index = stalling_index(&t, &server, "slow");

    let mut child = t
        .command(&["install", "slow", "--registry", &index.location()])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for("the download to start", || server.requests() == 1);
    // The download lands in the cache before the root is locked.
    wait_for("the landing directory to fill", || {
        std::fs::read_dir(t.cache.join("tmp"))
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| std::fs::read_dir(e.path()).is_ok_and(|mut d| d.next().is_some()))
    });
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    assert!(!t.tools_dir().join("slow").exists());
    assert_eq!(t.list(), [("fs-list".to_string(), "1.0.0".to_string())]);
    // The next command cleaned the leftovers, and the root is as before.
    assert!(!t.tools_dir().join(".orla-staging").exists());
    assert_eq!(snapshot(&t.home), before);
}

#[test]
fn concurrent_installs_wait_for_each_other() {
    let t = TestContext::new();
    t.run(&["list"]).success();
    // Another orla holding the root's lock (as one does while it commits).
    let held = orla::lock::FileLock::acquire(
        &t.home.join(".lock"),
        orla::lock::LockKind::Exclusive,
        "the install root",
        &orla::progress::Silent,
    )
    .unwrap();
    let second = common::Watched::spawn(&mut t.command(&["install", "fs-read"]));
    // Released only once the second process waits for it.
    second.wait_for("Waiting for lock on the install root");
    drop(held);
    second.finish().success();
    assert_eq!(t.list(), [("fs-read".to_string(), "1.2.1".to_string())]);
}

/// A download is made before the root is locked: while a server stalls
/// one install, other commands on the same root run without waiting, and
/// the install then completes.
#[test]
fn a_stalled_download_holds_no_lock() {
    let t = TestContext::new();
    t.run(&["install", "fs-read"]).success();
    t.run(&["install", "fs-list"]).success();
    let server = Server::start();
    let index = stalling_index(&t, &server, "slow");
    let mut first = t
        .command(&["install", "slow", "--registry", &index.location()])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for("the first download", || server.requests() == 1);
    // Each finishes while the download is stalled (waiting for the lock,
    // it would not, and this would time out).
    let finish = |args: &[&str]| {
        let mut child = t
            .command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while child.try_wait().unwrap().is_none() {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "timed out waiting for {args:?} to finish"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let run = common::to_run(child.wait_with_output().unwrap());
        assert!(!run.stderr.contains("Waiting for lock"), "{}", run.stderr);
        run
    };
    let list = finish(&["list"]);
    list.success();
    assert!(list.stdout.contains("fs-read") && !list.stdout.contains("slow"));
    finish(&["uninstall", "fs-list"]).success();
    // Both finished while the download is still stalled.
    assert!(
        first.try_wait().unwrap().is_none(),
        "the install ended early"
    );
    assert_eq!(server.requests(), 1);
    server.release();
    let first = common::to_run(first.wait_with_output().unwrap());
    first.success();
    assert_eq!(
        t.list(),
        [
            ("fs-read".to_string(), "1.2.1".to_string()),
            ("slow".to_string(), "1.0.0".to_string())
        ]
    );
    // What was verified before the lock is what was installed.
    t.run(&["verify"]).success();
}

#[test]
fn project_root_is_used_inside_a_project() {
    let t = TestContext::new();
    let project = t.work.join("proj");
    std::fs::create_dir_all(project.join("src/deep")).unwrap();
    std::fs::write(
        project.join("orla.yaml"),
        "tools_dir: ./mcp-tools\nport: 8080\n",
    )
    .unwrap();
    t.run_in(&project.join("src/deep"), &["install", "fs-read@1.1"])
        .success();
    assert!(project.join("mcp-tools/fs-read/1.1.0/tool.yaml").is_file());
    assert!(project.join(".orla/manifest.json").is_file());
    assert!(
        !t.home.join("tools").exists(),
        "the global root is untouched"
    );
    let list = t.run_in(&project, &["list", "--json"]).json();
    assert_eq!(
        list[0]["path"],
        project
            .join("mcp-tools/fs-read/1.1.0")
            .display()
            .to_string()
    );
    // Outside the project the global root is empty.
    assert_eq!(t.run(&["list", "--json"]).json(), serde_json::json!([]));
}

#[test]
fn unknown_manifest_version_is_refused() {
    let t = TestContext::new();
    t.run(&["install", "fs-list"]).success();
    let path = t.home.join("manifest.json");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"manifest_version\": 2", "\"manifest_version\": 99");
    std::fs::write(&path, text).unwrap();
    t.run(&["list"])
        .failure(1)
        .stderr_has("manifest_version 99 is not known")
        .stderr_has("hint: a newer orla wrote it");
}

#[test]
fn damaged_manifest_is_rewritten_by_list() {
    let t = TestContext::new();
    t.run(&["install", "fs-list"]).success();
    for garbage in ["", "garbage [", "{}"] {
        std::fs::write(t.home.join("manifest.json"), garbage).unwrap();
        t.run(&["list"])
            .success()
            .stderr_has("is unreadable")
            .stdout_has("fs-list");
        assert_eq!(t.manifest()["installed"][0]["name"], "fs-list");
    }
}

#[test]
fn damaged_pins_file_is_named_with_its_fix() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.1.0", "fs-read@1.2.0"])
        .success();
    std::fs::write(t.home.join("pins.json"), "garbage").unwrap();
    let before = snapshot(&t.home);
    t.run(&["use", "fs-read@1.1.0"])
        .failure(1)
        .stderr_has("error: the version pins ")
        .stderr_has("hint: delete ");
    assert!(!t
        .run(&["use", "fs-read@1.1.0"])
        .stderr
        .contains("runtime manifest"));
    assert_eq!(snapshot(&t.home), before);
    std::fs::remove_file(t.home.join("pins.json")).unwrap();
    t.run(&["use", "fs-read@1.1.0"]).success();
}

#[test]
fn consent_is_asked_on_a_terminal() {
    use common::pty::{expect, finish, finish_with, send, spawn};
    let t = TestContext::new();
    let mut declined = spawn(&t, &["install", "http-get"]);
    expect(&mut declined, "Install http-get 1.0.0 with network?");
    send(&mut declined, "n");
    expect(
        &mut declined,
        "installation of http-get 1.0.0 cancelled: nothing was installed",
    );
    finish_with(declined, 1);
    assert!(!t.tools_dir().join("http-get").exists());

    // One of several refused: the command that installs the others.
    let mut several = spawn(&t, &["install", "fs-list", "http-get"]);
    expect(&mut several, "Install http-get 1.0.0 with network?");
    send(&mut several, "n");
    expect(
        &mut several,
        "installation of http-get 1.0.0 cancelled: nothing was installed",
    );
    expect(&mut several, "`orla install fs-list` installs the others");
    finish_with(several, 1);
    assert!(t.list().is_empty());

    let mut accepted = spawn(&t, &["install", "http-get"]);
    expect(&mut accepted, "Install http-get 1.0.0 with network?");
    send(&mut accepted, "y");
    expect(&mut accepted, "Installed http-get 1.0.0");
    finish(accepted);
    assert_eq!(t.list(), [("http-get".to_string(), "1.0.0".to_string())]);
}

#[test]
fn a_risk_level_the_author_raised_needs_consent() {
    // DESIGN invariant 7: medium risk or more needs confirmation, and the
    // risk is tool.yaml's risk_level when the author sets it.
    let t = TestContext::new();
    let mut index = local_index(&t);
    index.publish(
        &PackageBuilder::new("careful", "1.0.0")
            .permissions(&["filesystem:read"])
            .yaml("risk_level: high\n"),
    );
    // Asked once the package is unpacked, under the root's lock.
    t.run(&["install", "fs-list"]).success();
    let before = snapshot(t.dir.path());
    t.run(&["install", "careful", "--registry", &index.location()])
        .failure(1)
        .stderr_has("(risk: high)")
        .stderr_has("--yes");
    assert_eq!(snapshot(t.dir.path()), before);
    t.run(&[
        "install",
        "careful",
        "--yes",
        "--registry",
        &index.location(),
    ])
    .success();
}

#[test]
fn uninstall_name_at_latest_removes_the_newest_installed_version() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.0.0", "fs-read@1.2.1"])
        .success();
    t.run(&["uninstall", "fs-read@latest"])
        .success()
        .stderr_has("Removed fs-read 1.2.1");
    assert_eq!(t.list(), [("fs-read".into(), "1.0.0".into())]);
}

/// `ORLA_HOME=/proc/nope`: the root is checked before the permissions are
/// shown, and the error says how to choose another.
#[test]
fn a_root_that_cannot_be_made_fails_before_the_permissions_with_a_hint() {
    let t = TestContext::new();
    for spec in ["fs-read", "http-get"] {
        let run = common::to_run(
            t.command(&["install", spec])
                .env("ORLA_HOME", "/proc/nope")
                .output()
                .unwrap(),
        );
        run.failure(1)
            .stderr_has("error: cannot create /proc/nope: ")
            .stderr_has("hint: set ORLA_HOME to a directory you can write to");
        assert!(!run.stderr.contains("Permissions"), "{}", run.stderr);
    }
}
