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

/// What kind of source a package came from (see [`Source`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    Registry,
    Local,
    Git,
    Discovered,
}

/// Where an installed package came from: one variant per kind, with exactly
/// the fields that kind has. On disk it is one JSON object whose `kind`
/// names the variant (`"registry"`, `"local"`, `"git"`, `"discovered"`),
/// followed by the variant's fields in the order below.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Source {
    /// From a registry index, by version record.
    Registry {
        /// The registry name (`builtin`, or its location).
        registry: String,
        /// Where the archive was fetched from.
        archive: String,
        /// BLAKE3 of the archive bytes.
        blake3: Digest,
        size: u64,
        /// Fields written by a newer orla, kept as they were.
        #[serde(flatten)]
        extra: BTreeMap<String, serde_json::Value>,
    },
    /// `orla install --local PATH`.
    Local {
        /// The local path the install came from.
        path: String,
        /// BLAKE3 of the archive bytes (a directory is packed first).
        blake3: Digest,
        size: u64,
        #[serde(flatten)]
        extra: BTreeMap<String, serde_json::Value>,
    },
    /// An RFC 3 git-source tool: a tag of a git repository.
    Git {
        /// The registry that lists the tool.
        registry: String,
        /// The tree digest (see `fetch::git`) of the checkout.
        blake3: Digest,
        /// The total size of the checked-out files.
        size: u64,
        /// The repository URL.
        repository: String,
        /// The tag installed (`vX.Y.Z`).
        tag: String,
        /// The commit id the tag pointed at.
        commit: String,
        #[serde(flatten)]
        extra: BTreeMap<String, serde_json::Value>,
    },
    /// Never in a receipt: a loose executable of a project's tools_dir,
    /// found by RFC 1 discovery and listed in the manifest with this source.
    Discovered {
        path: String,
        /// BLAKE3 and size of the file.
        blake3: Digest,
        size: u64,
        #[serde(flatten)]
        extra: BTreeMap<String, serde_json::Value>,
    },
}

impl Source {
    pub fn kind(&self) -> SourceKind {
        match self {
            Source::Registry { .. } => SourceKind::Registry,
            Source::Local { .. } => SourceKind::Local,
            Source::Git { .. } => SourceKind::Git,
            Source::Discovered { .. } => SourceKind::Discovered,
        }
    }

    /// BLAKE3 of the archive, the tree of a git checkout, or the discovered
    /// file.
    pub fn blake3(&self) -> Digest {
        match self {
            Source::Registry { blake3, .. }
            | Source::Local { blake3, .. }
            | Source::Git { blake3, .. }
            | Source::Discovered { blake3, .. } => *blake3,
        }
    }

    pub fn size(&self) -> u64 {
        match self {
            Source::Registry { size, .. }
            | Source::Local { size, .. }
            | Source::Git { size, .. }
            | Source::Discovered { size, .. } => *size,
        }
    }

    /// The registry a registry or git source came from.
    pub fn registry(&self) -> Option<&str> {
        match self {
            Source::Registry { registry, .. } | Source::Git { registry, .. } => Some(registry),
            Source::Local { .. } | Source::Discovered { .. } => None,
        }
    }
}

/// A receipt that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReceiptError {
    #[error("{}: {source}", path.display())]
    Read {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: {source}", path.display())]
    Parse {
        path: std::path::PathBuf,
        #[source]
        source: serde_json::Error,
    },
}

impl Receipt {
    /// A receipt of this orla's format for a package installed now.
    pub fn new(
        name: String,
        version: semver::Version,
        source: Source,
        files: BTreeMap<String, FileRecord>,
    ) -> Receipt {
        Receipt {
            receipt_version: RECEIPT_VERSION,
            name,
            version,
            source,
            installed_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or_default(),
            files,
            extra: Default::default(),
        }
    }

    pub fn read(package_dir: &Path) -> Result<Receipt, ReceiptError> {
        let path = package_dir.join(RECEIPT_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(source) => return Err(ReceiptError::Read { path, source }),
        };
        serde_json::from_slice(&bytes).map_err(|source| ReceiptError::Parse { path, source })
    }

