//! The packages a root's manifest is derived from: every package directory
//! read, checked and derived again ([`packages`]), or only those of the
//! name directories that changed since the last manifest, the others taken
//! from it as they were ([`scan`], see `cache`).

use std::fs;
use std::path::PathBuf;

use super::cache::{Cache, Remembered, Stamp};
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

/// A package of [`scan`]: read now, or as the last manifest rendered it.
#[derive(Debug, Clone)]
pub enum Scanned {
    Read(Box<Package>),
    Remembered {
        name: String,
        version: semver::Version,
        found: Remembered,
    },
}

impl Scanned {
    pub fn name(&self) -> &str {
        match self {
            Scanned::Read(p) => &p.name,
            Scanned::Remembered { name, .. } => name,
        }
    }

    pub fn version(&self) -> &semver::Version {
        match self {
            Scanned::Read(p) => &p.version,
            Scanned::Remembered { version, .. } => version,
        }
    }
}

/// The packages of a root, and which name directories may be trusted
/// unchanged next time.
#[derive(Debug, Default)]
pub struct Scan {
    /// Sorted by name and version.
    pub packages: Vec<Scanned>,
    /// Each name directory's stamp, where it may be trusted next time.
    pub stamps: std::collections::BTreeMap<String, Option<Stamp>>,
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
    let mut out = Scan::default();
    let mut elsewhere = Vec::new();
    for (name, stamp) in names {
        if let Some(found) = cache.unchanged(&name.name, stamp) {
            let versions: Option<Vec<_>> = found
                .packages
                .iter()
                .map(|p| semver::Version::parse(&p.version).ok())
                .collect();
            if let Some(versions) = versions {
                for (version, found) in versions.into_iter().zip(&found.packages) {
                    out.packages.push(Scanned::Remembered {
                        name: name.name.clone(),
                        version,
                        found: found.clone(),
                    });
                }
                out.stamps.insert(name.name, stamp);
                continue;
            }
        }
        let mut clean = cache.enabled();
        for (_, dir) in name.versions()? {
            match read(root, dir, &key, kind, reporter) {
                Some(pkg) if pkg.name == name.name => {
                    out.packages.push(Scanned::Read(Box::new(pkg)))
                }
                Some(pkg) => {
                    // Its receipt names another tool: neither name is
                    // trusted as it was.
                    clean = false;
                    elsewhere.push(pkg.name.clone());
                    out.packages.push(Scanned::Read(Box::new(pkg)));
                }
                None => clean = false,
            }
        }
        let trusted = stamp.filter(|s| clean && s.settled(now));
        out.stamps.insert(name.name, trusted);
    }
    for name in elsewhere {
        out.stamps.insert(name, None);
    }
    out.packages
        .sort_by(|a, b| (a.name(), a.version()).cmp(&(b.name(), b.version())));
    Ok(out)
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
