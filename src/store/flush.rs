//! Flushing a package put in place before the manifest names it, so that
//! after a power loss the package is either absent or whole: no empty or
//! missing files behind a tool the runtime serves.
//!
//! Every regular file is flushed with `fsync`, then every directory (their
//! entries). The guarantee is the one a loop of `fsync` over the files gives;
//! what changed is when and how long it waits:
//!
//! - An unpacked archive's files are flushed during the unpack: each one,
//!   as soon as it is written, goes to a pool of 32 background threads that
//!   `fsync` it (`crate::fs::Flusher`, used by `unpack`), so the waits for
//!   the disk overlap the rest of the download and inflate instead of
//!   following them. `unpack` returns only once every file is on disk (and
//!   fails if one could not be flushed), and `fetch` hands those files to
//!   the commit as `durable`: what is left here is the receipt and the
//!   directories. Before, each file's writeback was only started during the
//!   unpack (`sync_file_range`) and every file was flushed here; on the
//!   100 MiB, 2,000-file install the pool took 0.77 s against 0.92 s
//!   (median of 4 interleaved runs, load 7), for 60 ms more CPU in the
//!   process: the block-layer work of writeback moved from the kernel's
//!   flusher threads into the pool.
//! - What else is flushed here (a git checkout, a package linked from an
//!   older cache entry) goes from several threads at once
//!   (`crate::fs::sync_files`), so the disk has many requests in flight and the
//!   filesystem can merge their journal commits, instead of one round trip
//!   per file, one after another. The packages of one command are flushed
//!   as one batch (`found_for`, `sync_found`), once they are renamed into
//!   place: on a thread of their own while the manifest is rendered and
//!   written, and always before that manifest takes effect. Until then a
//!   journaled package can be unflushed: a command killed, or a machine
//!   losing power, before the manifest is rolled back from the journal,
//!   which moves the package out whatever its files hold.
//!
//! Measured on ext4 with a 100 MiB package of 2,000 files installed from a
//! local server, the variants interleaved in one run on a busy machine
//! (load 8): one `fsync` after another 7.0 s median, 8 threads 1.16 s.
//! `syncfs` of the root's filesystem (1.19 s there, and the cheapest on a
//! quiet machine) is not used: it also writes back every other process's
//! dirty data on that filesystem, without bound (216 ms against 36 ms for
//! the threads in a test with 300 MB of a compiler's output pending), and
//! FUSE filesystems before Linux 5.15 accept it without flushing anything.
//! Measured again against the pool, one `syncfs` after the unpack took
//! 0.99 s against 1.09 s (4 runs each, load 7: within the noise), its own
//! wait 90-95 ms after the last file; chosen only when little else is
//! dirty it might win on a quiet machine, which is not done yet.
//! docs/benchmarks.md has the figures.
//!
//! A package linked from the download cache's unpacked copy (a warm
//! reinstall) shares its files with that copy, which was flushed before it
//! joined the cache: those files are skipped, and only the new ones (the
//! receipt) and the directories are flushed.

use std::io;
use std::path::{Path, PathBuf};

use crate::fs::{sync_dirs, sync_files, walk};

/// What of the staged tree `staged` to flush once it is renamed to
/// `target`, named as it will be there: its files not in `durable`, and
/// its directories. Found before the rename, while the tree is orla's
/// alone in staging.
pub(super) fn found_for(
    staged: &Path,
    durable: &crate::fs::Durable,
    target: &Path,
    files: &mut Vec<PathBuf>,
    dirs: &mut Vec<PathBuf>,
) -> io::Result<()> {
    let (mut found, mut found_dirs) = (Vec::new(), Vec::new());
    walk(staged, &mut found, &mut found_dirs)?;
    let there = |path: &Path| match path.strip_prefix(staged) {
        Ok(rest) if !rest.as_os_str().is_empty() => target.join(rest),
        _ => target.to_path_buf(),
    };
    files.extend(
        found
            .iter()
            .filter(|f| !durable.contains(f))
            .map(|f| there(f)),
    );
    dirs.extend(found_dirs.iter().map(|d| there(d)));
    Ok(())
}

/// Flushes every file of `files`, then every directory of `dirs`, from one
/// pool of threads for all of them (`crate::fs::sync_files`): a command
/// installing many packages waits for one batch, not one per package. The
/// first error of a file is returned.
///
/// The files a staged tree's `durable` set names are not in `files` (see
/// [`found_for`]): they are hard links to files of a cache entry, flushed
/// before that entry was put in place (`fetch`'s cache), or files written
/// synced, so their data is on disk already and an `fsync` would only wait
/// for nothing. Their new names are in the directories, which are flushed.
pub(super) fn sync_found(files: &[PathBuf], dirs: &[PathBuf]) -> io::Result<()> {
    sync_files(files)?;
    sync_dirs(dirs);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn every_file_and_every_directory_is_found() {
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
        files.sort();
        expected.sort();
        assert_eq!(files, expected);
    }

    /// Found in staging, named as they will be once the tree is renamed,
    /// less the durable files.
    #[test]
    fn what_to_flush_is_named_as_it_will_be_in_place() {
        let tmp = tempfile::tempdir().unwrap();
        let staged = tmp.path().join("stage").join("pkg");
        fs::create_dir_all(staged.join("bin")).unwrap();
        for file in ["tool.yaml", "bin/run", ".orla-receipt.json"] {
            fs::write(staged.join(file), b"x").unwrap();
        }
        let durable: crate::fs::Durable = [staged.join("bin/run")].into_iter().collect();
        let target = tmp.path().join("tools").join("pkg").join("1.0.0");
        let (mut files, mut dirs) = (Vec::new(), Vec::new());
        found_for(&staged, &durable, &target, &mut files, &mut dirs).unwrap();
        files.sort();
        assert_eq!(
            files,
            [target.join(".orla-receipt.json"), target.join("tool.yaml")]
        );
        assert_eq!(dirs, [target.clone(), target.join("bin")]);
        assert!(sync_found(&files, &dirs).is_err(), "not there yet");
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::rename(&staged, &target).unwrap();
        sync_found(&files, &dirs).unwrap();
        let missing = tmp.path().join("gone");
        assert!(found_for(&missing, &durable, &target, &mut files, &mut dirs).is_err());
    }
}
