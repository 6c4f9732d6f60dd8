//! The download cache: packages by the BLAKE3 digest of their archive.
//!
//! - `unpacked/<digest>/`: the package as unpacked (`tree/`) and what was
//!   verified of it (`files.json`: every file's digest, size and mode, every
//!   directory, and where the package root is). It is made by linking the
//!   files of a verified unpack into the cache (a reflink where the
//!   filesystem has them, else a hard link), so keeping it writes no file
//!   data, and a reinstall links it back into a staging directory instead
//!   of hashing, inflating and writing the archive again. Each file is
//!   checked against `files.json` after it is linked or copied into staging
//!   and before anything is installed: a hard link shares its file with the
//!   installed copies, so a file edited in place anywhere is caught there,
//!   and the entry is thrown away and the archive downloaded again.
//!
//!   What this trusts: an archive is checked against the digest the
//!   registry recorded, which nobody can forge; an unpacked entry is checked
//!   against its own record, which orla wrote when the archive was verified
//!   and which whoever can write the cache directory could rewrite together
//!   with the files. So the cache directory must be as private as the
//!   install root (by default both are the user's own); an entry swapped
//!   for another package is still refused when the package's name, version
//!   or permissions differ from the registry's record (install checks them).
//! - `archives/<digest>.tar.gz`: the archive itself, kept only when the
//!   cache is on another filesystem than the install root (no links
//!   between them), and read when an older orla left it.
//! - `tmp/`: downloads and entries in flight, renamed into place only once
//!   the package was verified (and, for an install under the root's lock,
//!   installed). `landing-*` directories hold a download being unpacked
//!   before the root is locked.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::unpack::{safe_path, FileRecord, Unpacked};
use crate::verify::Digest;

/// How long a download's temporary file may go unwritten before it counts
/// as left behind by a killed process.
const STALE_DOWNLOAD: std::time::Duration = std::time::Duration::from_secs(3600);

#[derive(Debug, Clone)]
pub struct Cache {
    pub dir: PathBuf,
}

impl Cache {
    pub fn new(dir: &Path) -> Cache {
        Cache {
            dir: dir.to_path_buf(),
        }
    }

    fn unpacked(&self) -> PathBuf {
        self.dir.join("unpacked")
    }

    fn unpacked_path(&self, digest: &Digest) -> PathBuf {
        self.unpacked().join(digest.to_string())
    }

