//! Where the manifest the runtime serves comes from.
//!
//! The runtime watches one file (polled: orla replaces it by rename, which
//! no inotify watch on the old file sees) and, at start, when that file's
//! bytes change and on SIGHUP, asks its [`ManifestSource`] for the manifest
//! to serve. The source may check it first: `orla serve` hands the runtime
//! a source that serves only what orla wrote from its store (a manifest
//! replaced behind its back is written again from the store, or refused),
//! while the runtime alone serves the file as it is ([`ManifestFile`]). The
//! runtime itself never learns how a check is done, so it stays free of
//! orla's code. A load that fails keeps the tools already served; at start
//! it stops the server.

use std::path::{Path, PathBuf};

/// Why a source would not give a manifest; logged, and the tools already
/// loaded stay.
pub type LoadError = Box<dyn std::error::Error + Send + Sync>;

/// The manifest a source hands over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    /// The manifest's JSON, as it is to be served.
    pub bytes: Vec<u8>,
    /// What the source noticed on the way (a manifest written again, a
    /// package that vanished), logged as warnings.
    pub warnings: Vec<String>,
}

/// Gives the runtime the manifest to serve. `load` blocks (it may take a
/// lock or write a file): the runtime calls it on a blocking thread.
pub trait ManifestSource: Send + Sync + 'static {
    /// The file the manifest lives in: watched for changes, named in logs.
    fn path(&self) -> &Path;
    /// The manifest to serve now.
    fn load(&self) -> Result<Loaded, LoadError>;
    /// Whether the manifest should be loaded again though its file did not
    /// change (what it is derived from did); asked about once a second.
    fn stale(&self) -> bool {
        false
    }
}

/// A manifest file served as it is (`orla-runtime MANIFEST`).
#[derive(Debug, Clone)]
pub struct ManifestFile {
    path: PathBuf,
}

impl ManifestFile {
    pub fn new(path: PathBuf) -> ManifestFile {
        ManifestFile { path }
    }
}

impl ManifestSource for ManifestFile {
    fn path(&self) -> &Path {
        &self.path
    }

    fn load(&self) -> Result<Loaded, LoadError> {
        let bytes = std::fs::read(&self.path).map_err(|source| {
            Box::new(crate::manifest::ManifestError::Read {
                path: self.path.clone(),
                source,
            })
        })?;
        Ok(Loaded {
            bytes,
            warnings: Vec::new(),
        })
    }
}
