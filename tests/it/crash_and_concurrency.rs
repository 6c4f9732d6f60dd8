//! Crash safety and concurrency (ARCHITECTURE.md, invariants 3, 4 and 5).
//!
//! orla is SIGKILLed at many points of install, reinstall and uninstall:
//! after each kill the store must hold exactly the state before the command
//! or the state after it, every package in it must match its receipt, and
//! the next command must clean the staging area and bring the manifest in
//! line with the store. Then several orla processes work on one root and
//! one cache at once and must end consistent, one of them saying it waited.

use crate::common;

use std::collections::BTreeSet;
use std::process::{Child, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::server::{Behaviour, Server};
use common::{IndexBuilder, PackageBuilder, TestContext};

type State = BTreeSet<(String, String)>;

/// The `(name, version)` directories in the store, staging aside.
fn store_state(t: &TestContext) -> State {
    let mut out = State::new();
    let Ok(names) = std::fs::read_dir(t.tools_dir()) else {
        return out;
    };
    for name in names.flatten() {
        let name_str = name.file_name().to_string_lossy().into_owned();
        if name_str.starts_with('.') {
            continue;
        }
        for version in std::fs::read_dir(name.path()).unwrap().flatten() {
            out.insert((
                name_str.clone(),
                version.file_name().to_string_lossy().into_owned(),
            ));
        }
    }
    out
}

/// What the runtime sees: the installed set in manifest.json, read directly
/// (no orla command, so no recovery).
fn manifest_state(t: &TestContext) -> State {
    let text = std::fs::read_to_string(t.home.join("manifest.json")).unwrap();
    let manifest: serde_json::Value = serde_json::from_str(&text).unwrap();
    common::name_versions(&manifest["installed"])
}

fn state(items: &[(&str, &str)]) -> State {
    items
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

/// After a command killed at some moment: the manifest says the state
/// before it or after it, and so does the store, unless a journal says a
/// multi-step command is to be settled by the next run (true then); the
/// next command settles the store on what the manifest said.
#[track_caller]
fn settled_before_or_after(t: &TestContext, context: &str, before: &State, after: &State) -> bool {
    let seen = manifest_state(t);
    assert!(
        seen == *before || seen == *after,
        "{context}\nthe manifest says {seen:?}"
    );
    let raw = store_state(t);
    let journal = t.tools_dir().join(".orla-staging/journal").exists();
    assert!(
        raw == *before || raw == *after || journal,
        "{context}\nthe store holds {raw:?} and no journal"
    );
    assert_consistent(t, context);
    assert_eq!(store_state(t), seen, "{context}");
    raw != *before && raw != *after
}

/// The next command repairs everything: staging cleaned, no pending
/// marker or temporary files, manifest == store, every package intact.
#[track_caller]
fn assert_consistent(t: &TestContext, context: &str) {
    let listed: State = t.list().into_iter().collect();
    assert_eq!(listed, store_state(t), "{context}: manifest != store");
    let manifest = t.manifest();
    let tools: BTreeSet<String> = manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect();
    let names: BTreeSet<String> = listed.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(tools, names, "{context}: manifest tools");
    assert!(
        !t.tools_dir().join(".orla-staging").exists(),
        "{context}: staging left behind"
    );
    assert!(
        !t.home.join(".manifest-pending").exists(),
        "{context}: pending marker left behind"
    );
    let leftovers: Vec<String> = std::fs::read_dir(&t.home)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{context}: {leftovers:?}");
    let verify = t.run(&["verify"]);
    assert_eq!(
        verify.code, 0,
        "{context}: a package is damaged\n{}{}",
        verify.stdout, verify.stderr
    );
}

/// A small deterministic generator, so a failure can be replayed.
/// Kill delays that adapt so that about half the commands are killed,
/// spread over their whole run, whatever the machine's speed and however
/// long each kind of command takes: shorter after a command finished first,
/// longer after a kill. Starts from the time of one install, in us.
struct KillDelay(u64);

impl KillDelay {
    /// Waits a random delay, then kills `child` (SIGKILL) if it still runs.
    /// The delay, and the exit status if the command finished first.
    fn kill(&mut self, child: &mut Child, rng: &mut Rng) -> (u64, Option<ExitStatus>) {
        let delay = rng.below(2 * self.0 + 1);
        std::thread::sleep(Duration::from_micros(delay));
        match child.try_wait().unwrap() {
            Some(status) => {
                self.0 = self.0 * 9 / 10;
                (delay, Some(status))
            }
            None => {
                child.kill().unwrap();
                child.wait().unwrap();
                self.0 = self.0 * 11 / 10;
                (delay, None)
            }
        }
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Reads a manifest in a tight loop on its own thread, as a runtime may,
/// and records every read that names a package directory that is missing
/// or incomplete (no receipt, no entrypoint).
struct ManifestReader {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    handle: std::thread::JoinHandle<(u64, Vec<String>)>,
}

impl ManifestReader {
    fn start(path: std::path::PathBuf) -> ManifestReader {
        use std::sync::atomic::Ordering;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let (mut reads, mut bad) = (0u64, Vec::new());
            while !flag.load(Ordering::Relaxed) {
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                // Written by rename, so a read is always a whole document.
                let manifest: serde_json::Value =
                    serde_json::from_str(&text).expect("a manifest is always whole");
                reads += 1;
                for tool in manifest["tools"].as_array().into_iter().flatten() {
                    let dir = std::path::Path::new(tool["path"].as_str().unwrap_or_default());
                    let entry =
                        std::path::Path::new(tool["entrypoint"].as_str().unwrap_or_default());
                    let complete = dir.join(".orla-receipt.json").is_file() && entry.is_file();
                    // A manifest replaced since it was read may name what is
                    // gone by now, as for any reader: only one still in place
                    // must name complete directories.
                    let current = std::fs::read_to_string(&path).is_ok_and(|now| now == text);
                    if !complete && current {
                        bad.push(format!(
                            "{} {} at {}",
                            tool["name"],
                            tool["version"],
                            dir.display()
                        ));
                    }
                }
            }
            (reads, bad)
        });
        ManifestReader { stop, handle }
    }

    fn stop(self) -> (u64, Vec<String>) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.handle.join().unwrap()
    }
}

/// The iteration count and seed of a SIGKILL loop: `SIGKILL_ITERATIONS`
/// and `SIGKILL_SEED` (decimal or 0x hex) from the environment, else the
/// default count and a seed from `salt` and the process id. The seed is
/// printed, so a failure can be replayed with the same choices of command
/// and kill delay (the delays still scale with this machine's speed).
fn kill_loop(default_iterations: u64, salt: u64) -> (u64, u64) {
    let iterations = std::env::var("SIGKILL_ITERATIONS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default_iterations);
    let seed = std::env::var("SIGKILL_SEED")
        .ok()
        .and_then(|v| {
            let v = v.trim();
            match v.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16).ok(),
                None => v.parse().ok(),
            }
        })
        .unwrap_or(salt ^ u64::from(std::process::id()));
    eprintln!("replay with SIGKILL_SEED={seed:#x} SIGKILL_ITERATIONS={iterations}");
    (iterations, seed)
}

