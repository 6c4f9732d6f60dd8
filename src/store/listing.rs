//! The manifest's list of installed tools as it stands now, for `orla
//! list`: read from the manifest alone when it is current, written again
//! first when an interrupted command left it behind, when a project's
//! inputs changed behind orla's back (orla.yaml edited, an executable
//! dropped into tools_dir, a global install) or when it is damaged. A
//! manifest from a newer orla is refused, never downgraded.

use crate::manifest::{Inputs, Listing, Manifest};
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
