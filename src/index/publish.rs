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

use std::path::{Path, PathBuf};

use super::{shard_path, IndexConfig, RegistryEntry, RegistryYaml, VersionRecord, INDEX_FORMAT};
use crate::fs::atomic_write;
use crate::lock::{FileLock, LockKind};
use crate::package::validate::escapes;
use crate::package::Package;
use crate::progress::Reporter;
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
            _ => None,
        }
    }
}

/// Where an index is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexTarget {
    Dir(PathBuf),
    GitWorktree(PathBuf),
    GitBare(PathBuf),
}

impl IndexTarget {
    /// Parses `--index LOCATION`; relative paths are taken from `cwd`.
    /// A directory that does not exist yet is a plain directory (for `--init`).
    pub fn parse(text: &str, cwd: &Path) -> Result<IndexTarget, PublishError> {
        let bad = |reason: &str| PublishError::BadLocation {
            location: text.to_string(),
            reason: reason.to_string(),
        };
        if text.trim().is_empty() {
            // Not the current directory: an unset variable in a script
            // (`--index "$INDEX"`) must not publish into wherever it runs.
            return Err(bad("is empty"));
        }
        if text == "builtin" && !cwd.join(text).exists() {
            // Not `./builtin`, which --init would offer to create.
            return Err(bad(
                "names the registry compiled into orla, which cannot be written (its source is registry-index/ in orla's repository)",
            ));
        }
        let text_path = text.strip_prefix("git+").unwrap_or(text);
        let (path, must_be_git) = if let Some(rest) = text_path.strip_prefix("file://") {
            // As git reads it: `file:///a%20b` is the directory `/a b`.
            let path = reqwest::Url::parse(text_path)
                .ok()
                .and_then(|url| url.to_file_path().ok())
                .unwrap_or_else(|| PathBuf::from(rest));
            (path, true)
        } else if text_path.contains("://") {
            return Err(bad("is a remote URL; publish writes to local indexes only"));
        } else {
            (cwd.join(text_path), text.starts_with("git+"))
        };
        if path.exists() && !path.is_dir() {
            return Err(bad("is not a directory"));
        }
        if path.is_dir() {
            if let Ok(repo) = git2::Repository::open(&path) {
                return Ok(if repo.is_bare() {
                    IndexTarget::GitBare(path)
                } else {
                    IndexTarget::GitWorktree(path)
                });
            }
        }
        if must_be_git {
            return Err(bad("is not a git repository"));
        }
        Ok(IndexTarget::Dir(path))
    }

    pub fn path(&self) -> &Path {
        match self {
            IndexTarget::Dir(p) | IndexTarget::GitWorktree(p) | IndexTarget::GitBare(p) => p,
        }
    }

    pub fn is_git(&self) -> bool {
        !matches!(self, IndexTarget::Dir(_))
    }
}

/// An index opened for writing, holding its lock.
pub struct IndexWriter {
    target: IndexTarget,
    location: String,
    repo: Option<git2::Repository>,
    _lock: FileLock,
}

/// One file to write, relative to the index root.
pub type Change = (String, Vec<u8>);

impl IndexWriter {
    /// Opens `target`; `lock_dir` holds the lock of a plain directory.
    pub fn open(
        target: IndexTarget,
        lock_dir: &Path,
        reporter: &dyn Reporter,
    ) -> Result<IndexWriter, PublishError> {
        let location = target.path().display().to_string();
        let git_err = |e: git2::Error| PublishError::Git {
            location: location.clone(),
            message: e.message().to_string(),
        };
        let repo = match &target {
            IndexTarget::Dir(_) => None,
            IndexTarget::GitWorktree(p) | IndexTarget::GitBare(p) => {
                Some(git2::Repository::open(p).map_err(git_err)?)
            }
        };
        let lock_path = match &repo {
            Some(repo) => repo.path().join("orla-publish.lock"),
            None => {
                let canonical = target
                    .path()
                    .canonicalize()
                    .unwrap_or_else(|_| target.path().to_path_buf());
                let key = Digest::of(canonical.display().to_string().as_bytes()).to_hex();
                lock_dir.join(format!("publish-{}.lock", &key[..16]))
            }
        };
        let lock = FileLock::acquire(&lock_path, LockKind::Exclusive, "the index", reporter)
            .map_err(|e| PublishError::Io {
                location: location.clone(),
                action: "lock",
                path: lock_path.display().to_string(),
                message: e.to_string(),
            })?;
        Ok(IndexWriter {
            target,
            location,
            repo,
            _lock: lock,
        })
    }

