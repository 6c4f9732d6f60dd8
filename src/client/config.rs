//! Setting or taking out orla's entry in one client's configuration file.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

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

/// A change worked out in memory; nothing is written before [`Change::write`].
pub struct Change {
    pub client: Client,
    pub name: String,
    pub path: PathBuf,
    /// The file's bytes before the change; `None` when it does not exist.
    pub original: Option<Vec<u8>>,
    /// The entry the file held under `name`.
    pub before: Option<Value>,
    /// orla's entry: what an add sets.
    pub entry: Value,
    pub add: bool,
    pub outcome: Outcome,
    config: Value,
}

impl Change {
    /// Sets `entry` under `name` (`add`), or takes `name` out, in the
    /// configuration at `path`.
    pub fn plan(
        client: Client,
        path: &Path,
        name: &str,
        entry: Value,
        add: bool,
    ) -> Result<Change, ClientError> {
        let original = match std::fs::read(path) {
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => {
                return Err(ClientError::Read {
                    path: path.to_path_buf(),
                    source,
                })
            }
        };
        let by_hand = |paste: bool| {
            Box::new(ByHand {
                key: client.key(),
                name: name.to_string(),
                entry: paste.then(|| entry.clone()),
            })
        };
        let mut config: Value = match &original {
            None => json!({}),
            Some(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => json!({}),
            Some(bytes) => client
                .read_config(bytes)
                .map_err(|source| ClientError::Unparsable {
                    path: path.to_path_buf(),
                    yaml: client.is_yaml(),
                    source,
                    by_hand: by_hand(add),
                })?,
        };
        // An empty YAML document is null.
        if config.is_null() {
            config = json!({});
        }
        let Some(root) = config.as_object_mut() else {
            return Err(ClientError::NotAMapping {
                path: path.to_path_buf(),
                by_hand: by_hand(true),
            });
        };
        let servers = root
            .entry(client.key())
            .or_insert_with(|| Value::Object(Map::new()));
        let Some(servers) = servers.as_object_mut() else {
            return Err(ClientError::ServersNotAnObject {
                key: client.key(),
                path: path.to_path_buf(),
                by_hand: by_hand(true),
            });
        };
        let before = servers.get(name).cloned();
        let outcome = match add {
            true if before.as_ref() == Some(&entry) => Outcome::Unchanged,
            true => {
                servers.insert(name.to_string(), entry.clone());
                if before.is_some() {
                    Outcome::Updated
                } else {
                    Outcome::Added
                }
            }
            false if before.is_none() => {
                return Err(ClientError::NoEntry {
                    path: path.to_path_buf(),
                    name: name.to_string(),
                    others: servers
                        .keys()
                        .filter(|k| k.starts_with("orla"))
                        .cloned()
                        .collect(),
                })
            }
            false => {
                servers.remove(name);
                Outcome::Removed
            }
        };
        Ok(Change {
            client,
            name: name.to_string(),
            path: path.to_path_buf(),
            original,
            before,
            entry,
            add,
            outcome,
            config,
        })
    }

    /// What `--dry-run` prints: the file, then the entry's lines before
    /// (`-`) and after (`+`).
    pub fn preview(&self) -> String {
        let mut out = format!(
            "{} {} ({}), \"{}\":\n",
            if self.original.is_some() {
                "would change"
            } else {
                "would create"
            },
            self.path.display(),
            self.client.name(),
            self.client.key()
        );
        if let Some(old) = &self.before {
            out.push_str(&prefixed('-', &self.name, old));
        }
        if self.add {
            out.push_str(&prefixed('+', &self.name, &self.entry));
        }
        out
    }

    /// Writes the file (its parent created), the original saved first as
    /// `FILE.orla-backup`.
    pub fn write(&self) -> Result<(), ClientError> {
        let fail = |what: &'static str, p: &Path, source: std::io::Error| ClientError::Write {
            what,
            path: p.to_path_buf(),
            source,
        };
        let path = &self.path;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| fail("create", parent, e))?;
        }
        if let Some(bytes) = &self.original {
            let mut backup = path.as_os_str().to_owned();
            backup.push(".orla-backup");
            let backup = PathBuf::from(backup);
            crate::fs::atomic_write(&backup, bytes).map_err(|e| fail("write", &backup, e))?;
        }
        let text = self.client.render(&self.config);
        crate::fs::atomic_write(path, text.as_bytes()).map_err(|e| fail("write", path, e))
    }
}

/// `"name": value` as pretty JSON, each line after `sign`.
fn prefixed(sign: char, name: &str, value: &Value) -> String {
    let text = serde_json::to_string_pretty(&json!({ name: value })).expect("serialises");
    let lines: Vec<&str> = text.lines().collect();
    // Drop the wrapping braces, keep the member.
    lines[1..lines.len() - 1]
        .iter()
        .map(|l| format!("{sign} {}\n", l.strip_prefix("  ").unwrap_or(l)))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn dry_run_lines_show_the_member() {
        let text = super::prefixed('+', "orla", &serde_json::json!({"command": "/bin/orla"}));
        assert_eq!(text, "+ \"orla\": {\n+   \"command\": \"/bin/orla\"\n+ }\n");
    }
}
