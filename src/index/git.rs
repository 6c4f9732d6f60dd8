//! Git-backed registry indexes (RFC 3 section 6): the repository is fetched
//! with git2 into the cache and its files are read straight from the fetched
//! commit's tree, as cargo reads its git index: no working tree, so an
//! update is one atomic ref change and a half-finished fetch is never read.
//!
//! Layout under the cache directory:
//!
//! ```text
//! registries/<name>-<hash>/          a bare repository; the index is refs/remotes/origin/HEAD
//! registries/<name>-<hash>.state.json  {"url", "fetched_at", "commit"}: when it was last
//!                                      fetched (for the TTL) and the last commit seen
//!                                      (for rollback protection)
//! registries/<name>-<hash>.lock      held while fetching, so two orla processes do not
//!                                      fetch into one repository at once
//! ```
//!
//! `<name>` is the URL's last path segment reduced to `[a-z0-9_-]`, `<hash>`
//! the first 16 hex digits of the URL's BLAKE3, so two URLs never share a
//! clone. The whole history is fetched (not a shallow clone) so that a later
//! fetch can check that the index only moved forward.
//!
//! Rollback protection: a fetch whose commit does not descend from the last
//! commit seen (the state file's `commit`) is refused and the clone's ref is
//! put back, because a rewound or force-pushed index is how a compromised
//! registry or mirror would bring back a withdrawn version or hide a yank.
//! `--allow-rollback` (`GitAccess::allow_rollback`) accepts it deliberately,
//! once: the new commit becomes the one later fetches must descend from.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::git::{now, GitError};

use serde::{Deserialize, Serialize};

use super::IndexError;
use crate::lock::{FileLock, LockKind};
use crate::progress::{Event, Reporter, Warning};

use super::MAX_INDEX_FILE;

/// Reading a file of a fetched git index failed.
#[derive(Debug, thiserror::Error)]
pub enum GitReadError {
    /// git2's own message, without its class and code.
    #[error("{}", source.message())]
    Git {
        #[from]
        source: git2::Error,
    },
    #[error("{path} is {size} bytes, more than the {max} allowed")]
    TooLarge { path: String, size: u64, max: u64 },
    #[error("a reader panicked")]
    Poisoned,
}

/// The ref a fetched index lives under.
const INDEX_REF: &str = "refs/remotes/origin/HEAD";

/// How a git registry may use the network.
#[derive(Debug, Clone)]
pub struct GitAccess {
    pub cache_dir: PathBuf,
    /// Fetch again when the clone is older than this.
    pub ttl: Duration,
    /// Never fetch: use the cached clone or fail.
    pub offline: bool,
    /// Fetch even when the clone is younger than the TTL.
    pub refresh: bool,
    /// Accept an index whose history was rewound or rewritten since the
    /// last fetch (`--allow-rollback`).
    pub allow_rollback: bool,
    /// The bounds of every network operation: HTTP requests of sparse
    /// indexes, and git fetches (see `net`).
    pub http: crate::http::HttpLimits,
}

/// What is recorded next to each clone.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct GitState {
    pub url: String,
    /// Seconds since the Unix epoch of the last successful fetch.
    pub fetched_at: u64,
    /// The commit the index ref pointed at after the last fetch.
    pub commit: String,
    #[serde(flatten)]
    pub extra: std::collections::BTreeMap<String, serde_json::Value>,
}

/// A fetched git index, ready to be read.
#[derive(Debug, Clone)]
pub struct GitIndex {
    pub url: String,
    /// The bare repository in the cache.
    pub repo_dir: PathBuf,
    /// The commit whose tree is read.
    pub commit: String,
    /// The repository and the commit's tree, opened on first read: a search
    /// reads one file per match, and reopening the repository each time
    /// would dominate it.
    opened: std::sync::Arc<Opened>,
}

#[derive(Default)]
struct Opened(std::sync::Mutex<Option<(git2::Repository, git2::Oid)>>);

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Opened")
    }
}

/// The clone directory of `url` under the cache.
pub fn clone_dir(cache_dir: &Path, url: &str) -> PathBuf {
    cache_dir
        .join("registries")
        .join(crate::git::cache_name(url))
}

