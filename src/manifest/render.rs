//! Writing a root's manifest without serialising what did not change: the
//! entries of packages taken from the last manifest (see `cache`) are
//! copied as they are, file to file (see `text`), and only the packages
//! read again, the header and a project's other inputs are serialised. The
//! text is what [`Manifest::to_json`] gives for the same store (a test
//! holds it so), but for the room a manifest of [`ROOM_EVERY`] bytes or
//! more leaves between its entries: lines of spaces where the entries of
//! the last manifest go back to where they were, so that the next write
//! changes a few pages of the file (see `text`).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use super::cache::{self, Cache, Lines, Remembered, Room, Tools, BETWEEN};
use super::scan::{Package, Scan, Scanned};
use super::text::Text;
use super::{
    discovered_entry, discovered_listing, display, installed_entry, layout, warn_shadowed, Inputs,
    RootInfo, RootKindName, ToolEntry, ENTRIES_FLAT, MANIFEST_VERSION,
};
use crate::progress::Reporter;
use crate::project::Settings;
use crate::root::InstallRoot;

/// A manifest rendered, with what the next command remembers of it.
#[derive(Debug)]
pub struct Rendered {
    pub text: Text,
    /// The next cache's lines (see [`Cache::prepare`]).
    pub lines: Lines,
    pub written: Written,
}

/// What a written manifest says about the root's own packages.
#[derive(Debug, Clone, Default)]
pub struct Written {
    /// Name, version and whether it is served, sorted by name and version,
    /// of the name directories whose entries were not carried over as
    /// they were (every one when there was no cache to carry from): those
    /// the command changed or found changed.
    pub installed: Vec<(String, semver::Version, bool)>,
    /// For each name directory the cache remembers, whether its entries
    /// were carried over as they were (neither added to, nor dropped from,
    /// nor served differently).
    pub carried: Vec<bool>,
}

impl Written {
    /// The version of `name` the manifest serves from the root's own
    /// packages, for a name directory the command changed or found changed.
    pub fn served(&self, name: &str) -> Option<&semver::Version> {
        self.installed
            .iter()
            .find(|(n, _, active)| n == name && *active)
            .map(|(_, v, _)| v)
    }
}

/// The version of each name to serve: the preferred one when it is
/// installed, else the newest stable one, else the newest pre-release
/// (what `latest` selects, so that installing a pre-release does not
/// switch a tool to it). `installed` is sorted by name and version.
pub(super) fn active<'a>(
    installed: impl Iterator<Item = (&'a str, &'a semver::Version)>,
    preferred: &BTreeMap<String, semver::Version>,
) -> HashMap<&'a str, &'a semver::Version> {
    let rank = |v: &'a semver::Version| (v.pre.is_empty(), v);
    let mut active: HashMap<&str, &semver::Version> = HashMap::new();
    for (name, version) in installed {
        if preferred.get(name) == Some(version) {
            active.insert(name, version);
            continue;
        }
        let entry = active.entry(name).or_insert(version);
        if rank(version) > rank(entry) && preferred.get(name) != Some(*entry) {
            *entry = version;
        }
    }
    active
}

/// The names a root serves itself: its active packages and the discovered
/// executables no package of the same name shadows. Global tools of these
/// names are not served in a project (RFC 3 9.1).
pub(super) fn own_names<'a>(
    active: &HashMap<&'a str, &'a semver::Version>,
    discovered: &'a [crate::project::discover::Discovered],
) -> HashSet<&'a str> {
    active
        .keys()
        .copied()
        .chain(
            discovered
                .iter()
                .filter(|d| !active.contains_key(d.name.as_str()))
                .map(|d| d.name.as_str()),
        )
        .collect()
}

/// The manifest's head, in the order [`super::Manifest`] has it.
#[derive(Serialize)]
struct Head<'a> {
    manifest_version: u32,
    generator: String,
    root: RootInfo,
    settings: &'a Settings,
}

/// How a manifest's entries are placed (docs/manifest.md, "Room").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fit {
    /// Each entry copied from the last manifest where it was there, when
    /// the room before it allows: an install into a large manifest changes
    /// a few of its pages, which is all the spare is written and flushed
    /// at (see `text`).
    Kept,
    /// One after another, room left every [`ROOM_EVERY`] bytes.
    Fresh,
}

/// A fresh layout leaves room every this many bytes (a manifest shorter
/// than this has none), and a manifest at least this long is laid out as
/// the last one was ([`Fit::Kept`]).
pub const ROOM_EVERY: usize = 32 * 1024;
/// How much room a fresh layout leaves: a few entries' worth.
pub const ROOM: usize = 4 * 1024;

