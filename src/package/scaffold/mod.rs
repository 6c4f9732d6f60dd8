//! `orla tool scaffold`: the files of a new tool package.
//!
//! Generation is a pure function of a [`Plan`] (the wizard's or the flags'
//! answers), so every language and mode can be tested without a terminal.
//! The result is a complete package (RFC 3 4.1): tool.yaml, an entrypoint
//! under `bin/` that follows the calling convention of its mode, README.md,
//! `.gitignore` and, when a license is chosen, LICENSE. It validates as is:
//! `orla tool validate`, `orla install --local` and a first call all work
//! before the author has changed a line.
//!
//! Calling conventions written into the templates:
//! - simple mode (RFC 1): one process per call; the arguments are one JSON
//!   object on stdin (tool.yaml declares `runtime.arguments: json`), the answer is JSON on stdout, problems go to stderr
//!   with a non-zero exit status;
//! - capsule mode (RFC 3 5.3.1): a long-running process that first writes
//!   the `orla.hello` notification, then answers JSON-RPC 2.0 requests, one
//!   per line, until stdin ends. A `tools/call` request carries the tool's
//!   arguments in `params.arguments` (as in MCP); any other method gets the
//!   params themselves.

pub mod answers;

use std::io::Write;
use std::path::Path;

use serde_json::json;

use super::{Arguments, Mcp, Mode, Runtime, ToolYaml};

/// The language of the entrypoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Bash,
    Python,
    Node,
    /// A prebuilt executable, copied in from `Plan::binary`.
    Binary,
}

impl Language {
    pub const ALL: [Language; 4] = [
        Language::Bash,
        Language::Python,
        Language::Node,
        Language::Binary,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Language::Bash => "bash",
            Language::Python => "python",
            Language::Node => "node",
            Language::Binary => "binary",
        }
    }
}

/// The JSON types an input parameter may have.
pub const PARAM_TYPES: [&str; 6] = ["string", "number", "integer", "boolean", "object", "array"];

/// Why a `--param` was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    #[error(
        "parameter name '{name}' must be letters, digits, '_' or '-', not starting with a digit"
    )]
    BadName { name: String },
    #[error("parameter '{name}' has unknown type '{ty}'; use one of {}", PARAM_TYPES.join(", "))]
    UnknownType { name: String, ty: String },
}

/// One input parameter: `NAME:TYPE`, optional with a trailing `?`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub ty: String,
    pub required: bool,
}

impl Param {
    /// Parses `NAME:TYPE` or `NAME:TYPE?`; a bare `NAME` is a required string.
    pub fn parse(text: &str) -> Result<Param, ParamError> {
        let text = text.trim();
        let (name, ty) = text.split_once(':').unwrap_or((text, "string"));
        let (name, ty) = (name.trim(), ty.trim());
        let (ty, required) = match ty.strip_suffix('?') {
            Some(t) => (t.trim(), false),
            None => (ty, true),
        };
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            || name.starts_with(|c: char| c.is_ascii_digit())
        {
            return Err(ParamError::BadName {
                name: name.to_string(),
            });
        }
        if !PARAM_TYPES.contains(&ty) {
            return Err(ParamError::UnknownType {
                name: name.to_string(),
                ty: ty.to_string(),
            });
        }
        Ok(Param {
            name: name.to_string(),
            ty: ty.to_string(),
            required,
        })
    }
}

/// Licenses whose full text orla writes; any other SPDX id gets a LICENSE
/// naming it and pointing at its text.
pub const LICENSES: [&str; 4] = ["MIT", "Apache-2.0", "ISC", "BSD-3-Clause"];

/// Every answer scaffolding needs.
#[derive(Debug, Clone)]
pub struct Plan {
    pub name: String,
    pub version: String,
    pub description: String,
    pub language: Language,
    pub mode: Mode,
    /// How a simple tool takes its arguments; its template follows it.
    pub arguments: Arguments,
    pub permissions: Vec<String>,
    pub params: Vec<Param>,
    pub author: Option<String>,
    /// An SPDX identifier; `None` writes no LICENSE.
    pub license: Option<String>,
    /// The executable for [`Language::Binary`]; `None` writes a placeholder.
    pub binary: Option<Vec<u8>>,
    /// The year in the license's copyright line.
    pub year: u32,
}

