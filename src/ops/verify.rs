//! `orla verify`: installed packages checked against their install receipts.
//!
//! Unpacking records the BLAKE3, size and executable bit of every file it
//! writes in the package's receipt (`.orla-receipt.json`), so a package can
//! be checked later without its archive or the network. Every file is
//! hashed again and compared: a file the receipt does not list is *added*,
//! one it lists but that is gone is *removed*, and one whose bytes, size,
//! mode or type differ is *changed*. The receipt itself is not a package
//! file and is not listed. Links are never followed, so a symbolic link
//! planted in a package is reported, not read through.
//!
//! A package checked out of a git tag (an RFC 3 git-source tool) records
//! the commit and the tree digest of its files (see `fetch::git`); its
//! receipt's file list must still give that digest, so a file list edited
//! to match changed files does not pass; and when the tool's repository is
//! in the cache, the recorded commit's tree must give that digest.

use crate::error::verify::{Failed, Failure, VerifyError};
use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::manifest::{Manifest, RootKindName};
use crate::root::receipt::{FileRecord, Receipt, Source, RECEIPT_FILE};
use crate::root::{InstallRoot, StoreError};

/// How one path differs from the receipt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "change")]
pub enum Change {
    /// On disk, not in the receipt.
    Added,
    /// In the receipt, not on disk.
    Removed,
    /// Present in both, but different.
    Changed {
        /// What differs: `content`, `mode` or `type`.
        what: &'static str,
        expected: String,
        actual: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    pub path: String,
    #[serde(flatten)]
    pub change: Change,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.change {
            Change::Added => write!(f, "added    {}", self.path),
            Change::Removed => write!(f, "removed  {}", self.path),
            Change::Changed {
                what,
                expected,
                actual,
            } => write!(
                f,
                "changed  {} ({what}: expected {expected}, found {actual})",
                self.path
            ),
        }
    }
}

/// The verdict on one installed package.
#[derive(Debug, Clone, Serialize)]
pub struct PackageReport {
    pub name: String,
    pub version: String,
    pub path: PathBuf,
    /// Files the receipt lists.
    pub files: usize,
    pub differences: Vec<Difference>,
    /// Set when the package could not be checked at all (no readable
    /// receipt, or its directory is gone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The manifest lists the package, but its directory is gone.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub missing: bool,
    /// What the tool needs from the machine and does not find (its
    /// interpreter, tool.yaml `dependencies`); filled in by the caller, which
    /// knows `PATH`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmet: Vec<String>,
}

impl PackageReport {
    pub fn ok(&self) -> bool {
        self.error.is_none() && self.differences.is_empty() && self.unmet.is_empty()
    }
}

/// Fails when any report is not ok.
pub fn outcome(reports: &[PackageReport]) -> Result<(), VerifyError> {
    let intact = |r: &PackageReport| r.error.is_none() && r.differences.is_empty();
    let failed: Vec<Failed> = reports
        .iter()
        .filter(|r| !r.ok())
        .map(|r| Failed {
            name: r.name.clone(),
            version: r.version.clone(),
            path: r.path.clone(),
            failure: if intact(r) {
                Failure::Unmet
            } else if r.missing {
                Failure::Missing
            } else if r.error.is_some() {
                Failure::Unreadable
            } else {
                Failure::Changed
            },
        })
        .collect();
    if failed.is_empty() {
        return Ok(());
    }
    let total = reports.len();
    let all_unmet = failed.iter().all(|f| f.failure == Failure::Unmet);
    let any_missing = failed.iter().any(|f| f.failure == Failure::Missing);
    Err(if all_unmet {
        VerifyError::Unmet { total, failed }
    } else if any_missing {
        VerifyError::Missing { total, failed }
    } else {
        VerifyError::Differ { total, failed }
    })
}

