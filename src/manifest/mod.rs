//! The runtime manifest: the one file an MCP runtime reads.
//!
//! # Format (mirrored in docs/manifest.md and docs/manifest.schema.json)
//!
//! `<state_dir>/manifest.json` (`~/.orla/manifest.json` globally,
//! `<project>/.orla/manifest.json` in a project), written atomically after
//! every change to the store. It is derived entirely from the store, so it
//! can always be regenerated, and a runtime never scans package directories
//! or parses tool.yaml itself.
//!
//! - `manifest_version`: 2. A runtime must refuse a version it does not know
//!   (version 1 lacked how arguments are passed, so a v1 reader must not
//!   guess at a v2 file, nor the reverse).
//! - `tools`: what the runtime serves, one entry per tool name (the active
//!   version, see below), with absolute paths, the interpreter from
//!   the entrypoint's `#!` line (RFC 1 4.3) and the full `command` line that
//!   runs it (see `command`), the argument convention (`flags` or `json`),
//!   the working directory, args, env, mode, the capsule framing, timeouts,
//!   hot_load, retry, input/output JSON Schema, permissions, risk level and
//!   source.
//! - `installed`: every installed name and version, with `active`; this is
//!   what `orla list` prints, so listing never touches the packages.
//! - `settings`: the RFC 1 options (port, timeout, log format and level),
//!   from a project's orla.yaml or the defaults.
//!
//! The active version of a tool is the one `orla use` pinned, else (in a
//! project) the one orla.lock pins, else the newest installed stable
//! version, else the newest installed pre-release (as `latest` selects).
//!
//! A project's manifest also lists the loose executables of its tools_dir
//! (RFC 1 discovery, `source.kind: discovered`; an installed package of the
//! same name wins) and, after the project's own tools, the global tools no
//! project tool shadows (RFC 3 9.1), each entry saying its `root`.
//! `root.inputs` digests what else the manifest was derived from, so that
//! orla notices when a project's manifest is stale (see `inputs`).
//!
//! Rewriting it reads again only the name directories that changed since
//! the last manifest and copies the other entries from it as they are, file
//! to file (see `cache`, `scan`, `render` and `text`).

pub mod cache;
mod command;
mod inputs;
pub mod layout;
mod render;
mod scan;
mod text;

pub use command::command_line;

pub use inputs::{fingerprint, Inputs};
pub use render::{Rendered, Written};
pub use scan::{names, packages, scan, stamped, Changes, Package, Scan, Scanned};
pub use text::Text;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::package::{schema, validate, Arguments, Mode, RiskLevel};
use crate::progress::Reporter;
use crate::project::discover::Discovered;
use crate::project::Settings;
use crate::root::receipt::Source;
use crate::root::{InstallRoot, Installed, RootKind, StoreError};

pub use crate::root::MANIFEST_FILE;
pub const MANIFEST_VERSION: u32 = 2;
/// The depth of the manifest's entries, each on one line (see `layout`).
const ENTRIES_FLAT: usize = 3;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub manifest_version: u32,
    pub generator: String,
    pub root: RootInfo,
    #[serde(default)]
    pub settings: Settings,
    pub tools: Vec<ToolEntry>,
    pub installed: Vec<InstalledEntry>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RootInfo {
    pub kind: RootKindName,
    pub tools_dir: String,
    /// The project directory (project roots only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_dir: Option<String>,
    /// Digest of the other inputs of a project's manifest (see `inputs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<String>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum RootKindName {
    #[default]
    Global,
    Project,
}

impl RootKindName {
    pub fn as_str(self) -> &'static str {
        match self {
            RootKindName::Global => "global",
            RootKindName::Project => "project",
        }
    }
}

impl From<RootKind> for RootKindName {
    fn from(kind: RootKind) -> Self {
        match kind {
            RootKind::Global => RootKindName::Global,
            RootKind::Project => RootKindName::Project,
        }
    }
}

