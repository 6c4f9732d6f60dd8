//! User configuration: `~/.orla/config.yaml` (under `ORLA_HOME` when set),
//! and the `registries:` a project's orla.yaml may declare.
//!
//! ```yaml
//! registries:               # searched in this order; the first that has a tool wins
//!   - name: company
//!     location: https://git.example.com/mcp-index.git
//!   - name: local
//!     location: ./my-index   # relative to the file that names it
//! registry_ttl: 10m          # how long a cloned git index is used before it is fetched again
//! public_registry: false     # drop the Orla project's registry (or name another location)
//! cache_max_size: 2G         # the most the cached packages may take (ORLA_CACHE_MAX_SIZE wins)
//! runtime:                   # how tools run (also in orla.yaml; docs/security.md, "Settings")
//!   pass_env: [HTTPS_PROXY]  # variables every tool gets from orla serve's environment
//!   isolation: strict        # strict | best-effort: a tool the kernel cannot confine is refused, or runs unconfined
//!   allow_read: [/data]      # trees filesystem:read tools may also read (absolute, or relative to this file)
//!   allow_write: [/scratch]  # trees filesystem:write tools may also write
//!   sandbox: {memory_mb: 512, cpu_seconds: 60}   # the limits of isolation_mode sandboxed
//!   tools:
//!     gh-issues: {pass_env: [GITHUB_TOKEN], isolation_mode: sandboxed, approval: pre-approved}
//! ```
//!
//! `registries` may also be a mapping `name: location` (kept in file order).
//! Unknown keys are ignored so that newer orla versions can add settings.

use std::path::{Path, PathBuf};
use std::time::Duration;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::package::IsolationMode;

pub const CONFIG_FILE: &str = "config.yaml";

/// The TTL of a cloned git index when nothing else is configured.
pub const DEFAULT_TTL: Duration = Duration::from_secs(600);

/// The Orla project's public registry (an RFC 3 registry: registry.yaml
/// only), consulted after the default registry for a tool that one lacks.
pub const PUBLIC_REGISTRY: &str = "https://github.com/dorcha-inc/orla-registry.git";

/// The name the public registry goes by in messages, receipts and
/// `--registry`.
pub const PUBLIC_REGISTRY_NAME: &str = "orla";

/// One configured registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedRegistry {
    pub name: String,
    /// As written: `builtin`, a directory, or a git URL.
    pub location: String,
    /// The directory relative locations are taken from.
    pub base: PathBuf,
}

#[derive(Debug, Clone, Default)]
pub struct UserConfig {
    pub registries: Vec<NamedRegistry>,
    pub registry_ttl: Option<Duration>,
    /// `public_registry:`: `Some(None)` drops the Orla project's registry,
    /// `Some(Some(location))` replaces it; `None` keeps the default.
    pub public_registry: Option<Option<String>>,
    /// `cache_max_size:` in bytes.
    pub cache_max_size: Option<u64>,
    /// `runtime:`: how tools run.
    pub runtime: RunSettings,
    pub path: Option<PathBuf>,
}

/// `runtime:` in config.yaml and orla.yaml, as written (unknown keys are
/// refused).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRuntime {
    #[serde(default)]
    pub pass_env: Vec<String>,
    #[serde(default)]
    pub isolation: Option<Isolation>,
    #[serde(default)]
    pub allow_read: Vec<String>,
    #[serde(default)]
    pub allow_write: Vec<String>,
    #[serde(default)]
    pub sandbox: Option<SandboxLimits>,
    #[serde(default)]
    pub tools: BTreeMap<String, ToolSettings>,
}

/// `runtime.sandbox:`: the limits of `isolation_mode: sandboxed`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxLimits {
    pub memory_mb: Option<u64>,
    pub cpu_seconds: Option<u64>,
}

/// `runtime.tools.NAME:`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolSettings {
    #[serde(default)]
    pub pass_env: Vec<String>,
    #[serde(default)]
    pub isolation_mode: Option<IsolationMode>,
    #[serde(default)]
    pub approval: Option<Approval>,
}

/// `runtime.isolation:`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Isolation {
    /// A tool that must be confined where the kernel cannot is refused.
    #[default]
    Strict,
    /// It runs unconfined, with a warning.
    BestEffort,
}

/// `runtime.tools.NAME.approval:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Approval {
    /// A person approves each call.
    Required,
    /// No question, even for a critical tool (config.yaml only).
    PreApproved,
}