/// A manifest being laid out.
#[derive(Debug)]
struct Lay {
    fit: Fit,
    /// From where a fresh layout leaves room next.
    next_room: usize,
    room: Room,
    /// Bytes of entries copied from the last manifest to another place.
    shifted: usize,
}

impl Lay {
    fn new(fit: Fit) -> Lay {
        Lay {
            fit,
            next_room: ROOM_EVERY,
            room: Room::new(),
            shifted: 0,
        }
    }

    /// The room a fresh layout leaves in a separator that starts `at`.
    fn fresh(&mut self, at: usize) -> usize {
        if self.fit != Fit::Fresh || at < self.next_room {
            return 0;
        }
        self.next_room = at + ROOM + ROOM_EVERY;
        ROOM
    }

    /// Whether a layout kept from the last manifest has come to move too
    /// much of it (its room used up where tools are installed: more than
    /// the entries up to the next room in each array, and an eighth of the
    /// manifest), or to be too much room (a quarter of it, where tools were
    /// removed), for a manifest of `len` bytes.
    fn crowded(&self, len: usize) -> bool {
        let room: usize = self.room.iter().map(|&(_, n)| n).sum();
        self.fit == Fit::Kept && (self.shifted > 2 * ROOM_EVERY + len / 8 || room * 4 > len)
    }
}

/// The separator before an item (`any`: one came before it in its array)
/// with `room` bytes more: a line of spaces, which JSON reads as the
/// whitespace it is.
fn separator(any: bool, room: usize) -> std::borrow::Cow<'static, str> {
    let sep = cache::separator(any);
    if room == 0 {
        return sep.into();
    }
    let (end, indent) = sep.split_at(sep.len() - "    ".len());
    let mut text = String::with_capacity(sep.len() + room);
    text.push_str(end);
    text.extend(std::iter::repeat_n(' ', room - 1));
    text.push('\n');
    text.push_str(indent);
    text.into()
}

/// Appends the items of one of the manifest's arrays, each on a line of its
/// own (see `layout`), recording where each starts.
struct Items<'a> {
    out: &'a mut Text,
    lay: &'a mut Lay,
    any: bool,
}

impl Items<'_> {
    /// The separator's length before the next item, with no room.
    fn shortest(&self) -> usize {
        cache::separator(self.any).len()
    }

    /// Appends a separator with `room` more bytes, starting `at`.
    fn push_separator(&mut self, at: usize, room: usize) {
        self.out.push_str(&separator(self.any, room));
        if room > 0 {
            self.lay.room.push((at, room));
        }
        self.any = true;
    }

    /// Appends one item, read or serialised anew, which started at `was`
    /// in the last manifest (the same package's entry, read again): kept,
    /// it goes there again when the items before it leave it room to.
    /// Returns its range in the output.
    fn push_text(&mut self, text: &str, was: Option<usize>) -> (usize, usize) {
        let at = self.out.len();
        let room = match (self.lay.fit, was) {
            (Fit::Kept, Some(start)) => start.saturating_sub(at + self.shortest()),
            _ => self.lay.fresh(at),
        };
        self.push_separator(at, room);
        let start = self.out.len();
        self.out.push_str(text);
        (start, text.len())
    }

    /// Appends the item at `[start, len]` of the last manifest, which had
    /// `room` before it; returns its range in the output. Kept, it goes
    /// where it was when the items before it leave it room to. Two items
    /// next to each other in the same array of the last manifest, with the
    /// same separator between them, are copied as one run.
    fn push_old(&mut self, (start, len): (usize, usize), room: usize) -> (usize, usize) {
        let at = self.out.len();
        let shortest = self.shortest();
        let extra = match self.lay.fit {
            Fit::Kept => start.saturating_sub(at + shortest),
            Fit::Fresh => self.lay.fresh(at),
        };
        let was = BETWEEN.len() + room;
        let joined = self.any
            && shortest + extra == was
            && start
                .checked_sub(was)
                .is_some_and(|sep| self.out.old_end() == Some(sep));
        if joined {
            self.out.push_old(start - was, was + len);
            if extra > 0 {
                self.lay.room.push((at, extra));
            }
        } else {
            self.push_separator(at, extra);
            self.out.push_old(start, len);
        }
        self.any = true;
        let placed = self.out.len() - len;
        if placed != start {
            self.lay.shifted += len;
        }
        (placed, len)
    }

    fn push<T: Serialize>(&mut self, value: &T, was: Option<usize>) -> (usize, usize) {
        self.push_text(&layout::item(value), was)
    }

    fn end(self) {
        self.out.push_str(if self.any { "\n  ]" } else { "]" });
    }
}

