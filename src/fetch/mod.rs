//! Fetching archives: from the download cache, the built-in registry, a local
//! file or HTTP(S), streamed through the verifier into the hardened unpacker
//! in a single pass (read bytes -> BLAKE3 -> gunzip -> files).
//!
//! Downloads are cached by digest (see `cache`): as the unpacked package,
//! linked into the cache after the unpack was verified (no second copy of
//! the bytes is written), or, when the cache is on another filesystem than
//! the install root, as the archive, copied into a temporary file as it
//! streams. Either joins the cache only after the digest matched and the
//! caller accepted the package (`Fetcher::keep_downloads`), so the cache
//! never holds unverified bytes and a refused package leaves it exactly as
//! it was. A cached package is verified again on every use (each file of
//! an unpacked copy against the digests recorded when it was verified, an
//! archive against its digest); a damaged one is thrown away and fetched
//! again.

mod cache;
pub mod git;

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;

pub use cache::{
    human_size, parse_size, Cache, CacheError, Freed, Item, Kind, Landing, PruneRules,
};

use crate::http::HttpClient;
use crate::index::ArchiveLocation;
use crate::progress::Reporter;
use crate::unpack::{self, Limits, UnpackError, Unpacked};
use crate::verify::{Expected, TooLong, Verifier, VerifyError};

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
        source: VerifyError,
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
    /// Verified downloads not yet in the cache: they join it only through
    /// `keep_downloads`, once the packages they hold were accepted, so an
    /// archive refused at any later stage leaves the cache as it was.
    downloads: std::sync::Mutex<Vec<(tempfile::NamedTempFile, crate::verify::Digest)>>,
    /// Verified unpacks linked (or moved) into the cache's temporary
    /// directory, kept the same way, and how each was made.
    unpacked: std::sync::Mutex<Vec<(tempfile::TempDir, crate::verify::Digest, Made)>>,
    /// Packages linked from the cache, by their root: the files that need
    /// no flush (see `durable_files`).
    durable: std::sync::Mutex<std::collections::HashMap<std::path::PathBuf, crate::fs::Durable>>,
}

/// How many new cache entries are put in place at once.
const KEEP_THREADS: usize = 8;

/// How an unpack's cache entry was made, which says what is left to flush
/// before it is put in place.
enum Made {
    /// Linked file by file from the unpack afterwards (`Cache::keep`).
    Linked,
    /// The landing directory moved whole, its files flushed by the unpack
    /// (`Cache::keep_flushed`).
    Moved,
    /// Linked by the unpack's flushing threads as each file was flushed,
    /// the landing directory kept for the install (`Cache::keep_linked`).
    LinkedWhileUnpacked,
}

impl Drop for Fetcher {
    fn drop(&mut self) {
        self.downloads.lock().map(|mut d| d.clear()).ok();
        self.unpacked.lock().map(|mut d| d.clear()).ok();
        self.cache.tidy();
    }
}

impl Fetcher {
    pub fn new(cache: Cache, offline: bool) -> Fetcher {
        Fetcher {
            cache,
            http: HttpClient::new(),
            offline,
            downloads: Default::default(),
            unpacked: Default::default(),
            durable: Default::default(),
        }
    }

    /// Moves this fetcher's verified downloads into the cache. Call it once
    /// the packages were validated and installed.
    pub fn keep_downloads(&self) {
        let downloads = std::mem::take(&mut *self.downloads.lock().expect("downloads lock"));
        for (tmp, digest) in downloads {
            // A cache that cannot be written only costs a later download.
            let _ = self.cache.store(tmp, &digest);
        }
        let unpacked = std::mem::take(&mut *self.unpacked.lock().expect("unpacked lock"));
        // The entries linked while they were unpacked are only renamed in
        // (`Cache::keep_linked`); the others, each with whether its tree
        // was flushed already, may have files to flush.
        let (mut linked, mut others) = (Vec::new(), Vec::new());
        for (entry, digest, made) in unpacked {
            match made {
                Made::LinkedWhileUnpacked => linked.push((entry, digest)),
                Made::Linked => others.push((entry, digest, false)),
                Made::Moved => others.push((entry, digest, true)),
            }
        }
        if !linked.is_empty() {
            let _ = self.cache.keep_linked(linked);
        }
        // Each other entry waits for its flushes: several at once, so that
        // the disk has them in flight together.
        let threads = others.len().min(KEEP_THREADS);
        let queue = std::sync::Mutex::new(others);
        let keep = || loop {
            let Some((entry, digest, flushed)) = queue.lock().expect("entries lock").pop() else {
                break;
            };
            let _ = if flushed {
                self.cache.keep_flushed(entry, &digest)
            } else {
                self.cache.keep(entry, &digest)
            };
        };
        std::thread::scope(|scope| {
            for _ in 1..threads {
                scope.spawn(keep);
            }
            keep();
        });
        self.cache.tidy();
    }

