//! The manifest derived from a root: every package orla installed there
//! read (receipt, tool.yaml, the entrypoint's `#!` line) and turned into its
//! entries, with the root's other inputs (pins, orla.lock, discovered
//! executables, global tools; see `inputs`). The whole manifest is derived
//! again on every change: a root of a few hundred tools is read in
//! milliseconds.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use super::{
    command_line, display, CapsuleEntry, HotLoadEntry, Inputs, InstalledEntry, Manifest,
    RetryEntry, RootInfo, RootKindName, ToolEntry, MANIFEST_VERSION,
};
use crate::config::{Approval, RunSettings};
use crate::package::{schema, validate, Arguments, IsolationMode, Mode, RiskLevel, SafetyTier};
use crate::progress::{Event, Reporter, Warning};
use crate::project::discover::Discovered;
use crate::project::Settings;
use crate::root::binding::KeyState;
use crate::root::receipt::Source;
use crate::root::{InstallRoot, Installed, StoreError};

/// One installed package as the manifest describes it.
#[derive(Debug, Clone)]
pub struct PackageEntry {
    pub name: String,
    pub version: semver::Version,
    /// Its `tools` entry, were it the active version.
    pub entry: ToolEntry,
}

/// Every package of `root` that orla installed there (see
/// [`InstallRoot::scan`]) and that can run, sorted by name and version;
/// the others are reported and left out: a directory orla did not install
/// here, a damaged receipt or tool.yaml, an entrypoint deleted outside orla
/// (it stays in the store, for `orla verify` to report and `orla install
/// --force` or `orla uninstall` to fix).
pub fn packages(
    root: &InstallRoot,
    reporter: &dyn Reporter,
) -> Result<Vec<PackageEntry>, StoreError> {
    let key = root.key_state();
    let kind = RootKindName::from(root.kind);
    let dirs = root.package_dirs()?;
    // Reading a package is parsing its receipt and tool.yaml: the cores
    // share the packages, and what they find is reported in order.
    let read = crate::parallel::map(&dirs, READ_THREADS, |(_, _, dir)| {
        read(root, dir.clone(), &key, kind)
    });
    let mut out = Vec::with_capacity(read.len());
    for result in read {
        match result {
            Ok(pkg) => out.push(pkg),
            Err(warning) => reporter.report(Event::Warning(warning)),
        }
    }
    out.sort_by(|a, b| (&a.name, &a.version).cmp(&(&b.name, &b.version)));
    Ok(out)
}

/// How many threads read a root's packages.
const READ_THREADS: usize = 4;

/// The package at `dir`, if it is bound to this root and can run; else
/// the warning that says why not.
fn read(
    root: &InstallRoot,
    dir: PathBuf,
    key: &KeyState,
    kind: RootKindName,
) -> Result<PackageEntry, Warning> {
    let pkg = root
        .load(dir, key)
        .map_err(|(dir, why)| crate::root::ignored(&dir, why))?;
    let entrypoint = pkg
        .dir
        .join(pkg.tool.entrypoint.as_deref().unwrap_or_default());
    if !fs::metadata(&entrypoint).is_ok_and(|m| m.is_file()) {
        return Err(Warning::EntrypointDeleted {
            name: pkg.receipt.name,
            version: pkg.receipt.version,
            entrypoint: entrypoint.display().to_string(),
        });
    }
    let entry = tool_entry(&pkg, &entrypoint, kind);
    Ok(PackageEntry {
        name: pkg.receipt.name,
        version: pkg.receipt.version,
        entry,
    })
}

impl Manifest {
    /// The manifest of an empty root.
    pub fn empty(root: &InstallRoot) -> Manifest {
        Manifest::generate(root, &[])
    }

