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
//!   and the entry is thrown away and the archive downloaded again. A file
//!   read back once and found right is stamped (`stamps`, MACed with the
//!   user's receipt key): while its inode, size, modification time and mode
//!   stay as stamped, the next reinstall does not read it again.
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
//!   before the root is locked; where the root is on this filesystem, the
//!   unpack's flushing threads link each file into a new entry as they
//!   flush it, and the landing directory is kept until the install renames
//!   it into staging (`Cache::land`), so nothing is linked under the lock.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

mod stamps;

pub use crate::size::{human_size, parse_size};
use crate::unpack::{safe_path, FileRecord, Unpacked};
use crate::verify::Digest;

/// How long a download's temporary file may go unwritten before it counts
/// as left behind by a killed process.
const STALE_DOWNLOAD: std::time::Duration = std::time::Duration::from_secs(3600);

#[derive(Debug, Clone)]
pub struct Cache {
    pub dir: PathBuf,
    /// The user's secret key (the receipt key), read when first needed:
    /// the stamps of unpacked entries are MACed with it (see `stamps`).
    key: std::sync::Arc<KeyFile>,
    /// The stamps of the entries this process put in place, taken as it
    /// put them there, shared by every clone of this `Cache`. A package
    /// downloaded before the root's lock (`install::prefetch`) was verified
    /// by its unpack moments before it is linked back into staging: its
    /// files are trusted while their stamps are unchanged, as the files of
    /// a package unpacked straight into staging are, instead of being read
    /// back a second time in the same command. Not written anywhere: a
    /// later command trusts only the MACed stamps of settled files.
    made: std::sync::Arc<Mutex<HashMap<Digest, Vec<Option<stamps::Stamp>>>>>,
    /// Packages this process downloaded and verified before the root's
    /// lock, still in their landing directories, whose files the cache
    /// entry of the same digest has its own names for (`landed`). Under
    /// the lock, such a tree is renamed into place from where it landed
    /// (`take_landed`) instead of being linked back from the entry one
    /// file at a time.
    landed: std::sync::Arc<Mutex<HashMap<Digest, Landed>>>,
}

/// A verified unpack in a landing directory, kept for this process's
/// install (`Cache::landed`).
#[derive(Debug)]
struct Landed {
    dir: Landing,
    unpacked: Unpacked,
}

/// A landed package's directory in the cache's `tmp/` (its root, or the
/// landing directory that holds its root), removed with what it holds
/// when dropped: once the package was renamed into place, there is
/// nothing left to remove, or an empty directory.
#[derive(Debug)]
pub struct Landing(PathBuf);

impl Drop for Landing {
    fn drop(&mut self) {
        match fs::remove_dir(&self.0) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                let _ = fs::remove_dir_all(&self.0);
            }
            _ => {}
        }
    }
}

impl Cache {
    pub fn new(dir: &Path) -> Cache {
        Cache {
            dir: dir.to_path_buf(),
            key: Default::default(),
            made: Default::default(),
            landed: Default::default(),
        }
    }

    /// The cache, with the user's secret key at `path` (the receipt key,
    /// `root::binding`): without one, no entry's stamps are trusted and a
    /// reinstall reads every file back.
    pub fn with_key_file(mut self, path: PathBuf) -> Cache {
        self.key = std::sync::Arc::new(KeyFile {
            path: Some(path),
            key: std::sync::OnceLock::new(),
        });
        self
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
        let entry = self.new_entry()?;
        let tree = entry.path().join(TREE);
        let root = root_under(dest, unpacked)?;
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
        let dirs = dirs.iter().map(|d| slashed(d)).collect::<io::Result<_>>()?;
        write_record(entry.path(), dest, unpacked, dirs)?;
        Ok(entry)
    }

    /// A new, empty entry directory in `tmp/`.
    fn new_entry(&self) -> io::Result<tempfile::TempDir> {
        self.in_tmp(|tmp| tempfile::Builder::new().prefix("unpacked-").tempdir_in(tmp))
    }

    /// What `make` makes in the cache's `tmp/` (`crate::fs::made_in`).
    fn in_tmp<T>(&self, make: impl Fn(&Path) -> io::Result<T>) -> io::Result<T> {
        crate::fs::made_in(&self.dir.join("tmp"), make)
    }

    /// Whether `dir` is one of this cache's landing directories
    /// (`landing_dir`), whose unpack nobody but the cache will use.
    pub fn is_landing(&self, dir: &Path) -> bool {
        let named = dir.file_name().and_then(|n| n.to_str());
        dir.parent() == Some(self.dir.join("tmp").as_path())
            && named.is_some_and(|n| n.starts_with("landing-"))
    }

