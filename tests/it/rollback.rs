//! Rollback protection for git indexes: orla remembers the last
//! commit it fetched per registry and requires every later fetch to be a
//! fast-forward of it. A rewound or force-pushed index is refused, the
//! cached clone stays at the last commit seen, and `--allow-rollback`
//! accepts a deliberate rewrite once.

use crate::common;

use std::path::{Path, PathBuf};

use common::{snapshot, IndexBuilder, PackageBuilder, TestContext};

/// A bare index repository, written through a working clone.
struct GitIndex {
    bare: PathBuf,
    work: git2::Repository,
    index: IndexBuilder,
}

impl GitIndex {
    fn new(t: &TestContext) -> GitIndex {
        let bare = t.dir.path().join("index.git");
        git2::Repository::init_bare(&bare)
            .unwrap()
            .set_head("refs/heads/main")
            .unwrap();
        let work_dir = t.dir.path().join("index-work");
        let index = IndexBuilder::new(&work_dir);
        let work = git2::Repository::init(&work_dir).unwrap();
        GitIndex { bare, work, index }
    }

    fn url(&self) -> String {
        format!("file://{}", self.bare.display())
    }

    /// Commits the working tree on top of `parent` (or of main) and pushes
    /// it as main, forcing when asked.
    fn commit(&self, message: &str, parent: Option<git2::Oid>) -> git2::Oid {
        let repo = &self.work;
        let parent = parent.or_else(|| repo.refname_to_id("refs/heads/main").ok());
        let oid = common::git::commit_all(repo, message, None, parent.as_slice());
        repo.reference("refs/heads/main", oid, true, "test")
            .unwrap();
        common::git::push_to_bare(repo, &self.bare, "main");
        oid
    }
}

/// ORLA_HOME and the cache, less git's FETCH_HEAD bookkeeping (the fetch
/// itself happened; what matters is that nothing orla reads changed).
fn state(t: &TestContext) -> impl PartialEq + std::fmt::Debug {
    let mut cache = snapshot(&t.cache);
    cache.retain(|k, _| !k.ends_with("FETCH_HEAD"));
    (snapshot(&t.home), cache)
}

/// The commit the cached clone of the registry reads.
fn cached_commit(cache: &Path) -> git2::Oid {
    let registries = cache.join("registries");
    let clone = std::fs::read_dir(&registries)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.is_dir())
        .unwrap();
    git2::Repository::open_bare(clone)
        .unwrap()
        .refname_to_id("refs/remotes/origin/HEAD")
        .unwrap()
}

#[test]
fn a_rewound_or_force_pushed_index_is_refused() {
    let t = TestContext::new();
    let mut g = GitIndex::new(&t);
    g.index.publish(&PackageBuilder::new("alpha", "1.0.0"));
    let first = g.commit("alpha 1.0.0", None);
    g.index.publish(&PackageBuilder::new("alpha", "1.1.0"));
    let second = g.commit("alpha 1.1.0", None);
    let url = g.url();

    t.run(&["install", "alpha", "--registry", &url, "--refresh"])
        .success();
    assert_eq!(t.list(), [("alpha".to_string(), "1.1.0".to_string())]);
    assert_eq!(cached_commit(&t.cache), second);

    // A fast-forward is accepted without any flag.
    g.index.publish(&PackageBuilder::new("alpha", "1.2.0"));
    let third = g.commit("alpha 1.2.0", None);
    t.run(&["install", "alpha@1.2.0", "--registry", &url, "--refresh"])
        .success();
    assert_eq!(cached_commit(&t.cache), third);

    // Rewind main to the first commit: the index "forgets" 1.1.0 and 1.2.0.
    let mut remote = g
        .work
        .remote_anonymous(&g.bare.display().to_string())
        .unwrap();
    g.work
        .reference("refs/heads/old", first, true, "test")
        .unwrap();
    remote
        .push(&["+refs/heads/old:refs/heads/main"], None)
        .unwrap();
    let before = state(&t);
    let run = t.run(&["install", "alpha@1.0.0", "--registry", &url, "--refresh"]);
    run.failure(1)
        .stderr_has(&format!(
            "error: registry {url} went back in time: its history no longer contains commit {third}"
        ))
        .stderr_has("hint: a rewound or force-pushed index")
        .stderr_has("--allow-rollback");
    assert_eq!(state(&t), before);
    assert_eq!(
        cached_commit(&t.cache),
        third,
        "the clone kept the last good commit"
    );
    // And it stays refused: the next fetch sees the same rewind.
    t.run(&["install", "alpha@1.0.0", "--registry", &url, "--refresh"])
        .failure(1)
        .stderr_has("went back in time");

    // A force-pushed, diverging history (a forged commit on an old parent).
    std::fs::write(g.index.root.join("forged"), "x").unwrap();
    let forged = g.commit("forged", Some(second));
    let run = t.run(&["install", "alpha@1.0.0", "--registry", &url, "--refresh"]);
    run.failure(1).stderr_has("went back in time");
    assert!(run.stderr.contains(&forged.to_string()), "{}", run.stderr);
    assert_eq!(cached_commit(&t.cache), third);

    // Accepted deliberately, once.
    t.run(&[
        "install",
        "alpha@1.0.0",
        "--registry",
        &url,
        "--refresh",
        "--allow-rollback",
    ])
    .success()
    .stderr_has("was rewound or rewritten")
    .stderr_has("accepting it because of --allow-rollback");
    assert_eq!(cached_commit(&t.cache), forged);
    // From then on, fast-forwards of the new history need no flag.
    std::fs::write(g.index.root.join("more"), "y").unwrap();
    let next = g.commit("more", None);
    t.run(&["install", "alpha@1.1.0", "--registry", &url, "--refresh"])
        .success();
    assert_eq!(cached_commit(&t.cache), next);
}
