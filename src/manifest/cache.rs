//! What the last manifest was rendered from, remembered between commands,
//! so that rewriting the manifest of a root of a thousand tools neither
//! lists nor reads a thousand package directories nor serialises a
//! thousand entries again.
//!
//! # Format
//!
//! `<state_dir>/.manifest-cache`: one line `orla manifest cache 6 <MAC>`,
//! then one line of JSON: `generator` (the orla that wrote it), `tools_dir`,
//! `manifest` (the stamp of the manifest.json written with it), `tools`
//! and `installed` (where those arrays' items start in it, just after their
//! `[`), `listed` (tools_dir's stamp and link count once the command
//! that wrote the cache was done with it), `room` (where the manifest
//! leaves room between two items, and how much: see [`Room`]; left out
//! when there is none) and `spare` (the spare manifest's stamp and where it
//! differs from the manifest: see [`Spare`]), then a line per
//! `<tools_dir>/<name>/` directory, sorted by name, each followed by a line
//! per installed version of it:
//!
//! ```text
//! N <name> <dev> <ino> <size> <mtime_ns> <ctime_ns>   (its stamp; `N <name> -`: read it again next time)
//! P <version> <active 1|0> <installed_len> @ <tools_len>
//! P <version> <active 1|0> <installed_len> = <JSON string>
//! ```
//!
//! The root's own packages are the first items of both arrays, in the
//! order of these lines, each on a line of its own after the separator
//! the manifest's layout writes (`\n    `, then `,\n    `, longer by the
//! room recorded there), so a version's `installed` entry and, when it is
//! served (`@`), its `tools` entry are found by adding up the lengths
//! before it. A version not served keeps its `tools` entry's text
//! here (`=`). Lengths, not places: a name directory that did not change
//! has the same lines whatever was installed before it, so they are copied
//! into the next cache as they are. Lines, not one JSON document: the file
//! has a line per tool of the root and is read and written by every
//! command, and splitting lines costs a fraction of parsing and building
//! JSON objects.
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
//! A command knows which name directories it changed: those its journal
//! names, and those of the tools it names (`Store::read_again`). Only
//! those, and those the cache does not trust, are stamped and compared;
//! any other name directory is taken to be as the last command left it
//! (see `scan::names`), as an installed package's own files are: a version
//! directory deleted by hand inside one is seen by `orla list` (the
//! missing mark), `orla verify`, and the next command on that tool
//! (docs/manifest.md). tools_dir itself is stamped once, when the command
//! takes the root's lock: as the cache's `listed` says, it holds the
//! cache's name directories and no other (a name directory added, removed
//! or renamed changes its ctime or link count), and it is not listed;
//! otherwise it is listed. A command recovering an interrupted one lists
//! and stamps every name directory.
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
//! The cache is rewritten in place (not flushed: a torn or lost cache fails
//! its MAC, or names a manifest that is not there, and costs one full
//! scan) with each manifest, under the root's lock, as the command's last
//! step. With no receipt key there is no cache.

use std::fs;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::root::binding::KeyState;
use crate::root::InstallRoot;

/// The cache's file name, in the state directory.
pub const CACHE_FILE: &str = ".manifest-cache";
const SEAL: crate::verify::seal::Seal = crate::verify::seal::Seal {
    header: "orla manifest cache 6 ",
    purpose: b"orla manifest cache v6\0",
};
/// How long ago a name directory must have last changed for its stamp to
/// be trusted: longer than any filesystem's timestamp tick.
pub const SETTLE_NS: i64 = 2_000_000_000;

/// What the manifest's layout writes before the first item of one of its
/// arrays, and between two items (see `layout`).
pub(super) const FIRST: &str = "\n    ";
pub(super) const BETWEEN: &str = ",\n    ";

/// The separator before an item, without room: [`BETWEEN`] when another
/// came before it in its array (`any`), else [`FIRST`].
pub(super) fn separator(any: bool) -> &'static str {
    if any {
        BETWEEN
    } else {
        FIRST
    }
}

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

/// tools_dir as a command left it: its stamp and its link count. A name
/// directory added or removed changes the count even within one tick of a
/// coarse clock; renaming one changes its ctime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolsDir(Stamp, u64);

impl ToolsDir {
    /// tools_dir's stamp now; None where there is none (no tools_dir yet,
    /// or a platform without inode numbers).
    pub fn of(tools_dir: &Path) -> Option<ToolsDir> {
        let meta = fs::metadata(tools_dir).ok()?;
        Some(ToolsDir(stamp(&meta)?, links(&meta)))
    }
}

#[cfg(unix)]
fn links(meta: &fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(meta)
}

#[cfg(not(unix))]
fn links(_: &fs::Metadata) -> u64 {
    0
}

