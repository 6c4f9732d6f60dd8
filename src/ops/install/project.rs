//! Installing inside a project: orla.yaml says what the project needs,
//! orla.lock says exactly which bytes, and the store gets exactly those.
//!
//! - `orla install NAME@REQ...` records each requirement in orla.yaml (a
//!   surgical edit, see `project::edit`) and its resolution in orla.lock.
//!   `orla install NAME` keeps a requirement orla.yaml already has, else
//!   records `^VERSION` of the version it resolved (as cargo add does).
//! - `orla install` installs every tool of orla.yaml at the version orla.lock
//!   pins. A requirement that differs from the one its pin records, or has
//!   no pin, is resolved again; pins orla.yaml no longer asks for are
//!   dropped. Nothing else is resolved, so an unchanged project installs the
//!   same bytes on every machine, and with the archives in the download
//!   cache it needs no network at all. As `uv sync`, it also removes what
//!   orla.lock does not pin: other versions of its tools, and the tools
//!   orla.yaml dropped (`--local` installs, which it does not record, stay).
//! - `--locked` fails instead of changing orla.lock (or orla.yaml);
//!   `--frozen` is `--locked` without network: every pinned archive must be
//!   in the cache or local (built-in registry, a file).
//!
//! Pinned archives are fetched from the location orla.lock records and
//! checked against its digest and size, without reading any index; only
//! pins whose archive lives inside a git registry are looked up again, and
//! the registry must still give the pinned digest.

use super::plan::{self, Plan};
use super::Request;
use crate::context::Context;
use crate::error::Error;
use crate::error::InstallError;
use crate::index::ArchiveLocation;
use crate::progress::{Event, Warning};
use crate::project::lockfile::{LockFile, LockedTool, Pin};
use crate::project::transaction::Transaction;
use crate::project::Project;
use crate::resolve::{self, Requirement, Spec};
use crate::root::receipt::{Receipt, Source, SourceKind};
use crate::root::InstallRoot;
use crate::store::Store;

/// One tool the project wants after this command.
struct Want {
    name: String,
    /// The requirement orla.yaml will hold; `None` until resolution gives
    /// `^VERSION` for a bare `orla install NAME` of a new tool.
    requirement: Option<String>,
    /// The pin to install, when orla.lock already answers the requirement.
    pin: Option<LockedTool>,
    /// The version resolved for a requirement orla.lock did not answer;
    /// its pin is made from the receipt once it is installed.
    resolved: Option<semver::Version>,
}