/// Checks every installed package of `root`, or only those named `name`.
pub fn verify_root(
    root: &InstallRoot,
    name: Option<&str>,
) -> Result<Vec<PackageReport>, StoreError> {
    let mut reports = Vec::new();
    // The directories the manifest serves from (`InstallRoot::scan` walks
    // the same ones), so nothing served goes unchecked.
    for (tool, version, dir) in root.package_dirs()? {
        let version = version.to_string();
        if name.is_some_and(|n| n != tool) {
            continue;
        }
        let report = match Receipt::read(&dir) {
            Err(e) => PackageReport {
                name: tool,
                version,
                path: dir,
                files: 0,
                differences: Vec::new(),
                error: Some(format!("no readable install receipt ({e})")),
                missing: false,
                unmet: Vec::new(),
            },
            Ok(receipt) => {
                let error = root
                    .check_binding(&dir, &receipt)
                    .err()
                    .map(|why| {
                        format!(
                            "not installed by orla in this root: {why}; {}",
                            crate::root::binding::untrusted_hint(&receipt.name, &receipt.version)
                        )
                    })
                    .or_else(|| git_tree_mismatch(&receipt));
                let differences = verify_package(&dir, &receipt.files)
                    .map_err(StoreError::io("cannot verify", &dir))?;
                PackageReport {
                    name: tool,
                    version,
                    path: dir,
                    files: receipt.files.len(),
                    differences,
                    error,
                    missing: false,
                    unmet: Vec::new(),
                }
            }
        };
        reports.push(report);
    }
    // What the manifest serves but is no longer on disk (deleted behind
    // orla's back): there is nothing to walk, and the runtime would fail.
    if let Ok(manifest) = Manifest::read(root) {
        let own = RootKindName::from(root.kind);
        for e in &manifest.installed {
            let listed = reports
                .iter()
                .any(|r| r.name == e.name && r.version == e.version);
            if e.root != own || e.version.is_empty() || listed || name.is_some_and(|n| n != e.name)
            {
                continue;
            }
            if Path::new(&e.path).exists() {
                continue;
            }
            reports.push(PackageReport {
                name: e.name.clone(),
                version: e.version.clone(),
                path: PathBuf::from(&e.path),
                files: 0,
                differences: Vec::new(),
                error: Some(format!(
                    "missing: the manifest lists it, but {} is gone",
                    e.path
                )),
                missing: true,
                unmet: Vec::new(),
            });
        }
        reports.sort_by(|a, b| {
            let v = |r: &PackageReport| semver::Version::parse(&r.version).ok();
            (&a.name, v(a)).cmp(&(&b.name, v(b)))
        });
    }
    Ok(reports)
}

/// For a package checked out of a git tag: the receipt's file list must
/// still give the tree digest recorded with the commit at install time, so
/// a file list edited to match changed files is caught.
fn git_tree_mismatch(receipt: &Receipt) -> Option<String> {
    let Source::Git {
        blake3,
        repository,
        commit,
        ..
    } = &receipt.source
    else {
        return None;
    };
    let listed = crate::fetch::git::tree_digest(&receipt.files);
    (listed != *blake3).then(|| {
        format!(
            "the receipt's file list gives tree digest {listed}, but commit {commit} of {repository} was installed with tree digest {blake3}"
        )
    })
}

/// For packages checked out of a git tag whose repository is in the cache
/// (never fetched here: verify works offline): the recorded commit's tree
/// must give the recorded tree digest, so a receipt that names another
/// commit than the one installed is caught. Packages already found wrong
/// are left as they are.
pub fn verify_git_commits(reports: &mut [PackageReport], access: &crate::index::GitAccess) {
    let mut access = access.clone();
    access.offline = true;
    for report in reports.iter_mut().filter(|r| r.error.is_none()) {
        let Ok(receipt) = Receipt::read(&report.path) else {
            continue;
        };
        let Source::Git {
            repository: url,
            commit,
            ..
        } = &receipt.source
        else {
            continue;
        };
        let silent = crate::progress::Silent;
        let Ok(repo) = crate::fetch::git::ToolRepo::open(url, &access, &silent) else {
            continue;
        };
        if let Some(digest) = repo.commit_tree_digest(commit) {
            if digest != receipt.source.blake3() {
                report.error = Some(format!(
                    "commit {commit} of {url} has tree digest {digest}, but the receipt records tree digest {}",
                    receipt.source.blake3()
                ));
            }
        }
    }
}

