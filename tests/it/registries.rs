//! Remote registries: git indexes cloned into the cache with a
//! TTL, --refresh and --offline; configured registries and their order;
//! archives over HTTP with retries, resume, redirects, timeouts and the
//! download cache; RFC 3 git-source tools; search, info, update and cache.

use crate::common;

use std::path::{Path, PathBuf};

use common::git::GitHttp;
use common::server::{Behaviour, Server};
use common::{snapshot, IndexBuilder, PackageBuilder, TestContext};
use orla::index::{RegistryEntry, RegistryYaml};

/// A registry index in a bare git repository, edited through a working
/// clone: `index` writes files, `push` commits them and pushes.
struct GitRegistry {
    bare: PathBuf,
    work: git2::Repository,
    index: IndexBuilder,
}

impl GitRegistry {
    fn new(t: &TestContext, name: &str) -> GitRegistry {
        let bare = t.dir.path().join(format!("{name}.git"));
        let repo = git2::Repository::init_bare(&bare).unwrap();
        repo.set_head("refs/heads/main").unwrap();
        let work_dir = t.dir.path().join(format!("{name}-work"));
        let index = IndexBuilder::new(&work_dir);
        let work = git2::Repository::init(&work_dir).unwrap();
        let mut g = GitRegistry { bare, work, index };
        g.push("init");
        g
    }

    fn url(&self) -> String {
        format!("file://{}", self.bare.display())
    }

    fn publish(&mut self, pkg: &PackageBuilder) {
        self.index.publish(pkg);
        self.push(&format!("publish {} {}", pkg.name, pkg.version));
    }

    fn push(&mut self, message: &str) {
        commit_all(&self.work, message, "refs/heads/main");
        common::git::push_to_bare(&self.work, &self.bare, "main");
    }
}

/// Commits the work tree on top of `refname`'s commit (if any) and moves it.
fn commit_all(repo: &git2::Repository, message: &str, refname: &str) -> git2::Oid {
    let parent = repo.refname_to_id(refname).ok();
    common::git::commit_all(repo, message, Some(refname), parent.as_slice())
}

/// A tool repository: each (tag, version in tool.yaml) is a commit and a tag.
fn tool_repo(t: &TestContext, name: &str, tags: &[(&str, &str)]) -> (PathBuf, Vec<git2::Oid>) {
    tool_repo_with(t, name, tags, &[])
}

fn tool_repo_with(
    t: &TestContext,
    name: &str,
    tags: &[(&str, &str)],
    permissions: &[&str],
) -> (PathBuf, Vec<git2::Oid>) {
    let dir = t.dir.path().join(format!("tool-{name}"));
    let repo = git2::Repository::init(&dir).unwrap();
    let mut commits = Vec::new();
    for (tag, version) in tags {
        let src = PackageBuilder::new(name, version)
            .permissions(permissions)
            .write(&t.dir.path().join("tool-src"));
        copy_tree(&src, &dir);
        let oid = commit_all(&repo, &format!("release {version}"), "refs/heads/main");
        let obj = repo.find_object(oid, None).unwrap();
        repo.tag_lightweight(tag, &obj, true).unwrap();
        commits.push(oid);
    }
    (dir, commits)
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            copy_tree(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

fn receipt(t: &TestContext, name: &str, version: &str) -> serde_json::Value {
    let path = t
        .tools_dir()
        .join(name)
        .join(version)
        .join(".orla-receipt.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn installs_from_a_git_index_by_file_url() {
    let t = TestContext::new();
    let mut reg = GitRegistry::new(&t, "index");
    reg.publish(&PackageBuilder::new("gtool", "1.0.0"));
    let url = reg.url();
    t.run(&["install", "gtool", "--registry", &url])
        .success()
        .stderr_has("Updating registry");
    assert_eq!(t.list(), [("gtool".into(), "1.0.0".into())]);
    assert_eq!(receipt(&t, "gtool", "1.0.0")["source"]["registry"], url);
    // The clone and its state live in the cache; the state names the commit.
    let registries = t.cache.join("registries");
    let state = std::fs::read_dir(&registries)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".state.json"))
        .expect("a state file next to the clone");
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(state).unwrap()).unwrap();
    let head = reg
        .work
        .refname_to_id("refs/heads/main")
        .unwrap()
        .to_string();
    assert_eq!(state["commit"], head);
    assert_eq!(state["url"], url);
    // A bare repository given as a plain path is a git registry too.
    t.run(&["uninstall", "gtool"]).success();
    t.run(&[
        "install",
        "gtool",
        "--registry",
        &reg.bare.display().to_string(),
    ])
    .success();
}

#[test]
fn a_pushed_version_appears_after_the_ttl_or_refresh_and_not_before() {
    let t = TestContext::new();
    let mut reg = GitRegistry::new(&t, "index");
    reg.publish(&PackageBuilder::new("gtool", "1.0.0"));
    let url = reg.url();
    let latest = |extra: &[&str]| {
        let mut args = vec!["info", "gtool", "--json", "--registry", &url];
        args.extend_from_slice(extra);
        let run = t.run(&args);
        run.success();
        run.json()["latest"].as_str().unwrap().to_string()
    };
    assert_eq!(latest(&[]), "1.0.0");
    reg.publish(&PackageBuilder::new("gtool", "1.1.0"));
    // Within the TTL (default 10 minutes) the cached clone answers.
    assert_eq!(latest(&[]), "1.0.0");
    t.run(&["install", "gtool", "--registry", &url]).success();
    assert_eq!(t.list(), [("gtool".into(), "1.0.0".into())]);
    // --refresh fetches now.
    assert_eq!(latest(&["--refresh"]), "1.1.0");
    // A TTL of zero fetches every time.
    reg.publish(&PackageBuilder::new("gtool", "1.2.0"));
    let run = t
        .command(&["info", "gtool", "--json", "--registry", &url])
        .env("ORLA_REGISTRY_TTL", "0")
        .output()
        .unwrap();
    let run = common::to_run(run);
    run.success();
    assert_eq!(run.json()["latest"], "1.2.0");
    // registry_ttl in config.yaml is honoured as well.
    reg.publish(&PackageBuilder::new("gtool", "1.3.0"));
    std::fs::create_dir_all(&t.home).unwrap();
    std::fs::write(t.home.join("config.yaml"), "registry_ttl: 0s\n").unwrap();
    assert_eq!(latest(&[]), "1.3.0");
}

#[test]
fn offline_uses_the_cache_and_fails_clearly_without_it() {
    let t = TestContext::new();
    let mut reg = GitRegistry::new(&t, "index");
    reg.publish(&PackageBuilder::new("gtool", "1.0.0"));
    let url = reg.url();
    let before = snapshot(&t.dir.path().join("orla-home"));
    t.run(&["install", "gtool", "--registry", &url, "--offline"])
        .failure(1)
        .stderr_has("is not in the cache and --offline forbids the network")
        .stderr_has("hint: run the command once without --offline");
    assert_eq!(snapshot(&t.home), before);
    t.run(&["info", "gtool", "--registry", &url]).success();
    // The index moves on, but offline installs from the copy in the cache,
    // and says how old it is once it is past the TTL.
    reg.publish(&PackageBuilder::new("gtool", "2.0.0"));
    let run = common::to_run(
        t.command(&["install", "gtool", "--registry", &url, "--offline"])
            .env("ORLA_REGISTRY_TTL", "0")
            .output()
            .unwrap(),
    );
    run.success()
        .stderr_has("using the cached copy of registry");
    assert_eq!(t.list(), [("gtool".into(), "1.0.0".into())]);
    // When the network fails, the cached copy is used with a warning.
    std::fs::rename(&reg.bare, t.dir.path().join("moved.git")).unwrap();
    let run = common::to_run(
        t.command(&["info", "gtool", "--registry", &url])
            .env("ORLA_REGISTRY_TTL", "0")
            .output()
            .unwrap(),
    );
    run.success()
        .stderr_has("cannot fetch registry")
        .stderr_has("using the cached copy fetched");
    // A registry that was never fetched and cannot be fails clearly.
    t.run(&[
        "install",
        "gtool",
        "--registry",
        "file:///nonexistent/index.git",
    ])
    .failure(1)
    .stderr_has("cannot fetch registry file:///nonexistent/index.git");
}

