//! RFC 2 capsules to RFC 3 packages: `orla-tool.json` becomes `tool.yaml`
//! with `runtime.mode: capsule` (mapping table in docs/migration.md).
//!
//! The conversion is a pure function of the JSON text and the capsule's
//! README, so it can be tested without a file system and `--dry-run` shows
//! exactly what would be written. Every field of orla-tool.json is accounted
//! for in the returned report: mapped (with where it went) or dropped (with
//! why). Anything that cannot be carried faithfully is an error, never a
//! silent guess: invalid JSON, a missing required field, a field of the wrong
//! type, an entrypoint outside the capsule, an unknown `hot_load.mode`.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value};

use crate::package::{
    json_kind, names, validate, HotLoad, Mode, Problem, Runtime, Severity, ToolYaml,
};

/// The RFC 2 manifest.
pub const LEGACY_FILE: &str = "orla-tool.json";
/// What the manifest is renamed to after a migration.
pub const BACKUP_FILE: &str = "orla-tool.json.bak";
/// The description written when neither orla-tool.json nor a README has
/// one; `orla tool validate` warns about any description starting "TODO".
pub const PLACEHOLDER_DESCRIPTION: &str =
    "TODO: describe this tool in one line (migrated from orla-tool.json)";
/// The first line of a migrated tool.yaml.
pub const HEADER: &str = "# Migrated from orla-tool.json (RFC 2) by `orla migrate capsule`.\n";

/// What became of one orla-tool.json field.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FieldReport {
    /// The field as written in orla-tool.json (`hot_load.watch`).
    pub field: String,
    #[serde(flatten)]
    pub fate: Fate,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "fate", rename_all = "lowercase")]
pub enum Fate {
    /// Carried into tool.yaml at `to`; `note` says what changed, if anything.
    Mapped { to: String, note: Option<String> },
    /// Not carried, for `reason`.
    Dropped { reason: String },
}

impl fmt::Display for FieldReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.fate {
            Fate::Mapped { to, note: None } => write!(f, "{} -> {to}", self.field),
            Fate::Mapped { to, note: Some(n) } => write!(f, "{} -> {to} ({n})", self.field),
            Fate::Dropped { reason } => write!(f, "{} dropped: {reason}", self.field),
        }
    }
}

/// Where the description came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DescriptionSource {
    /// orla-tool.json had a `description` (not an RFC 2 field, but common).
    Manifest,
    Readme,
    Placeholder,
}

#[derive(Debug, Clone)]
pub struct Migration {
    pub tool: ToolYaml,
    pub report: Vec<FieldReport>,
    pub description_from: DescriptionSource,
}

impl Migration {
    /// The tool.yaml text: a header comment, then the model.
    pub fn to_yaml(&self) -> String {
        format!("{HEADER}{}", self.tool.to_yaml())
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CapsuleError {
    #[error("{path} is not valid JSON: {message}")]
    InvalidJson { path: String, message: String },
    #[error("{path} must hold a JSON object, not {found}")]
    NotAnObject { path: String, found: &'static str },
    #[error("{path} lacks required field{}: {}", if fields.len() > 1 { "s" } else { "" }, fields.join(", "))]
    Missing {
        path: String,
        fields: Vec<&'static str>,
    },
    #[error("{path}: {field} {message}")]
    BadField {
        path: String,
        field: String,
        message: String,
    },
    #[error("{path}: entrypoint '{entrypoint}' is outside the capsule directory")]
    EntrypointOutside { path: String, entrypoint: String },
    #[error("{path}: hot_load.mode '{mode}' is unknown; the only mode is \"restart\"")]
    UnknownHotLoadMode { path: String, mode: String },
    /// Several fields cannot be migrated: each is one of the variants
    /// above, and all are reported at once.
    #[error("{path}: {} fields cannot be migrated: {}", problems.len(), fields(problems))]
    Several {
        path: String,
        problems: Vec<CapsuleError>,
    },
}

fn fields(problems: &[CapsuleError]) -> String {
    problems
        .iter()
        .map(|p| p.field_problem().field)
        .collect::<Vec<_>>()
        .join(", ")
}

impl CapsuleError {
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            CapsuleError::InvalidJson { .. } | CapsuleError::NotAnObject { .. } => {
                "fix the JSON (RFC 2 section 6), then run the migration again".into()
            }
            CapsuleError::Missing { .. } => {
                "RFC 2 requires name, version and entrypoint; add them to orla-tool.json".into()
            }
            CapsuleError::BadField { .. } => {
                "fix the field in orla-tool.json (RFC 2 section 6), then migrate again".into()
            }
            CapsuleError::EntrypointOutside { .. } => {
                "move the entrypoint into the capsule and name it by a relative path".into()
            }
            CapsuleError::UnknownHotLoadMode { .. } => {
                "set hot_load.mode to \"restart\" or remove it".into()
            }
            CapsuleError::Several { .. } => {
                "fix each field above in orla-tool.json (RFC 2 section 6), then migrate again"
                    .into()
            }
        })
    }

