//! What the last manifest was rendered from, remembered between commands,
//! so that rewriting the manifest of a root of a thousand tools neither
//! lists nor reads a thousand package directories nor serialises a
//! thousand entries again.
//!
//! # Format
//!
//! `<state_dir>/.manifest-cache`: one line `orla manifest cache 3 <MAC>`,
//! then one line of JSON: `generator` (the orla that wrote it), `tools_dir`
//! and `manifest` (the stamp of the manifest.json written with it), then a
//! line per `<tools_dir>/<name>/` directory, sorted by name, each followed
//! by a line per installed version of it:
//!
//! ```text
//! N <name> <dev> <ino> <size> <mtime_ns> <ctime_ns>   (its stamp; `N <name> -`: read it again next time)
//! P <version> <active 1|0> <start> <len> @ <start> <len>
//! P <version> <active 1|0> <start> <len> = <JSON string>
//! ```
//!
//! A version's first range is its `installed` entry in manifest.json; the
//! second its `tools` entry there, or (`=`), for a version not served, the
//! entry's text itself. Lines, not one JSON document: the file has a line
//! per tool of the root and is read and written by every command, and
//! splitting lines costs a fraction of parsing and building JSON objects.
//!
//! # When it is used
//!
//! Only when the file's MAC, a keyed BLAKE3 under the root's receipt key of
//! the state directory's path and the JSON, is right (so a cache shipped in
//! a cloned project's `.orla/`, or written by anyone without the key, is
//! ignored), it was written by this version of orla for this tools_dir, and
//! manifest.json still has the stamp it recorded (a manifest edited or
//! replaced since has a new ctime or inode: everything is read again).
//!
//! A name directory whose stamp is unchanged has the same versions as
//! when it was read: adding, removing or renaming a version directory
//! changes its ctime, which no one but the superuser can set. Its packages'
//! entries are then taken from the manifest as they are, without reading
//! their receipts, tool.yaml or entrypoints (docs/manifest.md says what an
//! edit inside a package directory does). Any other name directory is read
//! again, every receipt's binding checked, as on a first scan. As git does
//! for its index, a directory changed within the same tick of the clock as
//! its stamp could keep it, so a directory changed less than [`SETTLE_NS`]
//! before the scan is not trusted next time, nor is one that held a
//! directory orla refused (its warning is given by every command).
//!
//! The cache is rewritten (temporary file and rename, not flushed: a torn or
//! lost cache fails its MAC, or names a manifest that is not there, and
//! costs one full scan) with each manifest, under the root's lock. With no
//! receipt key there is no cache.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::root::binding::KeyState;
use crate::root::InstallRoot;

/// The cache's file name, in the state directory.
pub const CACHE_FILE: &str = ".manifest-cache";
const SEAL: crate::verify::seal::Seal = crate::verify::seal::Seal {
    header: "orla manifest cache 3 ",
    purpose: b"orla manifest cache v3\0",
};
/// How long ago a name directory must have last changed for its stamp to
/// be trusted: longer than any filesystem's timestamp tick.
pub const SETTLE_NS: i64 = 2_000_000_000;

/// The identity and version of a file or directory: a changed byte (or
/// directory entry) changes its ctime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp(u64, u64, u64, i64, i64);

impl Stamp {
    /// None where the platform has no inode numbers and ctimes.
    pub fn from_metadata(meta: &fs::Metadata) -> Option<Stamp> {
        stamp(meta)
    }

    /// Whether it last changed long enough before `now_ns`.
    pub fn settled(&self, now_ns: i64) -> bool {
        self.4 < now_ns.saturating_sub(SETTLE_NS)
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

/// Where a package's `tools` entry is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fragment {
    /// `[start, len]` in manifest.json.
    At(usize, usize),
    /// Not in the manifest (the version is not served): the text itself.
    Inline(String),
}

/// One package as the last manifest rendered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remembered {
    pub version: String,
    pub active: bool,
    pub tools: Fragment,
    /// `[start, len]` of its `installed` entry in manifest.json.
    pub installed: (usize, usize),
}

/// One name directory as the last manifest rendered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    /// None: read it again next time.
    pub dir: Option<Stamp>,
    pub packages: Vec<Remembered>,
}

