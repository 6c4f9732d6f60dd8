//! The install operation, as cargo's `ops` and uv's installer: the commands
//! `install`, `update` and (in a project) the lockfile sync call into here,
//! and the command layer only reads arguments and prints.
//!
//! Resolve every spec first (a typo fails before anything is fetched), show
//! each tool's permissions and get consent, download and verify every
//! archive into the download cache (before any lock: [`prefetch`]), then
//! take the root's lock, unpack or link every package in parallel from the
//! cache into staging, validate, and only when all of them succeeded rename
//! them into place and regenerate the manifest.
//!
//! - [`plan`]: specs, lock pins and local paths to plans (what, from where).
//! - [`consent`]: permissions shown, risk confirmed.
//! - [`prefetch`]: downloads into the cache, before the root's lock.
//! - [`apply`]: fetch, verify, unpack, check, receipts, commit.
//! - [`project`]: the same inside a project, through orla.yaml and orla.lock.

pub mod apply;
pub mod consent;
pub mod plan;
pub mod prefetch;
pub mod project;
pub mod requirements;

use std::path::PathBuf;

/// How many packages one command fetches, unpacks and links at once (a
/// command naming 100 tools runs as many threads as one naming 8;
/// downloads also wait for one of their host's places in `http`).
const WORKERS: usize = 8;

use crate::context::Context;
use crate::error::Error;
pub use crate::error::InstallError;
use crate::manifest::Manifest;
use crate::package::ToolYaml;
use crate::progress::{Event, ServedBecause, SkipReason, Warning};
use crate::resolve::Spec;
use crate::root::receipt::{Receipt, SourceKind};
use crate::root::InstallRoot;
use crate::store::Store;
use apply::{apply, skip_installed};
use consent::confirm;
use plan::{local_plan, plan_spec, Plan};

/// What `orla install` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub specs: Vec<String>,
    pub local: Option<PathBuf>,
    pub registry: Option<String>,
    pub force: bool,
    pub yes: bool,
    pub locked: bool,
    pub frozen: bool,
    /// Refuse a tool whose interpreter or declared dependencies are missing.
    pub strict: bool,
}