/// One tool the runtime serves.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ToolEntry {
    pub name: String,
    /// The root the tool is installed in: a project's manifest also serves
    /// global tools.
    #[serde(default)]
    pub root: RootKindName,
    pub version: String,
    pub description: String,
    /// Absolute path of the package directory.
    pub path: String,
    /// Absolute path of the entrypoint.
    pub entrypoint: String,
    /// From the entrypoint's `#!` line (`bash`, `python3`); null for a binary.
    pub interpreter: Option<String>,
    /// The argv that runs the entrypoint: interpreter, its options, the
    /// entrypoint (see `command`). `args` and the call's arguments follow.
    pub command: Vec<String>,
    /// How a simple tool receives a call's arguments.
    pub arguments: Arguments,
    /// Absolute directory the tool runs in.
    pub working_dir: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub mode: Mode,
    /// How to talk to a capsule; null for a simple tool.
    pub capsule: Option<CapsuleEntry>,
    pub timeout_ms: Option<u64>,
    pub startup_timeout_ms: Option<u64>,
    pub hot_load: Option<HotLoadEntry>,
    pub retry: Option<RetryEntry>,
    pub input_schema: Value,
    pub output_schema: Option<Value>,
    pub permissions: Vec<String>,
    /// False when tool.yaml has no `permissions` key (and for discovered
    /// executables): the tool may do anything. Written only when false.
    #[serde(default = "declared", skip_serializing_if = "is_declared")]
    pub permissions_declared: bool,
    pub risk_level: RiskLevel,
    /// The openwop safetyTier: pure, read, write or exec.
    pub safety_tier: String,
    pub source: Source,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct HotLoadEntry {
    /// Absolute paths.
    pub watch: Vec<String>,
    pub mode: String,
    pub debounce_ms: Option<u64>,
}

/// The wire protocol of a capsule (docs/manifest.md, "Capsules").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CapsuleEntry {
    /// `json-lines`: one JSON-RPC 2.0 message per line on stdin and stdout.
    pub framing: String,
    /// The notification the capsule writes first when it is ready.
    pub handshake: String,
    /// The first message a runtime sends, once the handshake arrived: the
    /// first `tools/call` request (no MCP `initialize` precedes it).
    pub first_request: String,
}

