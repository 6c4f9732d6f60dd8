//! The download cache: archives by BLAKE3 digest.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::verify::Digest;

/// How long a download's temporary file may go unwritten before it counts
/// as left behind by a killed process.
const STALE_DOWNLOAD: std::time::Duration = std::time::Duration::from_secs(3600);

#[derive(Debug, Clone)]
pub struct Cache {
    pub dir: PathBuf,
}

impl Cache {
    pub fn new(dir: &Path) -> Cache {
        Cache {
            dir: dir.to_path_buf(),
        }
    }

    fn archives(&self) -> PathBuf {
        self.dir.join("archives")
    }

    pub fn archive_path(&self, digest: &Digest) -> PathBuf {
        self.archives().join(format!("{digest}.tar.gz"))
    }

    /// The cached archive with this digest, if any.
    pub fn archive(&self, digest: &Digest) -> Option<PathBuf> {
        let path = self.archive_path(digest);
        path.is_file().then_some(path)
    }

    /// A temporary file beside the cached archives, for a download in flight.
    pub fn temp_file(&self) -> io::Result<tempfile::NamedTempFile> {
        let dir = self.dir.join("tmp");
        fs::create_dir_all(&dir)?;
        tempfile::Builder::new()
            .prefix("download-")
            .tempfile_in(dir)
    }

    /// Removes what killed processes left of their downloads (files not
    /// written to for an hour: a download in flight keeps its file fresh),
    /// then the directory of downloads in flight once it is empty.
    pub fn tidy(&self) {
        let dir = self.dir.join("tmp");
        let stale = std::time::SystemTime::now() - STALE_DOWNLOAD;
        if let Ok(entries) = fs::read_dir(&dir) {
            for entry in entries.flatten() {
                let old = entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .is_ok_and(|t| t < stale);
                if old && entry.file_name().to_string_lossy().starts_with("download-") {
                    let _ = fs::remove_file(entry.path());
                }
            }
        }
        let _ = fs::remove_dir(dir);
    }

    /// Moves a verified download into the cache.
    ///
    /// Deliberately not flushed to disk first: a cached archive is verified
    /// again on every use, so a copy torn by a power cut is caught, thrown
    /// away and downloaded again. The flush cost about 15% of a 24 MiB
    /// install (docs/benchmarks.md); the installed files are still flushed.
    pub fn store(&self, tmp: tempfile::NamedTempFile, digest: &Digest) -> io::Result<PathBuf> {
        let dest = self.archive_path(digest);
        fs::create_dir_all(self.archives())?;
        tmp.persist(&dest).map_err(|e| e.error)?;
        Ok(dest)
    }
}