#[test]
fn configured_registries_are_searched_in_order_and_info_names_the_one_used() {
    let t = TestContext::new();
    let mut first = IndexBuilder::new(&t.dir.path().join("first"));
    first.publish(&PackageBuilder::new("shared", "1.0.0"));
    let mut second = GitRegistry::new(&t, "second");
    second.publish(&PackageBuilder::new("shared", "9.0.0"));
    second.publish(&PackageBuilder::new("only-second", "1.0.0"));
    std::fs::create_dir_all(&t.home).unwrap();
    std::fs::write(
        t.home.join("config.yaml"),
        format!(
            "registries:\n  - name: first\n    location: {}\n  - name: second\n    location: {}\n",
            first.location(),
            second.url()
        ),
    )
    .unwrap();
    t.run(&["install", "shared", "only-second"]).success();
    assert_eq!(
        t.list(),
        [
            ("only-second".into(), "1.0.0".into()),
            ("shared".into(), "1.0.0".into())
        ]
    );
    assert_eq!(
        receipt(&t, "shared", "1.0.0")["source"]["registry"],
        "first"
    );
    assert_eq!(
        receipt(&t, "only-second", "1.0.0")["source"]["registry"],
        "second"
    );
    let info = t.run(&["info", "shared", "--json"]);
    info.success();
    let info = info.json();
    assert_eq!(info["registry"], "first");
    assert_eq!(info["also_in"], serde_json::json!(["second"]));
    t.run(&["info", "shared"])
        .success()
        .stdout_has("also in:     second");
    // --registry NAME picks one configured registry.
    let info = t.run(&["info", "shared", "--json", "--registry", "second"]);
    assert_eq!(info.json()["latest"], "9.0.0");
    // The built-in registry is still searched last.
    t.run(&["install", "fs-list"]).success();
    // A project's registries come before the user's.
    let project = t.work.join("proj");
    let mut third = IndexBuilder::new(&t.dir.path().join("third"));
    third.publish(&PackageBuilder::new("shared", "3.0.0"));
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("orla.yaml"),
        format!(
            "registries:\n  - name: proj\n    location: {}\n",
            third.location()
        ),
    )
    .unwrap();
    let info = t.run_in(&project, &["info", "shared", "--json"]);
    assert_eq!(info.json()["registry"], "proj");
    // An unknown tool names every registry searched.
    t.run(&["install", "nope"])
        .failure(1)
        .stderr_has("no tool 'nope' in registry first, second or builtin");
}

/// An index whose `name` 1.0.0 archive is served from `server` at `/NAME.tar.gz`.
fn http_index(
    t: &TestContext,
    server: &Server,
    dir: &str,
    names: &[&str],
) -> (IndexBuilder, Vec<Vec<u8>>) {
    let mut index = IndexBuilder::new(&t.dir.path().join(dir));
    let mut all = Vec::new();
    for name in names {
        let noise: String = (0..60_000u32)
            .map(|i| char::from(b'a' + (i.wrapping_mul(2654435761) >> 27) as u8 % 26))
            .collect();
        index.publish(&PackageBuilder::new(name, "1.0.0").file("data/noise", &noise, false));
        let rel = format!("archives/{name}/{name}-1.0.0.tar.gz");
        let bytes = std::fs::read(index.root.join(&rel)).unwrap();
        std::fs::remove_file(index.root.join(&rel)).unwrap();
        let url = server.url(&format!("/{name}.tar.gz"));
        index.edit_records(name, |r| r.archive = Some(url.clone()));
        all.push(bytes);
    }
    (index, all)
}

#[test]
fn http_retries_5xx_and_connection_errors_but_not_4xx() {
    let t = TestContext::new();
    let server = Server::start();
    let (index, bytes) = http_index(&t, &server, "idx", &["flaky", "missing", "broken"]);
    server.route(
        "/flaky.tar.gz",
        Behaviour::FailTimes(2, 503, bytes[0].clone()),
    );
    t.run(&["install", "flaky", "--registry", &index.location()])
        .success()
        .stderr_has("HTTP 503");
    assert_eq!(server.requests(), 3);

    server.route("/missing.tar.gz", Behaviour::Status(404));
    t.run(&["install", "missing", "--registry", &index.location()])
        .failure(1)
        .stderr_has("HTTP 404");
    assert_eq!(server.requests(), 4, "a 404 is not retried");

    server.route("/broken.tar.gz", Behaviour::Status(500));
    t.run(&["install", "broken", "--registry", &index.location()])
        .failure(1)
        .stderr_has("HTTP 500")
        .stderr_has("after 4 attempts");
    assert_eq!(server.requests(), 8);
    assert_eq!(t.list(), [("flaky".into(), "1.0.0".into())]);

    // A server that is not there at all: a connection error, retried, then clear.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    index.edit_records("broken", |r| {
        r.archive = Some(format!("http://127.0.0.1:{port}/x.tar.gz"))
    });
    t.run(&["install", "broken", "--registry", &index.location()])
        .failure(1)
        .stderr_has("after 4 attempts");
}

#[test]
fn an_interrupted_download_resumes_with_a_range_request() {
    let t = TestContext::new();
    let server = Server::start();
    let (index, bytes) = http_index(&t, &server, "idx", &["big", "norange", "broken"]);
    let cut = bytes[0].len() / 3;
    server.route(
        "/big.tar.gz",
        Behaviour::TruncateOnce(bytes[0].clone(), cut),
    );
    t.run(&["install", "big", "--registry", &index.location()])
        .success();
    assert_eq!(
        server.ranges_for("/big.tar.gz"),
        [None, Some(format!("bytes={cut}-"))]
    );
    // The resumed archive is the verified one, and it reached the cache
    // (unpacked, by the archive's digest).
    assert!(t
        .cache
        .join("unpacked")
        .join(orla::verify::Digest::of(&bytes[0]).to_string())
        .join("files.json")
        .is_file());

    // A server without range support answers 200 again: the bytes already
    // read are skipped, and the archive still verifies.
    server.route(
        "/norange.tar.gz",
        Behaviour::TruncateOnceNoRanges(bytes[1].clone(), cut),
    );
    t.run(&["install", "norange", "--registry", &index.location()])
        .success();
    assert_eq!(server.ranges_for("/norange.tar.gz").len(), 2);

    // A body that is cut every time gives up after a few resumes, installing nothing.
    server.route("/broken.tar.gz", Behaviour::Truncate(bytes[2].clone(), cut));
    t.run(&["install", "broken", "--registry", &index.location()])
        .failure(1)
        .stderr_has("gave up after 4 resumed requests");
    assert!(!t.tools_dir().join("broken").exists());
    assert_eq!(server.ranges_for("/broken.tar.gz").len(), 5);
}

