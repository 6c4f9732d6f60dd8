//! The download cache's size management through the real binary: `orla
//! cache prune` keeps what installs share and removes the rest, the size
//! limit (`ORLA_CACHE_MAX_SIZE`) trims the least recently used packages
//! after an install, `orla cache clear` waits for a command holding the
//! cache's lock, bad sizes and ages get one-line errors, and a cached
//! package edited in place or rewritten by someone else is never
//! installed.

use std::time::{Duration, SystemTime};

use crate::common::server::{Behaviour, Server};
use crate::common::{self, IndexBuilder, PackageBuilder, TestContext};
use orla::lock::LockKind;
use orla::verify::Digest;

/// An index whose tools `names` are served over HTTP (so they are cached),
/// each with 100 KiB of data.
fn served(t: &TestContext, server: &Server, names: &[&str]) -> (IndexBuilder, Vec<Digest>) {
    let mut index = IndexBuilder::new(&t.dir.path().join("index"));
    let mut digests = Vec::new();
    for name in names {
        let data = name.repeat(100 * 1024 / name.len());
        index.publish(&PackageBuilder::new(name, "1.0.0").file("data/blob", &data, false));
        let bytes = std::fs::read(
            index
                .root
                .join(format!("archives/{name}/{name}-1.0.0.tar.gz")),
        )
        .unwrap();
        digests.push(Digest::of(&bytes));
        server.route(&format!("/{name}.tar.gz"), Behaviour::Serve(bytes));
        let url = server.url(&format!("/{name}.tar.gz"));
        index.edit_records(name, |r| r.archive = Some(url.clone()));
    }
    (index, digests)
}

fn entry(t: &TestContext, digest: &Digest) -> std::path::PathBuf {
    t.cache.join("unpacked").join(digest.to_string())
}

/// Makes an entry look last used `days` ago.
fn used_days_ago(t: &TestContext, digest: &Digest, days: u64) {
    let record = entry(t, digest).join("files.json");
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&record)
        .unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(days * 86400))
        .unwrap();
}

#[test]
fn prune_keeps_what_installs_share_and_removes_what_is_old_and_unused() {
    let t = TestContext::new();
    let server = Server::start();
    let (index, d) = served(&t, &server, &["kept", "dropped", "fresh"]);
    let registry = index.location();
    t.run(&[
        "install",
        "kept",
        "dropped",
        "fresh",
        "--registry",
        &registry,
    ])
    .success();
    t.run(&["uninstall", "dropped"]).success();
    t.run(&["uninstall", "fresh"]).success();
    used_days_ago(&t, &d[0], 90);
    used_days_ago(&t, &d[1], 90);

    t.run(&["cache", "prune"])
        .success()
        .stderr_has("Pruned 1 entry");
    assert!(entry(&t, &d[0]).is_dir(), "installed: shares its files");
    assert!(!entry(&t, &d[1]).exists(), "old and used by no install");
    assert!(
        entry(&t, &d[2]).is_dir(),
        "used by no install, but recently"
    );

    // Any age: what no install shares goes.
    t.run(&["cache", "prune", "--max-age", "0"]).success();
    assert!(entry(&t, &d[0]).is_dir());
    assert!(!entry(&t, &d[2]).exists());
    // A removed entry is downloaded again; a kept one answers a reinstall.
    let before = server.requests();
    t.run(&["install", "fresh", "--registry", &registry])
        .success();
    t.run(&["install", "kept", "--force", "--registry", &registry])
        .success();
    assert_eq!(server.requests(), before + 1);
}

