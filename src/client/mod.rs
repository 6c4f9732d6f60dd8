//! The entry in an MCP client's configuration that starts
//! `orla serve --stdio`, or reaches an `orla serve` over HTTP at a URL
//! (`orla client add|remove|list`).
//!
//! Each client keeps its servers in one object (`mcpServers`, `servers` for
//! VS Code, `extensions` in goose's YAML) of a file it owns. orla edits only
//! its own entry:
//!
//! - `entry`: the command that starts this orla (the path it was run by,
//!   links kept; `orla` and `${workspaceFolder}` in a project's own editor
//!   file), what an entry found in a file serves, and entry names.
//! - `document`: JSONC and goose's YAML edited in place, comments kept.
//! - `config`: which entry an add or a remove touches (found by the root
//!   it serves, so two projects never share one), the change and its
//!   `--dry-run` preview.
//! - `file`: reading and writing the file without trusting what is at its
//!   path (regular files only, links, modes, the first backup, the lock).
//!
//! A file orla cannot parse is left alone, with the entry to paste printed
//! in the error.

mod config;
mod document;
mod entry;
mod file;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use config::{Change, Outcome, Request};
pub use entry::{Launcher, Remote, Serves, WORKSPACE_FOLDER};
pub use file::lock;

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
    #[error("{} is a symbolic link to {}; orla does not follow links in a project's files", path.display(), target.display())]
    ProjectLink { path: PathBuf, target: PathBuf },
    #[error("{} is a symbolic link to {}, which does not exist", path.display(), target.display())]
    BrokenLink { path: PathBuf, target: PathBuf },
    #[error("{} is {kind}, not a regular file", path.display())]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error("{} is larger than {} bytes, far more than a client's configuration", path.display(), limit)]
    TooLarge { path: PathBuf, limit: u64 },
    #[error("cannot lock {}: {source}", path.display())]
    Lock {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("\"{name}\" in {} already serves {serves}", path.display())]
    Taken {
        path: PathBuf,
        name: String,
        /// What the entry serves: a root, or another server.
        serves: String,
    },
    #[error("'{0}' is not the URL of an `orla serve` over HTTP")]
    BadUrl(String),
    #[error("'{0}' is not the name of an environment variable")]
    BadVariable(String),
    #[error("{client}'s configuration file holds only servers it starts, not servers at a URL")]
    NoHttp { client: &'static str },
    #[error("orla knows no way to make {client} read the token from a variable")]
    NoTokenVariable { client: &'static str },
    #[error("\"{name}\" in {} does not start `orla serve`; orla removes only its own entries", path.display())]
    NotOrla { path: PathBuf, name: String },
}

/// Why a client's configuration file could not be parsed.
#[derive(Debug, thiserror::Error)]
pub enum ConfigSyntax {
    #[error(transparent)]
    Json(#[from] jsonc_parser::errors::ParseError),
    #[error("it is not UTF-8: {0}")]
    Encoding(#[from] std::str::Utf8Error),
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
            ClientError::NoEntry { others, .. } => format!(
                "its entries that start orla serve other roots: {}; pass --name NAME to remove one",
                others.join(", ")
            ),
            ClientError::Read { path, .. } => format!(
                "check that you may read {}, or pass --config FILE to name the client's file",
                path.display()
            ),
            ClientError::Write { path, .. } => {
                format!("check that you may write to {}", path.display())
            }
            ClientError::ProjectLink { path, .. } => format!(
                "check where it leads; remove {} and run this again to write the project's own file",
                path.display()
            ),
            ClientError::BrokenLink { target, .. } => {
                format!("create {}, or remove the link", target.display())
            }
            ClientError::NotAFile { .. } | ClientError::TooLarge { .. } => {
                "move it out of the way, or pass --config FILE to name the client's file".into()
            }
            ClientError::Lock { path, .. } => format!(
                "check that you may write to {}",
                path.parent().unwrap_or(path).display()
            ),
            ClientError::Taken { .. } => "pass --name NAME to give orla's entry another name".into(),
            ClientError::NotOrla { name, .. } => {
                format!("remove \"{name}\" by hand if you mean to")
            }
            ClientError::BadUrl(_) => {
                "give the URL `orla serve --port N` prints, such as http://127.0.0.1:8080/mcp".into()
            }
            ClientError::BadVariable(_) => {
                "a name has letters, digits and '_', not starting with a digit, such as ORLA_SERVE_TOKEN".into()
            }
            ClientError::NoHttp { .. } => {
                "leave out --url: the entry that starts `orla serve --stdio` needs no token".into()
            }
            ClientError::NoTokenVariable { client } => format!(
                "leave out --token-env and add the Authorization header in {client}'s settings, or leave out --url for the entry that starts `orla serve --stdio`"
            ),
            // The running executable cannot be found: nothing to change.
            ClientError::OwnPath(_) => return None,
        })
    }

    /// The command line asked for something impossible (exit 2).
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            ClientError::Unknown(_)
                | ClientError::BadUrl(_)
                | ClientError::BadVariable(_)
                | ClientError::NoHttp { .. }
                | ClientError::NoTokenVariable { .. }
        )
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

    /// The editors whose project has a file of its own.
    pub fn has_project_file(self) -> bool {
        matches!(self, Client::Cursor | Client::VsCode)
    }

    /// The line after a change: when the client reads it.
    pub fn takes_effect(self) -> &'static str {
        match self {
            // VS Code watches mcp.json and offers to start a new server.
            Client::VsCode => "VS Code picks the entry up without a restart",
            Client::ClaudeDesktop => "restart claude-desktop to start orla",
            Client::Cursor => "restart cursor to start orla",
            Client::Windsurf => "restart windsurf to start orla",
            Client::Goose => "restart goose to start orla",
        }
    }
}