pub fn install(ctx: &Context, project: &Project, args: &Request) -> Result<(), Error> {
    let root = ctx.project_root(project);
    let reporter = ctx.reporter.as_ref();
    let locked = args.locked || args.frozen;
    let old_lock = LockFile::read(&project.lock_path())?;
    let lock = old_lock.clone().unwrap_or_default();
    let declared = &project.config.tools;

    // What the project wants: the named tools, or all of orla.yaml.
    let mut wants: Vec<Want> = Vec::new();
    if args.specs.is_empty() {
        for (name, requirement) in declared {
            wants.push(Want {
                name: name.clone(),
                requirement: Some(requirement.trim().to_string()),
                pin: None,
                resolved: None,
            });
        }
    } else {
        for text in &args.specs {
            let spec = Spec::parse(text)?;
            let requirement = match &spec.raw {
                Some(raw) => Some(raw.trim().to_string()),
                None => declared.get(&spec.name).map(|r| r.trim().to_string()),
            };
            // orla.yaml holds one requirement per tool: two different ones
            // on one command line cannot both be recorded.
            if let Some(earlier) = wants.iter().find(|w| w.name == spec.name) {
                if earlier.requirement == requirement {
                    continue;
                }
                return Err(Error::usage(
                    format!(
                        "{} is named twice with different versions ('{}' and '{}'); a project requires one version of each tool",
                        spec.name,
                        earlier.requirement.as_deref().unwrap_or("latest"),
                        requirement.as_deref().unwrap_or("latest")
                    ),
                    Some(format!(
                        "name {} once, with the requirement orla.yaml should record",
                        spec.name
                    )),
                ));
            }
            wants.push(Want {
                name: spec.name,
                requirement,
                pin: None,
                resolved: None,
            });
        }
    }

    // Drift: what orla.yaml or orla.lock would have to change.
    let mut drift = Vec::new();
    for want in &mut wants {
        let pin = lock.get(&want.name);
        match (&want.requirement, pin) {
            (Some(req), Some(pin)) if pin.requirement == *req => {
                want.pin = Some(pin.clone());
            }
            (Some(req), Some(pin)) => drift.push(format!(
                "{}: orla.yaml asks for \"{req}\" but orla.lock pins {} for \"{}\"",
                want.name, pin.version, pin.requirement
            )),
            (Some(_), None) => drift.push(format!("{} is not in orla.lock", want.name)),
            (None, _) => drift.push(format!("{} is not in orla.yaml", want.name)),
        }
        if let Some(req) = &want.requirement {
            if declared.get(&want.name).map(|r| r.trim()) != Some(req.as_str()) {
                drift.push(format!(
                    "{}: orla.yaml would be changed to \"{req}\"",
                    want.name
                ));
            }
        }
    }
    let mut dropped: Vec<String> = Vec::new();
    if args.specs.is_empty() {
        for pin in &lock.tools {
            if !declared.contains_key(&pin.name) {
                drift.push(format!(
                    "{} is pinned in orla.lock but orla.yaml no longer asks for it",
                    pin.name
                ));
                dropped.push(pin.name.clone());
            }
        }
    }
    if locked && (!drift.is_empty() || old_lock.is_none() && !wants.is_empty()) {
        let flag = if args.frozen { "--frozen" } else { "--locked" };
        return Err(InstallError::LockOutOfDate { flag, drift }.into());
    }

    // Resolve only what orla.lock does not answer; fetch what is not
    // installed as pinned or resolved.
    let mut plans: Vec<Plan> = Vec::new();
    if wants.iter().any(|w| w.pin.is_none()) {
        let registries = ctx.registries(args.registry.as_deref())?;
        let names: Vec<&str> = wants
            .iter()
            .filter(|w| w.pin.is_none())
            .map(|w| w.name.as_str())
            .collect();
        registries.prefetch(&names);
        for want in wants.iter_mut().filter(|w| w.pin.is_none()) {
            let requirement = match &want.requirement {
                Some(raw) => resolve::parse_requirement(raw).map_err(|e| {
                    Error::usage(
                        format!("{}: '{raw}' is not a version requirement: {e}", want.name),
                        None,
                    )
                })?,
                None => Requirement::Latest,
            };
            let spec = Spec {
                name: want.name.clone(),
                requirement,
                raw: want.requirement.clone(),
            };
            let plan = plan::plan_spec(ctx, &registries, &spec)?;
            let (_, version) = plan
                .target
                .clone()
                .expect("registry plans know their target");
            let installed = installed_source(&root, &want.name, &version, reporter);
            if args.force || !installed.is_some_and(|s| same_origin(&s, plan.source())) {
                plans.push(plan);
            }
            want.requirement
                .get_or_insert_with(|| format!("^{version}"));
            want.resolved = Some(version);
        }
    }
    let mut frozen_missing = Vec::new();
    for pin in wants.iter().filter_map(|w| w.pin.as_ref()) {
        let installed = installed_source(&root, &pin.name, &pin.version, reporter);
        if !args.force && installed.is_some_and(|s| pin.matches(&s)) {
            continue;
        }
        if args.frozen {
            if let Some(reason) = not_local(ctx, pin) {
                frozen_missing.push(reason);
                continue;
            }
        }
        plans.push(pin_plan(ctx, pin, args)?);
    }
    if !frozen_missing.is_empty() {
        return Err(InstallError::FrozenMissing {
            missing: frozen_missing,
        }
        .into());
    }
    // A refusal names the command that installs the other tools named.
    let asked: Vec<(String, Vec<String>)> = args
        .specs
        .iter()
        .map(|text| {
            let name = Spec::parse(text).map(|s| s.name).unwrap_or_default();
            (name, vec![text.clone()])
        })
        .collect();
    let others = |e| super::consent::naming_the_others(e, "orla install", &asked);
    // A root that cannot be written fails before anything is asked.
    root.check_writable()?;
    for plan in &plans {
        if let Some(perms) = &plan.declared {
            let recorded = plan.consented_to(perms);
            super::consent::confirm(ctx, &plan.label, perms, args.yes || recorded)
                .map_err(others)?;
        }
    }
    // Downloads happen before the lock: a slow server holds up no other orla.
    let prefetched = super::prefetch::prefetch(ctx, &plans)?;

    let store = Store::open(&root, reporter)?;
    // orla.yaml, orla.lock and pins.json change before the manifest: journal
    // them, so a failure or a kill restores them with the packages.
    store.begin()?;
    ignore_state_dir(&root);
    let done = super::apply::apply(ctx, &store, &plans, true, args.yes).map_err(others)?;
    prefetched.keep();
    super::check_requirements(ctx, &done, args.strict)?;

    // orla.yaml, then orla.lock, then the manifest, which follows the lock.
    // Read again under the root's lock: another orla may have pinned
    // something meanwhile, and its pins must survive this command.
    let mut txn = Transaction::begin(project)?;
    txn.create_lock();
    for name in &dropped {
        txn.unpin(name);
    }
    let mut locked_now = Vec::new();
    for want in &wants {
        let requirement = want.requirement.clone().expect("set above");
        txn.require(&want.name, &requirement)?;
        let pin = match &want.pin {
            Some(pin) => pin.clone(),
            None => {
                let version = want.resolved.clone().expect("resolved above");
                let receipt =
                    Receipt::read(&root.package_dir(&want.name, &version)).map_err(|e| {
                        InstallError::Receipt {
                            reason: e.to_string(),
                        }
                    })?;
                LockedTool::from_source(&want.name, &version, &requirement, &receipt.source)
                    .map(|mut pin| {
                        // What was just accepted for exactly this archive.
                        pin.permissions =
                            crate::package::ToolYaml::read(&root.package_dir(&want.name, &version))
                                .ok()
                                .map(|tool| {
                                    tool.permissions()
                                        .iter()
                                        .map(|p| p.as_str().to_string())
                                        .collect()
                                });
                        pin
                    })
                    .ok_or_else(|| InstallError::Unlockable {
                        name: want.name.clone(),
                        version: version.clone(),
                    })?
            }
        };
        if lock.get(&want.name) != Some(&pin) {
            locked_now.push(Event::Locked {
                name: pin.name.clone(),
                version: pin.version.clone(),
                requirement: pin.requirement.clone(),
            });
        }
        txn.pin(pin);
    }
    let stale = if args.specs.is_empty() {
        stale_packages(&root, txn.lock(), &dropped, reporter)?
    } else {
        Vec::new()
    };
    let lock_changed = txn.commit()?.lock;
    for (name, version) in &stale {
        store.remove(name, version)?;
    }
    let manifest = store.sync_manifest(reporter)?;
    for (name, version, path) in done {
        reporter.report(super::installed(&manifest, name, version, &path, false));
    }
    for event in locked_now {
        reporter.report(event);
    }
    for name in dropped {
        reporter.report(Event::Unlocked { name });
    }
    for (name, version) in &stale {
        reporter.report(Event::Removed {
            name: name.clone(),
            version: version.clone(),
        });
    }
    if plans.is_empty() && !lock_changed && stale.is_empty() {
        reporter.report(Event::ProjectUpToDate { tools: wants.len() });
    }
    Ok(())
}