/// The state file next to a clone directory.
pub fn state_path(clone: &Path) -> PathBuf {
    clone.with_extension("state.json")
}

pub fn read_state(clone: &Path) -> Option<GitState> {
    let bytes = std::fs::read(state_path(clone)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

impl GitIndex {
    /// Makes the clone of `url` current enough for `access` and returns it.
    /// `name` is the registry's name in messages.
    pub fn open(
        url: &str,
        name: &str,
        access: &GitAccess,
        reporter: &dyn Reporter,
    ) -> Result<GitIndex, IndexError> {
        let dir = clone_dir(&access.cache_dir, url);
        let git_err = |message: String| IndexError::Git {
            registry: name.to_string(),
            message,
        };
        let lock_path = dir.with_extension("lock");
        let _lock = FileLock::acquire(
            &lock_path,
            LockKind::Exclusive,
            "the registry cache",
            reporter,
        )
        .map_err(|e| git_err(format!("cannot lock {}: {e}", lock_path.display())))?;
        let state = read_state(&dir).filter(|s| s.url == url);
        let cached = state
            .as_ref()
            .and_then(|s| current_commit(&dir).map(|c| (s.clone(), c)));
        let age_of = |s: &GitState| now().saturating_sub(s.fetched_at);

        if access.offline {
            let Some((state, commit)) = cached else {
                return Err(IndexError::Offline {
                    registry: name.to_string(),
                });
            };
            let age_secs = age_of(&state);
            if Duration::from_secs(age_secs) >= access.ttl {
                reporter.report(Event::Warning(Warning::OfflineCopy {
                    registry: name.to_string(),
                    age_secs,
                }));
            }
            return Ok(GitIndex {
                url: url.to_string(),
                repo_dir: dir,
                commit,
                opened: Default::default(),
            });
        }
        if let Some((state, commit)) = &cached {
            if !access.refresh && Duration::from_secs(age_of(state)) < access.ttl {
                return Ok(GitIndex {
                    url: url.to_string(),
                    repo_dir: dir,
                    commit: commit.clone(),
                    opened: Default::default(),
                });
            }
        }

        reporter.report(Event::UpdatingRegistry {
            registry: name.to_string(),
            url: url.to_string(),
        });
        let existed = dir.exists();
        // The last commit seen: what this fetch must fast-forward from.
        let seen = state
            .as_ref()
            .map(|s| s.commit.clone())
            .filter(|c| !c.is_empty());
        match fetch(&dir, url, name, access, reporter) {
            Ok(commit) => {
                if let Some(seen) = seen.filter(|s| *s != commit) {
                    if !descends_from(&dir, &commit, &seen) {
                        if !access.allow_rollback {
                            // Keep reading the last good commit.
                            let _ = set_index_ref(&dir, &seen);
                            return Err(IndexError::Rollback {
                                registry: name.to_string(),
                                seen,
                                found: commit,
                            });
                        }
                        reporter.report(Event::Warning(Warning::RollbackAccepted {
                            registry: name.to_string(),
                            seen,
                            found: commit.clone(),
                        }));
                    }
                }
                let mut new_state = state.unwrap_or_default();
                new_state.url = url.to_string();
                new_state.fetched_at = now();
                new_state.commit = commit.clone();
                let text = serde_json::to_string_pretty(&new_state).expect("state serialises");
                // A state that cannot be written only costs a fetch next time.
                let _ = crate::fs::atomic_write(&state_path(&dir), text.as_bytes());
                Ok(GitIndex {
                    url: url.to_string(),
                    repo_dir: dir,
                    commit,
                    opened: Default::default(),
                })
            }
            Err(e) => match cached {
                Some((state, commit)) => {
                    reporter.report(Event::Warning(Warning::UnreachableRegistry {
                        registry: name.to_string(),
                        path: None,
                        problem: e.to_string(),
                        age_secs: age_of(&state),
                    }));
                    Ok(GitIndex {
                        url: url.to_string(),
                        repo_dir: dir,
                        commit,
                        opened: Default::default(),
                    })
                }
                None => {
                    if !existed {
                        let _ = std::fs::remove_dir_all(&dir);
                    }
                    Err(match e.network_hint() {
                        Some(hint) => IndexError::NoAnswer {
                            registry: name.to_string(),
                            message: e.to_string(),
                            hint,
                        },
                        None => git_err(e.to_string()),
                    })
                }
            },
        }
    }

    /// Reads one file of the index at the fetched commit; `None` when absent.
    pub fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, GitReadError> {
        self.read_limited(rel, MAX_INDEX_FILE)
    }

    /// Reads one file, refusing it before loading when it is larger than
    /// `max` bytes: a hostile index must not make orla inflate a huge blob
    /// into memory.
    pub fn read_limited(&self, rel: &str, max: u64) -> Result<Option<Vec<u8>>, GitReadError> {
        let mut opened = self.opened.0.lock().map_err(|_| GitReadError::Poisoned)?;
        if opened.is_none() {
            let repo = git2::Repository::open_bare(&self.repo_dir)?;
            let oid = git2::Oid::from_str(&self.commit)?;
            let tree = repo.find_commit(oid).and_then(|c| c.tree())?.id();
            *opened = Some((repo, tree));
        }
        let (repo, tree) = opened.as_ref().expect("opened above");
        let tree = repo.find_tree(*tree)?;
        let entry = match tree.get_path(Path::new(rel)) {
            Ok(entry) => entry,
            Err(e) if e.code() == git2::ErrorCode::NotFound => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let (size, _) = repo.odb().and_then(|odb| odb.read_header(entry.id()))?;
        if size as u64 > max {
            return Err(GitReadError::TooLarge {
                path: rel.to_string(),
                size: size as u64,
                max,
            });
        }
        let object = entry.to_object(repo)?;
        let content = object.as_blob().map(|blob| blob.content().to_vec());
        Ok(content)
    }
}

/// True when `commit` is `ancestor` or a descendant of it. A commit that
/// cannot be found (a damaged clone) counts as not descending.
fn descends_from(dir: &Path, commit: &str, ancestor: &str) -> bool {
    let check = || -> Result<bool, git2::Error> {
        let repo = git2::Repository::open_bare(dir)?;
        let new = git2::Oid::from_str(commit)?;
        let old = git2::Oid::from_str(ancestor)?;
        if new == old {
            return Ok(true);
        }
        repo.find_commit(old)?;
        repo.graph_descendant_of(new, old)
    };
    check().unwrap_or(false)
}

/// Points the index ref back at `commit`.
fn set_index_ref(dir: &Path, commit: &str) -> Result<(), git2::Error> {
    let repo = git2::Repository::open_bare(dir)?;
    let oid = git2::Oid::from_str(commit)?;
    repo.find_commit(oid)?;
    repo.reference(INDEX_REF, oid, true, "orla: refuse a rolled-back index")?;
    Ok(())
}

/// The commit of the index ref in an existing clone.
fn current_commit(dir: &Path) -> Option<String> {
    let repo = git2::Repository::open_bare(dir).ok()?;
    let commit = repo.refname_to_id(INDEX_REF).ok()?;
    Some(commit.to_string())
}

/// Fetches the remote's HEAD into the index ref; returns the new commit.
/// The bytes received go to the reporter as a progress bar (a large
/// index's first fetch takes seconds).
fn fetch(
    dir: &Path,
    url: &str,
    name: &str,
    access: &GitAccess,
    reporter: &dyn Reporter,
) -> Result<String, GitError> {
    let repo = crate::git::open_or_init_bare(dir)?;
    let shown = super::waited_for(Some(name), url);
    crate::git::fetch(
        &repo,
        url,
        &[format!("+HEAD:{INDEX_REF}")],
        |options| {
            options.download_tags(git2::AutotagOption::None);
        },
        access.http,
        &shown,
        Some(&format!("registry {name}")),
        reporter,
    )?;
    let commit = repo.refname_to_id(INDEX_REF)?;
    Ok(commit.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clone_dirs_are_sanitised_and_distinct() {
        let cache = Path::new("/c");
        let a = clone_dir(cache, "https://example.com/Org/My.Index.git");
        let b = clone_dir(cache, "https://example.org/Org/My.Index.git");
        assert_ne!(a, b);
        let name = a.file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with("my_index-"), "{name}");
        assert!(name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
        assert_eq!(state_path(&a).extension().unwrap(), "json");
    }
}
