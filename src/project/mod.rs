//! Projects: a directory with an `orla.yaml`, found in the working directory
//! or a parent (RFC 3 7.2). Tools install into its `tools_dir` (default
//! `./tools`) instead of the global root, the file's `tools:` requirements
//! are pinned in `orla.lock`, and loose executables in `tools_dir` are
//! discovered as RFC 1 tools.
//!
//! # orla.yaml (mirrored in docs/projects.md)
//!
//! ```yaml
//! tools_dir: ./tools     # RFC 1 6.4; relative to the project directory
//! port: 8080             # 1-65535
//! timeout: 30            # seconds, at least 1
//! log_format: json       # json | pretty
//! log_level: info        # debug | info | warn | error | fatal
//! registries:            # see crate::config (shared with ~/.orla/config.yaml)
//!   - name: company
//!     location: https://git.example.com/mcp-index.git
//! tools:                 # name -> requirement, in the CLI's syntax
//!   fs-read: "^1.2"
//! runtime:               # how tools run (crate::config, shared with config.yaml)
//!   pass_env: [HTTPS_PROXY]
//!   allow_write: [./out] # inside the project only
//!   tools:
//!     deploy: {approval: required}   # `pre-approved` only in config.yaml
//! ```
//!
//! Parsing is strict: an unknown key, a value of the wrong type or out of
//! range, an invalid tool name or requirement, or a key given twice is an
//! error naming the key and its line. The file is the user's: orla edits it
//! only surgically (see [`edit`]), never by re-serialising it.

pub mod discover;
pub mod edit;
pub mod gitignore;
pub mod lockfile;
pub mod transaction;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::root::InstallRoot;

pub const CONFIG_FILE: &str = "orla.yaml";
pub const LOCK_FILE: &str = "orla.lock";

/// Every key orla.yaml may hold, in the order `orla init` writes them.
pub const KEYS: [&str; 8] = [
    "tools_dir",
    "port",
    "timeout",
    "log_format",
    "log_level",
    "registries",
    "tools",
    "runtime",
];

/// RFC 1 6.4 defaults.
pub const DEFAULT_TOOLS_DIR: &str = "./tools";
pub const DEFAULT_PORT: u16 = 8080;
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    #[default]
    Json,
    Pretty,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    Debug,
    #[default]
    Info,
    Warn,
    Error,
    Fatal,
}

/// orla.yaml: the RFC 1 runtime options plus orla's `tools` and `registries`.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ProjectConfig {
    #[serde(default, deserialize_with = "tools_dir")]
    pub tools_dir: Option<String>,
    #[serde(default, deserialize_with = "port")]
    pub port: Option<u16>,
    #[serde(default, deserialize_with = "timeout")]
    pub timeout: Option<u64>,
    #[serde(default)]
    pub log_format: Option<LogFormat>,
    #[serde(default)]
    pub log_level: Option<LogLevel>,
    /// Tool name -> requirement as written (validated with the CLI's parser).
    #[serde(default, deserialize_with = "tools")]
    pub tools: BTreeMap<String, String>,
    /// Parsed and checked by `crate::config::parse_registries`, which
    /// ~/.orla/config.yaml shares.
    #[serde(default)]
    pub registries: serde_yaml::Value,
    /// How tools run, as written; checked into `run`.
    #[serde(default)]
    pub runtime: Option<crate::config::RawRuntime>,
    #[serde(skip)]
    pub run: crate::config::RunSettings,
}

/// The RFC 1 settings a runtime needs, defaults applied, and what
/// config.yaml and orla.yaml say about confinement (docs/manifest.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    pub port: u16,
    pub timeout_ms: u64,
    pub log_format: LogFormat,
    pub log_level: LogLevel,
    #[serde(default)]
    pub isolation: crate::config::Isolation,
    /// The project directory: what `filesystem:read` and `:write` reach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_read: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_write: Vec<String>,
    /// Trees no grant reaches: orla's own state, the tools, orla.yaml.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub protect: Vec<String>,
    #[serde(default = "default_memory_mb")]
    pub sandbox_memory_mb: u64,
    #[serde(default = "default_cpu_seconds")]
    pub sandbox_cpu_seconds: u64,
}