/// A package with enough files that installing it takes a while (every
/// file is flushed before the rename), so kills land in every phase.
fn bulky(name: &str, version: &str) -> PackageBuilder {
    let mut pkg = PackageBuilder::new(name, version);
    for i in 0..60 {
        pkg = pkg.file(
            &format!("data/f{i}.txt"),
            &format!("{name} {version} {i}\n").repeat(50),
            false,
        );
    }
    pkg
}

#[test]
fn sigkill_at_random_points_leaves_before_or_after() {
    let t = TestContext::new();
    let mut index = IndexBuilder::new(&t.dir.path().join("index"));
    for (name, version) in [
        ("alpha", "1.0.0"),
        ("alpha", "2.0.0"),
        ("beta", "1.0.0"),
        ("gamma", "1.0.0"),
    ] {
        index.publish(&bulky(name, version));
    }
    // Tools that stay: a manifest of more than 32 KiB, whose entries are
    // kept in place and which is written in part (docs/manifest.md,
    // "Layout"), here while commands are killed.
    let mut fillers = vec!["install".to_string()];
    for i in 0..40 {
        let name = format!("filler-{i:02}");
        index.publish(
            &PackageBuilder::new(&name, "1.0.0")
                .yaml(&format!("keywords: [{}]\n", "padding ".repeat(20).trim())),
        );
        fillers.push(name);
    }
    let registry = index.location();
    fillers.extend(["--registry".to_string(), registry.clone()]);
    t.run(&fillers.iter().map(String::as_str).collect::<Vec<_>>())
        .success();
    assert!(
        std::fs::metadata(t.home.join("manifest.json"))
            .unwrap()
            .len()
            > 32 * 1024
    );
    t.run(&["install", "alpha@1.0.0", "--registry", &registry])
        .success();

    // How long one command takes here, to spread the kills over it.
    let start = Instant::now();
    t.run(&["install", "beta", "--registry", &registry])
        .success();
    let typical = start.elapsed().as_micros() as u64;
    t.run(&["uninstall", "beta"]).success();

    // A runtime reads the manifest at any moment: beside the loop, a
    // reader checks that every manifest it reads names only complete
    // package directories (receipt and entrypoint in place).
    let reader = ManifestReader::start(t.home.join("manifest.json"));
    let (iterations, seed) = kill_loop(80, 0x5eed_0f0a);
    eprintln!("seed {seed:#x}, one install takes {typical} us");
    let mut rng = Rng(seed);
    let mut delays = KillDelay(typical);
    let (mut killed, mut finished, mut saw_staging, mut settled_by_journal) = (0, 0, 0, 0);
    for i in 0..iterations {
        let before = store_state(&t);
        let op = rng.below(7);
        let (args, after): (Vec<String>, State) = match op {
            0 => {
                let name = ["beta", "gamma"][rng.below(2) as usize];
                let mut after = before.clone();
                after.insert((name.into(), "1.0.0".into()));
                (vec!["install".into(), name.into()], after)
            }
            1 => {
                // A reinstall replaces a package in place: two renames.
                let mut after = before.clone();
                after.insert(("alpha".into(), "1.0.0".into()));
                (
                    vec!["install".into(), "alpha@1.0.0".into(), "--force".into()],
                    after,
                )
            }
            2 => {
                let mut after = before.clone();
                after.insert(("alpha".into(), "2.0.0".into()));
                after.insert(("beta".into(), "1.0.0".into()));
                (
                    vec![
                        "install".into(),
                        "alpha@2.0.0".into(),
                        "beta".into(),
                        "--force".into(),
                    ],
                    after,
                )
            }
            3 => {
                // An update installs the new version, then removes the old.
                let newest = before
                    .iter()
                    .filter(|(n, _)| n == "alpha")
                    .map(|(_, v)| v.clone())
                    .max_by_key(|v| v.parse::<semver::Version>().unwrap());
                let mut after = before.clone();
                match newest.as_deref() {
                    None => {
                        after.insert(("alpha".into(), "1.0.0".into()));
                        (vec!["install".into(), "alpha@1.0.0".into()], after)
                    }
                    Some(newest) => {
                        if newest == "1.0.0" {
                            after.remove(&("alpha".to_string(), "1.0.0".to_string()));
                            after.insert(("alpha".into(), "2.0.0".into()));
                        }
                        (vec!["update".into(), "alpha".into()], after)
                    }
                }
            }
            4 if before.iter().any(|(n, _)| n == "beta")
                && before.iter().any(|(n, _)| n == "gamma") =>
            {
                let after: State = before
                    .iter()
                    .filter(|(n, _)| n != "beta" && n != "gamma")
                    .cloned()
                    .collect();
                (
                    vec!["uninstall".into(), "beta".into(), "gamma".into()],
                    after,
                )
            }
            _ => {
                let names: Vec<String> = before
                    .iter()
                    .map(|(n, _)| n.clone())
                    .filter(|n| !n.starts_with("filler-"))
                    .collect();
                if names.is_empty() {
                    let mut after = before.clone();
                    after.insert(("gamma".into(), "1.0.0".into()));
                    (vec!["install".into(), "gamma".into()], after)
                } else {
                    let name = names[rng.below(names.len() as u64) as usize].clone();
                    let after: State = before.iter().filter(|(n, _)| *n != name).cloned().collect();
                    (vec!["uninstall".into(), name], after)
                }
            }
        };
        let mut full: Vec<&str> = args.iter().map(String::as_str).collect();
        if full[0] == "install" {
            full.extend(["--registry", registry.as_str()]);
        }
        let mut child = t
            .command(&full)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let (delay, status) = delays.kill(&mut child, &mut rng);
        match status {
            Some(status) => {
                assert!(status.success(), "iteration {i}: {full:?} failed");
                finished += 1;
            }
            None => killed += 1,
        }
        if t.tools_dir().join(".orla-staging").exists() {
            saw_staging += 1;
        }
        // The manifest, the runtime's only view, is written atomically: it
        // is the state before or after, whatever the moment of the kill.
        let context = format!(
            "iteration {i} (seed {seed:#x}): {full:?} killed after {delay} us\nbefore {before:?}\nafter {after:?}"
        );
        if settled_before_or_after(&t, &context, &before, &after) {
            settled_by_journal += 1;
        }
    }
    eprintln!(
        "{iterations} iterations: {killed} killed mid-command ({saw_staging} with staging left behind, {settled_by_journal} mid-way through a multi-step command), {finished} finished"
    );
    let (reads, bad) = reader.stop();
    eprintln!("the manifest was read {reads} times beside the loop");
    assert!(reads > 0);
    assert_eq!(
        bad,
        Vec::<String>::new(),
        "manifests naming a missing or partial package"
    );
    // A short replay need not kill often; a full run must, to mean anything.
    assert!(
        iterations < 20 || killed >= iterations / 5,
        "too few kills to mean anything"
    );
}