/// The cache's first line of JSON.
#[derive(Debug, Serialize, Deserialize)]
struct Head {
    generator: String,
    tools_dir: PathBuf,
    manifest: Option<Stamp>,
}

/// The cache of one root as read: usable only when everything checked out.
#[derive(Debug, Default)]
pub struct Cache {
    key: Option<[u8; 32]>,
    names: BTreeMap<String, Name>,
    /// The manifest the remembered ranges point into, open (its stamp was
    /// checked on this descriptor), and its length. It is not read whole:
    /// the entries copied from it go from file to file (see `render`).
    manifest: Option<(fs::File, u64)>,
}

fn generator() -> String {
    format!("orla {}", env!("CARGO_PKG_VERSION"))
}

impl Cache {
    /// The root's cache; empty when there is none, it is not this orla's,
    /// its MAC is wrong or the manifest changed since it was written.
    pub fn load(root: &InstallRoot, key: &KeyState) -> Cache {
        let KeyState::Key(key) = key else {
            return Cache::default();
        };
        let mut cache = Cache {
            key: Some(*key),
            ..Cache::default()
        };
        if let Some((names, manifest)) = read(root, key) {
            cache.names = names;
            cache.manifest = Some(manifest);
        }
        cache
    }

    /// The same key with nothing remembered: everything is read again.
    pub fn forgotten(&self) -> Cache {
        Cache {
            key: self.key,
            ..Cache::default()
        }
    }

    /// Whether the cache can be written (there is a receipt key).
    pub fn enabled(&self) -> bool {
        self.key.is_some()
    }

    /// The remembered packages of the name directory `name` if it still
    /// has the stamp `now` they were read with.
    pub fn unchanged(&self, name: &str, now: Option<Stamp>) -> Option<&Name> {
        let found = self.names.get(name)?;
        (found.dir.is_some() && found.dir == now).then_some(found)
    }

    /// What the manifest on disk holds for the root's own packages, by
    /// name, when the cache describes it (else the manifest must be read).
    pub fn previous(&self) -> Option<&BTreeMap<String, Name>> {
        self.manifest.as_ref().map(|_| &self.names)
    }

    /// The manifest the remembered ranges point into, and its length.
    pub fn manifest(&self) -> Option<(&fs::File, u64)> {
        self.manifest.as_ref().map(|(file, len)| (file, *len))
    }

    /// `len` bytes of the manifest at `start`.
    pub fn read_at(&self, start: usize, len: usize) -> std::io::Result<Vec<u8>> {
        let Some((file, _)) = &self.manifest else {
            return Err(std::io::Error::other("no manifest to read from"));
        };
        let mut bytes = vec![0; len];
        read_exact_at(file, &mut bytes, start as u64)?;
        Ok(bytes)
    }

    /// The text of a remembered entry (read from the manifest for one in it).
    pub fn text(&self, fragment: &Fragment) -> std::io::Result<String> {
        match fragment {
            Fragment::At(start, len) => utf8(self.read_at(*start, *len)?),
            Fragment::Inline(text) => Ok(text.clone()),
        }
    }

    /// The text of a remembered `installed` entry.
    pub fn installed_text(&self, found: &Remembered) -> std::io::Result<String> {
        let (start, len) = found.installed;
        utf8(self.read_at(start, len)?)
    }

    /// The cache to write for `names`, rendered into the manifest on disk
    /// (just written, or left as it was): None when there is nothing to
    /// write (no key, or `names` are what it remembers already). Made
    /// while the manifest is still being written: only its stamp is
    /// needed after (see [`Pending::write`]).
    pub fn prepare(&self, names: BTreeMap<String, Name>, rewritten: bool) -> Option<Pending> {
        let key = self.key?;
        if !rewritten && self.previous().is_some() && names == self.names {
            return None;
        }
        Some(Pending {
            key,
            names: names_text(&names),
        })
    }
}

/// A cache ready to be written once the manifest it describes is in place.
#[derive(Debug)]
pub struct Pending {
    key: [u8; 32],
    /// Its lines after the head.
    names: String,
}

