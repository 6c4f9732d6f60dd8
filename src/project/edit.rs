//! Surgical edits of orla.yaml's `tools:` block.
//!
//! orla.yaml belongs to its user: comments, blank lines, key order and
//! quoting must survive `orla install NAME@REQ` and `orla uninstall NAME`.
//! Re-serialising the YAML would lose all of that, so these functions edit
//! the text line by line, touching only the one entry that changes:
//!
//! - an existing entry keeps its key, indentation and trailing comment; only
//!   its value is replaced;
//! - a new entry goes after the last one (at its sorted place when the
//!   entries are already sorted), with the block's indentation;
//! - with no `tools:` key, one is appended at the end of the file;
//! - a flow mapping (`tools: {a: "1"}`) is rewritten as a block, the only
//!   case where text other than the entry changes.
//!
//! Callers parse the result again and check it says what they meant, so an
//! unusual layout this editor misreads fails loudly instead of corrupting
//! the file.

/// The key of a top-level `key: value` line, if it is one.
pub fn top_level_key(line: &str) -> Option<String> {
    if line.starts_with([' ', '\t', '#', '-']) {
        return None;
    }
    split_key(line).map(|(k, _)| k)
}

/// Splits `key: rest` (the line without indentation): the unquoted key and
/// the byte offset where the text after the colon starts.
fn split_key(line: &str) -> Option<(String, usize)> {
    let (key, after) = if let Some(rest) = line.strip_prefix('"') {
        let end = rest.find('"')?;
        (rest[..end].to_string(), end + 2)
    } else if let Some(rest) = line.strip_prefix('\'') {
        let end = rest.find('\'')?;
        (rest[..end].to_string(), end + 2)
    } else {
        let colon = line
            .char_indices()
            .find(|&(i, c)| {
                c == ':' && (i + 1 == line.len() || line[i + 1..].starts_with([' ', '\t']))
            })
            .map(|(i, _)| i)?;
        (line[..colon].trim_end().to_string(), colon)
    };
    let rest = line[after..].trim_start_matches([' ', '\t']);
    let colon_at = line.len() - rest.len();
    let rest = rest.strip_prefix(':')?;
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) || key.is_empty() {
        return None;
    }
    Some((key, colon_at + 1))
}

/// The value part and the comment part of the text after a colon.
fn split_comment(rest: &str) -> (&str, &str) {
    let mut quote = None;
    let mut prev_space = true;
    for (i, c) in rest.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if prev_space => return (rest[..i].trim_end(), &rest[i..]),
            _ => {}
        }
        prev_space = c == ' ' || c == '\t';
    }
    (rest.trim_end(), "")
}

/// The comment of the text after a colon with the blanks before it, so
/// that aligned comments stay aligned; empty when there is none.
fn trailing_comment(rest: &str) -> String {
    let (value, comment) = split_comment(rest);
    if comment.is_empty() {
        return String::new();
    }
    let value = value.trim_start();
    let start = rest.find(value).unwrap_or(0) + value.len();
    let gap = &rest[start..rest.len() - comment.len()];
    let gap = if gap.is_empty() || value.is_empty() {
        " "
    } else {
        gap
    };
    format!("{gap}{comment}")
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// A YAML double-quoted scalar.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

struct Doc {
    lines: Vec<String>,
    newline: &'static str,
    final_newline: bool,
}

impl Doc {
    fn new(text: &str) -> Doc {
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let final_newline = text.is_empty() || text.ends_with('\n');
        let lines = text
            .lines()
            .map(|l| l.strip_suffix('\r').unwrap_or(l).to_string())
            .collect();
        Doc {
            lines,
            newline,
            final_newline,
        }
    }

    fn text(&self) -> String {
        let mut out = self.lines.join(self.newline);
        if self.final_newline && !self.lines.is_empty() {
            out.push_str(self.newline);
        }
        out
    }
}

/// One entry of the block: its line, the line after its last continuation
/// line, and its key.
struct Entry {
    line: usize,
    end: usize,
    key: String,
}

/// The `tools:` block: the key's line and its entries.
struct Block {
    key_line: usize,
    /// The value after `tools:` on the key's line, comment stripped.
    inline: String,
    entries: Vec<Entry>,
    indent: Option<usize>,
}

/// Why orla.yaml's `tools:` cannot be edited line by line. The caller
/// (`transaction::edit_yaml`) names the file and says how to edit it by hand.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    #[error("line {line}: unexpected indentation under `tools:`")]
    Indentation { line: usize },
    #[error("line {line}: expected `name: requirement` under `tools:`")]
    NotAnEntry { line: usize },
    #[error("line {line}: cannot read `tools:`: {source}")]
    Flow {
        line: usize,
        #[source]
        source: serde_yaml::Error,
    },
    #[error("line {line}: `tools:` is not a mapping")]
    NotAMapping { line: usize },
    #[error("line {line}: a tool name is not text")]
    NameNotText { line: usize },
}

