//! The runtime manifest: the one file an MCP runtime reads.
//!
//! # Format (mirrored in docs/manifest.md and docs/manifest.schema.json)
//!
//! `<state_dir>/manifest.json` (`~/.orla/manifest.json` globally,
//! `<project>/.orla/manifest.json` in a project), written atomically after
//! every change to the store. It is derived entirely from the store, so it
//! can always be regenerated, and a runtime never scans package directories
//! or parses tool.yaml itself.
//!
//! - `manifest_version`: 2. A runtime must refuse a version it does not know
//!   (version 1 lacked how arguments are passed, so a v1 reader must not
//!   guess at a v2 file, nor the reverse).
//! - `tools`: what the runtime serves, one entry per tool name (the active
//!   version, see below), with absolute paths, the interpreter from
//!   the entrypoint's `#!` line (RFC 1 4.3) and the full `command` line that
//!   runs it (see `command`), the argument convention (`flags` or `json`),
//!   the working directory, args, env, mode, the capsule framing, timeouts,
//!   hot_load, retry, input/output JSON Schema, permissions, risk level and
//!   source.
//! - `installed`: every installed name and version, with `active`; this is
//!   what `orla list` prints, so listing never touches the packages.
//! - `settings`: the RFC 1 options (port, timeout, log format and level),
//!   from a project's orla.yaml or the defaults.
//!
//! The active version of a tool is the one `orla use` pinned, else (in a
//! project) the one orla.lock pins, else the newest installed stable
//! version, else the newest installed pre-release (as `latest` selects).
//!
//! A project's manifest also lists the loose executables of its tools_dir
//! (RFC 1 discovery, `source.kind: discovered`; an installed package of the
//! same name wins) and, after the project's own tools, the global tools no
//! project tool shadows (RFC 3 9.1), each entry saying its `root`.
//! `root.inputs` digests what else the manifest was derived from, so that
//! orla notices when a project's manifest is stale (see `inputs`).
//!
//! It is derived whole from the store on every change (`generate`) and
//! replaced atomically (temporary file, flush, rename).

mod command;
mod generate;
mod inputs;
pub mod layout;

pub use command::command_line;
pub use generate::{package_entry, packages, PackageEntry};
pub use inputs::{fingerprint, Inputs};

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::package::{Arguments, IsolationMode, Mode, RiskLevel, SafetyTier};
use crate::project::Settings;
use crate::root::receipt::Source;
use crate::root::{InstallRoot, RootKind, StoreError};

pub use crate::root::MANIFEST_FILE;
pub const MANIFEST_VERSION: u32 = 2;
/// The depth of the manifest's entries, each on one line (see `layout`).
const ENTRIES_FLAT: usize = 3;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub manifest_version: u32,
    pub generator: String,
    pub root: RootInfo,
    #[serde(default)]
    pub settings: Settings,
    pub tools: Vec<ToolEntry>,
    pub installed: Vec<InstalledEntry>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RootInfo {
    pub kind: RootKindName,
    pub tools_dir: String,
    /// The project directory (project roots only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_dir: Option<String>,
    /// Digest of the other inputs of a project's manifest (see `inputs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<String>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum RootKindName {
    #[default]
    Global,
    Project,
}

impl RootKindName {
    pub fn as_str(self) -> &'static str {
        match self {
            RootKindName::Global => "global",
            RootKindName::Project => "project",
        }
    }
}

impl From<RootKind> for RootKindName {
    fn from(kind: RootKind) -> Self {
        match kind {
            RootKind::Global => RootKindName::Global,
            RootKind::Project => RootKindName::Project,
        }
    }
}

