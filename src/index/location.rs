//! Parsing a registry location (`--registry`, config files, `ORLA_REGISTRY`).
//!
//! - `builtin`: the index compiled into the binary;
//! - a directory holding `config.json`: read in place;
//! - a git repository: `git+URL`, `file://...`, `https://...`,
//!   `http://...`, `git://...`, or a local path to a git repository (bare or
//!   not) that has no `config.json` in its working directory. It is cloned
//!   into the cache and fetched again when older than the TTL;
//! - `sparse+https://...` or `sparse+http://...`: the index's files fetched
//!   one at a time over HTTP (see `sparse`).

use std::path::{Path, PathBuf};

use super::IndexError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistryLocation {
    /// The repository's `registry-index/`, compiled into the binary.
    Builtin,
    /// A local directory holding an index.
    Dir(PathBuf),
    /// A git repository holding an index, by URL (without any `git+` prefix).
    Git(String),
    /// A sparse HTTP index: the index's files under a base URL (without the
    /// `sparse+` prefix).
    Sparse(String),
}

impl RegistryLocation {
    /// Parses a location given on the command line or in configuration;
    /// relative paths are taken from `cwd`.
    pub fn parse(text: &str, cwd: &Path) -> Result<RegistryLocation, IndexError> {
        if text == "builtin" {
            return Ok(RegistryLocation::Builtin);
        }
        if let Some(url) = text.strip_prefix("git+") {
            return RegistryLocation::parse_git(text, url);
        }
        if let Some(url) = text.strip_prefix("sparse+") {
            if url.starts_with("https://") || url.starts_with("http://") {
                return Ok(RegistryLocation::Sparse(url.to_string()));
            }
            return Err(IndexError::BadLocation {
                location: text.to_string(),
                reason: "is not sparse+https:// or sparse+http://".into(),
            });
        }
        if text.contains("://") {
            return RegistryLocation::parse_git(text, text);
        }
        let path = crate::fs::normalize(&cwd.join(text));
        if !path.is_dir() {
            // `git@host:owner/repo.git`: an scp-like SSH address, not a path.
            let scp_like = text
                .split_once(':')
                .is_some_and(|(host, _)| host.contains('@') && !host.contains('/'));
            if scp_like {
                return RegistryLocation::parse_git(text, text);
            }
            return Err(IndexError::BadLocation {
                location: text.to_string(),
                reason: if path.exists() {
                    "is not a directory".into()
                } else {
                    "does not exist".into()
                },
            });
        }
        let path = path.canonicalize().unwrap_or(path);
        if !path.join("config.json").is_file() && is_git_repo(&path) {
            return Ok(RegistryLocation::Git(path.display().to_string()));
        }
        Ok(RegistryLocation::Dir(path))
    }
}

impl RegistryLocation {
    /// A git URL, by scheme. orla's git is built with HTTPS but without SSH
    /// (no libssh2), so `ssh://` and scp-like URLs are refused up front
    /// rather than failing inside libgit2.
    fn parse_git(text: &str, url: &str) -> Result<RegistryLocation, IndexError> {
        let scheme = url.split_once("://").map(|(s, _)| s);
        match scheme {
            Some("file" | "https" | "http" | "git") => Ok(RegistryLocation::Git(url.to_string())),
            Some("ssh") | None if url.starts_with("ssh://") || url.contains('@') => {
                Err(IndexError::BadLocation {
                    location: text.to_string(),
                    reason: "is an SSH URL; this orla fetches git over https://, http://, git:// and file:// only".into(),
                })
            }
            None => Ok(RegistryLocation::Git(url.to_string())),
            Some(other) => Err(IndexError::BadLocation {
                location: text.to_string(),
                reason: format!("uses the scheme '{other}', which orla does not read"),
            }),
        }
    }
}

/// A bare repository or a working tree with `.git`.
fn is_git_repo(path: &Path) -> bool {
    path.join(".git").exists() || (path.join("HEAD").is_file() && path.join("objects").is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_git_locations() {
        let cwd = Path::new("/");
        for (text, url) in [
            ("git+https://h/i.git", "https://h/i.git"),
            ("https://h/i.git", "https://h/i.git"),
            ("file:///srv/index", "file:///srv/index"),
            ("git+file:///srv/index", "file:///srv/index"),
        ] {
            assert_eq!(
                RegistryLocation::parse(text, cwd).unwrap(),
                RegistryLocation::Git(url.into())
            );
        }
        assert!(RegistryLocation::parse("ftp://h/x", cwd).is_err());
        assert!(RegistryLocation::parse("git+ssh://h/x", cwd).is_err());
        assert!(RegistryLocation::parse("git+git@host:org/index.git", cwd).is_err());
        assert_eq!(
            RegistryLocation::parse("git+/srv/index.git", cwd).unwrap(),
            RegistryLocation::Git("/srv/index.git".into())
        );
        assert_eq!(
            RegistryLocation::parse("sparse+https://h/x/", cwd).unwrap(),
            RegistryLocation::Sparse("https://h/x/".into())
        );
        assert!(RegistryLocation::parse("sparse+ftp://h/x", cwd).is_err());
    }

    #[test]
    fn an_scp_like_address_is_called_ssh_and_a_missing_path_missing() {
        let cwd = Path::new("/");
        let reason = |text: &str| match RegistryLocation::parse(text, cwd) {
            Err(IndexError::BadLocation { reason, .. }) => reason,
            other => panic!("{text}: {other:?}"),
        };
        assert!(reason("git@github.com:org/index.git").contains("is an SSH URL"));
        assert_eq!(reason("/nonexistent/index"), "does not exist");
        let file = tempfile::NamedTempFile::new().unwrap();
        assert_eq!(reason(file.path().to_str().unwrap()), "is not a directory");
    }
}