/// The memory of a `sandboxed` tool (RLIMIT_DATA), in MiB.
pub const DEFAULT_SANDBOX_MEMORY_MB: u64 = 512;
/// The CPU time of a `sandboxed` call (RLIMIT_CPU), in seconds.
pub const DEFAULT_SANDBOX_CPU_SECONDS: u64 = 60;

fn default_memory_mb() -> u64 {
    DEFAULT_SANDBOX_MEMORY_MB
}

fn default_cpu_seconds() -> u64 {
    DEFAULT_SANDBOX_CPU_SECONDS
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            port: DEFAULT_PORT,
            timeout_ms: DEFAULT_TIMEOUT_SECS * 1000,
            log_format: LogFormat::Json,
            log_level: LogLevel::Info,
            isolation: Default::default(),
            workspace: None,
            allow_read: Vec::new(),
            allow_write: Vec::new(),
            protect: Vec::new(),
            sandbox_memory_mb: DEFAULT_SANDBOX_MEMORY_MB,
            sandbox_cpu_seconds: DEFAULT_SANDBOX_CPU_SECONDS,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}{}: {message}", path.display(), line.map(|l| format!(", line {l}")).unwrap_or_default())]
    Invalid {
        path: PathBuf,
        line: Option<usize>,
        message: String,
        hint: Option<String>,
    },
    /// An orla.yaml edit that would change more than the one entry meant.
    #[error("cannot edit {} safely: {why}", path.display())]
    UnsafeEdit {
        path: PathBuf,
        why: String,
        hint: String,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl ProjectError {
    pub fn hint(&self) -> Option<String> {
        match self {
            ProjectError::Invalid { hint: Some(h), .. } => Some(h.clone()),
            ProjectError::UnsafeEdit { hint, .. } => Some(hint.clone()),
            ProjectError::Write { source, .. } if crate::fs::is_out_of_space(source) => Some(
                "free some disk space (or raise the quota) and run the command again; nothing was changed"
                    .into(),
            ),
            ProjectError::Write { .. } => {
                Some("check that you may write to the project directory".into())
            }
            ProjectError::Io { source, .. }
                if source.kind() == std::io::ErrorKind::PermissionDenied =>
            {
                Some("check that you may read the project's files, or run the command outside the project".into())
            }
            ProjectError::Io { .. } | ProjectError::Invalid { hint: None, .. } => Some(
                "fix orla.yaml (see docs/projects.md), or run the command outside the project"
                    .into(),
            ),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Project {
    pub dir: PathBuf,
    pub config: ProjectConfig,
}

impl Project {
    /// Looks for orla.yaml in `start` and its parents.
    pub fn find(start: &Path) -> Result<Option<Project>, ProjectError> {
        for dir in start.ancestors() {
            let path = dir.join(CONFIG_FILE);
            if path.is_file() {
                return Project::load(dir).map(Some);
            }
        }
        Ok(None)
    }

    pub fn load(dir: &Path) -> Result<Project, ProjectError> {
        let path = dir.join(CONFIG_FILE);
        let text = std::fs::read_to_string(&path).map_err(|source| ProjectError::Io {
            path: path.clone(),
            source,
        })?;
        let config = parse(&text, dir).map_err(|e| e.at(&path))?;
        Ok(Project {
            dir: dir.to_path_buf(),
            config,
        })
    }

    pub fn config_path(&self) -> PathBuf {
        self.dir.join(CONFIG_FILE)
    }

    pub fn lock_path(&self) -> PathBuf {
        self.dir.join(LOCK_FILE)
    }

    pub fn tools_dir(&self) -> PathBuf {
        PathBuf::from(
            self.config
                .tools_dir
                .as_deref()
                .unwrap_or(DEFAULT_TOOLS_DIR),
        )
    }

    pub fn root(&self) -> InstallRoot {
        InstallRoot::project(&self.dir, &self.tools_dir())
    }

    pub fn settings(&self) -> Settings {
        let c = &self.config;
        Settings {
            port: c.port.unwrap_or(DEFAULT_PORT),
            timeout_ms: c.timeout.unwrap_or(DEFAULT_TIMEOUT_SECS) * 1000,
            log_format: c.log_format.unwrap_or_default(),
            log_level: c.log_level.unwrap_or_default(),
            ..Settings::default()
        }
    }
}

/// A problem found while parsing, before the file's path is known.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigProblem {
    pub line: Option<usize>,
    pub message: String,
    pub hint: Option<String>,
}

impl ConfigProblem {
    fn at(self, path: &Path) -> ProjectError {
        ProjectError::Invalid {
            path: path.to_path_buf(),
            line: self.line,
            message: self.message,
            hint: self.hint,
        }
    }
}

/// Parses orla.yaml strictly. `dir` is where relative registry locations
/// are taken from.
pub fn parse(text: &str, dir: &Path) -> Result<ProjectConfig, ConfigProblem> {
    if text.trim().is_empty() {
        return Ok(ProjectConfig::default());
    }
    let config: ProjectConfig = match serde_yaml::from_str(text) {
        Ok(c) => c,
        // An empty document or one holding only comments.
        Err(_) if is_null_document(text) => return Ok(ProjectConfig::default()),
        Err(e) => return Err(explain(text, &e)),
    };
    if let Err(e) = crate::config::parse_registries(&config.registries, dir) {
        return Err(ConfigProblem {
            line: key_line(text, "registries"),
            message: e.to_string(),
            hint: e.hint(),
        });
    }
    let mut config = config;
    if let Some(raw) = &config.runtime {
        config.run = runtime(text, raw, dir)?;
    }
    if let Some(tools_dir) = &config.tools_dir {
        if let Err(e) = inside_project(dir, tools_dir) {
            return Err(ConfigProblem {
                line: key_line(text, "tools_dir"),
                message: e.to_string(),
                hint: Some("use a directory inside the project, e.g. ./tools; to serve tools from elsewhere, install them (`orla install --local PATH`) or link each one into tools_dir".into()),
            });
        }
    }
    Ok(config)
}

/// orla.yaml's `runtime:`, checked as config.yaml's is, and more strictly:
/// the file comes with the repository, so its grants stay inside the
/// project and it cannot pre-approve a tool (only the user's config.yaml
/// can).
fn runtime(
    text: &str,
    raw: &crate::config::RawRuntime,
    dir: &Path,
) -> Result<crate::config::RunSettings, ConfigProblem> {
    let problem = |message: String, hint: Option<String>| ConfigProblem {
        line: key_line(text, "runtime"),
        message,
        hint,
    };
    let run = crate::config::RunSettings::parse(raw, dir)
        .map_err(|e| problem(e.to_string(), e.hint()))?;
    for grant in raw.allow_read.iter().chain(&raw.allow_write) {
        if inside_project(dir, grant).is_err() {
            return Err(problem(
                format!("runtime: '{grant}' is outside the project; orla.yaml grants only paths inside it"),
                Some("grant paths outside the project in your own ~/.orla/config.yaml (`runtime: allow_read:` / `allow_write:`)".into()),
            ));
        }
    }
    for (name, tool) in &raw.tools {
        if tool.approval == Some(crate::config::Approval::PreApproved) {
            return Err(problem(
                format!("runtime.tools.{name}: `approval: pre-approved` is not taken from orla.yaml, which comes with the project"),
                Some(format!("pre-approve {name} in your own ~/.orla/config.yaml (`runtime: tools: {name}: {{approval: pre-approved}}`)")),
            ));
        }
    }
    Ok(run)
}

/// A tools_dir that leads outside its project (see `inside_project`).
#[derive(Debug, thiserror::Error)]
#[error(
    "tools_dir: '{tools_dir}' is outside the project ({}); a project's tools live inside it",
    project.display()
)]
pub struct OutsideProject {
    pub tools_dir: String,
    pub project: PathBuf,
}

/// A project's tools_dir must lie inside the project directory (`..` and
/// symbolic links resolved): orla.yaml comes with the repository, and RFC 1
/// discovery serves every executable in tools_dir, so `tools_dir: /usr/bin`
/// served a thousand system binaries, and orla would install into and
/// manage a directory the project does not own.
fn inside_project(dir: &Path, tools_dir: &str) -> Result<(), OutsideProject> {
    let outside = || {
        Err(OutsideProject {
            tools_dir: tools_dir.to_string(),
            project: dir.to_path_buf(),
        })
    };
    let mut lexical = PathBuf::new();
    for part in dir.join(tools_dir).components() {
        match part {
            std::path::Component::ParentDir => {
                lexical.pop();
            }
            std::path::Component::CurDir => {}
            other => lexical.push(other),
        }
    }
    if !lexical.starts_with(dir) {
        return outside();
    }
    // The nearest part of it that exists, with links resolved, must still
    // be inside: `tools -> /usr/bin` is outside too.
    let real_dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    for existing in lexical.ancestors().take_while(|a| a.starts_with(dir)) {
        if let Ok(real) = existing.canonicalize() {
            if !real.starts_with(&real_dir) {
                return outside();
            }
            break;
        }
    }
    Ok(())
}

fn is_null_document(text: &str) -> bool {
    matches!(
        serde_yaml::from_str::<serde_yaml::Value>(text),
        Ok(serde_yaml::Value::Null)
    )
}

/// Turns a serde_yaml error into one naming the key and the line.
fn explain(text: &str, e: &serde_yaml::Error) -> ConfigProblem {
    let full = e.to_string();
    // serde_yaml appends " at line L column C"; orla says the line itself.
    let mut message = match full.rfind(" at line ") {
        Some(i) => full[..i].to_string(),
        None => full.clone(),
    };
    // serde_yaml prefixes the path to some errors, and orla's own messages
    // name their key: say it once.
    for key in KEYS {
        let twice = format!("{key}: {key}: ");
        if message.starts_with(&twice) {
            message = message[key.len() + 2..].to_string();
        }
    }
    let mut line = e.location().map(|l| l.line());
    let known = KEYS.join(", ");
    if let Some(key) = between(&message, "unknown field `", "`") {
        if key == "tools_registry" {
            // An orla.yaml written for the Orla runtime, which lists its
            // tools inline (name, description, path, interpreter). orla
            // serves what tools_dir holds and what `tools:` installs.
            return ConfigProblem {
                line: key_line(text, key).or(line),
                message: "tools_registry (the Orla runtime's inline list of tools) is not read by orla".into(),
                hint: Some("move the executables it lists into tools_dir (default ./tools), where orla finds them (RFC 1 discovery), or package each one (`orla tool scaffold`) and name it under `tools:`; then delete tools_registry (see docs/registries.md, 'The Orla registry')".into()),
            };
        }
        let suggestion = KEYS
            .iter()
            .map(|k| (strsim::damerau_levenshtein(key, k), *k))
            .filter(|(d, _)| *d <= 2)
            .min()
            .map(|(_, k)| k);
        return ConfigProblem {
            line: key_line(text, key).or(line),
            message: format!("unknown key '{key}'"),
            hint: Some(match suggestion {
                Some(s) => format!("did you mean '{s}'? orla.yaml knows {known}"),
                None => format!("orla.yaml knows {known}"),
            }),
        };
    }
    if let Some(key) = between(&message, "duplicate field `", "`") {
        return ConfigProblem {
            line: nth_key_line(text, key, 2).or(line),
            message: format!("'{key}' is given twice"),
            hint: Some("keep one of them".into()),
        };
    }
    if message.starts_with("invalid type:") && message.contains("expected struct ProjectConfig") {
        return ConfigProblem {
            line: Some(1),
            message: "orla.yaml must be a mapping of keys to values".into(),
            hint: Some(format!("write `key: value` lines; orla.yaml knows {known}")),
        };
    }
    // Errors inside a key carry it as a prefix (`port: invalid value ...`);
    // the line serde_yaml gives for them is the value's.
    let key = KEYS
        .iter()
        .find(|k| message.starts_with(&format!("{k}:")) || message.starts_with(&format!("{k}.")));
    if key == Some(&"tools") {
        // `tools: NAME: ...`: the line of that entry.
        let name = message["tools: ".len().min(message.len())..]
            .split(':')
            .next()
            .unwrap_or_default();
        line = tool_line(text, name).or(line);
    }
    if line.is_none() {
        line = key.and_then(|k| key_line(text, k));
    }
    let hint = match key {
        Some(&"port") => Some("port is a number from 1 to 65535, e.g. 8080".into()),
        Some(&"timeout") => Some("timeout is a whole number of seconds, e.g. 30".into()),
        Some(&"log_format") => Some("log_format is json or pretty".into()),
        Some(&"log_level") => Some("log_level is debug, info, warn, error or fatal".into()),
        Some(&"tools_dir") => Some("tools_dir is a directory path, e.g. ./tools".into()),
        Some(&"tools") => Some(
            "write each tool as `name: \"requirement\"`, e.g. fs-read: \"^1.2\" (see docs/projects.md)"
                .into(),
        ),
        _ => Some("orla.yaml is YAML: `key: value` lines (see docs/projects.md)".into()),
    };
    ConfigProblem {
        line,
        message: tidy(&message),
        hint,
    }
}

/// serde's wording for people who write YAML, not Rust.
fn tidy(message: &str) -> String {
    message
        .replace("unknown variant", "unknown value")
        .replace("expected u16", "expected a port number")
        .replace("expected u64", "expected a whole number")
        .replace("expected i64", "expected a whole number")
}

fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = text.find(start)? + start.len();
    let len = text[from..].find(end)?;
    Some(&text[from..from + len])
}

