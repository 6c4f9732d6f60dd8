//! `orla info NAME[@VERSION] [--json]`: what the registries know of a tool,
//! what its tool.yaml says (author, license, mode, input schema) and what
//! of it is installed (gathered by `crate::ops::info`).

use serde_json::Value;

use crate::cli::InfoArgs;
use crate::context::Context;
use crate::error::Error;
use crate::ops::info::Info;
use crate::resolve::Spec;

pub fn run(ctx: &Context, args: &InfoArgs) -> Result<(), Error> {
    let spec = Spec::parse(&args.name)?;
    let info = crate::ops::info::info(ctx, &spec, args.registry.as_deref())?;
    if args.json {
        let text = serde_json::to_string_pretty(&info).expect("serialises") + "\n";
        return super::write_stdout(text.as_bytes());
    }
    super::write_stdout(render(&info).as_bytes())
}

fn render(info: &Info) -> String {
    use crate::progress::printable;
    let mut out = format!(
        "{} {}\n",
        printable(&info.name),
        printable(
            info.version
                .as_deref()
                .unwrap_or("(no installable version)")
        )
    );
    if !info.description.is_empty() {
        out.push_str(&format!("{}\n", printable(&info.description)));
    }
    out.push('\n');
    let mut field = |k: &str, v: String| out.push_str(&format!("{k:<13}{}\n", printable(&v)));
    if info.registry == info.registry_location || info.registry_location.is_empty() {
        field("registry:", info.registry.clone());
    } else {
        field(
            "registry:",
            format!("{} ({})", info.registry, info.registry_location),
        );
    }
    if let Some(commit) = &info.registry_commit {
        field("index at:", format!("commit {commit}"));
    }
    if !info.also_in.is_empty() {
        field("also in:", info.also_in.join(", "));
    }
    if info.latest.is_some() && info.latest != info.version {
        field("latest:", info.latest.clone().unwrap_or_default());
    }
    for (key, value) in [
        ("author:", &info.author),
        ("license:", &info.license),
        ("homepage:", &info.homepage),
        ("repository:", &info.repository),
    ] {
        if let Some(value) = value {
            field(key, value.clone());
        }
    }
    if !info.keywords.is_empty() {
        field("keywords:", info.keywords.join(", "));
    }
    if let Some(risk) = &info.risk_level {
        let perms = if !info.permissions_declared {
            "undeclared".to_string()
        } else if info.permissions.is_empty() {
            "none".to_string()
        } else {
            info.permissions.join(", ")
        };
        field("permissions:", format!("{perms} (risk: {risk})"));
    }
    if let Some(mode) = info.mode {
        let how = match info.arguments {
            Some("json") => " (arguments as one JSON object on stdin)",
            Some(_) => " (arguments as --key value flags)",
            None => " (a long-running process speaking JSON lines)",
        };
        field("mode:", format!("{mode}{how}"));
    }
    if let Some(why) = &info.details_unavailable {
        field("details:", format!("unavailable ({why})"));
    }
    field(
        "installed:",
        if info.installed.is_empty() {
            "no".to_string()
        } else {
            format!(
                "{} (active: {})",
                info.installed.join(", "),
                info.active.as_deref().unwrap_or("-")
            )
        },
    );
    if !info.requires.is_empty() {
        let shown: Vec<String> = info
            .requires
            .iter()
            .map(|c| match (&c.problem, &c.version) {
                (Some(_), _) if c.found.is_none() => format!("{} (not found)", c.requirement),
                (Some(_), Some(v)) => format!("{} (found {v}: too old)", c.requirement),
                (None, Some(v)) => format!("{} (found {v})", c.requirement),
                (None, None) if c.found.is_none() => {
                    format!("{} (not a command on PATH; not checked)", c.requirement)
                }
                _ => format!("{} (found)", c.requirement),
            })
            .collect();
        field("requires:", shown.join(", "));
    }
    if let Some(schema) = &info.input_schema {
        out.push_str(&schema_lines("input:", schema));
    }
    if let Some(schema) = &info.output_schema {
        out.push_str(&schema_lines("output:", schema));
    }
    out.push_str("versions:\n");
    for v in &info.versions {
        let mut notes = Vec::new();
        if v.yanked {
            notes.push("yanked".to_string());
        }
        if let Some(stated) = &v.tool_yaml_version {
            notes.push(format!(
                "its tool.yaml says {}: cannot be installed",
                printable(stated)
            ));
        }
        if v.active {
            notes.push("active".to_string());
        } else if v.installed {
            notes.push("installed".to_string());
        }
        let id = match (&v.blake3, &v.tag, &v.commit) {
            (Some(d), _, _) => format!("blake3:{d}"),
            (None, Some(t), Some(Some(c))) => format!("tag {t}, commit {c}"),
            (None, Some(t), Some(None)) => format!("tag {t} (not in the repository)"),
            (None, Some(t), None) => format!("tag {t}"),
            _ => String::new(),
        };
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!("  ({})", notes.join(", "))
        };
        out.push_str(&format!(
            "  {:<12} {}{notes}\n",
            printable(&v.version),
            printable(&id)
        ));
    }
    out
}