impl Pending {
    /// Writes the cache for the manifest on disk. Call only under the
    /// root's lock. Returns the cache it replaced, still open: freeing a
    /// file's blocks takes a while on some filesystems (ext4 mounted with
    /// `discard`), which the caller may leave to another thread.
    pub fn write(self, root: &InstallRoot) -> Option<fs::File> {
        let path = root.state_dir.join(CACHE_FILE);
        let old = fs::File::open(&path).ok();
        let manifest = fs::metadata(root.manifest_path())
            .ok()
            .and_then(|m| Stamp::from_metadata(&m));
        if manifest.is_none() {
            let _ = fs::remove_file(&path);
            return old;
        }
        let head = Head {
            generator: generator(),
            tools_dir: root.tools_dir.clone(),
            manifest,
        };
        let mut body = serde_json::to_string(&head).expect("the head serialises");
        body.push('\n');
        body.push_str(&self.names);
        let head = SEAL.head(&self.key, &root.state_dir, body.as_bytes());
        // A cache that cannot be written costs the next command a full scan;
        // an old one left in place names another manifest.
        let written = write_unsynced(&root.state_dir, &path, |f| {
            f.write_all(head.as_bytes())?;
            f.write_all(body.as_bytes())
        });
        if written.is_err() {
            let _ = fs::remove_file(&path);
        }
        old
    }
}

/// The remembered names and the manifest they point into, if the cache is
/// genuine, this orla's, for this tools_dir and for the manifest on disk.
fn read(root: &InstallRoot, key: &[u8; 32]) -> Option<(BTreeMap<String, Name>, (fs::File, u64))> {
    let bytes = fs::read(root.state_dir.join(CACHE_FILE)).ok()?;
    let body = std::str::from_utf8(SEAL.open(key, &root.state_dir, &bytes)?).ok()?;
    let (head, names) = body.split_once('\n')?;
    let head: Head = serde_json::from_str(head).ok()?;
    if head.generator != generator() || head.tools_dir != root.tools_dir {
        return None;
    }
    let names = from_text(names)?;
    let manifest = fs::File::open(root.manifest_path()).ok()?;
    let meta = manifest.metadata().ok()?;
    if head.manifest != Stamp::from_metadata(&meta) {
        return None;
    }
    // The ranges are orla's own, under the MAC, and the manifest is the one
    // written with them (its stamp); that they lie inside it is checked all
    // the same (the manifest is not read: that is the point).
    let len = meta.len();
    let inside = |start: usize, n: usize| {
        start
            .checked_add(n)
            .is_some_and(|end| n >= 2 && end as u64 <= len)
    };
    for name in names.values() {
        for found in &name.packages {
            if !inside(found.installed.0, found.installed.1) {
                return None;
            }
            if let Fragment::At(start, n) = found.tools {
                if !inside(start, n) {
                    return None;
                }
            }
        }
    }
    Some((names, (manifest, len)))
}

/// The cache's lines after its head.
fn names_text(names: &BTreeMap<String, Name>) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(names.len() * 96);
    for (name, found) in names {
        if name.contains(char::is_whitespace) {
            // Not a tool name orla installs: not remembered, read again.
            continue;
        }
        // Formatting into a String cannot fail.
        let _ = match found.dir {
            Some(Stamp(dev, ino, size, mtime, ctime)) => {
                writeln!(out, "N {name} {dev} {ino} {size} {mtime} {ctime}")
            }
            None => writeln!(out, "N {name} -"),
        };
        for p in &found.packages {
            let (start, len) = p.installed;
            let active = u8::from(p.active);
            let _ = write!(out, "P {} {active} {start} {len} ", p.version);
            let _ = match &p.tools {
                Fragment::At(start, len) => writeln!(out, "@ {start} {len}"),
                Fragment::Inline(text) => writeln!(
                    out,
                    "= {}",
                    serde_json::to_string(text).expect("a string serialises")
                ),
            };
        }
    }
    out
}

