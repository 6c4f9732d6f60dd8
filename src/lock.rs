//! Advisory file locks: one orla process at a time mutates an install root
//! (ARCHITECTURE.md, invariant 4). A second process says it is waiting and blocks.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

use crate::progress::Reporter;

/// Held for as long as it lives; the OS releases it if the process dies.
#[derive(Debug)]
pub struct FileLock {
    _file: File,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockKind {
    Shared,
    Exclusive,
}

impl FileLock {
    pub fn acquire(
        path: &Path,
        kind: LockKind,
        what: &str,
        reporter: &dyn Reporter,
    ) -> io::Result<FileLock> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let file = match OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
        {
            Ok(file) => file,
            // A reader may lock a root it cannot write (a read-only mount,
            // another user's tools): flock works on a read-only descriptor.
            Err(e)
                if kind == LockKind::Shared
                    && matches!(
                        e.kind(),
                        io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem
                    ) =>
            {
                OpenOptions::new().read(true).open(path)?
            }
            Err(e) => return Err(e),
        };
        let attempt = match kind {
            LockKind::Shared => file.try_lock_shared(),
            LockKind::Exclusive => file.try_lock(),
        };
        match attempt {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                reporter.waiting_for_lock(what, path);
                match kind {
                    LockKind::Shared => file.lock_shared()?,
                    LockKind::Exclusive => file.lock()?,
                }
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(e),
        }
        Ok(FileLock { _file: file })
    }
}