/// Compares the files under `dir` with `expected` (paths relative to `dir`,
/// `/`-separated). Differences come sorted by path.
pub fn verify_package(
    dir: &Path,
    expected: &BTreeMap<String, FileRecord>,
) -> io::Result<Vec<Difference>> {
    let mut found = BTreeMap::new();
    walk(dir, "", &mut found)?;
    let mut out = Vec::new();
    for (path, record) in expected {
        match found.remove(path) {
            None => out.push(Difference {
                path: path.clone(),
                change: Change::Removed,
            }),
            Some(OnDisk::Other(kind)) => out.push(Difference {
                path: path.clone(),
                change: Change::Changed {
                    what: "type",
                    expected: "regular file".into(),
                    actual: kind.into(),
                },
            }),
            Some(OnDisk::File { path: full, mode }) => {
                let expected_mode = if record.executable { 0o755 } else { 0o644 };
                let (digest, size) = crate::verify::hash_reader(fs::File::open(&full)?)?;
                if digest != record.blake3 || size != record.size {
                    out.push(Difference {
                        path: path.clone(),
                        change: Change::Changed {
                            what: "content",
                            expected: format!("{} bytes, blake3 {}", record.size, record.blake3),
                            actual: format!("{size} bytes, blake3 {digest}"),
                        },
                    });
                } else if mode != expected_mode {
                    out.push(Difference {
                        path: path.clone(),
                        change: Change::Changed {
                            what: "mode",
                            expected: format!("{expected_mode:o}"),
                            actual: format!("{mode:o}"),
                        },
                    });
                }
            }
        }
    }
    for path in found.into_keys() {
        out.push(Difference {
            path,
            change: Change::Added,
        });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

enum OnDisk {
    File { path: PathBuf, mode: u32 },
    Other(&'static str),
}

fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, OnDisk>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if prefix.is_empty() && name == RECEIPT_FILE {
            continue;
        }
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let meta = fs::symlink_metadata(entry.path())?;
        let ft = meta.file_type();
        if ft.is_dir() {
            walk(&entry.path(), &rel, out)?;
        } else if ft.is_file() {
            out.insert(
                rel,
                OnDisk::File {
                    path: entry.path(),
                    mode: mode_of(&meta),
                },
            );
        } else {
            let kind = if ft.is_symlink() {
                "symbolic link"
            } else {
                "special file"
            };
            out.insert(rel, OnDisk::Other(kind));
        }
    }
    Ok(())
}

#[cfg(unix)]
fn mode_of(meta: &fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
fn mode_of(meta: &fs::Metadata) -> u32 {
    if meta.permissions().readonly() {
        0o444
    } else {
        0o644
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::Digest;

    #[cfg(unix)]
    #[test]
    fn a_package_directory_the_manifest_serves_through_a_link_is_verified() {
        // scan (what the manifest serves) follows a linked version
        // directory; verify once skipped it and said all was well.
        let tmp = tempfile::tempdir().unwrap();
        let moved = tmp.path().join("moved");
        fs::create_dir_all(&moved).unwrap();
        let receipt = serde_json::json!({
            "receipt_version": 1, "name": "t", "version": "1.0.0", "installed_at": 0,
            "source": {"kind": "local", "path": "t", "blake3": Digest::of(b"").to_hex(), "size": 0},
            "files": {},
        });
        fs::write(moved.join(RECEIPT_FILE), receipt.to_string()).unwrap();
        fs::write(moved.join("planted"), "x").unwrap();
        let root = InstallRoot::global(&tmp.path().join("home"));
        fs::create_dir_all(root.tools_dir.join("t")).unwrap();
        std::os::unix::fs::symlink(&moved, root.tools_dir.join("t/1.0.0")).unwrap();
        let reports = verify_root(&root, None).unwrap();
        assert_eq!(reports.len(), 1);
        assert_eq!(reports[0].differences[0].path, "planted");
        assert_eq!(reports[0].differences[0].change, Change::Added);
    }

    fn record(bytes: &[u8], executable: bool) -> FileRecord {
        FileRecord {
            blake3: Digest::of(bytes),
            size: bytes.len() as u64,
            executable,
        }
    }

    #[cfg(unix)]
    #[test]
    fn reports_added_removed_and_changed_files() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        fs::create_dir_all(p.join("bin")).unwrap();
        fs::write(p.join("tool.yaml"), "a").unwrap();
        fs::set_permissions(p.join("tool.yaml"), fs::Permissions::from_mode(0o644)).unwrap();
        fs::write(p.join("bin/run"), "changed").unwrap();
        fs::set_permissions(p.join("bin/run"), fs::Permissions::from_mode(0o755)).unwrap();
        fs::write(p.join("mode"), "m").unwrap();
        fs::set_permissions(p.join("mode"), fs::Permissions::from_mode(0o4755)).unwrap();
        fs::write(p.join("extra"), "x").unwrap();
        fs::write(p.join(RECEIPT_FILE), "{}").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", p.join("link")).unwrap();

        let expected = BTreeMap::from([
            ("tool.yaml".to_string(), record(b"a", false)),
            ("bin/run".to_string(), record(b"original", true)),
            ("mode".to_string(), record(b"m", false)),
            ("gone".to_string(), record(b"g", false)),
        ]);
        let diffs = verify_package(p, &expected).unwrap();
        let summary: Vec<String> = diffs
            .iter()
            .map(|d| match &d.change {
                Change::Changed { what, .. } => format!("{} {what}", d.path),
                other => format!("{} {other:?}", d.path),
            })
            .collect();
        assert_eq!(
            summary,
            [
                "bin/run content",
                "extra Added",
                "gone Removed",
                "link Added",
                "mode mode"
            ]
        );
    }
}