/// An `installed` entry remembered with one `active`, given the other.
/// The first `"active":` of its line is its own key: the keys before it
/// have strings for values, and no string holds an unescaped `"`.
fn with_active(text: &str, active: bool) -> String {
    const KEY: &str = ",\"active\":";
    let Some(at) = text.find(KEY).map(|i| i + KEY.len()) else {
        return text.to_string();
    };
    let rest = &text[at..];
    let old = if rest.starts_with("true") { 4 } else { 5 };
    format!("{}{}{}", &text[..at], active, &rest[old..])
}

/// One package of a name directory, as the last manifest rendered it or
/// read now.
#[derive(Clone, Copy)]
enum Pkg<'a> {
    Old(&'a Remembered),
    New(&'a Package),
}

/// The packages of one name directory, by version, with the one served.
struct Group<'a> {
    scanned: &'a Scanned,
    pkgs: Vec<Pkg<'a>>,
    active: Option<usize>,
    /// Its cache lines can be copied as they are: its remembered packages
    /// whole, nothing read, nothing leaving, the same one served.
    carried: bool,
    /// How the last manifest had this name's packages, for those read
    /// again to go back where they were (see [`Group::was`]).
    remembered: &'a [Remembered],
}

impl<'a> Group<'a> {
    fn new(
        scanned: &'a Scanned,
        cache: &'a Cache,
        leaving: &[(String, semver::Version)],
        preferred: &BTreeMap<String, semver::Version>,
    ) -> Group<'a> {
        let name = scanned.name(cache);
        let old = scanned.kept.map(|k| cache.packages(k)).unwrap_or_default();
        // A name read again is looked for among those the cache remembers
        // (once, not per package).
        let remembered = match scanned.kept {
            Some(_) => old,
            None if !scanned.read.is_empty() && cache.describes_manifest() => cache
                .find(name)
                .map(|k| cache.packages(k))
                .unwrap_or_default(),
            None => &[],
        };
        let mut pkgs: Vec<Pkg> = old.iter().map(Pkg::Old).collect();
        if !scanned.read.is_empty() {
            pkgs.extend(scanned.read.iter().map(Pkg::New));
            if !old.is_empty() {
                // A package moved in beside remembered ones (see `scan`).
                pkgs.sort_by_cached_key(|p| version(*p, cache));
            }
        }
        let leaves: Vec<String> = leaving
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.to_string())
            .collect();
        if !leaves.is_empty() {
            pkgs.retain(|p| !leaves.iter().any(|v| *v == version_text(*p, cache)));
        }
        // One version is served whatever is preferred; only names with
        // several have their versions parsed and ranked.
        let active = match pkgs.len() {
            0 => None,
            1 => Some(0),
            _ => {
                let versions: Vec<semver::Version> =
                    pkgs.iter().map(|p| version(*p, cache)).collect();
                let chosen = active(versions.iter().map(|v| (name, v)), preferred);
                versions.iter().position(|v| chosen.get(name) == Some(&v))
            }
        };
        let carried = scanned.kept.is_some()
            && scanned.read.is_empty()
            && leaves.is_empty()
            && scanned.trusted()
            && old
                .iter()
                .enumerate()
                .all(|(i, r)| r.active == (active == Some(i)));
        Group {
            scanned,
            pkgs,
            active,
            carried,
            remembered,
        }
    }

    /// How the last manifest had the package `p`, read again.
    fn was(&self, cache: &Cache, p: &Package) -> Option<&'a Remembered> {
        let version = p.version.to_string();
        self.remembered.iter().find(|r| cache.version(r) == version)
    }
}

fn version_text<'a>(pkg: Pkg<'a>, cache: &'a Cache) -> std::borrow::Cow<'a, str> {
    match pkg {
        Pkg::Old(found) => cache.version(found).into(),
        Pkg::New(p) => p.version.to_string().into(),
    }
}

/// A package's version (a remembered one is orla's own text, so it parses;
/// 0.0.0 is never reached).
fn version(pkg: Pkg<'_>, cache: &Cache) -> semver::Version {
    match pkg {
        Pkg::Old(found) => {
            semver::Version::parse(cache.version(found)).unwrap_or(semver::Version::new(0, 0, 0))
        }
        Pkg::New(p) => p.version.clone(),
    }
}