/// What `orla install` alone takes out of tools_dir, as `uv sync` does, so
/// that it holds what orla.lock pins: the other versions of each pinned
/// tool (a requirement narrowed in orla.yaml, an `orla use` of another
/// version), and the tools orla.yaml no longer asks for (`dropped`).
/// Packages installed with `--local`, which orla.lock does not record, stay.
fn stale_packages(
    root: &InstallRoot,
    lock: &LockFile,
    dropped: &[String],
    reporter: &dyn crate::progress::Reporter,
) -> Result<Vec<(String, semver::Version)>, Error> {
    let mut stale = Vec::new();
    for package in root.scan(reporter)? {
        let receipt = package.receipt;
        if receipt.source.kind() == SourceKind::Local {
            continue;
        }
        let unwanted = match lock.get(&receipt.name) {
            Some(pin) => !resolve::same_version(&pin.version, &receipt.version),
            None => dropped.contains(&receipt.name),
        };
        if unwanted {
            stale.push((receipt.name, receipt.version));
        }
    }
    Ok(stale)
}

/// The source of `name version` as installed in `root`, if it is. A
/// directory orla did not install in this root (its receipt is not bound
/// to it) is not installed: it is reported and will be replaced.
fn installed_source(
    root: &InstallRoot,
    name: &str,
    version: &semver::Version,
    reporter: &dyn crate::progress::Reporter,
) -> Option<crate::root::receipt::Source> {
    let dir = root.package_dir(name, version);
    let receipt = Receipt::read(&dir).ok()?;
    if let Err(why) = root.check_binding(&dir, &receipt) {
        reporter.report(Event::Warning(Warning::NotInstalledByOrla {
            path: dir.display().to_string(),
            why: why.to_string(),
        }));
        return None;
    }
    Some(receipt.source)
}