    /// Whether unpacked packages in `staging` can be linked into the cache
    /// (and back): the same filesystem. Creates the cache directory.
    pub fn can_link(&self, staging: &Path) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let tmp = self.dir.join("tmp");
            if fs::create_dir_all(&tmp).is_err() {
                return false;
            }
            match (fs::metadata(&tmp), fs::metadata(staging)) {
                (Ok(a), Ok(b)) => a.dev() == b.dev(),
                _ => false,
            }
        }
        #[cfg(not(unix))]
        {
            let _ = staging;
            false
        }
    }

    /// Links a verified unpack at `dest` into a new cache entry in `tmp/`,
    /// to be moved into place by `keep`. Writes no file data.
    pub fn link_unpacked(&self, dest: &Path, unpacked: &Unpacked) -> io::Result<tempfile::TempDir> {
        let tmp = self.dir.join("tmp");
        fs::create_dir_all(&tmp)?;
        let entry = tempfile::Builder::new()
            .prefix("unpacked-")
            .tempdir_in(&tmp)?;
        let tree = entry.path().join(TREE);
        let root = unpacked
            .root
            .strip_prefix(dest)
            .map_err(|_| io::Error::other("the package root is outside its staging directory"))?;
        let mut dirs = Vec::new();
        list_dirs(dest, Path::new(""), &mut dirs)?;
        fs::create_dir(&tree)?;
        for dir in &dirs {
            fs::create_dir(tree.join(dir))?;
        }
        let mut how = Link::Reflink;
        for rel in unpacked.files.keys() {
            how = link(&unpacked.root.join(rel), &tree.join(root).join(rel), how)?;
        }
        let record = Entry {
            root: slashed(root)?,
            dirs: dirs.iter().map(|d| slashed(d)).collect::<io::Result<_>>()?,
            files: unpacked.files.clone(),
        };
        let json = serde_json::to_vec(&record).map_err(io::Error::other)?;
        fs::write(entry.path().join(FILES), json)?;
        Ok(entry)
    }

    /// Moves an entry made by `link_unpacked` into place; an entry already
    /// there (another orla's) is kept.
    pub fn keep(&self, entry: tempfile::TempDir, digest: &Digest) -> io::Result<()> {
        fs::create_dir_all(self.unpacked())?;
        let path = self.unpacked_path(digest);
        if path.exists() {
            return Ok(());
        }
        fs::rename(entry.keep(), &path)
    }

    /// Links the cached unpack of `digest`, if any, into the empty directory
    /// `dest` and checks every file against what was recorded when it was
    /// verified. `Ok(None)`: nothing cached. `Err`: the entry is damaged
    /// (it is removed) or could not be linked; `dest` may hold a part of it.
    pub fn unpacked_into(&self, digest: &Digest, dest: &Path) -> Result<Option<Unpacked>, Damaged> {
        let path = self.unpacked_path(digest);
        let bytes = match fs::read(path.join(FILES)) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Damaged::Io(e)),
        };
        let result = link_back(&path, &bytes, dest);
        if let Err(Damaged::Content(_)) = &result {
            let _ = fs::remove_dir_all(&path);
        }
        result.map(Some)
    }

    /// Removes the unpacked entry of `digest`, if any (one added for an
    /// install that was then refused).
    pub fn forget_unpacked(&self, digest: &Digest) {
        let _ = fs::remove_dir_all(self.unpacked_path(digest));
    }

    fn archives(&self) -> PathBuf {
        self.dir.join("archives")
    }

    pub fn archive_path(&self, digest: &Digest) -> PathBuf {
        self.archives().join(format!("{digest}.tar.gz"))
    }

    /// The cached copy of the package whose archive has this digest, if
    /// any: its unpacked entry, else the archive.
    pub fn archive(&self, digest: &Digest) -> Option<PathBuf> {
        let unpacked = self.unpacked_path(digest);
        if unpacked.join(FILES).is_file() {
            return Some(unpacked);
        }
        let path = self.archive_path(digest);
        path.is_file().then_some(path)
    }

    /// A temporary file beside the cached archives, for a download in flight.
    pub fn temp_file(&self) -> io::Result<tempfile::NamedTempFile> {
        let dir = self.dir.join("tmp");
        fs::create_dir_all(&dir)?;
        tempfile::Builder::new()
            .prefix("download-")
            .tempfile_in(dir)
    }

    /// An empty directory in `tmp/` to unpack a download into before the
    /// install root is locked; the verified unpack is linked into the cache
    /// from there (`link_unpacked`) and the directory is then removed.
    pub fn landing_dir(&self) -> io::Result<tempfile::TempDir> {
        let tmp = self.dir.join("tmp");
        fs::create_dir_all(&tmp)?;
        tempfile::Builder::new().prefix("landing-").tempdir_in(&tmp)
    }

    /// Removes what killed processes left of their downloads and unpacked
    /// entries (not written to for an hour: one in flight keeps it fresh),
    /// then the directory of downloads in flight once it is empty.
    pub fn tidy(&self) {
        let dir = self.dir.join("tmp");
        let stale = std::time::SystemTime::now() - STALE_DOWNLOAD;
        if let Ok(entries) = fs::read_dir(&dir) {
            for entry in entries.flatten() {
                let old = entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .is_ok_and(|t| t < stale);
                let name = entry.file_name().to_string_lossy().into_owned();
                if old && name.starts_with("download-") {
                    let _ = fs::remove_file(entry.path());
                } else if old && (name.starts_with("unpacked-") || name.starts_with("landing-")) {
                    let _ = fs::remove_dir_all(entry.path());
                }
            }
        }
        let _ = fs::remove_dir(dir);
    }

    /// Moves a verified download into the cache.
    ///
    /// Deliberately not flushed to disk first: a cached archive is verified
    /// again on every use, so a copy torn by a power cut is caught, thrown
    /// away and downloaded again. The flush cost about 15% of a 24 MiB
    /// install (docs/benchmarks.md); the installed files are still flushed.
    pub fn store(&self, tmp: tempfile::NamedTempFile, digest: &Digest) -> io::Result<PathBuf> {
        let dest = self.archive_path(digest);
        fs::create_dir_all(self.archives())?;
        tmp.persist(&dest).map_err(|e| e.error)?;
        Ok(dest)
    }
}

