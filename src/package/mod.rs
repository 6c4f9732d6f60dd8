//! The tool package: `tool.yaml` (RFC 3 section 5 plus orla's additions), its
//! validation (RFC 3 5.4), the permission vocabulary and risk levels, and the
//! deterministic archive format made by `orla tool pack`.
//!
//! A package is a directory with `tool.yaml` at its root and the entrypoint it
//! names. The model keeps every RFC 3 field; fields orla does not know are kept
//! in `extra` so that a newer tool.yaml read by an older orla loses nothing.

pub mod gz;
pub mod limits;
pub mod names;
pub mod pack;
pub mod risk;
pub mod scaffold;
pub mod schema;
pub mod shape;
pub mod validate;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

pub use names::{validate_name, validate_version};
pub use risk::{Permission, Permissions, RiskLevel, SafetyTier};
pub use validate::{Problem, Severity};

/// The file name of a package manifest.
pub const TOOL_YAML: &str = "tool.yaml";

/// The install receipt orla writes into every installed package directory
/// (see `root::receipt`). The name is reserved: archives may not contain it
/// and `orla tool pack` leaves it out.
pub const RECEIPT_FILE: &str = ".orla-receipt.json";

/// `tool.yaml` as written by an author. Every field is optional here so that
/// validation can report all missing fields at once, by name.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(expecting = "a mapping of fields such as name, version, description and entrypoint")]
pub struct ToolYaml {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entrypoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub homepage: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dependencies: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<Mcp>,
    /// Absent is not empty: see `Permissions`.
    #[serde(default, skip_serializing_if = "Permissions::is_undeclared")]
    pub permissions: Permissions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<Runtime>,
    /// orla addition: raises the risk derived from `permissions` (never
    /// lowers it: see `ToolYaml::risk`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk_level: Option<RiskLevel>,
    /// Fields this version of orla does not know, kept as they were.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_yaml::Value>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Mcp {
    /// RFC 3 shorthand (`path: string`) or a full JSON Schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<serde_yaml::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<serde_yaml::Value>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_yaml::Value>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Simple,
    Capsule,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Simple => "simple",
            Mode::Capsule => "capsule",
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Runtime {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup_timeout_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hot_load: Option<HotLoad>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// orla addition: how a simple tool receives its arguments (default
    /// `flags`, the Orla runtime's convention).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Arguments>,
    /// orla addition: per-request timeout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// orla addition: retry policy, as in the Orloj tool contract.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<Retry>,
    /// Orloj's isolation mode; absent, it follows from the risk level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation_mode: Option<IsolationMode>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_yaml::Value>,
}

/// `runtime.isolation_mode` (the Orloj seed's isolation modes; see
/// docs/security.md, "Run-time confinement").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IsolationMode {
    /// Confined to the declared permissions, no resource limits.
    None,
    /// Also memory and CPU time limits, and no new processes without
    /// `process:exec`.
    Sandboxed,
}

impl IsolationMode {
    /// Orloj's default: `sandboxed` for high and critical risk. A tool that
    /// declared no permissions keeps running as it did (`none`) unless the
    /// user sets the mode.
    pub fn default_for(risk: RiskLevel, declared: bool) -> IsolationMode {
        if declared && risk >= RiskLevel::High {
            IsolationMode::Sandboxed
        } else {
            IsolationMode::None
        }
    }
}

/// How a runtime passes a call's arguments to a simple tool
/// (docs/tool-yaml.md, "Arguments").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arguments {
    /// `--key value` per argument, after `runtime.args`; underscores in keys
    /// become hyphens; an argument named `stdin` is piped to stdin instead.
    #[default]
    Flags,
    /// The whole arguments object as one JSON document on stdin.
    Json,
}