    /// As `link_unpacked`, for an unpack at `dest` that nobody else will
    /// use (a landing directory): the whole directory is renamed into the
    /// new entry, so nothing is linked one file at a time and nothing is
    /// left in `dest` to delete. Its files are the ones the unpack flushed,
    /// so the entry can be put in place with `keep_flushed`.
    pub fn move_unpacked(&self, dest: &Path, unpacked: &Unpacked) -> io::Result<tempfile::TempDir> {
        let entry = self.new_entry()?;
        let mut dirs = Vec::new();
        list_dirs(dest, Path::new(""), &mut dirs)?;
        let dirs = dirs.iter().map(|d| slashed(d)).collect::<io::Result<_>>()?;
        write_record(entry.path(), dest, unpacked, dirs)?;
        fs::rename(dest, entry.path().join(TREE))?;
        Ok(entry)
    }

    /// An empty new entry in `tmp/` (its `tree/` made) for an unpack to
    /// link its files into as it flushes them (`crate::fs::Links`).
    pub fn entry_dir(&self) -> io::Result<tempfile::TempDir> {
        let entry = self.new_entry()?;
        fs::create_dir(entry.path().join(TREE))?;
        Ok(entry)
    }

    /// The tree of an entry made by `entry_dir`.
    pub fn entry_tree(entry: &Path) -> PathBuf {
        entry.join(TREE)
    }

    /// Records in `entry` (from `entry_dir`, whose tree `links` made while
    /// the landing directory `dest` was unpacked) what was verified, to be
    /// put in place with `keep_linked`. The landing directory keeps its
    /// files: this process installs them from there (`landed`).
    /// `dirs` are those `links` made (`Links::dirs`).
    pub fn record_linked(
        &self,
        entry: &tempfile::TempDir,
        dirs: Vec<String>,
        dest: &Path,
        unpacked: &Unpacked,
    ) -> io::Result<()> {
        write_record(entry.path(), dest, unpacked, dirs)
    }

    /// As `keep`, for entries made by `record_linked`: their files are the
    /// unpacks', flushed as they were written, so nothing is flushed here
    /// (a record is not read back either: a large package's is thousands
    /// of files). An entry already in place (another orla's) is kept. No
    /// stamps are taken: this process installs the landing directories'
    /// trees, not the entries'.
    pub fn keep_linked(&self, entries: Vec<(tempfile::TempDir, Digest)>) -> io::Result<()> {
        fs::create_dir_all(self.unpacked())?;
        let mut renamed = Ok(());
        for (entry, digest) in entries {
            let path = self.unpacked_path(&digest);
            if !path.exists() {
                renamed = renamed.and(fs::rename(entry.keep(), &path));
            }
        }
        renamed
    }

    /// Keeps the verified unpack in the landing directory `dir` for this
    /// process: `take_landed` hands it to the install. An unpack whose
    /// root is a directory inside `dir` (the archive's wrapper) is moved
    /// out beside it and `dir` removed, here, before the root is locked:
    /// removing a directory frees its block, which waits for the disk
    /// where blocks are discarded as they are freed, and the root renamed
    /// into place leaves nothing behind.
    pub fn land(&self, digest: &Digest, dir: tempfile::TempDir, mut unpacked: Unpacked) {
        let mut moved = dir.path().as_os_str().to_owned();
        moved.push(".root");
        let moved = PathBuf::from(moved);
        let dir = if unpacked.root != dir.path() && fs::rename(&unpacked.root, &moved).is_ok() {
            unpacked.root = moved.clone();
            let _ = dir.close();
            Landing(moved)
        } else {
            Landing(dir.keep())
        };
        let landed = Landed { dir, unpacked };
        self.landed
            .lock()
            .expect("landed lock")
            .insert(*digest, landed);
    }

    /// Takes the landed unpack of `digest`, if any, with the directory
    /// that holds it: the caller installs it from there, on the cache's
    /// filesystem.
    pub fn take_landed(&self, digest: &Digest) -> Option<(Landing, Unpacked)> {
        let landed = self.landed.lock().expect("landed lock").remove(digest)?;
        Some((landed.dir, landed.unpacked))
    }

    /// Removes the landed unpacks no install took.
    pub fn drop_landed(&self) {
        self.landed.lock().expect("landed lock").clear();
    }

    /// As `keep`, for an entry made by `move_unpacked` from an unpack whose
    /// files were all flushed as they were written: nothing is flushed.
    pub fn keep_flushed(&self, entry: tempfile::TempDir, digest: &Digest) -> io::Result<()> {
        self.put_in_place(entry, digest, true)
    }

    /// Moves an entry made by `link_unpacked` into place; an entry already
    /// there (another orla's) is kept.
    ///
    /// The data of the entry's files is flushed to disk first, and the
    /// rename after: a package hard-linked from an entry in `unpacked/`
    /// needs no flush of those files' data when it is installed. One
    /// installed under the lock has its files flushed by the install, and
    /// the flush here then finds nothing left to write. The entry's record
    /// and directories, and its name in `unpacked/`, are not flushed: an
    /// entry a power cut took away is fetched again, and one it left
    /// without a file or with a torn record is found damaged when it is
    /// used, removed, and fetched again (docs/cache.md).
    pub fn keep(&self, entry: tempfile::TempDir, digest: &Digest) -> io::Result<()> {
        self.put_in_place(entry, digest, false)
    }

