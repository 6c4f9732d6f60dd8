//! The files of an index: config.json, per-tool version records, registry.yaml.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::package::names;
use crate::verify::Digest;

/// The index format this orla reads and writes.
pub const INDEX_FORMAT: u32 = 1;

/// What is wrong with an index file; the caller names the registry and
/// the file (`IndexError::Malformed`).
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{source}")]
    Json {
        #[from]
        source: serde_json::Error,
    },
    #[error("{source}")]
    Yaml {
        #[from]
        source: serde_yaml::Error,
    },
    #[error("is not UTF-8")]
    NotUtf8,
    #[error("line {line}: {source}")]
    Line {
        line: usize,
        #[source]
        source: serde_json::Error,
    },
    #[error("line {line}: a record for '{found}' in the file of '{name}'")]
    WrongName {
        line: usize,
        found: String,
        name: String,
    },
    #[error("line {line}: {source}")]
    BadName {
        line: usize,
        #[source]
        source: names::NameError,
    },
    #[error("line {line}: sha256 is not 64 hex characters")]
    BadSha256 { line: usize },
    #[error("line {line}: version {version} appears twice")]
    DuplicateVersion {
        line: usize,
        version: semver::Version,
    },
}

const DEFAULT_ARCHIVE: &str = "archives/{name}/{name}-{version}.tar.gz";

/// `config.json` at the root of an index.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct IndexConfig {
    pub format: u32,
    /// Where archives live: a path relative to the index or an http(s) URL,
    /// with `{name}` and `{version}` filled in.
    #[serde(default = "default_archive")]
    pub archive: String,
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

fn default_archive() -> String {
    DEFAULT_ARCHIVE.to_string()
}

impl Default for IndexConfig {
    fn default() -> IndexConfig {
        IndexConfig {
            format: INDEX_FORMAT,
            archive: default_archive(),
            extra: BTreeMap::new(),
        }
    }
}

impl IndexConfig {
    pub fn parse(bytes: &[u8]) -> Result<IndexConfig, RecordError> {
        Ok(serde_json::from_slice(bytes)?)
    }

    pub fn archive_for(&self, name: &str, version: &str) -> String {
        self.archive
            .replace("{name}", name)
            .replace("{version}", version)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("config serialises") + "\n"
    }
}

/// One published version of a tool: one line of its index file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct VersionRecord {
    pub name: String,
    pub version: semver::Version,
    pub blake3: Digest,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    #[serde(default)]
    pub yanked: bool,
    #[serde(default)]
    pub description: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub permissions: Vec<String>,
}

impl VersionRecord {
    /// Parses a tool's index file: one JSON record per line. Every record
    /// must name `name`, versions may not repeat, and blank lines are skipped.
    pub fn parse_file(bytes: &[u8], name: &str) -> Result<Vec<VersionRecord>, RecordError> {
        let text = std::str::from_utf8(bytes).map_err(|_| RecordError::NotUtf8)?;
        let mut seen = HashSet::new();
        let mut records = Vec::new();
        for (i, text) in text.lines().enumerate() {
            if text.trim().is_empty() {
                continue;
            }
            let line = i + 1;
            let record: VersionRecord =
                serde_json::from_str(text).map_err(|source| RecordError::Line { line, source })?;
            if record.name != name {
                return Err(RecordError::WrongName {
                    line,
                    found: record.name,
                    name: name.to_string(),
                });
            }
            names::validate_name(&record.name)
                .map_err(|source| RecordError::BadName { line, source })?;
            if let Some(sha) = &record.sha256 {
                if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(RecordError::BadSha256 { line });
                }
            }
            // Build metadata does not distinguish versions (SemVer 10): 1.0.0
            // and 1.0.0+b are one version, and two records for it are refused.
            let mut key = record.version.clone();
            key.build = semver::BuildMetadata::EMPTY;
            if !seen.insert(key) {
                return Err(RecordError::DuplicateVersion {
                    line,
                    version: record.version,
                });
            }
            records.push(record);
        }
        Ok(records)
    }

    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("record serialises")
    }
}

