//! The entry in an MCP client's configuration that starts
//! `orla serve --stdio` (`orla client add|remove|list`).
//!
//! Each client keeps its servers in one object (`mcpServers`, `servers` for
//! VS Code, `extensions` in goose's YAML) of a file it owns. orla edits only
//! its own entry: the file is parsed with its key order kept, the entry is
//! set or taken out, and the file is written back atomically (JSON indented
//! by two spaces; YAML without its comments) after the original is saved
//! beside it as `FILE.orla-backup`. A file orla
//! cannot parse (JSON with comments, say) is left alone with the entry to
//! paste printed in the error. The entry names orla by its absolute path,
//! since desktop clients do not start servers with the user's shell PATH,
//! and it serves the root `orla list` shows (`--global` or `--project DIR`).

mod config;

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

pub use config::{Change, Outcome};

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("unknown MCP client '{0}'")]
    Unknown(String),
    #[error("cannot find your home directory")]
    NoHome,
    #[error("cannot find orla's own path: {0}")]
    OwnPath(std::io::Error),
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not {} orla can edit: {source}", path.display(), if *yaml { "YAML" } else { "JSON" })]
    Unparsable {
        path: PathBuf,
        yaml: bool,
        #[source]
        source: ConfigSyntax,
        by_hand: Box<ByHand>,
    },
    #[error("{} does not hold a mapping of settings", path.display())]
    NotAMapping { path: PathBuf, by_hand: Box<ByHand> },
    #[error("\"{key}\" in {} is not a JSON object", path.display())]
    ServersNotAnObject {
        key: &'static str,
        path: PathBuf,
        by_hand: Box<ByHand>,
    },
    #[error("{} has no entry \"{name}\"", path.display())]
    NoEntry {
        path: PathBuf,
        name: String,
        /// The entries whose name starts with `orla`.
        others: Vec<String>,
    },
    #[error("cannot {what} {}: {source}", path.display())]
    Write {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Why a client's configuration file could not be parsed.
#[derive(Debug, thiserror::Error)]
pub enum ConfigSyntax {
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Yaml(#[from] serde_yaml::Error),
}

impl ClientError {
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            ClientError::Unknown(_) => {
                let names: Vec<&str> = CLIENTS.iter().map(|c| c.name()).collect();
                format!("orla configures: {}", names.join(", "))
            }
            ClientError::NoHome => "pass --config FILE".into(),
            ClientError::Unparsable { by_hand, .. }
            | ClientError::NotAMapping { by_hand, .. }
            | ClientError::ServersNotAnObject { by_hand, .. } => by_hand.to_string(),
            ClientError::NoEntry { others, .. } if others.is_empty() => {
                "`orla client list` shows where orla is configured".into()
            }
            ClientError::NoEntry { others, .. } => {
                format!("it has {}; pass --name NAME", others.join(", "))
            }
            ClientError::Read { path, .. } => format!(
                "check that you may read {}, or pass --config FILE to name the client's file",
                path.display()
            ),
            ClientError::Write { path, .. } => {
                format!("check that you may write to {}", path.display())
            }
            // The running executable cannot be found: nothing to change.
            ClientError::OwnPath(_) => return None,
        })
    }

    /// The command line asked for something impossible (exit 2).
    pub fn is_usage(&self) -> bool {
        matches!(self, ClientError::Unknown(_))
    }
}

/// What to do by hand when orla cannot edit a file: paste the entry, or
/// take it out.
#[derive(Debug)]
pub struct ByHand {
    key: &'static str,
    name: String,
    /// The entry to paste; `None` when removing.
    entry: Option<Value>,
}

impl std::fmt::Display for ByHand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (key, name) = (self.key, &self.name);
        match &self.entry {
            Some(entry) => write!(f, "add this under \"{key}\" by hand: \"{name}\": {entry}"),
            None => write!(f, "remove \"{name}\" from \"{key}\" by hand"),
        }
    }
}