    fn put_in_place(
        &self,
        entry: tempfile::TempDir,
        digest: &Digest,
        tree_flushed: bool,
    ) -> io::Result<()> {
        fs::create_dir_all(self.unpacked())?;
        let path = self.unpacked_path(digest);
        if path.exists() {
            return Ok(());
        }
        if !tree_flushed {
            let (mut files, mut dirs) = (Vec::new(), Vec::new());
            crate::fs::walk(&entry.path().join(TREE), &mut files, &mut dirs)?;
            crate::fs::sync_files(&files)?;
        }
        let made = made_stamps(entry.path());
        fs::rename(entry.keep(), &path)?;
        if let Some(made) = made {
            self.made.lock().expect("made lock").insert(*digest, made);
        }
        Ok(())
    }

    /// Links the cached unpack of `digest`, if any, into the empty directory
    /// `dest` and checks every file against what was recorded when it was
    /// verified. `Ok(None)`: nothing cached. `Err`: the entry is damaged
    /// (it is removed) or could not be linked; `dest` may hold a part of it.
    pub fn unpacked_into(&self, digest: &Digest, dest: &Path) -> Result<Option<Linked>, Damaged> {
        let path = self.unpacked_path(digest);
        let bytes = match fs::read(path.join(FILES)) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if !path.exists() {
                    return Ok(None);
                }
                // An entry is renamed into place with its record: one
                // without is what a power cut left of one (records are not
                // flushed).
                let _ = fs::remove_dir_all(&path);
                return Err(Damaged::Content("its record is missing".into()));
            }
            Err(e) => return Err(Damaged::Io(e)),
        };
        let made = self.made.lock().expect("made lock").remove(digest);
        let result = link_back(&path, &bytes, dest, self.key.get(), made);
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
        self.in_tmp(|tmp| {
            tempfile::Builder::new()
                .prefix("download-")
                .tempfile_in(tmp)
        })
    }

    /// An empty directory in `tmp/` to unpack a download into before the
    /// install root is locked; the verified unpack is linked into the cache
    /// from there (`link_unpacked`) and the directory is then removed.
    pub fn landing_dir(&self) -> io::Result<tempfile::TempDir> {
        self.in_tmp(|tmp| tempfile::Builder::new().prefix("landing-").tempdir_in(tmp))
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

/// A cached unpack linked into a staging directory.
pub struct Linked {
    pub unpacked: Unpacked,
    /// The files of `unpacked` that are hard links into a flushed entry:
    /// their data is on disk already (see `Cache::keep`).
    pub durable: crate::fs::Durable,
    /// How many files were read back and hashed (the others were vouched
    /// for by their stamps).
    pub hashed: usize,
}

/// Records that an entry was used now (its last use is its record's
/// modification time), for `prune` and the size limit. Best effort.
pub(super) fn touch(path: &Path) {
    if let Ok(file) = fs::OpenOptions::new().write(true).open(path) {
        let _ = file.set_modified(std::time::SystemTime::now());
    }
}

/// What a cached unpack holds (`files.json`).
#[derive(Serialize, Deserialize)]
struct Entry {
    /// Whether the entry was flushed before it was put in place (every
    /// entry this orla writes). An older orla's entry was not: the files
    /// linked from it are flushed again when installed.
    #[serde(default)]
    durable: bool,
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

/// The stamps of the files of the entry at `entry`, in its record's order
/// (see `Cache::made`); None if one cannot be read.
fn made_stamps(entry: &Path) -> Option<Vec<Option<stamps::Stamp>>> {
    let record: Entry = serde_json::from_slice(&fs::read(entry.join(FILES)).ok()?).ok()?;
    let root = entry.join(TREE).join(&record.root);
    record
        .files
        .keys()
        .map(|rel| {
            Some(stamps::Stamp::of(
                &fs::symlink_metadata(root.join(rel)).ok()?,
            ))
        })
        .collect()
}

/// `made`: the stamps this process took of the entry's files as it put the
/// entry in place (`Cache::made`), trusted as the MACed ones are.
fn link_back(
    entry: &Path,
    record_bytes: &[u8],
    dest: &Path,
    key: Option<&[u8; 32]>,
    made: Option<Vec<Option<stamps::Stamp>>>,
) -> Result<Linked, Damaged> {
    let damaged = |m: String| Damaged::Content(m);
    // Taken before any file is looked at: a stamp is kept only for a file
    // last written well before it (`stamps::settled`).
    let now = crate::fs::now_ns();
    let record: Entry =
        serde_json::from_slice(record_bytes).map_err(|e| damaged(format!("{FILES}: {e}")))?;
    let made = made.filter(|s| s.len() == record.files.len());
    // Only the MACed stamps of settled files are kept on disk: those taken
    // in this process are not merged into what is written back below.
    let from_made = made.is_some();
    let old_stamps = made
        .or_else(|| key.and_then(|k| stamps::read(k, entry, record_bytes)))
        .filter(|s| s.len() == record.files.len());
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
    let files: Vec<(usize, &String, &FileRecord, PathBuf)> = record
        .files
        .iter()
        .enumerate()
        .map(|(i, (rel, want))| Ok((i, rel, want, checked(rel)?)))
        .collect::<Result<_, Damaged>>()?;
    // The files by directory (by the text of their paths: comparing and
    // hashing `Path`s goes component by component).
    let total = files.len();
    let mut by_dir: HashMap<&str, Vec<Item>> = HashMap::new();
    for item in files {
        let dir = item.1.rsplit_once('/').map_or("", |(dir, _)| dir);
        by_dir.entry(dir).or_default().push(item);
    }
    let mut groups: Vec<(PathBuf, Vec<Item>)> = by_dir
        .into_iter()
        .map(|(dir, items)| (PathBuf::from(dir), items))
        .collect();
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    // Every file's directory the record does not list (an older record
    // lists none), made once here rather than asked for per file.
    let listed: HashSet<&Path> = record.dirs.iter().map(Path::new).collect();
    for (dir, _) in &groups {
        let dir = root.join(dir);
        if !listed.contains(dir.as_path()) {
            fs::create_dir_all(dest.join(dir)).map_err(Damaged::Io)?;
        }
    }
    // Linking (and hashing) run on every core, a directory at a time (two
    // threads linking into one directory wait for each other's lock).
    let durable = Mutex::new(crate::fs::Durable::default());
    // The files read back, and their stamps as checked (None: not settled).
    let fresh: Mutex<Vec<(usize, Option<stamps::Stamp>)>> = Mutex::new(Vec::new());
    type Item<'a> = (usize, &'a String, &'a FileRecord, PathBuf);
    let link_one = |how: Link, (i, rel, want, rel_path): &Item, dirs: Option<&Dirs>| {
        let from = tree.join(&root).join(rel_path);
        let to = dest.join(&root).join(rel_path);
        let name = rel_path.file_name().unwrap_or_default();
        let Some(before) = look(dirs, name, &from) else {
            return Err(damaged(format!("{rel} is missing or not a file")));
        };
        // Unchanged since it was hashed: no need to read it again.
        let vouched = match (&old_stamps, &before) {
            (Some(old), Some(now)) => old[*i].is_some_and(|s| s.vouches_for(now, want)),
            _ => false,
        };
        let how = link_in(dirs, name, &from, &to, how).map_err(Damaged::Io)?;
        if !vouched {
            // What is checked is what was put in staging: a regular file
            // (not a link swapped in after the look above), with the
            // recorded bytes.
            let Some((got, size, executable, meta)) = check_file(&to).map_err(Damaged::Io)? else {
                return Err(damaged(format!("{rel} is not a regular file")));
            };
            if got != want.blake3 || size != want.size || executable != want.executable {
                return Err(damaged(format!("{rel} changed since it was verified")));
            }
            // The file hashed: for a hard link the cache's own file, as
            // installing leaves it (one more link); a copy or clone is
            // another file, so the cache's is stamped as it was before.
            let stamp = if how == Link::Hard {
                stamps::Stamp::of(&meta)
            } else {
                before
            };
            let stamp = stamp.filter(|s| s.settled(now));
            fresh.lock().expect("stamps lock").push((*i, stamp));
        }
        if how == Link::Hard && record.durable {
            durable.lock().expect("durable lock").insert(to);
        }
        Ok(how)
    };
    let link_group = |mut how: Link, (parent, items): &(PathBuf, Vec<Item>)| {
        let dirs = Dirs::open(
            &tree.join(&root).join(parent),
            &dest.join(&root).join(parent),
        );
        for item in items {
            how = link_one(how, item, dirs.as_ref())?;
        }
        Ok(how)
    };
    in_parallel(&groups, total, link_group)?;
    let durable = durable.into_inner().expect("durable lock");
    let fresh = fresh.into_inner().expect("stamps lock");
    let hashed = fresh.len();
    if let (Some(key), false) = (key, fresh.is_empty()) {
        let mut all = old_stamps
            .filter(|_| !from_made)
            .unwrap_or_else(|| vec![None; record.files.len()]);
        for (i, stamp) in fresh {
            all[i] = stamp;
        }
        // Best effort: without them the next reinstall reads every file.
        if all.iter().any(Option::is_some) {
            let _ = stamps::write(key, entry, record_bytes, &all);
        }
    }
    Ok(Linked {
        unpacked: Unpacked {
            root: dest.join(root),
            files: record.files,
        },
        durable,
        hashed,
    })
}

/// The user's secret key, read from its file once.
#[derive(Default)]
struct KeyFile {
    path: Option<PathBuf>,
    key: std::sync::OnceLock<Option<[u8; 32]>>,
}

impl KeyFile {
    fn get(&self) -> Option<&[u8; 32]> {
        self.key
            .get_or_init(|| {
                let bytes = fs::read(self.path.as_ref()?).ok()?;
                bytes.try_into().ok()
            })
            .as_ref()
    }
}

impl std::fmt::Debug for KeyFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key itself.
        f.debug_struct("KeyFile").field("path", &self.path).finish()
    }
}