/// The names' lines as [`names_text`] writes them; None if any is not.
fn from_text(text: &str) -> Option<BTreeMap<String, Name>> {
    // Collected, then built at once: the lines are sorted by name.
    let mut names = Vec::new();
    let mut current: Option<(String, Name)> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("N ") {
            let mut words = rest.split(' ');
            let name = words.next()?.to_string();
            let dir = match words.next()? {
                "-" => None,
                dev => Some(Stamp(
                    dev.parse().ok()?,
                    words.next()?.parse().ok()?,
                    words.next()?.parse().ok()?,
                    words.next()?.parse().ok()?,
                    words.next()?.parse().ok()?,
                )),
            };
            if words.next().is_some() {
                return None;
            }
            names.extend(current.take());
            let packages = Vec::new();
            current = Some((name, Name { dir, packages }));
        } else if let Some(rest) = line.strip_prefix("P ") {
            let mut words = rest.splitn(6, ' ');
            let version = words.next()?.to_string();
            let active = match words.next()? {
                "1" => true,
                "0" => false,
                _ => return None,
            };
            let installed = (words.next()?.parse().ok()?, words.next()?.parse().ok()?);
            let tools = match (words.next()?, words.next()?) {
                ("@", at) => {
                    let (start, len) = at.split_once(' ')?;
                    Fragment::At(start.parse().ok()?, len.parse().ok()?)
                }
                ("=", json) => Fragment::Inline(serde_json::from_str(json).ok()?),
                _ => return None,
            };
            current.as_mut()?.1.packages.push(Remembered {
                version,
                active,
                tools,
                installed,
            });
        } else {
            return None;
        }
    }
    names.extend(current);
    Some(names.into_iter().collect())
}

fn utf8(bytes: Vec<u8>) -> std::io::Result<String> {
    String::from_utf8(bytes).map_err(std::io::Error::other)
}

/// Fills `buf` from `file` at `offset`.
#[cfg(unix)]
pub(super) fn read_exact_at(file: &fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(not(unix))]
pub(super) fn read_exact_at(file: &fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek};
    let mut file = file;
    file.seek(std::io::SeekFrom::Start(offset))?;
    file.read_exact(buf)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writing_the_cache_hands_back_the_one_it_replaced_still_open() {
        let home = tempfile::tempdir().unwrap();
        let root = InstallRoot::global(home.path());
        fs::create_dir_all(&root.state_dir).unwrap();
        fs::write(root.manifest_path(), "{}\n").unwrap();
        let path = root.state_dir.join(CACHE_FILE);
        fs::write(&path, "the old cache").unwrap();
        let cache = Cache {
            key: Some([7; 32]),
            ..Cache::default()
        };
        let pending = cache.prepare(BTreeMap::new(), true).unwrap();
        let mut old = pending.write(&root).expect("the old cache, open");
        let mut text = String::new();
        std::io::Read::read_to_string(&mut old, &mut text).unwrap();
        assert_eq!(text, "the old cache");
        let new = fs::read_to_string(&path).unwrap();
        assert!(new.starts_with("orla manifest cache 3 "), "{new}");
    }

    #[test]
    fn the_names_lines_read_back_as_written() {
        let mut names = BTreeMap::new();
        names.insert(
            "fs-read".to_string(),
            Name {
                dir: Some(Stamp(2049, 77, 4096, -5, 1_764_000_000_123_456_789)),
                packages: vec![
                    Remembered {
                        version: "1.2.0".into(),
                        active: false,
                        tools: Fragment::Inline("{\n  \"name\": \"a b\\\"c\"\n}".into()),
                        installed: (10, 20),
                    },
                    Remembered {
                        version: "2.0.0-rc.1+build.5".into(),
                        active: true,
                        tools: Fragment::At(300, 40),
                        installed: (31, 9),
                    },
                ],
            },
        );
        names.insert(
            "json-query".to_string(),
            Name {
                dir: None,
                packages: Vec::new(),
            },
        );
        let rest = names_text(&names);
        assert_eq!(from_text(&rest), Some(names.clone()));
        // A line it does not know, or a version before any name: no cache.
        assert_eq!(from_text(&format!("{rest}X 1\n")), None);
        assert_eq!(from_text("P 1.0.0 1 0 2 @ 3 4\n"), None);
        assert_eq!(from_text("N fs-read 1 2\n"), None);
    }
}
