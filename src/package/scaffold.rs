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

/// One input parameter: `NAME:TYPE`, optional with a trailing `?`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub ty: String,
    pub required: bool,
}

impl Param {
    /// Parses `NAME:TYPE` or `NAME:TYPE?`; a bare `NAME` is a required string.
    pub fn parse(text: &str) -> Result<Param, String> {
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
            return Err(format!(
                "parameter name '{name}' must be letters, digits, '_' or '-', not starting with a digit"
            ));
        }
        if !PARAM_TYPES.contains(&ty) {
            return Err(format!(
                "parameter '{name}' has unknown type '{ty}'; use one of {}",
                PARAM_TYPES.join(", ")
            ));
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
            permissions: self.permissions.clone(),
            runtime: Some(Runtime {
                mode: Some(self.mode),
                startup_timeout_ms: (self.mode == Mode::Capsule).then_some(5000),
                // The simple templates read one JSON object on stdin.
                arguments: (self.mode == Mode::Simple).then_some(Arguments::Json),
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
    }

    fn entrypoint_source(&self) -> String {
        let template = match (self.language, self.mode) {
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

const GITIGNORE: &str = "# Archives made by `orla tool pack`\n*.tar.gz\n# Written by `orla install`\n.orla-receipt.json\n__pycache__/\nnode_modules/\n";

const BASH_SIMPLE: &str = r#"#!/usr/bin/env bash
# {{NAME}} {{VERSION}}: {{DESCRIPTION}}
#
# orla runs this once per call (simple mode, RFC 1): the arguments arrive as
# one JSON object on stdin and the answer goes to stdout as JSON. Problems go
# to stderr with a non-zero exit status.
#
# Parameters (name, JSON type, required): {{PARAMS}}
set -euo pipefail

input="$(cat)"
if [[ -z "${input//[[:space:]]/}" ]]; then
    input='{}'
fi
if [[ ! "$input" =~ ^[[:space:]]*\{ ]]; then
    echo "error: {{NAME}} expects a JSON object on stdin" >&2
    exit 2
fi

# TODO: do the tool's work here. Plain bash can only pass JSON through; with
# jq installed, read a parameter with: value="$(jq -r '.NAME' <<<"$input")"
printf '{"tool":"%s","arguments":%s}\n' "{{NAME}}" "$input"
"#;

const BASH_CAPSULE: &str = r#"#!/usr/bin/env bash
# {{NAME}} {{VERSION}}: {{DESCRIPTION}}
#
# A capsule (RFC 3 section 5.3.1): it writes the orla.hello notification
# once, then answers JSON-RPC 2.0 requests, one per line, until stdin ends.
# Requests without an "id" are notifications and get no answer.
#
# Parameters (name, JSON type, required): {{PARAMS}}
set -uo pipefail

printf '%s\n' '{"jsonrpc":"2.0","method":"orla.hello","params":{"name":"{{NAME}}","version":"{{VERSION}}","capabilities":["tools"]}}'

id_pattern='"id"[[:space:]]*:[[:space:]]*("[^"]*"|-?[0-9]+)'
while IFS= read -r line || [[ -n "$line" ]]; do
    [[ -z "${line//[[:space:]]/}" ]] && continue
    if [[ ! "$line" =~ ^[[:space:]]*\{ ]]; then
        printf '%s\n' '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'
        continue
    fi
    if [[ "$line" =~ $id_pattern ]]; then
        id="${BASH_REMATCH[1]}"
    else
        continue
    fi
    # TODO: do the tool's work here. With jq installed, read the arguments
    # with: args="$(jq -c '.params.arguments // .params' <<<"$line")"
    printf '{"jsonrpc":"2.0","id":%s,"result":{"tool":"%s","request":%s}}\n' "$id" "{{NAME}}" "$line"
done
"#;

const PYTHON_SIMPLE: &str = r#"#!/usr/bin/env python3
"""{{NAME}} {{VERSION}}: {{DESCRIPTION}}

orla runs this once per call (simple mode, RFC 1): the arguments arrive as
one JSON object on stdin and the answer goes to stdout as JSON. Problems go
to stderr with a non-zero exit status.
"""

import json
import sys

NAME = "{{NAME}}"
# (name, JSON type, required), as declared in tool.yaml's mcp.input_schema.
PARAMS = {{PARAMS}}

TYPES = {
    "string": lambda v: isinstance(v, str),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}


def check(args):
    """Every problem with the arguments, as text."""
    problems = []
    for name, kind, required in PARAMS:
        if name not in args:
            if required:
                problems.append("missing parameter '%s'" % name)
        elif not TYPES[kind](args[name]):
            problems.append("parameter '%s' must be of type %s" % (name, kind))
    return problems


def run(args):
    # TODO: do the tool's work here and return any JSON value.
    return {"tool": NAME, "arguments": args}


def main():
    raw = sys.stdin.read()
    try:
        args = json.loads(raw) if raw.strip() else {}
    except ValueError as e:
        sys.stderr.write("error: the input is not JSON: %s\n" % e)
        return 2
    if not isinstance(args, dict):
        sys.stderr.write("error: the input must be a JSON object\n")
        return 2
    problems = check(args)
    if problems:
        sys.stderr.write("error: %s\n" % "; ".join(problems))
        return 2
    sys.stdout.write(json.dumps(run(args)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
"#;

const PYTHON_CAPSULE: &str = r#"#!/usr/bin/env python3
"""{{NAME}} {{VERSION}}: {{DESCRIPTION}}

A capsule (RFC 3 section 5.3.1): it writes the orla.hello notification once,
then answers JSON-RPC 2.0 requests, one per line, until stdin ends. A
"tools/call" request carries the arguments in params.arguments; requests
without an "id" are notifications and get no answer.
"""

import json
import sys

NAME = "{{NAME}}"
VERSION = "{{VERSION}}"
# (name, JSON type, required), as declared in tool.yaml's mcp.input_schema.
PARAMS = {{PARAMS}}

TYPES = {
    "string": lambda v: isinstance(v, str),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def check(args):
    problems = []
    for name, kind, required in PARAMS:
        if name not in args:
            if required:
                problems.append("missing parameter '%s'" % name)
        elif not TYPES[kind](args[name]):
            problems.append("parameter '%s' must be of type %s" % (name, kind))
    return problems


def run(args):
    # TODO: do the tool's work here and return any JSON value.
    return {"tool": NAME, "arguments": args}


def handle(request):
    if not isinstance(request, dict) or not isinstance(request.get("method"), str):
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}
    if "id" not in request:
        return None
    rid = request["id"]
    params = request.get("params") or {}
    args = params.get("arguments", params) if isinstance(params, dict) else params
    if not isinstance(args, dict):
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "Invalid params"}}
    problems = check(args)
    if problems:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "; ".join(problems)}}
    return {"jsonrpc": "2.0", "id": rid, "result": run(args)}


def main():
    send({"jsonrpc": "2.0", "method": "orla.hello",
          "params": {"name": NAME, "version": VERSION, "capabilities": ["tools"]}})
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError:
            send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
            continue
        response = handle(request)
        if response is not None:
            send(response)
    return 0


if __name__ == "__main__":
    sys.exit(main())
"#;

const NODE_SIMPLE: &str = r#"#!/usr/bin/env node
// {{NAME}} {{VERSION}}: {{DESCRIPTION}}
//
// orla runs this once per call (simple mode, RFC 1): the arguments arrive as
// one JSON object on stdin and the answer goes to stdout as JSON. Problems go
// to stderr with a non-zero exit status.
"use strict";

const NAME = "{{NAME}}";
// [name, JSON type, required], as declared in tool.yaml's mcp.input_schema.
const PARAMS = {{PARAMS}};

const TYPES = {
  string: (v) => typeof v === "string",
  number: (v) => typeof v === "number",
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === "boolean",
  object: (v) => v !== null && typeof v === "object" && !Array.isArray(v),
  array: (v) => Array.isArray(v),
};

function check(args) {
  const problems = [];
  for (const [name, kind, required] of PARAMS) {
    if (!(name in args)) {
      if (required) problems.push(`missing parameter '${name}'`);
    } else if (!TYPES[kind](args[name])) {
      problems.push(`parameter '${name}' must be of type ${kind}`);
    }
  }
  return problems;
}

function run(args) {
  // TODO: do the tool's work here and return any JSON value.
  return { tool: NAME, arguments: args };
}

let raw = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (raw += chunk));
process.stdin.on("end", () => {
  let args;
  try {
    args = raw.trim() ? JSON.parse(raw) : {};
  } catch (e) {
    process.stderr.write(`error: the input is not JSON: ${e.message}\n`);
    process.exit(2);
  }
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    process.stderr.write("error: the input must be a JSON object\n");
    process.exit(2);
  }
  const problems = check(args);
  if (problems.length > 0) {
    process.stderr.write(`error: ${problems.join("; ")}\n`);
    process.exit(2);
  }
  process.stdout.write(JSON.stringify(run(args)) + "\n");
});
"#;

const NODE_CAPSULE: &str = r#"#!/usr/bin/env node
// {{NAME}} {{VERSION}}: {{DESCRIPTION}}
//
// A capsule (RFC 3 section 5.3.1): it writes the orla.hello notification
// once, then answers JSON-RPC 2.0 requests, one per line, until stdin ends.
// A "tools/call" request carries the arguments in params.arguments; requests
// without an "id" are notifications and get no answer.
"use strict";

const readline = require("readline");

const NAME = "{{NAME}}";
const VERSION = "{{VERSION}}";
// [name, JSON type, required], as declared in tool.yaml's mcp.input_schema.
const PARAMS = {{PARAMS}};

const TYPES = {
  string: (v) => typeof v === "string",
  number: (v) => typeof v === "number",
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === "boolean",
  object: (v) => v !== null && typeof v === "object" && !Array.isArray(v),
  array: (v) => Array.isArray(v),
};

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function check(args) {
  const problems = [];
  for (const [name, kind, required] of PARAMS) {
    if (!(name in args)) {
      if (required) problems.push(`missing parameter '${name}'`);
    } else if (!TYPES[kind](args[name])) {
      problems.push(`parameter '${name}' must be of type ${kind}`);
    }
  }
  return problems;
}

function run(args) {
  // TODO: do the tool's work here and return any JSON value.
  return { tool: NAME, arguments: args };
}

function handle(request) {
  if (request === null || typeof request !== "object" || typeof request.method !== "string") {
    return { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request" } };
  }
  if (!("id" in request)) return null;
  const id = request.id;
  const params = request.params || {};
  const args = params.arguments !== undefined ? params.arguments : params;
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    return { jsonrpc: "2.0", id, error: { code: -32602, message: "Invalid params" } };
  }
  const problems = check(args);
  if (problems.length > 0) {
    return { jsonrpc: "2.0", id, error: { code: -32602, message: problems.join("; ") } };
  }
  return { jsonrpc: "2.0", id, result: run(args) };
}

send({ jsonrpc: "2.0", method: "orla.hello", params: { name: NAME, version: VERSION, capabilities: ["tools"] } });
const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  if (!line.trim()) return;
  let request;
  try {
    request = JSON.parse(line);
  } catch (e) {
    send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    return;
  }
  const response = handle(request);
  if (response !== null) send(response);
});
"#;

const BINARY_PLACEHOLDER: &str = r#"#!/bin/sh
# {{NAME}} {{VERSION}}: {{DESCRIPTION}}
#
# A placeholder: replace this file with your prebuilt executable (keep the
# name bin/{{NAME}}, or change `entrypoint` in tool.yaml), then run
# `orla tool validate`. Until then it answers like a simple-mode tool: the
# arguments as one JSON object on stdin, the answer as JSON on stdout.
input="$(cat)"
[ -n "$input" ] || input='{}'
printf '{"tool":"%s","arguments":%s}\n' "{{NAME}}" "$input"
"#;

const MIT: &str = "Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the \"Software\"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
";

const ISC: &str = "Permission to use, copy, modify, and/or distribute this software for any
purpose with or without fee is hereby granted, provided that the above
copyright notice and this permission notice appear in all copies.

THE SOFTWARE IS PROVIDED \"AS IS\" AND THE AUTHOR DISCLAIMS ALL WARRANTIES
WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF
MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR
ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES
WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN
ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF
OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.
";

const BSD3: &str = "Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:

1. Redistributions of source code must retain the above copyright notice, this
   list of conditions and the following disclaimer.

2. Redistributions in binary form must reproduce the above copyright notice,
   this list of conditions and the following disclaimer in the documentation
   and/or other materials provided with the distribution.

3. Neither the name of the copyright holder nor the names of its
   contributors may be used to endorse or promote products derived from
   this software without specific prior written permission.

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS \"AS IS\"
AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE
FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER
CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY,
OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
";

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
    fn year_is_plausible() {
        assert!(current_year() >= 2024);
    }
}
