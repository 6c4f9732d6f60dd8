//! Choosing which installed version the manifest serves (`orla use
//! NAME@VERSION`)
//! (RFC 3 8.2 "allow explicit version selection", 9.2). `orla use NAME`
//! goes back to the default.
//!
//! Where the choice is kept:
//! - in a project, for a tool orla.yaml requires: in orla.lock, so that
//!   every machine serves the same version. The requirement is kept when it
//!   allows the version, else set to exactly that version. `orla use NAME`
//!   pins the newest installed version the requirement allows.
//! - otherwise (the global root, or a project tool orla.yaml does not
//!   name): in `<state_dir>/pins.json` (see `store::pins`); `orla use NAME`
//!   removes the pin, so the newest installed version is served.

use crate::context::Context;
use crate::error::use_version::UseError;
use crate::error::{Error, InstallError};
use crate::progress::Event;
use crate::project::lockfile::LockedTool;
use crate::project::transaction::Transaction;
use crate::resolve::{Requirement, Spec};
use crate::root::pins::Pins;
use crate::root::{Installed, StoreError};
use crate::store::Store;

/// Serves the installed version of `spec.name` that `spec` names (the
/// default again when it names none), in the global root when `global`,
/// else in the root commands act on.
pub fn use_version(ctx: &Context, spec: &Spec, global: bool) -> Result<(), Error> {
    let project = if global { None } else { ctx.project()? };
    let root = match &project {
        Some(p) => ctx.project_root(p),
        None => ctx.global_root(),
    };
    crate::store::refuse_newer_manifest(&root)?;
    let reporter = ctx.reporter.as_ref();
    let installed_of = |reporter: &dyn crate::progress::Reporter| -> Result<Vec<Installed>, Error> {
        let installed: Vec<Installed> = root
            .scan_names(&[spec.name.as_str()], reporter)?
            .into_iter()
            .filter(|p| p.receipt.name == spec.name)
            .collect();
        if installed.is_empty() {
            return Err(StoreError::NotInstalled {
                what: spec.name.clone(),
                detail: format!(" in {}", root.tools_dir.display()),
            }
            .into());
        }
        Ok(installed)
    };
    // A tool that is not installed fails before the root is locked (which
    // would create its state directory): a failing command changes nothing.
    installed_of(&crate::progress::Silent)?;
    let store = Store::open(&root, reporter)?;
    // orla.yaml, orla.lock and pins.json change before the manifest: journal
    // them, so a failure or a kill restores them with the packages.
    store.begin()?;
    // Read again under the lock: another orla may have changed the root.
    let installed = installed_of(reporter)?;
    let shown: Vec<String> = installed
        .iter()
        .map(|p| p.receipt.version.to_string())
        .collect();
    let declared = project.as_ref().and_then(|p| {
        p.config
            .tools
            .get(&spec.name)
            .map(|r| (p, r.trim().to_string()))
    });

    // The installed version asked for: the newest that matches.
    let requirement = match (&spec.raw, &declared) {
        (Some(_), _) => spec.requirement.clone(),
        // `orla use NAME` in a project: the newest the requirement allows.
        (None, Some((_, req))) => crate::resolve::parse_requirement(req).map_err(|reason| {
            InstallError::BadRequirement {
                name: spec.name.clone(),
                requirement: req.clone(),
                reason,
            }
        })?,
        (None, None) => Requirement::Latest,
    };
    // As the manifest serves: a stable version over a pre-release, unless
    // the requirement named one.
    let rank = |v: &semver::Version| (v.pre.is_empty(), v.clone());
    let chosen = installed
        .iter()
        .filter(|p| allows(&requirement, &p.receipt.version))
        .max_by_key(|p| rank(&p.receipt.version))
        .ok_or_else(|| UseError::NoInstalledMatch {
            name: spec.name.clone(),
            requirement: spec.raw.clone(),
            installed: shown.clone(),
        })?;
    let version = chosen.receipt.version.clone();

    let mut pins = Pins::read(&root.state_dir)?;
    // The pin `orla use NAME` took out, if there was one.
    let unpinned = match declared {
        Some((project, current)) => {
            let keep =
                crate::resolve::parse_requirement(&current).is_ok_and(|r| allows(&r, &version));
            let requirement = if keep {
                current.clone()
            } else {
                version.to_string()
            };
            let pin =
                LockedTool::from_source(&spec.name, &version, &requirement, &chosen.receipt.source)
                    .ok_or_else(|| UseError::LocalNotPinnable {
                        name: spec.name.clone(),
                        version: version.clone(),
                    })?;
            let mut txn = Transaction::begin(project)?;
            if !keep {
                txn.require(&spec.name, &requirement)?;
            }
            txn.pin(pin);
            if txn.commit()?.yaml {
                reporter.report(Event::RequirementChanged {
                    name: spec.name.clone(),
                    requirement: requirement.clone(),
                    was: current.to_string(),
                });
            }
            // The lock decides now; a machine-local pin would hide it.
            if pins.tools.remove(&spec.name).is_some() {
                pins.write(&root.state_dir)?;
            }
            None
        }
        None => {
            let unpinned = if spec.raw.is_some() {
                pins.tools.insert(spec.name.clone(), version.clone());
                None
            } else {
                pins.tools.remove(&spec.name)
            };
            pins.write(&root.state_dir)?;
            unpinned
        }
    };
    store.sync_manifest(reporter)?;
    if let Some(was) = unpinned {
        reporter.report(Event::Unpinned {
            name: spec.name.clone(),
            was,
        });
    }
    reporter.report(Event::Using {
        name: spec.name.clone(),
        version: version.clone(),
        path: chosen.dir.display().to_string(),
    });
    Ok(())
}

/// Whether an installed version satisfies a requirement; `latest` allows any.
fn allows(requirement: &Requirement, version: &semver::Version) -> bool {
    match requirement {
        Requirement::Latest => true,
        Requirement::Exact(v) => crate::resolve::same_version(v, version),
        Requirement::Range(r) => r.matches(version),
    }
}