/// Where a remembered package's `tools` entry is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tools {
    /// `[start, len]` in manifest.json (the version is served), and the
    /// room left before it (see [`Room`]).
    At(usize, usize, usize),
    /// Not in the manifest (the version is not served): its text, as a
    /// JSON string at this range of the cache's lines.
    Inline(Range<usize>),
}

/// One package as the last manifest rendered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remembered {
    /// Its version's text, at this range of the cache's lines.
    pub version: Range<usize>,
    pub active: bool,
    pub tools: Tools,
    /// `[start, len]` of its `installed` entry in manifest.json.
    pub installed: (usize, usize),
    /// The room left before that entry (see [`Room`]).
    pub installed_room: usize,
}

/// Where a manifest leaves room between two items of an array: where the
/// separator before an item starts, and how many bytes longer than the
/// shortest separator it is (see `render`), sorted.
pub type Room = Vec<(usize, usize)>;

/// What the manifest's spare (see `text`) holds: the file of this stamp,
/// whose bytes are the manifest's but at these ranges (`[start, len]`,
/// sorted), and which may be longer or shorter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spare {
    pub stamp: Stamp,
    pub changed: Vec<(usize, usize)>,
}

/// One name directory as the last manifest rendered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    /// The name, at this range of the cache's lines.
    name: Range<usize>,
    /// Where its stamp is in the cache's lines (parsed when asked for);
    /// None: read it again next time.
    dir: Option<Range<usize>>,
    /// Its packages, sorted by version: this range of [`Cache::packages`].
    packages: Range<usize>,
    /// Its lines, each with its newline.
    lines: Range<usize>,
}

/// The cache's first line of JSON.
#[derive(Debug, Serialize, Deserialize)]
struct Head {
    generator: String,
    tools_dir: PathBuf,
    manifest: Option<Stamp>,
    /// Where the `tools` and `installed` arrays' items start.
    tools: usize,
    installed: usize,
    /// tools_dir once the command that wrote the cache was done with it.
    #[serde(default)]
    listed: Option<ToolsDir>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    room: Room,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    spare: Option<Spare>,
}

/// The cache of one root as read: usable only when everything checked out.
#[derive(Debug, Default)]
pub struct Cache {
    key: Option<[u8; 32]>,
    /// The lines after the head.
    lines: String,
    /// Sorted by name.
    names: Vec<Known>,
    packages: Vec<Remembered>,
    /// Where the arrays' items start in the manifest.
    at: (usize, usize),
    /// The manifest the remembered ranges point into, open (its stamp was
    /// checked on this descriptor), and its length. It is not read whole:
    /// the entries copied from it go from file to file (see `render`).
    manifest: Option<(fs::File, u64)>,
    /// tools_dir as the command that wrote the cache left it.
    listed: Option<ToolsDir>,
    /// Where the manifest leaves room.
    room: Room,
    /// What the spare holds, as the command that wrote the cache left it.
    spare: Option<Spare>,
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
        read(root, key).unwrap_or(Cache {
            key: Some(*key),
            ..Cache::default()
        })
    }

    /// A cache remembering the name directories `names` (sorted, with no
    /// packages) of a root whose tools_dir was left `listed`, describing
    /// `manifest`.
    #[cfg(test)]
    pub fn remembering(
        names: &[(&str, Option<Stamp>)],
        listed: Option<ToolsDir>,
        manifest: fs::File,
    ) -> Cache {
        let mut lines = Lines::default();
        for (name, stamp) in names {
            lines.push_name(name, *stamp);
        }
        let (names, packages) = from_text(&lines.text, (0, 0), &[]).expect("lines as written");
        Cache {
            key: Some([7; 32]),
            lines: lines.text,
            names,
            packages,
            at: (0, 0),
            manifest: Some((manifest, 0)),
            listed,
            room: Room::new(),
            spare: None,
        }
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

    /// The length of its lines (the next cache's are about as long).
    pub fn lines_len(&self) -> usize {
        self.lines.len()
    }

    /// How many name directories it remembers.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The name of the `i`th name directory it remembers (they are sorted).
    pub fn name(&self, i: usize) -> &str {
        &self.lines[self.names[i].name.clone()]
    }

    /// Whether tools_dir is as the command that wrote the cache left it
    /// when it was `now`: then it holds the name directories the cache
    /// remembers, and no other.
    pub fn lists(&self, now: Option<ToolsDir>) -> bool {
        self.manifest.is_some() && self.listed.is_some() && self.listed == now
    }

    /// Where the name directory `name` is among those it remembers.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.names
            .binary_search_by(|known| self.lines[known.name.clone()].cmp(name))
            .ok()
    }

    /// The stamp the `i`th name directory was read with; None when it is
    /// to be read again.
    pub fn stamp(&self, i: usize) -> Option<Stamp> {
        let at = self.names[i].dir.clone()?;
        parse_stamp(&self.lines[at])
    }

    /// Whether the `i`th name directory is trusted as it was read (its
    /// stamp is not even parsed).
    pub fn trusts(&self, i: usize) -> bool {
        self.names[i].dir.is_some()
    }

    /// Whether the `i`th name directory still has the stamp `now` it was
    /// read with, so its packages can be taken as they are.
    pub fn unchanged(&self, i: usize, now: Option<Stamp>) -> bool {
        let dir = self.stamp(i);
        dir.is_some() && dir == now
    }

    /// The remembered packages of the `i`th name directory, by version.
    pub fn packages(&self, i: usize) -> &[Remembered] {
        &self.packages[self.names[i].packages.clone()]
    }

    /// Its lines, to be written again as they are.
    pub fn lines_of(&self, i: usize) -> &str {
        &self.lines[self.names[i].lines.clone()]
    }

    /// A remembered package's version.
    pub fn version(&self, found: &Remembered) -> &str {
        &self.lines[found.version.clone()]
    }

    /// Whether it describes the manifest on disk (else the manifest must
    /// be read to know what it held).
    pub fn describes_manifest(&self) -> bool {
        self.manifest.is_some()
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

    /// The text of a remembered `tools` entry (read from the manifest for
    /// one in it).
    pub fn tools_text(&self, found: &Remembered) -> std::io::Result<String> {
        match &found.tools {
            Tools::At(start, len, _) => utf8(self.read_at(*start, *len)?),
            Tools::Inline(json) => {
                serde_json::from_str(&self.lines[json.clone()]).map_err(std::io::Error::other)
            }
        }
    }

    /// The text of a remembered `installed` entry.
    pub fn installed_text(&self, found: &Remembered) -> std::io::Result<String> {
        let (start, len) = found.installed;
        utf8(self.read_at(start, len)?)
    }

    /// What the spare holds, as the last command left it.
    pub fn spare(&self) -> Option<&Spare> {
        self.spare.as_ref()
    }

    /// The cache to write for `lines` (see [`Lines`]), rendered into the
    /// manifest on disk (just written, or left as it was): None when there
    /// is no key. Made
    /// while the manifest is still being written: only its stamp is
    /// needed after (see [`Pending::write`]), and, when it was written,
    /// what the spare holds then ([`Pending::spare_replaced`]).
    pub fn prepare(&self, lines: Lines, rewritten: bool) -> Option<Pending> {
        let key = self.key?;
        let same = lines.text == self.lines && lines.at == self.at && lines.room == self.room;
        // Still written if tools_dir changed (see [`Pending::write`]).
        let written = (!rewritten && self.manifest.is_some() && same).then_some(self.listed);
        Some(Pending {
            key,
            lines,
            written,
            // A manifest left as it was leaves the spare as it was.
            spare: (!rewritten).then(|| self.spare.clone()).flatten(),
            replaced: None,
        })
    }
}

