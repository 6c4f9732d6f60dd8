//! The packages a root's manifest is derived from: every package directory
//! read, checked and derived again ([`packages`]), or only those of the
//! name directories that changed since the last manifest, the others taken
//! from it as they were ([`scan`], see `cache`).

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use super::cache::{Cache, Stamp, ToolsDir};
use super::{tool_entry, RootKindName, ToolEntry};
use crate::fs::now_ns;
use crate::progress::Reporter;
use crate::root::binding::KeyState;
use crate::root::{skipping, InstallRoot, NameDir, StoreError};

/// One installed package as the manifest describes it.
#[derive(Debug, Clone)]
pub struct Package {
    pub name: String,
    pub version: semver::Version,
    /// Its `tools` entry, were it the active version.
    pub entry: ToolEntry,
}

/// Every package of `root` that orla installed there (see
/// [`InstallRoot::scan`]) and that can run, sorted by name and version;
/// the others are reported and left out: a directory orla did not install
/// here, a damaged receipt or tool.yaml, an entrypoint deleted outside orla
/// (it stays in the store, for `orla verify` to report and `orla install
/// --force` or `orla uninstall` to fix).
pub fn packages(root: &InstallRoot, reporter: &dyn Reporter) -> Result<Vec<Package>, StoreError> {
    let key = root.key_state();
    let kind = RootKindName::from(root.kind);
    let mut out = Vec::new();
    for (_, _, dir) in root.package_dirs()? {
        if let Some(pkg) = read(root, dir, &key, kind, reporter) {
            out.push(pkg);
        }
    }
    out.sort_by(|a, b| (&a.name, &a.version).cmp(&(&b.name, &b.version)));
    Ok(out)
}

/// One name directory of [`scan`]: its packages read now, or as the last
/// manifest rendered them.
#[derive(Debug)]
pub struct Scanned {
    /// None: the name of the cache's `kept` name directory.
    name: Option<String>,
    /// The cache's name directory whose packages are taken as they were.
    pub kept: Option<usize>,
    /// Packages read now, sorted by version.
    pub read: Vec<Package>,
    /// Its stamp, where it may be trusted next time.
    stamp: Option<Stamp>,
    /// Its stamp is the cache's, as it was (not parsed unless asked for).
    remembered: bool,
}

impl Scanned {
    pub fn name<'a>(&'a self, cache: &'a Cache) -> &'a str {
        match (&self.name, self.kept) {
            (Some(name), _) => name,
            (None, Some(kept)) => cache.name(kept),
            (None, None) => unreachable!("a scanned name is named or kept"),
        }
    }

    /// A name directory read again.
    fn read(name: String) -> Scanned {
        Scanned {
            name: Some(name),
            kept: None,
            read: Vec::new(),
            stamp: None,
            remembered: false,
        }
    }

    /// Its stamp, where it may be trusted next time.
    pub fn stamp(&self, cache: &Cache) -> Option<Stamp> {
        match (self.remembered, self.kept) {
            (true, Some(i)) => cache.stamp(i),
            _ => self.stamp,
        }
    }

    /// Whether it may be trusted next time.
    pub fn trusted(&self) -> bool {
        self.remembered || self.stamp.is_some()
    }
}

/// The packages of a root, by name directory, sorted by name: those of the
/// name directories that changed since the last manifest read again, the
/// others taken from it as they were.
#[derive(Debug, Default)]
pub struct Scan {
    pub names: Vec<Scanned>,
}

/// What a command changed in tools_dir, as far as the manifest cares.
#[derive(Debug, Clone, Default)]
pub enum Changes {
    /// Not known (a command interrupted before is being recovered): every
    /// name directory is listed and stamped.
    #[default]
    Unknown,
    /// tools_dir's stamp before the command changed anything, and the name
    /// directories it changed (its journal's steps).
    Known {
        at_start: Option<ToolsDir>,
        names: BTreeSet<String>,
    },
}

