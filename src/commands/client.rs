//! `orla client add|remove|list`: the entry in an MCP client's JSON
//! configuration that starts `orla serve --stdio`.
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

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use crate::cli::{ClientArgs, ClientCommand, ClientListArgs};
use crate::context::Context;
use crate::error::Error;
use crate::project::Project;

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
enum Serves {
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

    fn parse(text: &str) -> Option<Client> {
        let text = text.to_ascii_lowercase();
        let alias = match text.as_str() {
            "claude" | "claude-desktop" | "claude_desktop" => Client::ClaudeDesktop,
            "cursor" => Client::Cursor,
            "vscode" | "vs-code" | "code" => Client::VsCode,
            "windsurf" => Client::Windsurf,
            "goose" => Client::Goose,
            _ => return None,
        };
        Some(alias)
    }

    /// The object holding the servers.
    fn key(self) -> &'static str {
        match self {
            Client::VsCode => "servers",
            Client::Goose => "extensions",
            _ => "mcpServers",
        }
    }

    /// The configuration file: a project's own for the editors that have
    /// one, else the user's.
    fn config_path(self, serves: &Serves) -> Option<PathBuf> {
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
    fn read_config(self, bytes: &[u8]) -> Result<Value, String> {
        if self.is_yaml() {
            serde_yaml::from_slice::<Value>(bytes).map_err(|e| e.to_string())
        } else {
            serde_json::from_slice(bytes).map_err(|e| e.to_string())
        }
    }

    fn render(self, config: &Value) -> String {
        if self.is_yaml() {
            serde_yaml::to_string(config).expect("a JSON value is YAML")
        } else {
            serde_json::to_string_pretty(config).expect("JSON serialises") + "\n"
        }
    }
}

pub fn run(ctx: &Context, command: &ClientCommand) -> Result<(), Error> {
    match command {
        ClientCommand::Add(args) => change(ctx, args, true),
        ClientCommand::Remove(args) => change(ctx, args, false),
        ClientCommand::List(args) => list(ctx, args),
    }
}

fn client_of(text: &str) -> Result<Client, Error> {
    Client::parse(text).ok_or_else(|| {
        let names: Vec<&str> = CLIENTS.iter().map(|c| c.name()).collect();
        Error::usage(
            format!("unknown MCP client '{text}'"),
            Some(format!("orla configures: {}", names.join(", "))),
        )
    })
}

fn serves(ctx: &Context, args: &ClientArgs) -> Result<Serves, Error> {
    if args.global {
        return Ok(Serves::Global);
    }
    Ok(match Project::find(&ctx.cwd)? {
        Some(project) => Serves::Project(project.dir),
        None => Serves::Global,
    })
}