impl CapsuleEntry {
    pub fn current() -> CapsuleEntry {
        CapsuleEntry {
            framing: "json-lines".into(),
            handshake: "orla.hello".into(),
            first_request: "tools/call".into(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RetryEntry {
    pub max_attempts: u32,
    pub backoff_ms: u64,
    pub max_backoff_ms: Option<u64>,
    pub jitter: String,
}

/// One installed name and version: what `orla list` shows.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct InstalledEntry {
    pub name: String,
    #[serde(default)]
    pub root: RootKindName,
    pub version: String,
    pub description: String,
    pub path: String,
    pub entrypoint: String,
    pub mode: Mode,
    pub active: bool,
    pub permissions: Vec<String>,
    /// False when tool.yaml has no `permissions` key (and for discovered
    /// executables): the tool may do anything. Written only when false.
    #[serde(default = "declared", skip_serializing_if = "is_declared")]
    pub permissions_declared: bool,
    pub risk_level: RiskLevel,
    pub source: Source,
}

impl Manifest {
    /// The manifest of an empty root.
    pub fn empty(root: &InstallRoot) -> Manifest {
        Manifest::generate(root, &[])
    }

    /// Derives the manifest from the store's contents alone.
    pub fn generate(root: &InstallRoot, installed: &[Package]) -> Manifest {
        Manifest::generate_with(
            root,
            installed,
            &Inputs::default(),
            &crate::progress::Silent,
        )
    }

    /// Derives the manifest from the store's contents (see [`packages`])
    /// and the other inputs of the root; name clashes are reported.
    pub fn generate_with(
        root: &InstallRoot,
        installed: &[Package],
        inputs: &Inputs,
        reporter: &dyn Reporter,
    ) -> Manifest {
        let active = render::active(
            installed.iter().map(|p| (p.name.as_str(), &p.version)),
            &inputs.preferred,
        );
        let mut tools = Vec::new();
        let mut listed = Vec::new();
        let kind: RootKindName = root.kind.into();
        for pkg in installed {
            let is_active = active.get(pkg.name.as_str()) == Some(&&pkg.version);
            listed.push(installed_entry(&pkg.entry, kind, is_active));
            if is_active {
                let mut entry = pkg.entry.clone();
                entry.root = kind;
                tools.push(entry);
            }
        }
        // RFC 1 discovery: an installed package of the same name wins, since
        // it was asked for by name (and, in a project, is pinned in orla.lock).
        for found in &inputs.discovered {
            let clash = active.contains_key(found.name.as_str());
            if clash {
                warn_shadowed(found, reporter);
            }
            let entry = discovered_entry(found, kind, root.project_dir.as_deref());
            listed.push(discovered_listing(&entry, kind, !clash));
            if !clash {
                tools.push(entry);
            }
        }
        // RFC 3 9.1: a project's tools shadow global tools of the same name;
        // the others are served as well.
        let own = render::own_names(&active, &inputs.discovered);
        for global in &inputs.global_tools {
            if !own.contains(global.name.as_str()) {
                let mut entry = global.clone();
                entry.root = RootKindName::Global;
                tools.push(entry);
            }
        }
        for global in &inputs.global_installed {
            let mut entry = global.clone();
            entry.root = RootKindName::Global;
            entry.active = entry.active && !own.contains(entry.name.as_str());
            listed.push(entry);
        }
        Manifest {
            manifest_version: MANIFEST_VERSION,
            generator: format!("orla {}", env!("CARGO_PKG_VERSION")),
            root: RootInfo {
                kind,
                tools_dir: display(&root.tools_dir),
                project_dir: root.project_dir.as_deref().map(display),
                inputs: inputs.fingerprint.clone(),
            },
            settings: inputs.settings.clone(),
            tools,
            installed: listed,
        }
    }

    pub fn to_json(&self) -> String {
        layout::to_string(self, ENTRIES_FLAT)
    }

    /// Reads a root's manifest; a root with none yet is empty.
    pub fn read(root: &InstallRoot) -> Result<Manifest, StoreError> {
        read_as(root, Manifest::empty)
    }

    /// Whether a project's manifest no longer matches its other inputs
    /// (orla.yaml, orla.lock, pins, the global manifest, loose executables).
    pub fn is_stale(&self, root: &InstallRoot) -> bool {
        self.root.is_stale(root)
    }

    /// Parses a manifest, refusing versions this orla does not know.
    pub fn parse(bytes: &[u8]) -> Result<Manifest, String> {
        parse_as(bytes)
    }

    /// Refuses a root whose manifest a newer orla wrote (and nothing else:
    /// a damaged manifest is written again). Reads only its version, not
    /// its thousand entries.
    pub fn refuse_newer(root: &InstallRoot) -> Result<(), StoreError> {
        // As this orla writes it (`to_json`): the version comes first.
        let ours = format!("{{\n  \"manifest_version\": {MANIFEST_VERSION},\n");
        let mut start = vec![0; ours.len()];
        match std::fs::File::open(root.manifest_path()) {
            Ok(mut file) => {
                if std::io::Read::read_exact(&mut file, &mut start).is_ok()
                    && start == ours.as_bytes()
                {
                    return Ok(());
                }
            }
            Err(_) => return Ok(()),
        }
        let Ok(bytes) = std::fs::read(root.manifest_path()) else {
            return Ok(());
        };
        match serde_json::from_slice::<Head>(&bytes) {
            Ok(head) if head.manifest_version <= Some(u64::from(MANIFEST_VERSION)) => Ok(()),
            // Newer, or too odd to tell: the full read says which.
            _ => match Manifest::read(root) {
                Err(e @ StoreError::Manifest { newer: true, .. }) => Err(e),
                _ => Ok(()),
            },
        }
    }
}

impl RootInfo {
    /// Whether a project's manifest no longer matches its other inputs.
    pub fn is_stale(&self, root: &InstallRoot) -> bool {
        root.kind == RootKind::Project && self.inputs.as_deref() != Some(&fingerprint(root))
    }
}

/// A manifest without its `tools`: what `orla list` shows, read without
/// parsing every tool's schemas.
#[derive(Debug, Clone, Deserialize)]
pub struct Listing {
    #[serde(default)]
    manifest_version: u32,
    pub root: RootInfo,
    pub installed: Vec<InstalledEntry>,
}

impl Listing {
    /// Reads a root's manifest as a listing; a root with none yet is empty.
    pub fn read(root: &InstallRoot) -> Result<Listing, StoreError> {
        read_as(root, |root| Manifest::empty(root).into())
    }
}

impl From<Manifest> for Listing {
    fn from(manifest: Manifest) -> Listing {
        Listing {
            manifest_version: manifest.manifest_version,
            root: manifest.root,
            installed: manifest.installed,
        }
    }
}

/// What [`parse_as`] reads a manifest into.
trait Parsed: serde::de::DeserializeOwned {
    fn version(&self) -> u32;
    fn kind(&self) -> RootKindName;
    /// A quicker parse of a manifest as this orla writes it, if it is one.
    fn quick(_: &[u8]) -> Option<Self> {
        None
    }
}

impl Parsed for Manifest {
    fn version(&self) -> u32 {
        self.manifest_version
    }
    fn kind(&self) -> RootKindName {
        self.root.kind
    }
}

impl Parsed for Listing {
    fn version(&self) -> u32 {
        self.manifest_version
    }
    fn kind(&self) -> RootKindName {
        self.root.kind
    }

    /// The head and `installed` of a global manifest as [`Manifest::to_json`]
    /// lays it out, parsed without going through its `tools` (two thirds
    /// of it): each top-level key of the pretty printer is a line of its
    /// own indented by two spaces, which no string in it can contain.
    fn quick(bytes: &[u8]) -> Option<Listing> {
        let ours = format!("{{\n  \"manifest_version\": {MANIFEST_VERSION},\n");
        if !bytes.starts_with(ours.as_bytes()) {
            return None;
        }
        let text = std::str::from_utf8(bytes).ok()?;
        let tools = text.find(",\n  \"tools\": [")?;
        const INSTALLED: &str = ",\n  \"installed\": ";
        let installed = text.rfind(INSTALLED)?;
        let end = text.strip_suffix("\n}\n")?.len();
        if installed < tools || end < installed {
            return None;
        }
        #[derive(Deserialize)]
        struct Head {
            manifest_version: u32,
            root: RootInfo,
        }
        let head: Head = serde_json::from_str(&format!("{}\n}}", &text[..tools])).ok()?;
        if head.manifest_version != MANIFEST_VERSION || head.root.kind != RootKindName::Global {
            return None;
        }
        let installed = serde_json::from_str(&text[installed + INSTALLED.len()..end]).ok()?;
        Some(Listing {
            manifest_version: head.manifest_version,
            root: head.root,
            installed,
        })
    }
}

/// What is read of a manifest to refuse one from a newer orla: its version.
#[derive(Deserialize)]
struct Head {
    #[serde(default)]
    manifest_version: Option<u64>,
}

fn read_as<T: Parsed>(
    root: &InstallRoot,
    empty: impl FnOnce(&InstallRoot) -> T,
) -> Result<T, StoreError> {
    let path = root.manifest_path();
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(empty(root)),
        Err(e) => return Err(StoreError::io("cannot read", &path)(e)),
    };
    parse_as(&bytes).map_err(|message| StoreError::Manifest {
        path,
        message,
        newer: serde_json::from_slice::<Value>(&bytes)
            .ok()
            .and_then(|v| v.get("manifest_version")?.as_u64())
            .is_some_and(|v| v > u64::from(MANIFEST_VERSION)),
    })
}

/// Parses a manifest (or the part `T` keeps), refusing versions this orla
/// does not know.
fn parse_as<T: Parsed>(bytes: &[u8]) -> Result<T, String> {
    // The common case in one pass straight into `T`: a global manifest of
    // this version, whose entries without a `root` are global, as `T`
    // defaults them. A project's (or anything odd) takes the way below,
    // with its messages.
    if let Some(parsed) = T::quick(bytes) {
        return Ok(parsed);
    }
    if let Ok(parsed) = serde_json::from_slice::<T>(bytes) {
        if parsed.version() == MANIFEST_VERSION && parsed.kind() == RootKindName::Global {
            return Ok(parsed);
        }
    }
    let value: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    match value.get("manifest_version").and_then(Value::as_u64) {
        Some(v) if v == u64::from(MANIFEST_VERSION) => {}
        Some(v) => {
            return Err(format!(
                "manifest_version {v} is not known to this orla (it reads {MANIFEST_VERSION})"
            ))
        }
        None => return Err("manifest_version is missing".into()),
    }
    let mut value = value;
    // Entries written before `root` existed belong to the manifest's root.
    let kind = value.pointer("/root/kind").cloned().unwrap_or(Value::Null);
    for list in ["tools", "installed"] {
        if let Some(Value::Array(entries)) = value.get_mut(list) {
            for e in entries.iter_mut().filter_map(Value::as_object_mut) {
                e.entry("root").or_insert_with(|| kind.clone());
            }
        }
    }
    serde_json::from_value(value).map_err(|e| e.to_string())
}

/// The `installed` entry of a package whose `tools` entry is `entry`.
fn installed_entry(entry: &ToolEntry, root: RootKindName, active: bool) -> InstalledEntry {
    InstalledEntry {
        root,
        name: entry.name.clone(),
        version: entry.version.clone(),
        description: entry.description.clone(),
        path: entry.path.clone(),
        entrypoint: entry.entrypoint.clone(),
        mode: entry.mode,
        active,
        permissions: entry.permissions.clone(),
        permissions_declared: entry.permissions_declared,
        risk_level: entry.risk_level,
        source: entry.source.clone(),
    }
}

/// A discovered executable as `installed` lists it: no version, nothing
/// declared; active unless an installed package of its name is served.
fn discovered_listing(entry: &ToolEntry, root: RootKindName, active: bool) -> InstalledEntry {
    InstalledEntry {
        version: String::new(),
        permissions: Vec::new(),
        permissions_declared: false,
        ..installed_entry(entry, root, active)
    }
}

/// A discovered executable is not served: an installed package has its name.
fn warn_shadowed(found: &Discovered, reporter: &dyn Reporter) {
    reporter.warn(&format!(
        "{} is not served: the installed package {} has the same name (rename the file to serve both)",
        found.path.display(),
        found.name
    ));
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

/// A discovered executable as the runtime serves it: nothing is declared,
/// so it runs as a simple RFC 1 tool and counts as high risk.
fn discovered_entry(
    found: &Discovered,
    root: RootKindName,
    project_dir: Option<&Path>,
) -> ToolEntry {
    let path = display(&found.path);
    ToolEntry {
        name: found.name.clone(),
        root,
        version: String::new(),
        description: String::new(),
        path: path.clone(),
        entrypoint: path.clone(),
        interpreter: found.interpreter.clone(),
        command: command_line(validate::read_shebang(&found.path).as_deref(), &path),
        // RFC 1 tools take the Orla runtime's flags, and run where the
        // project is, as that runtime runs them from the project directory.
        arguments: Arguments::Flags,
        working_dir: project_dir
            .map(display)
            .unwrap_or_else(|| display(found.path.parent().unwrap_or(&found.path))),
        args: Vec::new(),
        env: BTreeMap::new(),
        mode: Mode::Simple,
        capsule: None,
        timeout_ms: None,
        startup_timeout_ms: None,
        hot_load: None,
        retry: None,
        input_schema: serde_json::json!({"type": "object", "properties": {}}),
        output_schema: None,
        permissions: Vec::new(),
        permissions_declared: false,
        risk_level: RiskLevel::High,
        safety_tier: "exec".into(),
        source: Source::Discovered {
            path,
            blake3: found.blake3,
            size: found.size,
            extra: Default::default(),
        },
    }
}

fn declared() -> bool {
    true
}

fn is_declared(declared: &bool) -> bool {
    *declared
}

/// The `tools` entry of an installed package whose entrypoint is `entrypoint`.
fn tool_entry(pkg: &Installed, entrypoint: &Path, root: RootKindName) -> ToolEntry {
    let tool = &pkg.tool;
    let runtime = tool.runtime.clone().unwrap_or_default();
    let convert =
        |s: &Option<serde_yaml::Value>| s.as_ref().and_then(|s| schema::to_json_schema(s).ok());
    let mcp = tool.mcp.clone().unwrap_or_default();
    let shebang = validate::read_shebang(entrypoint);
    ToolEntry {
        name: pkg.receipt.name.clone(),
        root,
        version: pkg.receipt.version.to_string(),
        description: tool.description.clone().unwrap_or_default(),
        path: display(&pkg.dir),
        entrypoint: display(entrypoint),
        interpreter: shebang.as_deref().and_then(validate::interpreter_of),
        command: command_line(shebang.as_deref(), &display(entrypoint)),
        arguments: tool.arguments(),
        // RFC 2 8.1: a tool runs in its package directory.
        working_dir: display(&pkg.dir),
        args: runtime.args.clone(),
        env: runtime.env.clone(),
        mode: tool.mode(),
        capsule: (tool.mode() == Mode::Capsule).then(CapsuleEntry::current),
        timeout_ms: runtime.timeout_ms,
        startup_timeout_ms: runtime.startup_timeout_ms,
        hot_load: runtime.hot_load.as_ref().map(|h| HotLoadEntry {
            watch: h.watch.iter().map(|w| display(&pkg.dir.join(w))).collect(),
            mode: h.mode.clone().unwrap_or_else(|| "restart".into()),
            debounce_ms: h.debounce_ms,
        }),
        retry: runtime.retry.as_ref().map(|r| RetryEntry {
            max_attempts: r.max_attempts.unwrap_or(1),
            backoff_ms: r
                .backoff
                .as_deref()
                .and_then(validate::parse_duration_ms)
                .unwrap_or(0),
            max_backoff_ms: r
                .max_backoff
                .as_deref()
                .and_then(validate::parse_duration_ms),
            jitter: match r.jitter {
                Some(crate::package::Jitter::Full) => "full",
                Some(crate::package::Jitter::Equal) => "equal",
                _ => "none",
            }
            .into(),
        }),
        input_schema: convert(&mcp.input_schema)
            .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}})),
        output_schema: convert(&mcp.output_schema),
        permissions: tool.permissions.to_vec(),
        permissions_declared: tool.permissions.is_declared(),
        risk_level: tool.risk(),
        safety_tier: tool.permissions.safety_tier().into(),
        source: pkg.receipt.source.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(name: &str, root: RootKindName, active: bool) -> InstalledEntry {
        InstalledEntry {
            name: name.into(),
            root,
            version: "1.0.0".into(),
            description: "a \"quoted\"\n  \"installed\": [ description".into(),
            path: format!("/t/{name}/1.0.0"),
            entrypoint: format!("/t/{name}/1.0.0/bin/{name}"),
            mode: Mode::Simple,
            active,
            permissions: vec!["filesystem:read".into()],
            permissions_declared: active,
            risk_level: RiskLevel::Low,
            source: Source::Local {
                path: "/src".into(),
                blake3: crate::verify::Digest::of(name.as_bytes()),
                size: 3,
                extra: Default::default(),
            },
        }
    }