/// One file of the new package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    pub path: String,
    pub bytes: Vec<u8>,
    pub executable: bool,
}

impl Plan {
    pub fn entrypoint(&self) -> String {
        format!("bin/{}", self.name)
    }

    /// The tool.yaml model.
    pub fn tool_yaml(&self) -> ToolYaml {
        let mut properties = serde_json::Map::new();
        for p in &self.params {
            properties.insert(
                p.name.clone(),
                json!({"type": p.ty, "description": format!("TODO: what {} means", p.name)}),
            );
        }
        let required: Vec<&str> = self
            .params
            .iter()
            .filter(|p| p.required)
            .map(|p| p.name.as_str())
            .collect();
        let schema = json!({"type": "object", "properties": properties, "required": required});
        let dependencies = match self.language {
            Language::Bash => vec!["bash".to_string()],
            Language::Python => vec!["python3>=3.8".to_string()],
            Language::Node => vec!["node>=18".to_string()],
            Language::Binary => vec![],
        };
        ToolYaml {
            name: Some(self.name.clone()),
            version: Some(self.version.clone()),
            description: Some(self.description.clone()),
            entrypoint: Some(self.entrypoint()),
            author: self.author.clone(),
            license: self.license.clone(),
            dependencies,
            mcp: Some(Mcp {
                input_schema: Some(serde_yaml::to_value(schema).expect("JSON is YAML")),
                ..Mcp::default()
            }),
            permissions: super::Permissions::declared(self.permissions.clone()),
            runtime: Some(Runtime {
                mode: Some(self.mode),
                startup_timeout_ms: (self.mode == Mode::Capsule).then_some(5000),
                // What the simple template reads; capsules speak JSON-RPC.
                arguments: (self.mode == Mode::Simple).then_some(self.arguments),
                ..Runtime::default()
            }),
            ..ToolYaml::default()
        }
    }

