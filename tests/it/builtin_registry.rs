//! The built-in registry is reproducible: every archive under
//! `registry-index/archives/` is exactly what packing its source under
//! `registry-index/packages/<name>/<version>/` gives, and every index record
//! matches its archive's digest and size.
//!
//! The index is maintained with orla itself: add a version's source under
//! `registry-index/packages/NAME/VERSION/`, then
//! `orla tool publish registry-index/packages/NAME/VERSION --index registry-index`
//! (docs/authoring.md); tests/it/tool_publish.rs proves publish reproduces the
//! index byte for byte. `UPDATE_BUILTIN_REGISTRY=1 cargo test --test
//! it builtin_registry::` regenerates everything from the sources at once.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use orla::index::{shard_path, IndexConfig, RegistryEntry, RegistryYaml, VersionRecord};
use orla::package::Package;
use orla::verify::Digest;

fn index_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("registry-index")
}

/// (name, version, source dir), sorted.
fn sources() -> Vec<(String, String, PathBuf)> {
    let mut out = Vec::new();
    for name in std::fs::read_dir(index_dir().join("packages")).unwrap() {
        let name = name.unwrap();
        for version in std::fs::read_dir(name.path()).unwrap() {
            let version = version.unwrap();
            out.push((
                name.file_name().to_string_lossy().into_owned(),
                version.file_name().to_string_lossy().into_owned(),
                version.path(),
            ));
        }
    }
    out.sort_by(|a, b| {
        (&a.0, a.1.parse::<semver::Version>().unwrap())
            .cmp(&(&b.0, b.1.parse::<semver::Version>().unwrap()))
    });
    out
}

/// What the index should contain, derived from the sources.
fn expected() -> (
    BTreeMap<String, Vec<u8>>,
    BTreeMap<String, String>,
    RegistryYaml,
) {
    let config = IndexConfig::default();
    let mut archives = BTreeMap::new();
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    let mut listing = RegistryYaml::default();
    let mut described: BTreeMap<String, (bool, semver::Version)> = BTreeMap::new();
    for (name, version, dir) in sources() {
        let package = Package::load(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        assert_eq!(package.name, name, "{}", dir.display());
        assert_eq!(package.version.to_string(), version, "{}", dir.display());
        let (_, bytes) = orla::package::pack::pack_to_vec(&dir).unwrap();
        let tool = &package.tool;
        let record = VersionRecord {
            name: name.clone(),
            version: package.version.clone(),
            blake3: Digest::of(&bytes),
            size: bytes.len() as u64,
            archive: None,
            sha256: None,
            yanked: false,
            description: package.description().to_string(),
            keywords: tool.keywords.clone(),
            permissions: tool.permissions.to_vec(),
        };
        let shard = files.entry(shard_path(&name)).or_default();
        shard.push_str(&record.to_line());
        shard.push('\n');
        archives.insert(config.archive_for(&name, &version), bytes);
        // The version `latest` selects (newest stable, else newest
        // pre-release) describes the tool in registry.yaml, as publish does.
        let rank = (package.version.pre.is_empty(), package.version.clone());
        if described.get(&name).is_some_and(|best| *best > rank) {
            continue;
        }
        described.insert(name.clone(), rank);
        listing.tools.retain(|t| t.name != name);
        listing.tools.push(RegistryEntry {
            name: name.clone(),
            description: package.description().to_string(),
            // As `orla tool publish` does: repository, else homepage, else
            // the directory holding the tool's archives.
            repository: tool
                .repository
                .clone()
                .or_else(|| tool.homepage.clone())
                .or_else(|| Some(format!("archives/{name}"))),
            maintainer: tool.author.clone(),
            keywords: tool.keywords.clone(),
        });
    }
    files.insert("config.json".into(), config.to_json());
    (archives, files, listing)
}

#[test]
fn builtin_registry_is_reproducible_from_its_sources() {
    let root = index_dir();
    let (archives, files, listing) = expected();
    if std::env::var_os("UPDATE_BUILTIN_REGISTRY").is_some() {
        for (rel, bytes) in &archives {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
        for (rel, text) in &files {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        std::fs::write(root.join("registry.yaml"), listing.to_yaml()).unwrap();
    }
    for (rel, bytes) in &archives {
        let on_disk = std::fs::read(root.join(rel)).unwrap_or_default();
        assert!(
            on_disk == *bytes,
            "{rel} differs from a fresh pack of its source; run UPDATE_BUILTIN_REGISTRY=1 cargo test --test it builtin_registry::"
        );
    }
    for (rel, text) in &files {
        assert_eq!(
            &std::fs::read_to_string(root.join(rel)).unwrap_or_default(),
            text,
            "{rel} is stale"
        );
    }
    let on_disk = RegistryYaml::parse(&std::fs::read(root.join("registry.yaml")).unwrap()).unwrap();
    assert_eq!(on_disk, listing, "registry.yaml is stale");
}

#[test]
fn every_record_matches_its_archive() {
    let root = index_dir();
    let registry = orla::index::Registry::open(&orla::index::RegistryLocation::Builtin).unwrap();
    let listing = registry.listing().unwrap();
    assert!(listing.tools.len() >= 5);
    for tool in &listing.tools {
        for record in registry.versions(&tool.name).unwrap() {
            let rel = registry
                .config
                .archive_for(&record.name, &record.version.to_string());
            let bytes = std::fs::read(root.join(&rel)).unwrap();
            assert_eq!(Digest::of(&bytes), record.blake3, "{rel}");
            assert_eq!(bytes.len() as u64, record.size, "{rel}");
            // The binary embeds the same bytes.
            assert_eq!(
                orla::index::builtin::file(&rel),
                Some(bytes.as_slice()),
                "{rel}"
            );
        }
    }
}

#[test]
fn packing_is_deterministic_across_runs() {
    let (_, _, dir) = sources().into_iter().next().unwrap();
    let a = orla::package::pack::pack_to_vec(&dir).unwrap().1;
    let b = orla::package::pack::pack_to_vec(&dir).unwrap().1;
    assert_eq!(a, b);
}