/// Installs what `args` asks for into the current root (a project's, through
/// its orla.yaml and orla.lock, or the global one).
pub fn install(ctx: &Context, args: &Request) -> Result<(), Error> {
    for spec in &args.specs {
        refuse_path_spec(ctx, spec)?;
    }
    // In a project, registry installs go through orla.yaml and orla.lock;
    // a local package is in neither, so it is installed on its own.
    if let Some(project) = ctx.project()? {
        crate::store::refuse_newer_manifest(&ctx.project_root(&project))?;
        if args.local.is_none() {
            return project::install(ctx, &project, args);
        }
        if !args.specs.is_empty() {
            return Err(Error::usage(
                "in a project, --local cannot be combined with tool names: those are recorded in orla.yaml and orla.lock, a local package is not",
                Some("run `orla install --local PATH` and `orla install NAME...` separately".into()),
            ));
        }
        if args.locked || args.frozen {
            return Err(Error::usage(
                "--local installs a package orla.lock does not pin; it cannot be combined with --locked or --frozen",
                Some("run `orla install --frozen` and `orla install --local PATH` separately".into()),
            ));
        }
    }
    if args.locked || args.frozen {
        return Err(Error::usage(
            "--locked and --frozen install a project's orla.lock, and there is no orla.yaml here or in a parent",
            Some("run `orla init` to make this directory a project".into()),
        ));
    }
    if args.specs.is_empty() && args.local.is_none() {
        return Err(Error::usage(
            "nothing to install",
            Some("name a tool, e.g. `orla install fs-read@1.2`, or pass --local PATH".into()),
        ));
    }
    let root = ctx.root()?;
    crate::store::refuse_newer_manifest(&root)?;
    let reporter = ctx.reporter.as_ref();
    let mut plans = Vec::new();
    if let Some(path) = &args.local {
        // Not `/home/you/./x.tar.gz` in messages and the receipt.
        let path = ctx.absolute(path);
        plans.push(local_plan(&path)?);
    }
    if !args.specs.is_empty() {
        let specs = args
            .specs
            .iter()
            .map(|s| Spec::parse(s))
            .collect::<Result<Vec<_>, _>>()?;
        let registries = ctx.registries(args.registry.as_deref())?;
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        registries.prefetch(&names);
        for spec in &specs {
            let plan = plan_spec(ctx, &registries, spec)?;
            let duplicate = plans.iter().any(|p: &Plan| p.target == plan.target);
            if !duplicate {
                plans.push(plan);
            }
        }
    }

    // Already installed: nothing to do unless --force (installs are
    // idempotent). A local package is installed again when its content
    // changed (an edited source directory), replacing the installed copy.
    let mut changed_local = Vec::new();
    if !args.force {
        refuse_damaged(&root, &plans)?;
        skip_unchanged_local(&mut plans, ctx, &root);
        changed_local = take_local(&mut plans);
        skip_installed(&mut plans, ctx, &root, SkipReason::AlreadyInstalled);
    }
    // A refusal names the command that installs the other tools asked for.
    let mut asked: Vec<(String, Vec<String>)> = Vec::new();
    if let (Some(local), Some(plan)) = (&args.local, plans.first()) {
        let name = match &plan.target {
            Some((name, _)) => name.clone(),
            None => plan.label.clone(),
        };
        asked.push((name, vec!["--local".into(), local.display().to_string()]));
    }
    for text in &args.specs {
        let name = Spec::parse(text).map(|s| s.name).unwrap_or_default();
        asked.push((name, vec![text.clone()]));
    }
    let others = |e| consent::naming_the_others(e, "orla install", &asked);
    // A root that cannot be written fails before anything is asked.
    if !plans.is_empty() {
        root.check_writable()?;
    }
    // Consent before download, for what the index declares.
    for plan in &plans {
        if let Some(perms) = &plan.declared {
            confirm(ctx, &plan.label, perms, args.yes).map_err(others)?;
        }
    }
    if plans.is_empty() && changed_local.is_empty() {
        return Ok(());
    }
    // Downloads happen before the lock: a slow server holds up no other orla.
    let prefetched = prefetch::prefetch(ctx, &plans)?;

    let store = Store::open(&root, reporter)?;
    // Another orla may have installed the same version while this one
    // waited for the lock: that is success, not a conflict.
    if !args.force {
        skip_installed(&mut plans, ctx, &root, SkipReason::InstalledMeanwhile);
        skip_unchanged_local(&mut changed_local, ctx, &root);
    }
    // What remains is either not installed or a local package to replace.
    let replace = args.force || !changed_local.is_empty();
    plans.append(&mut changed_local);
    // Which installs are reinstalls: the plans' own directories where known
    // (not a listing of every package of a large root).
    let before: Vec<_> = if plans.iter().all(|p| p.target.is_some()) {
        plans
            .iter()
            .filter_map(|p| p.target.as_ref())
            .map(|(name, version)| root.package_dir(name, version))
            .filter(|dir| dir.is_dir())
            .collect()
    } else {
        root.package_dirs()?
            .into_iter()
            .map(|(_, _, d)| d)
            .collect()
    };
    let done = apply(ctx, &store, &plans, replace, args.yes).map_err(others)?;
    prefetched.keep();
    // Before the manifest: a refusal rolls the install back.
    check_requirements(ctx, &done, args.strict)?;
    let manifest = store.sync_manifest(reporter)?;
    for (name, version, path) in done {
        let reinstalled = before.contains(&path);
        reporter.report(installed(&manifest, name, version, &path, reinstalled));
    }
    Ok(())
}

/// Checks what the installed tools need from the machine (their
/// interpreter, tool.yaml `dependencies`): a warning each, or with `strict`
/// an error, returned before the manifest is written so that the store is
/// rolled back and nothing is installed.
pub(crate) fn check_requirements(
    ctx: &Context,
    done: &[(String, semver::Version, PathBuf)],
    strict: bool,
) -> Result<(), Error> {
    let mut unmet = Vec::new();
    for (name, version, dir) in done {
        let Ok(tool) = ToolYaml::read(dir) else {
            continue;
        };
        for problem in requirements::problems(&requirements::check(dir, &tool, &ctx.search_path)) {
            unmet.push((name, version, problem));
        }
    }
    if unmet.is_empty() {
        return Ok(());
    }
    if strict {
        let unmet = unmet
            .iter()
            .map(|(name, version, problem)| format!("{name} {version} {problem}"))
            .collect();
        return Err(InstallError::Unmet { unmet }.into());
    }
    for (name, version, problem) in unmet {
        ctx.reporter.report(Event::Warning(Warning::Requirement {
            name: name.clone(),
            version: version.clone(),
            problem,
        }));
    }
    Ok(())
}