/// `runtime:` checked: variable names, grants as absolute paths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunSettings {
    pub pass_env: Vec<String>,
    pub isolation: Option<Isolation>,
    pub allow_read: Vec<PathBuf>,
    pub allow_write: Vec<PathBuf>,
    pub sandbox: SandboxLimits,
    pub tools: BTreeMap<String, ToolSettings>,
}

impl RunSettings {
    /// Checks `raw`; relative grants are taken from `base` (the directory
    /// of the file).
    pub fn parse(raw: &RawRuntime, base: &Path) -> Result<RunSettings, SettingError> {
        let names = raw
            .pass_env
            .iter()
            .chain(raw.tools.values().flat_map(|t| t.pass_env.iter()));
        for name in names {
            if !is_env_name(name) {
                return Err(SettingError::EnvName { name: name.clone() });
            }
        }
        let path = |p: &String| -> Result<PathBuf, SettingError> {
            // `~` is not expanded: it would be a directory named `~`.
            if p.is_empty() || p.starts_with('~') {
                return Err(SettingError::Grant { path: p.clone() });
            }
            Ok(crate::fs::normalize(&base.join(p)))
        };
        Ok(RunSettings {
            pass_env: raw.pass_env.clone(),
            isolation: raw.isolation,
            allow_read: raw.allow_read.iter().map(path).collect::<Result<_, _>>()?,
            allow_write: raw.allow_write.iter().map(path).collect::<Result<_, _>>()?,
            sandbox: raw.sandbox.unwrap_or_default(),
            tools: raw.tools.clone(),
        })
    }

    /// `self` (config.yaml) with `project` (orla.yaml) over it: variables
    /// and grants add up, a tool's isolation mode is the project's when it
    /// says one, approval is required when either file requires it.
    pub fn merged(&self, project: &RunSettings) -> RunSettings {
        let mut out = self.clone();
        out.pass_env.extend(project.pass_env.iter().cloned());
        out.isolation = match (self.isolation, project.isolation) {
            (Some(Isolation::BestEffort), _) | (_, Some(Isolation::BestEffort)) => {
                Some(Isolation::BestEffort)
            }
            (a, b) => b.or(a),
        };
        out.allow_read.extend(project.allow_read.iter().cloned());
        out.allow_write.extend(project.allow_write.iter().cloned());
        out.sandbox = SandboxLimits {
            memory_mb: project.sandbox.memory_mb.or(self.sandbox.memory_mb),
            cpu_seconds: project.sandbox.cpu_seconds.or(self.sandbox.cpu_seconds),
        };
        for (name, theirs) in &project.tools {
            let ours = out.tools.entry(name.clone()).or_default();
            ours.pass_env.extend(theirs.pass_env.iter().cloned());
            if theirs.isolation_mode.is_some() {
                ours.isolation_mode = theirs.isolation_mode;
            }
            if theirs.approval == Some(Approval::Required) {
                ours.approval = Some(Approval::Required);
            }
        }
        out
    }
}

/// An environment variable's name: `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_env_name(name: &str) -> bool {
    name.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file is not YAML, or has a key orla does not know (`unknown`,
    /// with the known key it is likely a typo of, if any).
    #[error("{}", match line {
        Some(l) => format!("{}, line {l}: {message}", path.display()),
        None => format!("{} is not valid: {message}", path.display()),
    })]
    Invalid {
        path: PathBuf,
        line: Option<usize>,
        message: String,
        unknown: Option<(String, Option<&'static str>)>,
    },
    /// A setting's value is refused.
    #[error("{} is not valid: {}", path.display(), source.with_key())]
    Setting {
        path: PathBuf,
        #[source]
        source: SettingError,
    },
}

/// A refused value of `registries:`, `registry_ttl` or `public_registry`
/// (in config.yaml, orla.yaml or the environment variable of the same
/// meaning).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingError {
    #[error("registries: every registry needs a name and a location")]
    Incomplete,
    #[error("registries: the name '{}' contains a control character", name.escape_debug())]
    ControlCharacter { name: String },
    #[error("registries: '{name}' is named twice")]
    Duplicate { name: String },
    #[error("registries: each item needs `name` and `location` strings")]
    ItemNotStrings,
    #[error("registries: expected `name: location` strings")]
    EntryNotStrings,
    #[error("registries: expected a list of {{name, location}}")]
    NotAList,
    #[error("expected false (to drop it) or a registry location")]
    PublicRegistry,
    #[error("expected a whole number of seconds")]
    TtlNotWhole,
    #[error("'{text}' is not a duration such as 90s, 10m or 2h")]
    Duration { text: String },
    #[error("expected seconds or a duration such as 10m")]
    TtlType,
    #[error("'{text}' is not a size such as 500M, 2G or 1.5GiB")]
    Size { text: String },
    #[error("runtime.pass_env: '{}' is not the name of an environment variable", name.escape_debug())]
    EnvName { name: String },
    #[error("runtime: '{}' is not a path to grant", path.escape_debug())]
    Grant { path: String },
}

