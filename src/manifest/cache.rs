//! What the manifest says about each package, remembered between commands,
//! so that regenerating the manifest of a root of a thousand tools does not
//! read and parse a thousand receipts, tool.yaml files and entrypoints.
//!
//! # Format
//!
//! `<state_dir>/.manifest-cache`: one line `orla manifest cache 1 <MAC>`,
//! then JSON: `generator` (the orla that wrote it) and `packages`, an object
//! from each package directory's absolute path to
//! `{receipt, tool_yaml, entrypoint, entry}`, where the first three are the
//! stamps `[dev, ino, size, mtime_ns, ctime_ns]` of the files the entry was
//! derived from and `entry` is the package's manifest entry (a `tools`
//! entry of manifest.json). Only packages whose receipt checked out (read,
//! parsed, bound to this root: see `root::binding`) are remembered.
//!
//! # When an entry is used
//!
//! Only when the file's MAC, a keyed BLAKE3 under the root's receipt key of
//! the state directory's path and the JSON, is right (so a cache shipped in
//! a cloned project's `.orla/`, or written by anyone without the key, is
//! ignored), it was written by this version of orla, and the three files
//! have exactly the stamps it recorded. A file whose bytes change gets a new
//! ctime (which no one but the superuser can set), a file replaced by
//! another one a new inode or a new ctime, and a package directory moved or
//! copied elsewhere another key; any of these reads the package again and
//! checks its binding, as on a first scan. As git does for its index, a
//! file changed within the same tick of the clock as its stamp could keep
//! it, so a package whose files changed less than [`SETTLE_NS`] before the
//! scan is read but not remembered; the next command remembers it.
//!
//! The cache is rewritten (temporary file and rename, not flushed: a torn or
//! lost cache fails its MAC and costs one full scan) only under the root's
//! lock, when it changed. With no receipt key there is no cache.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::ToolEntry;
use crate::root::binding::KeyState;
use crate::root::InstallRoot;

/// The cache's file name, in the state directory.
pub const CACHE_FILE: &str = ".manifest-cache";
const HEADER: &str = "orla manifest cache 1 ";
/// How long ago a package's files must have last changed for it to be
/// remembered: longer than any filesystem's timestamp tick.
pub const SETTLE_NS: i64 = 2_000_000_000;

/// The identity and version of a file: a changed byte changes its ctime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp(u64, u64, u64, i64, i64);

impl Stamp {
    /// The stamp of the file at `path` (following links, as reading it
    /// does); None when it is not a regular file.
    pub fn of(path: &Path) -> Option<Stamp> {
        let meta = fs::metadata(path).ok()?;
        if !meta.is_file() {
            return None;
        }
        Stamp::from_metadata(&meta)
    }

    /// None where the platform has no inode numbers and ctimes.
    pub fn from_metadata(meta: &fs::Metadata) -> Option<Stamp> {
        stamp(meta)
    }

    fn ctime_ns(&self) -> i64 {
        self.4
    }
}

#[cfg(unix)]
fn stamp(meta: &fs::Metadata) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
    Some(Stamp(
        meta.dev(),
        meta.ino(),
        meta.size(),
        ns(meta.mtime(), meta.mtime_nsec()),
        ns(meta.ctime(), meta.ctime_nsec()),
    ))
}

#[cfg(not(unix))]
fn stamp(_: &fs::Metadata) -> Option<Stamp> {
    None
}

/// One remembered package.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Remembered {
    pub receipt: Stamp,
    pub tool_yaml: Stamp,
    pub entrypoint: Stamp,
    pub entry: ToolEntry,
}

