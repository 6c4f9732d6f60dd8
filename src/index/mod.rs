//! Registry indexes: where orla learns which versions of a tool exist.
//!
//! # Format (mirrored in docs/registry-format.md)
//!
//! An index is a directory tree, modelled on cargo's registry index:
//!
//! ```text
//! config.json             {"format": 1, "archive": "archives/{name}/{name}-{version}.tar.gz"}
//! registry.yaml           RFC 3 6.3 listing: name, description, repository, maintainer, keywords
//! 1/a                     one file per tool, at a sharded path:
//! 2/ab                      1 and 2 character names: 1/NAME, 2/NAME
//! 3/a/abc                   3 characters: 3/FIRST/NAME
//! fs/-r/fs-read             longer: FIRST-TWO/NEXT-TWO/NAME ('.' becomes '_' in the
//!                           two directory parts, so no part is ever "..")
//! archives/...            archives, when the index hosts them itself
//! ```
//!
//! A tool file holds one JSON object per line, one line per version:
//! `name`, `version`, `blake3` (64 hex), `size`, and optionally `archive`
//! (overrides the config template), `sha256`, `yanked`, `description`,
//! `keywords`, `permissions`. Looking up a tool reads exactly one small
//! file, so the same layout serves a sparse HTTP index that never downloads
//! the whole registry. Unknown fields are ignored, so the format can grow.

pub mod builtin;
pub mod git;
mod location;
pub mod publish;
mod record;
pub mod registries;
pub mod sparse;

use std::path::{Path, PathBuf};

pub use git::{GitAccess, GitIndex};
pub use location::RegistryLocation;
pub use record::{
    ArchiveLocation, GitSourceEntry, IndexConfig, ListedVersion, RegistryEntry, RegistryYaml,
    VersionRecord, INDEX_FORMAT,
};

use crate::package::names;

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("no tool '{name}' in registry {registry}")]
    UnknownTool {
        name: String,
        registry: String,
        suggestion: Option<String>,
    },
    #[error("registry {registry}: {path} is malformed: {message}")]
    Malformed {
        registry: String,
        path: String,
        message: String,
    },
    #[error(
        "registry {registry} uses index format {found}, but this orla reads format {INDEX_FORMAT}"
    )]
    UnknownFormat { registry: String, found: u32 },
    #[error("registry {registry}: cannot read {path}: {source}")]
    Io {
        registry: String,
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("registry {registry}: the repository '{repository}' of {name} {reason}")]
    BadRepository {
        registry: String,
        name: String,
        repository: String,
        reason: &'static str,
    },
    #[error("registry location '{location}' {reason}")]
    BadLocation { location: String, reason: String },
    #[error("registry {registry}: archive location '{archive}' for {name} {version} {reason}")]
    BadArchive {
        registry: String,
        name: String,
        version: String,
        archive: String,
        reason: &'static str,
    },
    #[error("cannot fetch registry {registry}: {message}")]
    Git { registry: String, message: String },
    /// A git registry's server did not answer in time, or was too slow:
    /// `hint` says what to do.
    #[error("cannot fetch registry {registry}: {message}")]
    NoAnswer {
        registry: String,
        message: String,
        hint: String,
    },
    #[error("cannot fetch registry {registry}: cannot fetch {path}: {source}")]
    Sparse {
        registry: String,
        path: String,
        #[source]
        source: sparse::SparseError,
    },
    #[error("registry {registry} is not in the cache and --offline forbids the network")]
    Offline { registry: String },
    #[error(
        "registry {registry} went back in time: its history no longer contains commit {seen}, the last one orla fetched (now at {found})"
    )]
    Rollback {
        registry: String,
        seen: String,
        found: String,
    },
}

