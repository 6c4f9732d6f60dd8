//! Writing to an index: `orla tool publish` and `orla tool yank`.
//!
//! A publish is one change set: the archive at the place config.json's
//! `archive` template names, one more line in the tool's sharded file, and
//! registry.yaml's entry for the tool. Published bytes never change: the
//! same version with other bytes is refused, and the same bytes again are a
//! no-op, so a publish can be retried safely.
//!
//! Three kinds of index can be written:
//!
//! - a plain directory (the repository's own `registry-index/` is one: it
//!   sits inside orla's repository, and its author commits it with the rest
//!   of the change). Files are written atomically; the version record goes
//!   last, so a reader never sees a record whose archive is missing.
//! - a git working tree (a directory with `.git`): the files are written,
//!   and one commit is made on the checked-out branch holding exactly this
//!   change (HEAD's tree plus these files, whatever else is staged), with
//!   the index updated for those paths.
//! - a bare repository (a path or `file://` URL): the same commit is made
//!   directly in the object database, no working tree needed.
//!
//! Writers on one machine serialise on a lock file (in the git directory,
//! or in orla's cache for a plain directory).
//!
//! `target` parses `--index`, `writer` opens an index and writes a change
//! set into it, `git` makes the commit of a git index.

mod git;
mod target;
mod writer;

pub use target::IndexTarget;
pub use writer::IndexWriter;

/// One file to write, relative to the index root.
pub type Change = (String, Vec<u8>);

use super::{shard_path, IndexConfig, RegistryEntry, RegistryYaml, VersionRecord, INDEX_FORMAT};
use crate::package::validate::escapes;
use crate::package::Package;
use crate::verify::Digest;

#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    #[error("index location '{location}' {reason}")]
    BadLocation { location: String, reason: String },
    #[error("{location} has no config.json, so it is not an orla registry index")]
    NotAnIndex { location: String },
    #[error("{location}: {path} is malformed: {message}")]
    Malformed {
        location: String,
        path: String,
        message: String,
    },
    #[error("{location} uses index format {found}, but this orla writes format {INDEX_FORMAT}")]
    UnknownFormat { location: String, found: u32 },
    #[error("{name} {version} is already published in {location} with different contents (blake3 {existing}, this package {new})")]
    Republish {
        location: String,
        name: String,
        version: String,
        existing: String,
        new: String,
    },
    #[error("{location}: {path} exists but no record names it, and its bytes differ from this package's")]
    StrayArchive { location: String, path: String },
    #[error("{location}: config.json's archive template '{template}' {reason}")]
    ArchiveTemplate {
        location: String,
        template: String,
        reason: &'static str,
    },
    #[error("no version {version} of '{name}' in {location}")]
    NoSuchVersion {
        location: String,
        name: String,
        version: String,
    },
    #[error("'{spec}' is not NAME@VERSION: {reason}")]
    BadSpec { spec: String, reason: String },
    #[error("{location}: cannot {action} {path}: {message}")]
    Io {
        location: String,
        action: &'static str,
        path: String,
        message: String,
    },
    #[error("{location}: git: {message}")]
    Git { location: String, message: String },
}

impl PublishError {
    pub fn hint(&self) -> Option<String> {
        match self {
            PublishError::NotAnIndex { .. } => Some("pass --init to create a new index there".into()),
            PublishError::Republish { .. } => Some(
                "a published version never changes; bump `version` in tool.yaml and publish again".into(),
            ),
            PublishError::StrayArchive { .. } => Some(
                "remove the stray archive, or bump the version".into(),
            ),
            PublishError::ArchiveTemplate { .. } => Some(
                "publish places archives inside the index; use a relative template such as archives/{name}/{name}-{version}.tar.gz".into(),
            ),
            PublishError::BadLocation { .. } => Some(
                "--index takes an index directory, a git working tree, or a bare repository (path or file:// URL); for a remote index, clone it, publish into the clone and push".into(),
            ),
            PublishError::BadSpec { .. } => Some("name the version exactly, e.g. fs-read@1.2.1".into()),
            PublishError::UnknownFormat { .. } => Some("upgrade orla to write this index".into()),
            PublishError::Malformed { .. } => Some(
                "fix the file (docs/registry-format.md) or restore it from the index's history, then run the command again".into(),
            ),
            PublishError::NoSuchVersion { name, location, .. } => Some(format!(
                "`orla info {name} --registry {location}` lists the published versions"
            )),
            PublishError::Io { .. } => Some(
                "check that the index directory exists and that you may write to it".into(),
            ),
            PublishError::Git { .. } => Some(
                "check the index's git repository (`git status` in it), then run the command again".into(),
            ),
        }
    }
}

