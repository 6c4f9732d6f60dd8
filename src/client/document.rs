//! A client's configuration as text to edit: JSONC (every client but goose)
//! or YAML (goose).
//!
//! JSON files are read as JSONC, the dialect VS Code and Cursor accept
//! (comments and trailing commas), into a concrete syntax tree, and only
//! the text of orla's entry changes: comments, blank lines, indentation and
//! the other entries stay as they were. goose's YAML is parsed into a value
//! and written back whole, which drops its comments (the first backup keeps
//! them): no maintained YAML editor keeps them.

use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use jsonc_parser::ParseOptions;
use serde_json::{Map, Value};

use super::{Client, ConfigSyntax};

pub enum Document {
    Json(CstRootNode),
    Yaml(Value),
}

/// Why the servers object cannot be reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// The file's top level is not an object.
    NotAMapping,
    /// The servers key holds something else than an object.
    ServersNotAnObject,
}

/// What VS Code's JSONC parser accepts, no more: a file orla writes back
/// must still be read by the client.
fn jsonc() -> ParseOptions {
    ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

impl Document {
    pub fn parse(client: Client, bytes: &[u8]) -> Result<Document, ConfigSyntax> {
        let text = std::str::from_utf8(bytes)?;
        if client.is_yaml() {
            let value = if text.trim().is_empty() {
                Value::Null
            } else {
                serde_yaml::from_str::<Value>(text)?
            };
            return Ok(Document::Yaml(value));
        }
        Ok(Document::Json(CstRootNode::parse(text, &jsonc())?))
    }

    /// The entries under `key` (none when the key is missing).
    pub fn servers(&self, key: &str) -> Result<Map<String, Value>, Shape> {
        match self {
            Document::Yaml(value) => match value {
                Value::Null => Ok(Map::new()),
                Value::Object(root) => match root.get(key) {
                    None => Ok(Map::new()),
                    Some(Value::Object(servers)) => Ok(servers.clone()),
                    Some(_) => Err(Shape::ServersNotAnObject),
                },
                _ => Err(Shape::NotAMapping),
            },
            Document::Json(root) => {
                let Some(servers) = json_servers(root, key)? else {
                    return Ok(Map::new());
                };
                let mut out = Map::new();
                for prop in servers.properties() {
                    let (Some(name), Some(value)) = (prop.decoded_name(), prop.value()) else {
                        continue;
                    };
                    out.insert(name, value.to_serde_value().unwrap_or(Value::Null));
                }
                Ok(out)
            }
        }
    }

    /// Sets `name` under `key` to `entry`, in place when it exists, else
    /// last. The shape was checked by [`Document::servers`].
    pub fn set(&mut self, key: &str, name: &str, entry: &Value) {
        match self {
            Document::Yaml(value) => {
                if value.is_null() {
                    *value = Value::Object(Map::new());
                }
                if let Some(root) = value.as_object_mut() {
                    let servers = root.entry(key).or_insert_with(|| Value::Object(Map::new()));
                    if let Some(servers) = servers.as_object_mut() {
                        servers.insert(name.to_string(), entry.clone());
                    }
                }
            }
            Document::Json(root) => {
                let servers = root.object_value_or_set().object_value_or_set(key);
                match servers.get(name) {
                    Some(prop) => prop.set_value(input(entry)),
                    None => {
                        servers.append(name, input(entry));
                    }
                }
            }
        }
    }

    pub fn remove(&mut self, key: &str, name: &str) {
        match self {
            Document::Yaml(value) => {
                if let Some(servers) = value.get_mut(key).and_then(Value::as_object_mut) {
                    servers.shift_remove(name);
                }
            }
            Document::Json(root) => {
                if let Ok(Some(servers)) = json_servers(root, key) {
                    if let Some(prop) = servers.get(name) {
                        prop.remove();
                    }
                }
            }
        }
    }

    pub fn render(&self) -> String {
        match self {
            Document::Yaml(value) => serde_yaml::to_string(value).expect("a JSON value is YAML"),
            Document::Json(root) => {
                let mut text = root.to_string();
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                text
            }
        }
    }
}

/// The object under `key` in a JSONC document, `None` when either is missing.
fn json_servers(root: &CstRootNode, key: &str) -> Result<Option<CstObject>, Shape> {
    let Some(value) = root.value() else {
        return Ok(None);
    };
    let Some(object) = value.as_object() else {
        return Err(Shape::NotAMapping);
    };
    let Some(prop) = object.get(key) else {
        return Ok(None);
    };
    prop.object_value()
        .map(Some)
        .ok_or(Shape::ServersNotAnObject)
}

/// A JSON value as the CST inserts it.
fn input(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(input).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), input(v))).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn edit(text: &str, f: impl FnOnce(&mut Document)) -> String {
        let mut doc = Document::parse(Client::VsCode, text.as_bytes()).unwrap();
        f(&mut doc);
        doc.render()
    }

    #[test]
    fn comments_and_trailing_commas_are_kept_around_the_entry() {
        let text =
            "// mine\n{\n  \"servers\": {\n    \"a\": {\"command\": \"x\"}, // keep\n  },\n}\n";
        let entry = json!({"command": "orla", "args": ["serve"]});
        let added = edit(text, |d| d.set("servers", "orla", &entry));
        assert_eq!(
            added,
            "// mine\n{\n  \"servers\": {\n    \"a\": {\"command\": \"x\"}, // keep\n    \"orla\": {\n      \"command\": \"orla\",\n      \"args\": [\"serve\"],\n    },\n  },\n}\n"
        );
        let doc = Document::parse(Client::VsCode, added.as_bytes()).unwrap();
        assert_eq!(doc.servers("servers").unwrap()["orla"], entry);
        assert_eq!(edit(&added, |d| d.remove("servers", "orla")), text);
    }

    #[test]
    fn an_empty_file_gets_the_object() {
        let entry = json!({"command": "orla"});
        assert_eq!(
            edit("", |d| d.set("mcpServers", "orla", &entry)),
            "{\n  \"mcpServers\": {\n    \"orla\": {\n      \"command\": \"orla\"\n    }\n  }\n}\n"
        );
    }

    #[test]
    fn shapes_orla_cannot_edit_are_named() {
        let doc = |t: &str| Document::parse(Client::Cursor, t.as_bytes()).unwrap();
        assert_eq!(
            doc("[1]").servers("mcpServers").err(),
            Some(Shape::NotAMapping)
        );
        assert_eq!(
            doc("{\"mcpServers\": []}").servers("mcpServers").err(),
            Some(Shape::ServersNotAnObject)
        );
        assert!(
            Document::parse(Client::Cursor, b"{'a': 1}").is_err(),
            "not JSONC"
        );
        assert!(Document::parse(Client::Cursor, b"\xff").is_err());
    }
}