impl Arguments {
    pub fn as_str(self) -> &'static str {
        match self {
            Arguments::Flags => "flags",
            Arguments::Json => "json",
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct HotLoad {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub watch: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debounce_ms: Option<u64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Retry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<u32>,
    /// A duration such as `500ms`, `1s` or `0s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_backoff: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<Jitter>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Jitter {
    None,
    Full,
    Equal,
}

/// Errors reading a tool.yaml.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    #[error("{path} has no tool.yaml at its root")]
    MissingToolYaml { path: String },
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not valid tool.yaml: {message}")]
    Parse { path: String, message: String },
    /// Refused before parsing: too large or too deeply nested.
    #[error("{path} is not valid tool.yaml: {source}")]
    Limit {
        path: String,
        #[source]
        source: limits::LimitError,
    },
    /// `dir`: the package directory, when it is one the user can check
    /// with `orla tool validate` (not a tag or an archive).
    #[error("{path} is invalid: {}", error_summary(problems))]
    Invalid {
        path: String,
        dir: Option<String>,
        problems: Vec<Problem>,
    },
}

/// The first error among `problems`, and how many more there are
/// (warnings left out): one line, however many there are.
pub fn error_summary(problems: &[Problem]) -> String {
    let mut errors = problems.iter().filter(|p| p.severity == Severity::Error);
    let Some(first) = errors.next() else {
        return String::new();
    };
    match errors.count() {
        0 => first.to_string(),
        more => format!("{first} (and {})", validate::counted(more, "more error")),
    }
}

impl PackageError {
    pub fn hint(&self) -> Option<String> {
        match self {
            PackageError::Invalid { dir, problems, .. } => {
                let errors: Vec<&Problem> = problems
                    .iter()
                    .filter(|p| p.severity == Severity::Error)
                    .collect();
                let validate = dir.as_deref().map(validate::command);
                Some(match (errors.as_slice(), validate) {
                    ([one], validate) => match (&one.hint, validate) {
                        (Some(hint), _) => hint.clone(),
                        (None, Some(validate)) => format!(
                            "docs/tool-yaml.md describes every field; `{validate}` checks the package again"
                        ),
                        (None, None) => "docs/tool-yaml.md describes every field".into(),
                    },
                    (all, Some(validate)) => format!(
                        "`{validate}` lists all {} with the fix for each",
                        all.len()
                    ),
                    (all, None) => match all.first().and_then(|p| p.hint.as_ref()) {
                        Some(hint) => format!("the first: {hint}"),
                        None => "docs/tool-yaml.md describes every field".into(),
                    },
                })
            }
            PackageError::Parse { .. } => Some(
                "tool.yaml holds `field: value` lines (docs/tool-yaml.md); `orla tool scaffold` writes a complete one"
                    .into(),
            ),
            PackageError::Limit { .. } => Some(
                "tool.yaml may be at most 1 MiB and nest 64 levels deep (docs/tool-yaml.md); long text belongs in README.md".into(),
            ),
            PackageError::MissingToolYaml { .. } => {
                Some("a tool package needs tool.yaml at its root (RFC 3 section 4.1)".into())
            }
            PackageError::Io { source, .. }
                if source.kind() == std::io::ErrorKind::PermissionDenied =>
            {
                Some("check that you may read the package's files".into())
            }
            // Not found while reading, or not UTF-8: the message says which.
            PackageError::Io { .. } => None,
        }
    }
}

impl ToolYaml {
    /// Parses tool.yaml text. `origin` names the file in errors; a value of
    /// the wrong type or shape is an error (`PackageError::Invalid`, every
    /// such value named).
    pub fn parse(text: &str, origin: &str) -> Result<ToolYaml, PackageError> {
        let (tool, problems) = ToolYaml::parse_all(text, origin)?;
        if problems.is_empty() {
            Ok(tool)
        } else {
            Err(PackageError::Invalid {
                path: origin.to_string(),
                dir: None,
                problems,
            })
        }
    }

    /// Parses tool.yaml text into what reads and a problem for each value
    /// of the wrong type or shape (`shape`); fails only on text that is not
    /// a YAML mapping.
    pub fn parse_all(text: &str, origin: &str) -> Result<(ToolYaml, Vec<Problem>), PackageError> {
        if text.trim().is_empty() {
            return Err(PackageError::Parse {
                path: origin.to_string(),
                message: "the file is empty".into(),
            });
        }
        // Before parsing: what the parser would spend on it is bounded.
        limits::check(text).map_err(|source| PackageError::Limit {
            path: origin.to_string(),
            source,
        })?;
        shape::parse(text).map_err(|e| PackageError::Parse {
            path: origin.to_string(),
            message: e.to_string(),
        })
    }

