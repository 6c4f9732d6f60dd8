//! `orla export`: the current root's runtime manifest written for another
//! runtime. The manifest is orla's contract with runtimes; each format here
//! is one more reader of it, so every export reads the manifest through the
//! runtime crate's own types, as `orla serve` does, and says what the same
//! tool says in `tools/list`. docs/export.md gives each format's shape and
//! the mapping field by field.
//!
//! - `openwop`: the ToolDescriptor[] of openwop's tool catalog (RFC 0078),
//!   made by the runtime crate (`orla_runtime::openwop`), which serves the
//!   same records.
//! - `runloop`: a Runloop `tools.json` (version 1); with a bundle
//!   directory, written there and its BLAKE3 recorded in the bundle's
//!   manifest.toml `[artifacts.tools]`, the rest of that file kept as
//!   written. Entries the bundle's author wrote (not tagged `orla`) are
//!   kept; a tools.json of another version is refused.
//! - `orloj`: one `kind: Tool` resource per tool, as YAML documents.
//!
//! A name a format cannot hold is refused with the rule it breaks, never
//! dropped or silently changed.

use std::path::{Path, PathBuf};

use orla_runtime::manifest::{Manifest as Served, Tool};
use serde::Serialize;
use serde_json::{json, Value};

use crate::error::export::ExportError;
use crate::manifest::Manifest;
use crate::progress::Reporter;
use crate::root::{InstallRoot, StoreError};
use crate::store::Store;

/// The formats `orla export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Openwop,
    Runloop,
    Orloj,
}

/// The version of tools.json orla writes (and the only one it reads).
pub const TOOLS_JSON_VERSION: u64 = 1;

/// The tag orla puts on its Runloop entries, so that exporting again
/// replaces them and keeps the entries a person wrote.
const ORLA_TAG: &str = "orla";

/// The root's manifest as `orla serve` would serve it: brought up to date
/// from the store first when it is stale, then read by the runtime crate.
pub fn served(root: &InstallRoot, reporter: &dyn Reporter) -> Result<Served, StoreError> {
    let manifest = current(root, reporter)?;
    Served::parse(manifest.to_json().as_bytes()).map_err(|e| StoreError::Manifest {
        path: root.manifest_path(),
        message: e.to_string(),
        newer: false,
    })
}