    pub fn write(&self, package_dir: &Path) -> std::io::Result<()> {
        crate::fs::write_synced(&package_dir.join(RECEIPT_FILE), self.text().as_bytes())
    }

    /// Writes the receipt without flushing it: for a package the store
    /// flushes before it commits it.
    pub fn write_unflushed(&self, package_dir: &Path) -> std::io::Result<()> {
        std::fs::write(package_dir.join(RECEIPT_FILE), self.text())
    }

    fn text(&self) -> String {
        serde_json::to_string_pretty(self).expect("receipt serialises")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Receipts as orla wrote them before sources were an enum, one per
    /// kind, with fields a newer orla might add (kept as they were).
    const REGISTRY: &str = r#"{
  "receipt_version": 1,
  "name": "fs-read",
  "version": "1.2.1",
  "source": {
    "kind": "registry",
    "registry": "builtin",
    "archive": "builtin:archives/fs-read/fs-read-1.2.1.tar.gz",
    "blake3": "5d0e1b5b0b3a3f6c6f1f0e1b6a0e5b0b9f3c1d2e3f4a5b6c7d8e9f0a1b2c3d4e",
    "size": 1093,
    "mirror": {
      "url": "https://example.org/a.tar.gz"
    }
  },
  "installed_at": 1700000000,
  "files": {
    "run.sh": {
      "blake3": "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
      "size": 0,
      "executable": true
    }
  },
  "signed_by": "someone"
}"#;

    const LOCAL: &str = r#"{
  "receipt_version": 1,
  "name": "mine",
  "version": "0.1.0",
  "source": {
    "kind": "local",
    "path": "./mine",
    "blake3": "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
    "size": 0
  },
  "installed_at": 0,
  "files": {}
}"#;

    const GIT: &str = r#"{
  "receipt_version": 1,
  "name": "fs",
  "version": "0.3.1",
  "source": {
    "kind": "git",
    "registry": "orla",
    "blake3": "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262",
    "size": 4096,
    "repository": "https://example.org/fs.git",
    "tag": "v0.3.1",
    "commit": "0123456789abcdef0123456789abcdef01234567",
    "signature": null
  },
  "installed_at": 1700000001,
  "files": {}
}"#;

    #[test]
    fn receipts_parse_and_serialise_byte_for_byte_as_before() {
        for (text, kind) in [
            (REGISTRY, SourceKind::Registry),
            (LOCAL, SourceKind::Local),
            (GIT, SourceKind::Git),
        ] {
            let receipt: Receipt = serde_json::from_str(text).unwrap();
            assert_eq!(receipt.source.kind(), kind);
            assert_eq!(serde_json::to_string_pretty(&receipt).unwrap(), text);
        }
        let git: Receipt = serde_json::from_str(GIT).unwrap();
        let Source::Git { commit, extra, .. } = &git.source else {
            panic!("a git source");
        };
        assert_eq!(commit, "0123456789abcdef0123456789abcdef01234567");
        assert_eq!(extra["signature"], serde_json::Value::Null);
        assert_eq!(git.source.registry(), Some("orla"));
        assert_eq!(git.source.size(), 4096);
    }

    #[test]
    fn impossible_sources_are_refused() {
        // A git source without its commit, a registry source without its
        // archive, a local source without its path, an unknown kind.
        for (from, to) in [
            (
                "    \"commit\": \"0123456789abcdef0123456789abcdef01234567\",\n",
                "",
            ),
            ("\"tag\"", "\"tags\""),
        ] {
            let text = GIT.replace(from, to);
            assert_ne!(text, GIT);
            let err = serde_json::from_str::<Receipt>(&text).unwrap_err();
            assert!(err.to_string().contains("missing field"), "{err}");
        }
        let text = REGISTRY.replace("\"archive\"", "\"path\"");
        assert!(serde_json::from_str::<Receipt>(&text).is_err());
        let text = LOCAL.replace("\"path\"", "\"registry\"");
        assert!(serde_json::from_str::<Receipt>(&text).is_err());
        let text = LOCAL.replace("\"local\"", "\"floppy\"");
        assert!(serde_json::from_str::<Receipt>(&text).is_err());
    }
}