impl SettingError {
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            SettingError::Incomplete
            | SettingError::ItemNotStrings
            | SettingError::EntryNotStrings
            | SettingError::NotAList => {
                "write `registries:` as a list of `- name: N` / `location: L` items (see docs/registries.md)".into()
            }
            SettingError::ControlCharacter { .. } => {
                "a registry's name is shown in messages: use letters, digits and '-'".into()
            }
            SettingError::Duplicate { name } => {
                format!("give each registry its own name; rename or remove the second '{name}'")
            }
            SettingError::PublicRegistry => {
                "write `public_registry: false` to drop the Orla project's registry, or a registry location to use instead".into()
            }
            SettingError::TtlNotWhole | SettingError::Duration { .. } | SettingError::TtlType => {
                "write seconds or a duration such as 90s, 10m, 2h or 1d".into()
            }
            SettingError::Size { .. } => {
                "write bytes or a size with a unit, e.g. `cache_max_size: 2G`, or remove the key for no limit".into()
            }
            SettingError::EnvName { .. } => {
                "write names such as GITHUB_TOKEN: letters, digits and '_', not starting with a digit".into()
            }
            SettingError::Grant { .. } => {
                "write an absolute path, or a path relative to the file's directory (`~` is not expanded)".into()
            }
        })
    }

    /// The setting the value was given for.
    pub fn key(&self) -> &'static str {
        match self {
            SettingError::PublicRegistry => "public_registry",
            SettingError::TtlNotWhole | SettingError::Duration { .. } | SettingError::TtlType => {
                "registry_ttl"
            }
            SettingError::Size { .. } => "cache_max_size",
            SettingError::EnvName { .. } | SettingError::Grant { .. } => "runtime",
            _ => "registries",
        }
    }

    /// The message as config.yaml's reader says it, led by the setting's
    /// name (the messages of `registries:` carry it already, because
    /// orla.yaml's reader shows them as they are).
    pub fn with_key(&self) -> String {
        match self.key() {
            "registries" => self.to_string(),
            key => format!("{key}: {self}"),
        }
    }
}

impl ConfigError {
    pub fn hint(&self) -> Option<String> {
        match self {
            // Not a format problem: ORLA_HOME (or a parent) is not readable.
            ConfigError::Io { source, .. }
                if source.kind() == std::io::ErrorKind::PermissionDenied =>
            {
                Some(
                    "you may not read the install root: set ORLA_HOME to a directory you own"
                        .into(),
                )
            }
            ConfigError::Io { source, .. }
                if source.kind() == std::io::ErrorKind::NotADirectory =>
            {
                Some("the install root is a file: set ORLA_HOME to a directory".into())
            }
            ConfigError::Io { .. } => None,
            ConfigError::Invalid {
                unknown: Some((_, suggestion)),
                ..
            } => {
                let known = KEYS.join(", ");
                Some(match suggestion {
                    Some(key) => format!("did you mean '{key}'? config.yaml knows {known}"),
                    None => format!("config.yaml knows {known} (docs/registries.md)"),
                })
            }
            ConfigError::Invalid { .. } => Some(
                "see docs/registries.md for the format of `registries:`, `registry_ttl` and `public_registry`, docs/cache.md for `cache_max_size`, and docs/security.md for `runtime`".into(),
            ),
            ConfigError::Setting { source, .. } => source.hint(),
        }
    }
}

/// The keys config.yaml knows.
const KEYS: [&str; 4] = [
    "registries",
    "registry_ttl",
    "public_registry",
    "cache_max_size",
];