/// The lines of the next cache, as a manifest is rendered.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Lines {
    text: String,
    /// Where the arrays' items start in the manifest they describe.
    at: (usize, usize),
    /// Where that manifest leaves room.
    room: Room,
    /// The last name pushed is not written, nor are its packages.
    skipping: bool,
}

impl Lines {
    /// Lines with room for `len` bytes of text.
    pub fn with_capacity(len: usize) -> Lines {
        Lines {
            text: String::with_capacity(len),
            ..Lines::default()
        }
    }

    /// Where the `tools` and `installed` items start in the manifest.
    pub fn starts(&mut self, tools: usize, installed: usize) {
        self.at = (tools, installed);
    }

    /// Where the manifest leaves room (see [`Room`]).
    pub fn room(&mut self, room: Room) {
        self.room = room;
    }

    /// A name directory's lines as the last cache had them.
    pub fn push_known(&mut self, lines: &str) {
        self.skipping = false;
        self.text.push_str(lines);
    }

    /// A name directory's line: its stamp, or None to read it again.
    pub fn push_name(&mut self, name: &str, dir: Option<Stamp>) {
        // Not a tool name orla installs: not remembered, read again.
        self.skipping = name.is_empty() || name.contains(char::is_whitespace);
        if self.skipping {
            return;
        }
        let out = &mut self.text;
        out.push_str("N ");
        out.push_str(name);
        match dir {
            Some(Stamp(dev, ino, size, mtime, ctime)) => {
                for n in [dev, ino, size] {
                    out.push(' ');
                    push_int(out, n as i128);
                }
                for n in [mtime, ctime] {
                    out.push(' ');
                    push_int(out, n as i128);
                }
            }
            None => out.push_str(" -"),
        }
        out.push('\n');
    }

