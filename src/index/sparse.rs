//! Sparse HTTP indexes (`sparse+https://host/path/`): the same files as a
//! directory or git index, fetched one by one over HTTP, as cargo's sparse
//! protocol does. Looking a tool up costs `config.json` and the tool's one
//! file, never the whole registry; `search` fetches `registry.yaml`.
//!
//! Each file fetched is kept under `<cache>/sparse/<name>-<hash>/<path>`
//! with its ETag beside it (`<path>.etag`). A cached file younger than the
//! registry TTL (its modification time is the time it was last fetched or
//! revalidated) is used as it is; an older one is revalidated with
//! `If-None-Match`, so an unchanged file costs a 304 and no body. With
//! `--offline` only the cache is read, and when the server cannot be reached
//! a cached copy is used with a warning, as for git indexes. A 404 or 410
//! means the file does not exist. Archive paths relative to the index are
//! fetched from the same base URL.
//!
//! A command that looks up tools fetches their files first, in parallel
//! and together with `config.json` when the index is opened for them
//! (`prefetch`; at most `http::PER_HOST` requests to the host at once, as
//! for archives), and each lookup then takes its file's answer:
//! the same bytes, error or warning a lookup of its own would have had, in
//! the same order, so the first error in request order is still the one
//! reported.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use super::git::GitAccess;
use crate::http::{HttpClient, RequestError, Small, PER_HOST};
use crate::progress::{Event, Reporter, Warning};

/// A sparse index: its base URL (ending in `/`) and its cache directory.
#[derive(Debug, Clone)]
pub struct SparseIndex {
    pub base: String,
    pub dir: PathBuf,
    name: String,
    ttl: Duration,
    offline: bool,
    refresh: bool,
    limits: crate::http::HttpLimits,
    /// Warnings go through the run's reporter; it is not `Clone`, so
    /// stale-copy warnings are collected and printed by the registry.
    warnings: Arc<Mutex<Vec<Warning>>>,
    /// Files fetched ahead by `prefetch`, each taken by the first read of it.
    fetched: Arc<Mutex<HashMap<String, Fetched>>>,
}

/// Why a file of a sparse index could not be had.
#[derive(Debug, thiserror::Error)]
pub enum SparseError {
    /// `config.json` is not cached, and `--offline` forbids fetching it
    /// (another file not cached counts as missing).
    #[error("{base} is not in the cache and --offline forbids the network")]
    Offline { base: String },
    #[error(transparent)]
    Request(#[from] RequestError),
}

/// One file's answer: its bytes (`None`: it does not exist) or why it
/// could not be fetched, and the warning to give when it is read.
#[derive(Debug)]
struct Fetched {
    result: Result<Option<Vec<u8>>, SparseError>,
    warning: Option<Warning>,
}

impl SparseIndex {
    pub fn new(base: &str, name: &str, access: &GitAccess) -> SparseIndex {
        let base = if base.ends_with('/') {
            base.to_string()
        } else {
            format!("{base}/")
        };
        let dir = super::git::clone_dir(&access.cache_dir, &base);
        let dir = access
            .cache_dir
            .join("sparse")
            .join(dir.file_name().expect("clone dirs have a name"));
        SparseIndex {
            base,
            dir,
            name: name.to_string(),
            ttl: access.ttl,
            offline: access.offline,
            refresh: access.refresh,
            limits: access.http,
            warnings: Default::default(),
            fetched: Default::default(),
        }
    }

    /// The URL of a file of the index.
    pub fn url(&self, rel: &str) -> String {
        format!("{}{rel}", self.base)
    }

    /// Prints and forgets the warnings collected so far.
    pub fn flush_warnings(&self, reporter: &dyn Reporter) {
        if let Ok(mut w) = self.warnings.lock() {
            for warning in w.drain(..) {
                reporter.report(Event::Warning(warning));
            }
        }
    }

    fn warn(&self, warning: Warning) {
        if let Ok(mut w) = self.warnings.lock() {
            if !w.contains(&warning) {
                w.push(warning);
            }
        }
    }

    /// Reads one file; `None` when the server says it does not exist.
    /// `rel` must not escape the index (callers pass shard paths and
    /// checked archive paths).
    pub fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, SparseError> {
        let ahead = self
            .fetched
            .lock()
            .ok()
            .and_then(|mut fetched| fetched.remove(rel));
        let Fetched { result, warning } = ahead.unwrap_or_else(|| self.fetch(rel));
        if let Some(warning) = warning {
            self.warn(warning);
        }
        result
    }

    /// What `prefetch` found for `rel`, without taking it: `Some(true)` the
    /// file exists, `Some(false)` the server says it does not; `None` when
    /// it was not fetched ahead, was read already, or could not be fetched.
    pub fn prefetched(&self, rel: &str) -> Option<bool> {
        let fetched = self.fetched.lock().ok()?;
        match fetched.get(rel)?.result {
            Ok(ref found) => Some(found.is_some()),
            Err(_) => None,
        }
    }

    /// Fetches `rels` in parallel, for the reads that follow, except those
    /// fetched ahead already and not read yet. Offline there is nothing to
    /// overlap.
    pub fn prefetch(&self, rels: &[String]) {
        let rels: Vec<String> = match self.fetched.lock() {
            Ok(fetched) => rels
                .iter()
                .filter(|rel| !fetched.contains_key(*rel))
                .cloned()
                .collect(),
            Err(_) => return,
        };
        if self.offline || rels.is_empty() {
            return;
        }
        let fetched = crate::parallel::map(&rels, PER_HOST, |rel| self.fetch(rel));
        if let Ok(mut map) = self.fetched.lock() {
            map.extend(rels.into_iter().zip(fetched));
        }
    }

