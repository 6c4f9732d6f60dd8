//! Fetching archives: from the download cache, the built-in registry, a local
//! file or HTTP(S), streamed through the verifier into the hardened unpacker
//! in a single pass (read bytes -> BLAKE3 -> gunzip -> files).
//!
//! Downloads are cached by digest (see `cache`): an archive fetched over
//! HTTP is unpacked into a new entry of the cache, which is put in place
//! only once the digest matched, and the package is then linked out of the
//! cache into staging, each file checked against the entry's record. An
//! entry this fetcher added is taken out again unless the caller accepted
//! the package (`Fetcher::keep_downloads`), so a refused package leaves the
//! cache as it was. A damaged or foreign entry is thrown away and the
//! archive fetched again. Other archives (built in, local files) are
//! unpacked straight into staging.

mod cache;
pub mod git;

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

pub use cache::{human_size, parse_size, Cache, CacheError, Freed, Item, Kind, PruneRules};

use crate::http::HttpClient;
use crate::index::ArchiveLocation;
use crate::progress::Reporter;
use crate::unpack::{self, Limits, UnpackError, Unpacked};
use crate::verify::{Expected, IntegrityError, TooLong, Verifier};

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("cannot read archive {path}: {source}")]
    File {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error(transparent)]
    Http(#[from] crate::http::HttpError),
    #[error("{source}")]
    Verify {
        label: String,
        #[source]
        source: IntegrityError,
    },
    #[error("{label}: {source}")]
    Unpack {
        label: String,
        #[source]
        source: UnpackError,
    },
    #[error("{label}: {url} is not in the download cache and --offline forbids the network")]
    Offline { label: String, url: String },
}

impl FetchError {
    pub fn hint(&self) -> Option<String> {
        match self {
            FetchError::Verify { .. } => Some(
                "the archive is not the one the registry recorded, so nothing was installed; report it to the registry's maintainers".into(),
            ),
            FetchError::Unpack {
                source: UnpackError::Io { source, .. },
                ..
            } => Some(if crate::fs::is_out_of_space(source) {
                "free some disk space (or raise the quota) and run the command again; nothing was installed".into()
            } else {
                "check that you may write to the install root, or set ORLA_HOME; nothing was installed".into()
            }),
            FetchError::Unpack { .. } => Some(
                "the archive was refused as unsafe or broken, so nothing was installed; report it to the tool's maintainers".into(),
            ),
            FetchError::Offline { .. } => Some("run once without --offline to fill the cache".into()),
            FetchError::Http(_) => Some("check your connection and the registry's archive URL, then try again".into()),
            FetchError::File { source, .. } if crate::fs::is_out_of_space(source) => Some(
                "free some disk space (or raise the quota) and run the command again; nothing was installed".into(),
            ),
            FetchError::File { source, .. } if source.kind() == io::ErrorKind::NotFound => Some(
                "the registry names an archive that is not there, so nothing was installed; report it to the registry's maintainers".into(),
            ),
            FetchError::File { source, .. } if source.kind() == io::ErrorKind::PermissionDenied => {
                Some("check that you may read the archive and write to the install root".into())
            }
            // Another I/O error, which the message names.
            FetchError::File { .. } => None,
        }
    }
}

/// One archive to fetch and unpack.
#[derive(Debug, Clone)]
pub struct Job {
    /// `name version`, for messages.
    pub label: String,
    pub location: ArchiveLocation,
    pub expected: Expected,
}

/// Fetches archives; shared by the threads of a parallel install.
pub struct Fetcher {
    pub cache: Cache,
    http: HttpClient,
    offline: bool,
    /// Entries this fetcher put in the cache: taken out again when it is
    /// dropped, unless `keep_downloads` was called once the packages they
    /// hold were accepted.
    added: std::sync::Mutex<Vec<crate::verify::Digest>>,
}

impl Drop for Fetcher {
    fn drop(&mut self) {
        let added = std::mem::take(self.added.get_mut().unwrap_or_else(|e| e.into_inner()));
        for digest in &added {
            self.cache.forget_unpacked(digest);
        }
        self.cache.tidy();
    }
}

impl Fetcher {
    pub fn new(cache: Cache, offline: bool) -> Fetcher {
        Fetcher {
            cache,
            http: HttpClient::new(),
            offline,
            added: Default::default(),
        }
    }

    /// Keeps the entries this fetcher put in the cache. Call it once the
    /// packages were validated and installed.
    pub fn keep_downloads(&self) {
        self.take_added();
    }

