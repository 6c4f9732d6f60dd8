//! Flushing the packages a command put in place before the manifest names
//! them, so that after a power loss a package is either absent or whole:
//! no empty or missing files behind a tool the runtime serves. Every
//! regular file is flushed (`fsync`), then every directory (their entries),
//! from several threads at once so that the disk has many requests in
//! flight. Until the manifest is written the journal holds: a command
//! killed, or a machine losing power, before it is rolled back whatever
//! the packages' files hold.

use std::io;
use std::path::{Path, PathBuf};

use crate::fs::{sync_dirs, sync_files, walk};

/// What of the staged tree `staged` to flush once it is renamed to
/// `target`, named as it will be there: its files and its directories.
/// Found before the rename, while the tree is orla's alone in staging.
pub(super) fn found_for(
    staged: &Path,
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
    files.extend(found.iter().map(|f| there(f)));
    dirs.extend(found_dirs.iter().map(|d| there(d)));
    Ok(())
}

/// Flushes every file of `files`, then every directory of `dirs`, as one
/// batch for all the packages of a command. The first error of a file is
/// returned.
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

    /// Found in staging, named as they will be once the tree is renamed.
    #[test]
    fn what_to_flush_is_named_as_it_will_be_in_place() {
        let tmp = tempfile::tempdir().unwrap();
        let staged = tmp.path().join("stage").join("pkg");
        fs::create_dir_all(staged.join("bin")).unwrap();
        for file in ["tool.yaml", "bin/run", ".orla-receipt.json"] {
            fs::write(staged.join(file), b"x").unwrap();
        }
        let target = tmp.path().join("tools").join("pkg").join("1.0.0");
        let (mut files, mut dirs) = (Vec::new(), Vec::new());
        found_for(&staged, &target, &mut files, &mut dirs).unwrap();
        files.sort();
        assert_eq!(
            files,
            [
                target.join(".orla-receipt.json"),
                target.join("bin/run"),
                target.join("tool.yaml")
            ]
        );
        assert_eq!(dirs, [target.clone(), target.join("bin")]);
        assert!(sync_found(&files, &dirs).is_err(), "not there yet");
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::rename(&staged, &target).unwrap();
        sync_found(&files, &dirs).unwrap();
        let missing = tmp.path().join("gone");
        assert!(found_for(&missing, &target, &mut files, &mut dirs).is_err());
    }
}
