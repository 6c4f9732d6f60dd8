//! Writing a root's manifest without serialising what did not change: the
//! entries of packages taken from the last manifest (see `cache`) are
//! copied as they are, file to file (see `text`), and only the packages
//! read again, the header and a project's other inputs are serialised. The
//! text is exactly what [`Manifest::to_json`] gives for the same store (a
//! test holds it so).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use super::cache::{Cache, Lines, Remembered, Tools, BETWEEN, FIRST};
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

/// Appends the items of one of the manifest's arrays, each on a line of its
/// own (see `layout`), recording where each starts.
struct Items<'a> {
    out: &'a mut Text,
    any: bool,
}

impl Items<'_> {
    /// Appends one item; returns its range in the output.
    fn push_text(&mut self, text: &str) -> (usize, usize) {
        self.out.push_str(if self.any { BETWEEN } else { FIRST });
        self.any = true;
        let start = self.out.len();
        self.out.push_str(text);
        (start, text.len())
    }

    /// Appends the item at `[start, len]` of the last manifest; returns its
    /// range in the output. Two items that were next to each other in the
    /// same array of the last manifest are copied as one run, with the
    /// separator between them.
    fn push_old(&mut self, (start, len): (usize, usize)) -> (usize, usize) {
        let joined = self.any && self.out.old_end().map(|end| end + BETWEEN.len()) == Some(start);
        if joined {
            self.out
                .push_old(start - BETWEEN.len(), BETWEEN.len() + len);
        } else {
            self.out.push_str(if self.any { BETWEEN } else { FIRST });
            self.out.push_old(start, len);
        }
        self.any = true;
        (self.out.len() - len, len)
    }

    fn push<T: Serialize>(&mut self, value: &T) -> (usize, usize) {
        self.push_text(&layout::item(value))
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
        }
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
                any: false,
            };
            for group in &groups {
                for (i, pkg) in group.pkgs.iter().enumerate() {
                    let active = group.active == Some(i);
                    let entry = match (*pkg, active) {
                        (Pkg::New(p), true) => Ok(items.push(&p.entry).1),
                        (Pkg::New(p), false) => Err(layout::item(&p.entry)),
                        (Pkg::Old(found), true) => Ok(match &found.tools {
                            Tools::At(start, len) => items.push_old((*start, *len)).1,
                            Tools::Inline(_) => items.push_text(&cache.tools_text(found)?).1,
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
                    items.push(&entry);
                }
                served.push(entry);
            }
            // RFC 3 9.1: a project's tools shadow global tools of the same
            // name; the others are served as well.
            for global in &inputs.global_tools {
                if !own(&global.name) {
                    let mut entry = global.clone();
                    entry.root = RootKindName::Global;
                    items.push(&entry);
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
                any: false,
            };
            let mut tools = tools.into_iter();
            for group in &groups {
                let name = group.scanned.name(cache);
                if group.carried {
                    for (pkg, _) in group.pkgs.iter().zip(tools.by_ref()) {
                        if let Pkg::Old(found) = pkg {
                            items.push_old(found.installed);
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
                        Pkg::New(p) => items.push(&installed_entry(&p.entry, kind, active)),
                        Pkg::Old(found) if found.active == active => {
                            items.push_old(found.installed)
                        }
                        Pkg::Old(found) => {
                            items.push_text(&with_active(&cache.installed_text(found)?, active))
                        }
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
                items.push(&discovered_listing(entry, kind, !clash));
            }
            for global in &inputs.global_installed {
                let mut entry = global.clone();
                entry.root = RootKindName::Global;
                entry.active = entry.active && !own(&entry.name);
                items.push(&entry);
            }
            items.end();
        }
        out.push_str("\n}\n");
        Ok(Rendered {
            text: out,
            lines,
            written,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_in_the_last_manifest_are_copied_as_one_run() {
        let mut out = Text::default();
        let mut items = Items {
            out: &mut out,
            any: false,
        };
        // Where each lands in the new text: after "\n    ", and after
        // the separator it is copied with.
        assert_eq!(items.push_old((100, 10)), (5, 10));
        assert_eq!(items.push_old((116, 4)), (21, 4));
        // Not next to the last one there: a separator of its own.
        assert_eq!(items.push_old((200, 3)), (31, 3));
        items.push_text("{}");
        assert_eq!(items.push_old((203 + BETWEEN.len(), 3)), (48, 3));
        items.end();
        assert_eq!(out.copied(), [(100, 20), (200, 3), (209, 3)]);
        assert_eq!(out.len(), 51 + "\n  ]".len());
    }
}