/// One tool the runtime serves.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ToolEntry {
    pub name: String,
    /// The root the tool is installed in: a project's manifest also serves
    /// global tools.
    #[serde(default)]
    pub root: RootKindName,
    pub version: String,
    pub description: String,
    /// Absolute path of the package directory.
    pub path: String,
    /// Absolute path of the entrypoint.
    pub entrypoint: String,
    /// From the entrypoint's `#!` line (`bash`, `python3`); null for a binary.
    pub interpreter: Option<String>,
    /// The argv that runs the entrypoint: interpreter, its options, the
    /// entrypoint (see `command`). `args` and the call's arguments follow.
    pub command: Vec<String>,
    /// How a simple tool receives a call's arguments.
    pub arguments: Arguments,
    /// Absolute directory the tool runs in.
    pub working_dir: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub mode: Mode,
    /// How to talk to a capsule; null for a simple tool.
    pub capsule: Option<CapsuleEntry>,
    pub timeout_ms: Option<u64>,
    pub startup_timeout_ms: Option<u64>,
    pub hot_load: Option<HotLoadEntry>,
    pub retry: Option<RetryEntry>,
    pub input_schema: Value,
    pub output_schema: Option<Value>,
    pub permissions: Vec<String>,
    /// False when tool.yaml has no `permissions` key (and for discovered
    /// executables): the tool may do anything. Written only when false.
    #[serde(default = "declared", skip_serializing_if = "is_declared")]
    pub permissions_declared: bool,
    pub risk_level: RiskLevel,
    /// The openwop safetyTier: pure, read, write or exec.
    pub safety_tier: SafetyTier,
    /// Resolved from orla.yaml / config.yaml `runtime.tools`, tool.yaml
    /// `runtime.isolation_mode` and the risk (see `generate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation_mode: Option<IsolationMode>,
    /// The server's variables the tool also gets (`runtime.pass_env`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pass_env: Vec<String>,
    /// Each call needs a person's approval (critical risk, or
    /// `approval: required`, unless config.yaml pre-approves it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub approval_required: bool,
    pub source: Source,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct HotLoadEntry {
    /// Absolute paths.
    pub watch: Vec<String>,
    pub mode: String,
    pub debounce_ms: Option<u64>,
}

/// The wire protocol of a capsule (docs/manifest.md, "Capsules").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CapsuleEntry {
    /// `json-lines`: one JSON-RPC 2.0 message per line on stdin and stdout.
    pub framing: String,
    /// The notification the capsule writes first when it is ready.
    pub handshake: String,
    /// The first message a runtime sends, once the handshake arrived: the
    /// first `tools/call` request (no MCP `initialize` precedes it).
    pub first_request: String,
}

impl CapsuleEntry {
    pub fn current() -> CapsuleEntry {
        CapsuleEntry {
            framing: "json-lines".into(),
            handshake: "orla.hello".into(),
            first_request: "tools/call".into(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RetryEntry {
    pub max_attempts: u32,
    pub backoff_ms: u64,
    pub max_backoff_ms: Option<u64>,
    pub jitter: String,
}

/// One installed name and version: what `orla list` shows.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct InstalledEntry {
    pub name: String,
    #[serde(default)]
    pub root: RootKindName,
    pub version: String,
    pub description: String,
    pub path: String,
    pub entrypoint: String,
    pub mode: Mode,
    pub active: bool,
    pub permissions: Vec<String>,
    /// False when tool.yaml has no `permissions` key (and for discovered
    /// executables): the tool may do anything. Written only when false.
    #[serde(default = "declared", skip_serializing_if = "is_declared")]
    pub permissions_declared: bool,
    pub risk_level: RiskLevel,
    pub source: Source,
}

impl Manifest {
    pub fn to_json(&self) -> String {
        layout::to_string(self, ENTRIES_FLAT)
    }

    /// Reads a root's manifest; a root with none yet is empty.
    pub fn read(root: &InstallRoot) -> Result<Manifest, StoreError> {
        read_as(root, Manifest::parse, Manifest::empty)
    }

    /// Whether a project's manifest no longer matches its other inputs
    /// (orla.yaml, orla.lock, pins, the global manifest, loose executables).
    pub fn is_stale(&self, root: &InstallRoot) -> bool {
        self.root.is_stale(root)
    }

    /// Parses a manifest, refusing versions this orla does not know.
    pub fn parse(bytes: &[u8]) -> Result<Manifest, ManifestParseError> {
        if let Some(manifest) = in_one_pass(bytes, |m: &Manifest| (m.manifest_version, m.root.kind))
        {
            return Ok(manifest);
        }
        // Anything else through a `Value`, for its messages and its
        // entries' roots.
        let mut value: Value = serde_json::from_slice(bytes)?;
        match value.get("manifest_version").and_then(Value::as_u64) {
            Some(v) if v == u64::from(MANIFEST_VERSION) => {}
            Some(v) if v > u64::from(MANIFEST_VERSION) => return Err(ManifestParseError::Newer(v)),
            Some(v) => return Err(ManifestParseError::Older(v)),
            None => return Err(ManifestParseError::NoVersion),
        }
        // Entries written before `root` existed belong to the manifest's root.
        let kind = value.pointer("/root/kind").cloned().unwrap_or(Value::Null);
        for list in ["tools", "installed"] {
            if let Some(Value::Array(entries)) = value.get_mut(list) {
                for e in entries.iter_mut().filter_map(Value::as_object_mut) {
                    e.entry("root").or_insert_with(|| kind.clone());
                }
            }
        }
        Ok(serde_json::from_value(value)?)
    }

    /// Refuses a root whose manifest a newer orla wrote (and nothing else:
    /// a damaged manifest is written again). Only its version is kept.
    pub fn refuse_newer(root: &InstallRoot) -> Result<(), StoreError> {
        #[derive(Deserialize)]
        struct VersionOnly {
            manifest_version: Option<u64>,
        }
        let path = root.manifest_path();
        // As this orla writes it, the version comes first: its first line
        // is all that is read.
        let ours = format!("{{\n  \"manifest_version\": {MANIFEST_VERSION},\n");
        let mut start = vec![0; ours.len()];
        let read = std::fs::File::open(&path)
            .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut start));
        if read.is_ok() && start == ours.as_bytes() {
            return Ok(());
        }
        let Ok(bytes) = std::fs::read(&path) else {
            return Ok(());
        };
        match serde_json::from_slice::<VersionOnly>(&bytes) {
            Ok(VersionOnly {
                manifest_version: Some(v),
            }) if v > u64::from(MANIFEST_VERSION) => Err(StoreError::Manifest {
                path,
                newer: true,
                message: ManifestParseError::Newer(v).to_string(),
            }),
            _ => Ok(()),
        }
    }

    /// The version of `name` this root serves from its own packages.
    pub fn served(&self, name: &str) -> Option<semver::Version> {
        let own = self.root.kind;
        self.tools
            .iter()
            .find(|t| t.name == name && t.root == own)
            .and_then(|t| semver::Version::parse(&t.version).ok())
    }
}

/// A manifest without its `tools`: what `orla list` shows, read without
/// building every tool's schemas.
#[derive(Debug, Clone, Deserialize)]
pub struct Listing {
    pub manifest_version: u32,
    pub root: RootInfo,
    pub installed: Vec<InstalledEntry>,
}

impl Listing {
    /// Reads a root's manifest as a listing; a root with none yet is empty.
    pub fn read(root: &InstallRoot) -> Result<Listing, StoreError> {
        read_as(root, Listing::parse, |root| Manifest::empty(root).into())
    }