/// A kill at the exact moment between the two renames of a reinstall
/// (the old copy moved aside, the new one not yet in place) used to lose
/// the package; the next run must put the old copy back from the journal.
/// A `--force` reinstall by exchange killed after the swap: the new copy is
/// in place with its `.orla-new` marker and the old one waits in staging.
/// The manifest already names the package (the same version), so the
/// command is finished forward, and the marker must not stay behind as a
/// file orla verify would report as added.
#[test]
fn reinstall_by_exchange_killed_after_the_swap_leaves_no_marker() {
    let t = TestContext::new();
    let mut index = IndexBuilder::new(&t.dir.path().join("index"));
    index.publish(&PackageBuilder::new("alpha", "1.0.0"));
    t.run(&["install", "alpha", "--registry", &index.location()])
        .success();
    let pkg = t.tools_dir().join("alpha/1.0.0");
    let before = common::snapshot(&t.tools_dir());
    let staging = t.tools_dir().join(".orla-staging");
    std::fs::create_dir_all(staging.join("stage-swap/old")).unwrap();
    for entry in std::fs::read_dir(&pkg).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(
                entry.path(),
                staging.join("stage-swap/old").join(entry.file_name()),
            )
            .unwrap();
        }
    }
    std::fs::write(pkg.join(".orla-new"), "").unwrap();
    std::fs::write(staging.join("journal"), "commit alpha/1.0.0 stage-swap\n").unwrap();
    std::fs::write(t.home.join(".manifest-pending"), "").unwrap();

    let run = t.run(&["list"]);
    run.success();
    assert!(!run.stderr.contains("undid"), "{}", run.stderr);
    assert!(!pkg.join(".orla-new").exists());
    assert_eq!(common::snapshot(&t.tools_dir()), before);
    t.run(&["verify"]).success();
}

