//! The install receipt: what orla installed, from where, with which digest,
//! and the digest of every file, kept at `<package>/.orla-receipt.json`.
//!
//! The receipt lives inside the package directory so that it appears in the
//! same atomic rename as the package: there is never a package without its
//! receipt, nor a receipt without its package. Archives may not contain this
//! name (unpack refuses it).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

pub use crate::package::RECEIPT_FILE;
pub use crate::unpack::FileRecord;
use crate::verify::Digest;

pub const RECEIPT_VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Receipt {
    pub receipt_version: u32,
    pub name: String,
    pub version: semver::Version,
    pub source: Source,
    /// Seconds since the Unix epoch.
    pub installed_at: u64,
    pub files: BTreeMap<String, FileRecord>,
    /// Fields written by a newer orla, kept as they were.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// From a registry index, by version record.
    Registry,
    /// `orla install --local PATH`.
    Local,
    /// An RFC 3 git-source tool: a tag of a git repository.
    Git,
    /// Never in a receipt: a loose executable of a project's tools_dir,
    /// found by RFC 1 discovery and listed in the manifest with this source
    /// (`path`, and `blake3` and `size` of the file).
    Discovered,
}

/// Where an installed package came from.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Source {
    pub kind: SourceKind,
    /// The registry name (`builtin`, or its location).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registry: Option<String>,
    /// The local path a `--local` install came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Where the archive was fetched from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive: Option<String>,
    /// BLAKE3 of the archive bytes; for a git source, the tree digest
    /// (see `fetch::git`), and `size` the total size of its files.
    pub blake3: Digest,
    pub size: u64,
    /// Git sources: the repository URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    /// Git sources: the tag installed (`vX.Y.Z`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// Git sources: the commit id the tag pointed at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl Receipt {
    pub fn read(package_dir: &Path) -> Result<Receipt, String> {
        let path = package_dir.join(RECEIPT_FILE);
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn write(&self, package_dir: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).expect("receipt serialises");
        crate::fs::write_synced(&package_dir.join(RECEIPT_FILE), text.as_bytes())
    }
}
