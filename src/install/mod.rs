//! The install operation, as cargo's `ops` and uv's installer: the commands
//! `install`, `update` and (in a project) the lockfile sync call into here,
//! and the command layer only reads arguments and prints.
//!
//! Resolve every spec first (a typo fails before anything is fetched), show
//! each tool's permissions and get consent, then take the root's lock, fetch
//! and unpack every archive in parallel into staging, validate, and only when
//! all of them succeeded rename them into place and regenerate the manifest.
//!
//! - [`plan`]: specs, lock pins and local paths to plans (what, from where).
//! - [`consent`]: permissions shown, risk confirmed.
//! - [`apply`]: fetch, verify, unpack, check, receipts, commit.
//! - [`project`]: the same inside a project, through orla.yaml and orla.lock.

pub mod apply;
pub mod consent;
pub mod plan;
pub mod project;

use std::path::PathBuf;

use crate::context::Context;
use crate::error::Error;
use crate::registries::Registries;
use crate::resolve::Spec;
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
}

/// Installs what `args` asks for into the current root (a project's, through
/// its orla.yaml and orla.lock, or the global one).
pub fn install(ctx: &Context, args: &Request) -> Result<(), Error> {
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
        // components() drops the `.` of `./x.tar.gz`, which messages and the
        // receipt would otherwise show as `/home/you/./x.tar.gz`.
        let path: std::path::PathBuf = ctx.cwd.join(path).components().collect();
        plans.push(local_plan(&path)?);
    }
    if !args.specs.is_empty() {
        let specs = args
            .specs
            .iter()
            .map(|s| Spec::parse(s))
            .collect::<Result<Vec<_>, _>>()?;
        let registries = Registries::new(ctx, args.registry.as_deref())?;
        for spec in &specs {
            let plan = plan_spec(ctx, &registries, spec)?;
            let duplicate = plans.iter().any(|p: &Plan| p.target == plan.target);
            if !duplicate {
                plans.push(plan);
            }
        }
    }

    // Already installed: nothing to do unless --force (installs are idempotent).
    if !args.force {
        skip_installed(
            &mut plans,
            ctx,
            &root,
            "already installed (--force reinstalls it)",
        );
    }
    // Consent before download, for what the index declares.
    for plan in &plans {
        if let Some(perms) = &plan.declared {
            confirm(ctx, &plan.label, perms, args.yes)?;
        }
    }
    if plans.is_empty() {
        return Ok(());
    }

    let store = Store::open(&root, reporter)?;
    // Another orla may have installed the same version while this one
    // waited for the lock: that is success, not a conflict.
    if !args.force {
        skip_installed(
            &mut plans,
            ctx,
            &root,
            "installed meanwhile by another orla",
        );
    }
    let done = apply(ctx, &store, &plans, args.force, args.yes)?;
    store.sync_manifest(reporter)?;
    for (name, version, path) in done {
        reporter.status(
            "Installed",
            &format!("{name} {version} to {}", path.display()),
        );
    }
    Ok(())
}