/// The 1-based line of the top-level key `key`.
pub fn key_line(text: &str, key: &str) -> Option<usize> {
    nth_key_line(text, key, 1)
}

/// The 1-based line of the entry `name` in the `tools:` block.
fn tool_line(text: &str, name: &str) -> Option<usize> {
    let start = key_line(text, "tools")?;
    text.lines()
        .enumerate()
        .skip(start)
        .take_while(|(_, l)| l.trim().is_empty() || l.starts_with([' ', '\t', '#']))
        .find(|(_, l)| {
            let t = l.trim_start();
            [name.to_string(), format!("\"{name}\""), format!("'{name}'")]
                .iter()
                .any(|k| {
                    t.strip_prefix(k.as_str())
                        .is_some_and(|rest| rest.trim_start().starts_with(':'))
                })
        })
        .map(|(i, _)| i + 1)
}

fn nth_key_line(text: &str, key: &str, nth: usize) -> Option<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| edit::top_level_key(l).as_deref() == Some(key))
        .nth(nth - 1)
        .map(|(i, _)| i + 1)
}

fn tools_dir<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let value = Option::<String>::deserialize(d)?;
    match value {
        Some(v) if v.trim().is_empty() => Err(de::Error::custom("tools_dir: the path is empty")),
        v => Ok(v),
    }
}