    /// The problem as one of a field, as a problem among several is listed
    /// (its hint: the variant's).
    pub fn field_problem(&self) -> Problem {
        let (field, message) = match self {
            CapsuleError::BadField { field, message, .. } => (field.clone(), message.clone()),
            CapsuleError::EntrypointOutside { entrypoint, .. } => (
                "entrypoint".into(),
                format!("'{entrypoint}' is outside the capsule directory"),
            ),
            CapsuleError::UnknownHotLoadMode { mode, .. } => (
                "hot_load.mode".into(),
                format!("'{mode}' is unknown; the only mode is \"restart\""),
            ),
            other => (LEGACY_FILE.into(), other.to_string()),
        };
        Problem {
            severity: Severity::Error,
            field,
            message,
            hint: self.hint(),
        }
    }
}

/// Converts orla-tool.json text. `origin` names the file in errors;
/// `readme` is the capsule's README.md, if it has one.
pub fn migrate(text: &str, origin: &str, readme: Option<&str>) -> Result<Migration, CapsuleError> {
    let value: Value = serde_json::from_str(text).map_err(|e| CapsuleError::InvalidJson {
        path: origin.to_string(),
        message: e.to_string(),
    })?;
    let Value::Object(map) = value else {
        return Err(CapsuleError::NotAnObject {
            path: origin.to_string(),
            found: json_kind(&value),
        });
    };
    let mut converter = Converter {
        origin,
        report: Vec::new(),
        problems: Vec::new(),
    };
    let migration = converter.run(map, readme)?;
    let mut problems = converter.problems;
    match problems.len() {
        0 => Ok(migration),
        1 => Err(problems.remove(0)),
        _ => Err(CapsuleError::Several {
            path: origin.to_string(),
            problems,
        }),
    }
}

/// Converts field by field; a field that cannot be converted is a problem
/// (`problems`) and the conversion goes on, so every one is reported.
struct Converter<'a> {
    origin: &'a str,
    report: Vec<FieldReport>,
    problems: Vec<CapsuleError>,
}

