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
//! ```
//!
//! `registries` may also be a mapping `name: location` (kept in file order).
//! Unknown keys are ignored so that newer orla versions can add settings.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

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
    pub path: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is not valid: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
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
            ConfigError::Invalid { .. } => Some(
                "see docs/registries.md for the format of `registries:`, `registry_ttl` and `public_registry`".into(),
            ),
        }
    }
}

/// Unknown keys are refused, as in orla.yaml: a misspelt `registries:`
/// would otherwise be ignored without a word.
#[derive(Deserialize, Default)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping with the keys registries, registry_ttl and public_registry"
)]
struct RawConfig {
    #[serde(default)]
    registries: serde_yaml::Value,
    #[serde(default)]
    registry_ttl: Option<serde_yaml::Value>,
    #[serde(default)]
    public_registry: Option<serde_yaml::Value>,
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
        let invalid = |message: String| ConfigError::Invalid {
            path: path.clone(),
            message,
        };
        let raw: RawConfig = if text.trim().is_empty() {
            RawConfig::default()
        } else {
            serde_yaml::from_str(&text).map_err(|e| invalid(e.to_string()))?
        };
        let registries = parse_registries(&raw.registries, home).map_err(invalid)?;
        let registry_ttl = match &raw.registry_ttl {
            None => None,
            Some(v) => Some(parse_ttl_value(v).map_err(|m| invalid(format!("registry_ttl: {m}")))?),
        };
        let public_registry = match &raw.public_registry {
            None => None,
            Some(v) => Some(
                parse_public_registry(v).map_err(|m| invalid(format!("public_registry: {m}")))?,
            ),
        };
        Ok(UserConfig {
            registries,
            registry_ttl,
            public_registry,
            path: Some(path),
        })
    }
}

/// Parses a `registries:` value: a list of `{name, location}` or a mapping
/// `name: location`. Null means none.
pub fn parse_registries(
    value: &serde_yaml::Value,
    base: &Path,
) -> Result<Vec<NamedRegistry>, String> {
    use serde_yaml::Value;
    let mut out: Vec<NamedRegistry> = Vec::new();
    let mut push = |name: &str, location: &str| -> Result<(), String> {
        if name.is_empty() || location.is_empty() {
            return Err("registries: every registry needs a name and a location".into());
        }
        if name.chars().any(char::is_control) {
            // A registry's name is printed in status lines and listings.
            return Err(format!(
                "registries: the name '{}' contains a control character",
                name.escape_debug()
            ));
        }
        if out.iter().any(|r| r.name == name) {
            return Err(format!("registries: '{name}' is named twice"));
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
                    _ => {
                        return Err(
                            "registries: each item needs `name` and `location` strings".into()
                        )
                    }
                }
            }
        }
        Value::Mapping(map) => {
            for (k, v) in map {
                match (k.as_str(), v.as_str()) {
                    (Some(n), Some(l)) => push(n, l)?,
                    _ => return Err("registries: expected `name: location` strings".into()),
                }
            }
        }
        _ => return Err("registries: expected a list of {name, location}".into()),
    }
    Ok(out)
}

/// `false`, `off` or `none` drop the public registry; any other string is
/// the location to use instead.
pub fn parse_public_registry(value: &serde_yaml::Value) -> Result<Option<String>, String> {
    match value {
        serde_yaml::Value::Bool(false) => Ok(None),
        serde_yaml::Value::String(s) if ["off", "false", "none"].contains(&s.trim()) => Ok(None),
        serde_yaml::Value::String(s) if !s.trim().is_empty() => Ok(Some(s.trim().to_string())),
        _ => Err("expected false (to drop it) or a registry location".into()),
    }
}

fn parse_ttl_value(value: &serde_yaml::Value) -> Result<Duration, String> {
    match value {
        serde_yaml::Value::Number(n) => n
            .as_u64()
            .map(Duration::from_secs)
            .ok_or_else(|| "expected a whole number of seconds".to_string()),
        serde_yaml::Value::String(s) => parse_ttl(s),
        _ => Err("expected seconds or a duration such as 10m".into()),
    }
}

/// Parses `90`, `90s`, `10m`, `2h` or `1d`.
pub fn parse_ttl(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (digits, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => text.split_at(i),
        None => (text, "s"),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("'{text}' is not a duration such as 90s, 10m or 2h"))?;
    let unit = match unit.trim() {
        "s" | "" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86400,
        _ => return Err(format!("'{text}' is not a duration such as 90s, 10m or 2h")),
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
        assert!(parse_registries(&dup, base).unwrap_err().contains("twice"));
    }
}