#[test]
fn reinstall_killed_between_renames_is_rolled_back() {
    let t = TestContext::new();
    let mut index = IndexBuilder::new(&t.dir.path().join("index"));
    index.publish(&PackageBuilder::new("alpha", "1.0.0"));
    index.publish(&PackageBuilder::new("beta", "1.0.0"));
    t.run(&["install", "alpha", "--registry", &index.location()])
        .success();
    let pkg = t.tools_dir().join("alpha/1.0.0");
    let before = common::snapshot(&t.tools_dir());

    // What a killed `install alpha beta --force` leaves once beta is in
    // place and alpha's old copy is moved aside: the journal, the pending
    // marker, and no alpha in the store.
    let staging = t.tools_dir().join(".orla-staging");
    std::fs::create_dir_all(staging.join("stage-aside")).unwrap();
    std::fs::rename(&pkg, staging.join("stage-aside/old")).unwrap();
    let src = t.tools_dir().join("beta/1.0.0");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("tool.yaml"), "half").unwrap();
    std::fs::write(
        staging.join("journal"),
        "commit beta/1.0.0\ncommit alpha/1.0.0 stage-aside\n",
    )
    .unwrap();
    std::fs::write(t.home.join(".manifest-pending"), "").unwrap();

    t.run(&["list"])
        .success()
        .stderr_has("undid the unfinished install of alpha 1.0.0")
        .stderr_has("undid the unfinished install of beta 1.0.0");
    assert_eq!(common::snapshot(&t.tools_dir()), before);
    assert_consistent(&t, "after the roll back");

    // Killed after writing the new manifest but before dropping the
    // journal: the manifest is the commit point, so the command is
    // finished forward, not undone behind the runtime's back.
    t.run(&["install", "beta", "--registry", &index.location()])
        .success();
    let done = common::snapshot(&t.tools_dir());
    std::fs::create_dir_all(staging.join("stage-done")).unwrap();
    std::fs::write(staging.join("journal"), "commit beta/1.0.0\n").unwrap();
    std::fs::write(t.home.join(".manifest-pending"), "").unwrap();
    let run = t.run(&["list"]);
    run.success();
    assert!(!run.stderr.contains("undid"), "{}", run.stderr);
    assert_eq!(common::snapshot(&t.tools_dir()), done);
    assert_consistent(&t, "after finishing forward");
    t.run(&["uninstall", "beta"]).success();

    // A damaged journal cannot point recovery anywhere else.
    std::fs::create_dir_all(staging.join("stage-x/old")).unwrap();
    std::fs::write(
        staging.join("journal"),
        "commit ../../escaped/1.0.0 stage-x\nremove alpha/1.0.0 ../../..\nremove alpha/1.0.0\ngarbage\ncommit alp",
    )
    .unwrap();
    std::fs::write(t.home.join(".manifest-pending"), "").unwrap();
    t.run(&["list"]).success();
    assert!(!t.dir.path().join("escaped").exists());
    assert_eq!(common::snapshot(&t.tools_dir()), before);
    assert_consistent(&t, "after a damaged journal");
}