#[test]
fn the_size_limit_trims_the_least_recently_used_after_an_install() {
    let t = TestContext::new();
    let server = Server::start();
    let (index, d) = served(&t, &server, &["oldest", "older", "recent", "new"]);
    let registry = index.location();
    t.run(&[
        "install",
        "oldest",
        "older",
        "recent",
        "--registry",
        &registry,
    ])
    .success();
    t.run(&["uninstall", "oldest", "older", "recent"]).success();
    used_days_ago(&t, &d[0], 3);
    used_days_ago(&t, &d[1], 2);
    used_days_ago(&t, &d[2], 1);

    // Three unshared packages of 100 KiB; room for two (config.yaml's limit).
    std::fs::write(t.home.join("config.yaml"), "cache_max_size: 250K\n").unwrap();
    t.run(&["install", "new", "--registry", &registry])
        .success();
    assert!(!entry(&t, &d[0]).exists(), "the least recently used goes");
    for kept in &d[1..] {
        assert!(entry(&t, kept).is_dir());
    }

    // A limit of nothing leaves what installs share, and the installs; the
    // environment's limit wins over config.yaml's (250K would keep both).
    let mut prune = t.command(&["cache", "prune", "--max-age", "100d"]);
    let run = common::to_run(prune.env("ORLA_CACHE_MAX_SIZE", "0").output().unwrap());
    run.success();
    assert!(!entry(&t, &d[1]).exists() && !entry(&t, &d[2]).exists());
    assert!(entry(&t, &d[3]).is_dir(), "installed: it costs nothing");
    assert_eq!(t.list(), [("new".to_string(), "1.0.0".to_string())]);
}

/// `orla cache clear` started while `lock` is held as another orla would
/// hold it, once it says it waits for `what`: the lock, and the clear
/// still waiting.
fn clear_while_held(
    t: &TestContext,
    lock: &std::path::Path,
    kind: LockKind,
    what: &str,
) -> (orla::lock::FileLock, common::Watched) {
    let held =
        orla::lock::FileLock::acquire(lock, kind, "a test", &orla::progress::Silent).unwrap();
    let clear = common::Watched::spawn(&mut t.command(&["cache", "clear"]));
    clear.wait_for(&format!("Waiting for lock on {what}"));
    (held, clear)
}

#[test]
fn cache_clear_waits_for_a_command_holding_the_cache() {
    let t = TestContext::new();
    let server = Server::start();
    let (index, d) = served(&t, &server, &["held"]);
    t.run(&["install", "held", "--registry", &index.location()])
        .success();
    // Another orla using the cache (as an install does while it links).
    let (held, clear) = clear_while_held(&t, &t.cache.join(".lock"), LockKind::Shared, "the cache");
    assert!(
        entry(&t, &d[0]).is_dir(),
        "nothing removed while it is held"
    );
    drop(held);
    clear.finish().success();
    assert!(!entry(&t, &d[0]).exists());
    assert_eq!(t.list(), [("held".to_string(), "1.0.0".to_string())]);
}

/// A fetch into a registry's clone holds the clone's lock, not the
/// cache's: `orla cache clear` waits for it before it removes the clone,
/// and keeps the lock file.
#[test]
fn cache_clear_waits_for_a_fetch_into_a_registry_clone() {
    let t = TestContext::new();
    let mut served = common::index::ServedIndex::new(&t, common::index::IndexKind::Git);
    served.publish(&PackageBuilder::new("cloned", "1.0.0"));
    t.run(&["search", "cloned", "--registry", &served.location()])
        .success();
    let registries = t.cache.join("registries");
    let clone = std::fs::read_dir(&registries)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .expect("the registry is cloned into the cache");
    let lock = clone.with_extension("lock");
    let (held, clear) = clear_while_held(
        &t,
        &lock,
        LockKind::Exclusive,
        "a git repository in the cache",
    );
    assert!(clone.is_dir(), "not removed while a fetch holds it");
    drop(held);
    clear.finish().success();
    assert!(!clone.exists());
    assert!(lock.is_file(), "whoever waits on it next still shares it");
    t.run(&["search", "cloned", "--registry", &served.location()])
        .success();
}

#[test]
fn orla_run_waits_while_the_cache_is_cleared() {
    // fs-read declares its permissions: `orla run` confines it.
    if !common::landlock() {
        return;
    }
    let t = TestContext::new();
    std::fs::write(t.work.join("notes.txt"), "from the notes\n").unwrap();
    // `orla cache clear` at work (it holds the lock exclusively).
    let held = orla::lock::FileLock::acquire(
        &t.cache.join(".lock"),
        orla::lock::LockKind::Exclusive,
        "the cache",
        &orla::progress::Silent,
    )
    .unwrap();
    let run = common::Watched::of(common::spawn_with_stdin(
        &mut t.command(&["run", "fs-read@1.2"]),
        br#"{"path": "notes.txt"}"#,
    ));
    run.wait_for("Waiting for lock on the cache");
    assert!(
        !t.cache.join("run").exists(),
        "nothing fetched into the cache while it is held"
    );
    drop(held);
    run.finish().success().stdout_has("from the notes");
}