    /// A package's line, after its name's: its `installed` entry's length,
    /// and its `tools` entry's length when it is served (`Ok`), else that
    /// entry's text.
    pub fn push_package(
        &mut self,
        version: &str,
        active: bool,
        installed: usize,
        tools: Result<usize, &str>,
    ) {
        if self.skipping {
            return;
        }
        let out = &mut self.text;
        out.push_str("P ");
        out.push_str(version);
        out.push_str(if active { " 1 " } else { " 0 " });
        push_int(out, installed as i128);
        match tools {
            Ok(len) => {
                out.push_str(" @ ");
                push_int(out, len as i128);
            }
            Err(text) => {
                out.push_str(" = ");
                out.push_str(&serde_json::to_string(text).expect("a string serialises"));
            }
        }
        out.push('\n');
    }
}

/// Appends `n` in decimal (without the formatting machinery: a cache line
/// per tool of the root is written by every command).
fn push_int(out: &mut String, n: i128) {
    let mut digits = [0u8; 40];
    let mut at = digits.len();
    let mut rest = n.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if n < 0 {
        out.push('-');
    }
    out.push_str(std::str::from_utf8(&digits[at..]).expect("ASCII digits"));
}

/// A cache ready to be written once the manifest it describes is in place.
#[derive(Debug)]
pub struct Pending {
    key: [u8; 32],
    lines: Lines,
    /// Some when the cache on disk says this already, with the tools_dir
    /// it recorded.
    written: Option<Option<ToolsDir>>,
    /// What the spare holds, when it is what the last cache said.
    spare: Option<Spare>,
    /// Set when the spare holds the manifest this one replaced: the ranges
    /// where they differ.
    replaced: Option<Vec<(usize, usize)>>,
}

impl Pending {
    /// The manifest was written and the one it replaced is the spare now,
    /// the same but at `changed` (see [`Spare`]).
    pub fn spare_replaced(&mut self, changed: Vec<(usize, usize)>) {
        self.replaced = Some(changed);
    }

    /// Writes the cache for the manifest on disk. Call only under the
    /// root's lock, once the command has made its last change to
    /// tools_dir: its stamp now is what the next command compares.
    ///
    /// Written over in place, not through a temporary file: it is the
    /// command's last step, after the journal is gone, so a temporary file
    /// left by a kill here would wait for the next command that locks the
    /// root; a cache torn by a kill fails its MAC (a full scan next time),
    /// and only orla reads it, under the root's lock.
    pub fn write(self, root: &InstallRoot) {
        let listed = ToolsDir::of(&root.tools_dir);
        if self.written == Some(listed) {
            return;
        }
        let path = root.state_dir.join(CACHE_FILE);
        let manifest = fs::metadata(root.manifest_path())
            .ok()
            .and_then(|m| Stamp::from_metadata(&m));
        if manifest.is_none() {
            let _ = fs::remove_file(&path);
            return;
        }
        // The spare's stamp once it was swapped out: nothing writes it
        // between then and the next command that trusts this cache.
        let spare = match self.replaced {
            Some(changed) => fs::symlink_metadata(root.state_dir.join(super::text::SPARE))
                .ok()
                .and_then(|m| Stamp::from_metadata(&m))
                .map(|stamp| Spare { stamp, changed }),
            None => self.spare,
        };
        let head = Head {
            generator: generator(),
            tools_dir: root.tools_dir.clone(),
            manifest,
            tools: self.lines.at.0,
            installed: self.lines.at.1,
            listed,
            room: self.lines.room,
            spare,
        };
        let mut body = serde_json::to_string(&head).expect("the head serialises");
        body.push('\n');
        body.push_str(&self.lines.text);
        let head = SEAL.head(&self.key, &root.state_dir, body.as_bytes());
        // A cache that cannot be written costs the next command a full scan;
        // an old one left in place names another manifest.
        let written = write_in_place(&path, &[head.as_bytes(), body.as_bytes()]);
        if written.is_err() {
            let _ = fs::remove_file(&path);
        }
    }
}

/// Whether `manifest`, open, is the manifest.json this orla wrote with the
/// root's cache: the cache is genuine (its MAC), this orla's, for this
/// tools_dir, and recorded the file's stamp (a file edited or replaced
/// since has another change time or inode). Such a file is valid JSON laid
/// out as `layout` lays it out, so a reader may take its lines as they are
/// without parsing it (`orla list --json`). Costs reading the cache and its
/// MAC, not its lines.
pub fn vouches_for(root: &InstallRoot, manifest: &fs::File) -> bool {
    let KeyState::Key(key) = root.key_state() else {
        return false;
    };
    let Some((head, _, _)) = opened(root, &key) else {
        return false;
    };
    let stamp = manifest
        .metadata()
        .ok()
        .and_then(|m| Stamp::from_metadata(&m));
    stamp.is_some() && head.manifest == stamp
}