/// Whether an installed package came from where a fresh resolution points:
/// the same archive bytes, or the same tag of the same repository.
fn same_origin(
    installed: &crate::root::receipt::Source,
    planned: &crate::root::receipt::Source,
) -> bool {
    match (installed, planned) {
        (
            Source::Git {
                repository: installed_repository,
                tag: installed_tag,
                ..
            },
            Source::Git {
                repository, tag, ..
            },
        ) => installed_repository == repository && installed_tag == tag,
        (_, Source::Git { .. }) => false,
        _ => {
            installed.kind() == planned.kind()
                && installed.blake3() == planned.blake3()
                && installed.size() == planned.size()
        }
    }
}

/// Where a pinned archive can be read without any index: the built-in
/// registry, HTTP(S) (through the download cache), or a local file.
/// `None` when only the registry knows (an archive inside a git registry).
fn pinned_location(pin: &LockedTool) -> Option<ArchiveLocation> {
    let Pin::Registry { archive, .. } = &pin.pin else {
        return None;
    };
    if let Some(rel) = archive.strip_prefix("builtin:") {
        return crate::index::builtin::file(rel).map(|bytes| ArchiveLocation::Embedded {
            path: rel.to_string(),
            bytes,
        });
    }
    if archive.starts_with("http://") || archive.starts_with("https://") {
        return Some(ArchiveLocation::Http(archive.to_string()));
    }
    let path = std::path::Path::new(archive.strip_prefix("file://").unwrap_or(archive));
    // Only regular files: a lock must not make orla block on a fifo or
    // read a device.
    (path.is_absolute() && path.is_file()).then(|| ArchiveLocation::File(path.to_path_buf()))
}