impl Rendered {
    /// Renders the manifest of `root` from `scan` (less the packages
    /// `leaving`) and `inputs`; name clashes are reported. Fails only when
    /// an entry of the last manifest cannot be read back.
    pub fn new(
        root: &InstallRoot,
        scan: Scan,
        cache: &Cache,
        leaving: &[(String, semver::Version)],
        inputs: &Inputs,
        reporter: &dyn Reporter,
    ) -> std::io::Result<Rendered> {
        let kept = cache
            .manifest()
            .is_some_and(|(_, len)| len >= ROOM_EVERY as u64);
        let fit = if kept { Fit::Kept } else { Fit::Fresh };
        let (rendered, crowded) =
            Rendered::laid(root, &scan, cache, leaving, inputs, reporter, fit)?;
        if !crowded {
            return Ok(rendered);
        }
        // Laid out afresh, room and all (what it says was reported).
        let silent = crate::progress::Silent;
        Ok(Rendered::laid(root, &scan, cache, leaving, inputs, &silent, Fit::Fresh)?.0)
    }

    fn laid(
        root: &InstallRoot,
        scan: &Scan,
        cache: &Cache,
        leaving: &[(String, semver::Version)],
        inputs: &Inputs,
        reporter: &dyn Reporter,
        fit: Fit,
    ) -> std::io::Result<(Rendered, bool)> {
        let mut lay = Lay::new(fit);
        let kind: RootKindName = root.kind.into();
        let groups: Vec<Group> = scan
            .names
            .iter()
            .map(|s| Group::new(s, cache, leaving, &inputs.preferred))
            .collect();
        // The names the root serves a package of, sorted.
        let served_names: Vec<&str> = groups
            .iter()
            .filter(|g| g.active.is_some())
            .map(|g| g.scanned.name(cache))
            .collect();
        let serves = |name: &str| served_names.binary_search(&name).is_ok();
        // RFC 3 9.1: a project's own names (its packages and the
        // discovered executables) shadow global tools of the same name.
        let own = |name: &str| serves(name) || inputs.discovered.iter().any(|d| d.name == name);

        let head = Head {
            manifest_version: MANIFEST_VERSION,
            generator: format!("orla {}", env!("CARGO_PKG_VERSION")),
            root: RootInfo {
                kind,
                tools_dir: display(&root.tools_dir),
                project_dir: root.project_dir.as_deref().map(display),
                inputs: inputs.fingerprint.clone(),
            },
            settings: &inputs.settings,
        };
        let mut out = Text::default();
        let head = layout::to_string(&head, ENTRIES_FLAT);
        out.push_str(&head[..head.len() - "\n}\n".len()]);
        out.push_str(",\n  \"tools\": [");
        let tools_at = out.len();

        // Each package's `tools` entry: its length where it is served, else
        // its text.
        let mut tools: Vec<Result<usize, String>> = Vec::new();
        let mut served: Vec<ToolEntry> = Vec::new();
        {
            let mut items = Items {
                out: &mut out,
                lay: &mut lay,
                any: false,
            };
            for group in &groups {
                for (i, pkg) in group.pkgs.iter().enumerate() {
                    let active = group.active == Some(i);
                    let entry = match (*pkg, active) {
                        (Pkg::New(p), true) => {
                            let was = group.was(cache, p).and_then(|r| match r.tools {
                                Tools::At(start, ..) => Some(start),
                                Tools::Inline(_) => None,
                            });
                            Ok(items.push(&p.entry, was).1)
                        }
                        (Pkg::New(p), false) => Err(layout::item(&p.entry)),
                        (Pkg::Old(found), true) => Ok(match &found.tools {
                            Tools::At(start, len, room) => items.push_old((*start, *len), *room).1,
                            Tools::Inline(_) => items.push_text(&cache.tools_text(found)?, None).1,
                        }),
                        // Its text is needed only for cache lines made anew.
                        (Pkg::Old(_), false) if group.carried => Ok(0),
                        (Pkg::Old(found), false) => Err(cache.tools_text(found)?),
                    };
                    tools.push(entry);
                }
            }
            // RFC 1 discovery: an installed package of the same name wins,
            // since it was asked for by name (and, in a project, is pinned
            // in orla.lock).
            for found in &inputs.discovered {
                let clash = serves(&found.name);
                if clash {
                    warn_shadowed(found, reporter);
                }
                let entry = discovered_entry(found, kind, root.project_dir.as_deref());
                if !clash {
                    items.push(&entry, None);
                }
                served.push(entry);
            }
            // RFC 3 9.1: a project's tools shadow global tools of the same
            // name; the others are served as well.
            for global in &inputs.global_tools {
                if !own(&global.name) {
                    let mut entry = global.clone();
                    entry.root = RootKindName::Global;
                    items.push(&entry, None);
                }
            }
            items.end();
        }

        out.push_str(",\n  \"installed\": [");
        let mut lines = Lines::with_capacity(cache.lines_len() + 4096);
        lines.starts(tools_at, out.len());
        let mut written = Written {
            installed: Vec::new(),
            carried: vec![false; cache.len()],
        };
        {
            let mut items = Items {
                out: &mut out,
                lay: &mut lay,
                any: false,
            };
            let mut tools = tools.into_iter();
            for group in &groups {
                let name = group.scanned.name(cache);
                if group.carried {
                    for (pkg, _) in group.pkgs.iter().zip(tools.by_ref()) {
                        if let Pkg::Old(found) = pkg {
                            items.push_old(found.installed, found.installed_room);
                        }
                    }
                    let kept = group.scanned.kept.expect("a carried name is remembered");
                    lines.push_known(cache.lines_of(kept));
                    written.carried[kept] = true;
                    continue;
                }
                // Names with a package leaving are read again next time.
                let stamp = group
                    .scanned
                    .stamp(cache)
                    .filter(|_| !leaving.iter().any(|(n, _)| n == name));
                lines.push_name(name, stamp);
                for (i, (pkg, tools)) in group.pkgs.iter().zip(tools.by_ref()).enumerate() {
                    let active = group.active == Some(i);
                    let (_, installed) = match pkg {
                        Pkg::New(p) => items.push(
                            &installed_entry(&p.entry, kind, active),
                            group.was(cache, p).map(|r| r.installed.0),
                        ),
                        Pkg::Old(found) if found.active == active => {
                            items.push_old(found.installed, found.installed_room)
                        }
                        Pkg::Old(found) => items.push_text(
                            &with_active(&cache.installed_text(found)?, active),
                            Some(found.installed.0),
                        ),
                    };
                    let version = version_text(*pkg, cache);
                    let tools = tools.as_ref().map(|len| *len).map_err(String::as_str);
                    lines.push_package(&version, active, installed, tools);
                    written
                        .installed
                        .push((name.to_string(), self::version(*pkg, cache), active));
                }
            }
            for (found, entry) in inputs.discovered.iter().zip(&served) {
                let clash = serves(&found.name);
                items.push(&discovered_listing(entry, kind, !clash), None);
            }
            for global in &inputs.global_installed {
                let mut entry = global.clone();
                entry.root = RootKindName::Global;
                entry.active = entry.active && !own(&entry.name);
                items.push(&entry, None);
            }
            items.end();
        }
        out.push_str("\n}\n");
        let crowded = lay.crowded(out.len());
        lines.room(lay.room);
        Ok((
            Rendered {
                text: out,
                lines,
                written,
            },
            crowded,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items<'a>(out: &'a mut Text, lay: &'a mut Lay) -> Items<'a> {
        Items {
            out,
            lay,
            any: false,
        }
    }

    #[test]
    fn neighbours_in_the_last_manifest_are_copied_as_one_run() {
        let mut out = Text::default();
        let mut lay = Lay::new(Fit::Fresh);
        let mut items = items(&mut out, &mut lay);
        // Where each lands in the new text: after "\n    ", and after
        // the separator it is copied with.
        assert_eq!(items.push_old((100, 10), 0), (5, 10));
        assert_eq!(items.push_old((116, 4), 0), (21, 4));
        // Not next to the last one there: a separator of its own.
        assert_eq!(items.push_old((200, 3), 0), (31, 3));
        items.push_text("{}", None);
        assert_eq!(items.push_old((203 + BETWEEN.len(), 3), 0), (48, 3));
        // Next to it, but with room between them there: laid out afresh,
        // a separator of its own, without the room.
        assert_eq!(
            items.push_old((209 + 3 + BETWEEN.len() + 50, 3), 50),
            (57, 3)
        );
        items.end();
        assert_eq!(out.copied(), [(100, 20), (200, 3), (209, 3), (268, 3)]);
        assert_eq!(out.len(), 60 + "\n  ]".len());
        assert!(lay.room.is_empty());
    }

    /// Kept, each entry goes back where it was when the room before it
    /// allows: after one removed, and after one inserted where the last
    /// manifest left room.
    #[test]
    fn kept_entries_stay_where_they_were_when_there_is_room() {
        let mut out = Text::default();
        out.push_str(&"h".repeat(10));
        let mut lay = Lay::new(Fit::Kept);
        let mut items = items(&mut out, &mut lay);
        // The last manifest: A at 15 (after "\n    "), B at 27, C at 39
        // after 100 bytes of room, D at 151.
        assert_eq!(items.push_old((15, 6), 0), (15, 6));
        // B is gone: C goes where it was, the room grown by B's line.
        assert_eq!(items.push_old((139, 6), 100), (139, 6));
        // Something new 40 bytes long, where D was.
        assert_eq!(items.push_text(&"n".repeat(40), None), (151, 40));
        // D moved by it; E after it had 30 bytes of room, not enough.
        assert_eq!(items.push_old((151, 6), 0), (197, 6));
        assert_eq!(items.push_old((163 + 30, 6), 30), (209, 6));
        // F had 100: taken up, F is back where it was.
        assert_eq!(items.push_old((205 + 100, 6), 100), (305, 6));
        // G right after F there: copied with it.
        assert_eq!(items.push_old((317, 6), 0), (317, 6));
        items.end();
        assert_eq!(
            out.copied(),
            [(15, 6), (139, 6), (151, 6), (193, 6), (305, 18)]
        );
        assert_eq!(lay.room, [(21, 112), (215, 84)]);
        assert_eq!(lay.shifted, 12);
        // What changed: the head, the separators with room, the new entry,
        // and the two moved; not A, C, F, G.
        assert_eq!(out.changed(), [(0, 15), (21, 118), (145, 160), (323, 4)]);
    }

    #[test]
    fn a_fresh_layout_leaves_room_every_so_often() {
        let mut out = Text::default();
        let mut lay = Lay::new(Fit::Fresh);
        let mut items = items(&mut out, &mut lay);
        let entry = "e".repeat(1000);
        let mut starts = Vec::new();
        for _ in 0..100 {
            starts.push(items.push_text(&entry, None).0);
        }
        items.end();
        // After the first ROOM_EVERY bytes, then every ROOM_EVERY more.
        let room: Vec<usize> = lay.room.iter().map(|&(at, _)| at).collect();
        assert!(room.len() >= 2, "{room:?}");
        assert!(room[0] >= ROOM_EVERY && room[0] < ROOM_EVERY + 1006);
        for pair in room.windows(2) {
            assert!(pair[1] - pair[0] >= ROOM_EVERY + ROOM);
            assert!(pair[1] - pair[0] < ROOM_EVERY + ROOM + 1006);
        }
        assert!(lay.room.iter().all(|&(_, n)| n == ROOM));
        // Still JSON, with the entries where they were said to be.
        let text = format!(
            "[{}\n]",
            &out.contents(&Cache::default()).unwrap()[..out.len() - 4]
        );
        let parsed: Vec<String> = serde_json::from_str(&text.replace(&entry, "\"e\"")).unwrap();
        assert_eq!(parsed.len(), 100);
        assert!(starts.iter().all(|&s| text[s + 1..s + 1 + 1000] == entry));
        // Too much room, or too much moved, for a kept layout.
        let mut kept = Lay::new(Fit::Kept);
        kept.room.push((0, 300));
        assert!(!kept.crowded(1200));
        assert!(kept.crowded(1199));
        kept.room.clear();
        kept.shifted = 2 * ROOM_EVERY + 100;
        assert!(!kept.crowded(800));
        assert!(kept.crowded(799));
        assert!(!Lay {
            shifted: 100,
            ..Lay::new(Fit::Fresh)
        }
        .crowded(1));
    }

    #[test]
    fn room_is_a_line_of_spaces_json_reads_as_whitespace() {
        for any in [false, true] {
            for room in [0, 1, 2, 7] {
                let sep = separator(any, room);
                let shortest = cache::separator(any);
                assert_eq!(sep.len(), shortest.len() + room);
                assert!(sep.ends_with("\n    "));
                let text = if any {
                    format!("[1{sep}2]")
                } else {
                    format!("[{sep}2]")
                };
                let parsed: Vec<u32> = serde_json::from_str(&text).unwrap();
                assert_eq!(parsed.last(), Some(&2), "{text:?}");
            }
        }
        assert_eq!(separator(true, 3), ",\n  \n    ");
        assert_eq!(separator(false, 1), "\n\n    ");
    }
}
