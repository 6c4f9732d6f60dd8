//! File writes that survive a crash or a power loss: synced writes, atomic
//! replacement (temporary file, flush, rename), and the recognition of a
//! full disk. Every state file orla writes goes through here.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The prefix `atomic_write` (and the manifest's writer) gives its
/// temporary files, by which `remove_temp_files` knows them.
pub const TEMP_PREFIX: &str = ".tmp-";

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

/// Replaces `path` by `bytes` as `atomic_write` does, without flushing
/// anything: for a cache whose reader can tell a file a crash left torn or
/// empty, and fetches it again.
pub fn replace_unflushed(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, |_| Ok(()))
}

/// Writes `path` so that readers see either the old or the new content:
/// a temporary file in the same directory, flushed, then renamed over it.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, |file| {
        // tempfile creates 0600; state files are for every local reader.
        set_mode(file, 0o644)?;
        file.sync_all()
    })?;
    sync_dir(path.parent().expect("files have a parent"));
    Ok(())
}

/// `bytes` written to a temporary file of `path`'s directory, `finish`ed,
/// then renamed over `path`.
fn replace(
    path: &Path,
    bytes: &[u8],
    finish: impl FnOnce(&fs::File) -> io::Result<()>,
) -> io::Result<()> {
    let dir = path.parent().expect("files have a parent");
    let mut tmp = made_in(dir, |dir| {
        tempfile::Builder::new()
            .prefix(TEMP_PREFIX)
            .tempfile_in(dir)
    })?;
    tmp.write_all(bytes)?;
    finish(tmp.as_file())?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// What `make` makes in `dir`, which is created (with its parents) only
/// when `make` finds it missing: where it exists, as it mostly does, that
/// saves a `mkdir` that fails.
pub fn made_in<T>(dir: &Path, make: impl Fn(&Path) -> io::Result<T>) -> io::Result<T> {
    match make(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            fs::create_dir_all(dir)?;
            make(dir)
        }
        made => made,
    }
}

/// Asks the kernel to start writing `file`'s data to disk now, without
/// waiting (Linux `sync_file_range`), so that a later `fsync` of it finds
/// little left to write. Nothing elsewhere, and nothing on failure: it is
/// only a hint.
pub fn start_writeback(file: &fs::File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::io::AsRawFd;
        // SAFETY: an open descriptor; the call reads no memory of ours.
        unsafe {
            libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

/// Flushes a directory entry change (a rename) to disk, where the platform allows.
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Atomically swaps two paths (`renameat2(RENAME_EXCHANGE)`; Linux 3.15+,
/// and not every filesystem has it).
#[cfg(target_os = "linux")]
pub fn rename_exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let a = CString::new(a.as_os_str().as_bytes()).map_err(io::Error::other)?;
    let b = CString::new(b.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: both are valid NUL-terminated paths that outlive the call.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
pub fn rename_exchange(_a: &Path, _b: &Path) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "no atomic exchange here",
    ))
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

/// How many files `sync_files` flushes at once. Threads spend their time
/// waiting for the disk, not computing, so more than the number of cores
/// helps: the disk gets many requests in flight and the filesystem can
/// merge their journal commits.
const FLUSH_THREADS: usize = 8;

/// Flushes the data of every file in `paths` (`fsync`), several at once.
/// The first error is returned, after which the rest are skipped.
pub fn sync_files(paths: &[PathBuf]) -> io::Result<()> {
    crate::parallel::try_for_each(paths, FLUSH_THREADS, |path| {
        fs::File::open(path)?.sync_all()
    })
}

/// Flushes the entries of every directory in `dirs`, several at once,
/// where the platform allows (as `sync_dir`). Nothing depends on their
/// order: the caller's next step (a rename) waits for all of them.
pub fn sync_dirs(dirs: &[PathBuf]) {
    crate::parallel::map(dirs, FLUSH_THREADS, |dir| sync_dir(dir));
}

/// Creates the file `path`, which must not exist (nothing already there
/// is ever written through), with `mode` where the platform has modes,
/// open for writing.
pub fn create_new(path: &Path, mode: u32) -> io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    options.open(path)
}

/// Gives `file` exactly `mode` (the umask may have narrowed the mode it
/// was created with); nothing where the platform has no modes.
pub fn set_mode(file: &fs::File, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (file, mode);
        Ok(())
    }
}

/// `path` with every `.` dropped and every `..` taking off the component
/// before it, without asking the file system (as cargo's `normalize_path`).
/// For paths a user typed, once joined to the working directory: messages,
/// receipts and the manifest then show `/a/idx`, not `/a/b/../idx` or
/// `/a/./b`. A `..` after a symbolic link means the link's parent, as it
/// does to a shell's `cd`.
pub fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                // `..` above the root is the root; a relative path keeps
                // the `..` it cannot resolve.
                if matches!(out.components().next_back(), Some(Component::Normal(_))) {
                    out.pop();
                } else if !out.has_root() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// The regular files and the directories of a tree (`dir` first), by the
/// entries' own types: symbolic links and other kinds are left out.
pub fn walk(dir: &Path, files: &mut Vec<PathBuf>, dirs: &mut Vec<PathBuf>) -> io::Result<()> {
    dirs.push(dir.to_path_buf());
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let ft = entry.file_type()?;
        if ft.is_dir() {
            walk(&entry.path(), files, dirs)?;
        } else if ft.is_file() {
            files.push(entry.path());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_drops_dots_and_resolves_parents_lexically() {
        let n = |p: &str| normalize(Path::new(p)).display().to_string();
        assert_eq!(n("/t/d8/word-count/../idx2"), "/t/d8/idx2");
        assert_eq!(n("/t/./caps14/./old-tool"), "/t/caps14/old-tool");
        assert_eq!(n("/t/tools/old/1.2.0/./src"), "/t/tools/old/1.2.0/src");
        assert_eq!(n("/../a"), "/a");
        assert_eq!(n("a/../../b"), "../b");
        assert_eq!(n("./"), "");
    }

    #[test]
    fn a_file_that_cannot_be_flushed_fails_the_batch() {
        let dir = tempfile::tempdir().unwrap();
        let here = dir.path().join("here");
        fs::write(&here, "x").unwrap();
        assert!(sync_files(std::slice::from_ref(&here)).is_ok());
        assert!(sync_files(&[here, dir.path().join("gone")]).is_err());
    }
}
