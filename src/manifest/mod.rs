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
//! - `manifest_version`: 1. A runtime must refuse a version it does not know.
//! - `tools`: what the runtime serves, one entry per tool name (the active
//!   version: the newest installed), with absolute paths, the interpreter from
//!   the entrypoint's `#!` line (RFC 1 4.3), args, env, mode, timeouts,
//!   hot_load, retry, input/output JSON Schema, permissions, risk level and
//!   source.
//! - `installed`: every installed name and version, with `active`; this is
//!   what `orla list` prints, so listing never touches the packages.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::package::{risk, schema, validate, Mode, RiskLevel};
use crate::store::receipt::Source;
use crate::store::{InstallRoot, Installed, RootKind, StoreError};

pub const MANIFEST_FILE: &str = "manifest.json";
pub const MANIFEST_VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub manifest_version: u32,
    pub generator: String,
    pub root: RootInfo,
    pub tools: Vec<ToolEntry>,
    pub installed: Vec<InstalledEntry>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RootInfo {
    pub kind: RootKindName,
    pub tools_dir: String,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RootKindName {
    Global,
    Project,
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
    pub version: String,
    pub description: String,
    /// Absolute path of the package directory.
    pub path: String,
    /// Absolute path of the entrypoint.
    pub entrypoint: String,
    /// From the entrypoint's `#!` line (`bash`, `python3`); null for a binary.
    pub interpreter: Option<String>,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub mode: Mode,
    pub timeout_ms: Option<u64>,
    pub startup_timeout_ms: Option<u64>,
    pub hot_load: Option<HotLoadEntry>,
    pub retry: Option<RetryEntry>,
    pub input_schema: Value,
    pub output_schema: Option<Value>,
    pub permissions: Vec<String>,
    pub risk_level: RiskLevel,
    /// The openwop safetyTier: pure, read, write or exec.
    pub safety_tier: String,
    pub source: Source,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct HotLoadEntry {
    /// Absolute paths.
    pub watch: Vec<String>,
    pub mode: String,
    pub debounce_ms: Option<u64>,
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
    pub version: String,
    pub description: String,
    pub path: String,
    pub entrypoint: String,
    pub mode: Mode,
    pub active: bool,
    pub permissions: Vec<String>,
    pub risk_level: RiskLevel,
    pub source: Source,
}

impl Manifest {
    /// The manifest of an empty root.
    pub fn empty(root: &InstallRoot) -> Manifest {
        Manifest::generate(root, &[])
    }

    /// Derives the manifest from the store's contents.
    pub fn generate(root: &InstallRoot, installed: &[Installed]) -> Manifest {
        // The newest installed version of each name is active.
        let mut active: HashMap<&str, &semver::Version> = HashMap::new();
        for pkg in installed {
            let entry = active
                .entry(pkg.receipt.name.as_str())
                .or_insert(&pkg.receipt.version);
            if pkg.receipt.version > **entry {
                *entry = &pkg.receipt.version;
            }
        }
        let mut tools = Vec::new();
        let mut listed = Vec::new();
        for pkg in installed {
            let is_active = active.get(pkg.receipt.name.as_str()) == Some(&&pkg.receipt.version);
            let tool = &pkg.tool;
            let entrypoint = pkg.dir.join(tool.entrypoint.as_deref().unwrap_or_default());
            listed.push(InstalledEntry {
                name: pkg.receipt.name.clone(),
                version: pkg.receipt.version.to_string(),
                description: tool.description.clone().unwrap_or_default(),
                path: display(&pkg.dir),
                entrypoint: display(&entrypoint),
                mode: tool.mode(),
                active: is_active,
                permissions: tool.permissions.clone(),
                risk_level: tool.risk(),
                source: pkg.receipt.source.clone(),
            });
            if is_active {
                tools.push(tool_entry(pkg, &entrypoint));
            }
        }
        Manifest {
            manifest_version: MANIFEST_VERSION,
            generator: format!("orla {}", env!("CARGO_PKG_VERSION")),
            root: RootInfo {
                kind: root.kind.into(),
                tools_dir: display(&root.tools_dir),
            },
            tools,
            installed: listed,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("manifest serialises") + "\n"
    }

    /// Reads a root's manifest; a root with none yet is empty.
    pub fn read(root: &InstallRoot) -> Result<Manifest, StoreError> {
        let path = root.manifest_path();
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Manifest::empty(root)),
            Err(e) => return Err(StoreError::io("cannot read", &path)(e)),
        };
        Manifest::parse(&bytes).map_err(|message| StoreError::Manifest { path, message })
    }

    /// Parses a manifest, refusing versions this orla does not know.
    pub fn parse(bytes: &[u8]) -> Result<Manifest, String> {
        let value: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        match value.get("manifest_version").and_then(Value::as_u64) {
            Some(v) if v == u64::from(MANIFEST_VERSION) => {}
            Some(v) => {
                return Err(format!(
                    "manifest_version {v} is not known to this orla (it reads {MANIFEST_VERSION})"
                ))
            }
            None => return Err("manifest_version is missing".into()),
        }
        serde_json::from_value(value).map_err(|e| e.to_string())
    }
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

fn tool_entry(pkg: &Installed, entrypoint: &Path) -> ToolEntry {
    let tool = &pkg.tool;
    let runtime = tool.runtime.clone().unwrap_or_default();
    let convert =
        |s: &Option<serde_yaml::Value>| s.as_ref().and_then(|s| schema::to_json_schema(s).ok());
    let mcp = tool.mcp.clone().unwrap_or_default();
    let permissions = tool.permissions();
    ToolEntry {
        name: pkg.receipt.name.clone(),
        version: pkg.receipt.version.to_string(),
        description: tool.description.clone().unwrap_or_default(),
        path: display(&pkg.dir),
        entrypoint: display(entrypoint),
        interpreter: validate::read_shebang(entrypoint).and_then(|s| validate::interpreter_of(&s)),
        args: runtime.args.clone(),
        env: runtime.env.clone(),
        mode: tool.mode(),
        timeout_ms: runtime.timeout_ms,
        startup_timeout_ms: runtime.startup_timeout_ms,
        hot_load: runtime.hot_load.as_ref().map(|h| HotLoadEntry {
            watch: h.watch.iter().map(|w| display(&pkg.dir.join(w))).collect(),
            mode: h.mode.clone().unwrap_or_else(|| "restart".into()),
            debounce_ms: h.debounce_ms,
        }),
        retry: runtime.retry.as_ref().map(|r| RetryEntry {
            max_attempts: r.max_attempts.unwrap_or(1),
            backoff_ms: r
                .backoff
                .as_deref()
                .and_then(validate::parse_duration_ms)
                .unwrap_or(0),
            max_backoff_ms: r
                .max_backoff
                .as_deref()
                .and_then(validate::parse_duration_ms),
            jitter: match r.jitter {
                Some(crate::package::Jitter::Full) => "full",
                Some(crate::package::Jitter::Equal) => "equal",
                _ => "none",
            }
            .into(),
        }),
        input_schema: convert(&mcp.input_schema)
            .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}})),
        output_schema: convert(&mcp.output_schema),
        permissions: tool.permissions.clone(),
        risk_level: tool.risk(),
        safety_tier: risk::safety_tier(&permissions).into(),
        source: pkg.receipt.source.clone(),
    }
}