impl IndexError {
    pub fn hint(&self) -> Option<String> {
        match self {
            IndexError::UnknownTool {
                suggestion: Some(s),
                ..
            } => Some(format!("did you mean '{s}'?")),
            IndexError::UnknownTool { .. } => {
                Some("search the registry with `orla search WORD`".into())
            }
            IndexError::UnknownFormat { .. } => Some("upgrade orla to read this registry".into()),
            IndexError::BadLocation { .. } => Some(
                "a registry is `builtin`, a directory holding config.json or registry.yaml, a git URL, or a name from config.yaml".into(),
            ),
            // An http(s) URL is read as git; a plain web directory of index
            // files answers git's requests with 404.
            IndexError::Git { registry, .. }
                if registry.starts_with("http://") || registry.starts_with("https://") =>
            {
                Some(format!(
                    "check the URL and your connection; if it serves index files over HTTP rather than a git repository, write sparse+{registry}"
                ))
            }
            IndexError::NoAnswer { hint, .. } => Some(hint.clone()),
            IndexError::Sparse {
                source: sparse::SparseError::Request(e),
                ..
            } if e.timed_out().is_some() => {
                e.timed_out().map(crate::http::timeout_hint)
            }
            IndexError::Git { .. }
            | IndexError::Sparse {
                source: sparse::SparseError::Request(_),
                ..
            } => Some(
                "check the URL and your connection; once fetched, a registry also works with --offline".into(),
            ),
            IndexError::Offline { .. }
            | IndexError::Sparse {
                source: sparse::SparseError::Offline { .. },
                ..
            } => Some("run the command once without --offline to fetch it".into()),
            IndexError::Rollback { .. } => Some(
                "a rewound or force-pushed index can bring back withdrawn versions, so orla keeps using the last commit it saw; if the registry's maintainers rewrote its history on purpose, accept it once with --allow-rollback".into(),
            ),
            IndexError::Malformed { .. } => Some(
                "the registry's index is damaged (docs/registry-format.md describes its files): report it to its maintainers; `--registry NAME` uses another registry".into(),
            ),
            IndexError::BadRepository { .. } | IndexError::BadArchive { .. } => Some(
                "the registry's entry is refused; report it to the registry's maintainers".into(),
            ),
            IndexError::Io { source, .. }
                if source.kind() == std::io::ErrorKind::PermissionDenied =>
            {
                Some("check that you may read the registry's directory".into())
            }
            // Missing or unreadable for a reason the message names.
            IndexError::Io { .. } => None,
        }
    }
}

/// The largest index file orla reads, from any source: a tool's file with
/// thousands of versions, or the registry.yaml of 10,000 tools, is a few
/// MiB, and an endless or huge file must not be read whole.
pub const MAX_INDEX_FILE: u64 = 16 << 20;

/// Where a registry's index files are read from.
#[derive(Debug, Clone)]
enum Backend {
    Builtin,
    Dir(PathBuf),
    Git(GitIndex),
    Sparse(sparse::SparseIndex),
}

/// A tool as a registry knows it.
#[derive(Debug, Clone)]
pub enum Lookup {
    /// Published versions with archives and digests.
    Records(Vec<VersionRecord>),
    /// An RFC 3 entry: versions are the `v`-tags of `repository` (only
    /// those of its `versions:` list, when it has one).
    GitSource(GitSourceEntry),
}

/// What a registry location holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegistryKind {
    /// The fast format: config.json and one file of version records per
    /// tool (docs/registry-format.md).
    Index,
    /// An RFC 3 registry (6.3), as the Orla project's own: registry.yaml
    /// and nothing else; every tool is a git repository whose `v` tags are
    /// its versions.
    Rfc3,
}

/// An opened registry index.
#[derive(Debug, Clone)]
pub struct Registry {
    /// How the registry is named in messages and receipts: `builtin`, or its location.
    pub name: String,
    backend: Backend,
    pub config: IndexConfig,
    pub kind: RegistryKind,
}

/// How a registry is named while orla waits for it: `registry NAME
/// (LOCATION)`, or `registry LOCATION` when it has no name of its own.
pub fn waited_for(name: Option<&str>, location: &str) -> String {
    match name {
        Some(name) if name != location => format!("registry {name} ({location})"),
        _ => format!("registry {location}"),
    }
}

/// The sharded path of a tool's file. `name` must already be valid.
pub fn shard_path(name: &str) -> String {
    let dir = |s: &str| s.replace('.', "_");
    match name.len() {
        1 => format!("1/{name}"),
        2 => format!("2/{name}"),
        3 => format!("3/{}/{name}", dir(&name[..1])),
        _ => format!("{}/{}/{name}", dir(&name[..2]), dir(&name[2..4])),
    }
}

/// The index files of the valid names among `names`, each once.
fn shard_paths(names: &[&str]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    names
        .iter()
        .filter(|name| names::validate_name(name).is_ok() && seen.insert(**name))
        .map(|name| shard_path(name))
        .collect()
}