#[test]
fn killed_while_downloading_over_http_leaves_nothing() {
    let t = TestContext::new();
    let server = Server::start();
    let mut index = IndexBuilder::new(&t.dir.path().join("index"));
    index.publish(&bulky("slow", "1.0.0"));
    let bytes = std::fs::read(index.root.join("archives/slow/slow-1.0.0.tar.gz")).unwrap();
    // Stall at several points of the body; kill each time.
    for (i, cut) in [1usize, 100, bytes.len() / 2, bytes.len() - 1]
        .into_iter()
        .enumerate()
    {
        let path = format!("/slow-{i}.tar.gz");
        server.route(&path, Behaviour::Stall(bytes.clone(), cut));
        let url = server.url(&path);
        index.edit_records("slow", |r| r.archive = Some(url.clone()));
        let before = (common::snapshot(&t.home), common::snapshot(&t.cache));
        let mut child = t
            .command(&["install", "slow", "--registry", &index.location()])
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while server.requests() <= i {
            assert!(start.elapsed() < Duration::from_secs(30));
            std::thread::sleep(Duration::from_millis(10));
        }
        std::thread::sleep(Duration::from_millis(100));
        child.kill().unwrap();
        child.wait().unwrap();
        // The download was made before the root was locked: the root is
        // exactly as it was.
        assert_eq!(common::snapshot(&t.home), before.0, "cut at {cut}");
        // Nothing reached the cache's archives; the half download is only
        // a temporary file (the next download of the cache replaces it).
        let cache_now = common::snapshot(&t.cache);
        let archives = |s: &std::collections::BTreeMap<String, String>| {
            s.keys()
                .filter(|k| k.starts_with("archives/"))
                .cloned()
                .collect::<Vec<_>>()
        };
        assert_eq!(archives(&cache_now), archives(&before.1));
    }
    // The cache and the root share a filesystem, so a download is not
    // copied into the cache as it streams (the verified files are linked
    // there afterwards): a killed download leaves only its landing
    // directory. Any left once stale (an hour unwritten) goes with the
    // next download.
    let tmp = t.cache.join("tmp");
    let leftovers: Vec<_> = std::fs::read_dir(&tmp)
        .map(|d| d.flatten().collect())
        .unwrap_or_default();
    for f in &leftovers {
        let status = std::process::Command::new("touch")
            .args(["-m", "-d", "2 hours ago"])
            .arg(f.path())
            .status()
            .unwrap();
        assert!(status.success());
    }
    server.route("/slow-done.tar.gz", Behaviour::Serve(bytes.clone()));
    let url = server.url("/slow-done.tar.gz");
    index.edit_records("slow", |r| r.archive = Some(url.clone()));
    t.run(&["install", "slow", "--registry", &index.location()])
        .success();
    assert!(!tmp.exists(), "stale downloads left in {}", tmp.display());
}