/// The root's cache file, its head and where its lines start in it, if it
/// is genuine (its MAC), this orla's and for this tools_dir.
fn opened(root: &InstallRoot, key: &[u8; 32]) -> Option<(Head, Vec<u8>, usize)> {
    let bytes = fs::read(root.state_dir.join(CACHE_FILE)).ok()?;
    let body = SEAL.open(key, &root.state_dir, &bytes)?;
    let newline = body.iter().position(|&b| b == b'\n')?;
    let head: Head = serde_json::from_slice(&body[..newline]).ok()?;
    if head.generator != generator() || head.tools_dir != root.tools_dir {
        return None;
    }
    let lines = bytes.len() - body.len() + newline + 1;
    Some((head, bytes, lines))
}

/// The cache, if it is genuine, this orla's, for this tools_dir and for
/// the manifest on disk.
fn read(root: &InstallRoot, key: &[u8; 32]) -> Option<Cache> {
    let (head, mut bytes, lines) = opened(root, key)?;
    bytes.drain(..lines);
    let lines = String::from_utf8(bytes).ok()?;
    let manifest = fs::File::open(root.manifest_path()).ok()?;
    let meta = manifest.metadata().ok()?;
    if head.manifest != Stamp::from_metadata(&meta) {
        return None;
    }
    let (names, packages) = from_text(&lines, (head.tools, head.installed), &head.room)?;
    // The lengths are orla's own, under the MAC, and the manifest is the
    // one written with them (its stamp); that the entries they place lie
    // inside it is checked all the same (the manifest is not read: that
    // is the point).
    let len = meta.len();
    let inside = |(start, n): (usize, usize)| {
        start
            .checked_add(n)
            .is_some_and(|end| n >= 2 && end as u64 <= len)
    };
    let last = |pick: fn(&Remembered) -> Option<(usize, usize)>| {
        packages.iter().rev().find_map(pick).is_none_or(inside)
    };
    if !last(|p| Some(p.installed))
        || !last(|p| match p.tools {
            Tools::At(start, n, _) => Some((start, n)),
            Tools::Inline(_) => None,
        })
    {
        return None;
    }
    Some(Cache {
        key: Some(*key),
        lines,
        names,
        packages,
        at: (head.tools, head.installed),
        manifest: Some((manifest, len)),
        listed: head.listed,
        room: head.room,
        spare: head.spare,
    })
}

/// Where the next item of one of the manifest's arrays goes, while a
/// cache's lines are read.
struct Placing<'r> {
    next: usize,
    /// Whether an item came before.
    any: bool,
    /// The room in the array not passed yet.
    room: &'r [(usize, usize)],
}

impl Placing<'_> {
    /// Places an item of `len` bytes after the last: its start, its length
    /// and the room before it. None if room was recorded where no
    /// separator is.
    fn place(&mut self, len: usize) -> Option<(usize, usize, usize)> {
        let extra = match self.room.first() {
            Some(&(at, extra)) if at == self.next => {
                self.room = &self.room[1..];
                extra
            }
            Some(&(at, _)) if at < self.next => return None,
            _ => 0,
        };
        let sep = separator(self.any);
        let start = self.next.checked_add(sep.len())?.checked_add(extra)?;
        self.next = start.checked_add(len)?;
        self.any = true;
        Some((start, len, extra))
    }
}

/// The names and packages of the cache's lines, the packages' entries
/// placed from the arrays' starts `at` with the manifest's `room`; None if
/// any line is not as [`Lines`] writes it, or the names are not sorted.
fn from_text(
    text: &str,
    at: (usize, usize),
    room: &[(usize, usize)],
) -> Option<(Vec<Known>, Vec<Remembered>)> {
    // A line per name and per package: room for them all at once.
    let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    let mut names: Vec<Known> = Vec::with_capacity(lines);
    let mut packages = Vec::with_capacity(lines);
    if !room.windows(2).all(|w| w[0].0 < w[1].0) {
        return None;
    }
    // The `tools` array ends before `installed` starts.
    let split = room.partition_point(|&(pos, _)| pos < at.1);
    let mut tools = Placing {
        next: at.0,
        any: false,
        room: &room[..split],
    };
    let mut installed = Placing {
        next: at.1,
        any: false,
        room: &room[split..],
    };
    let mut offset = 0;
    while offset < text.len() {
        let here = offset;
        let line = &text[here..here + memchr::memchr(b'\n', &text.as_bytes()[here..])?];
        offset += line.len() + 1;
        if let Some(rest) = line.strip_prefix("N ") {
            let mut words = Words::new(rest);
            let name = words.next()?;
            // The stamp is parsed only if it is asked for: a command reads
            // those of the name directories it changed, not the others.
            let dir = match words.rest()? {
                "-" => None,
                stamp => {
                    let start = here + 2 + name.len() + 1;
                    Some(start..start + stamp.len())
                }
            };
            if let Some(last) = names.last() {
                if text[last.name.clone()] >= *name {
                    return None;
                }
            }
            let start = here + 2;
            names.push(Known {
                name: start..start + name.len(),
                dir,
                packages: packages.len()..packages.len(),
                lines: here..offset,
            });
        } else if let Some(rest) = line.strip_prefix("P ") {
            let known = names.last_mut()?;
            let mut words = Words::new(rest);
            let version = words.next()?;
            let version_at = here + 2;
            let active = match words.next()? {
                "1" => true,
                "0" => false,
                _ => return None,
            };
            let installed_len = int(words.next()?)?;
            let tools = match (words.next()?, words.rest()?) {
                ("@", len) => {
                    let (start, len, room) = tools.place(int(len)?)?;
                    Tools::At(start, len, room)
                }
                ("=", json) => {
                    let start = offset - 1 - json.len();
                    Tools::Inline(start..offset - 1)
                }
                _ => return None,
            };
            let (start, len, room) = installed.place(installed_len)?;
            packages.push(Remembered {
                version: version_at..version_at + version.len(),
                active,
                tools,
                installed: (start, len),
                installed_room: room,
            });
            known.packages.end = packages.len();
            known.lines.end = offset;
        } else {
            return None;
        }
    }
    Some((names, packages))
}