impl Registry {
    /// Opens a builtin or directory registry; a git registry needs
    /// [`Registry::open_with`] and its cache.
    pub fn open(location: &RegistryLocation) -> Result<Registry, IndexError> {
        Registry::open_with(location, None, None, &crate::progress::Silent)
    }

    /// Opens any registry. `name` is how a configured registry is called
    /// (default: `builtin` or its location); `access` says where git
    /// registries are cloned and whether they may be fetched.
    pub fn open_with(
        location: &RegistryLocation,
        name: Option<&str>,
        access: Option<&GitAccess>,
        reporter: &dyn crate::progress::Reporter,
    ) -> Result<Registry, IndexError> {
        Registry::open_ahead(location, name, access, reporter, &[])
    }

    /// [`Registry::open_with`], knowing that the tools `ahead` will be
    /// looked up next: a sparse index then fetches their files together
    /// with its `config.json`, so the first lookup does not wait for a
    /// second round trip.
    pub fn open_ahead(
        location: &RegistryLocation,
        name: Option<&str>,
        access: Option<&GitAccess>,
        reporter: &dyn crate::progress::Reporter,
        ahead: &[&str],
    ) -> Result<Registry, IndexError> {
        let (default_name, backend) = match location {
            RegistryLocation::Builtin => ("builtin".to_string(), Backend::Builtin),
            RegistryLocation::Dir(path) => (path.display().to_string(), Backend::Dir(path.clone())),
            RegistryLocation::Git(url) => {
                let shown = name.unwrap_or(url);
                let access = access.ok_or_else(|| IndexError::BadLocation {
                    location: url.clone(),
                    reason: "is a git registry, which needs a cache directory here".into(),
                })?;
                let index = GitIndex::open(url, shown, access, reporter)?;
                (url.clone(), Backend::Git(index))
            }
            RegistryLocation::Sparse(url) => {
                let access = access.ok_or_else(|| IndexError::BadLocation {
                    location: url.clone(),
                    reason: "is a sparse registry, which needs a cache directory here".into(),
                })?;
                let index = sparse::SparseIndex::new(url, name.unwrap_or(url), access);
                let location = format!("sparse+{url}");
                // The first request to the server: where a stalled one is
                // noticed (`net`).
                let mut rels = vec!["config.json".to_string()];
                rels.extend(shard_paths(ahead));
                crate::net::watched(
                    reporter,
                    &waited_for(name, &location),
                    access.http.timeout,
                    |_| index.prefetch(&rels),
                );
                (location, Backend::Sparse(index))
            }
        };
        let name = name.map(str::to_string).unwrap_or(default_name);
        let mut registry = Registry {
            name,
            backend,
            config: IndexConfig::default(),
            kind: RegistryKind::Index,
        };
        let Some(bytes) = registry.read("config.json")? else {
            // registry.yaml alone: an RFC 3 registry. A sparse index is
            // always the fast format (it has no listing to search).
            let rfc3 = !matches!(registry.backend, Backend::Sparse(_))
                && registry.read("registry.yaml")?.is_some();
            if rfc3 {
                registry.kind = RegistryKind::Rfc3;
                return Ok(registry);
            }
            return Err(IndexError::BadLocation {
                location: registry.name.clone(),
                reason: "has no config.json, so it is not an orla registry index (nor registry.yaml, so not an RFC 3 registry)".into(),
            });
        };
        registry.config = IndexConfig::parse(&bytes)
            .map_err(|message| registry.malformed("config.json", message))?;
        if registry.config.format != INDEX_FORMAT {
            return Err(IndexError::UnknownFormat {
                registry: registry.name.clone(),
                found: registry.config.format,
            });
        }
        Ok(registry)
    }

    pub fn is_local(&self) -> bool {
        matches!(self.backend, Backend::Builtin | Backend::Dir(_))
    }

    /// Prints the warnings reading the registry collected (a sparse index
    /// that fell back to a stale cached file), once each.
    pub fn flush_warnings(&self, reporter: &dyn crate::progress::Reporter) {
        if let Backend::Sparse(index) = &self.backend {
            index.flush_warnings(reporter);
        }
    }

    /// Fetches the files [`Registry::lookup`] reads for `names` ahead, in
    /// parallel, when reading one costs a request (a sparse index); each
    /// lookup then has the answer it would have had on its own. Directory
    /// and git indexes are read on this machine, so they have nothing to
    /// gain from threads.
    pub fn prefetch(&self, names: &[&str]) {
        if let Backend::Sparse(index) = &self.backend {
            index.prefetch(&shard_paths(names));
        }
    }

