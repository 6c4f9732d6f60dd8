//! What `orla serve` hands the runtime: only a manifest orla wrote from
//! the store.
//!
//! The runtime crate reads nothing of orla; it asks a
//! [`orla_runtime::ManifestSource`] for the manifest at start, whenever
//! the file changes, on SIGHUP and when the source says it is stale. This
//! source answers each time with the manifest derived from the store under
//! the root's lock (`Store::sync_manifest`): the file is written again when
//! it says anything else (a project's `.orla/manifest.json` replaced by a
//! `git pull` or a branch checkout, a file orla's reader rejects, a package
//! deleted behind orla's back), and what the runtime gets is what was
//! derived, never the bytes it found. A manifest a newer orla wrote is
//! refused (the runtime logs it and keeps the tools it serves). When the
//! root cannot be written (a read-only checkout), what the store holds is
//! served without being written.
//!
//! It is stale when a project's other inputs changed (orla.yaml, orla.lock,
//! the global manifest, loose executables in tools_dir) or a package it
//! lists was deleted, so those changes reach clients too.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::manifest::{Inputs, Listing, Manifest};
use crate::progress::{Collect, Event, Reporter, Warning};
use crate::root::{InstallRoot, StoreError};
use crate::store::Store;

/// The manifest of `root` as the store says it is, written to the file
/// when the file says otherwise.
pub fn checked(root: &InstallRoot, reporter: &dyn Reporter) -> Result<Manifest, StoreError> {
    match Store::open(root, reporter) {
        Ok(store) => store.sync_manifest(reporter),
        Err(e @ StoreError::Manifest { newer: true, .. }) => Err(e),
        Err(e) if root.needs_recovery() => Err(e),
        Err(e) => {
            reporter.report(Event::Warning(Warning::ManifestNotRefreshed {
                problem: e.to_string(),
            }));
            let installed = crate::manifest::packages(root, reporter)?;
            let inputs = Inputs::gather(root, reporter);
            Ok(Manifest::generate_with(root, &installed, &inputs, reporter))
        }
    }
}

/// The source `orla serve` gives the runtime (see the module doc).
pub struct Checked {
    root: InstallRoot,
    path: PathBuf,
    /// The manifest checked at start, handed over by the first load.
    first: Mutex<Option<Vec<u8>>>,
    /// What the last load handed over.
    served: Mutex<Vec<u8>>,
    /// The entrypoints found deleted at the last look, so that a deletion
    /// regenerates the manifest once, not every second.
    missing: Mutex<Vec<String>>,
}

impl Checked {
    /// Checks the manifest of `root` now (its warnings go to `reporter`,
    /// with one when nothing is served) and returns the source.
    pub fn start(root: InstallRoot, reporter: &dyn Reporter) -> Result<Checked, StoreError> {
        let manifest = checked(&root, reporter)?;
        if manifest.tools.is_empty() {
            reporter.report(Event::Warning(Warning::NothingToServe {
                root: root.tools_dir.display().to_string(),
            }));
        }
        Ok(Checked {
            path: root.manifest_path(),
            root,
            first: Mutex::new(Some(manifest.to_json().into_bytes())),
            served: Mutex::new(Vec::new()),
            missing: Mutex::new(Vec::new()),
        })
    }
}

impl orla_runtime::ManifestSource for Checked {
    fn path(&self) -> &Path {
        &self.path
    }

    fn load(&self) -> Result<orla_runtime::Loaded, orla_runtime::LoadError> {
        let mut served = self.served.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(bytes) = self.first.lock().unwrap_or_else(|e| e.into_inner()).take() {
            served.clone_from(&bytes);
            return Ok(orla_runtime::Loaded {
                bytes,
                warnings: Vec::new(),
            });
        }
        let found = std::fs::read(&self.path).ok();
        let collect = Collect::default();
        let manifest = checked(&self.root, &collect)?;
        let bytes = manifest.to_json().into_bytes();
        // Neither what was served nor what the store holds: written by
        // something else than orla.
        if let Some(found) = found.filter(|f| *f != bytes && *f != *served) {
            collect.report(Event::Warning(Warning::ManifestRewritten {
                problem: format!(
                    "the runtime manifest {} ({} bytes) is not the one orla wrote from the store",
                    self.path.display(),
                    found.len()
                ),
            }));
        }
        served.clone_from(&bytes);
        Ok(orla_runtime::Loaded {
            bytes,
            warnings: collect.sentences(),
        })
    }

    fn stale(&self) -> bool {
        let Ok(listing) = Listing::read(&self.root) else {
            // The runtime sees the file change and loads it: checked then.
            return false;
        };
        if listing.root.is_stale(&self.root) {
            return true;
        }
        let missing: Vec<String> = listing
            .installed
            .iter()
            .filter(|e| !Path::new(&e.entrypoint).exists())
            .map(|e| e.entrypoint.clone())
            .collect();
        let mut seen = self.missing.lock().unwrap_or_else(|e| e.into_inner());
        let changed = !missing.is_empty() && *seen != missing;
        *seen = missing;
        changed
    }
}