impl Converter<'_> {
    fn problem(&mut self, field: &str, message: impl Into<String>) {
        self.problems.push(CapsuleError::BadField {
            path: self.origin.to_string(),
            field: field.to_string(),
            message: message.into(),
        });
    }

    /// A problem, where a value was expected.
    fn bad<T>(&mut self, field: &str, message: impl Into<String>) -> Option<T> {
        self.problem(field, message);
        None
    }

    fn mapped(&mut self, field: &str, to: &str, note: Option<String>) {
        self.report.push(FieldReport {
            field: field.to_string(),
            fate: Fate::Mapped {
                to: to.to_string(),
                note,
            },
        });
    }

    fn dropped(&mut self, field: &str, reason: &str) {
        self.report.push(FieldReport {
            field: field.to_string(),
            fate: Fate::Dropped {
                reason: reason.to_string(),
            },
        });
    }

    fn string(&mut self, field: &str, value: &Value) -> Option<String> {
        match value {
            Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
            Value::String(_) => self.bad(field, "is empty"),
            other => self.bad(field, format!("must be a string, not {}", json_kind(other))),
        }
    }

    fn millis(&mut self, field: &str, value: &Value) -> Option<u64> {
        match value.as_u64() {
            Some(n) => Some(n),
            None => self.bad(field, "must be a whole number of milliseconds, 0 or more"),
        }
    }

    fn string_list(&mut self, field: &str, value: &Value) -> Option<Vec<String>> {
        match value {
            Value::Array(items) => {
                let list: Vec<Option<String>> = items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| self.string(&format!("{field}[{i}]"), v))
                    .collect();
                list.into_iter().collect()
            }
            other => self.bad(
                field,
                format!("must be a list of strings, not {}", json_kind(other)),
            ),
        }
    }

    /// The migration of what converts; `problems` holds what does not.
    /// Fails at once only when required fields are missing.
    fn run(
        &mut self,
        mut map: Map<String, Value>,
        readme: Option<&str>,
    ) -> Result<Migration, CapsuleError> {
        let missing: Vec<&'static str> = ["name", "version", "entrypoint"]
            .into_iter()
            .filter(|f| map.get(*f).is_none_or(Value::is_null))
            .collect();
        if !missing.is_empty() {
            return Err(CapsuleError::Missing {
                path: self.origin.to_string(),
                fields: missing,
            });
        }
        let mut tool = ToolYaml::default();
        let mut runtime = Runtime {
            mode: Some(Mode::Capsule),
            ..Runtime::default()
        };

        // Required fields.
        let raw_name = self.string("name", &map.remove("name").expect("checked"));
        if let Some(raw_name) = raw_name {
            match normalise_name(&raw_name) {
                Some(name) => {
                    let note = (name != raw_name).then(|| {
                        format!("'{raw_name}' is not a valid tool name; written as '{name}'")
                    });
                    self.mapped("name", "name", note);
                    tool.name = Some(name);
                }
                None => self.problem("name", format!("'{raw_name}' cannot be made a tool name")),
            }
        }

        let raw_version = self.string("version", &map.remove("version").expect("checked"));
        if let Some(raw_version) = raw_version {
            match normalise_version(&raw_version) {
                Some(version) => {
                    let note = (version != raw_version)
                        .then(|| format!("'{raw_version}' written as '{version}'"));
                    self.mapped("version", "version", note);
                    tool.version = Some(version);
                }
                None => self.problem(
                    "version",
                    format!("'{raw_version}' is not a semantic version (MAJOR.MINOR.PATCH)"),
                ),
            }
        }

        let raw_entry = self.string("entrypoint", &map.remove("entrypoint").expect("checked"));
        if let Some(raw_entry) = raw_entry {
            if validate::escapes(&raw_entry) || raw_entry.contains('\\') {
                self.problems.push(CapsuleError::EntrypointOutside {
                    path: self.origin.to_string(),
                    entrypoint: raw_entry,
                });
            } else {
                let entry = raw_entry.trim_start_matches("./").to_string();
                self.mapped("entrypoint", "entrypoint", None);
                tool.entrypoint = Some(entry);
            }
        }

        // RFC 2 6.3 optional fields.
        if let Some(v) = map.remove("language") {
            if !v.is_null() {
                if let Some(language) = self.string("language", &v) {
                    let language = language.to_lowercase();
                    self.mapped(
                        "language",
                        "keywords",
                        Some(format!(
                            "informational in RFC 2 and tool.yaml has no such field; kept as the keyword '{language}'"
                        )),
                    );
                    tool.keywords.push(language);
                }
            }
        }
        if let Some(v) = map.remove("hot_load") {
            if !v.is_null() {
                runtime.hot_load = self.hot_load(v);
            }
        }
        if let Some(v) = map.remove("env") {
            if let Some(env) = self.env(v) {
                runtime.env = env;
                self.mapped("env", "runtime.env", None);
            }
        }
        if let Some(v) = map.remove("args") {
            if let Some(args) = self.args(v) {
                runtime.args = args;
                self.mapped("args", "runtime.args", None);
            }
        }
        if let Some(v) = map.remove("startup_timeout_ms") {
            if let Some(ms) = self.millis("startup_timeout_ms", &v) {
                runtime.startup_timeout_ms = Some(ms);
                self.mapped("startup_timeout_ms", "runtime.startup_timeout_ms", None);
            }
        }

        // Not RFC 2, but common in the wild and fields of tool.yaml: carry them.
        const EXTRA: &str = "not an RFC 2 field, but tool.yaml has it";
        let mut description_from = DescriptionSource::Placeholder;
        if let Some(v) = map.remove("description") {
            if let Some(description) = self.string("description", &v) {
                tool.description = Some(description);
                description_from = DescriptionSource::Manifest;
                self.mapped("description", "description", Some(EXTRA.into()));
            }
        }
        for field in ["author", "license", "repository", "homepage"] {
            if let Some(v) = map.remove(field) {
                let Some(s) = self.string(field, &v) else {
                    continue;
                };
                match field {
                    "author" => tool.author = Some(s),
                    "license" => tool.license = Some(s),
                    "repository" => tool.repository = Some(s),
                    _ => tool.homepage = Some(s),
                }
                self.mapped(field, field, Some(EXTRA.into()));
            }
        }
        for field in ["keywords", "permissions", "dependencies"] {
            if let Some(v) = map.remove(field) {
                let Some(list) = self.string_list(field, &v) else {
                    continue;
                };
                match field {
                    "keywords" => {
                        for k in list {
                            if !tool.keywords.contains(&k) {
                                tool.keywords.push(k);
                            }
                        }
                    }
                    "permissions" => tool.permissions = crate::package::Permissions::declared(list),
                    _ => tool.dependencies = list,
                }
                self.mapped(field, field, Some(EXTRA.into()));
            }
        }
        // Everything else has no home.
        for (key, _) in map {
            self.dropped(
                &key,
                "not an RFC 2 orla-tool.json field, and tool.yaml has no equivalent",
            );
        }

        if tool.description.is_none() {
            match readme.and_then(description_from_readme) {
                Some(d) => {
                    tool.description = Some(d);
                    description_from = DescriptionSource::Readme;
                }
                None => tool.description = Some(PLACEHOLDER_DESCRIPTION.to_string()),
            }
        }
        tool.runtime = Some(runtime);
        self.report.push(FieldReport {
            field: "(mode)".into(),
            fate: Fate::Mapped {
                to: "runtime.mode".into(),
                note: Some("capsule, as every RFC 2 capsule is".into()),
            },
        });
        Ok(Migration {
            tool,
            report: std::mem::take(&mut self.report),
            description_from,
        })
    }

    fn hot_load(&mut self, value: Value) -> Option<HotLoad> {
        let Value::Object(map) = value else {
            return self.bad(
                "hot_load",
                format!("must be an object, not {}", json_kind(&value)),
            );
        };
        let mut hot = HotLoad::default();
        for (key, v) in map {
            let field = format!("hot_load.{key}");
            match key.as_str() {
                "watch" => {
                    let watch = match &v {
                        // A lone path is taken as a list of one.
                        Value::String(_) => self.string(&field, &v).map(|w| vec![w]),
                        _ => self.string_list(&field, &v),
                    };
                    if let Some(watch) = watch {
                        hot.watch = watch;
                        self.mapped(&field, "runtime.hot_load.watch", None);
                    }
                }
                "mode" => {
                    let Some(mode) = self.string(&field, &v) else {
                        continue;
                    };
                    if mode != "restart" {
                        self.problems.push(CapsuleError::UnknownHotLoadMode {
                            path: self.origin.to_string(),
                            mode,
                        });
                        continue;
                    }
                    hot.mode = Some(mode);
                    self.mapped(&field, "runtime.hot_load.mode", None);
                }
                "debounce_ms" => {
                    if let Some(ms) = self.millis(&field, &v) {
                        hot.debounce_ms = Some(ms);
                        self.mapped(&field, "runtime.hot_load.debounce_ms", None);
                    }
                }
                _ => self.dropped(&field, "not an RFC 2 hot_load field"),
            }
        }
        Some(hot)
    }

    fn scalar(&mut self, field: &str, value: &Value) -> Option<(String, bool)> {
        match value {
            Value::String(s) => Some((s.clone(), false)),
            Value::Number(n) => Some((n.to_string(), true)),
            Value::Bool(b) => Some((b.to_string(), true)),
            other => self.bad(field, format!("must be a string, not {}", json_kind(other))),
        }
    }

    fn env(&mut self, value: Value) -> Option<BTreeMap<String, String>> {
        let Value::Object(map) = value else {
            return self.bad(
                "env",
                format!("must be an object of strings, not {}", json_kind(&value)),
            );
        };
        let mut env = BTreeMap::new();
        let mut ok = true;
        for (key, v) in map {
            let field = format!("env.{key}");
            if key.is_empty() || key.contains('=') || key.contains('\0') {
                self.problem(&field, "is not a valid environment variable name");
                ok = false;
                continue;
            }
            let Some((text, converted)) = self.scalar(&field, &v) else {
                ok = false;
                continue;
            };
            if converted {
                self.mapped(
                    &field,
                    &format!("runtime.env.{key}"),
                    Some(format!("{v} written as the string \"{text}\"")),
                );
            }
            env.insert(key, text);
        }
        ok.then_some(env)
    }

    fn args(&mut self, value: Value) -> Option<Vec<String>> {
        let Value::Array(items) = value else {
            return self.bad(
                "args",
                format!("must be a list of strings, not {}", json_kind(&value)),
            );
        };
        let mut args = Vec::new();
        let mut ok = true;
        for (i, v) in items.iter().enumerate() {
            let field = format!("args[{i}]");
            let Some((text, converted)) = self.scalar(&field, v) else {
                ok = false;
                continue;
            };
            if converted {
                self.mapped(
                    &field,
                    &format!("runtime.args[{i}]"),
                    Some(format!("{v} written as the string \"{text}\"")),
                );
            }
            args.push(text);
        }
        ok.then_some(args)
    }
}

