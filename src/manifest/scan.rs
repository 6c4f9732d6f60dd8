//! The packages a root's manifest is derived from: every package directory
//! read, checked and derived again ([`packages`]), or only those of the
//! name directories that changed since the last manifest, the others taken
//! from it as they were ([`scan`], see `cache`).

use std::fs;
use std::path::PathBuf;

use super::cache::{Cache, Stamp};
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
    pub stamp: Option<Stamp>,
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
        }
    }
}

/// The packages of a root, by name directory, sorted by name: those of the
/// name directories that changed since the last manifest read again, the
/// others taken from it as they were.
#[derive(Debug, Default)]
pub struct Scan {
    pub names: Vec<Scanned>,
}

/// Every name directory of `root` with its stamp (see [`scan`]): one
/// `stat` per name, what a command costs most per tool of a big root. (From
/// two threads it measured no faster on 2 cores: docs/benchmarks.md.)
pub fn stamped(root: &InstallRoot) -> Result<Vec<(NameDir, Option<Stamp>)>, StoreError> {
    let names = root.name_dirs()?;
    Ok(names
        .into_iter()
        .map(|name| {
            let stamp = name.metadata().ok().and_then(|m| Stamp::from_metadata(&m));
            (name, stamp)
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
    names: Vec<(NameDir, Option<Stamp>)>,
    reporter: &dyn Reporter,
) -> Result<Scan, StoreError> {
    let key = root.key_state();
    let kind = RootKindName::from(root.kind);
    let now = now_ns();
    let mut out = Vec::with_capacity(names.len());
    let mut elsewhere = Vec::new();
    // Both are sorted by name: the cache is walked alongside.
    let mut known = 0;
    for (name, stamp) in names {
        while known < cache.len() && cache.name(known) < name.name.as_str() {
            known += 1;
        }
        if known < cache.len() && cache.name(known) == name.name && cache.unchanged(known, stamp) {
            out.push(Scanned {
                name: None,
                kept: Some(known),
                read: Vec::new(),
                stamp,
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
        for (i, (name, stamp)) in stamped.iter().enumerate() {
            assert_eq!(name.name, format!("tool-{i:04}"));
            let meta = fs::metadata(root.tools_dir.join(&name.name)).unwrap();
            assert_eq!(*stamp, Stamp::from_metadata(&meta));
        }
    }
}