fn find_block(doc: &Doc) -> Result<Option<Block>, EditError> {
    let Some(key_line) = doc
        .lines
        .iter()
        .position(|l| top_level_key(l).as_deref() == Some("tools"))
    else {
        return Ok(None);
    };
    let line = &doc.lines[key_line];
    let (_, after) = split_key(line).expect("a key line");
    let (inline, _) = split_comment(&line[after..]);
    let inline = inline.trim().to_string();
    let mut entries: Vec<Entry> = Vec::new();
    let mut indent = None;
    let mut i = key_line + 1;
    while i < doc.lines.len() {
        let l = &doc.lines[i];
        if is_blank_or_comment(l) {
            i += 1;
            continue;
        }
        let n = indent_of(l);
        if n == 0 {
            break;
        }
        match indent {
            None => indent = Some(n),
            Some(block) if n > block => {
                // A continuation of the previous entry's value.
                if let Some(last) = entries.last_mut() {
                    last.end = i + 1;
                }
                i += 1;
                continue;
            }
            Some(block) if n < block => return Err(EditError::Indentation { line: i + 1 }),
            Some(_) => {}
        }
        let (key, _) = split_key(&l[n..]).ok_or(EditError::NotAnEntry { line: i + 1 })?;
        entries.push(Entry {
            line: i,
            end: i + 1,
            key,
        });
        i += 1;
    }
    Ok(Some(Block {
        key_line,
        inline,
        entries,
        indent,
    }))
}

/// Sets the requirement of `name` in `tools:`, adding the entry (and the
/// block) when missing.
pub fn set_tool(text: &str, name: &str, requirement: &str) -> Result<String, EditError> {
    let mut doc = Doc::new(text);
    let value = quoted(requirement);
    let Some(block) = find_block(&doc)? else {
        if doc.lines.last().is_some_and(|l| !l.trim().is_empty()) {
            doc.lines.push(String::new());
        }
        doc.lines.push("tools:".into());
        doc.lines.push(format!("  {name}: {value}"));
        doc.final_newline = true;
        return Ok(doc.text());
    };
    if !matches!(block.inline.as_str(), "" | "{}" | "~" | "null") {
        return rewrite_flow(doc, &block, name, Some(requirement));
    }
    if !block.inline.is_empty() {
        // `tools: {}` or `tools: null` (with any comment kept).
        let line = &doc.lines[block.key_line];
        let (_, after) = split_key(line).expect("a key line");
        let (_, comment) = split_comment(&line[after..]);
        let comment = if comment.is_empty() {
            String::new()
        } else {
            format!(" {comment}")
        };
        doc.lines[block.key_line] = format!("{}:{comment}", &line[..after - 1]);
    }
    if let Some(entry) = block.entries.iter().find(|e| e.key == name) {
        let line = &doc.lines[entry.line];
        let n = indent_of(line);
        let (_, after) = split_key(&line[n..]).expect("an entry line");
        let comment = trailing_comment(&line[n + after..]);
        let new = format!("{}: {value}{comment}", &line[..n + after - 1]);
        doc.lines
            .splice(entry.line..entry.end, std::iter::once(new));
        return Ok(doc.text());
    }
    let indent = " ".repeat(block.indent.unwrap_or(2));
    let new = format!("{indent}{name}: {value}");
    let sorted = block.entries.windows(2).all(|w| w[0].key <= w[1].key);
    let at = match block.entries.last() {
        None => block.key_line + 1,
        Some(last) if !sorted => last.end,
        Some(last) => block
            .entries
            .iter()
            .find(|e| e.key.as_str() > name)
            .map_or(last.end, |e| e.line),
    };
    doc.lines.insert(at, new);
    if at == doc.lines.len() - 1 {
        doc.final_newline = true;
    }
    Ok(doc.text())
}

