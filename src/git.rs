//! git2 plumbing shared by git registries (`index::git`) and the git
//! repositories of RFC 3 git-source tools (`fetch::git`): where a URL's bare
//! repository lives in the cache, opening or creating it, its errors, and
//! the time of day its ages are measured from.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// A git operation on a bare repository in the cache that failed.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("cannot create {}: {source}", dir.display())]
    CreateDir {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// git2's own message, without its class and code.
    #[error("{}", source.message())]
    Git {
        #[from]
        source: git2::Error,
    },
}

/// The cache directory name of `url`'s bare repository: the URL's last path
/// segment reduced to `[a-z0-9_-]` (at most 40 characters), then the first
/// 16 hex digits of the URL's BLAKE3, so two URLs never share a repository
/// and a hostile URL cannot form a path.
pub fn cache_name(url: &str) -> String {
    let last = url
        .trim_end_matches('/')
        .trim_end_matches(".git")
        .rsplit(['/', '\\', ':'])
        .next()
        .unwrap_or("");
    let mut name: String = last
        .chars()
        .map(|c| c.to_ascii_lowercase())
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    if name.is_empty() {
        name.push_str("index");
    }
    let hash = blake3::hash(url.as_bytes()).to_hex();
    format!("{name}-{}", &hash[..16])
}

/// Opens the bare repository at `dir`, creating it when there is none.
pub fn open_or_init_bare(dir: &Path) -> Result<git2::Repository, GitError> {
    match git2::Repository::open_bare(dir) {
        Ok(repo) => Ok(repo),
        Err(_) => {
            std::fs::create_dir_all(dir).map_err(|source| GitError::CreateDir {
                dir: dir.to_path_buf(),
                source,
            })?;
            Ok(git2::Repository::init_bare(dir)?)
        }
    }
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}