/// What a publish did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Published {
    pub record: VersionRecord,
    /// Where the archive went, relative to the index.
    pub archive: String,
    /// False when the same bytes were already published.
    pub changed: bool,
    pub commit: Option<String>,
}

/// Publishes `package` (already validated) with its packed `bytes`.
pub fn publish(
    writer: &IndexWriter,
    package: &Package,
    bytes: &[u8],
    init: bool,
) -> Result<Published, PublishError> {
    let mut changes: Vec<Change> = Vec::new();
    let (config, new_index) = match writer.config()? {
        Some(c) => (c, false),
        None if init => (IndexConfig::default(), true),
        None => {
            return Err(PublishError::NotAnIndex {
                location: writer.location().to_string(),
            })
        }
    };
    let name = &package.name;
    let version = package.version.to_string();
    let archive = config.archive_for(name, &version);
    let template_err = |reason| PublishError::ArchiveTemplate {
        location: writer.location().to_string(),
        template: config.archive.clone(),
        reason,
    };
    if archive.contains("://") {
        return Err(template_err("is a URL, and publish cannot upload"));
    }
    if escapes(&archive) || archive.is_empty() {
        return Err(template_err("leads outside the index"));
    }
    let digest = Digest::of(bytes);
    let record = VersionRecord {
        name: name.clone(),
        version: package.version.clone(),
        blake3: digest,
        size: bytes.len() as u64,
        archive: None,
        sha256: None,
        yanked: false,
        description: package.description().to_string(),
        keywords: package.tool.keywords.clone(),
        permissions: package.tool.permissions.to_vec(),
    };

    let (records, mut shard_text) = writer.records(name)?;
    if let Some(existing) = records.iter().find(|r| r.version == package.version) {
        if existing.blake3 == digest && existing.size == record.size {
            // Same bytes: nothing to do, unless the archive the record names
            // has gone missing, which these very bytes can repair.
            let mut commit = None;
            let missing = existing.archive.is_none() && writer.read(&archive)?.is_none();
            if missing {
                commit = writer.apply(
                    &[(archive.clone(), bytes.to_vec())],
                    &format!("Restore the archive of {name} {version}"),
                )?;
            }
            return Ok(Published {
                record: existing.clone(),
                archive,
                changed: missing,
                commit,
            });
        }
        return Err(PublishError::Republish {
            location: writer.location().to_string(),
            name: name.clone(),
            version,
            existing: existing.blake3.to_hex(),
            new: digest.to_hex(),
        });
    }
    if let Some(on_disk) = writer.read(&archive)? {
        if on_disk != bytes {
            return Err(PublishError::StrayArchive {
                location: writer.location().to_string(),
                path: archive,
            });
        }
    }

    if new_index {
        changes.push(("config.json".into(), config.to_json().into_bytes()));
    }
    changes.push((archive.clone(), bytes.to_vec()));

    // registry.yaml: the version `latest` selects describes the tool (the
    // newest non-yanked stable one, else the newest pre-release), so
    // publishing a pre-release keeps the stable description `search` shows.
    let listing_text = writer.read("registry.yaml")?;
    let mut listing = match &listing_text {
        Some(b) => RegistryYaml::parse(b).map_err(|m| writer.malformed("registry.yaml", m))?,
        None => RegistryYaml {
            version: 1,
            ..RegistryYaml::default()
        },
    };
    let rank = |v: &semver::Version| (v.pre.is_empty(), v.clone());
    let newest = records
        .iter()
        .filter(|r| !r.yanked)
        .all(|r| rank(&r.version) < rank(&package.version));
    let entry = RegistryEntry {
        name: name.clone(),
        description: package.description().to_string(),
        repository: Some(repository_of(package, &archive)),
        maintainer: package.tool.author.clone(),
        keywords: package.tool.keywords.clone(),
    };
    match listing.tools.iter().position(|t| t.name == *name) {
        Some(i) if newest => listing.tools[i] = entry,
        Some(_) => {}
        None => {
            let at = listing.tools.partition_point(|t| t.name < *name);
            listing.tools.insert(at, entry);
        }
    }
    let listing_yaml = listing.to_yaml();
    if listing_text.as_deref() != Some(listing_yaml.as_bytes()) {
        changes.push(("registry.yaml".into(), listing_yaml.into_bytes()));
    }

    // The record last: once it is there, everything it names is too.
    if !shard_text.is_empty() && !shard_text.ends_with('\n') {
        shard_text.push('\n');
    }
    shard_text.push_str(&record.to_line());
    shard_text.push('\n');
    changes.push((shard_path(name), shard_text.into_bytes()));

    let commit = writer.apply(&changes, &format!("Publish {name} {version}"))?;
    Ok(Published {
        record,
        archive,
        changed: true,
        commit,
    })
}