    /// Keeps the entries this fetcher put in the cache and hands their
    /// digests to the caller, who takes them out again if it must.
    pub fn take_added(&self) -> Vec<crate::verify::Digest> {
        std::mem::take(&mut *self.added.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Sets the inactivity timeout of HTTP downloads.
    pub fn with_timeout(mut self, timeout: std::time::Duration) -> Fetcher {
        self.http = HttpClient::with_timeout(timeout);
        self
    }

    /// Sets every bound of HTTP downloads (inactivity, deadline, minimum rate).
    pub fn with_http_limits(mut self, limits: crate::http::HttpLimits) -> Fetcher {
        self.http = HttpClient::with_limits(limits);
        self
    }

    /// The verified package of `job` in the empty directory `dest`. An HTTP
    /// archive goes through the cache (downloaded into it first unless it
    /// is there); where the cache cannot be written, and for every other
    /// location, the archive is streamed straight into `dest`. Nothing in
    /// `dest` may be used unless this returns `Ok`.
    pub fn fetch_unpack(
        &self,
        job: &Job,
        dest: &Path,
        reporter: &dyn Reporter,
    ) -> Result<Unpacked, FetchError> {
        if matches!(job.location, ArchiveLocation::Http(_)) {
            if let Some(unpacked) = self.cached_into(job, dest, reporter)? {
                return Ok(unpacked);
            }
            if self.fill(job, reporter)? {
                if let Some(unpacked) = self.cached_into(job, dest, reporter)? {
                    return Ok(unpacked);
                }
            }
        }
        self.download(job, dest, reporter)
    }

    /// Downloads the HTTP archive of `job`, verifies it and puts the
    /// package in the cache, unless it is there already. False when the
    /// cache cannot be written (the caller then downloads into staging).
    pub fn fill(&self, job: &Job, reporter: &dyn Reporter) -> Result<bool, FetchError> {
        let digest = job.expected.blake3;
        if self.cache.has(&digest) {
            return Ok(true);
        }
        // What a power cut may leave of an entry: its directory without
        // its record (nothing of an entry is flushed).
        if self.cache.has_without_record(&digest) {
            warn_damaged(job, "its record is missing", reporter);
        }
        let Ok(entry) = self.cache.entry_dir() else {
            return Ok(false);
        };
        let unpacked = self.download(job, &Cache::entry_tree(entry.path()), reporter)?;
        if self.cache.put(entry, &digest, &unpacked).is_err() {
            return Ok(false);
        }
        self.added
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(digest);
        Ok(true)
    }

    /// The cached package of `job` linked into `dest` and checked, if the
    /// cache holds it; a damaged entry is dropped (and said to be) and
    /// `dest` emptied.
    fn cached_into(
        &self,
        job: &Job,
        dest: &Path,
        reporter: &dyn Reporter,
    ) -> Result<Option<Unpacked>, FetchError> {
        match self.cache.unpacked_into(&job.expected.blake3, dest) {
            Ok(found) => Ok(found),
            Err(damaged) => {
                if let cache::Damaged::Content(why) = &damaged {
                    warn_damaged(job, why, reporter);
                }
                empty_dir(dest).map_err(|source| FetchError::File {
                    path: dest.display().to_string(),
                    source,
                })?;
                Ok(None)
            }
        }
    }

    /// Streams the archive of `job` from where it is into `dest`,
    /// verifying it on the way.
    fn download(
        &self,
        job: &Job,
        dest: &Path,
        reporter: &dyn Reporter,
    ) -> Result<Unpacked, FetchError> {
        let limits = Limits::for_archive(job.expected.size);
        let (reader, total): (Box<dyn Read + Send>, Option<u64>) = match &job.location {
            ArchiveLocation::Embedded { bytes, .. } => (Box::new(*bytes), Some(bytes.len() as u64)),
            ArchiveLocation::Memory { bytes, .. } => {
                let len = bytes.len() as u64;
                (
                    Box::new(io::Cursor::new(SharedBytes(bytes.clone()))),
                    Some(len),
                )
            }
            ArchiveLocation::File(path) => {
                let file = File::open(path).map_err(|source| FetchError::File {
                    path: path.display().to_string(),
                    source,
                })?;
                let len = file.metadata().ok().map(|m| m.len());
                (Box::new(file), len)
            }
            ArchiveLocation::Http(url) => {
                if self.offline {
                    return Err(FetchError::Offline {
                        label: job.label.clone(),
                        url: url.clone(),
                    });
                }
                // The body holds one of its host's places (`http::PER_HOST`)
                // until it has streamed through and is dropped.
                let (body, len) = self.http.get_reporting(url, reporter)?;
                (body, len.or(job.expected.size))
            }
        };
        let progress = reporter.download_start(&job.label, total);
        let reader = Progress {
            inner: reader,
            reporter,
            id: progress,
        };
        let result = stream(reader, job, dest, limits);
        reporter.download_finish(progress);
        if result.is_ok() {
            reporter.report(crate::progress::Event::Verified {
                label: job.label.clone(),
                blake3: job.expected.blake3.to_string(),
                size: job.expected.size,
            });
        }
        result
    }
}

fn warn_damaged(job: &Job, why: &str, reporter: &dyn Reporter) {
    reporter.report(crate::progress::Event::Warning(
        crate::progress::Warning::DamagedCacheEntry {
            label: job.label.clone(),
            why: why.to_string(),
        },
    ));
}

/// The single pass: source -> verifier -> gunzip -> untar.
fn stream(
    source: impl Read,
    job: &Job,
    dest: &Path,
    limits: Limits,
) -> Result<Unpacked, FetchError> {
    let mut verifier =
        Verifier::new(source, job.expected.size).with_sha256(job.expected.sha256.is_some());
    let unpacked = unpack::unpack(&mut verifier, dest, limits);
    // The digest is the root cause when it is wrong: a corrupt mirror shows
    // up as a digest mismatch, not as whatever the broken bytes did to tar.
    let verdict = match verifier.finish(&job.expected, &job.label) {
        Ok(v) => v,
        Err(e) if e.get_ref().is_some_and(|i| i.is::<TooLong>()) => {
            Err(IntegrityError::SizeMismatch {
                what: job.label.clone(),
                expected: job.expected.size.unwrap_or_default(),
                actual: verifier_overrun(job),
            })
        }
        Err(e) => {
            return Err(FetchError::Http(crate::http::HttpError {
                url: job.location.to_string(),
                message: e.to_string(),
            }))
        }
    };
    verdict.map_err(|source| FetchError::Verify {
        label: job.label.clone(),
        source,
    })?;
    unpacked.map_err(|source| FetchError::Unpack {
        label: job.label.clone(),
        source,
    })
}

/// What to report as the size of an archive that ran past its declared size.
fn verifier_overrun(job: &Job) -> u64 {
    job.expected.size.unwrap_or_default().saturating_add(1)
}

fn empty_dir(dir: &Path) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            std::fs::remove_dir_all(path)?;
        } else {
            std::fs::remove_file(path)?;
        }
    }
    Ok(())
}