fn current(root: &InstallRoot, reporter: &dyn Reporter) -> Result<Manifest, StoreError> {
    if !root.needs_recovery() {
        match Manifest::read(root) {
            Ok(manifest) => {
                let written = root.manifest_path().is_file();
                // A root orla never wrote serves nothing: do not create it.
                if (!written && !root.state_dir.exists()) || (written && !manifest.is_stale(root)) {
                    return Ok(manifest);
                }
            }
            Err(StoreError::Manifest { newer: false, .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Store::open(root, reporter)?.sync_manifest(reporter)
}

/// The export of every tool the manifest serves, as text.
pub fn render(manifest: &Served, format: Format) -> Result<String, ExportError> {
    match format {
        Format::Openwop => Ok(openwop(manifest)),
        Format::Runloop => Ok(pretty(&runloop_document(manifest, Vec::new()))),
        Format::Orloj => orloj(manifest),
    }
}

fn pretty(value: &impl Serialize) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("JSON values serialise");
    text.push('\n');
    text
}

/// openwop: a bare ToolDescriptor[] (what `GET /v1/tools` lists).
pub fn openwop(manifest: &Served) -> String {
    pretty(&orla_runtime::openwop::catalog(manifest))
}

// ---- Runloop ----

/// One tools.json entry (Runloop's "Tool entry schema").
pub fn runloop_entry(tool: &Tool) -> Value {
    // Runloop runs `command <file holding the call's JSON> args...`: the
    // entrypoint (the last word of the manifest's command, absolute) runs
    // through its own `#!`, so nothing of the interpreter's command line
    // sits between it and that path.
    let entrypoint = tool.command.last().cloned().unwrap_or_default();
    let mut entry = json!({
        "id": tool.name,
        "description": tool.description,
        "transport": {"kind": "exec", "command": entrypoint, "args": tool.args},
        "input_schema": tool.input_schema,
        // Without an output schema a tool answers text: any result.
        "result_schema": tool.output_schema.clone().unwrap_or_else(|| json!({})),
        "capabilities": runloop_capabilities(tool),
        "requires_confirmation": tool.approval_required,
        "observability": {"tags": [
            ORLA_TAG,
            format!("risk:{}", tool.risk_level.as_str()),
            format!("safety:{}", tool.safety_tier.as_str()),
        ]},
    });
    if tool.args.is_empty() {
        entry["transport"]
            .as_object_mut()
            .expect("an object")
            .remove("args");
    }
    entry
}

/// Runloop's capability families (policy.caps keys) the permissions need:
/// `filesystem:*` is `fs`, `network` is `net`, `process:exec` is `exec`;
/// an unknown permission is kept as it is (a family Runloop does not grant,
/// so the tool stays unexposed); undeclared permissions need all three.
fn runloop_capabilities(tool: &Tool) -> Vec<String> {
    let mut caps: Vec<String> = if tool.permissions_declared {
        tool.permissions
            .iter()
            .map(|p| match p.as_str() {
                "filesystem:read" | "filesystem:write" => "fs".to_string(),
                "network" => "net".to_string(),
                "process:exec" => "exec".to_string(),
                other => other.to_string(),
            })
            .collect()
    } else {
        vec!["exec".into(), "fs".into(), "net".into()]
    };
    caps.sort();
    caps.dedup();
    caps
}

fn runloop_document(manifest: &Served, kept: Vec<Value>) -> Value {
    let mut tools = kept;
    tools.extend(manifest.tools.iter().map(runloop_entry));
    json!({"version": TOOLS_JSON_VERSION, "tools": tools})
}

/// Writes tools.json into a Runloop bundle and records its BLAKE3 in the
/// bundle's manifest.toml. Everything is read and checked before either
/// file is written.
pub fn write_bundle(manifest: &Served, dir: &Path) -> Result<PathBuf, ExportError> {
    let manifest_toml = dir.join("manifest.toml");
    if !manifest_toml.is_file() {
        return Err(ExportError::NotABundle {
            dir: dir.to_path_buf(),
        });
    }
    let tools_json = dir.join("tools.json");
    let kept = authored_entries(&tools_json)?;
    for entry in &kept {
        let id = entry.get("id").and_then(Value::as_str).unwrap_or_default();
        if manifest.tools.iter().any(|t| t.name == id) {
            return Err(ExportError::DuplicateId {
                path: tools_json,
                id: id.to_string(),
            });
        }
    }
    let text = pretty(&runloop_document(manifest, kept));
    let digest = blake3::hash(text.as_bytes()).to_hex().to_string();
    let toml_text = read(&manifest_toml)?;
    let edited =
        record_digest(&toml_text, &digest).map_err(|message| ExportError::BundleManifest {
            path: manifest_toml.clone(),
            message,
        })?;
    write(&tools_json, text.as_bytes())?;
    if edited != toml_text {
        write(&manifest_toml, edited.as_bytes())?;
    }
    Ok(tools_json)
}

/// The entries of an existing tools.json that orla did not write; none
/// when there is no file. A file of another version, or not a tools.json,
/// is refused rather than replaced.
fn authored_entries(path: &Path) -> Result<Vec<Value>, ExportError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(ExportError::Read {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    let malformed = |message: String| ExportError::ToolsJson {
        path: path.to_path_buf(),
        message,
    };
    let value: Value = serde_json::from_str(&text).map_err(|e| malformed(e.to_string()))?;
    match value.get("version") {
        Some(v) if v.as_u64() == Some(TOOLS_JSON_VERSION) => {}
        Some(v) => {
            return Err(ExportError::ToolsJsonVersion {
                path: path.to_path_buf(),
                found: v.to_string(),
            })
        }
        None => return Err(malformed("it has no version".into())),
    }
    let tools = match value.get("tools") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(tools)) => tools,
        Some(_) => return Err(malformed("tools is not a list".into())),
    };
    Ok(tools
        .iter()
        .filter(|t| {
            !t.pointer("/observability/tags")
                .and_then(Value::as_array)
                .is_some_and(|tags| tags.iter().any(|tag| tag == ORLA_TAG))
        })
        .cloned()
        .collect())
}

/// manifest.toml with `[artifacts.tools]` set to tools.json, its digest and
/// version; every other table, key and comment as it was.
fn record_digest(text: &str, digest: &str) -> Result<String, String> {
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        e.to_string().lines().next().unwrap_or_default().to_string()
    })?;
    let artifacts = doc
        .entry("artifacts")
        .or_insert_with(|| {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            toml_edit::Item::Table(t)
        })
        .as_table_mut()
        .ok_or("`artifacts` is not a table")?;
    let tools = artifacts
        .entry("tools")
        .or_insert_with(toml_edit::table)
        .as_table_mut()
        .ok_or("`artifacts.tools` is not a table")?;
    tools["path"] = toml_edit::value("tools.json");
    tools["blake3"] = toml_edit::value(digest);
    tools["version"] = toml_edit::value(TOOLS_JSON_VERSION as i64);
    Ok(doc.to_string())
}