    /// [`Registry::lookup`], saying so when the server is slow to answer
    /// (`net::watched`) where a lookup costs a request.
    pub fn lookup_watched(
        &self,
        name: &str,
        timeout: std::time::Duration,
        reporter: &dyn crate::progress::Reporter,
    ) -> Result<Option<Lookup>, IndexError> {
        if !self.reads_are_remote() {
            return self.lookup(name);
        }
        let what = waited_for(Some(&self.name), &self.location());
        crate::net::watched(reporter, &what, timeout, |_| self.lookup(name))
    }

    /// True when reading a tool's file costs a network request (a sparse
    /// index), so that listings should not read one per tool.
    pub fn reads_are_remote(&self) -> bool {
        matches!(self.backend, Backend::Sparse(_))
    }

    /// For a git registry: the fetched commit whose files are read.
    pub fn git_commit(&self) -> Option<&str> {
        match &self.backend {
            Backend::Git(g) => Some(&g.commit),
            _ => None,
        }
    }

    /// Where the registry is: `builtin`, a directory, or a git URL.
    pub fn location(&self) -> String {
        match &self.backend {
            Backend::Builtin => "builtin".into(),
            Backend::Dir(p) => p.display().to_string(),
            Backend::Git(g) => g.url.clone(),
            Backend::Sparse(s) => format!("sparse+{}", s.base),
        }
    }

    fn malformed(&self, path: &str, message: impl std::fmt::Display) -> IndexError {
        IndexError::Malformed {
            registry: self.name.clone(),
            path: path.to_string(),
            message: message.to_string(),
        }
    }

    /// Reads one index file; `None` when it does not exist.
    fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, IndexError> {
        match &self.backend {
            Backend::Builtin => Ok(builtin::file(rel).map(<[u8]>::to_vec)),
            Backend::Dir(root) => match read_capped(&root.join(rel)) {
                Ok(Some(bytes)) => Ok(Some(bytes)),
                Ok(None) => Err(self.malformed(
                    rel,
                    format!(
                        "the file is larger than {} MiB, more than any index file should be",
                        MAX_INDEX_FILE >> 20
                    ),
                )),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(source) => Err(IndexError::Io {
                    registry: self.name.clone(),
                    path: rel.to_string(),
                    source,
                }),
            },
            Backend::Git(index) => index.read(rel).map_err(|message| IndexError::Git {
                registry: self.name.clone(),
                message: format!("cannot read {rel}: {message}"),
            }),
            Backend::Sparse(index) => index.read(rel).map_err(|source| IndexError::Sparse {
                registry: self.name.clone(),
                path: rel.to_string(),
                source,
            }),
        }
    }

    /// The RFC 3 registry.yaml listing; empty when the index has none.
    pub fn listing(&self) -> Result<RegistryYaml, IndexError> {
        match self.read("registry.yaml")? {
            None => Ok(RegistryYaml::default()),
            Some(bytes) => {
                RegistryYaml::parse(&bytes).map_err(|m| self.malformed("registry.yaml", m))
            }
        }
    }

    /// Every version record of `name`, in file order.
    pub fn versions(&self, name: &str) -> Result<Vec<VersionRecord>, IndexError> {
        if names::validate_name(name).is_err() {
            return Err(IndexError::UnknownTool {
                name: name.to_string(),
                registry: self.name.clone(),
                suggestion: self.suggest(name),
            });
        }
        let path = shard_path(name);
        match self.read(&path)? {
            Some(bytes) => {
                VersionRecord::parse_file(&bytes, name).map_err(|m| self.malformed(&path, m))
            }
            None => Err(IndexError::UnknownTool {
                name: name.to_string(),
                registry: self.name.clone(),
                suggestion: self.suggest(name),
            }),
        }
    }

