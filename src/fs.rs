//! File writes that survive a crash or a power loss: synced writes, atomic
//! replacement (temporary file, flush, rename), and the recognition of a
//! full disk. Every state file orla writes goes through here.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

/// The prefix `atomic_write` gives its temporary files.
const TEMP_PREFIX: &str = ".tmp-";

/// True for the errors a full disk, an exhausted quota or a file size limit give.
pub fn is_out_of_space(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::StorageFull
        || e.kind() == io::ErrorKind::QuotaExceeded
        || e.kind() == io::ErrorKind::FileTooLarge
}

/// Writes a file and flushes it to disk.
pub fn write_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = fs::File::create(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Writes `path` so that readers see either the old or the new content:
/// a temporary file in the same directory, flushed, then renamed over it.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().expect("files have a parent");
    fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    #[cfg(unix)]
    {
        // tempfile creates 0600; state files are for every local reader.
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(fs::Permissions::from_mode(0o644))?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    sync_dir(dir);
    Ok(())
}

/// Flushes a directory entry change (a rename) to disk, where the platform allows.
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Removes the temporary files of `atomic_write` calls that a killed
/// process left in `dir`. Only call it under the lock of whatever owns `dir`.
pub fn remove_temp_files(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX)
            && entry.file_type().is_ok_and(|t| t.is_file())
        {
            let _ = fs::remove_file(entry.path());
        }
    }
}