/// `registry.yaml` (RFC 3 6.3).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct RegistryYaml {
    #[serde(default = "one")]
    pub version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registry_url: Option<String>,
    #[serde(default)]
    pub tools: Vec<RegistryEntry>,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct RegistryEntry {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// A git repository URL or a download location.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maintainer: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
}

/// A registry.yaml entry as an RFC 3 registry reads it: the listing's
/// fields, and the `versions: [{version, tag}]` list older revisions of the
/// Orla project's registry carry. When present, the list is the set of
/// versions that may be installed.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
pub struct GitSourceEntry {
    #[serde(flatten)]
    pub entry: RegistryEntry,
    #[serde(default)]
    pub versions: Option<Vec<ListedVersion>>,
}

/// One item of an entry's `versions:` list.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct ListedVersion {
    pub version: semver::Version,
    pub tag: String,
}

/// registry.yaml read for its RFC 3 entries (see [`GitSourceEntry`]).
#[derive(Debug, Clone, Default, Deserialize)]
struct GitSourceListing {
    #[serde(default)]
    tools: Vec<GitSourceEntry>,
}

impl GitSourceEntry {
    /// The entries of a registry.yaml, with their `versions:` lists.
    pub fn parse_all(bytes: &[u8]) -> Result<Vec<GitSourceEntry>, RecordError> {
        let listing: GitSourceListing = serde_yaml::from_slice(bytes)?;
        Ok(listing.tools)
    }
}

impl RegistryYaml {
    pub fn parse(bytes: &[u8]) -> Result<RegistryYaml, RecordError> {
        Ok(serde_yaml::from_slice(bytes)?)
    }

    pub fn to_yaml(&self) -> String {
        serde_yaml::to_string(self).expect("registry.yaml serialises")
    }
}

impl crate::resolve::Candidate for VersionRecord {
    fn version(&self) -> &semver::Version {
        &self.version
    }
    fn yanked(&self) -> bool {
        self.yanked
    }
}

/// Where an archive's bytes come from.
#[derive(Debug, Clone)]
pub enum ArchiveLocation {
    /// A file of the built-in registry, compiled into the binary.
    Embedded {
        path: String,
        bytes: &'static [u8],
    },
    /// Bytes already in memory: a local package packed or read for install.
    Memory {
        origin: String,
        bytes: std::sync::Arc<Vec<u8>>,
    },
    File(PathBuf),
    Http(String),
}

impl std::fmt::Display for ArchiveLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArchiveLocation::Embedded { path, .. } => write!(f, "builtin:{path}"),
            ArchiveLocation::Memory { origin, .. } => f.write_str(origin),
            ArchiveLocation::File(p) => write!(f, "{}", p.display()),
            ArchiveLocation::Http(url) => f.write_str(url),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(name: &str, version: &str) -> String {
        format!(
            r#"{{"name":"{name}","version":"{version}","blake3":"{}","size":1}}"#,
            "a".repeat(64)
        )
    }

    #[test]
    fn parses_records_and_skips_blank_lines() {
        let text = format!("{}\n\n{}\n", line("t", "1.0.0"), line("t", "1.1.0"));
        let records = VersionRecord::parse_file(text.as_bytes(), "t").unwrap();
        assert_eq!(records.len(), 2);
        assert!(!records[0].yanked);
        let back = VersionRecord::parse_file(records[1].to_line().as_bytes(), "t").unwrap();
        assert_eq!(back[0], records[1]);
    }

    #[test]
    fn refuses_duplicates_and_foreign_records() {
        let dup = format!("{}\n{}\n", line("t", "1.0.0"), line("t", "1.0.0"));
        assert!(VersionRecord::parse_file(dup.as_bytes(), "t")
            .unwrap_err()
            .to_string()
            .contains("twice"));
        let other = line("u", "1.0.0");
        assert!(VersionRecord::parse_file(other.as_bytes(), "t")
            .unwrap_err()
            .to_string()
            .contains("'u'"));
        assert!(matches!(
            VersionRecord::parse_file(b"{not json", "t"),
            Err(RecordError::Line { line: 1, .. })
        ));
    }

    #[test]
    fn archive_template_is_filled() {
        let config = IndexConfig::default();
        assert_eq!(
            config.archive_for("x", "1.0.0"),
            "archives/x/x-1.0.0.tar.gz"
        );
    }
}