fn port<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u16>, D::Error> {
    let value = Option::<i64>::deserialize(d)?;
    match value {
        None => Ok(None),
        Some(p) if (1..=65535).contains(&p) => Ok(Some(p as u16)),
        Some(p) => Err(de::Error::custom(format!(
            "port: {p} is not a port number (1-65535)"
        ))),
    }
}

fn timeout<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let value = Option::<i64>::deserialize(d)?;
    match value {
        None => Ok(None),
        Some(t) if t >= 1 => Ok(Some(t as u64)),
        Some(t) => Err(de::Error::custom(format!(
            "timeout: {t} is not a timeout; write a number of seconds, at least 1"
        ))),
    }
}

/// `tools:` as a map, refusing duplicate names, invalid names and
/// requirements the CLI would refuse. A null `tools:` is empty.
fn tools<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, String>, D::Error> {
    struct ToolsVisitor;
    impl<'de> Visitor<'de> for ToolsVisitor {
        type Value = BTreeMap<String, String>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a mapping of tool names to version requirements")
        }

        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(BTreeMap::new())
        }

        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(BTreeMap::new())
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some(name) = map.next_key::<String>()? {
                let value: serde_yaml::Value = map.next_value()?;
                let requirement = match &value {
                    // `fs-read:` with nothing after it: any version.
                    serde_yaml::Value::Null => "latest".to_string(),
                    serde_yaml::Value::String(s) => s.clone(),
                    serde_yaml::Value::Number(n) => n.to_string(),
                    _ => {
                        return Err(de::Error::custom(format!(
                            "{name}: expected a version requirement such as \"^1.2\""
                        )))
                    }
                };
                crate::package::names::validate_name(&name)
                    .map_err(|e| de::Error::custom(format!("{name}: {e}")))?;
                crate::resolve::parse_requirement(requirement.trim())
                    .map_err(|e| de::Error::custom(format!("{name}: {e}")))?;
                if out.insert(name.clone(), requirement).is_some() {
                    return Err(de::Error::custom(format!("{name} is listed twice")));
                }
            }
            Ok(out)
        }
    }
    d.deserialize_any(ToolsVisitor)
}