/// An MCP client orla knows how to configure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    ClaudeDesktop,
    Cursor,
    VsCode,
    Windsurf,
    Goose,
}

pub const CLIENTS: [Client; 5] = [
    Client::ClaudeDesktop,
    Client::Cursor,
    Client::VsCode,
    Client::Windsurf,
    Client::Goose,
];

/// Where the entry goes, and what it serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Serves {
    Global,
    Project(PathBuf),
}

impl Client {
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "claude-desktop",
            Client::Cursor => "cursor",
            Client::VsCode => "vscode",
            Client::Windsurf => "windsurf",
            Client::Goose => "goose",
        }
    }

    /// The client a name or alias (`claude`, `code`) means.
    pub fn parse(text: &str) -> Result<Client, ClientError> {
        let alias = match text.to_ascii_lowercase().as_str() {
            "claude" | "claude-desktop" | "claude_desktop" => Client::ClaudeDesktop,
            "cursor" => Client::Cursor,
            "vscode" | "vs-code" | "code" => Client::VsCode,
            "windsurf" => Client::Windsurf,
            "goose" => Client::Goose,
            _ => return Err(ClientError::Unknown(text.to_string())),
        };
        Ok(alias)
    }

    /// The object holding the servers.
    pub fn key(self) -> &'static str {
        match self {
            Client::VsCode => "servers",
            Client::Goose => "extensions",
            _ => "mcpServers",
        }
    }

    /// The configuration file: a project's own for the editors that have
    /// one, else the user's.
    pub fn config_path(self, serves: &Serves) -> Option<PathBuf> {
        let dirs = directories::BaseDirs::new()?;
        let home = dirs.home_dir();
        Some(match (self, serves) {
            (Client::Cursor, Serves::Project(dir)) => dir.join(".cursor/mcp.json"),
            (Client::VsCode, Serves::Project(dir)) => dir.join(".vscode/mcp.json"),
            (Client::ClaudeDesktop, _) => {
                dirs.config_dir().join("Claude/claude_desktop_config.json")
            }
            (Client::Cursor, _) => home.join(".cursor/mcp.json"),
            (Client::VsCode, _) => dirs.config_dir().join("Code/User/mcp.json"),
            (Client::Windsurf, _) => home.join(".codeium/windsurf/mcp_config.json"),
            // goose follows XDG on macOS too, and has its own place on Windows.
            (Client::Goose, _) if cfg!(windows) => {
                dirs.config_dir().join("Block/goose/config/config.yaml")
            }
            (Client::Goose, _) if cfg!(target_os = "macos") => {
                home.join(".config/goose/config.yaml")
            }
            (Client::Goose, _) => dirs.config_dir().join("goose/config.yaml"),
        })
    }

    fn is_yaml(self) -> bool {
        self == Client::Goose
    }

    /// Reads the configuration, JSON or (goose) YAML, keeping key order.
    fn read_config(self, bytes: &[u8]) -> Result<Value, ConfigSyntax> {
        if self.is_yaml() {
            Ok(serde_yaml::from_slice::<Value>(bytes)?)
        } else {
            Ok(serde_json::from_slice(bytes)?)
        }
    }

    fn render(self, config: &Value) -> String {
        if self.is_yaml() {
            serde_yaml::to_string(config).expect("a JSON value is YAML")
        } else {
            serde_json::to_string_pretty(config).expect("JSON serialises") + "\n"
        }
    }

    /// The server entry that starts `orla serve --stdio` for `serves`,
    /// with `ORLA_HOME` set when `home` is not the default root.
    pub fn entry(self, serves: &Serves, name: &str, home: &Path) -> Result<Value, ClientError> {
        let exe = std::env::current_exe().map_err(ClientError::OwnPath)?;
        let mut args = vec!["serve".to_string(), "--stdio".to_string()];
        match serves {
            Serves::Global => args.push("--global".into()),
            Serves::Project(dir) => {
                args.push("--project".into());
                args.push(dir.display().to_string());
            }
        }
        // A root other than ~/.orla must reach the server too.
        let default_home = directories::BaseDirs::new().map(|d| d.home_dir().join(".orla"));
        let env = (default_home.as_deref() != Some(home))
            .then(|| json!({ "ORLA_HOME": home.display().to_string() }));
        let mut entry = Map::new();
        if self == Client::Goose {
            entry.insert("name".into(), json!(name));
            entry.insert("type".into(), json!("stdio"));
            entry.insert("cmd".into(), json!(exe.display().to_string()));
            entry.insert("args".into(), json!(args));
            entry.insert("enabled".into(), json!(true));
            entry.insert("envs".into(), env.unwrap_or_else(|| json!({})));
            entry.insert("timeout".into(), json!(300));
            return Ok(Value::Object(entry));
        }
        if self == Client::VsCode {
            entry.insert("type".into(), json!("stdio"));
        }
        entry.insert("command".into(), json!(exe.display().to_string()));
        entry.insert("args".into(), json!(args));
        if let Some(env) = env {
            entry.insert("env".into(), env);
        }
        Ok(Value::Object(entry))
    }
}

