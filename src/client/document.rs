//! A client's configuration as text to edit: JSONC (every client but goose)
//! or YAML (goose).
//!
//! JSON files are read as JSONC, the dialect VS Code and Cursor accept
//! (comments and trailing commas), into a concrete syntax tree, and only
//! the text of orla's entry changes: comments, blank lines, indentation and
//! the other entries stay as they were (a byte order mark too).
//!
//! No maintained Rust crate edits YAML keeping its comments, so goose's
//! file is parsed into a value for its meaning, and the text is edited by
//! lines where it has the block layout goose itself writes: the entry's
//! lines under the top-level `extensions:` are replaced, appended or cut
//! out, and every other line stays. The edited text is parsed again and
//! must mean exactly the changed value; where it does not (flow style,
//! tabs, quoted keys, anchors), the value is written back whole, without
//! its comments (the first backup keeps them).

use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use jsonc_parser::ParseOptions;
use serde_json::{json, Map, Value};

use super::{Client, ConfigSyntax};

const BOM: char = '\u{feff}';

pub enum Document {
    Json {
        root: CstRootNode,
        /// The text started with a byte order mark, which the parser does
        /// not take and the rewrite puts back.
        bom: bool,
    },
    Yaml {
        value: Value,
        /// The text with every change so far, while line edits keep its
        /// meaning; `None` once the value must be written whole.
        text: Option<String>,
    },
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
            return Ok(Document::Yaml {
                value: yaml_value(text)?,
                text: Some(text.to_string()),
            });
        }
        let bom = text.starts_with(BOM);
        let text = text.strip_prefix(BOM).unwrap_or(text);
        Ok(Document::Json {
            root: CstRootNode::parse(text, &jsonc())?,
            bom,
        })
    }

    /// The entries under `key` (none when the key is missing).
    pub fn servers(&self, key: &str) -> Result<Map<String, Value>, Shape> {
        match self {
            Document::Yaml { value, .. } => match value {
                Value::Null => Ok(Map::new()),
                Value::Object(root) => match root.get(key) {
                    // `extensions:` with nothing under it yet.
                    None | Some(Value::Null) => Ok(Map::new()),
                    Some(Value::Object(servers)) => Ok(servers.clone()),
                    Some(_) => Err(Shape::ServersNotAnObject),
                },
                _ => Err(Shape::NotAMapping),
            },
            Document::Json { root, .. } => {
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
            Document::Yaml { value, text } => {
                if value.is_null() {
                    *value = Value::Object(Map::new());
                }
                if let Some(root) = value.as_object_mut() {
                    let servers = root.entry(key).or_insert_with(|| Value::Object(Map::new()));
                    if servers.is_null() {
                        *servers = Value::Object(Map::new());
                    }
                    if let Some(servers) = servers.as_object_mut() {
                        servers.insert(name.to_string(), entry.clone());
                    }
                }
                edit_yaml(text, value, key, name, Some(entry));
            }
            Document::Json { root, .. } => {
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
            Document::Yaml { value, text } => {
                if let Some(servers) = value.get_mut(key).and_then(Value::as_object_mut) {
                    servers.shift_remove(name);
                }
                edit_yaml(text, value, key, name, None);
            }
            Document::Json { root, .. } => {
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
            Document::Yaml {
                text: Some(text), ..
            } => text.clone(),
            Document::Yaml { value, .. } => {
                serde_yaml::to_string(value).expect("a JSON value is YAML")
            }
            Document::Json { root, bom } => {
                let mut text = root.to_string();
                if *bom {
                    text.insert(0, BOM);
                }
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                text
            }
        }
    }
}

/// A YAML text's meaning; an empty file is null.
fn yaml_value(text: &str) -> Result<Value, serde_yaml::Error> {
    match text.trim().is_empty() {
        true => Ok(Value::Null),
        false => serde_yaml::from_str::<Value>(text),
    }
}

/// Applies the change to `text` by lines, kept only while the result means
/// exactly `value` (the document after the change).
fn edit_yaml(
    text: &mut Option<String>,
    value: &Value,
    key: &str,
    name: &str,
    entry: Option<&Value>,
) {
    let edited = text
        .as_deref()
        .and_then(|t| yaml_lines(t, key, name, entry))
        .filter(|t| yaml_value(t).is_ok_and(|v| v == *value));
    *text = edited;
}

/// `text` with the member `name` of the top-level block mapping `key` set
/// to `entry` (or cut out when `None`), its other lines untouched; `None`
/// where the text is not laid out so.
fn yaml_lines(text: &str, key: &str, name: &str, entry: Option<&Value>) -> Option<String> {
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    if lines.iter().any(|l| l.starts_with('\t')) {
        return None;
    }
    let content = |l: &str| {
        let t = l.trim_start_matches(' ');
        !t.trim().is_empty() && !t.starts_with('#')
    };
    let indent = |l: &str| l.len() - l.trim_start_matches(' ').len();
    // `NAME:` alone on its line at `at` spaces, perhaps with a comment.
    let opens = |l: &str, name: &str, at: usize| {
        indent(l) == at
            && l[at..]
                .strip_prefix(name)
                .and_then(|r| r.strip_prefix(':'))
                .is_some_and(|r| {
                    let r = r.trim();
                    r.is_empty() || r.starts_with('#')
                })
    };
    let member = |at: usize| -> Option<Vec<String>> {
        let text = serde_yaml::to_string(&json!({ name: entry? })).ok()?;
        Some(text.lines().map(|l| format!("{:at$}{l}\n", "")).collect())
    };
    if let Some(last) = lines.last_mut() {
        if !last.ends_with('\n') {
            last.push('\n');
        }
    }
    let Some(open) = lines.iter().position(|l| opens(l, key, 0)) else {
        // No such mapping yet: it goes last.
        lines.push(format!("{key}:\n"));
        lines.extend(member(2)?);
        return Some(lines.concat());
    };
    let end = (open + 1..lines.len())
        .find(|&i| content(&lines[i]) && indent(&lines[i]) == 0)
        .unwrap_or(lines.len());
    let at = (open + 1..end)
        .find(|&i| content(&lines[i]))
        .map_or(2, |i| indent(&lines[i]));
    if at == 0 {
        return None;
    }
    match (open + 1..end).find(|&i| opens(&lines[i], name, at)) {
        Some(first) => {
            let mut stop = (first + 1..end)
                .find(|&i| content(&lines[i]) && indent(&lines[i]) <= at)
                .unwrap_or(end);
            // Blank lines and comments after the entry stay with what follows.
            while stop > first + 1 && !content(&lines[stop - 1]) {
                stop -= 1;
            }
            let new = match entry {
                Some(_) => member(at)?,
                None => Vec::new(),
            };
            lines.splice(first..stop, new);
        }
        None => {
            entry?;
            let after = (open + 1..end)
                .rev()
                .find(|&i| content(&lines[i]))
                .map_or(open + 1, |i| i + 1);
            lines.splice(after..after, member(at)?);
        }
    }
    Some(lines.concat())
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
    fn a_byte_order_mark_is_kept() {
        let entry = json!({"command": "orla"});
        let out = edit("\u{feff}{\"servers\": {}}\n", |d| {
            d.set("servers", "o", &entry)
        });
        assert!(out.starts_with("\u{feff}{\"servers\": {"), "{out:?}");
    }

    fn yaml(text: &str, f: impl FnOnce(&mut Document)) -> String {
        let mut doc = Document::parse(Client::Goose, text.as_bytes()).unwrap();
        f(&mut doc);
        doc.render()
    }

    #[test]
    fn yaml_comments_and_other_lines_are_kept_around_the_entry() {
        let text = "# goose settings\nGOOSE_PROVIDER: openai  # mine\nextensions:\n  # the built-in one\n  developer:\n    enabled: true\n    name: developer\n\n  # after\n  other:\n    enabled: false\nGOOSE_MODEL: gpt\n";
        let entry = json!({"name": "orla", "cmd": "orla", "args": ["serve"]});
        let added = yaml(text, |d| d.set("extensions", "orla", &entry));
        assert_eq!(
            added,
            "# goose settings\nGOOSE_PROVIDER: openai  # mine\nextensions:\n  # the built-in one\n  developer:\n    enabled: true\n    name: developer\n\n  # after\n  other:\n    enabled: false\n  orla:\n    name: orla\n    cmd: orla\n    args:\n    - serve\nGOOSE_MODEL: gpt\n"
        );
        let changed = json!({"name": "orla", "cmd": "/bin/orla", "args": ["serve"]});
        let updated = yaml(&added, |d| d.set("extensions", "orla", &changed));
        assert!(updated.contains("  orla:\n    name: orla\n    cmd: /bin/orla\n"));
        assert!(updated.starts_with("# goose settings\n"));
        assert_eq!(yaml(&updated, |d| d.remove("extensions", "orla")), text);
        // The entry in the middle goes with its lines only.
        let removed = yaml(text, |d| d.remove("extensions", "developer"));
        assert_eq!(
            removed,
            "# goose settings\nGOOSE_PROVIDER: openai  # mine\nextensions:\n  # the built-in one\n\n  # after\n  other:\n    enabled: false\nGOOSE_MODEL: gpt\n"
        );
    }

    #[test]
    fn yaml_without_the_mapping_or_in_flow_style_still_gets_the_entry() {
        let entry = json!({"cmd": "orla"});
        assert_eq!(
            yaml("# just this\nA: 1", |d| d.set("extensions", "orla", &entry)),
            "# just this\nA: 1\nextensions:\n  orla:\n    cmd: orla\n"
        );
        assert_eq!(
            yaml("", |d| d.set("extensions", "orla", &entry)),
            "extensions:\n  orla:\n    cmd: orla\n"
        );
        assert_eq!(
            yaml("extensions:\nA: 1\n", |d| d.set(
                "extensions",
                "orla",
                &entry
            )),
            "extensions:\n  orla:\n    cmd: orla\nA: 1\n"
        );
        // Flow style is written whole (its comments would be lost).
        let out = yaml("extensions: {a: {cmd: x}} # c\n", |d| {
            d.set("extensions", "orla", &entry)
        });
        let value: Value = serde_yaml::from_str(&out).unwrap();
        assert_eq!(
            value,
            json!({"extensions": {"a": {"cmd": "x"}, "orla": {"cmd": "orla"}}})
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