    /// Derives the manifest from the store's contents alone.
    pub fn generate(root: &InstallRoot, installed: &[PackageEntry]) -> Manifest {
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
        installed: &[PackageEntry],
        inputs: &Inputs,
        reporter: &dyn Reporter,
    ) -> Manifest {
        let active = active(
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
        let own = own_names(&active, &inputs.discovered);
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
        for entry in &mut tools {
            confinement(entry, &inputs.run);
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
            settings: settings(root, inputs),
            tools,
            installed: listed,
        }
    }
}

/// How `entry` runs, from `runtime:` in config.yaml and orla.yaml: its
/// isolation mode (the file's, else tool.yaml's, else Orloj's default from
/// risk), the variables passed to it, and whether each call needs approval
/// (critical risk or `approval: required`, unless config.yaml pre-approves
/// it).
fn confinement(entry: &mut ToolEntry, run: &RunSettings) {
    let own = run.tools.get(&entry.name);
    if let Some(mode) = own.and_then(|t| t.isolation_mode) {
        entry.isolation_mode = Some(mode);
    }
    let declared = entry.permissions_declared && !matches!(entry.source, Source::Discovered { .. });
    entry
        .isolation_mode
        .get_or_insert(IsolationMode::default_for(entry.risk_level, declared));
    let mut pass_env: Vec<String> = run
        .pass_env
        .iter()
        .chain(own.map(|t| t.pass_env.as_slice()).unwrap_or_default())
        .chain(&entry.pass_env)
        .cloned()
        .collect();
    pass_env.sort();
    pass_env.dedup();
    entry.pass_env = pass_env;
    let approval = own.and_then(|t| t.approval);
    entry.approval_required = approval != Some(Approval::PreApproved)
        && (entry.approval_required
            || entry.risk_level == RiskLevel::Critical
            || approval == Some(Approval::Required));
}

/// The manifest's settings: orla.yaml's RFC 1 options, and what the
/// runtime needs to confine tools: the workspace, the grants, the trees no
/// grant reaches (orla's state, the installed tools, orla.yaml and
/// orla.lock), the limits of `sandboxed`.
fn settings(root: &InstallRoot, inputs: &Inputs) -> Settings {
    let run = &inputs.run;
    let mut protect = vec![display(&root.state_dir), display(&root.tools_dir)];
    protect.extend(root.global_state_dir.as_deref().map(display));
    if let Some(dir) = &root.project_dir {
        protect.push(display(&dir.join(crate::project::CONFIG_FILE)));
        protect.push(display(&dir.join(crate::project::LOCK_FILE)));
    }
    let paths = |list: &[std::path::PathBuf]| list.iter().map(|p| display(p)).collect();
    Settings {
        isolation: run.isolation.unwrap_or_default(),
        workspace: root.project_dir.as_deref().map(display),
        allow_read: paths(&run.allow_read),
        allow_write: paths(&run.allow_write),
        protect,
        sandbox_memory_mb: run
            .sandbox
            .memory_mb
            .unwrap_or(crate::project::DEFAULT_SANDBOX_MEMORY_MB),
        sandbox_cpu_seconds: run
            .sandbox
            .cpu_seconds
            .unwrap_or(crate::project::DEFAULT_SANDBOX_CPU_SECONDS),
        ..inputs.settings.clone()
    }
}

/// The version of each name to serve: the preferred one when it is
/// installed, else the newest stable one, else the newest pre-release
/// (what `latest` selects, so that installing a pre-release does not
/// switch a tool to it). `installed` is sorted by name and version.
fn active<'a>(
    installed: impl Iterator<Item = (&'a str, &'a semver::Version)>,
    preferred: &BTreeMap<String, semver::Version>,
) -> HashMap<&'a str, &'a semver::Version> {
    let rank = |v: &'a semver::Version| (v.pre.is_empty(), v);
    let mut active: HashMap<&str, &semver::Version> = HashMap::new();
    for (name, version) in installed {
        if preferred.get(name) == Some(version) {
            active.insert(name, version);
            continue;
        }
        let entry = active.entry(name).or_insert(version);
        if rank(version) > rank(entry) && preferred.get(name) != Some(*entry) {
            *entry = version;
        }
    }
    active
}

/// The names a root serves itself: its active packages and the discovered
/// executables no package of the same name shadows. Global tools of these
/// names are not served in a project (RFC 3 9.1).
fn own_names<'a>(
    active: &HashMap<&'a str, &'a semver::Version>,
    discovered: &'a [crate::project::discover::Discovered],
) -> HashSet<&'a str> {
    active
        .keys()
        .copied()
        .chain(
            discovered
                .iter()
                .filter(|d| !active.contains_key(d.name.as_str()))
                .map(|d| d.name.as_str()),
        )
        .collect()
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
    reporter.report(Event::Warning(Warning::ExecutableShadowed {
        path: found.path.display().to_string(),
        name: found.name.clone(),
    }));
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
        safety_tier: SafetyTier::Exec,
        isolation_mode: None,
        pass_env: Vec::new(),
        approval_required: false,
        source: Source::Discovered {
            path,
            blake3: found.blake3,
            size: found.size,
            extra: Default::default(),
        },
    }
}

/// A package that is in no root (`orla run`'s copy in the cache) as the
/// manifest of `root` would list it, were it installed there.
pub fn package_entry(pkg: &Installed, root: &InstallRoot) -> PackageEntry {
    let entrypoint = pkg
        .dir
        .join(pkg.tool.entrypoint.as_deref().unwrap_or_default());
    PackageEntry {
        name: pkg.receipt.name.clone(),
        version: pkg.receipt.version.clone(),
        entry: tool_entry(pkg, &entrypoint, root.kind.into()),
    }
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
            watch: h
                .watch
                .iter()
                .map(|w| display(&crate::fs::normalize(&pkg.dir.join(w))))
                .collect(),
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
        safety_tier: tool.permissions.safety_tier(),
        isolation_mode: runtime.isolation_mode,
        pass_env: Vec::new(),
        approval_required: false,
        source: pkg.receipt.source.clone(),
    }
}