impl Serves {
    /// The entry's name when none is given: `orla`, or `orla-DIR` for a project.
    pub fn default_name(&self) -> String {
        match self {
            Serves::Global => "orla".into(),
            Serves::Project(dir) => {
                let base: String = dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                            c
                        } else {
                            '-'
                        }
                    })
                    .collect();
                if base.is_empty() {
                    "orla-project".into()
                } else {
                    format!("orla-{base}")
                }
            }
        }
    }
}

/// One client's configuration file and the entries in it that start orla.
pub struct Place {
    pub client: Client,
    pub path: PathBuf,
    pub exists: bool,
    /// (name, what it serves: `global` or `project DIR`).
    pub entries: Vec<(String, String)>,
}

/// Every client's configuration files (the user's, and `project`'s for the
/// editors that have one) and the entries in them that start orla.
pub fn places(project: Option<&Path>) -> Vec<Place> {
    let project = project.map(|dir| Serves::Project(dir.to_path_buf()));
    let mut out = Vec::new();
    for client in CLIENTS {
        let mut serves = vec![Serves::Global];
        if let Some(p) = &project {
            if client.config_path(p) != client.config_path(&Serves::Global) {
                serves.push(p.clone());
            }
        }
        for s in serves {
            let Some(path) = client.config_path(&s) else {
                continue;
            };
            out.push(Place {
                client,
                entries: orla_entries(&path, client),
                exists: path.is_file(),
                path,
            });
        }
    }
    out
}

/// (name, what it serves) of the entries whose command is an `orla`
/// executable running `serve`.
fn orla_entries(path: &Path, client: Client) -> Vec<(String, String)> {
    let Ok(bytes) = std::fs::read(path) else {
        return Vec::new();
    };
    let Ok(config) = client.read_config(&bytes) else {
        return vec![("?".into(), "unreadable".into())];
    };
    let Some(servers) = config.get(client.key()).and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, entry) in servers {
        let command = entry
            .get("command")
            .or_else(|| entry.get("cmd"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let is_orla = Path::new(command).file_stem().is_some_and(|s| s == "orla");
        let args: Vec<&str> = entry
            .get("args")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if !is_orla || args.first() != Some(&"serve") {
            continue;
        }
        let serves = match args.iter().position(|a| *a == "--project") {
            Some(i) => args
                .get(i + 1)
                .map(|d| format!("project {d}"))
                .unwrap_or_default(),
            None => "global".into(),
        };
        out.push((name.clone(), serves));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(Serves::Global.default_name(), "orla");
        assert_eq!(
            Serves::Project(PathBuf::from("/w/my app")).default_name(),
            "orla-my-app"
        );
        assert_eq!(
            Client::parse("Claude-Desktop").ok(),
            Some(Client::ClaudeDesktop)
        );
        assert!(Client::parse("zed").is_err());
    }
}
