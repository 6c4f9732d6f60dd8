//! tool.yaml validation: RFC 3 section 5.4 plus orla's own rules.
//!
//! Validation never stops at the first problem: authors get every problem at
//! once, each naming its field and, where there is one, the fix.

use std::fmt;
use std::io::Read;
use std::path::{Component, Path};

use super::{names, risk::Permission, schema, ToolYaml};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    pub severity: Severity,
    pub field: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

struct Problems(Vec<Problem>);

impl Problems {
    fn push(&mut self, severity: Severity, field: &str, message: String, hint: Option<&str>) {
        self.0.push(Problem {
            severity,
            field: field.to_string(),
            message,
            hint: hint.map(str::to_string),
        });
    }
    fn error(&mut self, field: &str, message: impl Into<String>, hint: Option<&str>) {
        self.push(Severity::Error, field, message.into(), hint);
    }
    fn warn(&mut self, field: &str, message: impl Into<String>, hint: Option<&str>) {
        self.push(Severity::Warning, field, message.into(), hint);
    }
}

/// `orla tool validate` found errors in a package (each shown with its
/// field before this summary).
#[derive(Debug, thiserror::Error)]
pub enum ValidateError {
    #[error("{path} has {} and {}", counted(*errors, "error"), counted(*warnings, "warning"))]
    Failed {
        path: String,
        errors: usize,
        warnings: usize,
    },
}

impl ValidateError {
    pub fn hint(&self) -> Option<String> {
        match self {
            ValidateError::Failed { .. } => {
                Some("fix the errors above; each names its field".into())
            }
        }
    }
}

