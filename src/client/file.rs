//! Reading and writing a client's configuration file without trusting what
//! is at its path.
//!
//! - **Only regular files.** A FIFO, a device (a link to `/dev/zero`) or a
//!   directory is refused before it is read, and a file is read at most
//!   [`MAX_SIZE`] bytes.
//! - **Links.** A project's own editor file (`.vscode/mcp.json`,
//!   `.cursor/mcp.json`) comes with the repository, so a link there, or a
//!   directory leading out of the project, is refused: it could point at
//!   the user's Claude Desktop configuration. The user's own files (and a
//!   file named with `--config`) may be links, as dotfile managers make
//!   them: the file the link leads to is edited in place and the link
//!   stays.
//! - **Modes.** The new file keeps the original's permissions (and owner,
//!   where the process may set it); a new file is `0600` in the user's
//!   configuration (entries may carry secrets), `0644` in a project.
//! - **One backup, the first.** Before orla first changes a file, the file
//!   as it was is saved as `FILE.orla-backup` with at most the original's
//!   permissions (never more than `0600`). Later changes leave that backup
//!   alone, so it always holds the file from before orla touched it.
//! - **Atomic.** The new text goes to a temporary file beside the target,
//!   flushed, then renamed over it; readers see the old file or the new.
//! - **Serialised.** `orla client add` and `remove` hold [`lock`] around
//!   reading, changing and writing, so two at once never lose an entry.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use super::ClientError;
use crate::lock::{FileLock, LockKind};
use crate::progress::Reporter;

/// The most orla reads of a client's file; they are a few KiB.
pub const MAX_SIZE: u64 = 16 * 1024 * 1024;

/// The suffix of the backup beside a file orla changed.
pub const BACKUP_SUFFIX: &str = ".orla-backup";

/// The lock every `orla client add|remove` holds while it reads, changes
/// and writes a file: `<ORLA_HOME>/.client.lock`.
pub fn lock(home: &Path, reporter: &dyn Reporter) -> Result<FileLock, ClientError> {
    let path = home.join(".client.lock");
    FileLock::acquire(&path, LockKind::Exclusive, "the MCP client files", reporter)
        .map_err(|source| ClientError::Lock { path, source })
}

/// A client's file as read.
#[derive(Debug)]
pub struct ConfigFile {
    /// Where the bytes are: the path, or the file its link leads to.
    pub target: PathBuf,
    /// The bytes; `None` when there is no file yet.
    pub original: Option<Vec<u8>>,
    /// The original's permission bits and owner, kept by the rewrite.
    kept: Option<(u32, u32, u32)>,
    /// The mode of a file that does not exist yet.
    new_mode: u32,
}