#[test]
fn concurrent_processes_on_one_root_and_cache_end_consistent() {
    let t = TestContext::new();
    let server = Server::start();
    let mut index = IndexBuilder::new(&t.dir.path().join("index"));
    let names = ["p1", "p2", "p3", "p4", "p5", "p6", "p7"];
    for name in names {
        index.publish(&bulky(name, "1.0.0"));
        index.publish(&PackageBuilder::new(name, "2.0.0"));
        let bytes = std::fs::read(
            index
                .root
                .join(format!("archives/{name}/{name}-2.0.0.tar.gz")),
        )
        .unwrap();
        server.route(&format!("/{name}-2.tar.gz"), Behaviour::Serve(bytes));
    }
    // Version 2 of each comes over HTTP, so the processes share the cache.
    for name in names {
        let url = server.url(&format!("/{name}-2.tar.gz"));
        let path = index.root.join(orla::index::shard_path(name));
        let text = std::fs::read_to_string(&path).unwrap();
        let mut out = String::new();
        for line in text.lines() {
            let mut r: orla::index::VersionRecord = serde_json::from_str(line).unwrap();
            if r.version.major == 2 {
                r.archive = Some(url.clone());
            }
            out.push_str(&r.to_line());
            out.push('\n');
        }
        std::fs::write(&path, out).unwrap();
    }
    // One stalled download runs while the others start (it holds no lock:
    // downloads are made before the root is locked).
    index.publish(&bulky("holder", "1.0.0"));
    let holder = std::fs::read(index.root.join("archives/holder/holder-1.0.0.tar.gz")).unwrap();
    let half = holder.len() / 2;
    server.route("/holder.tar.gz", Behaviour::Stall(holder, half));
    let holder_url = server.url("/holder.tar.gz");
    index.edit_records("holder", |r| r.archive = Some(holder_url.clone()));
    let registry = index.location();
    for name in ["p5", "p6", "p7"] {
        t.run(&["install", &format!("{name}@1.0.0"), "--registry", &registry])
            .success();
    }

    let first = t
        .command(&["install", "holder", "--registry", &registry])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while server.requests() == 0 {
        assert!(start.elapsed() < Duration::from_secs(30));
        std::thread::sleep(Duration::from_millis(10));
    }
    let jobs: Vec<Vec<String>> = vec![
        vec!["install".into(), "p1".into()],
        vec!["install".into(), "p1".into()], // the same version twice at once
        vec!["install".into(), "p2@1.0.0".into(), "p3".into()],
        vec!["install".into(), "p3".into(), "p4@1.0.0".into()],
        vec!["install".into(), "p4".into()],
        vec!["uninstall".into(), "p5".into()],
        vec!["uninstall".into(), "p6@1.0.0".into()],
        vec!["install".into(), "p2".into()],
        vec!["update".into(), "p7".into()],
    ];
    let children: Vec<_> = jobs
        .iter()
        .map(|job| {
            let mut args: Vec<&str> = job.iter().map(String::as_str).collect();
            if args[0] == "install" {
                args.extend(["--registry", registry.as_str()]);
            }
            t.command(&args)
                .stderr(Stdio::piped())
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    std::thread::sleep(Duration::from_millis(700));
    server.release();
    let mut waited = 0usize;
    let first = common::to_run(first.wait_with_output().unwrap());
    first.success();
    for (job, child) in jobs.iter().zip(children) {
        let run = common::to_run(child.wait_with_output().unwrap());
        assert_eq!(run.code, 0, "{job:?}\n{}", run.stderr);
        if run.stderr.contains("Waiting for lock on the install root") {
            waited += 1;
        }
    }
    eprintln!("{waited} of {} processes waited for the lock", jobs.len());
    assert_eq!(
        store_state(&t),
        state(&[
            ("holder", "1.0.0"),
            ("p1", "2.0.0"),
            ("p2", "1.0.0"),
            ("p2", "2.0.0"),
            ("p3", "2.0.0"),
            ("p4", "1.0.0"),
            ("p4", "2.0.0"),
            ("p7", "2.0.0"),
        ])
    );
    assert_consistent(&t, "after the concurrent run");
    // The shared cache holds exactly the verified HTTP downloads (unpacked,
    // linked from the installs, by the digest of their archive).
    let cached: Vec<String> = common::snapshot(&t.cache)
        .into_keys()
        .filter(|k| k.starts_with("unpacked/") && k.ends_with("/files.json"))
        .collect();
    assert_eq!(cached.len(), 6, "{cached:?}"); // holder, p1..p4 and p7 version 2
}

/// In a project, concurrent installs and an uninstall also keep orla.yaml
/// and orla.lock in step with the store: each process re-reads them under
/// the root's lock, so nobody's requirement or pin is lost.
#[test]
fn concurrent_project_installs_keep_orla_yaml_and_lock_consistent() {
    let t = TestContext::new();
    t.run(&["init", "proj"]).success();
    let dir = t.work.join("proj");
    t.run_in(&dir, &["install", "fs-list"]).success();
    let tools = ["fs-read", "json-query", "http-get", "echo-capsule"];
    let mut children: Vec<_> = tools
        .iter()
        .map(|name| {
            t.command(&["install", name, "--yes"])
                .current_dir(&dir)
                .stderr(Stdio::piped())
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    children.push(
        t.command(&["uninstall", "fs-list"])
            .current_dir(&dir)
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    for child in children {
        let run = common::to_run(child.wait_with_output().unwrap());
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let yaml = std::fs::read_to_string(dir.join("orla.yaml")).unwrap();
    let lock: toml::Value =
        toml::from_str(&std::fs::read_to_string(dir.join("orla.lock")).unwrap()).unwrap();
    let pinned: BTreeSet<(String, String)> = lock["tool"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["version"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut store = BTreeSet::new();
    for name in std::fs::read_dir(dir.join("tools")).unwrap().flatten() {
        let n = name.file_name().to_string_lossy().into_owned();
        if n.starts_with('.') {
            continue;
        }
        for v in std::fs::read_dir(name.path()).unwrap().flatten() {
            store.insert((n.clone(), v.file_name().to_string_lossy().into_owned()));
        }
    }
    assert_eq!(pinned, store, "orla.lock != store\n{yaml}");
    let names: BTreeSet<&str> = store.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, tools.iter().copied().collect());
    for name in tools {
        assert!(
            yaml.contains(&format!("\n  {name}: ")),
            "{name} not in\n{yaml}"
        );
    }
    assert!(!yaml.contains("fs-list"), "{yaml}");
    // The lock reproduces the store exactly.
    let before = common::snapshot(&dir.join("tools"));
    t.run_in(&dir, &["install", "--locked"]).success();
    assert_eq!(common::snapshot(&dir.join("tools")), before);
    t.run_in(&dir, &["verify"]).success();
}

/// The project's files after the next command: (orla.yaml names, orla.lock
/// pins, store).
fn project_state(t: &TestContext, dir: &std::path::Path) -> (BTreeSet<String>, State, State) {
    t.run_in(dir, &["list"]).success();
    let yaml = std::fs::read_to_string(dir.join("orla.yaml")).unwrap();
    let config: serde_yaml::Value = serde_yaml::from_str(&yaml).unwrap();
    let names: BTreeSet<String> = config["tools"]
        .as_mapping()
        .map(|m| m.keys().map(|k| k.as_str().unwrap().to_string()).collect())
        .unwrap_or_default();
    let pins: State = std::fs::read_to_string(dir.join("orla.lock"))
        .ok()
        .map(|text| {
            let lock: toml::Value = toml::from_str(&text).unwrap();
            lock.get("tool")
                .and_then(|t| t.as_array())
                .map(|a| {
                    a.iter()
                        .map(|p| {
                            (
                                p["name"].as_str().unwrap().to_string(),
                                p["version"].as_str().unwrap().to_string(),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default()
        })
        .unwrap_or_default();
    let mut store = State::new();
    if let Ok(names) = std::fs::read_dir(dir.join("tools")) {
        for name in names.flatten() {
            let n = name.file_name().to_string_lossy().into_owned();
            if n.starts_with('.') {
                continue;
            }
            for v in std::fs::read_dir(name.path()).unwrap().flatten() {
                store.insert((n.clone(), v.file_name().to_string_lossy().into_owned()));
            }
        }
    }
    (names, pins, store)
}

/// In a project a command also rewrites orla.yaml and orla.lock before its
/// manifest. Killed at any point, the next command leaves the three in
/// step: either all before or all after (the journal keeps copies of the
/// project files and restores them with the packages).
#[test]
fn sigkill_in_a_project_keeps_orla_yaml_lock_and_store_in_step() {
    let t = TestContext::new();
    t.run(&["init", "proj"]).success();
    let dir = t.work.join("proj");
    let start = Instant::now();
    t.run_in(&dir, &["install", "fs-read", "json-query"])
        .success();
    let typical = start.elapsed().as_micros() as u64;
    let reader = ManifestReader::start(dir.join(".orla/manifest.json"));
    let (iterations, seed) = kill_loop(40, 0x0bad_cafe);
    let mut rng = Rng(seed);
    let (mut killed, mut from_journal) = (0, 0);
    let mut delays = KillDelay(typical);
    for i in 0..iterations {
        let before = project_state(&t, &dir);
        let installed: Vec<String> = before.0.iter().cloned().collect();
        let args: Vec<&str> = if installed.len() >= 2 && rng.below(2) == 0 {
            vec!["uninstall", "fs-read", "json-query"]
        } else {
            vec!["install", "fs-read", "json-query", "fs-list"]
        };
        let mut child = t
            .command(&args)
            .current_dir(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        if delays.kill(&mut child, &mut rng).1.is_none() {
            killed += 1;
        }
        let journal = dir.join("tools/.orla-staging/journal").exists();
        let (names, pins, store) = project_state(&t, &dir);
        let store_names: BTreeSet<String> = store.iter().map(|(n, _)| n.clone()).collect();
        assert_eq!(pins, store, "iteration {i} {args:?}: orla.lock != store");
        assert_eq!(
            names, store_names,
            "iteration {i} {args:?}: orla.yaml != store"
        );
        if journal {
            from_journal += 1;
        }
        t.run_in(&dir, &["verify"]).success();
    }
    eprintln!("{iterations} iterations: {killed} killed, {from_journal} settled from a journal");
    let (reads, bad) = reader.stop();
    assert!(reads > 0);
    assert_eq!(
        bad,
        Vec::<String>::new(),
        "manifests naming a missing or partial package"
    );
    // A short replay need not kill often; a full run must, to mean anything.
    assert!(
        iterations < 20 || killed >= iterations / 5,
        "too few kills to mean anything"
    );
}

/// A batch of new packages is journaled whole before its first rename, so
/// wherever it stops between two renames the journal names every package
/// and the next run undoes the ones in place. Each prefix, for real (a
/// rename that fails, and the command's own roll back) and as a kill
/// leaves it (the journal, the pending marker, some packages in place and
/// the rest still in staging).
#[test]
fn a_batch_stopped_after_any_of_its_renames_is_undone_whole() {
    let names = ["bravo", "charlie", "delta"];
    for k in 0..names.len() {
        let t = TestContext::new();
        let mut index = IndexBuilder::new(&t.dir.path().join("index"));
        index.publish(&PackageBuilder::new("alpha", "1.0.0"));
        for name in names {
            index.publish(&PackageBuilder::new(name, "1.0.0"));
        }
        let registry = index.location();
        t.run(&["install", "alpha", "--registry", &registry])
            .success();
        let before = common::snapshot(&t.tools_dir());

        // The k-th name directory cannot be made: the renames before it
        // are done, then the command fails and rolls them back.
        let blocker = t.tools_dir().join(names[k]);
        std::fs::write(&blocker, "in the way").unwrap();
        let mut args = vec!["install"];
        args.extend(names);
        args.extend(["--registry", &registry]);
        t.run(&args).failure(1);
        std::fs::remove_file(&blocker).unwrap();
        assert_eq!(common::snapshot(&t.tools_dir()), before, "failed at {k}");
        assert_consistent(&t, &format!("failed at rename {k}"));

        // Killed after k renames: the packages as this install made them
        // (their receipts bound to their directories), the first k in
        // place and the rest in staging, the manifest still the one before.
        let manifest = std::fs::read(t.home.join("manifest.json")).unwrap();
        t.run(&args).success();
        let hold = t.dir.path().join("hold");
        std::fs::create_dir_all(&hold).unwrap();
        for name in names {
            std::fs::rename(t.tools_dir().join(name).join("1.0.0"), hold.join(name)).unwrap();
            std::fs::remove_dir(t.tools_dir().join(name)).unwrap();
        }
        std::fs::write(t.home.join("manifest.json"), &manifest).unwrap();
        let staging = t.tools_dir().join(".orla-staging");
        let mut journal = String::new();
        for (i, name) in names.iter().enumerate() {
            journal.push_str(&format!("commit {name}/1.0.0\n"));
            let dir = if i < k {
                t.tools_dir().join(name).join("1.0.0")
            } else {
                staging.join(format!("stage-{name}")).join("pkg")
            };
            std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
            std::fs::rename(hold.join(name), dir).unwrap();
        }
        std::fs::write(staging.join("journal"), journal).unwrap();
        std::fs::write(t.home.join(".manifest-pending"), "").unwrap();
        let run = t.run(&["list"]);
        run.success();
        for name in &names[..k] {
            run.stderr_has(&format!("undid the unfinished install of {name} 1.0.0"));
        }
        assert_eq!(common::snapshot(&t.tools_dir()), before, "killed at {k}");
        assert_consistent(&t, &format!("killed after {k} renames"));
    }
}

/// An install of many tools commits them as one batch: one journal write
/// names every new package before the first of their renames. Killed at
/// any moment (during the flushes, between two of the renames, before the
/// manifest), the manifest is the state before or after, and the next
/// command settles the store on it, whatever subset of the renames was
/// done; with `--force`, replacements follow the new packages in the same
/// command.
#[test]
fn sigkill_during_an_install_of_many_tools_leaves_before_or_after() {
    let t = TestContext::new();
    let mut index = IndexBuilder::new(&t.dir.path().join("index"));
    let names: Vec<String> = (0..6).map(|i| format!("many{i}")).collect();
    for name in &names {
        let mut pkg = PackageBuilder::new(name, "1.0.0");
        for i in 0..8 {
            pkg = pkg.file(&format!("data/f{i}.txt"), &format!("{name} {i}\n"), false);
        }
        index.publish(&pkg);
    }
    let registry = index.location();
    let all: State = names.iter().map(|n| (n.clone(), "1.0.0".into())).collect();
    let install = |force: bool| {
        let mut args = vec!["install".to_string()];
        args.extend(names.iter().cloned());
        args.extend(["--registry".into(), registry.clone()]);
        if force {
            args.push("--force".into());
        }
        args
    };
    let start = Instant::now();
    t.command(
        &install(false)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    )
    .output()
    .unwrap();
    let typical = start.elapsed().as_micros() as u64;
    assert_eq!(store_state(&t), all);

    let reader = ManifestReader::start(t.home.join("manifest.json"));
    let (iterations, seed) = kill_loop(40, 0x0ba7_c4ed);
    eprintln!("seed {seed:#x}, one install takes {typical} us");
    let mut rng = Rng(seed);
    let mut delays = KillDelay(typical);
    let (mut killed, mut partial) = (0, 0);
    for i in 0..iterations {
        let before = store_state(&t);
        let (args, after) = match rng.below(3) {
            0 => (install(false), all.clone()),
            1 => (install(true), all.clone()),
            _ if before.is_empty() => (install(false), all.clone()),
            _ => {
                // Uninstall some, so that the next install has new ones.
                let gone: Vec<String> = before
                    .iter()
                    .filter(|_| rng.below(3) != 0)
                    .map(|(n, _)| n.clone())
                    .collect();
                let gone = if gone.is_empty() {
                    vec![before.iter().next().unwrap().0.clone()]
                } else {
                    gone
                };
                let after = before
                    .iter()
                    .filter(|(n, _)| !gone.contains(n))
                    .cloned()
                    .collect();
                let mut args = vec!["uninstall".to_string()];
                args.extend(gone);
                (args, after)
            }
        };
        let full: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut child = t
            .command(&full)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let (delay, status) = delays.kill(&mut child, &mut rng);
        match status {
            Some(status) => assert!(status.success(), "iteration {i}: {full:?} failed"),
            None => killed += 1,
        }
        let context = format!(
            "iteration {i} (seed {seed:#x}): {full:?} killed after {delay} us\nbefore {before:?}\nafter {after:?}"
        );
        if settled_before_or_after(&t, &context, &before, &after) {
            partial += 1;
        }
    }
    eprintln!(
        "{iterations} iterations: {killed} killed, {partial} with only some of the packages in place"
    );
    let (reads, bad) = reader.stop();
    assert!(reads > 0);
    assert_eq!(
        bad,
        Vec::<String>::new(),
        "manifests naming a missing or partial package"
    );
    assert!(
        iterations < 20 || killed >= iterations / 5,
        "too few kills to mean anything"
    );
}