    /// Fetches one file (from the cache while it is fresh), as `read`
    /// returns it, with the warning `read` gives.
    fn fetch(&self, rel: &str) -> Fetched {
        let mut warning = None;
        let result = self.fetch_warning(rel, &mut warning);
        Fetched { result, warning }
    }

    fn fetch_warning(
        &self,
        rel: &str,
        warning: &mut Option<Warning>,
    ) -> Result<Option<Vec<u8>>, SparseError> {
        let path = self.dir.join(rel);
        let etag_path = PathBuf::from(format!("{}.etag", path.display()));
        let cached = std::fs::read(&path).ok().and_then(unsealed);
        let age_secs = modified_age(&path);
        if self.offline {
            return match cached {
                Some(bytes) => {
                    let age_secs = age_secs.unwrap_or_default();
                    if Duration::from_secs(age_secs) >= self.ttl {
                        *warning = Some(Warning::OfflineCopy {
                            registry: self.name.clone(),
                            age_secs,
                        });
                    }
                    Ok(Some(bytes))
                }
                None if rel == "config.json" => Err(SparseError::Offline {
                    base: self.base.clone(),
                }),
                None => Ok(None),
            };
        }
        if let (Some(bytes), Some(age)) = (&cached, age_secs) {
            if !self.refresh && Duration::from_secs(age) < self.ttl {
                return Ok(Some(bytes.clone()));
            }
        }
        let etag = cached
            .as_ref()
            .and_then(|_| std::fs::read_to_string(&etag_path).ok());
        let client = HttpClient::with_limits(self.limits);
        match client.get_small(&self.url(rel), etag.as_deref(), super::MAX_INDEX_FILE) {
            Ok(Small::Found(bytes, etag)) => {
                // A cache that cannot be written only costs a later request.
                // Not flushed: a file lost in a crash is fetched again, and
                // one left torn fails its digest (`unsealed`). The tag is
                // written after the file, so it never outlives it.
                if crate::fs::replace_unflushed(&path, &sealed(&bytes)).is_ok() {
                    match etag {
                        Some(tag) => {
                            let _ = crate::fs::replace_unflushed(&etag_path, tag.as_bytes());
                        }
                        None => {
                            let _ = std::fs::remove_file(&etag_path);
                        }
                    }
                }
                Ok(Some(bytes))
            }
            Ok(Small::NotModified) => {
                if let Ok(file) = std::fs::File::options().append(true).open(&path) {
                    let _ = file.set_modified(SystemTime::now());
                }
                Ok(cached)
            }
            Ok(Small::Missing) => {
                let _ = std::fs::remove_file(&path);
                let _ = std::fs::remove_file(&etag_path);
                Ok(None)
            }
            Err(e) => match cached {
                Some(bytes) => {
                    *warning = Some(Warning::UnreachableRegistry {
                        registry: self.name.clone(),
                        path: Some(rel.to_string()),
                        problem: e.to_string(),
                        age_secs: age_secs.unwrap_or_default(),
                    });
                    Ok(Some(bytes))
                }
                None => Err(e.into()),
            },
        }
    }
}

/// How long a cached file's seal is: a NUL byte (which no index file
/// holds), the BLAKE3 of the bytes before it in hex, and a line break.
const SEAL_LEN: usize = 1 + 64 + 1;

/// `bytes` as they are cached: followed by their seal.
fn sealed(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + SEAL_LEN);
    out.extend_from_slice(bytes);
    out.push(0);
    out.extend_from_slice(blake3::hash(bytes).to_hex().as_bytes());
    out.push(b'\n');
    out
}

/// The bytes of a cached file whose seal holds; None for one a crash left
/// empty or torn, or written by an orla that did not seal its cache (then
/// it is fetched again).
fn unsealed(mut cached: Vec<u8>) -> Option<Vec<u8>> {
    let len = cached.len().checked_sub(SEAL_LEN)?;
    let (bytes, seal) = cached.split_at(len);
    let holds = seal[0] == 0
        && seal[SEAL_LEN - 1] == b'\n'
        && seal[1..SEAL_LEN - 1] == *blake3::hash(bytes).to_hex().as_bytes();
    holds.then(|| {
        cached.truncate(len);
        cached
    })
}

fn modified_age(path: &Path) -> Option<u64> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    Some(
        SystemTime::now()
            .duration_since(modified)
            .unwrap_or_default()
            .as_secs(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cached file reads back only whole and as written: one cut short
    /// anywhere (a crash before its data reached the disk), changed, or
    /// never sealed (an older orla's) is fetched again.
    #[test]
    fn a_cached_file_reads_back_only_whole() {
        let bytes = br#"{"name":"beta","version":"1.0.0"}"#.to_vec();
        let cached = sealed(&bytes);
        assert_eq!(cached.len(), bytes.len() + SEAL_LEN);
        assert_eq!(unsealed(cached.clone()), Some(bytes.clone()));
        assert_eq!(unsealed(sealed(b"")), Some(Vec::new()));
        for len in 0..cached.len() {
            assert_eq!(unsealed(cached[..len].to_vec()), None, "cut at {len}");
        }
        for at in 0..cached.len() {
            let mut changed = cached.clone();
            changed[at] ^= 1;
            assert_eq!(unsealed(changed), None, "byte {at} changed");
        }
        assert_eq!(unsealed(bytes), None, "not sealed");
    }
}