/// Runs `action` on every item from one thread per core (at most
/// `CHECK_THREADS`), each taking the next item not yet taken and passing
/// on how its last file was linked; stops at the first error and returns
/// it.
fn in_parallel<T: Sync>(
    items: &[T],
    files: usize,
    action: impl Fn(Link, &T) -> Result<Link, Damaged> + Sync,
) -> Result<(), Damaged> {
    let next = AtomicUsize::new(0);
    let failed: Mutex<Option<Damaged>> = Mutex::new(None);
    let work = || {
        let mut how = Link::Reflink;
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                break;
            };
            match action(how, item) {
                Ok(h) => how = h,
                Err(e) => {
                    failed.lock().expect("error lock").get_or_insert(e);
                    next.store(items.len(), Ordering::Relaxed);
                    break;
                }
            }
        }
    };
    let threads = crate::fs::cores()
        .min(CHECK_THREADS)
        .min(files / 8)
        .min(items.len())
        .max(1);
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(work);
            }
        });
    }
    match failed.into_inner().expect("error lock") {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The most threads a reinstall links and checks files with.
const CHECK_THREADS: usize = 8;

/// Where the package root of `unpacked` is under `dest`, its unpack.
fn root_under<'u>(dest: &Path, unpacked: &'u Unpacked) -> io::Result<&'u Path> {
    unpacked
        .root
        .strip_prefix(dest)
        .map_err(|_| io::Error::other("the package root is outside its staging directory"))
}

