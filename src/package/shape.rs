//! Values of the wrong type or shape in tool.yaml, every one of them.
//!
//! A tool.yaml is read straight into `ToolYaml` first: that is the only
//! parse a well-formed file takes. When that fails on a value (a scalar
//! where a list goes, a word that is not one of a field's values, text
//! where a mapping goes), the file is read again as plain YAML and turned
//! into `ToolYaml` one failure at a time: each failure becomes a problem
//! naming its field (`runtime.arguments`), saying what is there and what
//! belongs there, with a fix for that field (the allowed values, `write a
//! list: permissions: [network]`); the field is then left out and the
//! conversion tried again. So validation reports every such value at once,
//! beside the problems it finds in the fields that did read, and the name
//! and version stay known when they are readable.
//!
//! The straight parse reads a plain scalar as text where text is expected
//! (`version: 1.0`, `env: {PORT: 8080}`); plain YAML holds numbers and
//! booleans as such, so the second reading turns them back into their text
//! where text is expected rather than report them.

use serde_path_to_error::Segment;
use serde_yaml::{Mapping, Value};

use super::validate::{Problem, Severity};
use super::ToolYaml;

/// Reads tool.yaml text: the model of what reads, and one problem per value
/// of the wrong type or shape (left out of the model). Fails only when the
/// text is not a YAML mapping at all, with the straight parse's error.
pub fn parse(text: &str) -> Result<(ToolYaml, Vec<Problem>), serde_yaml::Error> {
    let straight = match serde_yaml::from_str::<ToolYaml>(text) {
        Ok(tool) => return Ok((tool, Vec::new())),
        Err(e) => e,
    };
    let Ok(mut value) = serde_yaml::from_str::<Value>(text) else {
        return Err(straight);
    };
    if !value.is_mapping() {
        return Err(straight);
    }
    let original = value.clone();
    let mut problems: Vec<Problem> = Vec::new();
    // Each round takes one value out (or turns a number into text), so the
    // rounds are bounded by the values in the file; the cap is a guard.
    for _ in 0..4096 {
        let failure = match serde_path_to_error::deserialize::<_, ToolYaml>(value.clone()) {
            Ok(_) if problems.is_empty() => break,
            Ok(tool) => {
                // Reported in the order of the file, not of the conversion.
                let order = paths(&original);
                problems.sort_by_key(|p| order.iter().position(|f| *f == p.field));
                return Ok((tool, problems));
            }
            Err(e) => e,
        };
        let path: Vec<Segment> = failure.path().iter().cloned().collect();
        let field = failure.path().to_string();
        let message = failure.into_inner().to_string();
        let Some(slot) = slot(&mut value, &path) else {
            break;
        };
        if expects(&message) == Expected::Text {
            if let Some(text) = scalar_text(slot) {
                *slot = Value::String(text);
                continue;
            }
        }
        let allowed = match expects(&message) {
            Expected::OneOf(list) => Some(list),
            Expected::Enum => variants(&value, &path),
            _ => None,
        };
        let slot = self::slot(&mut value, &path).expect("found above");
        problems.push(describe(&field, &path, slot, &message, allowed));
        if !take_out(&mut value, &path) {
            break;
        }
    }
    Err(straight)
}

/// What a serde error says was expected.
#[derive(Debug, PartialEq)]
enum Expected {
    List,
    Text,
    WholeNumber,
    Mapping,
    /// An enum's variants, named by the error (`unknown variant`).
    OneOf(Vec<String>),
    /// An enum given something other than a word: its variants are asked
    /// of it (see `variants`).
    Enum,
    Other(String),
}

fn expects(message: &str) -> Expected {
    let Some((_, expected)) = message.rsplit_once(", expected ") else {
        return Expected::Other(String::new());
    };
    if message.starts_with("unknown variant") {
        return Expected::OneOf(
            expected
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect(),
        );
    }
    match expected {
        "a sequence" => Expected::List,
        "a string" | "a borrowed string" => Expected::Text,
        "u8" | "u16" | "u32" | "u64" | "i32" | "i64" => Expected::WholeNumber,
        e if e.starts_with("struct ") || e == "a map" || e.starts_with("a mapping") => {
            Expected::Mapping
        }
        e if e.starts_with("enum ") || e.ends_with(" enum") => Expected::Enum,
        e => Expected::Other(e.to_string()),
    }
}

