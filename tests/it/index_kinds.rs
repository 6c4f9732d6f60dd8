//! The same scenarios against the three kinds of fast-format index a user
//! can point `--registry` at: a directory, a git repository and a sparse
//! HTTP index (`common::index`). Whatever orla promises about resolution,
//! verification, search and updates holds for each of them alike.

use crate::common;

use common::index::{IndexKind, ServedIndex, INDEX_KINDS};
use common::{snapshot, PackageBuilder, TestContext};

/// Runs `scenario` once per kind, each in a fresh context, naming the kind
/// when it fails.
fn for_each_kind(scenario: impl Fn(&TestContext, &mut ServedIndex)) {
    for kind in INDEX_KINDS {
        let t = TestContext::new();
        let mut index = ServedIndex::new(&t, kind);
        eprintln!("-- {kind:?} index");
        scenario(&t, &mut index);
    }
}

/// `orla` with the index's TTL at zero, so every command sees the index as
/// it is now (a git index is fetched again, sparse files are asked again).
fn run(t: &TestContext, args: &[&str]) -> common::Run {
    common::to_run(
        t.command(args)
            .env("ORLA_REGISTRY_TTL", "0")
            .output()
            .unwrap(),
    )
}

#[test]
fn resolution_follows_the_version_rules_on_every_kind() {
    for_each_kind(|t, index| {
        for version in ["1.0.0", "1.2.0", "1.2.5", "2.0.0-rc.1"] {
            index.publish(&PackageBuilder::new("kind-tool", version));
        }
        index.edit_records("kind-tool", |r| r.yanked = r.version.to_string() == "1.2.5");
        let at = index.location();
        // A range skips the yanked 1.2.5 and the pre-release.
        run(t, &["install", "kind-tool", "--registry", &at]).success();
        assert_eq!(t.list(), [("kind-tool".into(), "1.2.0".into())]);
        // An exact pin installs the yanked version, with a warning.
        run(t, &["install", "kind-tool@1.2.5", "--registry", &at])
            .success()
            .stderr_has("yanked");
        // A pre-release only when asked for.
        run(t, &["install", "kind-tool@2.0.0-rc.1", "--registry", &at]).success();
        let installed: Vec<String> = t.list().into_iter().map(|(_, v)| v).collect();
        assert!(
            installed.contains(&"2.0.0-rc.1".to_string()),
            "{installed:?}"
        );
        // A misspelt name: one line, a suggestion, nothing changed.
        let home = snapshot(&t.home);
        run(t, &["install", "kind-tol", "--registry", &at])
            .failure(1)
            .stderr_has("no tool 'kind-tol'")
            .stderr_has("did you mean 'kind-tool'?");
        assert_eq!(snapshot(&t.home), home);
    });
}

#[test]
fn a_tampered_archive_leaves_nothing_on_every_kind() {
    for_each_kind(|t, index| {
        index.publish(&PackageBuilder::new("steady", "1.0.0"));
        index.publish(&PackageBuilder::new("bent", "0.1.0"));
        run(t, &["install", "steady", "--registry", &index.location()]).success();
        let rel = "archives/bent/bent-0.1.0.tar.gz";
        let mut bytes = std::fs::read(index.index.root.join(rel)).unwrap();
        let last = bytes.len() - 10;
        bytes[last] ^= 0xff;
        index.write(rel, &bytes);
        let home = snapshot(&t.home);
        run(t, &["install", "bent", "--registry", &index.location()])
            .failure(1)
            .stderr_has("bent 0.1.0: digest mismatch: expected blake3");
        assert_eq!(snapshot(&t.home), home);
        assert!(!t.tools_dir().join("bent").exists());
        // No entry in the download cache names the tampered bytes either.
        let bad = blake3::hash(&bytes).to_hex().to_string();
        let cached = snapshot(&t.cache);
        assert!(
            !cached.keys().any(|path| path.contains(&bad)),
            "{:?}",
            cached.keys().collect::<Vec<_>>()
        );
    });
}

#[test]
fn search_info_and_update_see_new_versions_on_every_kind() {
    for_each_kind(|t, index| {
        index.publish(&PackageBuilder::new("grow", "1.0.0"));
        let at = index.location();
        run(t, &["install", "grow", "--registry", &at]).success();
        let found = run(t, &["search", "grow", "--json", "--registry", &at]);
        found.success();
        assert_eq!(found.json()[0]["name"], "grow", "{}", found.stdout);
        // Every kind shows the version, a sparse index too.
        assert_eq!(found.json()[0]["version"], "1.0.0", "{}", found.stdout);
        // A new release appears in info and update moves to it.
        index.publish(&PackageBuilder::new("grow", "1.1.0"));
        run(t, &["info", "grow", "--registry", &at])
            .success()
            .stdout_has("1.1.0");
        run(t, &["update", "grow", "--registry", &at]).success();
        let versions: Vec<String> = t.list().into_iter().map(|(_, v)| v).collect();
        assert!(versions.contains(&"1.1.0".to_string()), "{versions:?}");
        if index.kind == IndexKind::Sparse {
            // A sparse index is read one tool file at a time.
            let paths: Vec<String> = index.server().log().into_iter().map(|(p, _)| p).collect();
            assert!(paths.iter().any(|p| p == "/index/gr/ow/grow"), "{paths:?}");
        }
    });
}