/// Makes an RFC 2 name (any string) an orla tool name: lowercase, other
/// characters become '-', leading punctuation is dropped.
pub fn normalise_name(raw: &str) -> Option<String> {
    if names::validate_name(raw).is_ok() {
        return Some(raw.to_string());
    }
    let mut out = String::new();
    for c in raw.trim().chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-') {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out
        .trim_start_matches(|c: char| !c.is_ascii_alphanumeric())
        .trim_end_matches('-');
    let out: String = out.chars().take(names::MAX_NAME_LEN).collect();
    names::validate_name(&out).ok().map(|()| out)
}

/// `1.2.3` as is; `v1.2.3` and the partial `1.2` or `1` are completed.
pub fn normalise_version(raw: &str) -> Option<String> {
    let trimmed = raw.trim();
    if names::parse_version(trimmed).is_ok() {
        return Some(trimmed.to_string());
    }
    let bare = trimmed.strip_prefix('v').unwrap_or(trimmed);
    let candidate = match bare.split('.').count() {
        1 if bare.chars().all(|c| c.is_ascii_digit()) => format!("{bare}.0.0"),
        2 if bare.chars().all(|c| c.is_ascii_digit() || c == '.') => format!("{bare}.0"),
        _ => bare.to_string(),
    };
    names::parse_version(&candidate).ok().map(|v| v.to_string())
}