/// Removes `name` from `tools:`; the text is unchanged when it is not there.
pub fn remove_tool(text: &str, name: &str) -> Result<String, EditError> {
    let mut doc = Doc::new(text);
    let Some(block) = find_block(&doc)? else {
        return Ok(text.to_string());
    };
    if !matches!(block.inline.as_str(), "" | "{}" | "~" | "null") {
        return rewrite_flow(doc, &block, name, None);
    }
    match block.entries.iter().find(|e| e.key == name) {
        Some(entry) => {
            doc.lines.drain(entry.line..entry.end);
            Ok(doc.text())
        }
        None => Ok(text.to_string()),
    }
}

/// `tools: {a: "1", b: "2"}`: rewritten as a block with the change applied.
fn rewrite_flow(
    mut doc: Doc,
    block: &Block,
    name: &str,
    requirement: Option<&str>,
) -> Result<String, EditError> {
    let line = block.key_line + 1;
    let value: serde_yaml::Value =
        serde_yaml::from_str(&block.inline).map_err(|source| EditError::Flow { line, source })?;
    let map = value.as_mapping().ok_or(EditError::NotAMapping { line })?;
    let mut entries: Vec<(String, String)> = Vec::new();
    for (k, v) in map {
        let key = scalar(k).ok_or(EditError::NameNotText { line })?;
        let val = scalar(v).unwrap_or_else(|| "latest".into());
        entries.push((key, val));
    }
    match (entries.iter_mut().find(|(k, _)| k == name), requirement) {
        (Some(e), Some(r)) => e.1 = r.to_string(),
        (None, Some(r)) => entries.push((name.to_string(), r.to_string())),
        (_, None) => entries.retain(|(k, _)| k != name),
    }
    let line = &doc.lines[block.key_line];
    let (_, after) = split_key(line).expect("a key line");
    let (_, comment) = split_comment(&line[after..]);
    let mut new = vec![if comment.is_empty() {
        "tools:".to_string()
    } else {
        format!("tools: {comment}")
    }];
    new.extend(entries.iter().map(|(k, v)| format!("  {k}: {}", quoted(v))));
    doc.lines.splice(block.key_line..block.key_line + 1, new);
    Ok(doc.text())
}

