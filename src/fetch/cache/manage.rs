//! Managing the download cache as a whole: its lock (held shared by every
//! install, exclusively by `orla cache clear` and `prune`), what it holds
//! (`Cache::items`), pruning by age, trimming to a size limit, clearing,
//! and the errors of those commands (docs/cache.md).

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::{Cache, FILES};
use crate::verify::Digest;

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
