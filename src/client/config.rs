//! Setting or taking out orla's entry in one client's configuration file.
//!
//! Entries are found by what they serve, not only by name: `add` updates
//! the entry that already serves this root (whatever its name), and
//! `remove` takes out only the entry serving this root. A project's entry
//! is named `orla-DIR`; when that name already serves another project (two
//! checkouts called `app` in the user's Claude Desktop file) it gets the
//! name `orla-DIR-HASH`, six hex digits of its path's BLAKE3, instead. An
//! entry of another server is never replaced.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::document::{Document, Shape};
use super::entry::{served_by, Serves};
use super::file::ConfigFile;
use super::{ByHand, Client, ClientError};

/// What a change does to the entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The file already holds exactly this entry.
    Unchanged,
    Added,
    Updated,
    Removed,
}

/// What to change: orla's entry for one root in one client's file.
pub struct Request<'a> {
    pub client: Client,
    /// The file, as the client names it (it may be a link).
    pub path: &'a Path,
    pub serves: &'a Serves,
    /// `--name`; else the entry serving `serves`, or a new name.
    pub name: Option<&'a str>,
    /// orla's entry: what an add sets.
    pub entry: Value,
    pub add: bool,
    /// Set for a project's own editor file: that project (what
    /// `${workspaceFolder}` means, and the directory links may not leave).
    pub project_file: Option<&'a Path>,
}

/// A change worked out in memory; nothing is written before [`Change::write`].
pub struct Change {
    pub client: Client,
    pub name: String,
    pub path: PathBuf,
    pub file: ConfigFile,
    /// The entry the file held under `name`.
    pub before: Option<Value>,
    /// orla's entry: what an add sets.
    pub entry: Value,
    pub add: bool,
    pub outcome: Outcome,
    document: Document,
}

impl Change {
    pub fn plan(request: Request) -> Result<Change, ClientError> {
        let Request {
            client,
            path,
            serves,
            name,
            mut entry,
            add,
            project_file,
        } = request;
        let file = ConfigFile::read(path, project_file)?;
        let by_hand = |name: &str, paste: bool| {
            Box::new(ByHand {
                key: client.key(),
                name: name.to_string(),
                entry: paste.then(|| entry.clone()),
            })
        };
        let shown_name = name.map_or_else(|| serves.default_name(), str::to_string);
        let bytes = file.original.as_deref().unwrap_or_default();
        let mut document =
            Document::parse(client, bytes).map_err(|source| ClientError::Unparsable {
                path: path.to_path_buf(),
                yaml: client.is_yaml(),
                source,
                by_hand: by_hand(&shown_name, add),
            })?;
        let servers = document
            .servers(client.key())
            .map_err(|shape| match shape {
                Shape::NotAMapping => ClientError::NotAMapping {
                    path: path.to_path_buf(),
                    by_hand: by_hand(&shown_name, true),
                },
                Shape::ServersNotAnObject => ClientError::ServersNotAnObject {
                    key: client.key(),
                    path: path.to_path_buf(),
                    by_hand: by_hand(&shown_name, true),
                },
            })?;
        let workspace = project_file.or_else(|| super::entry::workspace_of(path));
        let entries = Entries {
            servers: &servers,
            workspace,
            serves,
            path,
        };
        let name = match add {
            true => entries.name_to_set(name)?,
            false => entries.name_to_remove(name)?,
        };
        if client == Client::Goose {
            // goose shows an extension by the name inside it.
            entry["name"] = json!(name);
        }
        let before = servers.get(&name).cloned();
        let outcome = match (add, &before) {
            (true, Some(old)) if *old == entry => Outcome::Unchanged,
            (true, Some(_)) => Outcome::Updated,
            (true, None) => Outcome::Added,
            (false, _) => Outcome::Removed,
        };
        match outcome {
            Outcome::Added | Outcome::Updated => document.set(client.key(), &name, &entry),
            Outcome::Removed => document.remove(client.key(), &name),
            Outcome::Unchanged => {}
        }
        Ok(Change {
            client,
            name,
            path: path.to_path_buf(),
            file,
            before,
            entry,
            add,
            outcome,
            document,
        })
    }

    /// What `--dry-run` prints: the file, then the entry's lines before
    /// (`-`) and after (`+`), in the file's own format.
    pub fn preview(&self) -> String {
        let mut out = format!(
            "{} {} ({}), \"{}\":\n",
            if self.file.original.is_some() {
                "would change"
            } else {
                "would create"
            },
            self.path.display(),
            self.client.name(),
            self.client.key()
        );
        if let Some(old) = &self.before {
            out.push_str(&prefixed(self.client, '-', &self.name, old));
        }
        if self.add {
            out.push_str(&prefixed(self.client, '+', &self.name, &self.entry));
        }
        out
    }

    /// Writes the file (its directory created), the original saved first as
    /// `FILE.orla-backup` unless an earlier change saved it.
    pub fn write(&self) -> Result<(), ClientError> {
        self.file.write(self.document.render().as_bytes())
    }
}

/// The entries of one file, and the root the change is for.
struct Entries<'a> {
    servers: &'a Map<String, Value>,
    workspace: Option<&'a Path>,
    serves: &'a Serves,
    path: &'a Path,
}