/// A name directory's stamp as [`Lines::push_name`] writes it: five
/// integers.
fn parse_stamp(text: &str) -> Option<Stamp> {
    let mut words = Words::new(text);
    let stamp = Stamp(
        int(words.next()?)?,
        int(words.next()?)?,
        int(words.next()?)?,
        int(words.next()?)?,
        int(words.next()?)?,
    );
    words.next().is_none().then_some(stamp)
}

/// The words of a cache line, split at single spaces as `str::split(' ')`
/// splits them, by a plain scan (the cache has a line per tool of the root,
/// and is read by every command).
struct Words<'a> {
    rest: Option<&'a str>,
}

impl<'a> Words<'a> {
    fn new(line: &'a str) -> Words<'a> {
        Words { rest: Some(line) }
    }

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.rest?;
        match rest.bytes().position(|b| b == b' ') {
            Some(i) => {
                self.rest = Some(&rest[i + 1..]);
                Some(&rest[..i])
            }
            None => {
                self.rest = None;
                Some(rest)
            }
        }
    }

    /// What is left of the line, spaces and all.
    fn rest(&mut self) -> Option<&'a str> {
        self.rest.take()
    }
}

/// A decimal integer as [`push_int`] writes it (an optional `-`, then
/// digits), of the type asked for.
fn int<T: TryFrom<i128>>(word: &str) -> Option<T> {
    let (negative, digits) = match word.strip_prefix('-') {
        Some(digits) => (true, digits),
        None => (false, word),
    };
    if digits.is_empty() || digits.len() > 38 {
        return None;
    }
    let mut n: i128 = 0;
    for b in digits.bytes() {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n * 10 + i128::from(b - b'0');
    }
    T::try_from(if negative { -n } else { n }).ok()
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

/// Writes `path` over with `parts` from its start (made, private to the
/// user, if it is not there), not flushed. Not truncated first: its blocks
/// are written over rather than freed and allocated again (a truncation
/// frees them at once, which on ext4 mounted with `discard` took 0.2 ms for
/// a root of 1,000 tools); only a tail the new text does not reach is cut.
fn write_in_place(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    let mut len = 0;
    for part in parts {
        file.write_all(part)?;
        len += part.len() as u64;
    }
    if file.metadata()?.len() != len {
        file.set_len(len)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a genuine cache of this root vouches for its manifest, and
    /// only for the very file written with it.
    #[test]
    fn the_cache_vouches_only_for_the_manifest_written_with_it() {
        let home = tempfile::tempdir().unwrap();
        let root = InstallRoot::global(home.path());
        let key = root.receipt_key_or_create().unwrap();
        fs::write(root.manifest_path(), "{}\n").unwrap();
        let write_cache = || {
            let cache = Cache {
                key: Some(key),
                ..Cache::default()
            };
            cache.prepare(Lines::default(), true).unwrap().write(&root);
        };
        let open = || fs::File::open(root.manifest_path()).unwrap();
        assert!(!vouches_for(&root, &open()), "no cache yet");
        write_cache();
        assert!(vouches_for(&root, &open()));
        // Another file with the same bytes.
        let other = root.state_dir.join("other");
        fs::write(&other, "{}\n").unwrap();
        fs::rename(&other, root.manifest_path()).unwrap();
        assert!(!vouches_for(&root, &open()));
        write_cache();
        assert!(vouches_for(&root, &open()));
        // A cache changed by anyone but orla.
        let path = root.state_dir.join(CACHE_FILE);
        let genuine = fs::read_to_string(&path).unwrap();
        fs::write(&path, genuine.replacen("\"tools\":", "\"tools\": ", 1)).unwrap();
        assert!(!vouches_for(&root, &open()));
        // Another root's.
        fs::write(&path, &genuine).unwrap();
        assert!(vouches_for(&root, &open()));
        let elsewhere = InstallRoot::global(&home.path().join("elsewhere"));
        fs::create_dir_all(&elsewhere.state_dir).unwrap();
        fs::copy(
            root.state_dir.join("receipt.key"),
            elsewhere.state_dir.join("receipt.key"),
        )
        .unwrap();
        fs::write(elsewhere.state_dir.join(CACHE_FILE), &genuine).unwrap();
        assert!(!vouches_for(&elsewhere, &open()));
    }

    #[test]
    fn the_cache_is_written_over_in_place_with_nothing_beside_it() {
        let home = tempfile::tempdir().unwrap();
        let root = InstallRoot::global(home.path());
        fs::create_dir_all(&root.state_dir).unwrap();
        fs::write(root.manifest_path(), "{}\n").unwrap();
        let path = root.state_dir.join(CACHE_FILE);
        fs::write(
            &path,
            "the old cache, longer than the new one will be ".repeat(40),
        )
        .unwrap();
        let before = fs::metadata(&path).unwrap();
        let cache = Cache {
            key: Some([7; 32]),
            ..Cache::default()
        };
        cache.prepare(Lines::default(), true).unwrap().write(&root);
        let new = fs::read_to_string(&path).unwrap();
        assert!(new.starts_with("orla manifest cache 6 "), "{new}");
        assert!(!new.contains("the old cache"), "{new}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            assert_eq!(fs::metadata(&path).unwrap().ino(), before.ino());
        }
        let mut names: Vec<String> = fs::read_dir(&root.state_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, [CACHE_FILE, "manifest.json"]);
        // Read back under the same key, it is believed.
        assert!(read(&root, &[7; 32]).is_some());
    }

    #[test]
    fn the_lines_read_back_as_written_and_place_the_entries() {
        let mut lines = Lines::default();
        let stamp = Stamp(2049, 77, 4096, -5, 1_764_000_000_123_456_789);
        lines.push_name("fs-read", Some(stamp));
        let inline = "{\n  \"name\": \"a b\\\"c\"\n}";
        lines.push_package("1.2.0", false, 20, Err(inline));
        lines.push_package("2.0.0-rc.1+build.5", true, 9, Ok(40));
        lines.push_name("json-query", None);
        lines.push_package("0.3.0", true, 12, Ok(7));
        let text = lines.text.clone();
        let (names, packages) = from_text(&text, (100, 500), &[]).unwrap();
        assert_eq!(names.len(), 2);
        assert_eq!(&text[names[0].name.clone()], "fs-read");
        assert_eq!(
            parse_stamp(&text[names[0].dir.clone().unwrap()]),
            Some(stamp)
        );
        assert_eq!(names[1].dir, None);
        // Each name's lines, whole, to be copied as they are.
        assert_eq!(
            text[names[0].lines.clone()].to_string() + &text[names[1].lines.clone()],
            text
        );
        assert!(text[names[1].lines.clone()].starts_with("N json-query -\n"));
        let versions: Vec<&str> = packages.iter().map(|p| &text[p.version.clone()]).collect();
        assert_eq!(versions, ["1.2.0", "2.0.0-rc.1+build.5", "0.3.0"]);
        // The installed items one after another from 500, the served
        // versions' tools items from 100, each after its separator.
        let installed: Vec<_> = packages.iter().map(|p| p.installed).collect();
        assert_eq!(installed, [(505, 20), (531, 9), (546, 12)]);
        assert_eq!(packages[1].tools, Tools::At(105, 40, 0));
        assert_eq!(packages[2].tools, Tools::At(151, 7, 0));
        let Tools::Inline(json) = &packages[0].tools else {
            panic!("{:?}", packages[0].tools)
        };
        assert_eq!(
            serde_json::from_str::<String>(&text[json.clone()]).unwrap(),
            inline
        );
        // A line it does not know, a version before any name, names out of
        // order: no cache.
        assert_eq!(from_text(&format!("{text}X 1\n"), (0, 0), &[]), None);
        assert_eq!(from_text("P 1.0.0 1 2 @ 4\n", (0, 0), &[]), None);
        assert_eq!(from_text("N fs-read\n", (0, 0), &[]), None);
        // A stamp is checked when it is parsed (only where it is asked for).
        assert_eq!(parse_stamp("1 2"), None);
        assert_eq!(parse_stamp("1 2 3 4 5 6"), None);
        assert_eq!(parse_stamp("1 2 3 4 x"), None);
        assert_eq!(from_text("N b -\nN a -\n", (0, 0), &[]), None);
    }

    /// What the spare holds is recorded with the spare's stamp once it
    /// replaced the manifest, and carried over by a command that left the
    /// manifest as it was.
    #[test]
    fn the_spare_is_recorded_by_its_stamp_and_carried_over() {
        let home = tempfile::tempdir().unwrap();
        let root = InstallRoot::global(home.path());
        fs::create_dir_all(&root.state_dir).unwrap();
        fs::write(root.manifest_path(), "{}\n").unwrap();
        let spare = root.state_dir.join(super::super::text::SPARE);
        fs::write(&spare, "{ }\n").unwrap();
        let key = [7; 32];
        let cache = Cache {
            key: Some(key),
            ..Cache::default()
        };
        let mut pending = cache.prepare(Lines::default(), true).unwrap();
        pending.spare_replaced(vec![(0, 2)]);
        pending.write(&root);
        let read_back = read(&root, &key).unwrap();
        let stamp = Stamp::from_metadata(&fs::metadata(&spare).unwrap());
        assert_eq!(
            read_back.spare(),
            stamp
                .map(|stamp| Spare {
                    stamp,
                    changed: vec![(0, 2)]
                })
                .as_ref()
        );
        // Left as it was: the same spare, even with the cache written again
        // (tools_dir changed).
        fs::create_dir_all(&root.tools_dir).unwrap();
        read_back
            .prepare(Lines::default(), false)
            .unwrap()
            .write(&root);
        assert_eq!(read(&root, &key).unwrap().spare(), read_back.spare());
        // Rewritten without a spare swapped out: none.
        read_back
            .prepare(Lines::default(), true)
            .unwrap()
            .write(&root);
        assert_eq!(read(&root, &key).unwrap().spare(), None);
    }

    /// Room recorded where a separator starts lengthens it; room recorded
    /// anywhere else means the lines are not the manifest's.
    #[test]
    fn room_places_the_entries_after_it() {
        let mut lines = Lines::default();
        lines.push_name("a", None);
        lines.push_package("1.0.0", true, 20, Ok(40));
        lines.push_name("b", None);
        lines.push_package("1.0.0", true, 9, Ok(7));
        lines.push_package("2.0.0", false, 5, Err("{}"));
        let text = lines.text.clone();
        // tools from 100: a at 105..145, b's separator at 145 (+30 room);
        // installed from 500: a at 505..525, b 1.0.0's separator at 525,
        // b 2.0.0's at 540 (+4 room).
        let room = [(145, 30), (540, 4)];
        let (_, packages) = from_text(&text, (100, 500), &room).unwrap();
        assert_eq!(packages[0].tools, Tools::At(105, 40, 0));
        assert_eq!(packages[1].tools, Tools::At(181, 7, 30));
        let installed: Vec<_> = packages
            .iter()
            .map(|p| (p.installed, p.installed_room))
            .collect();
        assert_eq!(installed, [((505, 20), 0), ((531, 9), 0), ((550, 5), 4)]);
        // Room where no separator starts, or out of order: not believed.
        assert_eq!(from_text(&text, (100, 500), &[(144, 30)]), None);
        assert_eq!(from_text(&text, (100, 500), &[(540, 4), (145, 30)]), None);
        // Room past the last remembered entry (a project's other entries).
        assert!(from_text(&text, (100, 500), &[(900, 8)]).is_some());
    }

    #[test]
    fn words_and_integers_read_back_as_split_and_parse_would() {
        for line in ["a b  c", "", " ", "a", "a ", "P 1.0.0 1 12 = \"x y\""] {
            let mut words = Words::new(line);
            let mut ours = Vec::new();
            while let Some(word) = words.next() {
                ours.push(word);
            }
            assert_eq!(ours, line.split(' ').collect::<Vec<_>>(), "{line:?}");
        }
        let mut words = Words::new("P 1.0.0 1 12 = \"x y\"");
        assert_eq!(words.next(), Some("P"));
        assert_eq!(words.rest(), Some("1.0.0 1 12 = \"x y\""));
        assert_eq!(words.next(), None);
        for n in [
            0i128,
            7,
            -5,
            1_764_000_000_123_456_789,
            u64::MAX as i128,
            i64::MIN as i128,
        ] {
            assert_eq!(int::<i128>(&n.to_string()), Some(n));
        }
        assert_eq!(int::<u64>("18446744073709551615"), Some(u64::MAX));
        assert_eq!(int::<u64>("18446744073709551616"), None);
        assert_eq!(int::<u64>("-1"), None);
        assert_eq!(int::<i64>("-9223372036854775808"), Some(i64::MIN));
        for bad in ["", "-", "+1", "1a", " 1", "1 ", "0x10", &"9".repeat(39)] {
            assert_eq!(int::<i128>(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn integers_are_written_as_decimal() {
        for n in [
            0i128,
            7,
            -5,
            10,
            1_764_000_000_123_456_789,
            u64::MAX as i128,
            i64::MIN as i128,
        ] {
            let mut out = String::new();
            push_int(&mut out, n);
            assert_eq!(out, n.to_string());
        }
    }
}