/// The name directories of `root` to [`scan`], each with its stamp.
///
/// A command that knows what it changed (`changes`) stamps only the name
/// directories it changed, and those the cache does not trust: any other
/// is taken to be as the last command left it, as cargo and uv take what
/// they installed (docs/manifest.md says what this leaves to `orla list`
/// and `orla verify`). tools_dir is not even listed when it is as the last
/// command left it (its stamp at this command's start is the cache's):
/// the names are the cache's and those this command changed.
pub fn names(
    root: &InstallRoot,
    cache: &Cache,
    changes: &Changes,
) -> Result<Vec<Named>, StoreError> {
    let Changes::Known { at_start, names } = changes else {
        return stamped(root);
    };
    // The cache's `i`th name, if this command did not change it and the
    // cache trusts it.
    let trusted = |i: usize| cache.trusts(i) && !names.contains(cache.name(i));
    if !cache.lists(*at_start) {
        return Ok(root
            .name_dirs()?
            .into_iter()
            .map(|dir| match cache.find(&dir.name).filter(|i| trusted(*i)) {
                Some(i) => Named::Remembered(i),
                None => {
                    let stamp = stamp_of(&dir);
                    Named::Dir(dir, stamp)
                }
            })
            .collect());
    }
    // The cache's names and the command's, both sorted, merged.
    let mut out = Vec::with_capacity(cache.len() + names.len());
    let mut changed = names.iter().map(String::as_str).peekable();
    let stat_now = |name: &str, out: &mut Vec<Named>| {
        // Changed by this command, or not trusted: it may be gone.
        let dir = NameDir::named(root, name);
        match dir.metadata() {
            Ok(meta) if meta.is_dir() => out.push(Named::Dir(dir, Stamp::from_metadata(&meta))),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => out.push(Named::Dir(dir, None)),
        }
    };
    for i in 0..cache.len() {
        let name = cache.name(i);
        while let Some(new) = changed.next_if(|new| *new < name) {
            stat_now(new, &mut out);
        }
        if changed.next_if_eq(&name).is_none() && trusted(i) {
            out.push(Named::Remembered(i));
        } else {
            stat_now(name, &mut out);
        }
    }
    for new in changed {
        stat_now(new, &mut out);
    }
    Ok(out)
}

/// A name directory to [`scan`].
pub enum Named {
    /// The cache's `i`th, taken as the last command left it.
    Remembered(usize),
    /// One to compare with the cache by its stamp (None: read it again).
    Dir(NameDir, Option<Stamp>),
}

fn stamp_of(dir: &NameDir) -> Option<Stamp> {
    dir.metadata().ok().and_then(|m| Stamp::from_metadata(&m))
}

/// Every name directory of `root` with its stamp (see [`scan`]): one
/// `stat` per name, what a command costs most per tool of a big root. (From
/// two threads it measured no faster on 2 cores: docs/benchmarks.md.)
pub fn stamped(root: &InstallRoot) -> Result<Vec<Named>, StoreError> {
    let names = root.name_dirs()?;
    Ok(names
        .into_iter()
        .map(|name| {
            let stamp = stamp_of(&name);
            Named::Dir(name, stamp)
        })
        .collect())
}

/// Every package of `root` as [`packages`] gives it, reading only the name
/// directories that changed since the manifest `cache` describes. `names`
/// are the root's name directories as [`stamped`] gives them, stamped
/// before any is read: a change after that is seen next time.
pub fn scan(
    root: &InstallRoot,
    cache: &Cache,
    names: Vec<Named>,
    reporter: &dyn Reporter,
) -> Result<Scan, StoreError> {
    let key = root.key_state();
    let kind = RootKindName::from(root.kind);
    let now = now_ns();
    let mut out = Vec::with_capacity(names.len());
    let mut elsewhere = Vec::new();
    // Both are sorted by name: the cache is walked alongside.
    let mut known = 0;
    for named in names {
        let (name, stamp) = match named {
            Named::Remembered(i) => {
                out.push(Scanned {
                    name: None,
                    kept: Some(i),
                    read: Vec::new(),
                    stamp: None,
                    remembered: true,
                });
                known = i + 1;
                continue;
            }
            Named::Dir(name, stamp) => (name, stamp),
        };
        while known < cache.len() && cache.name(known) < name.name.as_str() {
            known += 1;
        }
        if known < cache.len() && cache.name(known) == name.name && cache.unchanged(known, stamp) {
            out.push(Scanned {
                name: None,
                kept: Some(known),
                read: Vec::new(),
                stamp,
                remembered: false,
            });
            continue;
        }
        let mut clean = cache.enabled();
        let mut scanned = Scanned::read(name.name.clone());
        for (_, dir) in name.versions()? {
            match read(root, dir, &key, kind, reporter) {
                Some(pkg) if pkg.name == name.name => scanned.read.push(pkg),
                Some(pkg) => {
                    // Its receipt names another tool: neither name is
                    // trusted as it was.
                    clean = false;
                    elsewhere.push(pkg);
                }
                None => clean = false,
            }
        }
        scanned.stamp = stamp.filter(|s| clean && s.settled(now));
        out.push(scanned);
    }
    if !elsewhere.is_empty() {
        out = moved_in(cache, out, elsewhere);
    }
    Ok(Scan { names: out })
}

/// `names` with the packages `elsewhere` (found in another tool's name
/// directory) under the names their receipts give, neither name trusted
/// next time. A name the cache remembers keeps its remembered packages
/// beside the newcomer.
fn moved_in(cache: &Cache, names: Vec<Scanned>, elsewhere: Vec<Package>) -> Vec<Scanned> {
    let mut by_name: std::collections::BTreeMap<String, Scanned> = names
        .into_iter()
        .map(|s| (s.name(cache).to_string(), s))
        .collect();
    for pkg in elsewhere {
        let target = by_name
            .entry(pkg.name.clone())
            .or_insert_with(|| Scanned::read(pkg.name.clone()));
        target.stamp = None;
        target.remembered = false;
        target.read.push(pkg);
        target.read.sort_by(|a, b| a.version.cmp(&b.version));
    }
    by_name.into_values().collect()
}