/// The tree of an unpacked entry, and its record.
const TREE: &str = "tree";
const FILES: &str = "files.json";

/// What a cached unpack holds (`files.json`).
#[derive(Serialize, Deserialize)]
struct Entry {
    /// The package root inside the tree (`""`: the tree itself).
    root: String,
    /// Every directory of the tree, parents first.
    dirs: Vec<String>,
    /// Every file, relative to the package root.
    files: BTreeMap<String, FileRecord>,
}

/// Why a cached unpack was not used.
#[derive(Debug)]
pub enum Damaged {
    /// A file differs from what was verified, or the record is unreadable.
    Content(String),
    /// Linking or copying failed (a full disk, permissions).
    Io(io::Error),
}

impl std::fmt::Display for Damaged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Damaged::Content(m) => f.write_str(m),
            Damaged::Io(e) => e.fmt(f),
        }
    }
}

fn link_back(entry: &Path, record: &[u8], dest: &Path) -> Result<Unpacked, Damaged> {
    let damaged = |m: String| Damaged::Content(m);
    let record: Entry =
        serde_json::from_slice(record).map_err(|e| damaged(format!("{FILES}: {e}")))?;
    // The record names paths as an archive would: checked the same way, so
    // a damaged record cannot reach outside the staging directory.
    let checked = |p: &str| match safe_path(p.as_bytes()) {
        Ok(s) if s == p => Ok(PathBuf::from(p)),
        _ => Err(damaged(format!("{FILES}: unsafe path '{p}'"))),
    };
    let root = checked(&record.root)?;
    for dir in &record.dirs {
        fs::create_dir_all(dest.join(checked(dir)?)).map_err(Damaged::Io)?;
    }
    let tree = entry.join(TREE);
    let mut how = Link::Reflink;
    for (rel, want) in &record.files {
        let rel_path = checked(rel)?;
        let from = tree.join(&root).join(&rel_path);
        let to = dest.join(&root).join(&rel_path);
        match fs::symlink_metadata(&from) {
            Ok(m) if m.is_file() => {}
            _ => return Err(damaged(format!("{rel} is missing or not a file"))),
        }
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent).map_err(Damaged::Io)?;
        }
        how = link(&from, &to, how).map_err(Damaged::Io)?;
        // What is checked is what was put in staging: a regular file (not a
        // link swapped in after the check above), with the recorded bytes.
        match fs::symlink_metadata(&to) {
            Ok(m) if m.is_file() => {}
            _ => return Err(damaged(format!("{rel} is not a regular file"))),
        }
        let got = digest_of(&to).map_err(Damaged::Io)?;
        let executable = is_executable(&to).map_err(Damaged::Io)?;
        if got.0 != want.blake3 || got.1 != want.size || executable != want.executable {
            return Err(damaged(format!("{rel} changed since it was verified")));
        }
    }
    Ok(Unpacked {
        root: dest.join(root),
        files: record.files,
    })
}

/// The regular files' parent directories of a tree, parents first.
fn list_dirs(base: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in fs::read_dir(base.join(rel))? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            let sub = rel.join(entry.file_name());
            out.push(sub.clone());
            list_dirs(base, &sub, out)?;
        }
    }
    Ok(())
}

fn slashed(path: &Path) -> io::Result<String> {
    let parts: Option<Vec<&str>> = path.components().map(|c| c.as_os_str().to_str()).collect();
    parts
        .map(|p| p.join("/"))
        .ok_or_else(|| io::Error::other("a path that is not UTF-8"))
}

/// How files get from one tree to the other, best first: each call starts
/// with what worked last time.
#[derive(Clone, Copy, PartialEq)]
enum Link {
    /// A copy-on-write clone (btrfs, XFS): independent files, no data written.
    Reflink,
    /// The same file under two names: no data written.
    Hard,
    /// A plain copy.
    Copy,
}

fn link(from: &Path, to: &Path, how: Link) -> io::Result<Link> {
    if how == Link::Reflink {
        match reflink(from, to) {
            Ok(()) => return Ok(Link::Reflink),
            Err(_) => {
                let _ = fs::remove_file(to);
            }
        }
    }
    if how != Link::Copy {
        match fs::hard_link(from, to) {
            Ok(()) => return Ok(Link::Hard),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(e),
            Err(_) => {}
        }
    }
    fs::copy(from, to)?;
    Ok(Link::Copy)
}