/// `n word`, with an `s` unless `n` is 1.
pub fn counted(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// `orla tool validate DIR` for a package directory as shown (`DIR` left
/// out when it is the current directory).
pub fn command(dir: &str) -> String {
    if dir.is_empty() || dir == "." {
        "orla tool validate".into()
    } else {
        format!("orla tool validate {dir}")
    }
}

/// Reads and checks the package in `dir`: every problem of its tool.yaml,
/// the values of the wrong type or shape (`super::shape`) among them, and
/// of the files it names. Fails only when tool.yaml cannot be read as a
/// YAML mapping at all.
pub fn check(dir: &Path) -> Result<(ToolYaml, Vec<Problem>), super::PackageError> {
    let (tool, mut problems) = ToolYaml::read_all(dir)?;
    // A field left out for its shape is not also missing or empty.
    let left_out: Vec<String> = problems.iter().map(|p| p.field.clone()).collect();
    let under = |field: &str| {
        left_out.iter().any(|out| {
            field == out
                || field
                    .strip_prefix(out.as_str())
                    .is_some_and(|rest| rest.starts_with(['.', '[']))
        })
    };
    problems.extend(
        validate(&tool, Some(dir))
            .into_iter()
            .filter(|p| !under(&p.field)),
    );
    problems.sort_by_key(|p| std::cmp::Reverse(p.severity));
    Ok((tool, problems))
}

/// Checks `tool`; with `dir`, also the files it names. Errors come first.
pub fn validate(tool: &ToolYaml, dir: Option<&Path>) -> Vec<Problem> {
    let mut p = Problems(Vec::new());

    match tool.name.as_deref().map(str::trim) {
        None | Some("") => p.error(
            "name",
            "is required",
            Some("add `name: my-tool` to tool.yaml"),
        ),
        Some(name) => {
            if let Err(e) = names::validate_name(name) {
                p.error("name", e.to_string(), None);
            }
        }
    }
    match tool.version.as_deref().map(str::trim) {
        None | Some("") => p.error(
            "version",
            "is required",
            Some("add `version: 0.1.0` to tool.yaml"),
        ),
        Some(v) => {
            if let Err(e) = names::parse_version(v) {
                p.error("version", e.to_string(), None);
            }
        }
    }
    match tool.description.as_deref().map(str::trim) {
        None | Some("") => p.error(
            "description",
            "is required",
            Some("add a one-line `description:` saying what the tool does"),
        ),
        Some(d) if d.starts_with("TODO") => p.warn(
            "description",
            "is a placeholder",
            Some("replace it with one line saying what the tool does"),
        ),
        Some(_) => {}
    }
    match tool.entrypoint.as_deref() {
        None | Some("") => p.error(
            "entrypoint",
            "is required",
            Some("add `entrypoint: bin/my-tool`, the path of the executable inside the package"),
        ),
        Some(entry) => check_entrypoint(&mut p, entry, dir),
    }

    for (i, keyword) in tool.keywords.iter().enumerate() {
        if keyword.trim().is_empty() {
            p.error(&format!("keywords[{i}]"), "is empty", None);
        }
    }
    if !tool.permissions.is_declared() {
        p.warn(
            "permissions",
            "is missing, so the tool's permissions are undeclared and orla treats it as high risk",
            Some("list what the tool does (`permissions: [filesystem:read]`), or write `permissions: []` if it needs none"),
        );
    }
    if let Some((stated, derived)) = tool.understated_risk() {
        p.warn(
            "risk_level",
            format!(
                "'{}' is below the risk its permissions ({}) give; orla records {}",
                stated.as_str(),
                tool.permissions.describe(),
                derived.as_str()
            ),
            Some(&format!(
                "write `risk_level: {}`, or remove risk_level (it can only raise the risk)",
                derived.as_str()
            )),
        );
    }
    for (i, perm) in tool.permissions.iter().enumerate() {
        if !Permission::parse(perm).is_known() {
            p.warn(
                &format!("permissions[{i}]"),
                format!("unknown permission '{perm}' is treated as high risk"),
                Some("known permissions: filesystem:read, filesystem:write, network, process:exec"),
            );
        }
    }
    if let Some(mcp) = &tool.mcp {
        for (field, schema) in [
            ("mcp.input_schema", &mcp.input_schema),
            ("mcp.output_schema", &mcp.output_schema),
        ] {
            if let Some(s) = schema {
                if let Err(e) = schema::to_json_schema(s) {
                    p.error(field, e.to_string(), None);
                }
            }
        }
    }
    if let Some(runtime) = &tool.runtime {
        check_runtime(&mut p, tool, runtime);
    }
    for key in tool.extra.keys() {
        p.warn(
            key,
            "is not a tool.yaml field orla knows; it is kept but ignored",
            None,
        );
    }
    check_string_sizes(&mut p, tool);
    if let Some(dir) = dir {
        if !dir.join("README.md").is_file() {
            p.warn(
                "README.md",
                "the package has no README.md",
                Some("add a README.md saying what the tool does and how to call it"),
            );
        }
    }

    p.0.sort_by_key(|p| std::cmp::Reverse(p.severity));
    p.0
}

fn check_runtime(p: &mut Problems, tool: &ToolYaml, runtime: &super::Runtime) {
    if let Some(hot) = &runtime.hot_load {
        if let Some(mode) = &hot.mode {
            if mode != "restart" {
                p.error(
                    "runtime.hot_load.mode",
                    format!("unknown mode '{mode}'"),
                    Some("the only hot_load mode is `restart`"),
                );
            }
        }
        for (i, w) in hot.watch.iter().enumerate() {
            if escapes(w) {
                p.error(
                    &format!("runtime.hot_load.watch[{i}]"),
                    format!("'{w}' is outside the package"),
                    Some("watch paths are relative to the package root"),
                );
            }
        }
    }
    if runtime.startup_timeout_ms.is_some() && tool.mode() == super::Mode::Simple {
        p.warn(
            "runtime.startup_timeout_ms",
            "only applies to capsule mode; this tool runs in simple mode",
            Some("set `runtime.mode: capsule` or remove startup_timeout_ms"),
        );
    }
    if runtime.arguments.is_some() && tool.mode() == super::Mode::Capsule {
        p.warn(
            "runtime.arguments",
            "only applies to simple mode; a capsule receives each call as a JSON-RPC request",
            Some("remove runtime.arguments"),
        );
    }
    if runtime.timeout_ms == Some(0) {
        p.error("runtime.timeout_ms", "must be greater than 0", None);
    }
    if let Some(retry) = &runtime.retry {
        if retry.max_attempts == Some(0) {
            p.error(
                "runtime.retry.max_attempts",
                "must be at least 1 (1 means no retry)",
                None,
            );
        }
        for (field, value) in [
            ("runtime.retry.backoff", &retry.backoff),
            ("runtime.retry.max_backoff", &retry.max_backoff),
        ] {
            if let Some(v) = value {
                if parse_duration_ms(v).is_none() {
                    p.error(
                        field,
                        format!("'{v}' is not a duration"),
                        Some("write a number with a unit: 500ms, 1s, 2m"),
                    );
                }
            }
        }
    }
    for key in runtime.extra.keys() {
        p.warn(
            &format!("runtime.{key}"),
            "is not a runtime field orla knows; it is kept but ignored",
            None,
        );
    }
}

/// Every string tool.yaml carries (values and keys, in every field, the
/// schemas and unknown fields included) goes into the runtime manifest, so
/// each is capped; one problem per field, the first too long.
fn check_string_sizes(p: &mut Problems, tool: &ToolYaml) {
    fn walk(value: &serde_yaml::Value, at: &str, found: &mut Vec<String>) {
        let long = |s: &str| s.len() > super::limits::MAX_STRING_BYTES;
        match value {
            serde_yaml::Value::String(s) if long(s) => found.push(at.to_string()),
            serde_yaml::Value::Sequence(items) => {
                for (i, item) in items.iter().enumerate() {
                    walk(item, &format!("{at}[{i}]"), found);
                }
            }
            serde_yaml::Value::Mapping(map) => {
                for (key, item) in map {
                    let name = match key {
                        serde_yaml::Value::String(k) if long(k) => {
                            let at = if at.is_empty() { "tool.yaml" } else { at };
                            found.push(format!("{at} (a key)"));
                            continue;
                        }
                        serde_yaml::Value::String(k) => k.clone(),
                        _ => "?".to_string(),
                    };
                    let path = if at.is_empty() {
                        name
                    } else {
                        format!("{at}.{name}")
                    };
                    walk(item, &path, found);
                }
            }
            serde_yaml::Value::Tagged(tagged) => walk(&tagged.value, at, found),
            _ => {}
        }
    }
    let Ok(value) = serde_yaml::to_value(tool) else {
        return;
    };
    let mut found = Vec::new();
    walk(&value, "", &mut found);
    for field in found {
        p.error(
            if field.is_empty() {
                "tool.yaml"
            } else {
                &field
            },
            format!("is longer than {} bytes", super::limits::MAX_STRING_BYTES),
            Some("tool.yaml holds short metadata; put long text in the package's README.md"),
        );
    }
}

/// True when a relative path written in tool.yaml would leave the package.
pub fn escapes(path: &str) -> bool {
    let path = Path::new(path);
    path.is_absolute()
        || path
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
}

fn check_entrypoint(p: &mut Problems, entry: &str, dir: Option<&Path>) {
    if escapes(entry) || entry.contains('\\') {
        p.error(
            "entrypoint",
            format!("'{entry}' is outside the package"),
            Some("the entrypoint is a relative path inside the package, e.g. bin/my-tool"),
        );
        return;
    }
    let Some(dir) = dir else { return };
    let path = dir.join(entry);
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(m) => m,
        Err(_) => {
            p.error(
                "entrypoint",
                format!("'{entry}' does not exist in the package"),
                None,
            );
            return;
        }
    };
    if !meta.is_file() {
        p.error(
            "entrypoint",
            format!("'{entry}' is not a regular file"),
            None,
        );
        return;
    }
    let executable = is_executable(&meta);
    let shebang = read_shebang(&path).is_some();
    if !executable && !shebang {
        p.error(
            "entrypoint",
            format!("'{entry}' is neither executable nor starts with a #! line"),
            Some(&format!(
                "run `chmod +x {entry}` or add a shebang such as `#!/usr/bin/env python3`"
            )),
        );
    } else if !executable {
        p.warn(
            "entrypoint",
            format!("'{entry}' is not executable; the runtime will use its #! interpreter"),
            Some(&format!("run `chmod +x {entry}`")),
        );
    } else if !shebang && !is_native_binary(&path) {
        p.warn(
            "entrypoint",
            format!("'{entry}' has no #! line"),
            Some("start scripts with a shebang such as `#!/usr/bin/env bash`"),
        );
    }
}