impl Entries<'_> {
    /// What the entry `name` serves: a root, or `None` for another server.
    fn serves_of(&self, name: &str) -> Option<Serves> {
        served_by(name, self.servers.get(name)?, self.workspace)
    }

    fn is_ours(&self, name: &str) -> bool {
        self.serves_of(name)
            .is_some_and(|s| s.same_root(self.serves))
    }

    /// The entry serving this root: the one under the default name, else
    /// the first.
    fn ours(&self) -> Option<String> {
        let default = self.serves.default_name();
        if self.is_ours(&default) {
            return Some(default);
        }
        self.servers.keys().find(|n| self.is_ours(n)).cloned()
    }

    fn taken(&self, name: &str) -> ClientError {
        ClientError::Taken {
            path: self.path.to_path_buf(),
            name: name.to_string(),
            serves: match self.serves_of(name) {
                Some(Serves::Global) => "orla's global root".into(),
                Some(Serves::Project(dir)) => format!("the project {}", dir.display()),
                Some(Serves::Http(remote)) => format!("orla at {}", remote.url),
                None => "another server".into(),
            },
        }
    }

    /// The name an add sets: `--name` unless it holds another server; the
    /// entry that serves this root; the default name if free; else the
    /// project's distinct name.
    fn name_to_set(&self, asked: Option<&str>) -> Result<String, ClientError> {
        if let Some(name) = asked {
            if self.servers.contains_key(name) && !self.is_ours(name) {
                return Err(self.taken(name));
            }
            return Ok(name.to_string());
        }
        if let Some(name) = self.ours() {
            return Ok(name);
        }
        let default = self.serves.default_name();
        if !self.servers.contains_key(&default) {
            return Ok(default);
        }
        match self.serves.distinct_name() {
            Some(name) if !self.servers.contains_key(&name) => Ok(name),
            _ => Err(self.taken(&default)),
        }
    }

    /// The name a remove takes out: `--name` if it starts orla, else the
    /// entry serving this root.
    fn name_to_remove(&self, asked: Option<&str>) -> Result<String, ClientError> {
        let no_entry = |name: String| ClientError::NoEntry {
            path: self.path.to_path_buf(),
            name,
            others: self
                .servers
                .keys()
                .filter(|n| self.serves_of(n).is_some())
                .cloned()
                .collect(),
        };
        match asked {
            Some(name) if !self.servers.contains_key(name) => Err(no_entry(name.to_string())),
            Some(name) if self.serves_of(name).is_none() => Err(ClientError::NotOrla {
                path: self.path.to_path_buf(),
                name: name.to_string(),
            }),
            Some(name) => Ok(name.to_string()),
            None => self
                .ours()
                .ok_or_else(|| no_entry(self.serves.default_name())),
        }
    }
}

/// `name: value` in the client's format, each line after `sign`.
fn prefixed(client: Client, sign: char, name: &str, value: &Value) -> String {
    let member = json!({ name: value });
    if client.is_yaml() {
        let text = serde_yaml::to_string(&member).expect("a JSON value is YAML");
        return text.lines().map(|l| format!("{sign} {l}\n")).collect();
    }
    let text = serde_json::to_string_pretty(&member).expect("serialises");
    let lines: Vec<&str> = text.lines().collect();
    // Drop the wrapping braces, keep the member.
    lines[1..lines.len() - 1]
        .iter()
        .map(|l| format!("{sign} {}\n", l.strip_prefix("  ").unwrap_or(l)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dry_run_lines_show_the_member_in_the_files_format() {
        let entry = json!({"command": "/bin/orla"});
        let text = prefixed(Client::Cursor, '+', "orla", &entry);
        assert_eq!(text, "+ \"orla\": {\n+   \"command\": \"/bin/orla\"\n+ }\n");
        let entry = json!({"cmd": "/bin/orla", "args": ["serve"]});
        let text = prefixed(Client::Goose, '+', "orla", &entry);
        assert_eq!(
            text,
            "+ orla:\n+   cmd: /bin/orla\n+   args:\n+   - serve\n"
        );
    }

    fn entries(servers: Value, serves: &Serves) -> Result<(String, String), ClientError> {
        let servers = servers.as_object().unwrap().clone();
        let e = Entries {
            servers: &servers,
            workspace: None,
            serves,
            path: Path::new("/c.json"),
        };
        Ok((
            e.name_to_set(None)?,
            e.name_to_remove(None).unwrap_or_default(),
        ))
    }

    #[test]
    fn entries_are_found_by_the_root_they_serve() {
        let a = Serves::Project("/nonexistent/a/app".into());
        let b = Serves::Project("/nonexistent/b/app".into());
        let of =
            |dir: &str| json!({"command": "orla", "args": ["serve", "--stdio", "--project", dir]});
        // b's default name serves a: b gets its own name, and removes nothing of a's.
        let servers = json!({"orla-app": of("/nonexistent/a/app")});
        let (set, remove) = entries(servers.clone(), &b).unwrap();
        assert_eq!(set, b.distinct_name().unwrap());
        assert_eq!(remove, "");
        assert_eq!(
            entries(servers, &a).unwrap(),
            ("orla-app".into(), "orla-app".into())
        );
        // b's entry under its distinct name is found again.
        let servers = json!({"orla-app": of("/nonexistent/a/app"), "x": of("/nonexistent/b/app")});
        assert_eq!(entries(servers, &b).unwrap(), ("x".into(), "x".into()));
        // Another server under the global name is never replaced.
        let servers = json!({"orla": {"command": "npx", "args": []}});
        assert!(matches!(
            entries(servers, &Serves::Global),
            Err(ClientError::Taken { .. })
        ));
    }
}