fn read(path: &Path) -> Result<String, ExportError> {
    std::fs::read_to_string(path).map_err(|source| ExportError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes a file whole or not at all.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), ExportError> {
    crate::fs::atomic_write(path, bytes).map_err(|source| ExportError::Write {
        path: path.to_path_buf(),
        source,
    })
}

// ---- Orloj ----

/// The rule an Orloj resource name follows here: lowercase letters,
/// digits, `.`, `_` and `-`, starting and ending with a letter or digit
/// (Kubernetes' DNS subdomain names, with the `_` the seed's own names use).
const ORLOJ_NAME_RULE: &str = "an Orloj resource name ends with a lowercase letter or digit";

#[derive(Serialize)]
struct OrlojTool<'a> {
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    kind: &'static str,
    metadata: OrlojMetadata<'a>,
    spec: OrlojSpec<'a>,
}

#[derive(Serialize)]
struct OrlojMetadata<'a> {
    name: &'a str,
}

#[derive(Serialize)]
struct OrlojSpec<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    mcp_server_ref: &'static str,
    mcp_tool_name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    description: &'a str,
    input_schema: &'a Value,
    capabilities: &'a [String],
    risk_level: &'static str,
    runtime: OrlojRuntime,
}

#[derive(Serialize)]
struct OrlojRuntime {
    isolation_mode: &'static str,
    timeout: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    retry: Option<OrlojRetry>,
}

#[derive(Serialize)]
struct OrlojRetry {
    max_attempts: u32,
    backoff: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_backoff: Option<String>,
    jitter: String,
}

/// The McpServer resource orla's tools are reached through: the one a
/// person declares for `orla serve --stdio` (docs/export.md).
pub const ORLOJ_SERVER_REF: &str = "orla";

/// One `kind: Tool` YAML document per tool, `---` between them.
pub fn orloj(manifest: &Served) -> Result<String, ExportError> {
    let mut out = String::new();
    for tool in &manifest.tools {
        if !tool
            .name
            .ends_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
        {
            return Err(ExportError::Name {
                tool: tool.name.clone(),
                format: "orloj",
                rule: ORLOJ_NAME_RULE,
            });
        }
        let resource = OrlojTool {
            api_version: "orloj.dev/v1",
            kind: "Tool",
            metadata: OrlojMetadata { name: &tool.name },
            spec: OrlojSpec {
                kind: "mcp",
                mcp_server_ref: ORLOJ_SERVER_REF,
                mcp_tool_name: &tool.name,
                description: &tool.description,
                input_schema: &tool.input_schema,
                capabilities: &tool.permissions,
                risk_level: tool.risk_level.as_str(),
                runtime: OrlojRuntime {
                    isolation_mode: tool.isolation_mode().as_str(),
                    timeout: duration(tool.timeout_ms.unwrap_or(manifest.settings.timeout_ms)),
                    retry: tool.retry.as_ref().map(|r| OrlojRetry {
                        max_attempts: r.max_attempts,
                        backoff: duration(r.backoff_ms),
                        max_backoff: r.max_backoff_ms.map(duration),
                        jitter: r.jitter.clone(),
                    }),
                },
            },
        };
        if !out.is_empty() {
            out.push_str("---\n");
        }
        out.push_str(&serde_yaml::to_string(&resource).expect("YAML serialises"));
    }
    Ok(out)
}

/// A duration as Orloj writes one: `5s`, or `1500ms` when not whole seconds.
fn duration(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_whole_seconds_where_they_can_be() {
        assert_eq!(duration(30_000), "30s");
        assert_eq!(duration(0), "0s");
        assert_eq!(duration(1500), "1500ms");
    }

    #[test]
    fn the_digest_is_recorded_and_the_rest_of_manifest_toml_kept() {
        let text = "# signed bundle\n[agent]\nname = \"x\" # the agent\n\n[artifacts.policy]\npath = \"policy.caps\"\n";
        let out = record_digest(text, "ab").unwrap();
        assert!(
            out.starts_with("# signed bundle\n[agent]\nname = \"x\" # the agent\n"),
            "{out}"
        );
        assert!(
            out.contains("[artifacts.policy]\npath = \"policy.caps\"\n"),
            "{out}"
        );
        assert!(
            out.contains(
                "[artifacts.tools]\npath = \"tools.json\"\nblake3 = \"ab\"\nversion = 1\n"
            ),
            "{out}"
        );
        let again = record_digest(&out, "cd").unwrap();
        assert_eq!(again, out.replace("\"ab\"", "\"cd\""));
        assert!(record_digest("artifacts = 1\n", "ab").is_err());
        assert!(record_digest("[agent\n", "ab").is_err());
    }
}
