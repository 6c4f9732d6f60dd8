//! A read-only root and a full disk: a clear error, exit 1, and
//! the previous state intact.
//!
//! - Read-only: the root's permission bits are taken away. Tests often run
//!   as root, whom permission bits do not stop, so then orla runs as the
//!   unprivileged user `nobody` (uid 65534) on a root-owned root, which is
//!   read-only for it. nobody runs a link to the binary inside the test's
//!   own directory, so the checkout may lie where nobody cannot go (under
//!   /root); if it is still impossible the test says why and skips
//!   (`common::skip_unless_strict`).
//! - Full disk: making a real full filesystem needs privileges (a tiny
//!   tmpfs or loop mount), so orla runs under a file size limit
//!   (RLIMIT_FSIZE, `ulimit -f`, with SIGXFSZ ignored): every write past the
//!   limit fails with EFBIG, through exactly the code paths ENOSPC takes.

use crate::common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use common::{snapshot, IndexBuilder, PackageBuilder, Run, TestContext};

const NOBODY: u32 = 65534;

fn running_as_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|m| m.uid())
        .unwrap_or(1)
        == 0
}

/// Takes the write bits away from everything under `dir`.
fn make_read_only(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            make_read_only(&path);
        } else if meta.is_file() {
            let mode = meta.permissions().mode() & !0o222;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        }
    }
    let mode = std::fs::metadata(dir).unwrap().permissions().mode() & !0o222;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// orla with the test's environment, as nobody when the tests run as root
/// (whom permission bits do not stop). nobody runs a hard link (or a copy)
/// of the binary in the test's directory, which is opened to it: the
/// checkout's own path may be closed to other users.
fn unprivileged_command(t: &TestContext, args: &[&str]) -> Command {
    if !running_as_root() {
        return t.command(args);
    }
    std::fs::set_permissions(t.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let bin = t.dir.path().join("orla-bin");
    if !bin.exists() {
        let built = Path::new(env!("CARGO_BIN_EXE_orla"));
        if std::fs::hard_link(built, &bin).is_err() {
            std::fs::copy(built, &bin).unwrap();
        }
    }
    let mut cmd = t.program_command(&bin, args);
    cmd.stdin(std::process::Stdio::null());
    cmd.uid(NOBODY).gid(NOBODY);
    cmd
}

/// Runs orla so that it cannot write `t.home`; `None` (with the reason
/// given to `skip_unless_strict`) when this machine offers no way to do that.
fn run_read_only(t: &TestContext, args: &[&str]) -> Option<Run> {
    match unprivileged_command(t, args).output() {
        Ok(out) => Some(common::to_run(out)),
        Err(e) => {
            common::skip_unless_strict(&format!("cannot run orla as an unprivileged user ({e})"));
            None
        }
    }
}

#[test]
fn read_only_root_gives_a_clear_error_and_changes_nothing() {
    let t = TestContext::new();
    t.run(&["install", "fs-list", "fs-read"]).success();
    if running_as_root() {
        // The root-owned tree (0755 directories, 0644 and 0755 files) is
        // read-only for nobody as it is.
    } else {
        make_read_only(&t.home);
        // Make sure the bits really bite for this user.
        if std::fs::write(t.home.join("probe"), "x").is_ok() {
            common::skip_unless_strict("permission bits do not stop this user");
            return;
        }
    }
    let before = (snapshot(&t.home), snapshot(&t.cache));

    for args in [
        &["install", "json-query"][..],
        &["install", "fs-read@1.0.0"],
        &["install", "fs-list", "--force"],
        &["uninstall", "fs-list"],
    ] {
        let Some(run) = run_read_only(&t, args) else {
            return;
        };
        run.failure(1)
            .stderr_has("Permission denied")
            .stderr_has("hint: check that you may write to the install root, or set ORLA_HOME");
        assert_eq!(
            run.stderr
                .lines()
                .filter(|l| l.starts_with("error:"))
                .count(),
            1,
            "{args:?}\n{}",
            run.stderr
        );
        assert_eq!((snapshot(&t.home), snapshot(&t.cache)), before, "{args:?}");
    }
    // Reading a read-only root still works.
    let list = run_read_only(&t, &["list", "--json"]).unwrap();
    list.success();
    assert_eq!(list.json().as_array().unwrap().len(), 2);
    run_read_only(&t, &["verify"])
        .unwrap()
        .success()
        .stdout_has("fs-list 1.0.0: ok");
    assert_eq!((snapshot(&t.home), snapshot(&t.cache)), before);
}

/// Runs orla with writes capped at `limit` bytes per file (RLIMIT_FSIZE).
fn run_with_file_limit(t: &TestContext, limit: u64, args: &[&str]) -> Run {
    let blocks = limit / 512; // dash and POSIX sh count 512-byte blocks
    let mut full = vec![
        "-c".to_string(),
        format!("ulimit -f {blocks} && trap '' XFSZ && exec \"$0\" \"$@\""),
        env!("CARGO_BIN_EXE_orla").to_string(),
    ];
    full.extend(args.iter().map(|s| s.to_string()));
    let template = t.command(&[]);
    let mut cmd = Command::new("/bin/sh");
    cmd.args(&full).current_dir(&t.work);
    for (k, v) in template.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    common::to_run(cmd.output().unwrap())
}

#[test]
fn full_disk_while_unpacking_changes_nothing() {
    let t = TestContext::new();
    t.run(&["install", "fs-list"]).success();
    let mut index = IndexBuilder::new(&t.dir.path().join("index"));
    let noise: String = (0..300_000u32)
        .map(|i| char::from(b'a' + (i.wrapping_mul(2_654_435_761) >> 27) as u8 % 26))
        .collect();
    index.publish(&PackageBuilder::new("big", "1.0.0").file("data/blob", &noise, false));
    let before = (snapshot(&t.home), snapshot(&t.cache));

    let run = run_with_file_limit(
        &t,
        64 * 1024,
        &["install", "big", "--registry", &index.location()],
    );
    run.failure(1)
        .stderr_has("error: big 1.0.0: cannot write ")
        .stderr_has("File too large")
        .stderr_has("hint: free some disk space");
    assert_eq!((snapshot(&t.home), snapshot(&t.cache)), before);
    // With room again, the same install works.
    t.run(&["install", "big", "--registry", &index.location()])
        .success();
}

/// The last write of an install is the manifest. When it fails, the
/// packages already renamed into place are rolled back from the journal.
#[test]
fn full_disk_while_writing_the_manifest_rolls_back() {
    let t = TestContext::new();
    t.run(&[
        "install",
        "fs-list",
        "fs-read",
        "json-query",
        "http-get",
        "echo-capsule",
        "--yes",
    ])
    .success();
    let manifest_len = std::fs::metadata(t.home.join("manifest.json"))
        .unwrap()
        .len();
    let src = PackageBuilder::new("tiny", "1.0.0").write(t.dir.path());
    let before = (snapshot(&t.home), snapshot(&t.cache));

    let run = run_with_file_limit(
        &t,
        manifest_len / 512 * 512,
        &["install", "--local", src.to_str().unwrap()],
    );
    run.failure(1)
        .stderr_has("manifest.json")
        .stderr_has("File too large")
        .stderr_has("hint: free some disk space");
    assert!(!run.stderr.contains("Installed tiny"), "{}", run.stderr);
    assert_eq!((snapshot(&t.home), snapshot(&t.cache)), before);
    assert!(!t.tools_dir().join("tiny").exists());
    t.run(&["verify"]).success();
    t.run(&["install", "--local", src.to_str().unwrap()])
        .success();
    assert!(t.tools_dir().join("tiny/1.0.0").is_dir());
}

/// `orla use` writes pins.json before the manifest; when the manifest
/// cannot be written, the pin is rolled back with it, so the two agree.
#[test]
fn full_disk_while_switching_versions_restores_the_pin() {
    let t = TestContext::new();
    t.run(&[
        "install",
        "fs-read@1.0.0",
        "fs-read@1.2.1",
        "fs-list",
        "json-query",
        "http-get",
        "echo-capsule",
        "--yes",
    ])
    .success();
    let manifest_len = std::fs::metadata(t.home.join("manifest.json"))
        .unwrap()
        .len();
    let before = (snapshot(&t.home), snapshot(&t.cache));
    let run = run_with_file_limit(&t, manifest_len / 2, &["use", "fs-read@1.0.0"]);
    run.failure(1)
        .stderr_has("manifest.json")
        .stderr_has("hint: free some disk space");
    assert_eq!((snapshot(&t.home), snapshot(&t.cache)), before);
    assert!(!t.home.join("pins.json").exists());
    // With room, the switch works and is served.
    t.run(&["use", "fs-read@1.0.0"]).success();
    let served = t.manifest()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "fs-read")
        .unwrap()["version"]
        .clone();
    assert_eq!(served, "1.0.0");
}

