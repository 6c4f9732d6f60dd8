//! `--index LOCATION`: a plain directory, a git working tree or a bare
//! repository, on this machine.

use std::path::{Path, PathBuf};

use super::PublishError;

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
            (
                crate::fs::normalize(&cwd.join(text_path)),
                text.starts_with("git+"),
            )
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
