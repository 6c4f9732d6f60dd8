//! Hostile and broken registry indexes, and a download cache that is never
//! trusted blindly. Every refusal is one clear error, exit 1, and
//! ORLA_HOME and the cache exactly as they were.

use crate::common;

use common::server::{Behaviour, Server};
use common::{snapshot, IndexBuilder, PackageBuilder, TestContext};
use orla::index::{shard_path, RegistryEntry, RegistryYaml};
use orla::verify::Digest;

/// A root with `good` installed from an HTTP archive (so the cache holds
/// one), and an index that also publishes `evil 1.0.0` over HTTP.
struct Setup {
    t: TestContext,
    index: IndexBuilder,
    server: Server,
    evil_bytes: Vec<u8>,
}

fn setup() -> Setup {
    let t = TestContext::new();
    let server = Server::start();
    let mut index = IndexBuilder::new(&t.dir.path().join("index"));
    for name in ["good", "evil"] {
        index.publish(&PackageBuilder::new(name, "1.0.0"));
        let bytes = std::fs::read(
            index
                .root
                .join(format!("archives/{name}/{name}-1.0.0.tar.gz")),
        )
        .unwrap();
        server.route(&format!("/{name}.tar.gz"), Behaviour::Serve(bytes));
        let url = server.url(&format!("/{name}.tar.gz"));
        index.edit_records(name, |r| r.archive = Some(url.clone()));
    }
    t.run(&["install", "good", "--registry", &index.location()])
        .success();
    let evil_bytes = std::fs::read(index.root.join("archives/evil/evil-1.0.0.tar.gz")).unwrap();
    Setup {
        t,
        index,
        server,
        evil_bytes,
    }
}

impl Setup {
    #[track_caller]
    fn refused(&self, case: &str, message: &str) {
        let before = (snapshot(&self.t.home), snapshot(&self.t.cache));
        let run = self.t.run(&[
            "install",
            "evil",
            "--yes",
            "--registry",
            &self.index.location(),
        ]);
        run.failure(1).stderr_has(message);
        assert_eq!(
            run.stderr
                .lines()
                .filter(|l| l.starts_with("error:"))
                .count(),
            1,
            "{case}\n{}",
            run.stderr
        );
        assert_eq!(
            (snapshot(&self.t.home), snapshot(&self.t.cache)),
            before,
            "{case}: something changed on disk"
        );
    }

    fn shard(&self) -> std::path::PathBuf {
        self.index.root.join(shard_path("evil"))
    }

    fn write_shard(&self, text: &str) {
        std::fs::write(self.shard(), text).unwrap();
    }

    fn line(&self) -> String {
        std::fs::read_to_string(self.shard())
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_string()
    }
}

#[test]
fn digest_and_size_mismatches_are_refused() {
    let s = setup();
    let good = s.line();
    s.index
        .edit_records("evil", |r| r.blake3 = Digest::of(b"something else"));
    s.refused("digest", "evil 1.0.0: digest mismatch: expected blake3");
    s.write_shard(&good);
    s.index.edit_records("evil", |r| r.size -= 1);
    s.refused("short", "evil 1.0.0: size mismatch: expected");
    s.write_shard(&good);
    s.index.edit_records("evil", |r| r.size += 100);
    s.refused("long", "evil 1.0.0: size mismatch: expected");
    // A server that sends more than the record allows is cut off.
    s.write_shard(&good);
    let mut longer = s.evil_bytes.clone();
    longer.extend_from_slice(&[0u8; 4096]);
    s.server.route("/evil.tar.gz", Behaviour::Serve(longer));
    s.refused("overlong body", "evil 1.0.0: size mismatch: expected");
    // A server that cuts the body short.
    let n = s.evil_bytes.len() / 2;
    s.server
        .route("/evil.tar.gz", Behaviour::Truncate(s.evil_bytes.clone(), n));
    s.refused("truncated body", "evil");
    s.server.route("/evil.tar.gz", Behaviour::Status(500));
    s.refused("http 500", "HTTP 500");
    // Nothing of evil reached the cache along the way.
    assert!(!snapshot(&s.t.cache)
        .keys()
        .any(|k| k.contains(&Digest::of(&s.evil_bytes).to_hex())));
}