    pub fn location(&self) -> &str {
        &self.location
    }

    /// For a plain directory inside a git working tree (the repository's
    /// own `registry-index/`): the working tree, whose author commits the
    /// published files with the rest of the change.
    pub fn enclosing_worktree(&self) -> Option<PathBuf> {
        match &self.target {
            IndexTarget::Dir(path) => git2::Repository::discover(path)
                .ok()
                .and_then(|r| r.workdir().map(Path::to_path_buf)),
            _ => None,
        }
    }

    fn io(&self, action: &'static str, path: &str, e: impl std::fmt::Display) -> PublishError {
        PublishError::Io {
            location: self.location.clone(),
            action,
            path: path.to_string(),
            message: e.to_string(),
        }
    }

    fn git(&self, e: git2::Error) -> PublishError {
        PublishError::Git {
            location: self.location.clone(),
            message: e.message().to_string(),
        }
    }

    /// Reads one file of the index: from disk, or from HEAD in a bare repository.
    pub fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, PublishError> {
        match (&self.target, &self.repo) {
            (IndexTarget::GitBare(_), Some(repo)) => {
                let head = match repo.head() {
                    Ok(h) => h,
                    // An empty repository has no files yet.
                    Err(e) if e.code() == git2::ErrorCode::UnbornBranch => return Ok(None),
                    Err(e) if e.code() == git2::ErrorCode::NotFound => return Ok(None),
                    Err(e) => return Err(self.git(e)),
                };
                let tree = head.peel_to_tree().map_err(|e| self.git(e))?;
                match tree.get_path(Path::new(rel)) {
                    Ok(entry) => {
                        let object = entry.to_object(repo).map_err(|e| self.git(e))?;
                        Ok(object.as_blob().map(|b| b.content().to_vec()))
                    }
                    Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
                    Err(e) => Err(self.git(e)),
                }
            }
            _ => match std::fs::read(self.target.path().join(rel)) {
                Ok(bytes) => Ok(Some(bytes)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(self.io("read", rel, e)),
            },
        }
    }

    /// The index's config.json, or `None` when it has none.
    pub fn config(&self) -> Result<Option<IndexConfig>, PublishError> {
        let Some(bytes) = self.read("config.json")? else {
            return Ok(None);
        };
        let config =
            IndexConfig::parse(&bytes).map_err(|message| self.malformed("config.json", message))?;
        if config.format != INDEX_FORMAT {
            return Err(PublishError::UnknownFormat {
                location: self.location.clone(),
                found: config.format,
            });
        }
        Ok(Some(config))
    }

    fn malformed(&self, path: &str, message: String) -> PublishError {
        PublishError::Malformed {
            location: self.location.clone(),
            path: path.to_string(),
            message,
        }
    }

    /// Every record of `name` (none when the tool is new), and the file's text.
    pub fn records(&self, name: &str) -> Result<(Vec<VersionRecord>, String), PublishError> {
        let rel = shard_path(name);
        match self.read(&rel)? {
            None => Ok((Vec::new(), String::new())),
            Some(bytes) => {
                let records =
                    VersionRecord::parse_file(&bytes, name).map_err(|m| self.malformed(&rel, m))?;
                Ok((
                    records,
                    String::from_utf8(bytes).expect("parse_file checked UTF-8"),
                ))
            }
        }
    }

    /// Writes `changes` in order; in a git repository, commits them with
    /// `message`. Returns the commit id, if one was made.
    pub fn apply(&self, changes: &[Change], message: &str) -> Result<Option<String>, PublishError> {
        if let IndexTarget::Dir(_) | IndexTarget::GitWorktree(_) = self.target {
            for (rel, bytes) in changes {
                let path = self.target.path().join(rel);
                atomic_write(&path, bytes).map_err(|e| self.io("write", rel, e))?;
            }
        }
        let Some(repo) = &self.repo else {
            return Ok(None);
        };
        let head_commit = match repo.head() {
            Ok(head) => Some(head.peel_to_commit().map_err(|e| self.git(e))?),
            Err(e)
                if matches!(
                    e.code(),
                    git2::ErrorCode::UnbornBranch | git2::ErrorCode::NotFound
                ) =>
            {
                None
            }
            Err(e) => return Err(self.git(e)),
        };
        let base = match &head_commit {
            Some(c) => Some(c.tree().map_err(|e| self.git(e))?),
            None => None,
        };
        let mut tree_id = base.as_ref().map(|t| t.id());
        for (rel, bytes) in changes {
            let blob = repo.blob(bytes).map_err(|e| self.git(e))?;
            let parts: Vec<&str> = rel.split('/').collect();
            let current = match tree_id {
                Some(id) => Some(repo.find_tree(id).map_err(|e| self.git(e))?),
                None => None,
            };
            tree_id = Some(upsert(repo, current.as_ref(), &parts, blob).map_err(|e| self.git(e))?);
        }
        let tree = repo
            .find_tree(tree_id.expect("at least one change"))
            .map_err(|e| self.git(e))?;
        let signature = repo
            .signature()
            .or_else(|_| git2::Signature::now("orla", "orla@localhost"))
            .map_err(|e| self.git(e))?;
        let parents: Vec<&git2::Commit> = head_commit.iter().collect();
        let id = repo
            .commit(
                Some("HEAD"),
                &signature,
                &signature,
                message,
                &tree,
                &parents,
            )
            .map_err(|e| self.git(e))?;
        if !repo.is_bare() {
            // Keep `git status` clean for the files just committed.
            let mut index = repo.index().map_err(|e| self.git(e))?;
            for (rel, _) in changes {
                index.add_path(Path::new(rel)).map_err(|e| self.git(e))?;
            }
            index.write().map_err(|e| self.git(e))?;
        }
        Ok(Some(id.to_string()))
    }
}

/// Returns the id of `base` with the blob at `path` set.
fn upsert(
    repo: &git2::Repository,
    base: Option<&git2::Tree>,
    path: &[&str],
    blob: git2::Oid,
) -> Result<git2::Oid, git2::Error> {
    let mut builder = repo.treebuilder(base)?;
    let (first, rest) = path.split_first().expect("paths are not empty");
    if rest.is_empty() {
        builder.insert(first, blob, 0o100644)?;
    } else {
        let sub = match base.and_then(|t| t.get_name(first)) {
            Some(entry) if entry.kind() == Some(git2::ObjectType::Tree) => {
                Some(repo.find_tree(entry.id())?)
            }
            _ => None,
        };
        let id = upsert(repo, sub.as_ref(), rest, blob)?;
        builder.insert(first, id, 0o040000)?;
    }
    builder.write()
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
                location: writer.location.clone(),
            })
        }
    };
    let name = &package.name;
    let version = package.version.to_string();
    let archive = config.archive_for(name, &version);
    let template_err = |reason| PublishError::ArchiveTemplate {
        location: writer.location.clone(),
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
        permissions: package.tool.permissions.clone(),
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
            location: writer.location.clone(),
            name: name.clone(),
            version,
            existing: existing.blake3.to_hex(),
            new: digest.to_hex(),
        });
    }
    if let Some(on_disk) = writer.read(&archive)? {
        if on_disk != bytes {
            return Err(PublishError::StrayArchive {
                location: writer.location.clone(),
                path: archive,
            });
        }
    }

    if new_index {
        changes.push(("config.json".into(), config.to_json().into_bytes()));
    }
    changes.push((archive.clone(), bytes.to_vec()));

    // registry.yaml: the newest version describes the tool.
    let listing_text = writer.read("registry.yaml")?;
    let mut listing = match &listing_text {
        Some(b) => RegistryYaml::parse(b).map_err(|m| writer.malformed("registry.yaml", m))?,
        None => RegistryYaml {
            version: 1,
            ..RegistryYaml::default()
        },
    };
    let newest = records.iter().all(|r| r.version < package.version);
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
    crate::package::validate_name(name).map_err(bad)?;
    let version = version.strip_prefix('v').unwrap_or(version);
    let version = crate::package::names::parse_version(version).map_err(bad)?;
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
            location: writer.location.clone(),
        });
    }
    let (records, text) = writer.records(name)?;
    let no_such = || PublishError::NoSuchVersion {
        location: writer.location.clone(),
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
