//! The runtime's own reading of orla's runtime manifest (manifest_version 2,
//! documented in docs/manifest.md with a JSON Schema). Only the fields the
//! runtime uses are modelled; everything else is ignored, so orla may add
//! fields without a new version. A manifest of another version is refused.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::schema::{Compiled, Violations};

/// The manifest version this runtime reads.
pub const MANIFEST_VERSION: u64 = 2;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub manifest_version: u64,
    #[serde(default)]
    pub settings: Settings,
    pub tools: Vec<Tool>,
}

/// The RFC 1 options (orla.yaml in a project, else defaults), and what
/// orla.yaml and config.yaml say about confinement.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Settings {
    pub port: u16,
    pub timeout_ms: u64,
    pub log_format: String,
    pub log_level: String,
    /// What happens to a tool that must be confined where the kernel
    /// cannot confine it.
    pub isolation: Isolation,
    /// The project directory; None for the global root, whose workspace is
    /// the directory the server runs in.
    pub workspace: Option<String>,
    /// Extra trees `filesystem:read` tools may read.
    pub allow_read: Vec<String>,
    /// Extra trees `filesystem:write` tools may write (and read).
    pub allow_write: Vec<String>,
    /// Trees no tool is granted, even inside a grant (orla's own state).
    pub protect: Vec<String>,
    /// The rlimits of `sandboxed` tools.
    pub sandbox_memory_mb: u64,
    pub sandbox_cpu_seconds: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            port: 8080,
            timeout_ms: 30_000,
            log_format: "json".into(),
            log_level: "info".into(),
            isolation: Isolation::Strict,
            workspace: None,
            allow_read: Vec::new(),
            allow_write: Vec::new(),
            protect: Vec::new(),
            sandbox_memory_mb: 512,
            sandbox_cpu_seconds: 60,
        }
    }
}

/// `isolation:` in orla.yaml / config.yaml.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Isolation {
    /// A tool that cannot be confined is refused.
    #[default]
    Strict,
    /// It runs unconfined, with a warning in the log and in its result.
    BestEffort,
}

/// Orloj's `runtime.isolation_mode`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum IsolationMode {
    /// Confined to the declared permissions, no resource limits.
    None,
    /// Also memory and CPU limits, and no new processes without
    /// `process:exec`.
    Sandboxed,
}

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Arguments {
    #[default]
    Flags,
    Json,
}

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Simple,
    Capsule,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Tool {
    pub name: String,
    pub version: String,
    pub description: String,
    pub command: Vec<String>,
    pub arguments: Arguments,
    pub working_dir: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub mode: Mode,
    pub capsule: Option<Capsule>,
    pub timeout_ms: Option<u64>,
    pub startup_timeout_ms: Option<u64>,
    pub hot_load: Option<HotLoad>,
    pub retry: Option<Retry>,
    pub input_schema: Value,
    pub output_schema: Option<Value>,
    pub permissions: Vec<String>,
    /// False when the tool declares no permissions at all (it may do
    /// anything); absent means true.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub permissions_declared: bool,
    /// Absent only in a manifest not written by orla: the most cautious
    /// value then.
    #[serde(default)]
    pub risk_level: Risk,
    #[serde(default)]
    pub safety_tier: SafetyTier,
    pub source: Source,
    /// As orla resolved it (tool.yaml, orla.yaml, config.yaml, the default
    /// from risk); absent: from `risk_level` as Orloj defaults it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation_mode: Option<IsolationMode>,
    /// Names of the server's environment variables the tool also gets.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pass_env: Vec<String>,
    /// Whether a person approves each call (critical risk, or orla.yaml
    /// says so, unless config.yaml pre-approves it): what the exports call
    /// openwop `approval` and Runloop `requires_confirmation`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub approval_required: bool,
    /// The schemas compiled, at the first call (not part of the file).
    #[serde(skip)]
    pub compiled: Compiled,
}

/// The Orloj seed's risk level: tool.yaml's `risk_level`, raised to what
/// the permissions give (docs/manifest.md).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Risk {
    Low,
    Medium,
    High,
    #[default]
    Critical,
}

/// The openwop safetyTier the permissions give (docs/manifest.md).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SafetyTier {
    Pure,
    Read,
    Write,
    #[default]
    Exec,
}