#[test]
fn redirects_are_followed_and_a_stalled_server_times_out() {
    let t = TestContext::new();
    let server = Server::start();
    let (index, bytes) = http_index(&t, &server, "idx", &["moved", "stuck"]);
    server.route(
        "/moved.tar.gz",
        Behaviour::Redirect("/real/moved.tar.gz".into()),
    );
    server.route("/real/moved.tar.gz", Behaviour::Serve(bytes[0].clone()));
    t.run(&["install", "moved", "--registry", &index.location()])
        .success();

    server.route("/stuck.tar.gz", Behaviour::Stall(bytes[1].clone(), 1000));
    let start = std::time::Instant::now();
    let run = common::to_run(
        t.command(&["install", "stuck", "--registry", &index.location()])
            .env("ORLA_HTTP_TIMEOUT", "0.3")
            .output()
            .unwrap(),
    );
    run.failure(1).stderr_has("stuck");
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
    assert!(!t.tools_dir().join("stuck").exists());
}

#[test]
fn a_corrupt_mirror_never_installs() {
    let t = TestContext::new();
    let server = Server::start();
    let (index, bytes) = http_index(&t, &server, "idx", &["tool"]);
    let mut evil = bytes[0].clone();
    let mid = evil.len() / 2;
    evil[mid] ^= 0xff;
    server.route("/tool.tar.gz", Behaviour::Serve(evil));
    let before = snapshot(t.dir.path());
    t.run(&["install", "tool", "--registry", &index.location()])
        .failure(1)
        .stderr_has("digest mismatch");
    assert!(!t.tools_dir().join("tool").exists());
    assert!(
        !t.cache.join("archives").exists()
            || std::fs::read_dir(t.cache.join("archives")).unwrap().count() == 0
    );
    let after = snapshot(t.dir.path());
    assert!(after
        .keys()
        .all(|k| before.contains_key(k) || k.starts_with("orla-home/") || k.starts_with("cache/")));
}

#[test]
fn a_warm_cache_reinstall_makes_no_request_and_works_offline() {
    let t = TestContext::new();
    let server = Server::start();
    let (index, bytes) = http_index(&t, &server, "idx", &["one", "two"]);
    server.route("/one.tar.gz", Behaviour::Serve(bytes[0].clone()));
    server.route("/two.tar.gz", Behaviour::Serve(bytes[1].clone()));
    // Two archives at once: downloaded in parallel.
    t.run(&["install", "one", "two", "--registry", &index.location()])
        .success();
    assert_eq!(server.requests(), 2);
    t.run(&["uninstall", "one", "two"]).success();
    t.run(&["install", "one", "two", "--registry", &index.location()])
        .success();
    assert_eq!(server.requests(), 2, "the warm cache answered");
    t.run(&["uninstall", "one"]).success();
    t.run(&[
        "install",
        "one",
        "--offline",
        "--registry",
        &index.location(),
    ])
    .success();
    assert_eq!(server.requests(), 2);
    // Offline and not cached: a clear error.
    t.run(&["cache", "clear"]).success().stderr_has("Removed");
    t.run(&["uninstall", "one"]).success();
    t.run(&[
        "install",
        "one",
        "--offline",
        "--registry",
        &index.location(),
    ])
    .failure(1)
    .stderr_has("not in the download cache and --offline forbids the network");
    assert_eq!(server.requests(), 2);
}

/// A registry whose registry.yaml lists `name` as an RFC 3 git-source tool.
fn git_source_registry(t: &TestContext, name: &str, repo: &Path) -> IndexBuilder {
    let index = IndexBuilder::new(&t.dir.path().join("rfc3-index"));
    let listing = RegistryYaml {
        version: 1,
        registry_url: None,
        tools: vec![RegistryEntry {
            name: name.into(),
            description: "A tool that lives in its own repository".into(),
            repository: Some(format!("file://{}", repo.display())),
            maintainer: Some("someone".into()),
            keywords: vec!["example".into()],
        }],
    };
    std::fs::write(index.root.join("registry.yaml"), listing.to_yaml()).unwrap();
    index
}