#[cfg(unix)]
pub fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
pub fn is_executable(_meta: &std::fs::Metadata) -> bool {
    true
}

/// Reads the `#!` line of a file, if it has one (RFC 1 4.3).
pub fn read_shebang(path: &Path) -> Option<String> {
    let mut buf = [0u8; 256];
    let mut file = std::fs::File::open(path).ok()?;
    let n = file.read(&mut buf).ok()?;
    shebang_of(&buf[..n])
}

pub fn shebang_of(head: &[u8]) -> Option<String> {
    let rest = head.strip_prefix(b"#!")?;
    let line = rest.split(|b| *b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?.trim();
    (!line.is_empty()).then(|| line.to_string())
}

/// The interpreter RFC 1 4.3 names for a shebang: `#!/bin/bash` is `bash`,
/// `#!/usr/bin/env python3` is `python3`.
pub fn interpreter_of(shebang: &str) -> Option<String> {
    let mut words = shebang.split_whitespace();
    let program = words.next()?;
    let base = program.rsplit('/').next().unwrap_or(program);
    if base == "env" {
        words
            .find(|w| !w.starts_with('-') && !w.contains('='))
            .map(str::to_string)
    } else {
        Some(base.to_string())
    }
}

fn is_native_binary(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .map(|_| {
            magic == *b"\x7fELF"
                || magic[..2] == *b"MZ"
                || matches!(
                    u32::from_be_bytes(magic),
                    0xfeedface | 0xfeedfacf | 0xcefaedfe | 0xcffaedfe | 0xcafebabe
                )
        })
        .unwrap_or(false)
}

/// Parses `500ms`, `1s`, `2m`, `1h` or a bare number of milliseconds.
pub fn parse_duration_ms(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let n: u64 = digits.parse().ok()?;
    let factor = match unit.trim() {
        "" | "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return None,
    };
    n.checked_mul(factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> ToolYaml {
        ToolYaml::parse(text, "tool.yaml").unwrap()
    }

    fn errors(tool: &ToolYaml) -> Vec<String> {
        validate(tool, None)
            .into_iter()
            .filter(|p| p.severity == Severity::Error)
            .map(|p| p.field)
            .collect()
    }

    #[test]
    fn reports_every_missing_field_at_once() {
        let tool = parse("author: me\n");
        assert_eq!(
            errors(&tool),
            ["name", "version", "description", "entrypoint"]
        );
    }

    #[test]
    fn minimal_manifest_is_valid() {
        let tool = parse("name: t\nversion: 1.0.0\ndescription: d\nentrypoint: bin/t\n");
        assert!(errors(&tool).is_empty());
    }

    #[test]
    fn entrypoint_outside_package_is_refused() {
        for entry in ["../x", "/bin/sh", "bin/../../x"] {
            let tool = parse(&format!(
                "name: t\nversion: 1.0.0\ndescription: d\nentrypoint: {entry}\n"
            ));
            assert_eq!(errors(&tool), ["entrypoint"], "{entry}");
        }
    }

    #[test]
    fn runtime_fields_are_checked() {
        let tool = parse(
            "name: t\nversion: 1.0.0\ndescription: d\nentrypoint: e\nruntime:\n  hot_load:\n    mode: reload\n  retry:\n    max_attempts: 0\n    backoff: soon\n",
        );
        assert_eq!(
            errors(&tool),
            [
                "runtime.hot_load.mode",
                "runtime.retry.max_attempts",
                "runtime.retry.backoff"
            ]
        );
    }

    #[test]
    fn interpreters_follow_rfc1() {
        assert_eq!(interpreter_of("/bin/bash").as_deref(), Some("bash"));
        assert_eq!(
            interpreter_of("/usr/bin/env python3").as_deref(),
            Some("python3")
        );
        assert_eq!(
            interpreter_of("/usr/bin/env -S python3 -u").as_deref(),
            Some("python3")
        );
        assert_eq!(shebang_of(b"#!/bin/sh\necho").as_deref(), Some("/bin/sh"));
        assert_eq!(shebang_of(b"\x7fELF"), None);
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ms("0s"), Some(0));
        assert_eq!(parse_duration_ms("500ms"), Some(500));
        assert_eq!(parse_duration_ms("2m"), Some(120_000));
        assert_eq!(parse_duration_ms("1.5s"), None);
    }
}
