//! git2 plumbing shared by git registries (`index::git`) and the git
//! repositories of RFC 3 git-source tools (`fetch::git`): where a URL's bare
//! repository lives in the cache, opening or creating it, fetching into it
//! within the network bounds (`net`), its errors, and the time of day its
//! ages are measured from.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::http::HttpLimits;
use crate::progress::Reporter;

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
    /// Connecting, or any read, took longer than the inactivity timeout.
    #[error("{url} did not answer within {} s", .after.as_secs())]
    TimedOut { url: String, after: Duration },
    /// The whole fetch took longer than the deadline.
    #[error("fetching {url} took longer than {} s (ORLA_HTTP_DEADLINE)", .after.as_secs())]
    Deadline { url: String, after: Duration },
}

impl GitError {
    /// The hint for a fetch that failed on the network's account.
    pub fn network_hint(&self) -> Option<String> {
        match self {
            GitError::TimedOut { after, .. } => Some(crate::http::timeout_hint(*after)),
            GitError::Deadline { .. } => {
                Some("the server is too slow: try again later, or raise ORLA_HTTP_DEADLINE".into())
            }
            _ => None,
        }
    }
}

/// Sets libgit2's server timeouts (connecting, and each read or write) to
/// `timeout`. They are process-wide settings of libgit2, so this is called
/// once, while the process has a single thread (`Context::from_env`).
pub fn set_timeouts(timeout: Duration) {
    let ms = i32::try_from(timeout.as_millis())
        .unwrap_or(i32::MAX)
        .max(1);
    // SAFETY: libgit2 reads these integers when it connects; they are
    // written before any thread that fetches exists.
    unsafe {
        let _ = git2::opts::set_server_connect_timeout_in_milliseconds(ms);
        let _ = git2::opts::set_server_timeout_in_milliseconds(ms);
    }
}

/// Fetches `refspecs` of `url` into `repo` with the options `configure`
/// sets (the callbacks are set here), within `limits`: libgit2's server timeouts
/// ([`set_timeouts`]) bound connecting and each read, the transfer's
/// progress stops it past the deadline, and after a silent start `what` is
/// said to be waited for (`net::watched`). `bar` labels a progress bar of
/// the bytes received.
#[allow(clippy::too_many_arguments)]
pub fn fetch(
    repo: &git2::Repository,
    url: &str,
    refspecs: &[String],
    configure: impl FnOnce(&mut git2::FetchOptions<'_>),
    limits: HttpLimits,
    what: &str,
    bar: Option<&str>,
    reporter: &dyn Reporter,
) -> Result<(), GitError> {
    let mut remote = repo.remote_anonymous(url)?;
    let started = Instant::now();
    let overdue = std::cell::Cell::new(false);
    let shown: std::cell::Cell<Option<(usize, usize)>> = std::cell::Cell::new(None);
    let fetched = crate::net::watched(reporter, what, limits.timeout, |answered| {
        let mut callbacks = git2::RemoteCallbacks::new();
        callbacks.sideband_progress(|_| {
            answered.set();
            true
        });
        callbacks.transfer_progress(|progress| {
            answered.set();
            if started.elapsed() > limits.deadline {
                overdue.set(true);
                return false;
            }
            if let Some(label) = bar {
                // Bytes received, with no total: git does not know it in advance.
                let done = progress.received_bytes();
                let (id, before) = shown
                    .get()
                    .unwrap_or_else(|| (reporter.download_start(label, None), 0));
                if done > before {
                    reporter.download_progress(id, (done - before) as u64);
                }
                shown.set(Some((id, done.max(before))));
            }
            true
        });
        let mut options = git2::FetchOptions::new();
        configure(&mut options);
        options.remote_callbacks(callbacks);
        let fetched = remote.fetch(refspecs, Some(&mut options), None);
        drop(options);
        fetched
    });
    if let Some((id, _)) = shown.get() {
        reporter.download_finish(id);
    }
    fetched.map_err(|source| {
        let url = crate::http::without_credentials(url);
        if overdue.get() {
            GitError::Deadline {
                url,
                after: limits.deadline,
            }
        } else if is_timeout(&source) {
            GitError::TimedOut {
                url,
                after: limits.timeout,
            }
        } else {
            GitError::Git { source }
        }
    })
}

/// libgit2's error for a connection or read that ran out of time.
fn is_timeout(e: &git2::Error) -> bool {
    e.code() == git2::ErrorCode::Timeout
        || (e.class() == git2::ErrorClass::Net && e.message().contains("timed out"))
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