/// The registry.yaml `repository` of a tool: its tool.yaml `repository`, else
/// its `homepage`, else the index directory its archives are placed in (RFC
/// 3 6.3 allows a download location).
fn repository_of(package: &Package, archive: &str) -> String {
    package
        .tool
        .repository
        .clone()
        .or_else(|| package.tool.homepage.clone())
        .unwrap_or_else(|| match archive.rsplit_once('/') {
            Some((dir, _)) => dir.to_string(),
            None => ".".to_string(),
        })
}

/// Parses `NAME@VERSION` (an exact version; a leading `v` is allowed).
pub fn parse_exact(spec: &str) -> Result<(String, semver::Version), PublishError> {
    let bad = |reason: String| PublishError::BadSpec {
        spec: spec.to_string(),
        reason,
    };
    let (name, version) = spec
        .split_once('@')
        .ok_or_else(|| bad("it names no version".into()))?;
    crate::package::validate_name(name).map_err(|e| bad(e.to_string()))?;
    let version = version.strip_prefix('v').unwrap_or(version);
    let version = crate::package::names::parse_version(version).map_err(|e| bad(e.to_string()))?;
    Ok((name.to_string(), version))
}

/// What a yank did: `changed` is false when the record already said so.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Yanked {
    pub record: VersionRecord,
    pub changed: bool,
    pub commit: Option<String>,
}

/// Sets `yanked` on one record. Only that line of the tool's file changes.
pub fn yank(
    writer: &IndexWriter,
    name: &str,
    version: &semver::Version,
    yanked: bool,
) -> Result<Yanked, PublishError> {
    if writer.config()?.is_none() {
        return Err(PublishError::NotAnIndex {
            location: writer.location().to_string(),
        });
    }
    let (records, text) = writer.records(name)?;
    let no_such = || PublishError::NoSuchVersion {
        location: writer.location().to_string(),
        name: name.to_string(),
        version: version.to_string(),
    };
    let mut record = records
        .iter()
        .find(|r| r.version == *version)
        .cloned()
        .ok_or_else(no_such)?;
    if record.yanked == yanked {
        return Ok(Yanked {
            record,
            changed: false,
            commit: None,
        });
    }
    record.yanked = yanked;
    let mut out = String::new();
    for line in text.lines() {
        let is_it = !line.trim().is_empty()
            && serde_json::from_str::<VersionRecord>(line)
                .map(|r| r.version == *version)
                .unwrap_or(false);
        if is_it {
            out.push_str(&record.to_line());
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    let verb = if yanked { "Yank" } else { "Unyank" };
    let commit = writer.apply(
        &[(shard_path(name), out.into_bytes())],
        &format!("{verb} {name} {version}"),
    )?;
    Ok(Yanked {
        record,
        changed: true,
        commit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn exact_specs() {
        assert_eq!(
            parse_exact("fs-read@v1.2.1").unwrap(),
            ("fs-read".to_string(), semver::Version::new(1, 2, 1))
        );
        assert!(parse_exact("fs-read").is_err());
        assert!(parse_exact("fs-read@1.2").is_err());
        assert!(parse_exact("Fs@1.0.0").is_err());
    }

    #[test]
    fn urls_other_than_file_are_refused() {
        let cwd = Path::new("/");
        assert!(IndexTarget::parse("https://example.invalid/index.git", cwd).is_err());
        assert!(matches!(
            IndexTarget::parse("/nonexistent/index", cwd),
            Ok(IndexTarget::Dir(_))
        ));
        assert!(IndexTarget::parse("file:///nonexistent/index", cwd).is_err());
        assert!(IndexTarget::parse("", cwd).is_err());
        assert!(IndexTarget::parse("builtin", Path::new("/nonexistent")).is_err());
    }

    #[test]
    fn file_urls_are_percent_decoded_as_git_reads_them() {
        let dir = tempfile::tempdir().unwrap();
        let bare = dir.path().join("an index.git");
        git2::Repository::init_bare(&bare).unwrap();
        let shown = bare.display().to_string();
        for url in [
            format!("file://{}", shown.replace(' ', "%20")),
            format!("file://{shown}"),
        ] {
            match IndexTarget::parse(&url, Path::new("/")) {
                Ok(IndexTarget::GitBare(path)) => assert_eq!(path, bare),
                other => panic!("{url}: {other:?}"),
            }
        }
    }
}