/// orla.lock comes with the project, as untrusted as an index record, so a
/// pin naming a local file obeys the same rule as a record: only a local
/// directory registry may name one, and only inside itself. Otherwise a lock
/// could make orla read (and report the digest and size of) any file on
/// the machine. The pin's registry judges, exactly as for its own records.
fn local_pin_allowed(
    ctx: &Context,
    pin: &LockedTool,
    args: &Request,
    path: &std::path::Path,
) -> Result<(), Error> {
    // Every pin names its registry (orla.lock refuses one that does not).
    let choice = args.registry.as_deref().unwrap_or(pin.registry());
    let registries = ctx.registries(Some(choice))?;
    let slot = registries
        .slots
        .first()
        .expect("a chosen registry has a slot");
    let registry = registries.open(slot)?;
    let record = crate::index::VersionRecord {
        name: pin.name.clone(),
        version: pin.version.clone(),
        blake3: pin.pin.blake3(),
        size: pin.pin.size(),
        archive: Some(format!("file://{}", path.display())),
        sha256: None,
        yanked: false,
        description: String::new(),
        keywords: Vec::new(),
        permissions: Vec::new(),
    };
    registry.archive_location(&record).map(|_| ()).map_err(|e| {
        InstallError::LocalPin {
            name: pin.name.clone(),
            version: pin.version.clone(),
            reason: e.to_string(),
        }
        .into()
    })
}

/// Why a pin cannot be installed without network, if it cannot.
fn not_local(ctx: &Context, pin: &LockedTool) -> Option<String> {
    let label = format!("{} {}", pin.name, pin.version);
    match (&pin.pin, pinned_location(pin)) {
        (Pin::Registry { blake3, .. }, Some(ArchiveLocation::Http(url))) => {
            (!ctx.cache().has(blake3))
                .then(|| format!("the archive of {label} ({url}) is not in the download cache"))
        }
        (Pin::Registry { .. }, Some(_)) => None,
        // Git registries and git-source tools are read from their cached
        // clones; fetching them offline fails with its own message.
        _ => None,
    }
}

/// The plan that installs exactly what `pin` names.
fn pin_plan(ctx: &Context, pin: &LockedTool, args: &Request) -> Result<Plan, Error> {
    let mut plan = unconsented_pin_plan(ctx, pin, args)?;
    plan.consented = pin.permissions.clone();
    Ok(plan)
}

fn unconsented_pin_plan(ctx: &Context, pin: &LockedTool, args: &Request) -> Result<Plan, Error> {
    if let Pin::Git { .. } = pin.pin {
        return plan::pinned_git_plan(ctx, &pin.name, &pin.version, pin.source());
    }
    if let Some(location) = pinned_location(pin) {
        if let ArchiveLocation::File(path) = &location {
            local_pin_allowed(ctx, pin, args, path)?;
        }
        return Ok(plan::pinned_archive_plan(
            &pin.name,
            &pin.version,
            location,
            pin.source(),
        ));
    }
    // The archive lives inside a registry (a git index): ask the registry
    // the lock names for exactly this version, and hold it to the digest.
    let choice = Some(args.registry.as_deref().unwrap_or(pin.registry()));
    let registries = ctx.registries(choice)?;
    let spec = Spec {
        name: pin.name.clone(),
        requirement: Requirement::Exact(pin.version.clone()),
        raw: Some(pin.version.to_string()),
    };
    let plan = plan::plan_spec(ctx, &registries, &spec)?;
    if !pin.matches(plan.source()) {
        return Err(InstallError::DigestChanged {
            name: pin.name.clone(),
            version: pin.version.clone(),
            actual: plan.source().blake3().to_string(),
            pinned: pin.pin.blake3().to_string(),
        }
        .into());
    }
    Ok(plan)
}

/// `<project>/.orla/` is machine state (the manifest, pins, the lock file
/// of the root): keep it out of version control, as uv does for `.venv`.
pub(crate) fn ignore_state_dir(root: &InstallRoot) {
    let path = root.state_dir.join(".gitignore");
    if root.project_dir.is_some() && !path.exists() {
        let _ = std::fs::write(
            path,
            "# Written by orla: this directory is machine state.\n*\n",
        );
    }
}