fn default_name(serves: &Serves) -> String {
    match serves {
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

/// The server entry that starts `orla serve --stdio` for `serves`.
fn entry(ctx: &Context, client: Client, serves: &Serves, name: &str) -> Result<Value, Error> {
    let exe = std::env::current_exe()
        .map_err(|e| Error::other(format!("cannot find orla's own path: {e}"), None))?;
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
    let env = (default_home.as_deref() != Some(ctx.home.as_path()))
        .then(|| json!({ "ORLA_HOME": ctx.home.display().to_string() }));
    let mut entry = Map::new();
    if client == Client::Goose {
        entry.insert("name".into(), json!(name));
        entry.insert("type".into(), json!("stdio"));
        entry.insert("cmd".into(), json!(exe.display().to_string()));
        entry.insert("args".into(), json!(args));
        entry.insert("enabled".into(), json!(true));
        entry.insert("envs".into(), env.unwrap_or_else(|| json!({})));
        entry.insert("timeout".into(), json!(300));
        return Ok(Value::Object(entry));
    }
    if client == Client::VsCode {
        entry.insert("type".into(), json!("stdio"));
    }
    entry.insert("command".into(), json!(exe.display().to_string()));
    entry.insert("args".into(), json!(args));
    if let Some(env) = env {
        entry.insert("env".into(), env);
    }
    Ok(Value::Object(entry))
}

fn change(ctx: &Context, args: &ClientArgs, add: bool) -> Result<(), Error> {
    let client = client_of(&args.client)?;
    let serves = serves(ctx, args)?;
    let name = args.name.clone().unwrap_or_else(|| default_name(&serves));
    let path = match &args.config {
        Some(p) => ctx.cwd.join(p),
        None => client.config_path(&serves).ok_or_else(|| {
            Error::other(
                "cannot find your home directory",
                Some("pass --config FILE".into()),
            )
        })?,
    };
    let new_entry = entry(ctx, client, &serves, &name)?;
    let original = match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(Error::other(
                format!("cannot read {}: {e}", path.display()),
                None,
            ))
        }
    };
    let paste = || {
        format!(
            "add this under \"{}\" by hand: \"{name}\": {}",
            client.key(),
            new_entry
        )
    };
    let mut config: Value = match &original {
        None => json!({}),
        Some(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => json!({}),
        Some(bytes) => client.read_config(bytes).map_err(|e| {
            Error::other(
                format!(
                    "{} is not {} orla can edit: {e}",
                    path.display(),
                    if client.is_yaml() { "YAML" } else { "JSON" }
                ),
                Some(if add {
                    paste()
                } else {
                    format!("remove \"{name}\" from \"{}\" by hand", client.key())
                }),
            )
        })?,
    };
    // An empty YAML document is null.
    if config.is_null() {
        config = json!({});
    }
    let Some(root) = config.as_object_mut() else {
        return Err(Error::other(
            format!("{} does not hold a mapping of settings", path.display()),
            Some(paste()),
        ));
    };
    let servers = root
        .entry(client.key())
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(servers) = servers.as_object_mut() else {
        return Err(Error::other(
            format!(
                "\"{}\" in {} is not a JSON object",
                client.key(),
                path.display()
            ),
            Some(paste()),
        ));
    };
    let before = servers.get(&name).cloned();
    let report = |verb: &str| {
        ctx.reporter.status(
            verb,
            &format!("{name} in {} ({})", path.display(), client.name()),
        )
    };
    if add {
        if before.as_ref() == Some(&new_entry) {
            report("Unchanged");
            return Ok(());
        }
        servers.insert(name.clone(), new_entry.clone());
    } else {
        if before.is_none() {
            let others: Vec<&String> = servers.keys().filter(|k| k.starts_with("orla")).collect();
            return Err(Error::other(
                format!("{} has no entry \"{name}\"", path.display()),
                Some(if others.is_empty() {
                    "`orla client list` shows where orla is configured".to_string()
                } else {
                    format!(
                        "it has {}; pass --name NAME",
                        others
                            .iter()
                            .map(|s| s.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }),
            ));
        }
        servers.remove(&name);
    }
    if args.dry_run {
        let mut out = format!(
            "{} {} ({}), \"{}\":\n",
            if original.is_some() {
                "would change"
            } else {
                "would create"
            },
            path.display(),
            client.name(),
            client.key()
        );
        if let Some(old) = &before {
            out.push_str(&prefixed('-', &name, old));
        }
        if add {
            out.push_str(&prefixed('+', &name, &new_entry));
        }
        return super::write_stdout(out.as_bytes());
    }
    let text = client.render(&config);
    write(&path, original.as_deref(), text.as_bytes())?;
    report(match (add, before.is_some()) {
        (true, false) => "Added",
        (true, true) => "Updated",
        (false, _) => "Removed",
    });
    if add {
        ctx.reporter.status(
            "Next",
            &format!(
                "restart {} to start orla; `orla client remove {}` undoes this",
                client.name(),
                client.name()
            ),
        );
    }
    Ok(())
}

fn prefixed(sign: char, name: &str, value: &Value) -> String {
    let text = serde_json::to_string_pretty(&json!({ name: value })).expect("serialises");
    let lines: Vec<&str> = text.lines().collect();
    // Drop the wrapping braces, keep the member.
    lines[1..lines.len() - 1]
        .iter()
        .map(|l| format!("{sign} {}\n", l.strip_prefix("  ").unwrap_or(l)))
        .collect()
}

fn write(path: &Path, original: Option<&[u8]>, text: &[u8]) -> Result<(), Error> {
    let fail = |what: &str, p: &Path, e: std::io::Error| {
        Error::other(format!("cannot {what} {}: {e}", p.display()), None)
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| fail("create", parent, e))?;
    }
    if let Some(bytes) = original {
        let mut backup = path.as_os_str().to_owned();
        backup.push(".orla-backup");
        let backup = PathBuf::from(backup);
        crate::fs::atomic_write(&backup, bytes).map_err(|e| fail("write", &backup, e))?;
    }
    crate::fs::atomic_write(path, text).map_err(|e| fail("write", path, e))
}

/// Every client's configuration files (the user's, and the current
/// project's for the editors that have one) and the entries in them that
/// start orla.
fn list(ctx: &Context, args: &ClientListArgs) -> Result<(), Error> {
    let project = Project::find(&ctx.cwd)?.map(|p| Serves::Project(p.dir));
    let mut rows = Vec::new();
    for client in CLIENTS {
        let mut places = vec![Serves::Global];
        if let Some(p) = &project {
            if client.config_path(p) != client.config_path(&Serves::Global) {
                places.push(p.clone());
            }
        }
        for place in places {
            let Some(path) = client.config_path(&place) else {
                continue;
            };
            let entries = orla_entries(&path, client);
            rows.push((client, path, entries));
        }
    }
    if args.json {
        let out: Vec<Value> = rows
            .iter()
            .map(|(client, path, entries)| {
                json!({
                    "client": client.name(),
                    "config": path.display().to_string(),
                    "exists": path.is_file(),
                    "entries": entries.iter().map(|(name, serves)| json!({"name": name, "serves": serves})).collect::<Vec<_>>(),
                })
            })
            .collect();
        let text = serde_json::to_string_pretty(&out).expect("serialises") + "\n";
        return super::write_stdout(text.as_bytes());
    }
    let mut table = Vec::new();
    for (client, path, entries) in &rows {
        if entries.is_empty() {
            let state = if path.is_file() { "-" } else { "(no file)" };
            table.push(vec![
                client.name().to_string(),
                state.into(),
                String::new(),
                path.display().to_string(),
            ]);
        }
        for (name, serves) in entries {
            table.push(vec![
                client.name().to_string(),
                name.clone(),
                serves.clone(),
                path.display().to_string(),
            ]);
        }
    }
    super::write_stdout(super::table(&["CLIENT", "ENTRY", "SERVES", "CONFIG"], &table).as_bytes())
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
        assert_eq!(default_name(&Serves::Global), "orla");
        assert_eq!(
            default_name(&Serves::Project(PathBuf::from("/w/my app"))),
            "orla-my-app"
        );
        assert_eq!(Client::parse("Claude-Desktop"), Some(Client::ClaudeDesktop));
        assert_eq!(Client::parse("zed"), None);
    }

    #[test]
    fn dry_run_lines_show_the_member() {
        let text = prefixed('+', "orla", &json!({"command": "/bin/orla"}));
        assert_eq!(text, "+ \"orla\": {\n+   \"command\": \"/bin/orla\"\n+ }\n");
    }
}