impl Risk {
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
            Risk::Critical => "critical",
        }
    }
}

impl SafetyTier {
    pub fn as_str(self) -> &'static str {
        match self {
            SafetyTier::Pure => "pure",
            SafetyTier::Read => "read",
            SafetyTier::Write => "write",
            SafetyTier::Exec => "exec",
        }
    }
}

impl IsolationMode {
    pub fn as_str(self) -> &'static str {
        match self {
            IsolationMode::None => "none",
            IsolationMode::Sandboxed => "sandboxed",
        }
    }
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Capsule {
    pub framing: String,
    pub handshake: String,
    pub first_request: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct HotLoad {
    pub watch: Vec<String>,
    pub debounce_ms: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Retry {
    pub max_attempts: u32,
    pub backoff_ms: u64,
    pub max_backoff_ms: Option<u64>,
    pub jitter: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Source {
    pub kind: String,
}

/// Why the manifest file cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: {source}", path.display())]
    Invalid {
        path: PathBuf,
        #[source]
        source: ParseError,
    },
}

/// Why the bytes of a manifest are not one this runtime reads.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// Not JSON, or not the shape of a manifest.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("manifest_version {found} is not known to this runtime (it reads {MANIFEST_VERSION})")]
    UnknownVersion { found: u64 },
    #[error("manifest_version is missing")]
    MissingVersion,
}

impl Manifest {
    pub fn read(path: &Path) -> Result<Manifest, ManifestError> {
        let bytes = std::fs::read(path).map_err(|source| ManifestError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Manifest::parse(&bytes).map_err(|source| ManifestError::Invalid {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Parses a manifest, refusing any version but [`MANIFEST_VERSION`].
    pub fn parse(bytes: &[u8]) -> Result<Manifest, ParseError> {
        let value: Value = serde_json::from_slice(bytes)?;
        match value.get("manifest_version").and_then(Value::as_u64) {
            Some(MANIFEST_VERSION) => {}
            Some(found) => return Err(ParseError::UnknownVersion { found }),
            None => return Err(ParseError::MissingVersion),
        }
        Ok(serde_json::from_value(value)?)
    }

    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }
}

impl Tool {
    pub fn is_capsule(&self) -> bool {
        self.mode == Mode::Capsule
    }

    /// The isolation mode: as resolved by orla, else Orloj's default from
    /// risk (`sandboxed` for high and critical). A tool that declared no
    /// permissions keeps running as it always did unless it is set.
    pub fn isolation_mode(&self) -> IsolationMode {
        if let Some(mode) = self.isolation_mode {
            return mode;
        }
        match self.risk_level {
            Risk::High | Risk::Critical if self.permissions_declared => IsolationMode::Sandboxed,
            _ => IsolationMode::None,
        }
    }

    /// Whether the tool runs confined: it declared its permissions, or the
    /// user asked for `sandboxed` (then it gets only what it declared,
    /// which for an undeclared tool is nothing).
    pub fn is_confined(&self) -> bool {
        (self.permissions_declared && self.source.kind != "discovered")
            || self.isolation_mode == Some(IsolationMode::Sandboxed)
    }

    pub fn has(&self, permission: &str) -> bool {
        self.permissions.iter().any(|p| p == permission)
    }

    /// Checks a call's arguments against the input schema.
    pub fn check_input(&self, args: &Value) -> Result<(), Violations> {
        self.compiled
            .check_input(&self.input_schema, self.output_schema.as_ref(), args)
    }

    /// Checks an answer against the output schema (none: anything goes).
    pub fn check_output(&self, value: &Value) -> Result<(), Violations> {
        self.compiled
            .check_output(&self.input_schema, self.output_schema.as_ref(), value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A manifest with every optional field present, so that serialising it
    /// names every field the runtime reads.
    fn full() -> Manifest {
        Manifest {
            manifest_version: MANIFEST_VERSION,
            settings: Settings::default(),
            tools: vec![Tool {
                name: "t".into(),
                version: "1.0.0".into(),
                description: "d".into(),
                command: vec!["/bin/sh".into(), "/t/bin/t".into()],
                arguments: Arguments::Flags,
                working_dir: "/t".into(),
                args: vec!["--fast".into()],
                env: BTreeMap::from([("A".into(), "1".into())]),
                mode: Mode::Capsule,
                capsule: Some(Capsule {
                    framing: "json-lines".into(),
                    handshake: "orla.hello".into(),
                    first_request: "tools/call".into(),
                }),
                timeout_ms: Some(1000),
                startup_timeout_ms: Some(1000),
                hot_load: Some(HotLoad {
                    watch: vec!["/t".into()],
                    debounce_ms: Some(100),
                }),
                retry: Some(Retry {
                    max_attempts: 2,
                    backoff_ms: 10,
                    max_backoff_ms: Some(100),
                    jitter: "none".into(),
                }),
                input_schema: json!({"type": "object"}),
                output_schema: Some(json!({"type": "object"})),
                permissions: vec!["network".into()],
                // false is what gets written (true is left out).
                permissions_declared: false,
                risk_level: Risk::High,
                safety_tier: SafetyTier::Read,
                source: Source {
                    kind: "registry".into(),
                },
                isolation_mode: Some(IsolationMode::Sandboxed),
                pass_env: vec!["GITHUB_TOKEN".into()],
                approval_required: true,
                compiled: Default::default(),
            }],
        }
    }

    /// Fields the runtime reads with a default, so the schema may leave them out.
    const DEFAULTED: [&str; 12] = [
        "isolation",
        "workspace",
        "allow_read",
        "allow_write",
        "protect",
        "sandbox_memory_mb",
        "sandbox_cpu_seconds",
        "permissions_declared",
        "risk_level",
        "isolation_mode",
        "pass_env",
        "approval_required",
    ];

    /// Follows `$ref` (local `#/$defs/...` only) in the published schema.
    fn resolve<'a>(root: &'a Value, mut node: &'a Value) -> &'a Value {
        while let Some(r) = node.get("$ref").and_then(Value::as_str) {
            let pointer = r.trim_start_matches('#');
            node = root
                .pointer(pointer)
                .unwrap_or_else(|| panic!("{r} resolves"));
        }
        node
    }

    /// Every key of `instance` is declared (and required) at the same place
    /// in `schema`; schema-valued fields (input_schema...) are not entered.
    fn check(root: &Value, schema: &Value, instance: &Value, at: &str, missing: &mut Vec<String>) {
        let schema = resolve(root, schema);
        match instance {
            Value::Object(map) => {
                let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                    return;
                };
                let required: Vec<&str> = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                for (key, value) in map {
                    let path = format!("{at}/{key}");
                    match props.get(key) {
                        None => missing.push(path),
                        Some(sub) => {
                            if !required.contains(&key.as_str())
                                && !DEFAULTED.contains(&key.as_str())
                            {
                                missing.push(format!("{path} (not required)"));
                            }
                            check(root, sub, value, &path, missing);
                        }
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item_schema) = schema.get("items") {
                    for (i, item) in items.iter().enumerate() {
                        check(root, item_schema, item, &format!("{at}/{i}"), missing);
                    }
                }
            }
            _ => {}
        }
    }

    #[test]
    fn every_field_the_runtime_reads_is_in_the_published_schema() {
        let text = include_str!("../../docs/manifest.schema.json");
        let schema: Value = serde_json::from_str(text).unwrap();
        let mut instance = serde_json::to_value(full()).unwrap();
        // Fields holding JSON Schema documents are opaque here.
        for key in ["input_schema", "output_schema"] {
            instance["tools"][0][key] = json!({});
        }
        let mut missing = Vec::new();
        check(&schema, &schema, &instance, "", &mut missing);
        assert!(
            missing.is_empty(),
            "not in docs/manifest.schema.json: {missing:?}"
        );
        assert_eq!(
            schema.pointer("/properties/manifest_version/const"),
            Some(&json!(MANIFEST_VERSION))
        );
    }

    #[test]
    fn other_versions_are_refused() {
        let mut v = serde_json::to_value(full()).unwrap();
        v["manifest_version"] = json!(1);
        let err = Manifest::parse(v.to_string().as_bytes()).unwrap_err();
        assert!(
            matches!(err, ParseError::UnknownVersion { found: 1 }),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "manifest_version 1 is not known to this runtime (it reads 2)"
        );
        v["manifest_version"] = json!(2);
        assert_eq!(Manifest::parse(v.to_string().as_bytes()).unwrap(), full());
    }
}