/// A record may give a SHA-256 besides the BLAKE3 (for mirrors and tools
/// that speak only SHA-256); when it does, it is checked in the same pass.
#[test]
fn a_sha256_in_the_record_is_checked() {
    use sha2::Digest as _;
    let s = setup();
    s.index
        .edit_records("evil", |r| r.sha256 = Some("ab".repeat(32)));
    s.refused("wrong sha256", "evil 1.0.0: sha256 mismatch: expected abab");
    let right: String = sha2::Sha256::digest(&s.evil_bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    s.index
        .edit_records("evil", |r| r.sha256 = Some(right.clone()));
    s.t.run(&["install", "evil", "--registry", &s.index.location()])
        .success();
}

#[test]
fn malformed_records_are_refused() {
    let s = setup();
    let good = s.line();
    let digest = Digest::of(&s.evil_bytes).to_hex();
    let size = s.evil_bytes.len();
    let cases: Vec<(&str, String, &str)> = vec![
        ("not json", "{not json".into(), "line 1"),
        ("not utf-8", "\u{fffd}".into(), "line 1"),
        (
            "missing digest",
            r#"{"name":"evil","version":"1.0.0","size":1}"#.into(),
            "missing field `blake3`",
        ),
        (
            "bad digest",
            format!(
                r#"{{"name":"evil","version":"1.0.0","blake3":"{}","size":{size}}}"#,
                "Z".repeat(64)
            ),
            "is not a BLAKE3 digest",
        ),
        (
            "short digest",
            format!(
                r#"{{"name":"evil","version":"1.0.0","blake3":"{}","size":{size}}}"#,
                &digest[..10]
            ),
            "is not a BLAKE3 digest",
        ),
        (
            "bad version",
            format!(
                r#"{{"name":"evil","version":"../../1.0.0","blake3":"{digest}","size":{size}}}"#
            ),
            "line 1",
        ),
        (
            "negative size",
            format!(r#"{{"name":"evil","version":"1.0.0","blake3":"{digest}","size":-1}}"#),
            "line 1",
        ),
        (
            "bad sha256",
            format!(
                r#"{{"name":"evil","version":"1.0.0","blake3":"{digest}","size":{size},"sha256":"xyz"}}"#
            ),
            "sha256 is not 64 hex characters",
        ),
        (
            "duplicate version",
            format!("{good}\n{good}\n"),
            "line 2: version 1.0.0 appears twice",
        ),
        (
            "duplicate version, other build metadata",
            format!("{good}\n{}\n", good.replace("\"1.0.0\"", "\"1.0.0+b\"")),
            "appears twice",
        ),
        (
            "record for another tool",
            good.replace("\"evil\"", "\"good\""),
            "a record for 'good' in the file of 'evil'",
        ),
        (
            "record whose name is a path",
            good.replace("\"name\":\"evil\"", "\"name\":\"../evil\""),
            "a record for '../evil'",
        ),
    ];
    for (case, text, message) in cases {
        s.write_shard(&text);
        if case == "not utf-8" {
            std::fs::write(s.shard(), b"\xff\xfe{}\n").unwrap();
            s.refused(case, "is not UTF-8");
            continue;
        }
        s.refused(case, message);
        s.refused(case, "is malformed");
    }
}

#[test]
fn unknown_or_broken_config_is_refused() {
    let s = setup();
    let config = s.index.root.join("config.json");
    std::fs::write(&config, r#"{"format": 99}"#).unwrap();
    s.refused(
        "format 99",
        "uses index format 99, but this orla reads format 1",
    );
    let run =
        s.t.run(&["install", "evil", "--registry", &s.index.location()]);
    run.stderr_has("hint: upgrade orla");
    std::fs::write(&config, "{").unwrap();
    s.refused("broken json", "config.json is malformed");
    std::fs::write(&config, r#"{"format": "one"}"#).unwrap();
    s.refused("wrong type", "config.json is malformed");
    std::fs::remove_file(&config).unwrap();
    s.refused("missing", "has no config.json");
}

#[test]
fn archives_outside_the_index_are_refused() {
    let s = setup();
    // A real archive outside the index, with a matching record: still refused.
    let outside = s.t.dir.path().join("outside.tar.gz");
    std::fs::write(&outside, &s.evil_bytes).unwrap();
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "file url outside",
            format!("file://{}", outside.display()),
            "is a local file outside the index",
        ),
        (
            "file url to /etc",
            "file:///etc/passwd".into(),
            "is a local file outside the index",
        ),
        (
            "file url climbing out",
            format!("file://{}/../outside.tar.gz", s.index.root.display()),
            "is a local file outside the index",
        ),
        (
            "absolute path",
            outside.display().to_string(),
            "is outside the index",
        ),
        (
            "relative climb",
            "../outside.tar.gz".into(),
            "is outside the index",
        ),
        ("device", "file:///dev/zero".into(), "outside the index"),
        (
            "other scheme",
            "ftp://example.com/evil.tar.gz".into(),
            "uses a scheme orla does not fetch",
        ),
    ];
    for (case, archive, message) in cases {
        let archive2 = archive.clone();
        s.index
            .edit_records("evil", move |r| r.archive = Some(archive2.clone()));
        s.refused(case, message);
    }
    // A symbolic link inside the index that leads out of it.
    std::os::unix::fs::symlink(&outside, s.index.root.join("archives/link.tar.gz")).unwrap();
    s.index
        .edit_records("evil", |r| r.archive = Some("archives/link.tar.gz".into()));
    s.refused(
        "symlink out",
        "leads outside the index through a symbolic link",
    );
    // A file:// URL inside the index is fine.
    let inside = format!(
        "file://{}",
        s.index
            .root
            .canonicalize()
            .unwrap()
            .join("archives/evil/evil-1.0.0.tar.gz")
            .display()
    );
    s.index
        .edit_records("evil", |r| r.archive = Some(inside.clone()));
    s.t.run(&["install", "evil", "--registry", &s.index.location()])
        .success();
}

#[test]
fn declared_permissions_must_match_the_archive() {
    let s = setup();
    s.index
        .edit_records("evil", |r| r.permissions = vec!["filesystem:read".into()]);
    s.refused(
        "permissions",
        "the registry declares permissions [filesystem:read] but its tool.yaml asks for []",
    );
}

/// The cache is keyed by digest, and every use re-verifies it: a cached
/// package whose files changed (a hard link shares them with the installed
/// copy, so an edit in place reaches the cache too), went missing or whose
/// record is damaged is thrown away, fetched again, and the cache repaired.
#[test]
fn a_corrupted_cache_entry_is_refetched_and_repaired() {
    let s = setup();
    assert_eq!(s.server.requests(), 1);
    let good = std::fs::read(s.index.root.join("archives/good/good-1.0.0.tar.gz")).unwrap();
    let entry = s.t.cache.join(format!("unpacked/{}", Digest::of(&good)));
    let record = entry.join("files.json");
    assert!(record.is_file(), "the verified unpack is cached");
    // Linked, not copied: the archive is not kept beside it.
    assert!(!s.t.cache.join("archives").exists());
    let cached_yaml = || {
        snapshot(&entry)
            .into_keys()
            .find(|k| k.ends_with("/tool.yaml") || k == "tree/tool.yaml")
            .map(|k| entry.join(k))
            .expect("tool.yaml is cached")
    };
    // The package's files; its receipt records a new install time.
    let files = || {
        let mut s = snapshot(&s.t.tools_dir());
        s.retain(|k, _| !k.ends_with(".orla-receipt.json"));
        s
    };
    let installed = files();

    type Corrupt = Box<dyn Fn(&std::path::Path)>;
    let corruptions: Vec<(&str, Corrupt)> = vec![
        (
            "edited in place",
            Box::new(|p| std::fs::write(p, "name: good\nversion: 6.6.6\n").unwrap()),
        ),
        ("emptied", Box::new(|p| std::fs::write(p, "").unwrap())),
        ("removed", Box::new(|p| std::fs::remove_file(p).unwrap())),
        (
            "made executable",
            Box::new(|p| {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap()
            }),
        ),
        (
            "record damaged",
            Box::new(|p| {
                let record = p.ancestors().find(|a| a.ends_with("tree")).unwrap();
                std::fs::write(record.with_file_name("files.json"), "{").unwrap()
            }),
        ),
        // What a power cut may leave of an entry (its record is not
        // flushed).
        (
            "record missing",
            Box::new(|p| {
                let record = p.ancestors().find(|a| a.ends_with("tree")).unwrap();
                std::fs::remove_file(record.with_file_name("files.json")).unwrap()
            }),
        ),
    ];
    for (n, (case, corrupt)) in corruptions.into_iter().enumerate() {
        corrupt(&cached_yaml());
        s.t.run(&[
            "install",
            "good",
            "--force",
            "--registry",
            &s.index.location(),
        ])
        .success()
        .stderr_has("the cached copy of good 1.0.0 is damaged");
        assert_eq!(s.server.requests(), 2 + n, "{case}: fetched again");
        assert!(record.is_file(), "{case}: repaired");
        assert_eq!(files(), installed, "{case}");
        s.t.run(&["verify"]).success();
    }
    // And a sound cache entry is used without a request.
    s.t.run(&[
        "install",
        "good",
        "--force",
        "--registry",
        &s.index.location(),
    ])
    .success();
    assert_eq!(s.server.requests(), 7);
    assert_eq!(files(), installed);
    s.t.run(&["verify"]).success();
}

/// A remote git registry (served over HTTP) may not make orla fetch a
/// repository from this machine: an RFC 3 git-source entry whose
/// `repository` is `file://` or a path is refused, while a registry on this
/// machine (a directory, or a git repository by `file://` URL or path) may
/// name one.
#[test]
fn a_remote_registry_cannot_name_a_local_repository() {
    let t = TestContext::new();
    let Some(http) = common::git::GitHttp::start(t.dir.path()) else {
        common::skip_unless_strict("git http-backend is not installed");
        return;
    };
    // A "private" repository on this machine, with a tagged tool in it.
    let private = t.dir.path().join("private-repo");
    let repo = git2::Repository::init(&private).unwrap();
    let src = PackageBuilder::new("evil", "1.0.0").write(&t.dir.path().join("src"));
    for entry in ["tool.yaml", "README.md", "bin"] {
        let from = src.join(entry);
        let to = private.join(entry);
        if from.is_dir() {
            std::fs::create_dir_all(&to).unwrap();
            for f in std::fs::read_dir(&from).unwrap().flatten() {
                std::fs::copy(f.path(), to.join(f.file_name())).unwrap();
            }
        } else {
            std::fs::copy(&from, &to).unwrap();
        }
    }
    let oid = commit(&repo, None);
    repo.tag_lightweight("v1.0.0", &repo.find_object(oid, None).unwrap(), true)
        .unwrap();

    for repository in [
        format!("file://{}", private.display()),
        format!("git+file://{}", private.display()),
        private.display().to_string(),
        "ext::sh -c touch% /tmp/orla-pwned".to_string(),
    ] {
        // The registry: a bare git repository with only a registry.yaml.
        let work = t.dir.path().join(format!("reg-work-{}", repository.len()));
        let index = IndexBuilder::new(&work);
        let listing = RegistryYaml {
            version: 1,
            registry_url: None,
            tools: vec![RegistryEntry {
                name: "evil".into(),
                description: "d".into(),
                repository: Some(repository.clone()),
                maintainer: None,
                keywords: vec![],
            }],
        };
        std::fs::write(index.root.join("registry.yaml"), listing.to_yaml()).unwrap();
        let bare = t.dir.path().join(format!("reg-{}.git", repository.len()));
        let wrepo = git2::Repository::init(&work).unwrap();
        commit(&wrepo, None);
        let local_url = common::git::push_to_bare(&wrepo, &bare, "master");
        let url = format!("{}/reg-{}.git", http.addr, repository.len());
        let before = snapshot(&t.home);
        t.run(&["install", "evil", "--registry", &url])
            .failure(1)
            .stderr_has("the repository '")
            .stderr_has(if repository.starts_with("ext::") {
                "of evil uses a git transport orla does not allow"
            } else {
                "of evil is on this machine, which only a registry on this machine may name"
            });
        assert_eq!(snapshot(&t.home), before, "{repository}");
        t.run(&["info", "evil", "--registry", &url]).failure(1);
        // The same entry in a registry on this machine is the user's own.
        if !repository.starts_with("ext::") {
            for location in [index.location(), local_url] {
                t.run(&["install", "evil", "--registry", &location])
                    .success();
                t.run(&["uninstall", "evil"]).success();
            }
        }
    }
    assert!(!std::path::Path::new("/tmp/orla-pwned").exists());
}

fn commit(repo: &git2::Repository, parent: Option<git2::Oid>) -> git2::Oid {
    common::git::commit_all(repo, "c", Some("HEAD"), parent.as_slice())
}

/// A sparse HTTP index is as remote as a git one: it may not name local
/// archives or repositories, its records are parsed as strictly, and its
/// relative archive paths stay on its own server.
#[test]
fn hostile_sparse_index_is_refused() {
    let t = TestContext::new();
    let server = Server::start();
    let mut index = IndexBuilder::new(&t.dir.path().join("sparse-src"));
    index.publish(&PackageBuilder::new("evil", "1.0.0"));
    let bytes = std::fs::read(index.root.join("archives/evil/evil-1.0.0.tar.gz")).unwrap();
    let outside = t.dir.path().join("outside.tar.gz");
    std::fs::write(&outside, &bytes).unwrap();
    let record = std::fs::read_to_string(index.root.join(shard_path("evil"))).unwrap();
    let config = std::fs::read(index.root.join("config.json")).unwrap();
    server.route("/config.json", Behaviour::Serve(config));
    server.route(
        "/archives/evil/evil-1.0.0.tar.gz",
        Behaviour::Serve(bytes.clone()),
    );
    let url = format!("sparse+{}/", server.addr);
    let shard = format!("/{}", shard_path("evil"));
    let cases: Vec<(String, &str)> = vec![
        (
            record.replace(
                "\"size\"",
                &format!("\"archive\":\"file://{}\",\"size\"", outside.display()),
            ),
            "is a local file, which only a local directory registry may name",
        ),
        (
            record.replace("\"size\"", "\"archive\":\"../../etc/passwd\",\"size\""),
            "is outside the index",
        ),
        (
            record.replace("\"evil\"", "\"good\""),
            "a record for 'good' in the file of 'evil'",
        ),
        (format!("{record}{record}"), "appears twice"),
        ("{not json\n".to_string(), "is malformed"),
    ];
    for (text, message) in cases {
        server.route(&shard, Behaviour::Serve(text.into_bytes()));
        let before = snapshot(&t.home);
        t.run(&["install", "evil", "--registry", &url, "--refresh"])
            .failure(1)
            .stderr_has(message);
        assert_eq!(snapshot(&t.home), before, "{message}");
    }
    // The honest record installs, from the index's own server.
    server.route(&shard, Behaviour::Serve(record.into_bytes()));
    t.run(&["install", "evil", "--registry", &url, "--refresh"])
        .success();
    // An index file without end is cut off, not buffered (and, as when the
    // server is unreachable, the cached copy is used with a warning).
    let mut huge = br#"{"format": 1, "pad": ""#.to_vec();
    huge.extend(std::iter::repeat_n(b'x', 17 << 20));
    huge.extend_from_slice(br#""}"#);
    server.route(&shard, Behaviour::Serve(huge));
    t.run(&[
        "install",
        "evil",
        "--force",
        "--registry",
        &url,
        "--refresh",
    ])
    .success()
    .stderr_has("larger than 16 MiB, more than any index file should be); using the cached copy");
    server.route(
        "/config.json",
        Behaviour::Serve(br#"{"format": 99}"#.to_vec()),
    );
    t.run(&[
        "install",
        "evil@1.0.0",
        "--force",
        "--registry",
        &url,
        "--refresh",
    ])
    .failure(1)
    .stderr_has("uses index format 99");
}

/// A git registry that hosts its archives: a blob larger than the record
/// says is refused before it is loaded into memory.
#[test]
fn a_git_hosted_archive_larger_than_its_record_is_not_loaded() {
    let t = TestContext::new();
    let work = t.dir.path().join("git-index-work");
    let mut index = IndexBuilder::new(&work);
    index.publish(&PackageBuilder::new("evil", "1.0.0"));
    index.edit_records("evil", |r| r.size -= 100);
    let repo = git2::Repository::init(&work).unwrap();
    commit(&repo, None);
    let url = common::git::push_to_bare(&repo, &t.dir.path().join("git-index.git"), "master");
    let before = snapshot(&t.home);
    t.run(&["install", "evil", "--registry", &url])
        .failure(1)
        .stderr_has("cannot read archives/evil/evil-1.0.0.tar.gz")
        .stderr_has("bytes, more than the");
    assert_eq!(snapshot(&t.home), before);
}

#[test]
fn a_directory_index_file_larger_than_an_index_file_may_be_is_not_loaded() {
    // The same 16 MiB cap as sparse and git indexes: a tool file that is
    // endless (a link to /dev/zero) or huge must not be read whole.
    let s = setup();
    let path = s.index.root.join(shard_path("evil"));
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&"\n".repeat(17 << 20));
    std::fs::write(&path, text).unwrap();
    s.refused("huge tool file", "larger than 16 MiB");
}

#[test]
fn a_registry_yaml_name_that_is_not_a_tool_name_cannot_crash_search() {
    // shard_path slices names by bytes: 'aé-x' once panicked there.
    let t = TestContext::new();
    let index = IndexBuilder::new(&t.dir.path().join("index"));
    let listing = RegistryYaml {
        tools: vec![
            RegistryEntry {
                name: "aé-x".into(),
                description: "not a valid name".into(),
                ..Default::default()
            },
            RegistryEntry {
                name: "../../x".into(),
                description: "not a valid name".into(),
                ..Default::default()
            },
        ],
        ..Default::default()
    };
    std::fs::write(index.root.join("registry.yaml"), listing.to_yaml()).unwrap();
    let run = t.run(&["search", "a", "--registry", &index.location()]);
    run.success();
    assert!(!run.stdout.contains("aé-x"), "{}", run.stdout);
    t.run(&["search", "x", "--json", "--registry", &index.location()])
        .success()
        .stdout_has("[]");
}

/// Every character a terminal would act on rather than show, or that
/// reorders what it shows.
fn raw_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| {
            (c.is_control() && *c != '\n' && *c != '\t')
                || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}

/// Regression: descriptions and keywords from a registry or a tool.yaml,
/// and hostile names in errors, reached the terminal raw, so a package could
/// erase a line and draw a fake "Installed" line over an error.
#[test]
fn terminal_escapes_from_registries_and_packages_are_shown_not_obeyed() {
    let t = TestContext::new();
    let mut index = IndexBuilder::new(&t.dir.path().join("index"));
    let fake = "\x1b[2K\r\x1b[1;32m   Installed\x1b[0m evil 1.0.0\n\u{9b}31m\u{202e}gnp.exe";
    let yaml_fake = "\\e[2K\\r\\e[1;32m   Installed\\e[0m evil 1.0.0\\n\\u009b31m\\u202egnp.exe";
    let pkg = PackageBuilder::new("evil", "1.0.0");
    let src = pkg.write(&t.dir.path().join("sources"));
    std::fs::write(
        src.join("tool.yaml"),
        format!(
            "name: evil\nversion: 1.0.0\ndescription: \"{yaml_fake}\"\nentrypoint: bin/evil\nkeywords: [\"{yaml_fake}\"]\n"
        ),
    )
    .unwrap();
    let (_, bytes) = orla::package::pack::pack_to_vec(&src).unwrap();
    index.publish_bytes(&pkg, &bytes, "archives/evil/evil-1.0.0.tar.gz");
    index.edit_records("evil", |r| {
        r.description = fake.to_string();
        r.keywords = vec![fake.to_string()];
    });
    let listing = RegistryYaml {
        tools: vec![RegistryEntry {
            name: "evil".into(),
            description: fake.into(),
            keywords: vec![fake.into()],
            ..Default::default()
        }],
        ..Default::default()
    };
    std::fs::write(index.root.join("registry.yaml"), listing.to_yaml()).unwrap();
    let registry = index.location();

    let mut runs = vec![
        (
            "search",
            t.run(&["search", "evil", "--registry", &registry]),
        ),
        ("info", t.run(&["info", "evil", "--registry", &registry])),
        (
            "install",
            t.run(&["install", "evil", "--yes", "--registry", &registry]),
        ),
    ];
    runs[2].1.success();
    runs.push(("list", t.run(&["list"])));
    runs.push(("verify", t.run(&["verify"])));
    // A hostile name on the command line comes back in an error.
    runs.push((
        "error",
        t.run(&["install", "evil\x1b[2K\rok", "--registry", &registry]),
    ));
    for (what, run) in &runs {
        for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
            assert_eq!(
                raw_controls(text),
                Vec::<char>::new(),
                "{what}: raw control characters on {stream}:\n{text:?}"
            );
        }
    }
    // Shown escaped, on one line, where a person can read them (a table
    // cell reads a line break as a space).
    let shown = "\\u001b[2K\\u000d\\u001b[1;32m   Installed\\u001b[0m evil 1.0.0";
    let after = "\\u009b31m\\u202egnp.exe";
    for (what, line_break) in [("search", " "), ("info", "\\u000a"), ("list", " ")] {
        let run = &runs.iter().find(|(w, _)| *w == what).unwrap().1;
        run.success()
            .stdout_has(&format!("{shown}{line_break}{after}"));
    }
    runs[5].1.failure(2).stderr_has("evil\\u001b[2K\\u000dok");
    // --json keeps the data exact (JSON escapes control characters itself).
    let json = t.run(&["list", "--json"]);
    assert_eq!(json.json()[0]["description"], fake);
}

#[test]
fn registry_names_with_control_characters_are_refused() {
    let t = TestContext::new();
    std::fs::create_dir_all(&t.home).unwrap();
    std::fs::write(
        t.home.join("config.yaml"),
        "registries:\n  \"co\\e[2Kmpany\": ./index\n",
    )
    .unwrap();
    let run = t.run(&["search", "x"]);
    run.failure(1)
        .stderr_has("the name 'co\\u{1b}[2Kmpany' contains a control character");
    assert_eq!(
        raw_controls(&run.stderr),
        Vec::<char>::new(),
        "{:?}",
        run.stderr
    );
}

/// Regression: ORLA_HTTP_TIMEOUT bounded only the gap between two reads, so
/// a server sending one byte every two seconds held an install (and the
/// root's lock) for as long as it liked. A download now has a minimum rate,
/// averaged over each ORLA_HTTP_TIMEOUT window, and an overall deadline.
#[test]
fn a_slow_server_cannot_hold_an_install() {
    let s = setup();
    // Ten bytes a second, forty bytes an answer, for ever.
    s.server.route(
        "/evil.tar.gz",
        Behaviour::Trickle(
            s.evil_bytes.clone(),
            std::time::Duration::from_millis(100),
            40,
        ),
    );
    let before = (snapshot(&s.t.home), snapshot(&s.t.cache));
    let install = |env: &[(&str, &str)]| {
        let mut cmd = s.t.command(&[
            "install",
            "evil",
            "--yes",
            "--registry",
            &s.index.location(),
        ]);
        for (k, v) in env {
            cmd.env(k, v);
        }
        common::to_run(cmd.output().unwrap())
    };
    install(&[
        ("ORLA_HTTP_TIMEOUT", "1"),
        ("ORLA_HTTP_LOW_SPEED_LIMIT", "100"),
    ])
    .failure(1)
    .stderr_has("slower than 100 bytes/s (ORLA_HTTP_LOW_SPEED_LIMIT)");
    install(&[
        ("ORLA_HTTP_TIMEOUT", "5"),
        ("ORLA_HTTP_LOW_SPEED_LIMIT", "0"),
        ("ORLA_HTTP_DEADLINE", "1"),
    ])
    .failure(1)
    .stderr_has("the download took longer than 1 s (ORLA_HTTP_DEADLINE)");
    assert_eq!((snapshot(&s.t.home), snapshot(&s.t.cache)), before);
    for (key, value) in [
        ("ORLA_HTTP_DEADLINE", "soon"),
        ("ORLA_HTTP_LOW_SPEED_LIMIT", "-1"),
    ] {
        install(&[(key, value)])
            .failure(2)
            .stderr_has(&format!("{key}: '{value}' is not a number"));
    }
    s.server.release();
}

/// Everything under `dir` that holds `needle`, as relative paths.
fn files_holding(dir: &std::path::Path, needle: &str) -> Vec<String> {
    snapshot(dir)
        .into_keys()
        .filter(|rel| {
            std::fs::read(dir.join(rel))
                .map(|b| String::from_utf8_lossy(&b).contains(needle))
                .unwrap_or(false)
        })
        .collect()
}

/// Credentials in an archive URL are used to download it, and never
/// written down: receipts, the manifest and orla.lock are read by others
/// and committed to repositories.
#[test]
fn credentials_in_archive_urls_are_not_written_down() {
    let s = setup();
    let url = s
        .server
        .url("/evil.tar.gz")
        .replace("http://", "http://deploy:s3cret-token@");
    s.index
        .edit_records("evil", |r| r.archive = Some(url.clone()));
    s.t.run(&[
        "install",
        "evil",
        "--yes",
        "--registry",
        &s.index.location(),
    ])
    .success();
    let receipt =
        std::fs::read_to_string(s.t.tools_dir().join("evil/1.0.0/.orla-receipt.json")).unwrap();
    assert!(receipt.contains(&s.server.url("/evil.tar.gz")), "{receipt}");
    assert_eq!(files_holding(&s.t.home, "s3cret"), Vec::<String>::new());

    // In a project, orla.lock too.
    let dir = s.t.work.join("proj");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("orla.yaml"),
        format!(
            "registries:\n  - name: team\n    location: {}\ntools:\n",
            s.index.location()
        ),
    )
    .unwrap();
    s.t.run_in(&dir, &["install", "evil", "--yes"]).success();
    let lock = std::fs::read_to_string(dir.join("orla.lock")).unwrap();
    assert!(lock.contains(&s.server.url("/evil.tar.gz")), "{lock}");
    assert_eq!(files_holding(&dir, "s3cret"), Vec::<String>::new());
}

/// A registry's archive server may not bounce orla to another host or port
/// of this machine (a service listening only locally): such a redirect is
/// refused before any request is sent there. A redirect within the same
/// server is followed.
#[test]
fn redirects_to_another_address_of_this_machine_are_refused() {
    let s = setup();
    let local = Server::start();
    local.route("/evil.tar.gz", Behaviour::Serve(s.evil_bytes.clone()));
    for (case, target) in [
        ("other port", local.url("/evil.tar.gz")),
        (
            "localhost",
            local.url("/evil.tar.gz").replace("127.0.0.1", "localhost"),
        ),
    ] {
        s.server
            .route("/bounce.tar.gz", Behaviour::Redirect(target));
        let url = s.server.url("/bounce.tar.gz");
        s.index
            .edit_records("evil", |r| r.archive = Some(url.clone()));
        s.refused(
            case,
            "another address of this machine, which orla does not follow",
        );
    }
    assert_eq!(local.requests(), 0);
    // The same server, another path: followed.
    s.server
        .route("/bounce.tar.gz", Behaviour::Redirect("/evil.tar.gz".into()));
    s.t.run(&[
        "install",
        "evil",
        "--yes",
        "--registry",
        &s.index.location(),
    ])
    .success();
}