    /// The listing read past `tools` is the one a full parse gives.
    #[test]
    fn a_listing_read_quickly_equals_a_full_parse() {
        let root = InstallRoot::global(Path::new("/home/u/.orla"));
        let mut manifest = Manifest::empty(&root);
        for (kind, installed) in [
            (RootKindName::Global, vec![]),
            (
                RootKindName::Global,
                vec![
                    listed("a", RootKindName::Global, true),
                    listed("b", RootKindName::Global, false),
                ],
            ),
            (
                RootKindName::Project,
                vec![listed("c", RootKindName::Project, true)],
            ),
        ] {
            manifest.root.kind = kind;
            manifest.installed = installed;
            let json = manifest.to_json();
            let full: Listing = serde_json::from_str(&json).unwrap();
            let quick = Listing::quick(json.as_bytes());
            match kind {
                RootKindName::Global => {
                    let quick = quick.expect("a global manifest of this orla");
                    assert_eq!(quick.root, full.root);
                    assert_eq!(quick.installed, full.installed);
                }
                // Entries without `root` belong to the manifest's root: the
                // full parse says so.
                RootKindName::Project => assert!(quick.is_none()),
            }
        }
        // Anything else is left to the full parse.
        manifest.root.kind = RootKindName::Global;
        let json = manifest.to_json();
        assert!(Listing::quick(json.as_bytes()).is_some());
        assert!(Listing::quick(json.replace("\n  ", "\n   ").as_bytes()).is_none());
        assert!(Listing::quick(&json.as_bytes()[..json.len() - 3]).is_none());
    }
}