struct Progress<'a, R> {
    inner: R,
    reporter: &'a dyn Reporter,
    id: usize,
}

impl<R: Read> Read for Progress<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.reporter.download_progress(self.id, n as u64);
        Ok(n)
    }
}

struct SharedBytes(std::sync::Arc<Vec<u8>>);

impl AsRef<[u8]> for SharedBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::Digest;
    use std::io::Write;

    /// The job of fetching `bytes` from `location`, recorded as they are.
    fn job_for(bytes: &[u8], location: ArchiveLocation) -> Job {
        Job {
            label: "t 1.0.0".into(),
            location,
            expected: Expected {
                blake3: Digest::of(bytes),
                size: Some(bytes.len() as u64),
                sha256: None,
            },
        }
    }

    fn archive() -> Vec<u8> {
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        let mut tar = tar::Builder::new(gz);
        let body = b"name: t\n";
        let mut header = tar::Header::new_gnu();
        header.set_size(body.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, "tool.yaml", &body[..])
            .unwrap();
        tar.into_inner().unwrap().finish().unwrap()
    }

    /// Serves `body` to every request on a loopback port: the URL.
    fn serve(body: Vec<u8>) -> String {
        counted(body).0
    }

    fn tree_archive() -> Vec<u8> {
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        let mut tar = tar::Builder::new(gz);
        for (path, body) in [
            ("t-1.0.0/tool.yaml", &b"name: t\n"[..]),
            ("t-1.0.0/bin/run", b"#!/bin/sh\n"),
            ("t-1.0.0/data/a/blob", b"some bytes"),
        ] {
            let mut header = tar::Header::new_gnu();
            header.set_size(body.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            tar.append_data(&mut header, path, body).unwrap();
        }
        tar.into_inner().unwrap().finish().unwrap()
    }

    /// Serves `body` to every request on a loopback port: the URL, and how
    /// many requests came.
    fn counted(body: Vec<u8>) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
        let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/t.tar.gz", listener.local_addr().unwrap());
        let seen = count.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { break };
                seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
                    head.push(byte[0]);
                }
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(reply.as_bytes());
                let _ = stream.write_all(&body);
            }
        });
        (url, count)
    }

    fn fresh(tmp: &Path, name: &str) -> std::path::PathBuf {
        let dir = tmp.join(name);
        std::fs::create_dir(&dir).unwrap();
        dir
    }

    /// An HTTP archive goes into the cache once and comes out of it for
    /// the next install without a request; an entry of a package that was
    /// not accepted (`keep_downloads` not called) leaves with its fetcher.
    #[test]
    fn a_download_joins_the_cache_only_once_accepted() {
        let bytes = archive();
        let (url, requests) = counted(bytes.clone());
        let job = job_for(&bytes, ArchiveLocation::Http(url));
        let tmp = tempfile::tempdir().unwrap();
        let cache = Cache::new(&tmp.path().join("cache")).with_key_file(tmp.path().join("key"));
        let silent = crate::progress::Silent;

        let refused = Fetcher::new(cache.clone(), false);
        let unpacked = refused
            .fetch_unpack(&job, &fresh(tmp.path(), "a"), &silent)
            .unwrap();
        assert!(unpacked.root.join("tool.yaml").is_file());
        assert!(cache.has(&job.expected.blake3));
        drop(refused);
        assert!(!cache.has(&job.expected.blake3), "not accepted: taken out");

        let accepted = Fetcher::new(cache.clone(), false);
        accepted
            .fetch_unpack(&job, &fresh(tmp.path(), "b"), &silent)
            .unwrap();
        accepted.keep_downloads();
        drop(accepted);
        assert!(cache.has(&job.expected.blake3));
        assert_eq!(requests.load(std::sync::atomic::Ordering::SeqCst), 2);

        let offline = Fetcher::new(cache.clone(), true);
        let again = offline
            .fetch_unpack(&job, &fresh(tmp.path(), "c"), &silent)
            .unwrap();
        assert_eq!(
            std::fs::read(again.root.join("tool.yaml")).unwrap(),
            b"name: t\n"
        );
        assert_eq!(requests.load(std::sync::atomic::Ordering::SeqCst), 2);
    }

    /// A cache entry rewritten by someone who can write the cache is never
    /// installed: the package is downloaded again and the registry's bytes
    /// installed.
    #[test]
    fn a_poisoned_entry_is_replaced_by_a_fresh_download() {
        let bytes = tree_archive();
        let (url, requests) = counted(bytes.clone());
        let job = job_for(&bytes, ArchiveLocation::Http(url));
        let tmp = tempfile::tempdir().unwrap();
        let cache = Cache::new(&tmp.path().join("cache")).with_key_file(tmp.path().join("key"));
        let silent = crate::progress::Silent;
        let fetcher = Fetcher::new(cache.clone(), false);
        fetcher
            .fetch_unpack(&job, &fresh(tmp.path(), "a"), &silent)
            .unwrap();
        fetcher.keep_downloads();
        let entry = tmp
            .path()
            .join("cache/unpacked")
            .join(job.expected.blake3.to_string());
        std::fs::write(entry.join("tree/t-1.0.0/bin/run"), "#!/bin/sh\nevil\n").unwrap();
        let unpacked = fetcher
            .fetch_unpack(&job, &fresh(tmp.path(), "b"), &silent)
            .unwrap();
        assert_eq!(
            std::fs::read(unpacked.root.join("bin/run")).unwrap(),
            b"#!/bin/sh\n"
        );
        assert_eq!(requests.load(std::sync::atomic::Ordering::SeqCst), 2);
    }

    /// Where the cache cannot be written, the archive is streamed straight
    /// into staging.
    #[cfg(unix)]
    #[test]
    fn without_a_cache_the_package_is_downloaded_into_staging() {
        let bytes = archive();
        let job = job_for(&bytes, ArchiveLocation::Http(serve(bytes.clone())));
        let tmp = tempfile::tempdir().unwrap();
        let blocked = tmp.path().join("not-a-directory");
        std::fs::write(&blocked, "").unwrap();
        let fetcher = Fetcher::new(Cache::new(&blocked), false);
        let dest = fresh(tmp.path(), "a");
        let unpacked = fetcher
            .fetch_unpack(&job, &dest, &crate::progress::Silent)
            .unwrap();
        assert_eq!(unpacked.root, dest);
        assert!(fetcher.take_added().is_empty());
    }
}