impl ConfigFile {
    /// Reads `path`. `project` is set for a project's own editor file:
    /// links are then refused, and the file must stay inside it.
    pub fn read(path: &Path, project: Option<&Path>) -> Result<ConfigFile, ClientError> {
        let read_err = |source| ClientError::Read {
            path: path.to_path_buf(),
            source,
        };
        if let Some(project) = project {
            check_inside(path, project)?;
        }
        let new_mode = if project.is_some() { 0o644 } else { 0o600 };
        let meta = match fs::symlink_metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(ConfigFile {
                    target: path.to_path_buf(),
                    original: None,
                    kept: None,
                    new_mode,
                })
            }
            Err(e) => return Err(read_err(e)),
        };
        let (target, meta) = if meta.file_type().is_symlink() {
            let link = fs::read_link(path).map_err(read_err)?;
            if project.is_some() {
                return Err(ClientError::ProjectLink {
                    path: path.to_path_buf(),
                    target: link,
                });
            }
            let target = match fs::canonicalize(path) {
                Ok(target) => target,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return Err(ClientError::BrokenLink {
                        path: path.to_path_buf(),
                        target: link,
                    })
                }
                Err(e) => return Err(read_err(e)),
            };
            let meta = fs::metadata(&target).map_err(read_err)?;
            (target, meta)
        } else {
            (path.to_path_buf(), meta)
        };
        check_regular(path, &meta)?;
        let bytes = read_capped(path, &target)?;
        Ok(ConfigFile {
            target,
            original: Some(bytes),
            kept: Some(kept(&meta)),
            new_mode,
        })
    }

    /// Writes `text` over the target (its directory created), the first
    /// backup saved before.
    pub fn write(&self, text: &[u8]) -> Result<(), ClientError> {
        let fail = |what: &'static str, p: &Path, source| ClientError::Write {
            what,
            path: p.to_path_buf(),
            source,
        };
        let target = &self.target;
        let dir = target.parent().expect("a file has a directory");
        fs::create_dir_all(dir).map_err(|e| fail("create", dir, e))?;
        if let Some(bytes) = &self.original {
            let mut backup = target.as_os_str().to_owned();
            backup.push(BACKUP_SUFFIX);
            let backup = PathBuf::from(backup);
            let mode = self.kept.map_or(0o600, |(mode, _, _)| mode & 0o600);
            match fs::symlink_metadata(&backup) {
                // The first backup is kept: it holds the file from before
                // orla touched it.
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    let temp =
                        temp_file(dir, bytes, mode, None).map_err(|e| fail("write", &backup, e))?;
                    // Never over something that appeared meanwhile.
                    temp.persist_noclobber(&backup)
                        .map_err(|e| fail("write", &backup, e.error))?;
                }
                Err(e) => return Err(fail("write", &backup, e)),
            }
        }
        let (mode, owner) = match self.kept {
            Some((mode, uid, gid)) => (mode, Some((uid, gid))),
            None => (self.new_mode, None),
        };
        let temp = temp_file(dir, text, mode, owner).map_err(|e| fail("write", target, e))?;
        temp.persist(target)
            .map_err(|e| fail("write", target, e.error))?;
        crate::fs::sync_dir(dir);
        Ok(())
    }
}

/// A project's file, and the directory it is in, must be inside the
/// project: a `.vscode` that links elsewhere is refused like a linked file.
fn check_inside(path: &Path, project: &Path) -> Result<(), ClientError> {
    let Some(dir) = path.parent() else {
        return Ok(());
    };
    // The nearest directory that exists (`.vscode` may not yet).
    let Some(existing) = dir.ancestors().find(|d| d.exists()) else {
        return Ok(());
    };
    let (Ok(real), Ok(project_real)) = (fs::canonicalize(existing), fs::canonicalize(project))
    else {
        return Ok(());
    };
    if real.starts_with(&project_real) {
        return Ok(());
    }
    Err(ClientError::ProjectLink {
        path: existing.to_path_buf(),
        target: real,
    })
}

fn check_regular(path: &Path, meta: &fs::Metadata) -> Result<(), ClientError> {
    if meta.is_file() {
        return Ok(());
    }
    Err(ClientError::NotAFile {
        path: path.to_path_buf(),
        kind: kind_of(meta),
    })
}

fn kind_of(meta: &fs::Metadata) -> &'static str {
    let kind = meta.file_type();
    if kind.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// The bytes of `target` (which `path` names), at most [`MAX_SIZE`]. It is
/// opened without following a link and without blocking, and checked again
/// once open, so a FIFO or device swapped in meanwhile is refused too.
fn read_capped(path: &Path, target: &Path) -> Result<Vec<u8>, ClientError> {
    let read_err = |source| ClientError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(target).map_err(read_err)?;
    let meta = file.metadata().map_err(read_err)?;
    check_regular(path, &meta)?;
    let mut bytes = Vec::new();
    file.take(MAX_SIZE + 1)
        .read_to_end(&mut bytes)
        .map_err(read_err)?;
    if bytes.len() as u64 > MAX_SIZE {
        return Err(ClientError::TooLarge {
            path: path.to_path_buf(),
            limit: MAX_SIZE,
        });
    }
    Ok(bytes)
}

/// Permission bits, owner and group.
fn kept(meta: &fs::Metadata) -> (u32, u32, u32) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (meta.mode() & 0o7777, meta.uid(), meta.gid())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        (0o600, 0, 0)
    }
}