/// The orla.yaml `orla init` writes: every RFC 1 option with its default,
/// each explained.
pub fn init_template() -> String {
    format!(
        r#"# orla.yaml: this directory is an orla project (RFC 1 section 6, RFC 3 7.2).
# Every option below is set to its default; change or delete any of them.
# Tools installed here go to tools_dir, their requirements are recorded under
# `tools:` and the exact versions in orla.lock. Commit both files.

# Directory of the project's tools: packages installed by orla
# (tools_dir/NAME/VERSION/) and loose executables, which are served too
# (RFC 1 discovery: tools/ls.sh is the tool "ls").
tools_dir: {DEFAULT_TOOLS_DIR}

# HTTP port of the MCP server (ignored in stdio mode).
port: {DEFAULT_PORT}

# How long one tool execution may run, in seconds.
timeout: {DEFAULT_TIMEOUT_SECS}

# Log format: json or pretty.
log_format: json

# Log level: debug, info, warn, error or fatal.
log_level: info

# Registries searched for this project's tools, before those of
# ~/.orla/config.yaml and the built-in one:
# registries:
#   - name: company
#     location: https://git.example.com/mcp-index.git

# The project's tools: name -> version requirement, written as on the command
# line ("1.2", "^1.2", "~1.2.3", ">=1.0, <2", "1.2.1" for exactly that one).
# `orla install NAME@REQUIREMENT` adds a line; `orla install` installs orla.lock.
tools:
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> ConfigProblem {
        parse(text, Path::new("/p")).unwrap_err()
    }

    #[test]
    fn the_init_template_parses_to_the_defaults() {
        let c = parse(&init_template(), Path::new("/p")).unwrap();
        assert_eq!(c.tools_dir.as_deref(), Some("./tools"));
        assert_eq!(c.port, Some(8080));
        assert_eq!(c.timeout, Some(30));
        assert_eq!(c.log_format, Some(LogFormat::Json));
        assert_eq!(c.log_level, Some(LogLevel::Info));
        assert!(c.tools.is_empty());
    }

    #[test]
    fn empty_and_comment_only_files_are_defaults() {
        for text in ["", "\n\n", "# nothing\n", "---\n"] {
            assert!(
                parse(text, Path::new("/p")).unwrap().tools.is_empty(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn the_orla_runtimes_tools_registry_is_refused_with_its_replacement() {
        let text = "tools_registry:\n  tools:\n    echo:\n      name: echo\n      path: ./tools/echo.sh\n      interpreter: /bin/bash\nport: 8080\n";
        let e = parse(text, Path::new("/p")).unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(
            e.message
                .starts_with("tools_registry (the Orla runtime's inline list of tools)"),
            "{}",
            e.message
        );
        assert!(!e.message.contains("unknown key"), "{}", e.message);
        assert!(e.hint.unwrap().contains("tools_dir"));
    }

    #[test]
    fn unknown_keys_name_the_key_and_the_line() {
        let e = err("tools_dir: ./t\n\nprot: 80\n");
        assert_eq!(e.line, Some(3));
        assert_eq!(e.message, "unknown key 'prot'");
        assert!(e.hint.unwrap().starts_with("did you mean 'port'?"));
    }

    #[test]
    fn bad_values_name_the_key_and_the_line() {
        let e = err("# c\nport: 99999\n");
        assert_eq!(e.line, Some(2));
        assert!(
            e.message.starts_with("port: 99999 is not a port"),
            "{}",
            e.message
        );
        let e = err("log_format: xml\n");
        assert!(
            e.message.starts_with("log_format: unknown value `xml`"),
            "{}",
            e.message
        );
        assert_eq!(e.line, Some(1));
        let e = err("timeout: 0\n");
        assert!(
            e.message.starts_with("timeout: 0 is not a timeout"),
            "{}",
            e.message
        );
        let e = err("timeout: soon\n");
        assert!(e.message.starts_with("timeout:"), "{}", e.message);
        let e = err("tools_dir: ''\n");
        assert_eq!(e.message, "tools_dir: the path is empty");
        let e = err("log_level: loud\n");
        assert!(e.message.starts_with("log_level:"), "{}", e.message);
    }

    #[test]
    fn tools_are_requirements_in_the_cli_syntax() {
        let c = parse(
            "tools:\n  fs-read: \"^1.2\"\n  json-query: 1.2\n  echo: 1\n  any:\n",
            Path::new("/p"),
        )
        .unwrap();
        assert_eq!(c.tools["fs-read"], "^1.2");
        assert_eq!(c.tools["json-query"], "1.2");
        assert_eq!(c.tools["echo"], "1");
        assert_eq!(c.tools["any"], "latest");
        let e = err("port: 1\ntools:\n  fs-read: one\n");
        assert_eq!(e.line, Some(3));
        assert!(
            e.message
                .contains("fs-read: 'one' is neither a version nor a requirement"),
            "{}",
            e.message
        );
        let e = err("tools:\n  Fs-Read: \"1\"\n");
        assert!(e.message.contains("Fs-Read"), "{}", e.message);
        let e = err("tools:\n  a: \"1\"\n  a: \"2\"\n");
        assert!(e.message.contains("a is listed twice"), "{}", e.message);
        let e = err("tools: [a, b]\n");
        assert!(e.message.starts_with("tools:"), "{}", e.message);
    }

    #[test]
    fn duplicate_keys_and_non_mappings_are_refused() {
        let e = err("port: 1\nport: 2\n");
        assert_eq!(e.line, Some(2));
        assert_eq!(e.message, "'port' is given twice");
        let e = err("- a\n- b\n");
        assert!(e.message.contains("must be a mapping"), "{}", e.message);
    }

    #[test]
    fn registries_are_checked_with_the_shared_parser() {
        let c = parse(
            "registries:\n  - name: a\n    location: ./idx\n",
            Path::new("/p"),
        )
        .unwrap();
        assert!(c.registries.is_sequence());
        let e = err("port: 1\nregistries: 3\n");
        assert_eq!(e.line, Some(2));
        assert!(e.message.starts_with("registries:"), "{}", e.message);
    }
}
