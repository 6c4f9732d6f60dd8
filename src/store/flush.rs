//! Flushing a staged package before it is renamed into place, so that after
//! a power loss the package is either absent or whole: no empty or missing
//! files behind an installed name.
//!
//! Every regular file is flushed with `fsync`, then every directory (their
//! entries). The guarantee is the one a loop of `fsync` over the files gives;
//! what changed is how long it waits:
//!
//! - While unpacking, each file is handed to the kernel's writeback as soon
//!   as it is closed (`sync_file_range(SYNC_FILE_RANGE_WRITE)` on Linux, in
//!   `unpack`), so the disk works while the rest of the archive downloads
//!   and inflates. That call waits for nothing and promises nothing; it only
//!   starts the I/O the `fsync` below would otherwise start. Summed over a
//!   100 MiB, 2,000-file install, the time spent inside `fsync` fell from
//!   9.2-11.3 s to 0.8-1.5 s (three runs each, `strace -T`).
//! - At commit the files are flushed from several threads at once
//!   (`FLUSH_THREADS`), so the disk has many requests in flight and the
//!   filesystem can merge their journal commits, instead of one round trip
//!   per file, one after another.
//!
//! Measured on ext4 with a 100 MiB package of 2,000 files installed from a
//! local server, the variants interleaved in one run on a busy machine
//! (load 8): one `fsync` after another 7.0 s median, 8 threads 1.16 s.
//! `syncfs` of the root's filesystem (1.19 s there, and the cheapest on a
//! quiet machine) is not used: it also writes back every other process's
//! dirty data on that filesystem, without bound (216 ms against 36 ms for
//! the threads in a test with 300 MB of a compiler's output pending), and
//! FUSE filesystems before Linux 5.15 accept it without flushing anything.
//! docs/benchmarks.md has the figures.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::fs::sync_dir;

/// How many files are flushed at once. Threads spend their time waiting
/// for the disk, not computing, so more than the number of cores helps.
const FLUSH_THREADS: usize = 8;

/// Flushes every file of the tree at `dir`, then every directory of it
/// (deepest first, `dir` last). The first error of a file is returned.
pub(super) fn sync_tree(dir: &Path) -> io::Result<()> {
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    walk(dir, &mut files, &mut dirs)?;
    for_each_parallel(&files, |path| fs::File::open(path)?.sync_all())?;
    for dir in dirs.iter().rev() {
        sync_dir(dir);
    }
    Ok(())
}

/// The regular files and the directories of a tree (`dir` first).
fn walk(dir: &Path, files: &mut Vec<PathBuf>, dirs: &mut Vec<PathBuf>) -> io::Result<()> {
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

/// Runs `action` once on every item from up to `FLUSH_THREADS` threads,
/// each taking the next item not yet taken; stops early after an error and
/// returns the first one.
fn for_each_parallel<T: Sync>(
    items: &[T],
    action: impl Fn(&T) -> io::Result<()> + Sync,
) -> io::Result<()> {
    let next = AtomicUsize::new(0);
    let failed: Mutex<Option<io::Error>> = Mutex::new(None);
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = items.get(i) else {
            break;
        };
        if let Err(e) = action(item) {
            failed.lock().expect("flush error lock").get_or_insert(e);
            next.store(items.len(), Ordering::Relaxed);
            break;
        }
    };
    let threads = FLUSH_THREADS.min(items.len());
    if threads <= 1 {
        work();
    } else {
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(work);
            }
        });
    }
    match failed.into_inner().expect("flush error lock") {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_is_flushed_once_and_every_directory_found() {
        let tmp = tempfile::tempdir().unwrap();
        let mut expected = Vec::new();
        for d in 0..5 {
            let sub = tmp.path().join(format!("d{d}")).join("deeper");
            fs::create_dir_all(&sub).unwrap();
            for f in 0..40 {
                let path = sub.join(format!("f{f}"));
                fs::write(&path, b"x").unwrap();
                expected.push(path);
            }
        }
        let mut files = Vec::new();
        let mut dirs = Vec::new();
        walk(tmp.path(), &mut files, &mut dirs).unwrap();
        assert_eq!(dirs.len(), 11, "the root, 5 directories and 5 below them");
        assert_eq!(dirs[0], tmp.path());

        let seen = Mutex::new(Vec::new());
        for_each_parallel(&files, |p| {
            seen.lock().unwrap().push(p.clone());
            Ok(())
        })
        .unwrap();
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        expected.sort();
        assert_eq!(seen, expected);
        sync_tree(tmp.path()).unwrap();
    }

    #[test]
    fn the_first_error_is_returned() {
        let items: Vec<usize> = (0..100).collect();
        let err = for_each_parallel(&items, |i| {
            if *i == 37 {
                Err(io::Error::other("disk on fire"))
            } else {
                Ok(())
            }
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "disk on fire");
        let missing = tempfile::tempdir().unwrap().path().join("gone");
        assert!(sync_tree(&missing).is_err());
    }
}