/// One client's configuration file and the entries in it that start orla.
pub struct Place {
    pub client: Client,
    pub path: PathBuf,
    pub exists: bool,
    /// (name, what it serves: `global` or `project DIR`), or `?` and why
    /// the file cannot be read.
    pub entries: Vec<(String, String)>,
}

/// Every client's configuration files (the user's, and `project`'s for the
/// editors that have one) and the entries in them that start orla.
pub fn places(project: Option<&Path>) -> Vec<Place> {
    let mut out = Vec::new();
    for client in CLIENTS {
        let mut files = vec![(client.config_path(&Serves::Global), None)];
        if let Some(dir) = project {
            let own = client.config_path(&Serves::Project(dir.to_path_buf()));
            if own != files[0].0 {
                files.push((own, Some(dir)));
            }
        }
        for (path, project) in files {
            let Some(path) = path else {
                continue;
            };
            out.push(Place {
                client,
                entries: orla_entries(&path, client, project),
                exists: path.is_file(),
                path,
            });
        }
    }
    out
}

/// (name, what it serves) of the entries that start `orla serve`.
fn orla_entries(path: &Path, client: Client, project: Option<&Path>) -> Vec<(String, String)> {
    let unreadable = |why: String| vec![("?".to_string(), why)];
    let file = match file::ConfigFile::read(path, project) {
        Ok(file) => file,
        Err(e) => return unreadable(format!("unreadable: {e}")),
    };
    let Some(bytes) = &file.original else {
        return Vec::new();
    };
    let servers = match document::Document::parse(client, bytes) {
        Ok(document) => document.servers(client.key()),
        Err(e) => return unreadable(format!("unreadable: {e}")),
    };
    let Ok(servers) = servers else {
        return unreadable("unreadable: not a mapping of servers".into());
    };
    let workspace = project.or_else(|| entry::workspace_of(path));
    servers
        .iter()
        .filter_map(|(name, value)| {
            let serves = entry::served_by(name, value, workspace)?;
            Some((name.clone(), serves.describe()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_names() {
        assert_eq!(
            Client::parse("Claude-Desktop").ok(),
            Some(Client::ClaudeDesktop)
        );
        assert!(Client::parse("zed").is_err());
    }
}