/// The package at `dir`, if it is bound to this root and can run; else
/// why not is reported.
fn read(
    root: &InstallRoot,
    dir: PathBuf,
    key: &KeyState,
    kind: RootKindName,
    reporter: &dyn Reporter,
) -> Option<Package> {
    let pkg = match root.load(dir, key) {
        Ok(pkg) => pkg,
        Err((dir, why)) => {
            reporter.warn(&skipping(&dir, &why));
            return None;
        }
    };
    let entrypoint = pkg
        .dir
        .join(pkg.tool.entrypoint.as_deref().unwrap_or_default());
    if !fs::metadata(&entrypoint).is_ok_and(|m| m.is_file()) {
        reporter.warn(&format!(
            "{} {} is not served: its entrypoint {} was deleted outside orla (`orla install {}@{} --force` restores it)",
            pkg.receipt.name,
            pkg.receipt.version,
            entrypoint.display(),
            pkg.receipt.name,
            pkg.receipt.version
        ));
        return None;
    }
    let entry = tool_entry(&pkg, &entrypoint, kind);
    Some(Package {
        name: pkg.receipt.name,
        version: pkg.receipt.version,
        entry,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`names`] found: each name, and its stamp taken now, or None
    /// where the cache's entry is taken as it was.
    fn seen(cache: &Cache, found: Vec<Named>) -> Vec<(String, Option<Option<Stamp>>)> {
        found
            .into_iter()
            .map(|named| match named {
                Named::Remembered(i) => (cache.name(i).to_string(), None),
                Named::Dir(dir, stamp) => (dir.name, Some(stamp)),
            })
            .collect()
    }

    #[test]
    fn a_command_stamps_only_what_it_changed_and_lists_tools_dir_only_when_it_changed() {
        let home = tempfile::tempdir().unwrap();
        let root = InstallRoot::global(home.path());
        for name in ["a", "b", "c"] {
            fs::create_dir_all(root.tools_dir.join(name)).unwrap();
        }
        let stat = |name: &str| {
            Some(Stamp::from_metadata(
                &fs::metadata(root.tools_dir.join(name)).unwrap(),
            ))
        };
        // Remembered stamps that are not the directories' own, a name with
        // no directory at all, and one the cache does not trust.
        let old = Stamp::from_metadata(&fs::metadata(home.path()).unwrap());
        let remembered = [("a", old), ("b", old), ("ghost", old), ("untrusted", None)];
        let manifest = fs::File::open(home.path()).unwrap();
        let listed = ToolsDir::of(&root.tools_dir);
        let cache = Cache::remembering(&remembered, listed, manifest);
        let changed = |names: &[&str]| Changes::Known {
            at_start: listed,
            names: names.iter().map(|n| n.to_string()).collect(),
        };
        let named = |name: &str, how| (name.to_string(), how);

        // tools_dir as the cache recorded it: not listed (no `c`, `ghost`
        // kept); only what this command changed and what the cache does
        // not trust is stamped (`untrusted` is gone).
        let found = seen(&cache, names(&root, &cache, &changed(&["b"])).unwrap());
        assert_eq!(
            found,
            [
                named("a", None),
                named("b", stat("b")),
                named("ghost", None)
            ]
        );

        // A name this command made is found without a listing too.
        let found = seen(&cache, names(&root, &cache, &changed(&["c"])).unwrap());
        assert_eq!(
            found,
            [
                named("a", None),
                named("b", None),
                named("c", stat("c")),
                named("ghost", None)
            ]
        );

        // tools_dir changed since: listed; what this command did not change
        // is still taken from the cache.
        let moved = Changes::Known {
            at_start: None,
            names: ["b".to_string()].into(),
        };
        let found = seen(&cache, names(&root, &cache, &moved).unwrap());
        assert_eq!(
            found,
            [
                named("a", None),
                named("b", stat("b")),
                named("c", stat("c"))
            ]
        );

        // An interrupted command recovered: every name listed and stamped.
        let found = seen(&cache, names(&root, &cache, &Changes::Unknown).unwrap());
        assert_eq!(
            found,
            [
                named("a", stat("a")),
                named("b", stat("b")),
                named("c", stat("c"))
            ]
        );
    }

    #[test]
    fn a_root_is_stamped_whole_and_in_order() {
        let home = tempfile::tempdir().unwrap();
        let root = InstallRoot::global(home.path());
        let count = 301;
        for i in 0..count {
            fs::create_dir_all(root.tools_dir.join(format!("tool-{i:04}"))).unwrap();
        }
        let stamped = stamped(&root).unwrap();
        assert_eq!(stamped.len(), count);
        for (i, named) in stamped.iter().enumerate() {
            let Named::Dir(name, stamp) = named else {
                panic!("a listing names directories");
            };
            assert_eq!(name.name, format!("tool-{i:04}"));
            let meta = fs::metadata(root.tools_dir.join(&name.name)).unwrap();
            assert_eq!(*stamp, Stamp::from_metadata(&meta));
        }
    }
}
