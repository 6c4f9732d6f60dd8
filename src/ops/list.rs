//! The manifest as it stands now, for `orla list`: read as it is when it is
//! current, written again first when an interrupted command left it
//! behind, when a project's inputs changed behind orla's back (orla.yaml
//! edited, an executable dropped into tools_dir, a global install) or when
//! it is damaged. A manifest from a newer orla is refused, never downgraded.

use std::path::Path;

use crate::manifest::{Inputs, InstalledEntry, Listing, Manifest};
use crate::progress::{Event, Reporter, Warning};
use crate::root::{InstallRoot, StoreError};

use crate::store::Store;

pub fn current(root: &InstallRoot, reporter: &dyn Reporter) -> Result<Listing, StoreError> {
    if root.needs_recovery() {
        return Ok(Store::open(root, reporter)?.sync_manifest(reporter)?.into());
    }
    match Listing::read(root) {
        Ok(listing) if !listing.root.is_stale(root) => Ok(listing),
        Ok(_) => refreshed(root, reporter),
        Err(e @ StoreError::Manifest { newer: false, .. }) => {
            reporter.report(Event::Warning(Warning::ManifestRewritten {
                problem: e.to_string(),
            }));
            refreshed(root, reporter)
        }
        Err(e) => Err(e),
    }
}

/// The manifest regenerated; when the root cannot be written (a project in
/// a read-only checkout), what it would hold.
fn refreshed(root: &InstallRoot, reporter: &dyn Reporter) -> Result<Listing, StoreError> {
    match Store::open(root, reporter) {
        Ok(store) => Ok(store.sync_manifest(reporter)?.into()),
        Err(e) => {
            reporter.report(Event::Warning(Warning::ManifestNotRefreshed {
                problem: e.to_string(),
            }));
            let installed = crate::manifest::packages(root, reporter)?;
            let inputs = Inputs::gather(root, reporter);
            inputs.report_unserved(root, reporter);
            Ok(Manifest::generate_with(root, &installed, &inputs, reporter).into())
        }
    }
}

/// Whether each entry's entrypoint is gone (deleted outside orla; the
/// entrypoint is inside the package directory, so one check answers both).
pub fn missing(entries: &[InstalledEntry]) -> Vec<bool> {
    entries
        .iter()
        .map(|e| !Path::new(&e.entrypoint).exists())
        .collect()
}

/// `list --json`'s rows, one on each line: each entry as the manifest has
/// it, and `missing: true` when its package was deleted outside orla.
pub fn to_json(entries: &[InstalledEntry], missing: &[bool]) -> String {
    #[derive(serde::Serialize)]
    struct Row<'a> {
        #[serde(flatten)]
        entry: &'a InstalledEntry,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        missing: bool,
    }
    let rows: Vec<Row> = entries
        .iter()
        .zip(missing)
        .map(|(entry, &missing)| Row { entry, missing })
        .collect();
    crate::manifest::layout::to_string(&rows, 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::RootKindName;
    use crate::package::{Mode, RiskLevel};
    use crate::root::receipt::Source;

    fn entry(dir: &Path, name: &str) -> InstalledEntry {
        InstalledEntry {
            name: name.into(),
            root: RootKindName::Global,
            version: "1.0.0".into(),
            description: "a \"quoted\"\n description".into(),
            path: dir.join(name).display().to_string(),
            entrypoint: dir.join(name).join("run").display().to_string(),
            mode: Mode::Simple,
            active: true,
            permissions: vec!["filesystem:read".into()],
            permissions_declared: true,
            risk_level: RiskLevel::Low,
            source: Source::Local {
                path: "/src".into(),
                blake3: crate::verify::Digest::of(name.as_bytes()),
                size: 3,
                extra: Default::default(),
            },
        }
    }

    #[test]
    fn rows_are_the_entries_one_per_line_and_only_the_missing_are_marked() {
        let dir = tempfile::tempdir().unwrap();
        let entries: Vec<InstalledEntry> = ["a", "b", "c"]
            .iter()
            .map(|n| entry(dir.path(), n))
            .collect();
        std::fs::create_dir_all(dir.path().join("b")).unwrap();
        std::fs::write(dir.path().join("b/run"), "").unwrap();
        let missing = missing(&entries);
        assert_eq!(missing, [true, false, true]);
        let text = to_json(&entries, &missing);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5, "{text}");
        let rows: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
        for (row, (entry, missing)) in rows.iter().zip(entries.iter().zip(missing)) {
            assert_eq!(row["name"], entry.name.as_str());
            assert_eq!(row.get("missing").is_some(), missing);
        }
    }
}