/// Status lines and errors go to stderr; when it cannot be written (full,
/// or a pipe whose reader left) the line is lost, but orla must not panic
/// (exit 101) and its exit code must still say how the command went.
#[test]
fn unwritable_stderr_does_not_panic() {
    let t = TestContext::new();
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full");
    if full().is_err() {
        common::skip_unless_strict("no /dev/full");
        return;
    }
    let status = |args: &[&str]| {
        t.command(args)
            .stdout(std::process::Stdio::null())
            .stderr(full().unwrap())
            .status()
            .unwrap()
            .code()
    };
    assert_eq!(status(&["install", "fs-read@1.2"]), Some(0));
    assert_eq!(status(&["verify"]), Some(0));
    assert_eq!(status(&["install", "fs-raed"]), Some(1));
    t.run(&["list"]).success().stdout_has("fs-read");
}

/// An install root orla may not even read (ORLA_HOME under a directory
/// without search permission) failed every command with a hint about
/// config.yaml's format.
#[test]
fn unreadable_root_hints_at_orla_home_not_the_config_format() {
    let t = TestContext::new();
    let mode = |m: u32| std::fs::Permissions::from_mode(m);
    // The root's parent: no search permission for anyone but its owner.
    let parent = t.dir.path().join("private");
    let home = parent.join("orla-home");
    std::fs::create_dir_all(&home).unwrap();
    let mut cmd = unprivileged_command(&t, &["list"]);
    cmd.env("ORLA_HOME", &home);
    std::fs::set_permissions(&parent, mode(0o700)).unwrap();
    let out = cmd.output();
    std::fs::set_permissions(&parent, mode(0o755)).unwrap();
    let out = match out {
        Ok(out) => out,
        Err(e) => {
            common::skip_unless_strict(&format!("cannot run orla as an unprivileged user ({e})"));
            return;
        }
    };
    let run = common::to_run(out);
    if run.code == 0 {
        common::skip_unless_strict("permission bits do not stop this user");
        return;
    }
    run.failure(1)
        .stderr_has("Permission denied")
        .stderr_has("hint: you may not read the install root: set ORLA_HOME");
}

/// ORLA_HOME naming a file failed with "cannot read .../config.yaml: Not a
/// directory" and no hint.
#[test]
fn orla_home_that_is_a_file_hints_at_a_directory() {
    let t = TestContext::new();
    let file = t.dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let run = common::to_run(
        t.command(&["list"])
            .env("ORLA_HOME", &file)
            .output()
            .unwrap(),
    );
    run.failure(1)
        .stderr_has("hint: the install root is a file: set ORLA_HOME to a directory");
}