/// The variants of the enum at `path`, from the error a word none of them
/// is gives.
fn variants(root: &Value, path: &[Segment]) -> Option<Vec<String>> {
    let mut probe = root.clone();
    *slot(&mut probe, path)? = Value::String(String::new());
    let e = serde_path_to_error::deserialize::<_, ToolYaml>(probe).err()?;
    match expects(&e.into_inner().to_string()) {
        Expected::OneOf(list) => Some(list),
        _ => None,
    }
}

/// Every field and item in `value`, named as problems name them
/// (`runtime.mode`, `keywords[1]`), in the order of the file.
fn paths(value: &Value) -> Vec<String> {
    fn walk(value: &Value, at: &str, out: &mut Vec<String>) {
        match value {
            Value::Mapping(map) => {
                for (key, item) in map {
                    let key = match key {
                        Value::String(k) => k.clone(),
                        other => flow(other),
                    };
                    let here = if at.is_empty() {
                        key
                    } else {
                        format!("{at}.{key}")
                    };
                    out.push(here.clone());
                    walk(item, &here, out);
                }
            }
            Value::Sequence(items) => {
                for (i, item) in items.iter().enumerate() {
                    let here = format!("{at}[{i}]");
                    out.push(here.clone());
                    walk(item, &here, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, "", &mut out);
    out
}

/// A number or boolean as the straight parse reads it: its text.
fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn slot<'a>(value: &'a mut Value, path: &[Segment]) -> Option<&'a mut Value> {
    let mut here = value;
    for segment in path {
        here = match segment {
            Segment::Map { key } => here.as_mapping_mut()?.get_mut(key.as_str())?,
            Segment::Seq { index } => here.as_sequence_mut()?.get_mut(*index)?,
            Segment::Enum { .. } | Segment::Unknown => return None,
        };
    }
    Some(here)
}

/// Leaves the value at `path` out: a field's key is removed; an item of a
/// list becomes empty text, which every list of tool.yaml takes (so the
/// items after it keep their positions, and their own problems' names).
fn take_out(value: &mut Value, path: &[Segment]) -> bool {
    let Some((last, parent)) = path.split_last() else {
        return false;
    };
    let Some(parent) = slot(value, parent) else {
        return false;
    };
    match last {
        Segment::Map { key } => parent
            .as_mapping_mut()
            .and_then(|m: &mut Mapping| m.remove(key.as_str()))
            .is_some(),
        Segment::Seq { index } => match parent.as_sequence_mut().and_then(|s| s.get_mut(*index)) {
            Some(item) if *item != Value::String(String::new()) => {
                *item = Value::String(String::new());
                true
            }
            _ => false,
        },
        _ => false,
    }
}

/// What the value is, for a person.
fn what(value: &Value) -> String {
    match value {
        Value::Null => "empty".into(),
        Value::Bool(b) => format!("`{b}`"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("'{s}'"),
        Value::Sequence(_) => "a list".into(),
        Value::Mapping(_) => "a mapping".into(),
        Value::Tagged(t) => what(&t.value),
    }
}

/// One value in YAML's flow style, for an example (`network`, `[a, b]`).
fn flow(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => "...".into(),
    }
}

fn describe(
    field: &str,
    path: &[Segment],
    value: &Value,
    message: &str,
    allowed: Option<Vec<String>>,
) -> Problem {
    let key = path
        .iter()
        .rev()
        .find_map(|s| match s {
            Segment::Map { key } => Some(key.as_str()),
            _ => None,
        })
        .unwrap_or(field);
    let item = matches!(path.last(), Some(Segment::Seq { .. }));
    let is = what(value);
    let (message, hint) = match (allowed, expects(message)) {
        (Some(list), _) => {
            let first = list.first().cloned().unwrap_or_default();
            (
                format!("is {is}, which is not one of {}", list.join(", ")),
                Some(format!("write one of them, e.g. `{key}: {first}`")),
            )
        }
        (None, Expected::List) => {
            let example = match value {
                Value::Sequence(_) | Value::Mapping(_) | Value::Null => "a, b".to_string(),
                scalar => flow(scalar),
            };
            (
                format!("is {is}, but a list is expected"),
                Some(format!("write a list: `{key}: [{example}]`")),
            )
        }
        (None, Expected::Text) if item => (
            format!("is {is}, but text is expected"),
            Some(format!("write each item of `{key}` as one word or quoted text")),
        ),
        (None, Expected::Text) => (
            format!("is {is}, but text is expected"),
            Some(format!(
                "write it on the line of its key, e.g. `{key}: some text` (in quotes if it holds `: ` or starts with a symbol)"
            )),
        ),
        (None, Expected::WholeNumber) => (
            format!("is {is}, but a whole number is expected"),
            Some(if key.ends_with("_ms") {
                format!("write a number of milliseconds, e.g. `{key}: 5000`")
            } else {
                format!("write a number, e.g. `{key}: 3`")
            }),
        ),
        (None, Expected::Mapping) => (
            format!("is {is}, but a mapping of fields is expected"),
            Some(format!(
                "write its `field: value` lines below `{key}:`, indented (docs/tool-yaml.md)"
            )),
        ),
        (None, Expected::OneOf(_) | Expected::Enum) => (format!("is {is}, which is not allowed here"), None),
        (None, Expected::Other(expected)) if !expected.is_empty() => {
            (format!("is {is}, but {expected} is expected"), None)
        }
        (None, Expected::Other(_)) => (message.to_string(), None),
    };
    Problem {
        severity: Severity::Error,
        field: field.to_string(),
        message,
        hint,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: &str = "name: t\nversion: 1.0.0\ndescription: d\nentrypoint: bin/t\n";

    fn problems(extra: &str) -> Vec<(String, String, Option<String>)> {
        let (_, problems) = parse(&format!("{VALID}{extra}")).unwrap();
        problems
            .into_iter()
            .map(|p| (p.field, p.message, p.hint))
            .collect()
    }

    #[test]
    fn a_well_formed_file_has_no_problems() {
        assert!(problems("runtime:\n  env: {PORT: 8080, DEBUG: true}\n").is_empty());
    }

    #[test]
    fn every_wrong_value_is_reported_with_its_fix() {
        let found = problems(
            "permissions: network\nrisk_level: huge\nruntime:\n  arguments: yaml\n  mode: 3\n  timeout_ms: soon\n",
        );
        let fields: Vec<&str> = found.iter().map(|(f, _, _)| f.as_str()).collect();
        assert_eq!(
            fields,
            [
                "permissions",
                "risk_level",
                "runtime.arguments",
                "runtime.mode",
                "runtime.timeout_ms"
            ]
        );
        assert_eq!(found[0].1, "is 'network', but a list is expected");
        assert_eq!(
            found[0].2.as_deref(),
            Some("write a list: `permissions: [network]`")
        );
        assert_eq!(
            found[1].1,
            "is 'huge', which is not one of low, medium, high, critical"
        );
        assert_eq!(found[2].1, "is 'yaml', which is not one of flags, json");
        assert_eq!(
            found[2].2.as_deref(),
            Some("write one of them, e.g. `arguments: flags`")
        );
        assert_eq!(
            found[3].1,
            "is the number 3, which is not one of simple, capsule"
        );
        assert_eq!(
            found[4].2.as_deref(),
            Some("write a number of milliseconds, e.g. `timeout_ms: 5000`")
        );
    }

    #[test]
    fn the_fields_that_read_are_kept() {
        let (tool, problems) = parse(&format!(
            "{VALID}permissions: network\nkeywords: [a, [b], c]\n"
        ))
        .unwrap();
        assert_eq!(tool.name.as_deref(), Some("t"));
        assert_eq!(tool.version.as_deref(), Some("1.0.0"));
        assert_eq!(problems.len(), 2);
        assert_eq!(problems[1].field, "keywords[1]");
        assert_eq!(tool.keywords, ["a", "", "c"]);
    }

    #[test]
    fn a_file_that_is_not_a_mapping_fails() {
        assert!(parse("- a\n- b\n").is_err());
        assert!(parse("name: [unclosed\n").is_err());
    }
}