    /// What the registry knows of `name`: version records, or an RFC 3
    /// registry.yaml entry with a `repository` and no records (a git-source
    /// tool whose versions are the repository's tags); `None` if neither.
    pub fn lookup(&self, name: &str) -> Result<Option<Lookup>, IndexError> {
        // An invalid name (from registry.yaml, say) names no tool, and
        // shard_path, which slices it by bytes, must not see it.
        if names::validate_name(name).is_err() {
            return Ok(None);
        }
        let path = shard_path(name);
        if let Some(bytes) = self.read(&path)? {
            if self.kind == RegistryKind::Rfc3 {
                // Records without config.json: an index that lost its
                // config, not an RFC 3 registry.
                return Err(IndexError::BadLocation {
                    location: self.name.clone(),
                    reason: format!("has no config.json, yet holds version records ({path}): a fast-format index needs its config.json"),
                });
            }
            let records =
                VersionRecord::parse_file(&bytes, name).map_err(|m| self.malformed(&path, m))?;
            return Ok(Some(Lookup::Records(records)));
        }
        Ok(self
            .git_sources()?
            .into_iter()
            .find(|t| t.entry.name == name && t.entry.repository.is_some())
            .map(Lookup::GitSource))
    }

    /// The registry.yaml entries with their `versions:` lists.
    pub fn git_sources(&self) -> Result<Vec<GitSourceEntry>, IndexError> {
        match self.read("registry.yaml")? {
            None => Ok(Vec::new()),
            Some(bytes) => {
                GitSourceEntry::parse_all(&bytes).map_err(|m| self.malformed("registry.yaml", m))
            }
        }
    }

    /// True for a registry on this machine: builtin, a directory, or a git
    /// repository by `file://` URL or path. Only such a registry may name
    /// tool repositories on this machine.
    pub fn is_on_this_machine(&self) -> bool {
        match &self.backend {
            Backend::Builtin | Backend::Dir(_) => true,
            Backend::Git(g) => g.url.starts_with("file://") || !g.url.contains("://"),
            Backend::Sparse(_) => false,
        }
    }

    /// The directory relative tool repository paths are taken from: a
    /// directory registry's, or a local git registry's repository.
    fn local_base(&self) -> Option<PathBuf> {
        match &self.backend {
            Backend::Dir(root) => Some(root.clone()),
            Backend::Git(g) if self.is_on_this_machine() => Some(PathBuf::from(
                g.url.strip_prefix("file://").unwrap_or(&g.url),
            )),
            _ => None,
        }
    }

    /// Where the repository of an RFC 3 git-source tool may be fetched
    /// from. Any registry may name a network URL (https, http, ssh, git,
    /// with or without `git+`, or `user@host:path`); only a registry on this
    /// machine (a directory, or a git registry by `file://` URL or path) may
    /// name a repository on this machine (`file://` or a path, relative
    /// paths taken from the registry's directory), so a remote registry
    /// cannot make orla read one of the user's private repositories and
    /// install its tree as a tool, while registries and their tools can
    /// still be mirrored together on one machine or a file share.
    pub fn tool_repository(&self, entry: &RegistryEntry) -> Result<String, IndexError> {
        let raw = entry.repository.clone().unwrap_or_default();
        let bad = |reason| IndexError::BadRepository {
            registry: self.name.clone(),
            name: entry.name.clone(),
            repository: raw.clone(),
            reason,
        };
        let url = raw.strip_prefix("git+").unwrap_or(&raw);
        let local_registry = self.local_base().is_some();
        if let Some((scheme, _)) = url.split_once("://") {
            return match scheme {
                "https" | "http" | "ssh" | "git" => Ok(url.to_string()),
                "file" if local_registry => Ok(url.to_string()),
                "file" => Err(bad(
                    "is on this machine, which only a registry on this machine may name",
                )),
                _ => Err(bad("uses a scheme orla does not fetch")),
            };
        }
        if url.contains("::") {
            // git's `transport::address` form (`ext::` runs a command).
            return Err(bad("uses a git transport orla does not allow"));
        }
        let scp_like = url
            .split_once(':')
            .is_some_and(|(host, _)| host.contains('@') && !host.contains('/'));
        if url.is_empty() {
            return Err(bad("is empty"));
        }
        if scp_like {
            return Ok(url.to_string());
        }
        if let Some(base) = self.local_base() {
            return Ok(base.join(url).display().to_string());
        }
        Err(bad(
            "is on this machine, which only a registry on this machine may name",
        ))
    }

    /// The closest known name, for "did you mean".
    pub fn suggest(&self, name: &str) -> Option<String> {
        let listing = self.listing().ok()?;
        listing
            .tools
            .iter()
            .map(|t| (strsim::damerau_levenshtein(name, &t.name), &t.name))
            .filter(|(d, n)| *d <= 2.max(name.len() / 3) && *d < n.len())
            .min()
            .map(|(_, n)| n.clone())
    }