#[test]
fn bad_sizes_and_ages_get_one_line_errors() {
    let t = TestContext::new();
    let mut cmd = t.command(&["cache", "prune"]);
    let run = common::to_run(cmd.env("ORLA_CACHE_MAX_SIZE", "lots").output().unwrap());
    run.failure(2)
        .stderr_has("error: ORLA_CACHE_MAX_SIZE: 'lots' is not a size such as 500M, 2G or 1.5GiB")
        .stderr_has("hint: write bytes or a size with a unit, e.g. ORLA_CACHE_MAX_SIZE=2G");
    std::fs::create_dir_all(&t.home).unwrap();
    std::fs::write(t.home.join("config.yaml"), "cache_max_size: lots\n").unwrap();
    t.run(&["cache", "prune"])
        .failure(1)
        .stderr_has("config.yaml is not valid: cache_max_size: 'lots' is not a size such as 500M")
        .stderr_has("hint: write bytes or a size with a unit, e.g. `cache_max_size: 2G`");
    std::fs::remove_file(t.home.join("config.yaml")).unwrap();
    t.run(&["cache", "prune", "--max-size", "2 parsecs"])
        .failure(2)
        .stderr_has("error: --max-size: '2 parsecs' is not a size");
    t.run(&["cache", "prune", "--max-age", "soon"])
        .failure(2)
        .stderr_has("error: --max-age: 'soon' is not a duration")
        .stderr_has("hint:");
}

#[test]
fn prune_removes_clones_of_registries_not_configured_here() {
    let t = TestContext::new();
    let mut urls = Vec::new();
    for name in ["configured", "once"] {
        let dir = t.dir.path().join(name);
        let mut index = IndexBuilder::new(&dir);
        index.publish(&PackageBuilder::new(&format!("{name}-tool"), "1.0.0"));
        let repo = git2::Repository::init(&dir).unwrap();
        repo.set_head("refs/heads/main").unwrap();
        common::git::commit_all(&repo, "publish", Some("refs/heads/main"), &[]);
        let url = format!("file://{}", dir.display());
        t.run(&["search", "tool", "--registry", &url]).success();
        urls.push(url);
    }
    let clone = |url: &str| t.cache.join("registries").join(orla::git::cache_name(url));
    assert!(clone(&urls[0]).is_dir() && clone(&urls[1]).is_dir());

    let mut prune = t.command(&["cache", "prune", "--max-age", "0"]);
    let run = common::to_run(prune.env("ORLA_REGISTRY", &urls[0]).output().unwrap());
    run.success();
    assert!(
        clone(&urls[0]).is_dir(),
        "the configured registry's clone stays"
    );
    assert!(!clone(&urls[1]).exists(), "a registry used once goes");
    // Not fetched for a day is not old by the default rule.
    t.run(&["search", "tool", "--registry", &urls[1]]).success();
    t.run(&["cache", "prune"]).success();
    assert!(clone(&urls[1]).is_dir());
}

/// An installed file edited in place (with a hard link, the cache's own
/// file) is caught when the next install links the package out of the
/// cache: the entry is thrown away and the package downloaded again.
#[test]
fn an_installed_file_edited_in_place_is_caught_by_the_next_install() {
    let t = TestContext::new();
    let server = Server::start();
    let (index, _) = served(&t, &server, &["kept"]);
    let install = || {
        t.run(&[
            "install",
            "kept",
            "--force",
            "--registry",
            &index.location(),
        ])
    };
    install().success();
    install().success();
    assert_eq!(server.requests(), 1, "the cache served the reinstall");
    let blob = t.tools_dir().join("kept/1.0.0/data/blob");
    let len = std::fs::metadata(&blob).unwrap().len() as usize;
    std::io::Write::write_all(
        &mut std::fs::File::options().write(true).open(&blob).unwrap(),
        &vec![b'x'; len],
    )
    .unwrap();
    install()
        .success()
        .stderr_has("the cached copy of kept 1.0.0 is damaged");
    assert_eq!(server.requests(), 2, "downloaded again");
    t.run(&["verify"]).success();
    assert_ne!(std::fs::read(&blob).unwrap(), vec![b'x'; len]);
}

