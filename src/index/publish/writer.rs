//! An index opened for writing: its lock, reading what is there, and
//! writing one change set (files written atomically into a directory or a
//! working tree, then one commit in a git repository).

use std::path::{Path, PathBuf};

use super::{git, Change, IndexTarget, PublishError};
use crate::fs::atomic_write;
use crate::index::{shard_path, IndexConfig, VersionRecord, INDEX_FORMAT};
use crate::lock::{FileLock, LockKind};
use crate::progress::Reporter;
use crate::verify::Digest;

/// An index opened for writing, holding its lock.
pub struct IndexWriter {
    target: IndexTarget,
    location: String,
    repo: Option<git2::Repository>,
    _lock: FileLock,
}

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

    pub(super) fn io(
        &self,
        action: &'static str,
        path: &str,
        e: impl std::fmt::Display,
    ) -> PublishError {
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
                git::read_head_file(repo, rel).map_err(|e| self.git(e))
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

    pub(super) fn malformed(&self, path: &str, message: impl std::fmt::Display) -> PublishError {
        PublishError::Malformed {
            location: self.location.clone(),
            path: path.to_string(),
            message: message.to_string(),
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
        let id = git::commit(repo, changes, message).map_err(|e| self.git(e))?;
        Ok(Some(id.to_string()))
    }
}