fn scalar(v: &serde_yaml::Value) -> Option<String> {
    match v {
        serde_yaml::Value::String(s) => Some(s.clone()),
        serde_yaml::Value::Number(n) => Some(n.to_string()),
        serde_yaml::Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const USER: &str = "# My project\ntools_dir: ./mcp   # where tools go\n\ntools:\n  # reading files\n  json-query: \"^1.0\"   # pinned for the demo\n  fs-read: '1.1'\n\n# the port\nport: 9000\n";

    #[test]
    fn keys_are_recognised() {
        assert_eq!(top_level_key("tools:").as_deref(), Some("tools"));
        assert_eq!(top_level_key("tools: {}  # x").as_deref(), Some("tools"));
        assert_eq!(top_level_key("\"tools\" : x").as_deref(), Some("tools"));
        assert_eq!(top_level_key("  tools: x"), None);
        assert_eq!(top_level_key("# tools: x"), None);
        assert_eq!(top_level_key("url: http://x"), Some("url".into()));
        assert_eq!(top_level_key("a:b"), None);
    }

    #[test]
    fn updating_an_entry_keeps_everything_else() {
        let out = set_tool(USER, "json-query", "^1.1").unwrap();
        assert_eq!(
            out,
            USER.replace(
                "json-query: \"^1.0\"   # pinned",
                "json-query: \"^1.1\"   # pinned"
            )
        );
        let out = set_tool(USER, "fs-read", "~1.2").unwrap();
        assert_eq!(out, USER.replace("fs-read: '1.1'", "fs-read: \"~1.2\""));
    }

    #[test]
    fn new_entries_follow_the_last_one() {
        let out = set_tool(USER, "echo", "1").unwrap();
        assert_eq!(
            out,
            USER.replace("fs-read: '1.1'\n", "fs-read: '1.1'\n  echo: \"1\"\n")
        );
    }

    #[test]
    fn new_entries_keep_a_sorted_block_sorted() {
        let text = "tools:\n    a: \"1\"\n    c: \"1\"\n";
        assert_eq!(
            set_tool(text, "b", "2").unwrap(),
            "tools:\n    a: \"1\"\n    b: \"2\"\n    c: \"1\"\n"
        );
        assert_eq!(
            set_tool(text, "d", "2").unwrap(),
            "tools:\n    a: \"1\"\n    c: \"1\"\n    d: \"2\"\n"
        );
    }

    #[test]
    fn a_missing_or_empty_block_is_created() {
        assert_eq!(
            set_tool("port: 1\n", "a", "^1").unwrap(),
            "port: 1\n\ntools:\n  a: \"^1\"\n"
        );
        assert_eq!(set_tool("", "a", "^1").unwrap(), "tools:\n  a: \"^1\"\n");
        assert_eq!(
            set_tool("tools:\nport: 1\n", "a", "^1").unwrap(),
            "tools:\n  a: \"^1\"\nport: 1\n"
        );
        assert_eq!(
            set_tool("tools: {}  # none yet\nport: 1", "a", "^1").unwrap(),
            "tools: # none yet\n  a: \"^1\"\nport: 1"
        );
        assert_eq!(
            set_tool("tools:", "a", "1").unwrap(),
            "tools:\n  a: \"1\"\n"
        );
    }

    #[test]
    fn flow_mappings_become_blocks() {
        assert_eq!(
            set_tool("tools: {b: \"1\", a: 2}\n", "c", "3").unwrap(),
            "tools:\n  b: \"1\"\n  a: \"2\"\n  c: \"3\"\n"
        );
        assert_eq!(
            remove_tool("tools: {b: \"1\", a: 2}\n", "b").unwrap(),
            "tools:\n  a: \"2\"\n"
        );
    }

    #[test]
    fn removing_an_entry_removes_only_its_line() {
        let out = remove_tool(USER, "json-query").unwrap();
        assert_eq!(
            out,
            USER.replace("  json-query: \"^1.0\"   # pinned for the demo\n", "")
        );
        assert_eq!(remove_tool(USER, "nope").unwrap(), USER);
        assert_eq!(remove_tool("port: 1\n", "a").unwrap(), "port: 1\n");
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let text = "port: 1\r\ntools:\r\n  a: \"1\"\r\n";
        assert_eq!(
            set_tool(text, "b", "2").unwrap(),
            "port: 1\r\ntools:\r\n  a: \"1\"\r\n  b: \"2\"\r\n"
        );
    }

    #[test]
    fn continuation_lines_belong_to_their_entry() {
        let text = "tools:\n  a:\n    \"1\"\n  b: \"2\"\n";
        assert_eq!(remove_tool(text, "a").unwrap(), "tools:\n  b: \"2\"\n");
        assert_eq!(
            set_tool(text, "a", "3").unwrap(),
            "tools:\n  a: \"3\"\n  b: \"2\"\n"
        );
    }
}
