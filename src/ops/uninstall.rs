//! Uninstalls (`orla uninstall NAME` takes every version, `NAME@VERSION`
//! one): the packages removed, their pins dropped, the manifest rewritten.
//!
//! In a project, a tool whose every installed version goes, or whose
//! version pinned in orla.lock goes, is also removed from orla.yaml's
//! `tools:` and from orla.lock; a tool orla.yaml names but this machine
//! never installed can be uninstalled too (only the files change).

use crate::context::Context;
use crate::error::Error;
use crate::package::names;
use crate::progress::Event;
use crate::project::lockfile::LockFile;
use crate::project::transaction::Transaction;
use crate::project::Project;
use crate::resolve::{Requirement, Spec};
use crate::root::pins::Pins;
use crate::root::{InstallRoot, Installed, StoreError};
use crate::store::Store;

/// Removes what `specs` name from the root commands act on (and, in a
/// project, from orla.yaml and orla.lock), reporting each removal.
pub fn uninstall(ctx: &Context, specs: &[Spec]) -> Result<(), Error> {
    let project = ctx.project()?;
    let root = ctx.root()?;
    crate::store::refuse_newer_manifest(&root)?;
    let reporter = ctx.reporter.as_ref();
    let read_lock = || match &project {
        Some(p) => LockFile::read(&p.lock_path()),
        None => Ok(None),
    };
    // A spec that names nothing fails before the root is locked (which
    // would create its state directory): a failing command changes nothing.
    // Only the named tools' directories are read, not the whole root.
    let named: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    let unlocked = root.scan_names(&named, &crate::progress::Silent)?;
    let decided = |installed: &[Installed], lock: Option<&LockFile>| {
        decide(specs, installed, &[], lock, project.as_ref()).or_else(|e| {
            // Only a version the manifest lists whose directory is gone
            // (the manifest is read only then: it is large in a big root).
            match listed_but_gone(&root, &named) {
                gone if gone.is_empty() => Err(e),
                gone => decide(specs, installed, &gone, lock, project.as_ref()),
            }
        })
    };
    decided(&unlocked, read_lock()?.as_ref())?;
    let store = Store::open(&root, reporter)?;
    // orla.yaml, orla.lock and pins.json change before the manifest: journal
    // them, so a failure or a kill restores them with the packages.
    store.begin()?;
    // Decided again under the lock: another orla may have changed the root.
    let installed = root.scan_names(&named, reporter)?;
    let lock = read_lock()?;
    let (doomed, forget) = decided(&installed, lock.as_ref())?;
    // The orla.yaml edit is prepared first: if it is refused, nothing changes.
    let txn = match (&project, forget.is_empty()) {
        (Some(project), false) => {
            let mut txn = Transaction::begin(project)?;
            for name in &forget {
                txn.forget(name)?;
            }
            Some(txn)
        }
        _ => None,
    };
    for (name, version) in &doomed {
        names::validate_name(name).map_err(|e| Error::other(e, None))?;
        store.remove(name, version)?;
    }
    if let Some(txn) = txn {
        txn.commit()?;
    }
    // A pin (`orla use`) of a removed version would only linger.
    let mut pins = Pins::read(&root.state_dir)?;
    let before = pins.tools.len();
    pins.tools
        .retain(|name, v| !doomed.iter().any(|(n, dv)| n == name && dv == v));
    if pins.tools.len() != before {
        pins.write(&root.state_dir)?;
    }
    store.sync_manifest(reporter)?;
    for (name, version) in doomed {
        reporter.report(Event::Removed { name, version });
    }
    for name in forget {
        reporter.report(Event::Forgotten { name });
    }
    Ok(())
}

/// A package an uninstall removes: name and version.
type Doomed = (String, semver::Version);

/// The versions of `names` the root's manifest lists whose directory was
/// deleted outside orla: uninstalling one drops it from the manifest.
fn listed_but_gone(root: &InstallRoot, names: &[&str]) -> Vec<Doomed> {
    let Ok(listing) = crate::manifest::Listing::read(root) else {
        return Vec::new();
    };
    let kind = crate::manifest::RootKindName::from(root.kind);
    listing
        .installed
        .into_iter()
        .filter(|e| e.root == kind && names.contains(&e.name.as_str()))
        .filter(|e| !std::path::Path::new(&e.path).exists())
        .filter_map(|e| Some((e.name, names::parse_version(&e.version).ok()?)))
        .collect()
}

/// What uninstalling `specs` removes (name, version) and which tools the
/// project stops requiring. Decided before anything is removed: a bad spec
/// changes nothing.
fn decide(
    specs: &[Spec],
    installed: &[Installed],
    gone: &[Doomed],
    lock: Option<&LockFile>,
    project: Option<&Project>,
) -> Result<(Vec<Doomed>, Vec<String>), Error> {
    let mut doomed = Vec::new();
    // Tools the project stops requiring.
    let mut forget: Vec<String> = Vec::new();
    for spec in specs {
        let newest = installed
            .iter()
            .filter(|p| p.receipt.name == spec.name)
            .map(|p| &p.receipt.version)
            .max();
        let wanted = |version: &semver::Version| match &spec.requirement {
            // NAME is every version; NAME@latest the newest, as in install.
            Requirement::Latest => spec.raw.is_none() || newest == Some(version),
            Requirement::Exact(v) => crate::resolve::same_version(version, v),
            Requirement::Range(r) => r.matches(version),
        };
        let matches: Vec<_> = installed
            .iter()
            .filter(|p| p.receipt.name == spec.name)
            .filter(|p| wanted(&p.receipt.version))
            .collect();
        if matches.is_empty() && gone.iter().any(|(n, v)| *n == spec.name && wanted(v)) {
            // Only its entry in the manifest is left, which the manifest's
            // rewrite drops.
            continue;
        }
        let pinned = lock.and_then(|l| l.get(&spec.name));
        let declared =
            project.is_some_and(|p| p.config.tools.contains_key(&spec.name)) || pinned.is_some();
        let versions: Vec<String> = installed
            .iter()
            .filter(|p| p.receipt.name == spec.name)
            .map(|p| p.receipt.version.to_string())
            .collect();
        if matches.is_empty() && !(declared && versions.is_empty()) {
            let detail = if versions.is_empty() {
                String::new()
            } else {
                format!("; installed: {}", versions.join(", "))
            };
            return Err(StoreError::NotInstalled {
                what: spec.to_string(),
                detail,
            }
            .into());
        }
        let removes_pinned =
            pinned.is_some_and(|pin| matches.iter().any(|p| p.receipt.version == pin.version));
        let forgotten = forget.contains(&spec.name);
        if declared && !forgotten && (matches.len() == versions.len() || removes_pinned) {
            forget.push(spec.name.clone());
        }
        for p in matches {
            if !doomed
                .iter()
                .any(|(n, v)| *n == p.receipt.name && *v == p.receipt.version)
            {
                doomed.push((p.receipt.name.clone(), p.receipt.version.clone()));
            }
        }
    }
    Ok((doomed, forget))
}
