//! Writing a root's manifest without serialising what did not change: the
//! entries of packages taken from the last manifest (see `cache`) are
//! copied as they are, file to file (see `text`), and only the packages
//! read again, the header and a project's other inputs are serialised. The
//! text is exactly what [`Manifest::to_json`] gives for the same store (a
//! test holds it so).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use super::cache::{Cache, Fragment, Name, Remembered};
use super::scan::{Scan, Scanned};
use super::text::Text;
use super::{
    discovered_entry, discovered_listing, display, installed_entry, warn_shadowed, Inputs,
    RootInfo, RootKindName, ToolEntry, MANIFEST_VERSION,
};
use crate::progress::Reporter;
use crate::project::Settings;
use crate::root::InstallRoot;

/// A manifest rendered, with what the next command remembers of it.
#[derive(Debug)]
pub struct Rendered {
    pub text: Text,
    /// For [`Cache::save`].
    pub names: BTreeMap<String, Name>,
    pub written: Written,
}

/// What a written manifest says about the root's own packages.
#[derive(Debug, Clone, Default)]
pub struct Written {
    /// Name, version and whether it is served, sorted by name and version.
    pub installed: Vec<(String, semver::Version, bool)>,
}

impl Written {
    /// The version of `name` the manifest serves from the root's own packages.
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

/// Appends the items of a JSON array as the pretty printer writes them at
/// depth 2, recording where each starts.
struct Items<'a> {
    out: &'a mut Text,
    any: bool,
}

/// What the pretty printer writes between two items at depth 2.
const BETWEEN: &str = ",\n    ";

impl Items<'_> {
    /// Appends one item; returns its range in the output.
    fn push_text(&mut self, text: &str) -> (usize, usize) {
        self.out.push_str(if self.any { BETWEEN } else { "\n    " });
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
            self.out.push_str(if self.any { BETWEEN } else { "\n    " });
            self.out.push_old(start, len);
        }
        self.any = true;
        (self.out.len() - len, len)
    }

    fn push<T: Serialize>(&mut self, value: &T) -> (usize, usize) {
        self.push_text(&item(value))
    }

    fn end(self) {
        self.out.push_str(if self.any { "\n  ]" } else { "]" });
    }
}

/// `value` as the pretty printer writes an item at depth 2.
fn item<T: Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value)
        .expect("manifest entries serialise")
        .replace('\n', "\n    ")
}

/// An `installed` entry remembered with one `active`, given the other.
fn with_active(text: &str, active: bool) -> String {
    const KEY: &str = "\n      \"active\": ";
    let Some(at) = text.find(KEY).map(|i| i + KEY.len()) else {
        return text.to_string();
    };
    let rest = &text[at..];
    let old = if rest.starts_with("true") { 4 } else { 5 };
    format!("{}{}{}", &text[..at], active, &rest[old..])
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
        let packages: Vec<Scanned> = scan
            .packages
            .into_iter()
            .filter(|p| {
                !leaving
                    .iter()
                    .any(|(n, v)| n == p.name() && v == p.version())
            })
            .collect();
        let active = active(
            packages.iter().map(|p| (p.name(), p.version())),
            &inputs.preferred,
        );
        let is_active = |p: &Scanned| active.get(p.name()) == Some(&p.version());

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
        let head = serde_json::to_string_pretty(&head).expect("the head serialises");
        out.push_str(&head[..head.len() - "\n}".len()]);
        out.push_str(",\n  \"tools\": [");

        let own = own_names(&active, &inputs.discovered);
        // Each package's `tools` entry: where it went, or its text.
        let mut tools: Vec<Fragment> = Vec::with_capacity(packages.len());
        let mut served: Vec<ToolEntry> = Vec::new();
        {
            let mut items = Items {
                out: &mut out,
                any: false,
            };
            for pkg in &packages {
                let fragment = match (pkg, is_active(pkg)) {
                    (Scanned::Read(p), true) => {
                        let (start, len) = items.push(&p.entry);
                        Fragment::At(start, len)
                    }
                    (Scanned::Read(p), false) => Fragment::Inline(item(&p.entry)),
                    (Scanned::Remembered { found, .. }, true) => {
                        let (start, len) = match &found.tools {
                            Fragment::At(start, len) => items.push_old((*start, *len)),
                            Fragment::Inline(text) => items.push_text(text),
                        };
                        Fragment::At(start, len)
                    }
                    (Scanned::Remembered { found, .. }, false) => {
                        Fragment::Inline(cache.text(&found.tools)?)
                    }
                };
                tools.push(fragment);
            }
            // RFC 1 discovery: an installed package of the same name wins,
            // since it was asked for by name (and, in a project, is pinned
            // in orla.lock).
            for found in &inputs.discovered {
                let clash = active.contains_key(found.name.as_str());
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
                if !own.contains(global.name.as_str()) {
                    let mut entry = global.clone();
                    entry.root = RootKindName::Global;
                    items.push(&entry);
                }
            }
            items.end();
        }

        out.push_str(",\n  \"installed\": [");
        let mut names: BTreeMap<String, Name> = BTreeMap::new();
        let mut written = Written {
            installed: Vec::with_capacity(packages.len()),
        };
        {
            let mut items = Items {
                out: &mut out,
                any: false,
            };
            for (pkg, tools) in packages.iter().zip(tools) {
                let active = is_active(pkg);
                let installed = match pkg {
                    Scanned::Read(p) => items.push(&installed_entry(&p.entry, kind, active)),
                    Scanned::Remembered { found, .. } => {
                        if found.active == active {
                            items.push_old(found.installed)
                        } else {
                            items.push_text(&with_active(&cache.installed_text(found)?, active))
                        }
                    }
                };
                names
                    .entry(pkg.name().to_string())
                    .or_insert_with(|| Name {
                        dir: None,
                        packages: Vec::new(),
                    })
                    .packages
                    .push(Remembered {
                        version: match pkg {
                            Scanned::Remembered { found, .. } => found.version.clone(),
                            Scanned::Read(p) => p.version.to_string(),
                        },
                        active,
                        tools,
                        installed,
                    });
                written
                    .installed
                    .push((pkg.name().to_string(), pkg.version().clone(), active));
            }
            for (found, entry) in inputs.discovered.iter().zip(&served) {
                let clash = active.contains_key(found.name.as_str());
                items.push(&discovered_listing(entry, kind, !clash));
            }
            for global in &inputs.global_installed {
                let mut entry = global.clone();
                entry.root = RootKindName::Global;
                entry.active = entry.active && !own.contains(entry.name.as_str());
                items.push(&entry);
            }
            items.end();
        }
        out.push_str("\n}\n");

        // Names read again now are trusted next time only where the scan
        // said so; names with a package leaving are read again.
        let mut stamps = scan.stamps;
        for (name, _) in leaving {
            stamps.insert(name.clone(), None);
        }
        for (name, stamp) in stamps {
            names
                .entry(name)
                .or_insert_with(|| Name {
                    dir: None,
                    packages: Vec::new(),
                })
                .dir = stamp;
        }
        Ok(Rendered {
            text: out,
            names,
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