#[cfg(target_os = "linux")]
fn reflink(from: &Path, to: &Path) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    let src = fs::File::open(from)?;
    let mode = src.metadata()?.permissions();
    let dst = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(to)?;
    // SAFETY: two valid descriptors; FICLONE reads no memory of ours.
    let ok = unsafe { libc::ioctl(dst.as_raw_fd(), libc::FICLONE, src.as_raw_fd()) } == 0;
    if !ok {
        return Err(io::Error::last_os_error());
    }
    dst.set_permissions(mode)
}

#[cfg(not(target_os = "linux"))]
fn reflink(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

fn digest_of(path: &Path) -> io::Result<(Digest, u64)> {
    let mut file = fs::File::open(path)?;
    let mut hasher = blake3::Hasher::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut size = 0u64;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        size += n as u64;
        hasher.update(&buf[..n]);
    }
    Ok((Digest::from_hasher(&hasher), size))
}

fn is_executable(path: &Path) -> io::Result<bool> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Ok(fs::metadata(path)?.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A staging directory as an unpack leaves it, and its `Unpacked`.
    fn staged(dir: &Path) -> Unpacked {
        let root = dir.join("pkg-1.0.0");
        fs::create_dir_all(root.join("bin")).unwrap();
        fs::create_dir_all(root.join("empty")).unwrap();
        fs::write(root.join("tool.yaml"), "name: pkg\n").unwrap();
        fs::write(root.join("bin/run"), "#!/bin/sh\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(root.join("bin/run"), fs::Permissions::from_mode(0o755)).unwrap();
        }
        let record = |body: &[u8], executable| FileRecord {
            blake3: Digest::of(body),
            size: body.len() as u64,
            executable,
        };
        let mut files = BTreeMap::new();
        files.insert("tool.yaml".to_string(), record(b"name: pkg\n", false));
        files.insert("bin/run".to_string(), record(b"#!/bin/sh\n", true));
        Unpacked { root, files }
    }

    #[test]
    fn an_unpack_is_linked_in_and_back_out_checked() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = Cache::new(&tmp.path().join("cache"));
        let stage = tmp.path().join("stage");
        let unpacked = staged(&stage);
        let digest = Digest::of(b"the archive");
        assert!(cache.can_link(&stage));
        let entry = cache.link_unpacked(&stage, &unpacked).unwrap();
        cache.keep(entry, &digest).unwrap();
        assert!(cache.archive(&digest).is_some(), "counts as cached");

        let dest = tmp.path().join("again");
        fs::create_dir(&dest).unwrap();
        let back = cache.unpacked_into(&digest, &dest).unwrap().unwrap();
        assert_eq!(back.root, dest.join("pkg-1.0.0"));
        assert_eq!(back.files, unpacked.files);
        assert!(
            dest.join("pkg-1.0.0/empty").is_dir(),
            "empty directories too"
        );
        assert_eq!(
            fs::read(dest.join("pkg-1.0.0/bin/run")).unwrap(),
            b"#!/bin/sh\n"
        );
        let other = tmp.path().join("nothing");
        fs::create_dir(&other).unwrap();
        assert!(cache
            .unpacked_into(&Digest::of(b"other"), &other)
            .unwrap()
            .is_none());
    }

    #[cfg(unix)]
    #[test]
    fn a_cached_file_replaced_by_a_symlink_is_damage() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = Cache::new(&tmp.path().join("cache"));
        let stage = tmp.path().join("stage");
        let unpacked = staged(&stage);
        let digest = Digest::of(b"the archive");
        let entry = cache.link_unpacked(&stage, &unpacked).unwrap();
        cache.keep(entry, &digest).unwrap();
        // Same bytes behind the link: only the kind of file gives it away.
        let secret = tmp.path().join("elsewhere");
        fs::write(&secret, "name: pkg\n").unwrap();
        let cached = cache
            .unpacked_path(&digest)
            .join("tree/pkg-1.0.0/tool.yaml");
        fs::remove_file(&cached).unwrap();
        std::os::unix::fs::symlink(&secret, &cached).unwrap();
        let dest = tmp.path().join("again");
        fs::create_dir(&dest).unwrap();
        assert!(matches!(
            cache.unpacked_into(&digest, &dest),
            Err(Damaged::Content(_))
        ));
        assert!(
            !cache.unpacked_path(&digest).exists(),
            "the entry is dropped"
        );
    }
}