    /// Every file of the package, sorted by path.
    pub fn files(&self) -> Vec<File> {
        let text = |path: &str, body: String, executable: bool| File {
            path: path.to_string(),
            bytes: body.into_bytes(),
            executable,
        };
        let mut files = vec![
            text(
                "tool.yaml",
                format!(
                    "# The manifest of {} (RFC 3 section 5); see `orla tool validate`.\n{}",
                    self.name,
                    self.tool_yaml().to_yaml()
                ),
                false,
            ),
            text("README.md", self.readme(), false),
            text(".gitignore", GITIGNORE.to_string(), false),
        ];
        let entry = self.entrypoint();
        files.push(match (&self.binary, self.language) {
            (Some(bytes), Language::Binary) => File {
                path: entry,
                bytes: bytes.clone(),
                executable: true,
            },
            _ => text(&entry, self.entrypoint_source(), true),
        });
        if let Some(license) = &self.license {
            files.push(text("LICENSE", self.license_text(license), false));
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        files
    }

    /// Parameters as the templates need them: `[[name, type, required]]`,
    /// as a literal of the entrypoint's language.
    fn param_table(&self) -> String {
        let rows: Vec<String> = self
            .params
            .iter()
            .map(|p| match self.language {
                Language::Python => format!(
                    "({:?}, {:?}, {})",
                    p.name,
                    p.ty,
                    if p.required { "True" } else { "False" }
                ),
                _ => format!("[{:?}, {:?}, {}]", p.name, p.ty, p.required),
            })
            .collect();
        format!("[{}]", rows.join(", "))
    }

    fn fill(&self, template: &str) -> String {
        // The description lands in comments and a docstring: one line, no `"""`.
        let description = self.description.replace('\n', " ").replace("\"\"\"", "\"");
        template
            .replace("{{NAME}}", &self.name)
            .replace("{{VERSION}}", &self.version)
            .replace("{{DESCRIPTION}}", &description)
            .replace("{{PARAMS}}", &self.param_table())
            .replace("{{SWITCHES}}", &self.switches())
    }

    /// The boolean parameters as the `flags` convention passes them
    /// (`--name`, hyphens for underscores), separated by spaces.
    fn switches(&self) -> String {
        let names: Vec<String> = self
            .params
            .iter()
            .filter(|p| p.ty == "boolean")
            .map(|p| p.name.replace('_', "-"))
            .collect();
        names.join(" ")
    }

    fn entrypoint_source(&self) -> String {
        let flags = self.mode == Mode::Simple && self.arguments == Arguments::Flags;
        let template = match (self.language, self.mode) {
            (Language::Bash | Language::Binary, Mode::Simple) if flags => BASH_FLAGS,
            (Language::Python, Mode::Simple) if flags => PYTHON_FLAGS,
            (Language::Node, Mode::Simple) if flags => NODE_FLAGS,
            (Language::Bash, Mode::Simple) => BASH_SIMPLE,
            (Language::Bash, Mode::Capsule) => BASH_CAPSULE,
            (Language::Python, Mode::Simple) => PYTHON_SIMPLE,
            (Language::Python, Mode::Capsule) => PYTHON_CAPSULE,
            (Language::Node, Mode::Simple) => NODE_SIMPLE,
            (Language::Node, Mode::Capsule) => NODE_CAPSULE,
            // Placeholders until the author drops the real executable in.
            (Language::Binary, Mode::Simple) => BINARY_PLACEHOLDER,
            (Language::Binary, Mode::Capsule) => BASH_CAPSULE,
        };
        self.fill(template)
    }

    fn readme(&self) -> String {
        let mut out = format!("# {}\n\n{}\n\n", self.name, self.description);
        out.push_str("## Input\n\n");
        if self.params.is_empty() {
            out.push_str("No parameters: the tool takes an empty JSON object.\n\n");
        } else {
            out.push_str("| Parameter | Type | Required |\n|---|---|---|\n");
            for p in &self.params {
                out.push_str(&format!(
                    "| `{}` | {} | {} |\n",
                    p.name,
                    p.ty,
                    if p.required { "yes" } else { "no" }
                ));
            }
            out.push('\n');
        }
        let example = self.example_args();
        match self.mode {
            Mode::Simple if self.arguments == Arguments::Flags => out.push_str(&format!(
                "## Calling it\n\nThe tool runs once per call (simple mode): it takes each argument as a \
`--name value` flag, as the Orla runtime passes them (underscores in a name become hyphens; a \
string as it is, any other value as JSON text), and answers with JSON on stdout.\n\n```sh\n{}{}\n```\n\n",
                self.entrypoint(),
                self.example_flags()
            )),
            Mode::Simple => out.push_str(&format!(
                "## Calling it\n\nThe tool runs once per call (simple mode): it reads its arguments as one JSON \
object on stdin and answers with JSON on stdout.\n\n```sh\necho '{example}' | {}\n```\n\n",
                self.entrypoint()
            )),
            Mode::Capsule => out.push_str(&format!(
                "## Calling it\n\nThe tool is a capsule (RFC 3 section 5.3.1): a long-running process that \
first writes the `orla.hello` notification, then answers JSON-RPC 2.0 requests, one per line, until \
its input ends. A `tools/call` request carries the arguments in `params.arguments`.\n\n```sh\n\
echo '{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"{}\",\"arguments\":{example}}}}}' | {}\n```\n\n",
                self.name,
                self.entrypoint()
            )),
        }
        out.push_str("## Permissions\n\n");
        if self.permissions.is_empty() {
            out.push_str("None.\n\n");
        } else {
            for p in &self.permissions {
                out.push_str(&format!("- `{p}`\n"));
            }
            out.push('\n');
        }
        out.push_str(
            "## Development\n\n```sh\norla tool validate              # every problem, with its fix\n\
orla install --local .           # install this directory and try it\n\
orla tool pack                   # a reproducible NAME-VERSION.tar.gz\n\
orla tool publish --index PATH   # into a registry index\n```\n",
        );
        if let Some(license) = &self.license {
            out.push_str(&format!("\n## License\n\n{license}; see LICENSE.\n"));
        }
        out
    }

    /// An example argument object for the README.
    pub fn example_args(&self) -> String {
        let mut map = serde_json::Map::new();
        for p in self.params.iter().filter(|p| p.required) {
            let v = match p.ty.as_str() {
                "string" => json!("hello"),
                "number" => json!(1.5),
                "integer" => json!(1),
                "boolean" => json!(true),
                "object" => json!({}),
                _ => json!([]),
            };
            map.insert(p.name.clone(), v);
        }
        serde_json::Value::Object(map).to_string()
    }

    /// The required parameters as the flags the Orla runtime would pass,
    /// each starting with a space (shell-quoted JSON text for non-strings).
    pub fn example_flags(&self) -> String {
        let args: serde_json::Value =
            serde_json::from_str(&self.example_args()).expect("example_args is JSON");
        let mut out = String::new();
        for (name, value) in args.as_object().expect("an object") {
            let text = match value {
                serde_json::Value::String(s) => s.clone(),
                other => format!("'{other}'"),
            };
            out.push_str(&format!(" --{} {text}", name.replace('_', "-")));
        }
        out
    }

    fn license_text(&self, license: &str) -> String {
        let holder = self
            .author
            .clone()
            .unwrap_or_else(|| format!("the {} authors", self.name));
        let year = self.year;
        match license {
            "MIT" => format!("MIT License\n\nCopyright (c) {year} {holder}\n\n{MIT}"),
            "ISC" => format!("ISC License\n\nCopyright (c) {year} {holder}\n\n{ISC}"),
            "BSD-3-Clause" => {
                format!("BSD 3-Clause License\n\nCopyright (c) {year}, {holder}\n\n{BSD3}")
            }
            other => format!(
                "Copyright (c) {year} {holder}\n\nLicensed under {other} (SPDX-License-Identifier: {other}).\n\
The full text of the license is at https://spdx.org/licenses/{other}.html\n"
            ),
        }
    }
}

/// Creates the package in `dir`. A directory that does not exist is built
/// next to its final place and renamed in, so a failure leaves nothing;
/// with `force`, an existing directory gets the files written over.
pub fn write(dir: &Path, files: &[File], force: bool) -> std::io::Result<()> {
    let exists = dir.exists();
    let non_empty = exists && std::fs::read_dir(dir)?.next().is_some();
    if non_empty && !force {
        return Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            "exists and is not empty",
        ));
    }
    if exists {
        return write_into(dir, files);
    }
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    let staging = tempfile::Builder::new()
        .prefix(".orla-scaffold-")
        .tempdir_in(parent)
        // tempfile's error names its random staging path; the caller names `dir`.
        .map_err(|e| std::io::Error::from(e.kind()))?;
    write_into(staging.path(), files)?;
    set_mode(staging.path(), 0o755)?;
    std::fs::rename(staging.path(), dir)?;
    // The staging directory is gone; keep TempDir from complaining.
    let _ = staging.keep();
    Ok(())
}