#[test]
fn rfc3_git_source_tools_install_from_tags() {
    let t = TestContext::new();
    let (repo, commits) = tool_repo_with(
        &t,
        "gitty",
        &[
            ("v1.0.0", "1.0.0"),
            ("v1.1.0", "1.1.0"),
            ("v2.0.0-beta.1", "2.0.0-beta.1"),
            ("v1.2.0", "1.1.5"),
            ("notes", "0.0.1"),
        ],
        &["filesystem:read"],
    );
    let index = git_source_registry(&t, "gitty", &repo);
    let loc = index.location();
    // Latest stable: v1.2.0 is newest stable, but its tool.yaml says 1.1.5.
    t.run(&["install", "gitty", "--registry", &loc])
        .failure(1)
        .stderr_has("tag v1.2.0 of file://")
        .stderr_has("holds tool.yaml version 1.1.5; the tag and the version must match")
        // The version that works is named (its tag and tool.yaml agree).
        .stderr_has("hint: nothing was installed; `orla install gitty@1.1.0` installs a version whose tag and tool.yaml agree");
    assert!(!t.tools_dir().join("gitty").exists());
    // `info` marks the tag that cannot be installed.
    t.run(&["info", "gitty", "--registry", &loc])
        .success()
        .stdout_has("(its tool.yaml says 1.1.5: cannot be installed)");
    let info = t
        .run(&["info", "gitty", "--registry", &loc, "--json"])
        .json();
    let marked: Vec<(&str, &str)> = info["versions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| Some((v["version"].as_str()?, v["tool_yaml_version"].as_str()?)))
        .collect();
    assert_eq!(marked, [("1.2.0", "1.1.5")]);
    t.run(&["install", "gitty@1.1", "--registry", &loc])
        .success();
    t.run(&["install", "gitty@v1.0.0", "--registry", &loc])
        .success();
    assert_eq!(
        t.list(),
        [
            ("gitty".into(), "1.0.0".into()),
            ("gitty".into(), "1.1.0".into())
        ]
    );
    let r = receipt(&t, "gitty", "1.1.0");
    assert_eq!(r["source"]["kind"], "git");
    assert_eq!(r["source"]["tag"], "v1.1.0");
    assert_eq!(r["source"]["commit"], commits[1].to_string());
    assert_eq!(
        r["source"]["repository"],
        format!("file://{}", repo.display())
    );
    // The tree digest: BLAKE3 over "<mode> <blake3> <path>\n", sorted by path.
    let files = r["files"].as_object().unwrap();
    let mut text = String::new();
    for (path, f) in files {
        let mode = if f["executable"].as_bool().unwrap() {
            "755"
        } else {
            "644"
        };
        text.push_str(&format!(
            "{mode} {} {path}\n",
            f["blake3"].as_str().unwrap()
        ));
    }
    assert_eq!(
        r["source"]["blake3"],
        orla::verify::Digest::of(text.as_bytes()).to_hex()
    );
    assert!(files.contains_key("tool.yaml") && files.contains_key("bin/gitty"));
    assert!(!t.tools_dir().join("gitty/1.1.0/.git").exists());
    // info lists the tags; a pre-release only when asked for.
    let info = t.run(&["info", "gitty", "--json", "--registry", &loc]);
    info.success();
    let info = info.json();
    assert_eq!(info["source"], "git");
    // v1.2.0 is what `install` would pick; its tool.yaml gives the permissions.
    assert_eq!(info["latest"], "1.2.0");
    assert_eq!(info["permissions"], serde_json::json!(["filesystem:read"]));
    assert_eq!(info["risk_level"], "low");
    let versions: Vec<_> = info["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["tag"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(versions, ["v2.0.0-beta.1", "v1.2.0", "v1.1.0", "v1.0.0"]);
    t.run(&["install", "gitty@2.0.0-beta.1", "--registry", &loc])
        .success();
    // Tags are cached: offline works once fetched.
    t.run(&["uninstall", "gitty@1.0.0"]).success();
    t.run(&["install", "gitty@1.0.0", "--offline", "--registry", &loc])
        .success();
}

#[test]
fn search_ranks_name_then_keywords_then_description() {
    let t = TestContext::new();
    let mut index = IndexBuilder::new(&t.dir.path().join("idx"));
    for name in ["reader", "files", "fs-read", "fs", "http-get"] {
        index.publish(&PackageBuilder::new(name, "1.0.0"));
    }
    // Rewrite the listing with keywords and descriptions.
    let entry = |name: &str, description: &str, keywords: &[&str]| RegistryEntry {
        name: name.into(),
        description: description.into(),
        keywords: keywords.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    let listing = RegistryYaml {
        version: 1,
        registry_url: None,
        tools: vec![
            entry("reader", "Reads fs trees", &[]),
            entry("files", "File utilities", &["fs"]),
            entry("fs-read", "Read a file", &[]),
            entry("fs", "Filesystem access", &[]),
            entry("http-get", "Fetch a URL", &["web"]),
        ],
    };
    std::fs::write(index.root.join("registry.yaml"), listing.to_yaml()).unwrap();
    let run = t.run(&["search", "fs", "--json", "--registry", &index.location()]);
    run.success();
    let names: Vec<_> = run
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["fs", "fs-read", "files", "reader"]);
    let table = t.run(&["search", "fs", "--registry", &index.location()]);
    table.success();
    assert!(table.stdout.starts_with("NAME"), "{}", table.stdout);
    assert!(table.stdout.lines().nth(1).unwrap().starts_with("fs "));
    // The configured registries, builtin included.
    let run = t.run(&["search", "filesystem", "--json"]);
    run.success();
    let first = &run.json()[0];
    assert_eq!(first["registry"], "builtin");
    let none = t.run(&["search", "zzzzqqq", "--json"]);
    assert_eq!(none.json(), serde_json::json!([]));
    // The status verb and its message read as one line.
    t.run(&["search", "zzzzqqq"])
        .success()
        .stderr_has("No match for 'zzzzqqq'; try fewer or shorter words");
}

#[test]
fn info_shows_versions_digests_permissions_and_installs() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.1", "fs-read@1.2.0"])
        .success();
    let run = t.run(&["info", "fs-read", "--json"]);
    run.success();
    let info = run.json();
    assert_eq!(info["registry"], "builtin");
    assert_eq!(info["latest"], "1.2.1");
    assert_eq!(info["installed"], serde_json::json!(["1.1.0", "1.2.0"]));
    assert_eq!(info["active"], "1.2.0");
    assert_eq!(info["permissions"], serde_json::json!(["filesystem:read"]));
    let versions = info["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 5);
    assert!(versions
        .iter()
        .all(|v| v["blake3"].as_str().unwrap().len() == 64));
    assert!(versions
        .iter()
        .any(|v| v["version"] == "1.2.0" && v["active"] == true));
    let text = t.run(&["info", "fs-read"]);
    text.success()
        .stdout_has("fs-read 1.2.1")
        .stdout_has("registry:    builtin")
        .stdout_has("permissions: filesystem:read (risk: low)")
        .stdout_has("installed:   1.1.0, 1.2.0 (active: 1.2.0)");
    t.run(&["info", "fs-raed"])
        .failure(1)
        .stderr_has("did you mean 'fs-read'?");
    // A version describes that version, as install would pick it.
    let older = t.run(&["info", "fs-read@1.1", "--json"]).json();
    assert_eq!(older["version"], "1.1.0");
    assert_eq!(older["latest"], "1.2.1");
    assert_eq!(
        older["description"],
        "Read a UTF-8 text file, optionally starting at a byte offset"
    );
    t.run(&["info", "fs-read@1.1.0"])
        .success()
        .stdout_has("fs-read 1.1.0\n")
        .stdout_has("latest:      1.2.1");
    t.run(&["info", "fs-read@9"])
        .failure(1)
        .stderr_has("no version of fs-read matches '9'")
        .stderr_has("hint: ask for one of the available versions");
}

/// `orla info` showed no input schema, mode, author or license (what
/// `mcpm inspect` shows), and a repository that was the index's archive
/// directory.
#[test]
fn info_shows_what_tool_yaml_says_and_the_input_schema() {
    let t = TestContext::new();
    let text = t.run(&["info", "fs-read"]);
    text.success()
        .stdout_has("author:      orla project")
        .stdout_has("license:     MIT")
        .stdout_has("mode:        simple (arguments as one JSON object on stdin)")
        .stdout_has("input:\n  path       string   required  Path of the file to read")
        .stdout_has("  offset     integer  optional  Byte offset to start reading at; past the end gives empty output [default: 0]");
    assert!(!text.stdout.contains("archives/"), "{}", text.stdout);
    let info = t.run(&["info", "fs-read", "--json"]).json();
    assert_eq!(info["mode"], "simple");
    assert_eq!(info["arguments"], "json");
    assert_eq!(info["license"], "MIT");
    assert_eq!(info["repository"], serde_json::Value::Null);
    assert_eq!(
        info["input_schema"]["required"],
        serde_json::json!(["path"])
    );
    assert_eq!(info["input_schema"]["properties"]["path"]["type"], "string");
    // Read from the archive, not installed: nothing installed, and the
    // download cache holds it for a later install.
    assert!(!t.tools_dir().exists());
    // A capsule says so.
    t.run(&["info", "echo-capsule"])
        .success()
        .stdout_has("mode:        capsule");
}

#[test]
fn info_active_follows_orla_use() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.1", "fs-read@1.2.0"])
        .success();
    t.run(&["use", "fs-read@1.1.0"]).success();
    let info = t.run(&["info", "fs-read", "--json"]).json();
    assert_eq!(info["active"], "1.1.0");
    let versions = info["versions"].as_array().unwrap();
    assert!(versions
        .iter()
        .any(|v| v["version"] == "1.1.0" && v["active"] == true));
    t.run(&["info", "fs-read"])
        .success()
        .stdout_has("(active: 1.1.0)");
}

/// registry.yaml describes the newest published version (fs-read's is
/// 2.0.0-rc.1), but info and search show the newest stable one: its
/// description must be that version's, not the pre-release's.
#[test]
fn info_and_search_describe_the_version_they_show() {
    let t = TestContext::new();
    let stable = "Read a text file, optionally from a byte offset and up to a byte limit; invalid UTF-8 bytes are replaced";
    let info = t.run(&["info", "fs-read", "--json"]).json();
    assert_eq!(info["latest"], "1.2.1");
    assert_eq!(info["description"], stable);
    let hits = t.run(&["search", "fs-read", "--json"]).json();
    assert_eq!(hits[0]["version"], "1.2.1");
    assert_eq!(hits[0]["description"], stable);
}

/// In a project, "Up to date" or "Skipping ... the newest the registry
/// allows" hid that orla.yaml's requirement is what holds a tool back.
#[test]
fn update_names_the_project_requirement_that_holds_a_tool_back() {
    let t = TestContext::new();
    t.run(&["init"]).success();
    t.run(&["install", "fs-read@1.1"]).success();
    t.run(&["update"])
        .success()
        .stderr_has("Up to date fs-read 1.1.0 (the newest orla.yaml's \"1.1\" allows)");
    t.run(&["install", "fs-read@1.2.1"]).success();
    std::fs::write(
        t.work.join("orla.yaml"),
        std::fs::read_to_string(t.work.join("orla.yaml"))
            .unwrap()
            .replace("fs-read: \"1.2.1\"", "fs-read: \"1.1\""),
    )
    .unwrap();
    t.run(&["update"])
        .success()
        .stderr_has("newer than 1.1.0, the newest orla.yaml's \"1.1\" allows");
    // Once orla.lock serves 1.1.0 again, that is the version update moves,
    // not the newest one installed.
    t.run(&["install"]).success();
    t.run(&["update"])
        .success()
        .stderr_has("Up to date fs-read 1.1.0 (the newest orla.yaml's \"1.1\" allows)");
}

/// `orla info` of a tool installed with --local answered only "no tool in
/// registry builtin", as if the name were wrong: it describes what is
/// installed.
#[test]
fn info_of_a_locally_installed_tool_describes_what_is_installed() {
    let t = TestContext::new();
    let src = PackageBuilder::new("homemade", "0.2.0").write(t.dir.path());
    t.run(&["install", "--local", src.to_str().unwrap()])
        .success();
    let run = t.run(&["info", "homemade"]);
    run.success()
        .stdout_has("homemade 0.2.0\n")
        .stdout_has(&format!("registry:    local ({})", src.display()))
        .stdout_has("installed:   0.2.0 (active: 0.2.0)")
        .stdout_has("mode:        simple");
    let info = t.run(&["info", "homemade", "--json"]).json();
    assert_eq!(info["source"], "installed");
    assert_eq!(info["version"], "0.2.0");
    t.run(&["info", "homemade@0.2.0"]).success();
    t.run(&["info", "homemade@9"])
        .failure(1)
        .stderr_has("no version of homemade matches '9'");
}

#[test]
fn update_moves_to_the_newest_allowed_version() {
    let t = TestContext::new();
    t.run(&["install", "fs-read@1.1", "fs-list"]).success();
    let before = snapshot(&t.home);
    let dry = t.run(&["update", "--dry-run"]);
    dry.success();
    assert_eq!(dry.stdout, "fs-read 1.1.0 -> 1.2.1\n");
    assert_eq!(snapshot(&t.home), before, "--dry-run changes nothing");
    t.run(&["update"])
        .success()
        .stderr_has("Updated fs-read 1.1.0 -> 1.2.1")
        .stderr_has("Up to date fs-list");
    assert_eq!(
        t.list(),
        [
            ("fs-list".into(), "1.0.0".into()),
            ("fs-read".into(), "1.2.1".into())
        ]
    );
    t.run(&["update", "fs-read"])
        .success()
        .stderr_has("Up to date fs-read 1.2.1");
    // A version chosen with `orla use` is left alone.
    t.run(&["install", "fs-read@1.0.0"]).success();
    t.run(&["use", "fs-read@1.0.0"]).success();
    t.run(&["uninstall", "fs-read@1.2.1"]).success();
    t.run(&["update", "fs-read"])
        .success()
        .stderr_has("`orla use` pins 1.0.0");
    t.run(&["use", "fs-read"]).success();
    t.run(&["update", "fs-read"])
        .success()
        .stderr_has("Updated fs-read 1.0.0 -> 1.2.1");
    t.run(&["update", "http-get"])
        .failure(1)
        .stderr_has("http-get is not installed");

    // In a project, the orla.yaml requirement bounds the update.
    let project = t.work.join("proj");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("orla.yaml"), "tools_dir: ./tools\n").unwrap();
    t.run_in(&project, &["install", "fs-read@1.0.0"]).success();
    // Loosen the requirement by hand, as a user would.
    std::fs::write(
        project.join("orla.yaml"),
        "tools_dir: ./tools\ntools:\n  fs-read: \"~1.1\"\n",
    )
    .unwrap();
    let dry = t.run_in(&project, &["update", "--dry-run"]);
    assert_eq!(dry.stdout, "fs-read 1.0.0 -> 1.1.0\n");
    t.run_in(&project, &["update"]).success();
    let list = t.run_in(&project, &["list", "--json"]).json();
    let versions: Vec<_> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["root"] == "project")
        .map(|e| e["version"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(versions, ["1.1.0"]);
    // orla.lock follows: it pins 1.1.0 for "~1.1", so --locked has nothing to change.
    let lock = std::fs::read_to_string(project.join("orla.lock")).unwrap();
    assert!(
        lock.contains("version = \"1.1.0\"") && lock.contains("requirement = \"~1.1\""),
        "{lock}"
    );
    t.run_in(&project, &["install", "--locked"]).success();
    assert!(
        project.join("tools/fs-read/1.1.0").is_dir()
            && !project.join("tools/fs-read/1.0.0").exists()
    );
}

#[test]
fn update_follows_a_git_index_and_keeps_the_old_version_on_failure() {
    let t = TestContext::new();
    let server = Server::start();
    let mut reg = GitRegistry::new(&t, "index");
    reg.publish(&PackageBuilder::new("gtool", "1.0.0"));
    let url = reg.url();
    t.run(&["install", "gtool", "--registry", &url]).success();
    // 1.1.0's archive lives on a server that fails: the update fails and 1.0.0 stays.
    let src = PackageBuilder::new("gtool", "1.1.0").write(&t.dir.path().join("src"));
    let (_, bytes) = orla::package::pack::pack_to_vec(&src).unwrap();
    reg.index.publish(&PackageBuilder::new("gtool", "1.1.0"));
    let archive = server.url("/gtool-1.1.0.tar.gz");
    reg.index.edit_records("gtool", |r| {
        if r.version.to_string() == "1.1.0" {
            r.archive = Some(archive.clone());
        }
    });
    reg.push("1.1.0 over http");
    server.route("/gtool-1.1.0.tar.gz", Behaviour::Status(404));
    t.run(&["update", "--refresh"])
        .failure(1)
        .stderr_has("HTTP 404");
    assert_eq!(t.list(), [("gtool".into(), "1.0.0".into())]);
    server.route("/gtool-1.1.0.tar.gz", Behaviour::Serve(bytes));
    t.run(&["update"])
        .success()
        .stderr_has("Updated gtool 1.0.0 -> 1.1.0");
    assert_eq!(t.list(), [("gtool".into(), "1.1.0".into())]);
}

#[test]
fn cache_dir_and_clear() {
    let t = TestContext::new();
    let run = t.run(&["cache", "dir"]);
    run.success();
    assert_eq!(run.stdout.trim(), t.cache.display().to_string());
    let mut reg = GitRegistry::new(&t, "index");
    reg.publish(&PackageBuilder::new("gtool", "1.0.0"));
    t.run(&["install", "gtool", "--registry", &reg.url()])
        .success();
    assert!(t.cache.join("registries").is_dir());
    let home = snapshot(&t.home);
    t.run(&["cache", "clear"]).success();
    // Only the clones' lock files are left, which a waiting fetch shares.
    let left: Vec<String> = std::fs::read_dir(t.cache.join("registries"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !left.is_empty() && left.iter().all(|name| name.ends_with(".lock")),
        "{left:?}"
    );
    assert_eq!(snapshot(&t.home), home, "installs are untouched");
    t.run(&["cache", "clear"]).success();
}

#[test]
fn sparse_http_indexes_fetch_one_file_per_tool_and_cache_it() {
    let t = TestContext::new();
    let server = Server::start();
    let mut index = IndexBuilder::new(&t.dir.path().join("sparse-index"));
    for name in ["alpha", "beta", "gamma"] {
        index.publish(&PackageBuilder::new(name, "1.0.0"));
    }
    common::index::serve_index(&server, &index.root);
    let location = format!("sparse+{}", server.url("/index/"));
    t.run(&["install", "beta", "--registry", &location])
        .success();
    let mut paths: Vec<String> = server.log().into_iter().map(|(p, _)| p).collect();
    // The config and the tool's file are asked for at once, in either order.
    paths[..2].sort();
    assert_eq!(
        paths,
        [
            "/index/be/ta/beta",
            "/index/config.json",
            "/index/archives/beta/beta-1.0.0.tar.gz"
        ],
        "config, the tool's one file and its archive: nothing else"
    );
    assert_eq!(receipt(&t, "beta", "1.0.0")["source"]["registry"], location);
    // Within the TTL the cached files answer: a reinstall makes no request.
    t.run(&["uninstall", "beta"]).success();
    t.run(&["install", "beta", "--registry", &location])
        .success();
    assert_eq!(server.requests(), 3);
    // The cache is not flushed: a file a crash left empty is fetched again,
    // not read as a tool without versions.
    let cached = find_file(&t.cache.join("sparse"), "beta").expect("beta's file is cached");
    std::fs::write(&cached, "").unwrap();
    t.run(&["uninstall", "beta"]).success();
    t.run(&["install", "beta", "--registry", &location])
        .success();
    assert_eq!(server.requests(), 4);
    assert_eq!(server.log()[3].0, "/index/be/ta/beta");
    // A missing tool is a 404, and a clear error.
    t.run(&["install", "nope", "--registry", &location])
        .failure(1)
        .stderr_has("no tool 'nope'");
    // Offline: cached files only.
    t.run(&["info", "beta", "--offline", "--registry", &location])
        .success();
    t.run(&["install", "alpha", "--offline", "--registry", &location])
        .failure(1)
        .stderr_has("no tool 'alpha'");
    // Search reads registry.yaml, and the files of its hits only (for
    // their versions), not one file per tool of the registry.
    let before = server.log().len();
    let run = t.run(&["search", "gamma", "--json", "--registry", &location]);
    run.success();
    assert_eq!(run.json()[0]["name"], "gamma");
    let asked: Vec<String> = server.log()[before..]
        .iter()
        .map(|(p, _)| p.clone())
        .collect();
    assert!(
        asked.iter().all(|p| p.ends_with("/registry.yaml")
            || p.ends_with("/gamma")
            || p.ends_with("/config.json")),
        "{asked:?}"
    );
    // Past the TTL files are fetched again; when the server fails, the cached copy is used.
    let before = server.requests();
    server.route("/index/config.json", Behaviour::Status(500));
    let run = common::to_run(
        t.command(&["info", "beta", "--registry", &location])
            .env("ORLA_REGISTRY_TTL", "0")
            .output()
            .unwrap(),
    );
    run.success().stderr_has("using the cached copy fetched");
    assert!(server.requests() > before);
}

/// Twenty tools in one command cost twenty lookups: against a sparse index
/// they are fetched at once, and the first error in the order the tools
/// were named is still the one reported.
#[test]
fn a_sparse_index_is_asked_for_many_tools_at_once() {
    let t = TestContext::new();
    let server = Server::start();
    let mut index = IndexBuilder::new(&t.dir.path().join("sparse-index"));
    let names: Vec<String> = (0..8).map(|i| format!("many-{i}")).collect();
    for name in &names {
        index.publish(&PackageBuilder::new(name, "1.0.0"));
    }
    // A tool's file answers only once another is asked for too.
    let gather = |rel: &str, bytes: Vec<u8>| {
        if rel.starts_with("ma/ny/") {
            Behaviour::Gather(bytes)
        } else {
            Behaviour::Serve(bytes)
        }
    };
    common::index::serve_index_with(&server, &index.root, &gather);
    let location = format!("sparse+{}", server.url("/index/"));

    // Errors first: nothing is installed, and the first named fails.
    server.route("/index/ma/ny/many-6", Behaviour::Status(403));
    fn args<'a>(tools: &[&'a str], location: &'a str) -> Vec<&'a str> {
        let mut a = vec!["install"];
        a.extend_from_slice(tools);
        a.extend(["--registry", location]);
        a
    }
    t.run(&args(
        &["many-0", "many-6", "many-nope", "many-1"],
        &location,
    ))
    .failure(1)
    .stderr_has("many-6: the server answered HTTP 403");
    t.run(&args(
        &["many-0", "many-nope", "many-6", "many-1"],
        &location,
    ))
    .failure(1)
    .stderr_has("no tool 'many-nope'");
    assert!(!t.home.join("tools").join("many-0").exists());

    server.route(
        "/index/ma/ny/many-6",
        Behaviour::Serve(std::fs::read(index.root.join("ma/ny/many-6")).unwrap()),
    );
    let tools: Vec<&str> = names.iter().map(String::as_str).collect();
    t.run(&args(&tools, &location)).success();
    for name in &names {
        assert!(
            t.home.join("tools").join(name).join("1.0.0").is_dir(),
            "{name}"
        );
    }
    let most = server.most_gathered();
    assert!(
        (2..=6).contains(&most),
        "{most} tool files were asked for at once (at least 2, at most 6 per host)"
    );

    // `update` asks for the tools of one registry at once too.
    for name in &names {
        index.publish(&PackageBuilder::new(name, "2.0.0"));
    }
    common::index::serve_index_with(&server, &index.root, &gather);
    server.reset_gathered();
    t.run(&["update", "--refresh"]).success();
    for name in &names {
        assert!(
            t.home.join("tools").join(name).join("2.0.0").is_dir(),
            "{name}"
        );
    }
    let most = server.most_gathered();
    assert!((2..=6).contains(&most), "update asked for {most} at once");
}

/// Installing one tool from a sparse index not cached yet costs its
/// `config.json` and the tool's file: both are asked for at once, one round
/// trip instead of two.
#[test]
fn one_tool_from_a_sparse_index_is_looked_up_with_its_config_at_once() {
    let t = TestContext::new();
    let server = Server::start();
    let mut index = IndexBuilder::new(&t.dir.path().join("sparse-index"));
    index.publish(&PackageBuilder::new("lone", "1.0.0"));
    let gather = |rel: &str, bytes: Vec<u8>| {
        if rel == "config.json" || rel == "lo/ne/lone" {
            Behaviour::Gather(bytes)
        } else {
            Behaviour::Serve(bytes)
        }
    };
    common::index::serve_index_with(&server, &index.root, &gather);
    let location = format!("sparse+{}", server.url("/index/"));
    t.run(&["install", "lone", "--registry", &location])
        .success();
    assert!(t.home.join("tools/lone/1.0.0").is_dir());
    assert_eq!(
        server.most_gathered(),
        2,
        "config.json and the tool's file were not asked for at once"
    );
}

/// Tools that the first registry lacks are looked up in the next one; a
/// sparse index second in the list is asked for all of them at once too,
/// not one lookup after another.
#[test]
fn a_second_sparse_index_is_asked_for_the_tools_the_first_lacks_at_once() {
    let t = TestContext::new();
    let (first_server, second_server) = (Server::start(), Server::start());
    let mut first = IndexBuilder::new(&t.dir.path().join("first"));
    first.publish(&PackageBuilder::new("elsewhere", "1.0.0"));
    common::index::serve_index(&first_server, &first.root);
    let mut second = IndexBuilder::new(&t.dir.path().join("second"));
    let names: Vec<String> = (0..8).map(|i| format!("later-{i}")).collect();
    for name in &names {
        second.publish(&PackageBuilder::new(name, "1.0.0"));
    }
    let gather = |rel: &str, bytes: Vec<u8>| {
        if rel.starts_with("la/te/") {
            Behaviour::Gather(bytes)
        } else {
            Behaviour::Serve(bytes)
        }
    };
    common::index::serve_index_with(&second_server, &second.root, &gather);
    std::fs::create_dir_all(&t.home).unwrap();
    std::fs::write(
        t.home.join("config.yaml"),
        format!(
            "registries:\n  - name: first\n    location: sparse+{}\n  - name: second\n    location: sparse+{}\n",
            first_server.url("/index/"),
            second_server.url("/index/")
        ),
    )
    .unwrap();
    let mut args = vec!["install"];
    args.extend(names.iter().map(String::as_str));
    t.run(&args).success();
    for name in &names {
        assert_eq!(receipt(&t, name, "1.0.0")["source"]["registry"], "second");
    }
    let most = second_server.most_gathered();
    assert!(
        (2..=6).contains(&most),
        "the second registry was asked for {most} tool files at once"
    );
}

/// A misspelt key was ignored without a word, and a list or a scalar was
/// "expected struct RawConfig".
#[test]
fn config_yaml_refuses_unknown_keys_and_names_its_shape() {
    let t = TestContext::new();
    std::fs::create_dir_all(&t.home).unwrap();
    std::fs::write(t.home.join("config.yaml"), "registires: []\n").unwrap();
    t.run(&["list"])
        .failure(1)
        .stderr_has("config.yaml, line 1: unknown key 'registires'")
        .stderr_has("hint: did you mean 'registries'? config.yaml knows registries, registry_ttl, public_registry, cache_max_size");
    std::fs::write(t.home.join("config.yaml"), "- builtin\n").unwrap();
    let run = t.run(&["list"]);
    run.failure(1).stderr_has(
        "expected a mapping with the keys registries, registry_ttl, public_registry, cache_max_size and runtime",
    );
    assert!(!run.stderr.contains("RawConfig"));
}

#[test]
fn configuration_mistakes_and_offline_edges_fail_clearly() {
    let t = TestContext::new();
    std::fs::create_dir_all(&t.home).unwrap();
    // A broken config.yaml names itself and the fix.
    std::fs::write(t.home.join("config.yaml"), "registries: 3\n").unwrap();
    t.run(&["search", "fs"])
        .failure(1)
        .stderr_has("config.yaml is not valid: registries: expected a list of {name, location}")
        .stderr_has("hint: write `registries:` as a list of `- name: N` / `location: L` items (see docs/registries.md)");
    std::fs::write(t.home.join("config.yaml"), "registry_ttl: soon\n").unwrap();
    t.run(&["list"])
        .failure(1)
        .stderr_has("registry_ttl: 'soon' is not a duration")
        .stderr_has("hint: write seconds or a duration such as 90s, 10m, 2h or 1d");
    std::fs::write(
        t.home.join("config.yaml"),
        "registries:\n  - {name: a, location: builtin}\n  - {name: a, location: builtin}\n",
    )
    .unwrap();
    t.run(&["list"])
        .failure(1)
        .stderr_has("'a' is named twice")
        .stderr_has("hint: give each registry its own name; rename or remove the second 'a'");
    std::fs::remove_file(t.home.join("config.yaml")).unwrap();
    let run = common::to_run(
        t.command(&["list"])
            .env("ORLA_REGISTRY_TTL", "5y")
            .output()
            .unwrap(),
    );
    run.failure(2).stderr_has("ORLA_REGISTRY_TTL");
    // --offline and --refresh contradict each other.
    t.run(&["search", "fs", "--offline", "--refresh"])
        .failure(2);
    // ORLA_OFFLINE=1 is --offline; a git-source tool never fetched fails clearly.
    let (repo, _) = tool_repo(&t, "gitty", &[("v1.0.0", "1.0.0")]);
    let index = git_source_registry(&t, "gitty", &repo);
    let run = common::to_run(
        t.command(&["install", "gitty", "--registry", &index.location()])
            .env("ORLA_OFFLINE", "1")
            .output()
            .unwrap(),
    );
    run.failure(1)
        .stderr_has("is not in the cache and --offline forbids the network");
    assert!(!t.tools_dir().join("gitty").exists());
    // A location that is not a registry at all.
    t.run(&["install", "x", "--registry", "ftp://example.invalid/x"])
        .failure(1)
        .stderr_has("uses the scheme 'ftp'");
}

#[test]
fn search_shows_a_tool_once_from_the_first_registry_and_info_the_commit() {
    let t = TestContext::new();
    let mut first = GitRegistry::new(&t, "first");
    first.publish(&PackageBuilder::new("fs-read", "9.9.9"));
    std::fs::create_dir_all(&t.home).unwrap();
    std::fs::write(
        t.home.join("config.yaml"),
        format!("registries:\n  mine: {}\n", first.url()),
    )
    .unwrap();
    let run = t.run(&["search", "fs-read", "--json"]);
    run.success();
    let hits = run.json();
    let fs_read: Vec<_> = hits
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["name"] == "fs-read")
        .collect();
    assert_eq!(fs_read.len(), 1);
    assert_eq!(fs_read[0]["registry"], "mine");
    assert_eq!(fs_read[0]["version"], "9.9.9");
    let info = t.run(&["info", "fs-read", "--json"]).json();
    let head = first
        .work
        .refname_to_id("refs/heads/main")
        .unwrap()
        .to_string();
    assert_eq!(info["registry_commit"], head);
    assert_eq!(info["also_in"], serde_json::json!(["builtin"]));
}