    /// Where the archive of `record` lives, checked so that an index cannot
    /// point orla at files outside itself.
    pub fn archive_location(&self, record: &VersionRecord) -> Result<ArchiveLocation, IndexError> {
        let raw = match &record.archive {
            Some(a) => a.clone(),
            None => self
                .config
                .archive_for(&record.name, &record.version.to_string()),
        };
        let bad = |reason| IndexError::BadArchive {
            registry: self.name.clone(),
            name: record.name.clone(),
            version: record.version.to_string(),
            archive: raw.clone(),
            reason,
        };
        if raw.starts_with("http://") || raw.starts_with("https://") {
            return Ok(ArchiveLocation::Http(raw));
        }
        if let Some(path) = raw.strip_prefix("file://") {
            // Only a directory index may name a local file, and only one
            // inside itself: a registry must not make orla read (or probe
            // for) /etc/shadow, /dev/zero or a fifo.
            return match &self.backend {
                Backend::Dir(root) => contained(root, Path::new(path))
                    .map(ArchiveLocation::File)
                    .ok_or_else(|| {
                        bad("is a local file outside the index; an index may only name archives inside itself")
                    }),
                _ => Err(bad(
                    "is a local file, which only a local directory registry may name",
                )),
            };
        }
        if raw.contains("://") {
            return Err(bad(
                "uses a scheme orla does not fetch (use https://, http:// or a relative path)",
            ));
        }
        if crate::package::validate::escapes(&raw) {
            return Err(bad(
                "is outside the index; relative archive paths must stay inside it",
            ));
        }
        match &self.backend {
            Backend::Builtin => builtin::file(&raw)
                .map(|bytes| ArchiveLocation::Embedded {
                    path: raw.clone(),
                    bytes,
                })
                .ok_or_else(|| bad("is not in the built-in registry")),
            Backend::Dir(root) => contained(root, &root.join(Path::new(&raw)))
                .map(ArchiveLocation::File)
                .ok_or_else(|| bad("leads outside the index through a symbolic link")),
            Backend::Sparse(index) => Ok(ArchiveLocation::Http(index.url(&raw))),
            // Never more than the record's size: that much is read at most
            // from any other source too.
            Backend::Git(index) => {
                match index
                    .read_limited(&raw, record.size)
                    .map_err(|message| IndexError::Git {
                        registry: self.name.clone(),
                        message: format!("cannot read {raw}: {message}"),
                    })? {
                    Some(bytes) => Ok(ArchiveLocation::Memory {
                        origin: format!("{}:{raw}", self.name),
                        bytes: std::sync::Arc::new(bytes),
                    }),
                    None => Err(bad("is not in the registry's repository")),
                }
            }
        }
    }
}

/// A local index file, `None` when it holds more than `MAX_INDEX_FILE`
/// bytes (reading at most one byte more).
fn read_capped(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_INDEX_FILE + 1)
        .read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= MAX_INDEX_FILE).then_some(bytes))
}

/// `path` when it lies inside the index directory `root`, symbolic links
/// resolved; a path that does not exist (yet) is judged by its components,
/// and fetching it then fails as a missing file.
fn contained(root: &Path, path: &Path) -> Option<PathBuf> {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    match path.canonicalize() {
        Ok(real) => real.starts_with(&root).then_some(real),
        Err(_) => {
            let lexical = path.is_absolute()
                && path.starts_with(&root)
                && !path
                    .components()
                    .any(|c| matches!(c, std::path::Component::ParentDir));
            lexical.then(|| path.to_path_buf())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_follow_cargo() {
        assert_eq!(shard_path("a"), "1/a");
        assert_eq!(shard_path("ab"), "2/ab");
        assert_eq!(shard_path("abc"), "3/a/abc");
        assert_eq!(shard_path("fs-read"), "fs/-r/fs-read");
    }

    #[test]
    fn shard_directories_never_contain_dot_dot() {
        assert_eq!(shard_path("ab..c"), "ab/__/ab..c");
        assert_eq!(shard_path("a.b"), "3/a/a.b");
        for name in ["a..", "a...b", "ab..", "a.bc"] {
            let path = shard_path(name);
            let (dirs, file) = path.rsplit_once('/').unwrap();
            assert_eq!(file, name);
            assert!(dirs.split('/').all(|d| d != ".." && d != "."), "{path}");
        }
    }
}