    /// Reads `dir`'s tool.yaml strictly (see `parse`).
    pub fn read(dir: &Path) -> Result<ToolYaml, PackageError> {
        let (tool, problems) = ToolYaml::read_all(dir)?;
        if problems.is_empty() {
            Ok(tool)
        } else {
            Err(PackageError::Invalid {
                path: dir.join(TOOL_YAML).display().to_string(),
                dir: Some(dir.display().to_string()),
                problems,
            })
        }
    }

    /// Reads `dir`'s tool.yaml as `parse_all` does.
    pub fn read_all(dir: &Path) -> Result<(ToolYaml, Vec<Problem>), PackageError> {
        let path = dir.join(TOOL_YAML);
        let text = match read_bounded(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(PackageError::MissingToolYaml {
                    path: dir.display().to_string(),
                })
            }
            Err(e) => {
                return Err(PackageError::Io {
                    path: path.display().to_string(),
                    source: e,
                })
            }
        };
        ToolYaml::parse_all(&text, &path.display().to_string())
    }

    pub fn to_yaml(&self) -> String {
        serde_yaml::to_string(self).expect("tool.yaml model always serialises")
    }

    pub fn mode(&self) -> Mode {
        self.runtime
            .as_ref()
            .and_then(|r| r.mode)
            .unwrap_or_default()
    }

    /// The declared argument convention, else `flags`.
    pub fn arguments(&self) -> Arguments {
        self.runtime
            .as_ref()
            .and_then(|r| r.arguments)
            .unwrap_or_default()
    }

    pub fn permissions(&self) -> Vec<Permission> {
        self.permissions
            .iter()
            .map(|p| Permission::parse(p))
            .collect()
    }

    /// The risk orla records and acts on: the higher of the author's
    /// `risk_level` and the level the permissions give (high when they are
    /// undeclared). A package cannot lower its own risk.
    pub fn risk(&self) -> RiskLevel {
        let derived = self.permissions.risk();
        self.risk_level
            .map_or(derived, |stated| stated.max(derived))
    }

    /// The author's `risk_level` when it is below what the permissions give:
    /// (stated, derived), for `orla tool validate` to warn about.
    pub fn understated_risk(&self) -> Option<(RiskLevel, RiskLevel)> {
        let derived = self.permissions.risk();
        self.risk_level
            .filter(|stated| *stated < derived)
            .map(|stated| (stated, derived))
    }
}

/// Reads at most one byte more than a tool.yaml may hold, so an oversized
/// (or endless) file is refused without being read whole.
fn read_bounded(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limits::MAX_TOOL_YAML_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() > limits::MAX_TOOL_YAML_BYTES {
        return Err(std::io::Error::other(limits::too_large()));
    }
    String::from_utf8(bytes).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// A tool.yaml that passed validation: the required fields are present and
/// well formed, and the entrypoint exists inside the package.
#[derive(Debug, Clone)]
pub struct Package {
    pub name: String,
    pub version: semver::Version,
    pub tool: ToolYaml,
    pub warnings: Vec<Problem>,
}

impl Package {
    /// Reads and validates the package in `dir`; any error-level problem fails.
    pub fn load(dir: &Path) -> Result<Package, PackageError> {
        let (tool, problems) = validate::check(dir)?;
        let (errors, warnings): (Vec<Problem>, Vec<Problem>) = problems
            .into_iter()
            .partition(|p| p.severity == Severity::Error);
        if !errors.is_empty() {
            return Err(PackageError::Invalid {
                path: dir.join(TOOL_YAML).display().to_string(),
                dir: Some(dir.display().to_string()),
                problems: errors,
            });
        }
        let name = tool.name.clone().expect("validated");
        let version =
            names::parse_version(tool.version.as_deref().expect("validated")).expect("validated");
        Ok(Package {
            name,
            version,
            tool,
            warnings,
        })
    }

    pub fn description(&self) -> &str {
        self.tool.description.as_deref().unwrap_or_default()
    }

    pub fn entrypoint(&self) -> &str {
        self.tool.entrypoint.as_deref().unwrap_or_default()
    }
}

/// How a message names the kind of a JSON value a tool or its author
/// gave: "a string", "an array", ...
pub fn json_kind(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