/// The first paragraph of prose in a README: headings, badges, HTML,
/// code blocks and lists are skipped. Long paragraphs are cut at the end
/// of the first sentence.
pub fn description_from_readme(readme: &str) -> Option<String> {
    let mut paragraph: Vec<&str> = Vec::new();
    let mut in_code = false;
    for line in readme.lines() {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_code = !in_code;
            if !paragraph.is_empty() {
                break;
            }
            continue;
        }
        if in_code {
            continue;
        }
        let skip = t.starts_with('#')
            || t.starts_with("![")
            || t.starts_with("[![")
            || t.starts_with('<')
            || t.starts_with('|')
            || t.starts_with("- ")
            || t.starts_with("* ")
            || t.starts_with('>')
            || t.chars().all(|c| c == '=' || c == '-');
        if t.is_empty() || skip {
            if !paragraph.is_empty() {
                break;
            }
            continue;
        }
        paragraph.push(t);
    }
    let text = paragraph.join(" ");
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    const MAX: usize = 200;
    if text.chars().count() <= MAX {
        return Some(text.to_string());
    }
    if let Some(end) = text.find(". ").filter(|&i| i < MAX) {
        return Some(text[..=end].to_string());
    }
    let cut: String = text.chars().take(MAX - 1).collect();
    Some(format!("{}…", cut.trim_end()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(json: &str) -> Result<Migration, CapsuleError> {
        migrate(json, "orla-tool.json", None)
    }

    #[test]
    fn minimal_capsule() {
        let m = run(r#"{"name":"t","version":"1.2.3","entrypoint":"main.py"}"#).unwrap();
        assert_eq!(m.tool.name.as_deref(), Some("t"));
        assert_eq!(m.tool.entrypoint.as_deref(), Some("main.py"));
        assert_eq!(m.tool.mode(), Mode::Capsule);
        assert_eq!(m.description_from, DescriptionSource::Placeholder);
        assert_eq!(m.tool.description.as_deref(), Some(PLACEHOLDER_DESCRIPTION));
    }

    #[test]
    fn every_optional_field_is_carried() {
        let m = run(
            r#"{"name":"t","version":"1.0.0","entrypoint":"./main.py","language":"Python",
            "hot_load":{"watch":["./","lib"],"mode":"restart","debounce_ms":250},
            "env":{"LOG_LEVEL":"debug","N":3},"args":["--fast",1],"startup_timeout_ms":7000,
            "colour":"blue"}"#,
        )
        .unwrap();
        let rt = m.tool.runtime.as_ref().unwrap();
        assert_eq!(m.tool.entrypoint.as_deref(), Some("main.py"));
        assert_eq!(m.tool.keywords, ["python"]);
        let hot = rt.hot_load.as_ref().unwrap();
        assert_eq!(hot.watch, ["./", "lib"]);
        assert_eq!(hot.mode.as_deref(), Some("restart"));
        assert_eq!(hot.debounce_ms, Some(250));
        assert_eq!(rt.env["N"], "3");
        assert_eq!(rt.args, ["--fast", "1"]);
        assert_eq!(rt.startup_timeout_ms, Some(7000));
        let dropped: Vec<_> = m
            .report
            .iter()
            .filter(|r| matches!(r.fate, Fate::Dropped { .. }))
            .map(|r| r.field.as_str())
            .collect();
        assert_eq!(dropped, ["colour"]);
        for field in [
            "name",
            "version",
            "entrypoint",
            "language",
            "hot_load.watch",
            "hot_load.mode",
            "hot_load.debounce_ms",
            "env",
            "args",
            "startup_timeout_ms",
        ] {
            assert!(
                m.report.iter().any(|r| r.field == field),
                "{field} not reported"
            );
        }
    }

    #[test]
    fn errors_are_specific() {
        assert!(matches!(run("{"), Err(CapsuleError::InvalidJson { .. })));
        assert!(matches!(run("[]"), Err(CapsuleError::NotAnObject { .. })));
        assert_eq!(
            run(r#"{"name":"t"}"#).unwrap_err(),
            CapsuleError::Missing {
                path: "orla-tool.json".into(),
                fields: vec!["version", "entrypoint"]
            }
        );
        assert!(matches!(
            run(r#"{"name":"t","version":"1.0.0","entrypoint":"../x"}"#),
            Err(CapsuleError::EntrypointOutside { .. })
        ));
        assert!(matches!(
            run(r#"{"name":"t","version":"1.0.0","entrypoint":"/bin/sh"}"#),
            Err(CapsuleError::EntrypointOutside { .. })
        ));
        assert!(matches!(
            run(r#"{"name":"t","version":"1.0.0","entrypoint":"m","hot_load":{"mode":"reload"}}"#),
            Err(CapsuleError::UnknownHotLoadMode { .. })
        ));
        assert!(matches!(
            run(r#"{"name":"t","version":"1.0.0","entrypoint":"m","env":{"A":{}}}"#),
            Err(CapsuleError::BadField { .. })
        ));
        assert!(matches!(
            run(r#"{"name":"t","version":"one","entrypoint":"m"}"#),
            Err(CapsuleError::BadField { .. })
        ));
    }

    #[test]
    fn names_and_versions_are_normalised() {
        assert_eq!(normalise_name("My Tool").as_deref(), Some("my-tool"));
        assert_eq!(normalise_name("fs-read").as_deref(), Some("fs-read"));
        assert_eq!(normalise_name("__x"), Some("x".into()));
        assert_eq!(normalise_name("!!!"), None);
        assert_eq!(normalise_version("v1.2.3").as_deref(), Some("1.2.3"));
        assert_eq!(normalise_version("1.2").as_deref(), Some("1.2.0"));
        assert_eq!(normalise_version("2").as_deref(), Some("2.0.0"));
        assert_eq!(normalise_version("one"), None);
    }

    #[test]
    fn readme_gives_the_first_paragraph() {
        let readme = "# tool\n\n[![ci](x)](y)\n\nReads files\nquickly.\n\nMore.\n";
        assert_eq!(
            description_from_readme(readme).as_deref(),
            Some("Reads files quickly.")
        );
        assert_eq!(description_from_readme("# only a title\n"), None);
        let long = format!("First sentence. {}", "word ".repeat(60));
        assert_eq!(
            description_from_readme(&long).as_deref(),
            Some("First sentence.")
        );
    }
}