/// Two roots share one cache; between their installs someone who can
/// write the cache (not read the user's receipt key) replaces a cached
/// package's code and rewrites its record to match. The second root gets
/// the registry's bytes, downloaded again: `orla verify` passes on them,
/// and `orla run` of a poisoned run copy runs the genuine tool too.
#[cfg(unix)]
#[test]
fn a_shared_cache_rewritten_between_two_roots_cannot_vouch_for_other_bytes() {
    let t = TestContext::new();
    let server = Server::start();
    let (index, d) = served(&t, &server, &["shared"]);
    let registry = index.location();
    t.run(&["install", "shared", "--registry", &registry])
        .success();
    assert_eq!(server.requests(), 1);

    // The poisoning: new code, and a record that describes it (its seal
    // line kept: whoever forged it cannot make a new one).
    let entry = entry(&t, &d[0]);
    let evil = "poisoned".repeat(1000);
    let blob = std::fs::read_dir(entry.join("tree"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("data/blob"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| entry.join("tree/data/blob"));
    std::fs::remove_file(&blob).unwrap();
    std::fs::write(&blob, &evil).unwrap();
    let record = std::fs::read_to_string(entry.join("files.json")).unwrap();
    let (seal, body) = record.split_once('\n').unwrap();
    let mut body: serde_json::Value = serde_json::from_str(body).unwrap();
    body["files"]["data/blob"]["blake3"] = Digest::of(evil.as_bytes()).to_string().into();
    body["files"]["data/blob"]["size"] = evil.len().into();
    std::fs::write(entry.join("files.json"), format!("{seal}\n{body}")).unwrap();

    // The second root: a project of the same user, the same cache.
    let project = t.work.join("project");
    std::fs::create_dir_all(&project).unwrap();
    t.run_in(&project, &["init"]).success();
    t.run_in(&project, &["install", "shared", "--registry", &registry])
        .success()
        .stderr_has("the cached copy of shared 1.0.0 is damaged");
    assert_eq!(server.requests(), 2, "downloaded again");
    let installed = project.join(".orla/tools/shared/1.0.0/data/blob");
    let installed = if installed.exists() {
        installed
    } else {
        std::fs::read_dir(&project)
            .unwrap()
            .flatten()
            .map(|e| e.path().join("shared/1.0.0/data/blob"))
            .find(|p| p.exists())
            .expect("installed in the project's tools_dir")
    };
    assert_ne!(std::fs::read_to_string(&installed).unwrap(), evil);
    t.run_in(&project, &["verify"]).success();
}

/// A run copy in the cache whose code and receipt were rewritten by
/// someone without the user's key is not run: it is fetched again.
#[cfg(unix)]
#[test]
fn a_run_copy_rewritten_in_the_cache_is_fetched_again() {
    // fs-read declares its permissions: `orla run` confines it.
    if !common::landlock() {
        return;
    }
    let t = TestContext::new();
    std::fs::write(t.work.join("notes.txt"), "from the notes\n").unwrap();
    let run = || {
        common::to_run(
            common::spawn_with_stdin(
                &mut t.command(&["run", "fs-read@1.2"]),
                br#"{"path": "notes.txt"}"#,
            )
            .wait_with_output()
            .unwrap(),
        )
    };
    run().success().stdout_has("from the notes");
    let copy = std::fs::read_dir(t.cache.join("run"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.is_dir())
        .unwrap();
    let package = orla::package::Package::load(&copy).unwrap();
    let entrypoint = package.tool.entrypoint.clone().unwrap();
    let evil = "#!/bin/sh\necho poisoned\n";
    std::fs::write(copy.join(&entrypoint), evil).unwrap();
    // Its receipt rewritten to match (without the key: the binding stays).
    let receipt_path = copy.join(".orla-receipt.json");
    let mut receipt: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&receipt_path).unwrap()).unwrap();
    receipt["files"][&entrypoint]["blake3"] = Digest::of(evil.as_bytes()).to_string().into();
    receipt["files"][&entrypoint]["size"] = evil.len().into();
    std::fs::write(&receipt_path, receipt.to_string()).unwrap();
    let again = run();
    again.success().stdout_has("from the notes");
    assert!(!again.stdout.contains("poisoned"), "{}", again.stdout);
}
