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
///
/// A big root's entries are looked at from a few threads at once: a `stat`
/// is mostly the kernel walking the path, which runs on every core.
pub fn missing(root: &InstallRoot, entries: &[InstalledEntry]) -> Vec<bool> {
    let dir = std::fs::File::open(&root.tools_dir).ok();
    let gone = |e: &InstalledEntry| {
        let path = Path::new(&e.entrypoint);
        match (&dir, path.strip_prefix(&root.tools_dir)) {
            (Some(dir), Ok(relative)) => {
                exists_at(dir, relative).map_or_else(|| !path.exists(), |e| !e)
            }
            _ => !path.exists(),
        }
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(4)
        .min(entries.len() / PER_THREAD);
    if threads <= 1 {
        return entries.iter().map(gone).collect();
    }
    let chunk = entries.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let parts: Vec<_> = entries
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().map(gone).collect::<Vec<bool>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|part| part.join().expect("stat threads do not panic"))
            .collect()
    })
}

/// The fewest entries worth a thread of their own in [`missing`].
const PER_THREAD: usize = 128;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::RootKindName;
    use crate::package::{Mode, RiskLevel};
    use crate::root::receipt::Source;

    fn entry(root: &InstallRoot, name: &str) -> InstalledEntry {
        let path = root.tools_dir.join(name).join("1.0.0");
        InstalledEntry {
            name: name.into(),
            root: RootKindName::Global,
            version: "1.0.0".into(),
            description: String::new(),
            path: path.display().to_string(),
            entrypoint: path.join("run").display().to_string(),
            mode: Mode::Simple,
            active: true,
            permissions: Vec::new(),
            permissions_declared: true,
            risk_level: RiskLevel::Low,
            source: Source::Local {
                path: "/src".into(),
                blake3: crate::verify::Digest::of(name.as_bytes()),
                size: 3,
                extra: Default::default(),
            },
        }
    }

    /// Many entries are looked at from several threads; each answer stays
    /// with its entry.
    #[test]
    fn every_entry_of_a_big_root_is_marked_as_it_is() {
        let tmp = tempfile::tempdir().unwrap();
        let root = InstallRoot::global(tmp.path());
        for count in [3, PER_THREAD * 4 + 7] {
            let entries: Vec<InstalledEntry> = (0..count)
                .map(|i| entry(&root, &format!("t{count}-{i}")))
                .collect();
            let expected: Vec<bool> = (0..count).map(|i| i % 5 == 3).collect();
            for (e, gone) in entries.iter().zip(&expected) {
                if !gone {
                    std::fs::create_dir_all(&e.path).unwrap();
                    std::fs::write(&e.entrypoint, "").unwrap();
                }
            }
            assert_eq!(missing(&root, &entries), expected, "{count} entries");
        }
    }
}