    /// Parses a manifest as a listing, refusing versions this orla does
    /// not know.
    pub fn parse(bytes: &[u8]) -> Result<Listing, ManifestParseError> {
        match in_one_pass(bytes, |l: &Listing| (l.manifest_version, l.root.kind)) {
            Some(listing) => Ok(listing),
            None => Manifest::parse(bytes).map(Listing::from),
        }
    }
}

/// `bytes` parsed straight into `T` when they are a global manifest of
/// this version, whose entries without a `root` are global as serde
/// defaults them; None for anything else (a project's, whose entries
/// without a `root` are the project's; an unknown version).
fn in_one_pass<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    head: impl Fn(&T) -> (u32, RootKindName),
) -> Option<T> {
    let parsed: T = serde_json::from_slice(bytes).ok()?;
    (head(&parsed) == (MANIFEST_VERSION, RootKindName::Global)).then_some(parsed)
}

/// Reads a root's manifest with `parse`; `empty` gives what a root with
/// none yet has.
fn read_as<T>(
    root: &InstallRoot,
    parse: impl Fn(&[u8]) -> Result<T, ManifestParseError>,
    empty: impl Fn(&InstallRoot) -> T,
) -> Result<T, StoreError> {
    let path = root.manifest_path();
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(empty(root)),
        Err(e) => return Err(StoreError::io("cannot read", &path)(e)),
    };
    parse(&bytes).map_err(|e| StoreError::Manifest {
        path,
        newer: matches!(e, ManifestParseError::Newer(_)),
        message: e.to_string(),
    })
}

impl From<Manifest> for Listing {
    fn from(manifest: Manifest) -> Listing {
        Listing {
            manifest_version: manifest.manifest_version,
            root: manifest.root,
            installed: manifest.installed,
        }
    }
}

/// Why a manifest could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ManifestParseError {
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("manifest_version {0} is not known to this orla (it reads {MANIFEST_VERSION})")]
    Newer(u64),
    #[error("manifest_version {0} is not known to this orla (it reads {MANIFEST_VERSION})")]
    Older(u64),
    #[error("manifest_version is missing")]
    NoVersion,
}

impl RootInfo {
    /// Whether a manifest no longer matches its other inputs (config.yaml;
    /// for a project also orla.yaml, orla.lock, loose executables...).
    pub fn is_stale(&self, root: &InstallRoot) -> bool {
        self.inputs.as_deref() != Some(&fingerprint(root))
    }
}

pub(crate) fn display(path: &Path) -> String {
    path.display().to_string()
}

pub(crate) fn declared() -> bool {
    true
}

pub(crate) fn is_declared(declared: &bool) -> bool {
    *declared
}
