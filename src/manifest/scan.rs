//! The packages a root's manifest is derived from: each package directory's
//! manifest entry, from the cache (see `cache`) when its files did not
//! change, else read, checked and derived again.

use std::fs;

use super::cache::{now_ns, Cache, Remembered, Stamp};
use super::{tool_entry, RootKindName, ToolEntry};
use crate::package::TOOL_YAML;
use crate::progress::Reporter;
use crate::root::receipt::RECEIPT_FILE;
use crate::root::{skipping, InstallRoot, StoreError};

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
/// --force` or `orla uninstall` to fix). Also the cache as this scan
/// leaves it, for a caller holding the root's lock to [`Cache::save`].
pub fn packages(
    root: &InstallRoot,
    reporter: &dyn Reporter,
) -> Result<(Vec<Package>, Cache), StoreError> {
    let key = root.key_state();
    let mut cache = Cache::load(root, &key);
    let now = now_ns();
    let kind = RootKindName::from(root.kind);
    let mut out = Vec::new();
    for (_, _, dir) in root.package_dirs()? {
        // Stamped before they are read: a change after this is seen next time.
        let receipt = Stamp::of(&dir.join(RECEIPT_FILE));
        let tool_yaml = Stamp::of(&dir.join(TOOL_YAML));
        if let Some(found) = cache.lookup(&dir, receipt, tool_yaml) {
            if let Ok(version) = semver::Version::parse(&found.entry.version) {
                let entry = found.entry.clone();
                cache.keep_remembered(dir);
                out.push(Package {
                    name: entry.name.clone(),
                    version,
                    entry,
                });
                continue;
            }
        }
        let pkg = match root.load(dir, &key) {
            Ok(pkg) => pkg,
            Err((dir, why)) => {
                reporter.warn(&skipping(&dir, &why));
                continue;
            }
        };
        let entrypoint = pkg
            .dir
            .join(pkg.tool.entrypoint.as_deref().unwrap_or_default());
        let Some(meta) = fs::metadata(&entrypoint).ok().filter(|m| m.is_file()) else {
            reporter.warn(&format!(
                "{} {} is not served: its entrypoint {} was deleted outside orla (`orla install {}@{} --force` restores it)",
                pkg.receipt.name,
                pkg.receipt.version,
                entrypoint.display(),
                pkg.receipt.name,
                pkg.receipt.version
            ));
            continue;
        };
        let entry = tool_entry(&pkg, &entrypoint, kind);
        if let (Some(receipt), Some(tool_yaml), Some(entrypoint)) =
            (receipt, tool_yaml, Stamp::from_metadata(&meta))
        {
            let found = Remembered {
                receipt,
                tool_yaml,
                entrypoint,
                entry: entry.clone(),
            };
            cache.keep(pkg.dir.clone(), found, now);
        }
        out.push(Package {
            name: pkg.receipt.name,
            version: pkg.receipt.version,
            entry,
        });
    }
    out.sort_by(|a, b| (&a.name, &a.version).cmp(&(&b.name, &b.version)));
    Ok((out, cache))
}