    /// The files of the package this fetcher put at `root` whose data is on
    /// disk already: hard links into a flushed cache entry, or files the
    /// unpack flushed as it wrote them. The store need not flush them again.
    pub fn durable_files(&self, root: &Path) -> crate::fs::Durable {
        self.durable
            .lock()
            .expect("durable lock")
            .remove(root)
            .unwrap_or_default()
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

    /// Streams the archive of `job` into the empty directory `dest`,
    /// verifying it on the way. Nothing in `dest` may be used unless this
    /// returns `Ok`. When `dest` is one of the cache's landing directories
    /// (`Cache::landing_dir`), a verified package moves from it into the
    /// cache and nothing of it stays in `dest`.
    pub fn fetch_unpack(
        &self,
        job: &Job,
        dest: &Path,
        reporter: &dyn Reporter,
    ) -> Result<Unpacked, FetchError> {
        self.fetch_into(job, dest, None, reporter)
            .map(|(unpacked, _)| unpacked)
    }

    /// Downloads, verifies and unpacks the archive of `job` into a new
    /// landing directory of the cache (`Cache::landing_dir`), before the
    /// install root is locked, and has the verified package join the
    /// cache. With `keep_tree` (the install root is on the cache's
    /// filesystem), the unpack's flushing threads link every file into a
    /// new cache entry as they flush it, and the landing directory is kept
    /// for this process (`Cache::land`): under the root's lock the
    /// package is renamed into place from there (`take_landed`), so no
    /// file is linked or moved into staging once the lock is taken.
    /// Otherwise, or when a link could not be made, the landing directory
    /// becomes the entry and is linked back under the lock.
    /// `Ok` without a cache that can be written: the install then
    /// downloads under the lock. The new entry joins the cache with
    /// `keep_downloads`.
    pub fn land(
        &self,
        job: &Job,
        reporter: &dyn Reporter,
        keep_tree: bool,
    ) -> Result<(), FetchError> {
        let Ok(landing) = self.cache.landing_dir() else {
            return Ok(());
        };
        let entry = keep_tree.then(|| self.cache.entry_dir().ok()).flatten();
        let mirror = entry.map(|entry| {
            let links = crate::fs::Links::new(landing.path(), &Cache::entry_tree(entry.path()));
            (entry, links)
        });
        let (unpacked, kept) = self.fetch_into(job, landing.path(), mirror, reporter)?;
        if kept {
            self.cache.land(&job.expected.blake3, landing, unpacked);
        }
        Ok(())
    }

    /// The package of `job` this process downloaded and verified before
    /// the lock (`Fetcher::land`), where it landed, on the cache's
    /// filesystem, which is the install root's: the install renames it
    /// into place from there. Its files were flushed by the unpack
    /// (`durable_files`).
    pub fn take_landed(&self, job: &Job) -> Option<(Landing, Unpacked)> {
        let (dir, unpacked) = self.cache.take_landed(&job.expected.blake3)?;
        self.all_durable(&unpacked);
        Some((dir, unpacked))
    }

    /// [`Fetcher::fetch_unpack`]; with `mirror`, a new cache entry and the
    /// links that fill its tree as the files are flushed. Also says
    /// whether the unpack stays in `dest` for this process, the entry made
    /// from those links (else `dest` is emptied into the cache as before).
    fn fetch_into(
        &self,
        job: &Job,
        dest: &Path,
        mirror: Option<Mirror>,
        reporter: &dyn Reporter,
    ) -> Result<(Unpacked, bool), FetchError> {
        let limits = Limits::for_archive(job.expected.size);
        let cacheable = matches!(job.location, ArchiveLocation::Http(_));
        let link = cacheable && self.cache.can_link(dest);
        if cacheable {
            match self.cache.unpacked_into(&job.expected.blake3, dest) {
                Ok(Some(linked)) => {
                    self.durable
                        .lock()
                        .expect("durable lock")
                        .insert(linked.unpacked.root.clone(), linked.durable);
                    return Ok((linked.unpacked, false));
                }
                Ok(None) => {}
                Err(damaged) => {
                    if let cache::Damaged::Content(why) = &damaged {
                        reporter.warn(&format!(
                            "the cached copy of {} is damaged ({why}); downloading it again",
                            job.label
                        ));
                    }
                    empty_dir(dest).map_err(|source| FetchError::File {
                        path: dest.display().to_string(),
                        source,
                    })?;
                }
            }
            // Opened, not just checked: a cached copy removed meanwhile (by
            // `orla cache clear`, or another orla that found it corrupt)
            // is downloaded again rather than failing the install.
            let path = self.cache.archive_path(&job.expected.blake3);
            let cached = File::open(&path)
                .ok()
                .filter(|f| f.metadata().is_ok_and(|m| m.is_file()));
            if let Some(file) = cached {
                match stream(file, job, dest, limits, None, None).0 {
                    Err(FetchError::Verify { .. }) => {
                        reporter.warn(&format!(
                            "the cached archive of {} is corrupt; downloading it again",
                            job.label
                        ));
                        let _ = std::fs::remove_file(&path);
                        empty_dir(dest).map_err(|source| FetchError::File {
                            path: dest.display().to_string(),
                            source,
                        })?;
                    }
                    done => {
                        if done.is_ok() {
                            cache::touch(&path);
                        }
                        return self.link_into_cache(link, job, dest, done, None);
                    }
                }
            }
        }
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
        // The archive is copied into the cache only when the unpacked files
        // cannot be linked there.
        let tmp = if cacheable && !link {
            self.cache.temp_file().ok()
        } else {
            None
        };
        let links = mirror.as_ref().map(|(_, links)| links.clone());
        let copy_to = tmp.as_ref().map(|t| t.as_file());
        let (result, copied) = stream(reader, job, dest, limits, copy_to, links);
        reporter.download_finish(progress);
        if result.is_ok() {
            reporter.report(crate::progress::Event::Verified {
                label: job.label.clone(),
                blake3: job.expected.blake3.to_string(),
                size: job.expected.size,
            });
        }
        if let Some(tmp) = tmp {
            // A copy that failed part way holds only some of the bytes.
            if result.is_ok() && copied {
                self.downloads
                    .lock()
                    .expect("downloads lock")
                    .push((tmp, job.expected.blake3));
            } else {
                drop(tmp);
                // A refused download leaves the cache exactly as it was.
                self.cache.tidy();
            }
        }
        self.link_into_cache(link && cacheable, job, dest, result, mirror)
    }

    /// Records every file of `unpacked` as flushed already (by its unpack),
    /// for [`Fetcher::durable_files`].
    fn all_durable(&self, unpacked: &Unpacked) {
        let files = unpacked.files.keys();
        let flushed = files.map(|rel| unpacked.root.join(rel)).collect();
        self.durable
            .lock()
            .expect("durable lock")
            .insert(unpacked.root.clone(), flushed);
    }

    /// Links a verified unpack into the cache's temporary directory, to join
    /// the cache with `keep_downloads`. Best effort: a cache that cannot be
    /// written only costs a later download.
    ///
    /// Every file of an unpack was flushed by `unpack` (it flushes each
    /// one as it is closed, and fails if one cannot be), so the store need
    /// not flush them again (`durable_files`).
    ///
    /// With a `mirror` whose links are all there, the entry is the mirror's
    /// and `dest` keeps the unpack (the `bool` returned).
    fn link_into_cache(
        &self,
        link: bool,
        job: &Job,
        dest: &Path,
        result: Result<Unpacked, FetchError>,
        mirror: Option<Mirror>,
    ) -> Result<(Unpacked, bool), FetchError> {
        if let Ok(unpacked) = &result {
            self.all_durable(unpacked);
        }
        let Ok(unpacked) = result else {
            return result.map(|u| (u, false));
        };
        if !link {
            return Ok((unpacked, false));
        }
        // A landing directory (a download before the root is locked) is
        // the cache's alone: its files have a second name in the mirror's
        // entry already, or it is moved whole into a new one (not linked
        // file by file and then deleted).
        let landing = self.cache.is_landing(dest);
        if let (true, Some((entry, links))) = (landing, mirror) {
            let recorded = links.complete()
                && self
                    .cache
                    .record_linked(&entry, links.dirs(), dest, &unpacked)
                    .is_ok();
            if recorded {
                self.unpacked.lock().expect("unpacked lock").push((
                    entry,
                    job.expected.blake3,
                    Made::LinkedWhileUnpacked,
                ));
                return Ok((unpacked, true));
            }
        }
        let (entry, made) = if landing {
            (self.cache.move_unpacked(dest, &unpacked), Made::Moved)
        } else {
            (self.cache.link_unpacked(dest, &unpacked), Made::Linked)
        };
        if let Ok(entry) = entry {
            self.unpacked
                .lock()
                .expect("unpacked lock")
                .push((entry, job.expected.blake3, made));
        }
        Ok((unpacked, false))
    }
}

/// A new cache entry and the links that fill its tree during an unpack.
type Mirror = (tempfile::TempDir, std::sync::Arc<crate::fs::Links>);

/// The single pass: source -> (cache copy) -> verifier -> gunzip -> untar.
/// Also says whether `copy_to` received every byte.
fn stream(
    source: impl Read,
    job: &Job,
    dest: &Path,
    limits: Limits,
    copy_to: Option<&File>,
    links: Option<std::sync::Arc<crate::fs::Links>>,
) -> (Result<Unpacked, FetchError>, bool) {
    let copied = std::cell::Cell::new(true);
    let tee = Tee {
        inner: source,
        copy: copy_to,
        copied: &copied,
    };
    let result = stream_through(tee, job, dest, limits, links);
    (result, copied.get())
}

fn stream_through(
    tee: impl Read,
    job: &Job,
    dest: &Path,
    limits: Limits,
    links: Option<std::sync::Arc<crate::fs::Links>>,
) -> Result<Unpacked, FetchError> {
    let mut verifier =
        Verifier::new(tee, job.expected.size).with_sha256(job.expected.sha256.is_some());
    let unpacked = unpack::unpack_linked(&mut verifier, dest, limits, links);
    // The digest is the root cause when it is wrong: a corrupt mirror shows
    // up as a digest mismatch, not as whatever the broken bytes did to tar.
    let verdict = match verifier.finish(&job.expected, &job.label) {
        Ok(v) => v,
        Err(e) if e.get_ref().is_some_and(|i| i.is::<TooLong>()) => {
            Err(VerifyError::SizeMismatch {
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

/// Copies what is read into a file, best effort: a failing cache write is
/// dropped (and `copied` cleared), never the install.
struct Tee<'a, R> {
    inner: R,
    copy: Option<&'a File>,
    copied: &'a std::cell::Cell<bool>,
}

impl<R: Read> Read for Tee<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(mut file) = self.copy {
            if file.write_all(&buf[..n]).is_err() {
                self.copy = None;
                self.copied.set(false);
            }
        }
        Ok(n)
    }
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

    #[test]
    fn an_unpacked_package_s_files_need_no_flush_from_the_store() {
        // The unpack flushed each file as it wrote it: the store's flush
        // before the manifest skips them (and flushes the directories).
        let bytes = archive();
        let job = job_for(
            &bytes,
            ArchiveLocation::Memory {
                origin: "t.tar.gz".into(),
                bytes: std::sync::Arc::new(bytes.clone()),
            },
        );
        let tmp = tempfile::tempdir().unwrap();
        let fetcher = Fetcher::new(Cache::new(&tmp.path().join("cache")), false);
        let dest = tmp.path().join("stage");
        std::fs::create_dir(&dest).unwrap();
        let silent = crate::progress::Silent;
        let unpacked = fetcher.fetch_unpack(&job, &dest, &silent).unwrap();
        let durable = fetcher.durable_files(&unpacked.root);
        assert_eq!(durable.len(), 1);
        assert!(durable.contains(&unpacked.root.join("tool.yaml")));
    }

    /// Serves `body` to every request on a loopback port: the URL.
    fn serve(body: Vec<u8>) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/t.tar.gz", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { break };
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
        url
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

    #[cfg(unix)]
    fn inode(path: &Path) -> (u64, u64) {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::symlink_metadata(path).unwrap();
        (meta.ino(), meta.nlink())
    }

    /// The landing directories in the cache's `tmp/`.
    fn landings(cache: &Path) -> Vec<std::path::PathBuf> {
        let Ok(entries) = std::fs::read_dir(cache.join("tmp")) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("landing-"))
            .map(|e| e.path())
            .collect()
    }

    #[cfg(unix)]
    #[test]
    fn a_download_landed_before_the_lock_is_installed_from_there_and_its_entry_shares_its_files() {
        let bytes = tree_archive();
        let job = job_for(&bytes, ArchiveLocation::Http(serve(bytes.clone())));
        let silent = crate::progress::Silent;
        for keep_tree in [true, false] {
            let tmp = tempfile::tempdir().unwrap();
            let dir = tmp.path().join("cache");
            let cache = Cache::new(&dir);
            // Before the root's lock (`install::prefetch`).
            let landing = Fetcher::new(cache.clone(), false);
            landing.land(&job, &silent, keep_tree).unwrap();
            landing.keep_downloads();
            drop(landing);
            let entry = cache.archive(&job.expected.blake3).expect("in the cache");
            let landed = landings(&dir);
            assert_eq!(
                landed.len(),
                usize::from(keep_tree),
                "kept only with keep_tree"
            );

            // Under the lock (`install::apply`).
            let fetcher = Fetcher::new(cache.clone(), false);
            let taken = fetcher.take_landed(&job);
            assert_eq!(taken.is_some(), keep_tree);
            let dest = tempfile::tempdir_in(tmp.path()).unwrap();
            let (kept, unpacked) = match taken {
                Some((landing, unpacked)) => {
                    // The archive's wrapper directory, moved out of its
                    // landing directory (removed) before the lock: nothing
                    // is left to remove once it is renamed into place.
                    assert_eq!(unpacked.root, landed[0]);
                    assert!(landed[0].to_string_lossy().ends_with(".root"));
                    assert!(fetcher.take_landed(&job).is_none(), "taken once");
                    (Some(landing), unpacked)
                }
                None => {
                    let unpacked = fetcher.fetch_unpack(&job, dest.path(), &silent).unwrap();
                    assert_eq!(unpacked.root, dest.path().join("t-1.0.0"));
                    (None, unpacked)
                }
            };
            assert_eq!(unpacked.files.len(), 3);
            for rel in unpacked.files.keys() {
                let (staged, cached) = (
                    unpacked.root.join(rel),
                    entry.join("tree/t-1.0.0").join(rel),
                );
                assert_eq!(inode(&staged), inode(&cached), "{rel}: one file, two names");
                assert_eq!(inode(&staged).1, 2, "{rel}");
            }
            // Flushed by the unpack: the store need not flush them again.
            assert_eq!(fetcher.durable_files(&unpacked.root).len(), 3);
            if let Some(landing) = kept {
                // Committed: renamed into place, then the guard dropped.
                std::fs::rename(&unpacked.root, tmp.path().join("installed")).unwrap();
                drop(landing);
                assert!(landings(&dir).is_empty());
                assert!(tmp.path().join("installed/tool.yaml").is_file());
            }
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_landed_download_no_install_took_is_removed() {
        let bytes = tree_archive();
        let job = job_for(&bytes, ArchiveLocation::Http(serve(bytes.clone())));
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cache");
        let cache = Cache::new(&dir);
        let fetcher = Fetcher::new(cache.clone(), false);
        fetcher.land(&job, &crate::progress::Silent, true).unwrap();
        fetcher.keep_downloads();
        assert_eq!(landings(&dir).len(), 1);
        cache.drop_landed();
        assert!(landings(&dir).is_empty());
        assert!(
            cache.archive(&job.expected.blake3).is_some(),
            "the entry stays"
        );
    }

    #[test]
    fn a_cache_copy_that_failed_part_way_is_reported() {
        let bytes = archive();
        let job = job_for(
            &bytes,
            ArchiveLocation::Http("http://127.0.0.1/t.tar.gz".into()),
        );
        let tmp = tempfile::tempdir().unwrap();
        let limits = Limits::for_archive(Some(bytes.len() as u64));

        let good = tmp.path().join("good");
        std::fs::write(&good, b"").unwrap();
        let file = std::fs::OpenOptions::new().write(true).open(&good).unwrap();
        let dest = tmp.path().join("a");
        std::fs::create_dir(&dest).unwrap();
        let (result, copied) = stream(&bytes[..], &job, &dest, limits, Some(&file), None);
        assert!(result.is_ok() && copied);
        assert_eq!(std::fs::read(&good).unwrap(), bytes);

        // A file that refuses writes stands for a full disk.
        let file = File::open(&good).unwrap();
        let dest = tmp.path().join("b");
        std::fs::create_dir(&dest).unwrap();
        let (result, copied) = stream(&bytes[..], &job, &dest, limits, Some(&file), None);
        assert!(result.is_ok(), "the install goes on");
        assert!(!copied, "but the partial copy must not join the cache");
    }
}