fn write_into(dir: &Path, files: &[File]) -> std::io::Result<()> {
    for file in files {
        let path = dir.join(&file.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut f = std::fs::File::create(&path)?;
        f.write_all(&file.bytes)?;
        set_mode(&path, if file.executable { 0o755 } else { 0o644 })?;
    }
    Ok(())
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> std::io::Result<()> {
    Ok(())
}

/// The current year, for copyright lines.
pub fn current_year() -> u32 {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    // Civil-from-days (Howard Hinnant), good for any date after 1970.
    let days = (secs / 86_400) as i64 + 719_468;
    let era = days / 146_097;
    let doe = days - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2)) as u32
}

// The files a scaffold writes, kept as files under templates/ so that they
// read (and can be linted) as the scripts they are. `{{NAME}}`, `{{VERSION}}`,
// `{{DESCRIPTION}}` and `{{PARAMS}}` are filled in by `fill`.
const GITIGNORE: &str = include_str!("templates/gitignore");
const BASH_SIMPLE: &str = include_str!("templates/simple.sh");
const BASH_CAPSULE: &str = include_str!("templates/capsule.sh");
const PYTHON_SIMPLE: &str = include_str!("templates/simple.py");
const PYTHON_CAPSULE: &str = include_str!("templates/capsule.py");
const NODE_SIMPLE: &str = include_str!("templates/simple.js");
const NODE_CAPSULE: &str = include_str!("templates/capsule.js");
const BASH_FLAGS: &str = include_str!("templates/flags.sh");
const PYTHON_FLAGS: &str = include_str!("templates/flags.py");
const NODE_FLAGS: &str = include_str!("templates/flags.js");
const BINARY_PLACEHOLDER: &str = include_str!("templates/binary-placeholder.sh");
const MIT: &str = include_str!("templates/MIT.txt");
const ISC: &str = include_str!("templates/ISC.txt");
const BSD3: &str = include_str!("templates/BSD-3-Clause.txt");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::package::{validate, Severity};

    fn plan(language: Language, mode: Mode) -> Plan {
        Plan {
            name: "t".into(),
            version: "0.1.0".into(),
            description: "d".into(),
            language,
            mode,
            arguments: Arguments::Json,
            permissions: vec!["network".into()],
            params: vec![
                Param::parse("text:string").unwrap(),
                Param::parse("limit:integer?").unwrap(),
            ],
            author: Some("Ada".into()),
            license: Some("MIT".into()),
            binary: None,
            year: 2026,
        }
    }

    #[test]
    fn params_parse() {
        assert_eq!(
            Param::parse("limit:integer?").unwrap(),
            Param {
                name: "limit".into(),
                ty: "integer".into(),
                required: false
            }
        );
        assert_eq!(Param::parse("path").unwrap().ty, "string");
        assert!(Param::parse("x:str").is_err());
        assert!(Param::parse("a b:string").is_err());
        assert!(Param::parse(":string").is_err());
    }

    #[test]
    fn every_combination_writes_a_valid_package() {
        for language in Language::ALL {
            for mode in [Mode::Simple, Mode::Capsule] {
                let dir = tempfile::tempdir().unwrap();
                let root = dir.path().join("t");
                let p = plan(language, mode);
                write(&root, &p.files(), false).unwrap();
                let tool = ToolYaml::read(&root).unwrap();
                let errors: Vec<_> = validate::validate(&tool, Some(&root))
                    .into_iter()
                    .filter(|p| p.severity == Severity::Error)
                    .collect();
                assert!(errors.is_empty(), "{language:?} {mode:?}: {errors:?}");
                assert_eq!(tool.mode(), mode);
                let schema = crate::package::schema::to_json_schema(
                    tool.mcp.unwrap().input_schema.as_ref().unwrap(),
                )
                .unwrap();
                assert_eq!(schema["required"], json!(["text"]));
                assert!(root.join("LICENSE").is_file());
                assert!(root.join(".gitignore").is_file());
            }
        }
    }

    #[test]
    fn refuses_a_non_empty_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("keep"), "x").unwrap();
        let p = plan(Language::Bash, Mode::Simple);
        let err = write(dir.path(), &p.files(), false).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn tool_yaml_reads_as_an_author_would_write_it() {
        let mut p = plan(Language::Python, Mode::Capsule);
        p.params.truncate(1);
        let text = String::from_utf8(
            p.files()
                .into_iter()
                .find(|f| f.path == "tool.yaml")
                .unwrap()
                .bytes,
        )
        .unwrap();
        assert_eq!(
            text,
            "# The manifest of t (RFC 3 section 5); see `orla tool validate`.
name: t
version: 0.1.0
description: d
entrypoint: bin/t
author: Ada
license: MIT
dependencies:
- python3>=3.8
mcp:
  input_schema:
    type: object
    properties:
      text:
        type: string
        description: 'TODO: what text means'
    required:
    - text
permissions:
- network
runtime:
  mode: capsule
  startup_timeout_ms: 5000
"
        );
    }

    #[test]
    fn simple_tools_declare_the_json_convention_their_templates_read() {
        for language in Language::ALL {
            let tool = plan(language, Mode::Simple).tool_yaml();
            assert_eq!(tool.arguments(), Arguments::Json, "{language:?}");
            let capsule = plan(language, Mode::Capsule).tool_yaml();
            assert_eq!(capsule.runtime.unwrap().arguments, None, "{language:?}");
        }
    }

    #[test]
    fn simple_tools_declare_flags_when_asked_and_get_a_template_that_reads_them() {
        for language in Language::ALL {
            let mut plan = plan(language, Mode::Simple);
            plan.arguments = Arguments::Flags;
            assert_eq!(
                plan.tool_yaml().arguments(),
                Arguments::Flags,
                "{language:?}"
            );
            let entry = plan.entrypoint();
            let files = plan.files();
            let source = files.iter().find(|f| f.path == entry).unwrap();
            let source = String::from_utf8(source.bytes.clone()).unwrap();
            assert!(source.contains("--name value"), "{language:?}: {source}");
        }
    }

    #[test]
    fn year_is_plausible() {
        assert!(current_year() >= 2024);
    }
}