/// A spec that looks like a path or an archive (`./dir`, `x.tar.gz`, an
/// existing directory) is a local package given without `--local`: saying
/// so beats "tool name must start with a lowercase letter".
fn refuse_path_spec(ctx: &Context, spec: &str) -> Result<(), Error> {
    if spec.contains("://") {
        // orla downloads only what a registry index records, with its digest.
        let archive = [".tar.gz", ".tgz", ".tar"]
            .iter()
            .any(|ext| spec.ends_with(ext));
        let hint = if archive {
            let file = spec.rsplit('/').next().unwrap_or(spec);
            format!("download it, then run `orla install --local {file}`")
        } else {
            format!(
                "if {spec} is a registry index, run `orla install NAME --registry {spec}`; a package archive is downloaded first, then installed with `orla install --local FILE`"
            )
        };
        return Err(Error::usage(
            format!("'{spec}' is a URL: orla installs tools by name from a registry, or a local package with --local, not from a URL"),
            Some(hint),
        ));
    }
    let archive = [".tar.gz", ".tgz", ".tar"]
        .iter()
        .any(|ext| spec.ends_with(ext));
    let pathlike = spec.contains(['/', '\\']) || spec.starts_with(['.', '~']) || archive;
    if !pathlike {
        return Ok(());
    }
    let what = if archive {
        "an archive"
    } else if ctx.cwd.join(spec).is_dir() {
        "a directory"
    } else {
        "a path"
    };
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+:@%,=~".contains(c);
    let quoted = if spec.chars().all(plain) {
        spec.to_string()
    } else {
        format!("'{}'", spec.replace('\'', "'\\''"))
    };
    Err(Error::usage(
        format!("'{spec}' looks like {what}, not a tool name"),
        Some(format!(
            "to install a local package, run `orla install --local {quoted}`"
        )),
    ))
}

/// The event of an install, with which version of the tool is served: one
/// rule (the version `orla use` pinned, else the newest installed stable
/// version, else the newest pre-release; see docs/install.md), said
/// whenever another version is installed, so that installing an older
/// version or a pre-release does not look like it switched the tool.
pub(crate) fn installed(
    manifest: &Manifest,
    name: String,
    version: semver::Version,
    path: &std::path::Path,
    reinstalled: bool,
) -> Event {
    let served_version = manifest.served(&name);
    let active = served_version.as_ref() == Some(&version);
    let served_because = (served_version.is_some() && !active).then(|| {
        if version.pre.is_empty() {
            ServedBecause::NewestStable
        } else {
            ServedBecause::PreRelease
        }
    });
    let own = manifest.root.kind;
    let others_installed = manifest
        .installed
        .iter()
        .any(|i| i.name == name && i.root == own && i.version != version.to_string());
    Event::Installed {
        path: path.display().to_string(),
        name,
        version,
        reinstalled,
        active,
        served_version,
        served_because,
        others_installed,
    }
}

/// A version directory that exists but is not served (its install receipt
/// or tool.yaml cannot be read, or orla did not write it) is not "already
/// installed": saying so and exiting 0 would leave nothing served.
fn refuse_damaged(root: &InstallRoot, plans: &[Plan]) -> Result<(), Error> {
    for (name, version) in plans.iter().filter_map(|p| p.target.as_ref()) {
        let dir = root.package_dir(name, version);
        let readable = Receipt::read(&dir).is_ok() && ToolYaml::read(&dir).is_ok();
        if let (true, Ok(receipt)) = (readable, Receipt::read(&dir)) {
            if let Err(why) = root.check_binding(&dir, &receipt) {
                return Err(InstallError::NotInstalledByOrla {
                    name: name.clone(),
                    version: version.clone(),
                    path: dir.display().to_string(),
                    why: why.to_string(),
                }
                .into());
            }
        }
        if dir.exists() && !readable {
            return Err(InstallError::Damaged {
                name: name.clone(),
                version: version.clone(),
                path: dir.display().to_string(),
            }
            .into());
        }
    }
    Ok(())
}

/// Drops the local packages whose exact content is already installed (the
/// same digest in a receipt), saying so.
fn skip_unchanged_local(plans: &mut Vec<Plan>, ctx: &Context, root: &InstallRoot) {
    // Reading every receipt of a large root is only worth it for a local package.
    if !plans.iter().any(|p| p.source.kind() == SourceKind::Local) {
        return;
    }
    let installed = root.scan(&crate::progress::Silent).unwrap_or_default();
    plans.retain(|plan| {
        if plan.source.kind() != SourceKind::Local {
            return true;
        }
        let same = installed.iter().find(|p| {
            p.receipt.source.kind() == SourceKind::Local
                && p.receipt.source.blake3() == plan.source.blake3()
                && plan
                    .target
                    .as_ref()
                    .is_none_or(|(n, v)| *n == p.receipt.name && *v == p.receipt.version)
        });
        match same {
            Some(p) => {
                ctx.reporter.report(Event::Skipped {
                    name: p.receipt.name.clone(),
                    version: Some(p.receipt.version.clone()),
                    reason: SkipReason::SameContent,
                });
                false
            }
            None => true,
        }
    });
}

/// Takes the local plans out of `plans`: they are installed even over an
/// installed copy of the same version, whose content differs.
fn take_local(plans: &mut Vec<Plan>) -> Vec<Plan> {
    let (local, rest) = std::mem::take(plans)
        .into_iter()
        .partition(|p| p.source.kind() == SourceKind::Local);
    *plans = rest;
    local
}