/// A serde_yaml error as the line it is on and what is wrong there: an
/// unknown key is named, with the known key it is likely a typo of.
fn invalid(path: &Path, text: &str, e: &serde_yaml::Error) -> ConfigError {
    let full = e.to_string();
    // serde_yaml appends " at line L column C"; the line is said first.
    let message = match full.rfind(" at line ") {
        Some(i) => full[..i].to_string(),
        None => full.clone(),
    };
    let mut line = e.location().map(|l| l.line());
    let unknown = message
        .strip_prefix("unknown field `")
        .and_then(|rest| rest.split_once('`'))
        .map(|(key, _)| key.to_string());
    let Some(key) = unknown else {
        return ConfigError::Invalid {
            path: path.to_path_buf(),
            line,
            message,
            unknown: None,
        };
    };
    // The key's own line, at the top level of the file.
    if let Some(i) = text.lines().position(|l| {
        l.strip_prefix(key.as_str())
            .is_some_and(|rest| rest.trim_start().starts_with(':'))
    }) {
        line = Some(i + 1);
    }
    let suggestion = KEYS
        .iter()
        .map(|k| (strsim::damerau_levenshtein(&key, k), *k))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, k)| k);
    ConfigError::Invalid {
        path: path.to_path_buf(),
        line,
        message: format!("unknown key '{key}'"),
        unknown: Some((key, suggestion)),
    }
}

/// Unknown keys are refused, as in orla.yaml: a misspelt `registries:`
/// would otherwise be ignored without a word.
#[derive(Deserialize, Default)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping with the keys registries, registry_ttl, public_registry, cache_max_size and runtime"
)]
struct RawConfig {
    #[serde(default)]
    registries: serde_yaml::Value,
    #[serde(default)]
    registry_ttl: Option<serde_yaml::Value>,
    #[serde(default)]
    public_registry: Option<serde_yaml::Value>,
    #[serde(default)]
    cache_max_size: Option<serde_yaml::Value>,
    #[serde(default)]
    runtime: Option<RawRuntime>,
}

impl UserConfig {
    /// Reads `<home>/config.yaml`; a missing file is an empty configuration.
    pub fn load(home: &Path) -> Result<UserConfig, ConfigError> {
        let path = home.join(CONFIG_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(UserConfig::default()),
            Err(source) => return Err(ConfigError::Io { path, source }),
        };
        let setting = |source: SettingError| ConfigError::Setting {
            path: path.clone(),
            source,
        };
        let raw: RawConfig = if text.trim().is_empty() {
            RawConfig::default()
        } else {
            serde_yaml::from_str(&text).map_err(|e| invalid(&path, &text, &e))?
        };
        let registries = parse_registries(&raw.registries, home).map_err(setting)?;
        let registry_ttl = match &raw.registry_ttl {
            None => None,
            Some(v) => Some(parse_ttl_value(v).map_err(setting)?),
        };
        let public_registry = match &raw.public_registry {
            None => None,
            Some(v) => Some(parse_public_registry(v).map_err(setting)?),
        };
        let cache_max_size = match &raw.cache_max_size {
            None => None,
            Some(v) => Some(parse_size_value(v).map_err(setting)?),
        };
        let runtime = match &raw.runtime {
            None => RunSettings::default(),
            Some(r) => RunSettings::parse(r, home).map_err(setting)?,
        };
        Ok(UserConfig {
            registries,
            registry_ttl,
            public_registry,
            cache_max_size,
            runtime,
            path: Some(path),
        })
    }
}

/// Parses a `registries:` value: a list of `{name, location}` or a mapping
/// `name: location`. Null means none.
pub fn parse_registries(
    value: &serde_yaml::Value,
    base: &Path,
) -> Result<Vec<NamedRegistry>, SettingError> {
    use serde_yaml::Value;
    let mut out: Vec<NamedRegistry> = Vec::new();
    let mut push = |name: &str, location: &str| -> Result<(), SettingError> {
        if name.is_empty() || location.is_empty() {
            return Err(SettingError::Incomplete);
        }
        if name.chars().any(char::is_control) {
            // A registry's name is printed in status lines and listings.
            return Err(SettingError::ControlCharacter {
                name: name.to_string(),
            });
        }
        if out.iter().any(|r| r.name == name) {
            return Err(SettingError::Duplicate {
                name: name.to_string(),
            });
        }
        out.push(NamedRegistry {
            name: name.to_string(),
            location: location.to_string(),
            base: base.to_path_buf(),
        });
        Ok(())
    };
    match value {
        Value::Null => {}
        Value::Sequence(items) => {
            for item in items {
                let name = item.get("name").and_then(Value::as_str);
                let location = item.get("location").and_then(Value::as_str);
                match (name, location) {
                    (Some(n), Some(l)) => push(n, l)?,
                    _ => return Err(SettingError::ItemNotStrings),
                }
            }
        }
        Value::Mapping(map) => {
            for (k, v) in map {
                match (k.as_str(), v.as_str()) {
                    (Some(n), Some(l)) => push(n, l)?,
                    _ => return Err(SettingError::EntryNotStrings),
                }
            }
        }
        _ => return Err(SettingError::NotAList),
    }
    Ok(out)
}