impl Remembered {
    /// Whether every file changed long enough before `now_ns`.
    pub fn settled(&self, now_ns: i64) -> bool {
        [self.receipt, self.tool_yaml, self.entrypoint]
            .iter()
            .all(|s| s.ctime_ns() < now_ns.saturating_sub(SETTLE_NS))
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    generator: String,
    packages: BTreeMap<PathBuf, Remembered>,
}

/// The cache of one root, as read and as the scan leaves it.
#[derive(Debug, Default)]
pub struct Cache {
    key: Option<[u8; 32]>,
    /// As read, less the entries kept since.
    old: BTreeMap<PathBuf, Remembered>,
    new: BTreeMap<PathBuf, Remembered>,
    changed: bool,
}

fn generator() -> String {
    format!("orla {}", env!("CARGO_PKG_VERSION"))
}

fn mac(key: &[u8; 32], state_dir: &Path, json: &[u8]) -> String {
    let mut hasher = blake3::Hasher::new_keyed(key);
    hasher.update(b"orla manifest cache v1\0");
    let dir = state_dir.as_os_str().as_encoded_bytes();
    hasher.update(&(dir.len() as u64).to_le_bytes());
    hasher.update(dir);
    hasher.update(json);
    hasher.finalize().to_hex().to_string()
}

impl Cache {
    /// The root's cache; empty when there is none, it is not this orla's,
    /// or its MAC is wrong (then it is rewritten by the next scan that may).
    pub fn load(root: &InstallRoot, key: &KeyState) -> Cache {
        let KeyState::Key(key) = key else {
            return Cache::default();
        };
        let mut cache = Cache {
            key: Some(*key),
            ..Cache::default()
        };
        let Ok(bytes) = fs::read(root.state_dir.join(CACHE_FILE)) else {
            return cache;
        };
        let Some(newline) = bytes.iter().position(|&b| b == b'\n') else {
            return cache;
        };
        let (head, json) = (&bytes[..newline], &bytes[newline + 1..]);
        let expected = format!("{HEADER}{}", mac(key, &root.state_dir, json));
        // Compared in constant time: the MAC is what keeps forged entries out.
        let same = head.len() == expected.len()
            && head
                .iter()
                .zip(expected.as_bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0;
        if !same {
            return cache;
        }
        match serde_json::from_slice::<CacheFile>(json) {
            Ok(file) if file.generator == generator() => cache.old = file.packages,
            _ => {}
        }
        cache
    }

    /// The remembered entry of the package at `dir` if its files still have
    /// the stamps it was derived from. `receipt` and `tool_yaml` are their
    /// stamps now; the entrypoint is looked at only when both match.
    pub fn lookup(
        &self,
        dir: &Path,
        receipt: Option<Stamp>,
        tool_yaml: Option<Stamp>,
    ) -> Option<&Remembered> {
        let found = self.old.get(dir)?;
        if Some(found.receipt) != receipt || Some(found.tool_yaml) != tool_yaml {
            return None;
        }
        let entrypoint = Path::new(&found.entry.entrypoint);
        (Stamp::of(entrypoint) == Some(found.entrypoint)).then_some(found)
    }

    /// Keeps `found` (a hit, or a package read again) for the next scan.
    pub fn keep(&mut self, dir: PathBuf, found: Remembered, now_ns: i64) {
        if self.key.is_none() || !found.settled(now_ns) {
            return;
        }
        // A package read again: remembered for the first time, or anew.
        self.changed = true;
        self.new.insert(dir, found);
    }

    /// Keeps the remembered entry of `dir` (a hit of [`lookup`](Self::lookup)).
    pub fn keep_remembered(&mut self, dir: PathBuf) {
        // Moved, not copied: a scan looks each directory up once.
        if let Some(found) = self.old.remove(&dir) {
            self.new.insert(dir, found);
        }
    }

    /// Forgets the package at `dir` (one this command removes).
    pub fn forget(&mut self, dir: &Path) {
        if self.new.remove(dir).is_some() {
            self.changed = true;
        }
    }

    /// Writes the cache if it changed: new packages remembered, or
    /// remembered ones gone or changed. Call only under the root's lock.
    pub fn save(self, root: &InstallRoot) {
        let Some(key) = self.key else {
            return;
        };
        // Unchanged when every remembered package was kept as it was.
        if !self.changed && self.old.is_empty() {
            return;
        }
        let file = CacheFile {
            generator: generator(),
            packages: self.new,
        };
        let json = serde_json::to_vec(&file).expect("the cache serialises");
        let head = format!("{HEADER}{}\n", mac(&key, &root.state_dir, &json));
        // A cache that cannot be written costs the next command a full scan.
        let _ = write_unsynced(&root.state_dir, &root.state_dir.join(CACHE_FILE), |f| {
            f.write_all(head.as_bytes())?;
            f.write_all(&json)
        });
    }
}

/// Replaces `path` by a temporary file of `dir` and a rename, not flushed.
fn write_unsynced(
    dir: &Path,
    path: &Path,
    write: impl FnOnce(&mut fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
    write(tmp.as_file_mut())?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Nanoseconds since the Unix epoch.
pub fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