/// A schema as a person reads it: for an object, one line per property
/// (its name, type, whether it is required, its description and default);
/// anything else as one line of JSON.
fn schema_lines(label: &str, schema: &Value) -> String {
    use crate::progress::printable;
    let properties = schema.get("properties").and_then(Value::as_object);
    let Some(properties) = properties.filter(|p| !p.is_empty()) else {
        let text = if schema.get("type").and_then(Value::as_str) == Some("object") {
            "no parameters".to_string()
        } else {
            serde_json::to_string(schema).unwrap_or_default()
        };
        return format!("{label:<13}{}\n", printable(&text));
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let rows: Vec<(String, String, &str, String)> = properties
        .iter()
        .map(|(name, property)| {
            let mut about = property
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            if let Some(default) = property.get("default") {
                if !about.is_empty() {
                    about.push(' ');
                }
                about.push_str(&format!("[default: {default}]"));
            }
            let mark = if required.contains(&name.as_str()) {
                "required"
            } else {
                "optional"
            };
            (name.clone(), type_of(property), mark, about)
        })
        .collect();
    let name_width = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    let type_width = rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0);
    let mut out = format!("{label}\n");
    for (name, ty, mark, about) in rows {
        let line = format!("  {name:<name_width$}  {ty:<type_width$}  {mark:<8}  {about}");
        out.push_str(&format!("{}\n", printable(line.trim_end())));
    }
    out
}

/// A property's type as written in a signature: `string`, `integer`,
/// `string|null`, `array of string`, `one of "a", "b"`.
fn type_of(property: &Value) -> String {
    if let Some(values) = property.get("enum").and_then(Value::as_array) {
        let listed: Vec<String> = values.iter().map(Value::to_string).collect();
        return format!("one of {}", listed.join(", "));
    }
    match property.get("type") {
        Some(Value::String(t)) if t == "array" => match property.get("items") {
            Some(items) => format!("array of {}", type_of(items)),
            None => "array".into(),
        },
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ => "any".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_object_schema_is_one_line_per_parameter() {
        let schema = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File to read"},
                "offset": {"type": "integer", "default": 0},
                "tags": {"type": "array", "items": {"type": "string"}},
                "mode": {"enum": ["a", "b"]}
            },
            "required": ["path"]
        });
        assert_eq!(
            schema_lines("input:", &schema),
            "input:\n\
             \x20 path    string           required  File to read\n\
             \x20 offset  integer          optional  [default: 0]\n\
             \x20 tags    array of string  optional\n\
             \x20 mode    one of \"a\", \"b\"  optional\n"
        );
        assert_eq!(
            schema_lines("input:", &json!({"type": "object", "properties": {}})),
            "input:       no parameters\n"
        );
        assert_eq!(
            schema_lines("output:", &json!({"type": "string"})),
            "output:      {\"type\":\"string\"}\n"
        );
    }
}
