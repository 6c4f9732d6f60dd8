//! The manifest's list of installed tools as it stands now, for `orla
//! list`: read from the manifest alone when it is current, written again
//! first when an interrupted command left it behind, when a project's
//! inputs changed behind orla's back (orla.yaml edited, an executable
//! dropped into tools_dir, a global install) or when it is damaged. A
//! manifest from a newer orla is refused, never downgraded.

use std::path::Path;

use crate::manifest::{Inputs, InstalledEntry, Listing, Manifest};
use crate::progress::Reporter;
use crate::root::{InstallRoot, StoreError};

use super::Store;

pub fn current(root: &InstallRoot, reporter: &dyn Reporter) -> Result<Listing, StoreError> {
    if root.needs_recovery() {
        Store::open(root, reporter)?.sync_manifest(reporter)?;
        return Listing::read(root);
    }
    // Only `installed` is read: a listing never parses the tools' schemas.
    match Listing::read(root) {
        Ok(listing) if !listing.root.is_stale(root) => Ok(listing),
        Ok(_) => refreshed(root, reporter),
        Err(e @ StoreError::Manifest { newer: false, .. }) => {
            reporter.warn(&format!("{e}; writing it again"));
            refreshed(root, reporter)
        }
        Err(e) => Err(e),
    }
}

/// The manifest regenerated; when the root cannot be written (a project in
/// a read-only checkout), what it would hold.
fn refreshed(root: &InstallRoot, reporter: &dyn Reporter) -> Result<Listing, StoreError> {
    match Store::open(root, reporter) {
        Ok(store) => {
            store.sync_manifest(reporter)?;
            Listing::read(root)
        }
        Err(e) => {
            reporter.warn(&format!("cannot refresh the project's manifest: {e}"));
            let installed = crate::manifest::packages(root, reporter)?;
            let inputs = Inputs::gather(root, reporter);
            Ok(Manifest::generate_with(root, &installed, &inputs, reporter).into())
        }
    }
}

/// Whether each entry's entrypoint is gone (deleted outside orla): one
/// `stat` each, relative to tools_dir for the root's own packages (a walk
/// of four path components instead of the whole absolute path).
pub fn missing(root: &InstallRoot, entries: &[InstalledEntry]) -> Vec<bool> {
    let dir = std::fs::File::open(&root.tools_dir).ok();
    entries
        .iter()
        .map(|e| {
            let path = Path::new(&e.entrypoint);
            match (&dir, path.strip_prefix(&root.tools_dir)) {
                (Some(dir), Ok(relative)) => {
                    exists_at(dir, relative).map_or_else(|| !path.exists(), |e| !e)
                }
                _ => !path.exists(),
            }
        })
        .collect()
}

/// Whether `relative` names something under `dir` (None: cannot tell here).
#[cfg(unix)]
fn exists_at(dir: &std::fs::File, relative: &Path) -> Option<bool> {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(relative.as_os_str().as_bytes()).ok()?;
    let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `dir` is an open directory, `path` a NUL-terminated relative
    // path and `stat` a buffer of the size fstatat writes; both outlive the call.
    Some(unsafe { libc::fstatat(dir.as_raw_fd(), path.as_ptr(), stat.as_mut_ptr(), 0) } == 0)
}

#[cfg(not(unix))]
fn exists_at(_: &std::fs::File, _: &Path) -> Option<bool> {
    None
}