#[test]
fn git_registries_and_git_source_tools_over_smart_http() {
    let t = TestContext::new();
    let Some(http) = GitHttp::start(t.dir.path()) else {
        common::skip_unless_strict("git http-backend is not installed");
        return;
    };
    let mut reg = GitRegistry::new(&t, "index");
    reg.publish(&PackageBuilder::new("gtool", "1.0.0"));
    let url = format!("{}/index.git", http.addr);
    t.run(&["install", "gtool", "--registry", &url]).success();
    assert_eq!(t.list(), [("gtool".into(), "1.0.0".into())]);
    reg.publish(&PackageBuilder::new("gtool", "1.1.0"));
    t.run(&["update", "--refresh"])
        .success()
        .stderr_has("Updated gtool 1.0.0 -> 1.1.0");

    // An RFC 3 tool whose repository is served over HTTP.
    let (repo, commits) = tool_repo(
        &t,
        "remote-tool",
        &[("v0.1.0", "0.1.0"), ("v0.2.0", "0.2.0")],
    );
    std::fs::rename(&repo, t.dir.path().join("remote-tool.git.work")).unwrap();
    let bare = t.dir.path().join("remote-tool.git");
    git2::build::RepoBuilder::new()
        .bare(true)
        .clone(
            &format!(
                "file://{}",
                t.dir.path().join("remote-tool.git.work").display()
            ),
            &bare,
        )
        .unwrap();
    let index = git_source_registry(&t, "remote-tool", &bare);
    let listing = std::fs::read_to_string(index.root.join("registry.yaml"))
        .unwrap()
        .replace(
            &format!("file://{}", bare.display()),
            &format!("{}/remote-tool.git", http.addr),
        );
    std::fs::write(index.root.join("registry.yaml"), listing).unwrap();
    let before = http.requests.load(std::sync::atomic::Ordering::SeqCst);
    t.run(&["install", "remote-tool", "--registry", &index.location()])
        .success();
    assert!(http.requests.load(std::sync::atomic::Ordering::SeqCst) > before);
    assert_eq!(
        receipt(&t, "remote-tool", "0.2.0")["source"]["commit"],
        commits[1].to_string()
    );
    // Over smart HTTP the tag fetch is shallow: the cached repository says so.
    let shallow = std::fs::read_dir(t.cache.join("git-tools"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .any(|p| p.join("shallow").is_file());
    assert!(shallow, "the tags were fetched with depth 1");
}

#[test]
fn a_git_source_tool_asks_for_its_permissions_before_checkout() {
    let t = TestContext::new();
    let (repo, _) = tool_repo_with(&t, "netty", &[("v1.0.0", "1.0.0")], &["network"]);
    let index = git_source_registry(&t, "netty", &repo);
    t.run(&["install", "netty", "--registry", &index.location()])
        .failure(1)
        .stderr_has("netty 1.0.0 asks for network (risk: medium)")
        .stderr_has("pass --yes");
    assert!(!t.tools_dir().exists() || std::fs::read_dir(t.tools_dir()).unwrap().count() == 0);
    t.run(&["install", "netty", "--yes", "--registry", &index.location()])
        .success()
        .stderr_has("Permissions netty 1.0.0: network (risk: medium)");
}

#[test]
fn update_never_moves_a_tool_to_an_older_version() {
    // The newest install is a pre-release asked for exactly; `latest`
    // resolves to an older stable, which must not replace it.
    let t = TestContext::new();
    t.run(&["install", "fs-read@2.0.0-rc.1"]).success();
    let before = snapshot(&t.home);
    let dry = t.run(&["update", "--dry-run"]);
    dry.success();
    assert_eq!(dry.stdout, "");
    t.run(&["update"]).success();
    assert_eq!(t.list(), [("fs-read".into(), "2.0.0-rc.1".into())]);
    assert_eq!(snapshot(&t.home), before);
}

#[test]
fn an_http_timeout_too_large_for_a_duration_is_a_usage_error() {
    let t = TestContext::new();
    let server = Server::start();
    let (index, bytes) = http_index(&t, &server, "idx", &["tool"]);
    server.route("/tool.tar.gz", Behaviour::Serve(bytes[0].clone()));
    for value in ["1e30", "nan", "-1"] {
        let run = common::to_run(
            t.command(&["install", "tool", "--registry", &index.location()])
                .env("ORLA_HTTP_TIMEOUT", value)
                .output()
                .unwrap(),
        );
        run.failure(2).stderr_has("ORLA_HTTP_TIMEOUT");
    }
    // A huge but representable timeout works.
    let run = common::to_run(
        t.command(&["install", "tool", "--registry", &index.location()])
            .env("ORLA_HTTP_TIMEOUT", "1e12")
            .output()
            .unwrap(),
    );
    run.success();
}

#[test]
fn http_timeout_that_is_not_seconds_is_a_usage_error_with_a_hint() {
    let t = TestContext::new();
    for value in ["0", "-1", "soon"] {
        let run = common::to_run(
            t.command(&["list"])
                .env("ORLA_HTTP_TIMEOUT", value)
                .output()
                .unwrap(),
        );
        run.failure(2)
            .stderr_has(&format!(
                "ORLA_HTTP_TIMEOUT: '{value}' is not a number of seconds"
            ))
            .stderr_has("hint: set it to a number of seconds above 0");
    }
}

/// ORLA_OFFLINE=yes was taken as "online": only 1 and true counted.
#[test]
fn orla_offline_takes_yes_and_no_and_refuses_anything_else() {
    let t = TestContext::new();
    let install = |value: &str| {
        common::to_run(
            t.command(&[
                "install",
                "sparse-only",
                "--registry",
                "sparse+http://127.0.0.1:9/",
            ])
            .env("ORLA_OFFLINE", value)
            .output()
            .unwrap(),
        )
    };
    for value in ["yes", "YES", "on", "1", "true"] {
        install(value).failure(1).stderr_has("--offline");
    }
    install("maybe")
        .failure(2)
        .stderr_has("ORLA_OFFLINE: 'maybe' is neither yes nor no");
}

/// `--registry http://host/index/` is read as git; when it is a web
/// directory of index files the 404 now points at sparse+.
#[test]
fn an_http_registry_that_is_not_git_hints_at_sparse() {
    let t = TestContext::new();
    let server = Server::start();
    let url = server.url("/index/");
    t.run(&["install", "--registry", &url, "anything"])
        .failure(1)
        .stderr_has(&format!("write sparse+{url}"));
}

/// `--registry compny` with `company` configured was read as a path:
/// "registry location 'compny' does not exist".
#[test]
fn a_misspelt_registry_name_suggests_the_configured_one() {
    let t = TestContext::new();
    std::fs::create_dir_all(&t.home).unwrap();
    std::fs::write(
        t.home.join("config.yaml"),
        "registries:\n  - name: company\n    location: builtin\n",
    )
    .unwrap();
    t.run(&["install", "--registry", "compny", "fs-read"])
        .failure(2)
        .stderr_has("no registry named 'compny' is configured")
        .stderr_has("hint: did you mean 'company'?");
    t.run(&["info", "--registry", "company", "fs-read"])
        .success();
}

/// The file named `name` somewhere under `dir`.
fn find_file(dir: &std::path::Path, name: &str) -> Option<std::path::PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = find_file(&path, name) {
                return Some(found);
            }
        } else if entry.file_name() == name {
            return Some(path);
        }
    }
    None
}