/// Writes an entry's record (`files.json`): what was verified of the
/// unpack at `dest`, and its directories `dirs` (relative to `dest`).
fn write_record(
    entry: &Path,
    dest: &Path,
    unpacked: &Unpacked,
    dirs: Vec<String>,
) -> io::Result<()> {
    let record = Entry {
        // True once `keep`, `keep_flushed` or `keep_linked` put it in
        // place, each flushing what it has not yet.
        durable: true,
        root: slashed(root_under(dest, unpacked)?)?,
        dirs,
        files: unpacked.files.clone(),
    };
    let json = serde_json::to_vec(&record).map_err(io::Error::other)?;
    fs::write(entry.join(FILES), json)
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

/// What `from` (`name` in the source directory of `dirs`) is before it is
/// linked: None when it is missing or not a regular file, else its stamp
/// where the platform has them.
fn look(dirs: Option<&Dirs>, name: &std::ffi::OsStr, from: &Path) -> Option<Option<stamps::Stamp>> {
    if let Some(dirs) = dirs {
        return dirs.look(name).ok()?.map(Some);
    }
    match fs::symlink_metadata(from) {
        Ok(m) if m.is_file() => Some(stamps::Stamp::of(&m)),
        _ => None,
    }
}

/// [`link`], through the descriptors of the two directories for a hard
/// link where there are some.
fn link_in(
    dirs: Option<&Dirs>,
    name: &std::ffi::OsStr,
    from: &Path,
    to: &Path,
    how: Link,
) -> io::Result<Link> {
    match (dirs, how) {
        (Some(dirs), Link::Hard) => match dirs.hard_link(name) {
            Ok(()) => Ok(Link::Hard),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
            Err(_) => link(from, to, Link::Copy),
        },
        _ => link(from, to, how),
    }
}

/// A source directory of the cache and the staging directory its files
/// are linked into, open: a file is then named by its last component, not
/// looked up again from the root for every call.
#[cfg(target_os = "linux")]
struct Dirs {
    from: fs::File,
    to: fs::File,
}

#[cfg(target_os = "linux")]
impl Dirs {
    fn open(from: &Path, to: &Path) -> Option<Dirs> {
        Some(Dirs {
            from: fs::File::open(from).ok()?,
            to: fs::File::open(to).ok()?,
        })
    }

    fn c_name(name: &std::ffi::OsStr) -> io::Result<std::ffi::CString> {
        use std::os::unix::ffi::OsStrExt;
        std::ffi::CString::new(name.as_bytes()).map_err(io::Error::other)
    }

    /// The stamp of `name` in the source directory, not following a
    /// symbolic link; None when it is not a regular file.
    fn look(&self, name: &std::ffi::OsStr) -> io::Result<Option<stamps::Stamp>> {
        use std::os::unix::io::AsRawFd;
        let name = Dirs::c_name(name)?;
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: an open descriptor, a NUL-terminated name and room for
        // one stat, which fstatat fills when it returns 0.
        let st = unsafe {
            let flags = libc::AT_SYMLINK_NOFOLLOW;
            if libc::fstatat(self.from.as_raw_fd(), name.as_ptr(), st.as_mut_ptr(), flags) != 0 {
                return Err(io::Error::last_os_error());
            }
            st.assume_init()
        };
        Ok(stamps::Stamp::of_stat(&st))
    }

    fn hard_link(&self, name: &std::ffi::OsStr) -> io::Result<()> {
        use std::os::unix::io::AsRawFd;
        let name = Dirs::c_name(name)?;
        let (from, to) = (self.from.as_raw_fd(), self.to.as_raw_fd());
        // SAFETY: two open descriptors and a NUL-terminated name.
        if unsafe { libc::linkat(from, name.as_ptr(), to, name.as_ptr(), 0) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

/// Elsewhere every file is linked by its path.
#[cfg(not(target_os = "linux"))]
struct Dirs;

#[cfg(not(target_os = "linux"))]
impl Dirs {
    fn open(_: &Path, _: &Path) -> Option<Dirs> {
        None
    }

    fn look(&self, _: &std::ffi::OsStr) -> io::Result<Option<stamps::Stamp>> {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }

    fn hard_link(&self, _: &std::ffi::OsStr) -> io::Result<()> {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
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

/// The digest, size and executable bit of the regular file at `path`, read
/// through one descriptor opened without following a symbolic link, and
/// its metadata as it was before it was read; `None` for anything but a
/// regular file.
fn check_file(path: &Path) -> io::Result<Option<(Digest, u64, bool, fs::Metadata)>> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = match options.open(path) {
        Ok(f) => f,
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Ok(None),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(None);
    }
    let executable = {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            meta.permissions().mode() & 0o111 != 0
        }
        #[cfg(not(unix))]
        {
            false
        }
    };
    let (digest, size) = digest_of(file)?;
    Ok(Some((digest, size, executable, meta)))
}

fn digest_of(mut file: fs::File) -> io::Result<(Digest, u64)> {
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

// ---- Size management: the lock, last use, prune and the size limit ----

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
                let aside = self.new_entry()?.keep();
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

    /// A staging directory as an unpack leaves it, and its `Unpacked`.
    /// A package staged in `stage`, linked into the cache and kept there
    /// as the unpack of `digest`.
    fn keep_staged(cache: &Cache, stage: &Path, digest: &Digest) {
        let unpacked = staged(stage);
        let entry = cache.link_unpacked(stage, &unpacked).unwrap();
        cache.keep(entry, digest).unwrap();
    }

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
        let back = cache
            .unpacked_into(&digest, &dest)
            .unwrap()
            .unwrap()
            .unpacked;
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

    #[test]
    fn a_landing_unpack_is_moved_into_the_cache_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = Cache::new(&tmp.path().join("cache"));
        let landing = cache.landing_dir().unwrap();
        assert!(cache.is_landing(landing.path()));
        assert!(!cache.is_landing(tmp.path()));
        let unpacked = staged(landing.path());
        let digest = Digest::of(b"the archive");
        let entry = cache.move_unpacked(landing.path(), &unpacked).unwrap();
        assert!(!landing.path().exists(), "nothing left to delete");
        cache.keep_flushed(entry, &digest).unwrap();
        let dest = tmp.path().join("again");
        fs::create_dir(&dest).unwrap();
        let back = cache.unpacked_into(&digest, &dest).unwrap().unwrap();
        assert_eq!(back.unpacked.files, unpacked.files);
        assert!(dest.join("pkg-1.0.0/empty").is_dir());
    }

    #[cfg(unix)]
    #[test]
    fn a_cached_file_replaced_by_a_symlink_is_damage() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = Cache::new(&tmp.path().join("cache"));
        let digest = Digest::of(b"the archive");
        keep_staged(&cache, &tmp.path().join("stage"), &digest);
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
        assert_damaged_and_dropped(&cache, &digest, cache.unpacked_into(&digest, &dest));
    }

    #[cfg(unix)]
    #[test]
    fn hard_links_from_a_flushed_entry_need_no_flush_and_an_older_entry_s_do() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = Cache::new(&tmp.path().join("cache"));
        let digest = Digest::of(b"the archive");
        keep_staged(&cache, &tmp.path().join("stage"), &digest);

        let dest = tmp.path().join("again");
        fs::create_dir(&dest).unwrap();
        let linked = cache.unpacked_into(&digest, &dest).unwrap().unwrap();
        let hard = {
            use std::os::unix::fs::MetadataExt;
            fs::metadata(dest.join("pkg-1.0.0/tool.yaml"))
                .unwrap()
                .nlink()
                > 1
        };
        if hard {
            let want: crate::fs::Durable = ["tool.yaml", "bin/run"]
                .iter()
                .map(|f| linked.unpacked.root.join(f))
                .collect();
            assert_eq!(linked.durable, want);
        }

        // An entry an older orla wrote says nothing of a flush.
        let record = cache.unpacked_path(&digest).join(FILES);
        let mut json: serde_json::Value =
            serde_json::from_slice(&fs::read(&record).unwrap()).unwrap();
        json.as_object_mut().unwrap().remove("durable");
        fs::write(&record, serde_json::to_vec(&json).unwrap()).unwrap();
        let dest = tmp.path().join("older");
        fs::create_dir(&dest).unwrap();
        let linked = cache.unpacked_into(&digest, &dest).unwrap().unwrap();
        assert!(linked.durable.is_empty());
    }

    /// A cache with a key, and a package kept in it whose files were
    /// last written an hour ago (long settled).
    fn keyed_with_settled_entry(tmp: &Path, digest: &Digest) -> Cache {
        let key = tmp.join("receipt.key");
        fs::write(&key, [7u8; 32]).unwrap();
        let cache = Cache::new(&tmp.join("cache")).with_key_file(key);
        let stage = tmp.join("stage");
        let unpacked = staged(&stage);
        for rel in unpacked.files.keys() {
            backdate(&unpacked.root.join(rel));
        }
        let entry = cache.link_unpacked(&stage, &unpacked).unwrap();
        cache.keep(entry, digest).unwrap();
        later(&cache)
    }

    /// The same cache as a later command sees it: without the stamps this
    /// one took of the entries it put in place.
    fn later(cache: &Cache) -> Cache {
        Cache {
            made: Default::default(),
            ..cache.clone()
        }
    }

    #[cfg(unix)]
    #[test]
    fn an_entry_put_in_place_by_this_command_is_linked_back_unread_until_a_file_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = Cache::new(&tmp.path().join("cache"));
        let keep_landed = |digest: &Digest| {
            let landing = cache.landing_dir().unwrap();
            let unpacked = staged(landing.path());
            let entry = cache.move_unpacked(landing.path(), &unpacked).unwrap();
            cache.keep_flushed(entry, digest).unwrap();
        };
        let digest = Digest::of(b"the archive");
        keep_landed(&digest);
        let linked = use_entry(&cache, &digest, tmp.path(), "one").unwrap();
        assert_eq!(linked.hashed, 0, "verified by this command's unpack");
        assert_eq!(
            fs::read(tmp.path().join("one/pkg-1.0.0/bin/run")).unwrap(),
            b"#!/bin/sh\n"
        );
        // Not written down: a later command reads the fresh files back.
        assert!(!cache.unpacked_path(&digest).join("stamps").exists());
        let again = use_entry(&later(&cache), &digest, tmp.path(), "two").unwrap();
        assert_eq!(again.hashed, 2);

        // A file changed between the two is read, and the change caught.
        let other = Digest::of(b"another archive");
        keep_landed(&other);
        let cached = cache.unpacked_path(&other).join("tree/pkg-1.0.0/tool.yaml");
        fs::write(&cached, "name: pkg\nmore: yes\n").unwrap();
        assert_damaged_and_dropped(
            &cache,
            &other,
            use_entry(&cache, &other, tmp.path(), "three"),
        );
    }

    fn backdate(path: &Path) {
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
    }

    /// Links the entry into a new directory `name`.
    fn use_entry(
        cache: &Cache,
        digest: &Digest,
        tmp: &Path,
        name: &str,
    ) -> Result<Linked, Damaged> {
        let dest = tmp.join(name);
        fs::create_dir(&dest).unwrap();
        cache.unpacked_into(digest, &dest).map(|l| l.unwrap())
    }

    /// `linked` failed on damage, and the damaged entry is gone.
    #[track_caller]
    fn assert_damaged_and_dropped(
        cache: &Cache,
        digest: &Digest,
        linked: Result<impl Sized, Damaged>,
    ) {
        assert!(matches!(linked, Err(Damaged::Content(_))));
        assert!(
            !cache.unpacked_path(digest).exists(),
            "the entry is dropped"
        );
    }

    /// Rewrites `path` in place with other bytes of the same length.
    fn edit_in_place(path: &Path) {
        use std::io::Write;
        let len = fs::metadata(path).unwrap().len() as usize;
        let mut file = fs::File::options().write(true).open(path).unwrap();
        file.write_all(&vec![b'x'; len]).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn an_entry_read_back_once_is_vouched_for_by_its_stamps_until_a_file_is_edited() {
        let tmp = tempfile::tempdir().unwrap();
        let digest = Digest::of(b"the archive");
        let cache = keyed_with_settled_entry(tmp.path(), &digest);
        let first = use_entry(&cache, &digest, tmp.path(), "one").unwrap();
        assert_eq!(first.hashed, 2, "no stamps yet: every file is read");
        assert!(cache.unpacked_path(&digest).join("stamps").is_file());
        let second = use_entry(&cache, &digest, tmp.path(), "two").unwrap();
        assert_eq!(second.hashed, 0, "both files vouched for");
        assert_eq!(
            fs::read(tmp.path().join("two/pkg-1.0.0/bin/run")).unwrap(),
            b"#!/bin/sh\n"
        );
        // An edit in place through an installed copy reaches the cache.
        edit_in_place(&tmp.path().join("one/pkg-1.0.0/tool.yaml"));
        assert_damaged_and_dropped(
            &cache,
            &digest,
            use_entry(&cache, &digest, tmp.path(), "three"),
        );
    }

    #[cfg(unix)]
    #[test]
    fn an_edit_that_puts_the_modification_time_back_is_caught_by_the_change_time() {
        let tmp = tempfile::tempdir().unwrap();
        let digest = Digest::of(b"the archive");
        let cache = keyed_with_settled_entry(tmp.path(), &digest);
        assert_eq!(
            use_entry(&cache, &digest, tmp.path(), "one")
                .unwrap()
                .hashed,
            2
        );
        // Same size, same modification time, same links: only the change
        // time (which nobody but the superuser can set) tells.
        let installed = tmp.path().join("one/pkg-1.0.0/tool.yaml");
        let mtime = fs::metadata(&installed).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        edit_in_place(&installed);
        fs::File::options()
            .write(true)
            .open(&installed)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        assert_damaged_and_dropped(
            &cache,
            &digest,
            use_entry(&cache, &digest, tmp.path(), "two"),
        );
    }

    #[cfg(unix)]
    #[test]
    fn stamps_without_the_key_vouch_for_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let digest = Digest::of(b"the archive");
        let cache = keyed_with_settled_entry(tmp.path(), &digest);
        let record = fs::read(cache.unpacked_path(&digest).join(FILES)).unwrap();
        assert_eq!(
            use_entry(&cache, &digest, tmp.path(), "one")
                .unwrap()
                .hashed,
            2
        );
        // A file edited, then stamps that vouch for it as it is now, made
        // by someone without the key.
        let installed = tmp.path().join("one/pkg-1.0.0/tool.yaml");
        edit_in_place(&installed);
        let entry = cache.unpacked_path(&digest);
        let now: Vec<Option<stamps::Stamp>> = ["pkg-1.0.0/bin/run", "pkg-1.0.0/tool.yaml"]
            .iter()
            .map(|f| stamps::Stamp::of(&fs::symlink_metadata(entry.join("tree").join(f)).unwrap()))
            .collect();
        stamps::write(&[8u8; 32], &entry, &record, &now).unwrap();
        assert_damaged_and_dropped(
            &cache,
            &digest,
            use_entry(&cache, &digest, tmp.path(), "two"),
        );

        // And a cache with no key never trusts or writes stamps.
        let digest = Digest::of(b"another archive");
        let unkeyed = Cache::new(&tmp.path().join("cache"));
        let stage = tmp.path().join("stage2");
        let unpacked = staged(&stage);
        for rel in unpacked.files.keys() {
            backdate(&unpacked.root.join(rel));
        }
        let made = unkeyed.link_unpacked(&stage, &unpacked).unwrap();
        unkeyed.keep(made, &digest).unwrap();
        let unkeyed = later(&unkeyed);
        for name in ["three", "four"] {
            assert_eq!(
                use_entry(&unkeyed, &digest, tmp.path(), name)
                    .unwrap()
                    .hashed,
                2
            );
        }
        assert!(!unkeyed.unpacked_path(&digest).join("stamps").exists());
    }

    #[cfg(unix)]
    #[test]
    fn files_written_moments_ago_are_not_stamped() {
        let tmp = tempfile::tempdir().unwrap();
        let key = tmp.path().join("receipt.key");
        fs::write(&key, [7u8; 32]).unwrap();
        let cache = Cache::new(&tmp.path().join("cache")).with_key_file(key);
        let digest = Digest::of(b"the archive");
        keep_staged(&cache, &tmp.path().join("stage"), &digest);
        let cache = later(&cache);
        // An edit within the same tick of the clock could keep the stamp:
        // files this fresh are read every time until they settle.
        for name in ["one", "two"] {
            assert_eq!(
                use_entry(&cache, &digest, tmp.path(), name).unwrap().hashed,
                2
            );
        }
    }

    #[test]
    fn trim_removes_the_least_recently_used_but_never_what_is_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = Cache::new(&tmp.path().join("cache"));
        let digests: Vec<Digest> = (0..3u8).map(|i| Digest::of(&[i])).collect();
        for (i, digest) in digests.iter().enumerate() {
            let stage = tmp.path().join(format!("stage{i}"));
            keep_staged(&cache, &stage, digest);
            // Only the cache holds them now, as after an uninstall.
            fs::remove_dir_all(&stage).unwrap();
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