/// `bytes` in a new temporary file of `dir` with `mode` (and `owner` where
/// the process may give it), flushed.
fn temp_file(
    dir: &Path,
    bytes: &[u8],
    mode: u32,
    owner: Option<(u32, u32)>,
) -> io::Result<tempfile::NamedTempFile> {
    let mut temp = tempfile::Builder::new()
        .prefix(crate::fs::TEMP_PREFIX)
        .tempfile_in(dir)?;
    temp.write_all(bytes)?;
    crate::fs::set_mode(temp.as_file(), mode)?;
    #[cfg(unix)]
    if let Some((uid, gid)) = owner {
        use std::os::unix::fs::MetadataExt;
        let meta = temp.as_file().metadata()?;
        if (meta.uid(), meta.gid()) != (uid, gid) {
            // Only root may give a file away; others keep their own.
            let _ = std::os::unix::fs::fchown(temp.as_file(), Some(uid), Some(gid));
        }
    }
    #[cfg(not(unix))]
    let _ = owner;
    temp.as_file().sync_all()?;
    Ok(temp)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(p: &Path) -> u32 {
        fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn the_rewrite_keeps_the_mode_and_the_first_backup() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        fs::write(&path, "one").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        ConfigFile::read(&path, None)
            .unwrap()
            .write(b"two")
            .unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "two");
        assert_eq!(mode(&path), 0o640);
        let backup = dir.path().join("c.json.orla-backup");
        assert_eq!(fs::read_to_string(&backup).unwrap(), "one");
        assert_eq!(
            mode(&backup),
            0o600,
            "never wider than the original, nor than 0600"
        );
        ConfigFile::read(&path, None)
            .unwrap()
            .write(b"three")
            .unwrap();
        assert_eq!(
            fs::read_to_string(&backup).unwrap(),
            "one",
            "the first backup stays"
        );
    }

    #[test]
    fn a_new_file_is_private_in_the_users_configuration() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new/c.json");
        ConfigFile::read(&path, None).unwrap().write(b"{}").unwrap();
        assert_eq!(mode(&path), 0o600);
        assert!(!dir.path().join("new/c.json.orla-backup").exists());
    }

    #[test]
    fn a_users_link_is_edited_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dotfiles/c.json");
        fs::create_dir_all(real.parent().unwrap()).unwrap();
        fs::write(&real, "one").unwrap();
        let link = dir.path().join("c.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let file = ConfigFile::read(&link, None).unwrap();
        file.write(b"two").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "two");
        assert!(dir.path().join("dotfiles/c.json.orla-backup").exists());
    }

    #[test]
    fn links_in_a_project_and_files_that_are_not_regular_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        fs::create_dir_all(project.join(".vscode")).unwrap();
        let secret = dir.path().join("secret.json");
        fs::write(&secret, "{}").unwrap();
        let file = project.join(".vscode/mcp.json");
        std::os::unix::fs::symlink(&secret, &file).unwrap();
        assert!(matches!(
            ConfigFile::read(&file, Some(&project)),
            Err(ClientError::ProjectLink { .. })
        ));
        // A `.cursor` directory leading out of the project.
        std::os::unix::fs::symlink(dir.path(), project.join(".cursor")).unwrap();
        assert!(matches!(
            ConfigFile::read(&project.join(".cursor/secret.json"), Some(&project)),
            Err(ClientError::ProjectLink { .. })
        ));
        assert!(matches!(
            ConfigFile::read(dir.path(), None),
            Err(ClientError::NotAFile {
                kind: "a directory",
                ..
            })
        ));
        let zero = dir.path().join("zero.json");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(matches!(
            ConfigFile::read(&zero, None),
            Err(ClientError::NotAFile {
                kind: "a device",
                ..
            })
        ));
        let gone = dir.path().join("gone.json");
        std::os::unix::fs::symlink(dir.path().join("nothing"), &gone).unwrap();
        assert!(matches!(
            ConfigFile::read(&gone, None),
            Err(ClientError::BrokenLink { .. })
        ));
    }

    #[test]
    fn a_file_over_the_cap_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.json");
        let file = fs::File::create(&path).unwrap();
        file.set_len(MAX_SIZE + 1).unwrap();
        assert!(matches!(
            ConfigFile::read(&path, None),
            Err(ClientError::TooLarge { .. })
        ));
    }
}