/// `orla info` of a version not installed reads its tool.yaml from the
/// verified archive, which the download cache keeps (a later install makes
/// no request for it); offline and not cached, the rest is still shown.
#[test]
fn info_reads_a_versions_tool_yaml_through_the_download_cache() {
    let t = TestContext::new();
    let server = Server::start();
    let mut index = IndexBuilder::new(&t.dir.path().join("sparse-index"));
    for name in ["alpha", "beta"] {
        index.publish(&PackageBuilder::new(name, "1.0.0"));
    }
    common::index::serve_index(&server, &index.root);
    let location = format!("sparse+{}", server.url("/index/"));
    let offline = t.run(&["info", "alpha", "--offline", "--registry", &location]);
    // Nothing cached yet: offline, the registry itself is unknown.
    offline.failure(1);
    t.run(&["info", "beta", "--registry", &location])
        .success()
        .stdout_has("mode:        simple");
    let archive = "/index/archives/beta/beta-1.0.0.tar.gz";
    let asked = |path: &str| server.log().iter().filter(|(p, _)| p == path).count();
    assert_eq!(asked(archive), 1);
    t.run(&["install", "beta", "--registry", &location])
        .success();
    assert_eq!(asked(archive), 1, "the install used the cached archive");
    // alpha's record is cached (info looked it up), its archive is not.
    t.run(&["info", "alpha", "--registry", &location]).success();
    std::fs::remove_dir_all(t.cache.join("unpacked")).unwrap();
    let run = t.run(&["info", "alpha", "--offline", "--registry", &location]);
    run.success()
        .stdout_has("alpha 1.0.0\n")
        .stdout_has("details:     unavailable (");
    assert!(!run.stdout.contains("mode:"), "{}", run.stdout);
}
