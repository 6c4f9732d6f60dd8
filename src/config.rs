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
    /// `cache_max_size:` in bytes.
    pub cache_max_size: Option<u64>,
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
                "see docs/registries.md for the format of `registries:`, `registry_ttl` and `public_registry`, and docs/cache.md for `cache_max_size`".into(),
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
    expecting = "a mapping with the keys registries, registry_ttl, public_registry and cache_max_size"
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
        Ok(UserConfig {
            registries,
            registry_ttl,
            public_registry,
            cache_max_size,
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