/// `false`, `off` or `none` drop the public registry; any other string is
/// the location to use instead.
pub fn parse_public_registry(value: &serde_yaml::Value) -> Result<Option<String>, SettingError> {
    match value {
        serde_yaml::Value::Bool(false) => Ok(None),
        serde_yaml::Value::String(s) if ["off", "false", "none"].contains(&s.trim()) => Ok(None),
        serde_yaml::Value::String(s) if !s.trim().is_empty() => Ok(Some(s.trim().to_string())),
        _ => Err(SettingError::PublicRegistry),
    }
}

fn parse_ttl_value(value: &serde_yaml::Value) -> Result<Duration, SettingError> {
    match value {
        serde_yaml::Value::Number(n) => n
            .as_u64()
            .map(Duration::from_secs)
            .ok_or(SettingError::TtlNotWhole),
        serde_yaml::Value::String(s) => parse_ttl(s),
        _ => Err(SettingError::TtlType),
    }
}

/// A size in bytes: a whole number, or a string such as `500M` or `2G`
/// (`crate::size::parse_size`).
fn parse_size_value(value: &serde_yaml::Value) -> Result<u64, SettingError> {
    let text = match value {
        serde_yaml::Value::Number(n) => n.to_string(),
        serde_yaml::Value::String(s) => s.clone(),
        other => serde_yaml::to_string(other)
            .unwrap_or_default()
            .trim()
            .to_string(),
    };
    crate::size::parse_size(&text).map_err(|e| SettingError::Size { text: e.text })
}

/// Parses `90`, `90s`, `10m`, `2h` or `1d`.
pub fn parse_ttl(text: &str) -> Result<Duration, SettingError> {
    let text = text.trim();
    let bad = || SettingError::Duration {
        text: text.to_string(),
    };
    let (digits, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => text.split_at(i),
        None => (text, "s"),
    };
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let unit = match unit.trim() {
        "s" | "" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86400,
        _ => return Err(bad()),
    };
    Ok(Duration::from_secs(n.saturating_mul(unit)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttl_units() {
        assert_eq!(parse_ttl("90").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_ttl("10m").unwrap(), Duration::from_secs(600));
        assert_eq!(parse_ttl("2h").unwrap(), Duration::from_secs(7200));
        assert!(parse_ttl("soon").is_err());
        assert!(parse_ttl("5y").is_err());
    }

    #[test]
    fn cache_max_size_takes_bytes_or_a_size_with_a_unit() {
        let value = |text: &str| serde_yaml::from_str::<serde_yaml::Value>(text).unwrap();
        assert_eq!(parse_size_value(&value("1024")).unwrap(), 1024);
        assert_eq!(parse_size_value(&value("2G")).unwrap(), 2 << 30);
        assert_eq!(
            parse_size_value(&value("lots")).unwrap_err(),
            SettingError::Size {
                text: "lots".into()
            }
        );
        assert!(parse_size_value(&value("[1]")).is_err());
        assert!(parse_size_value(&value("-5")).is_err());
    }

    #[test]
    fn registries_as_list_or_mapping_keep_their_order() {
        let base = Path::new("/b");
        let list: serde_yaml::Value =
            serde_yaml::from_str("- {name: b, location: x}\n- {name: a, location: y}\n").unwrap();
        let names: Vec<_> = parse_registries(&list, base)
            .unwrap()
            .into_iter()
            .map(|r| r.name)
            .collect();
        assert_eq!(names, ["b", "a"]);
        let map: serde_yaml::Value = serde_yaml::from_str("z: x\na: y\n").unwrap();
        let names: Vec<_> = parse_registries(&map, base)
            .unwrap()
            .into_iter()
            .map(|r| r.name)
            .collect();
        assert_eq!(names, ["z", "a"]);
        let dup: serde_yaml::Value =
            serde_yaml::from_str("- {name: a, location: x}\n- {name: a, location: y}\n").unwrap();
        assert_eq!(
            parse_registries(&dup, base).unwrap_err(),
            SettingError::Duplicate { name: "a".into() }
        );
    }
}
