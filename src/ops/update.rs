//! Updates (`orla update`): each installed tool moves to the newest
//! version allowed: the project's requirement (orla.yaml `tools:`)
//! when there is one, else the newest stable version.
//!
//! A tool is looked up in the registry it was installed from (its receipt),
//! unless `--registry` says otherwise; tools installed with `--local` are
//! left alone. The new version is fetched, verified and renamed into place
//! first, and only then is the version it replaces removed, so an update
//! that fails at any point leaves the old version installed and active.
//! Other installed versions of the tool are kept. A tool pinned with
//! `orla use NAME@VERSION` is left alone (its pin is a deliberate choice);
//! in a project, orla.lock is updated to the new versions.

use std::collections::{BTreeMap, HashMap};

use super::install::plan::Plan;
use crate::context::Context;
use crate::error::{Error, InstallError};
use crate::index::registries::Registries;
use crate::progress::{Event, SkipReason};
use crate::project::lockfile::LockedTool;
use crate::project::transaction::Transaction;
use crate::project::Project;
use crate::resolve::{self, Requirement, Spec};
use crate::root::receipt::{Receipt, SourceKind};
use crate::root::{InstallRoot, Installed, StoreError};
use crate::store::Store;

/// The tools to move, worked out by [`plan`]; nothing is installed before
/// [`Update::apply`].
pub struct Update {
    root: InstallRoot,
    project: Option<Project>,
    pub moves: Vec<Move>,
}

/// One tool moving from its active version to a newer one.
pub struct Move {
    pub name: String,
    pub from: semver::Version,
    pub to: semver::Version,
    /// The plan that installs `to`; none when it is installed already.
    plan: Option<Plan>,
}

/// What `orla update` would do for `names` (every installed tool when
/// empty), looked up in `registry` (a `--registry` value) or each tool's
/// own registry. What is left alone is reported here.
pub fn plan(ctx: &Context, names: &[String], registry: Option<&str>) -> Result<Update, Error> {
    let reporter = ctx.reporter.as_ref();
    let root = ctx.root()?;
    crate::store::refuse_newer_manifest(&root)?;
    let project = ctx.project()?;
    let installed = root.scan(reporter)?;
    // The active install of each name, as the manifest chooses it: the
    // version orla.lock or `orla use` prefers when installed, else the newest.
    let preferred = crate::manifest::Inputs::gather(&root, &crate::progress::Silent).preferred;
    let is_preferred = |p: &Installed| preferred.get(&p.receipt.name) == Some(&p.receipt.version);
    let mut active: BTreeMap<String, &Installed> = BTreeMap::new();
    for p in &installed {
        let slot = active.entry(p.receipt.name.clone()).or_insert(p);
        if is_preferred(p) || (!is_preferred(slot) && p.receipt.version > slot.receipt.version) {
            *slot = p;
        }
    }
    let names: Vec<String> = if names.is_empty() {
        active.keys().cloned().collect()
    } else {
        for name in names {
            if !active.contains_key(name) {
                return Err(StoreError::NotInstalled {
                    what: name.clone(),
                    detail: String::new(),
                }
                .into());
            }
        }
        names.to_vec()
    };
    if names.is_empty() {
        reporter.report(Event::NothingToUpdate);
        return Ok(Update {
            root,
            project,
            moves: Vec::new(),
        });
    }

    let pins = crate::root::pins::Pins::read(&root.state_dir)?;
    let mut registries: HashMap<String, Registries<'_>> = HashMap::new();
    // The registry a tool is looked up in: `--registry`, else its own.
    let choice_of = |name: &str| {
        registry
            .map(str::to_string)
            .or_else(|| active[name].receipt.source.registry().map(str::to_string))
            .unwrap_or_else(|| "builtin".into())
    };
    let mut moves = Vec::new();
    for name in &names {
        let current = active[name];
        let from = current.receipt.version.clone();
        // `orla use NAME@VERSION` chose a version on purpose: leave it.
        if let Some(pinned) = pins.tools.get(name) {
            if installed
                .iter()
                .any(|p| p.receipt.name == *name && p.receipt.version == *pinned)
            {
                reporter.report(Event::Skipped {
                    name: name.clone(),
                    version: None,
                    reason: SkipReason::PinnedByUse {
                        pinned: pinned.clone(),
                    },
                });
                continue;
            }
        }
        if current.receipt.source.kind() == SourceKind::Local && registry.is_none() {
            reporter.report(Event::Skipped {
                name: name.clone(),
                version: Some(from),
                reason: SkipReason::LocalSource,
            });
            continue;
        }
        let (requirement, raw) = match project.as_ref().and_then(|p| p.config.tools.get(name)) {
            Some(raw) => (
                resolve::parse_requirement(raw.trim()).map_err(|reason| {
                    InstallError::BadRequirement {
                        name: name.clone(),
                        requirement: raw.clone(),
                        reason,
                    }
                })?,
                Some(raw.clone()),
            ),
            None => (Requirement::Latest, None),
        };
        let spec = Spec {
            name: name.clone(),
            requirement,
            raw,
        };
        let choice = choice_of(name);
        if !registries.contains_key(&choice) {
            let opened = ctx.registries(Some(&choice))?;
            // The tools that ask this registry are looked up at once (a
            // sparse index); one left alone below costs one request more.
            let asking: Vec<&str> = names
                .iter()
                .filter(|n| choice_of(n) == choice)
                .map(String::as_str)
                .collect();
            opened.prefetch(&asking);
            registries.insert(choice.clone(), opened);
        }
        let plan = super::install::plan::plan_spec(ctx, &registries[&choice], &spec)?;
        let to = plan
            .target
            .clone()
            .expect("registry plans know their target")
            .1;
        // A project's requirement may be what holds the tool back.
        if to == from {
            reporter.report(Event::UpToDate {
                name: name.clone(),
                version: from,
                requirement: spec.raw.clone(),
            });
            continue;
        }
        // An update never goes back: a newer install (a pre-release asked
        // for exactly, or a version the registry no longer offers) stays.
        if to < from {
            reporter.report(Event::Skipped {
                name: name.clone(),
                version: Some(from),
                reason: SkipReason::NewerThanAllowed {
                    newest: to,
                    requirement: spec.raw.clone(),
                },
            });
            continue;
        }
        let already = installed
            .iter()
            .any(|p| p.receipt.name == *name && p.receipt.version == to);
        moves.push(Move {
            name: name.clone(),
            from,
            to,
            plan: (!already).then_some(plan),
        });
    }

    Ok(Update {
        root,
        project,
        moves,
    })
}

impl Update {
    /// Installs the new versions (consent first, downloads before the
    /// lock), pins them in orla.lock, and only then removes the versions
    /// they replace.
    pub fn apply(self, ctx: &Context, yes: bool) -> Result<(), Error> {
        let Update {
            root,
            project,
            mut moves,
        } = self;
        let reporter = ctx.reporter.as_ref();
        if moves.is_empty() {
            return Ok(());
        }
        // A refusal names the command that updates the other tools.
        let asked: Vec<(String, Vec<String>)> = moves
            .iter()
            .map(|m| (m.name.clone(), vec![m.name.clone()]))
            .collect();
        let others = |e| super::install::consent::naming_the_others(e, "orla update", &asked);
        // A root that cannot be written fails before anything is asked.
        root.check_writable()?;
        for m in &moves {
            if let Some(plan) = &m.plan {
                if let Some(perms) = &plan.declared {
                    super::install::consent::confirm(ctx, &plan.label, perms, yes)
                        .map_err(others)?;
                }
            }
        }
        let plans: Vec<_> = moves.iter_mut().filter_map(|m| m.plan.take()).collect();
        // Downloads happen before the lock: a slow server holds up no other orla.
        let prefetched = super::install::prefetch::prefetch(ctx, &plans)?;
        let store = Store::open(&root, reporter)?;
        // orla.yaml, orla.lock and pins.json change before the manifest: journal
        // them, so a failure or a kill restores them with the packages.
        store.begin()?;
        super::install::apply::apply(ctx, &store, &plans, false, yes).map_err(others)?;
        prefetched.keep();
        let relocked = match &project {
            Some(project) => relock(project, &root, &moves)?,
            None => None,
        };
        // Only now that every new version is in place do the old ones go.
        for m in &moves {
            store.remove(&m.name, &m.from)?;
        }
        store.sync_manifest(reporter)?;
        for m in &moves {
            reporter.report(Event::Updated {
                name: m.name.clone(),
                from: m.from.clone(),
                to: m.to.clone(),
            });
        }
        // Said after what moved: the lock records the moves.
        if let Some(path) = relocked {
            reporter.report(Event::Relocked { path });
        }
        Ok(())
    }
}

/// In a project, orla.lock pins what was moved (before the manifest, which
/// serves it): the new version, with the requirement orla.yaml has for it
/// (else the one the old pin had), so a later `orla install` installs the
/// updated versions, not the old ones. A tool neither names is left out.
/// The path of orla.lock when it changed.
fn relock(project: &Project, root: &InstallRoot, moves: &[Move]) -> Result<Option<String>, Error> {
    let mut txn = Transaction::begin(project)?;
    for m in moves {
        let requirement = match project.config.tools.get(&m.name) {
            Some(r) => r.trim().to_string(),
            None => match txn.lock().get(&m.name) {
                Some(old) => old.requirement.clone(),
                None => continue,
            },
        };
        let receipt = Receipt::read(&root.package_dir(&m.name, &m.to)).map_err(|e| {
            InstallError::Receipt {
                reason: format!("cannot read the receipt of {} {}: {e}", m.name, m.to),
            }
        })?;
        if let Some(pin) = LockedTool::from_source(&m.name, &m.to, &requirement, &receipt.source) {
            txn.pin(pin);
        }
    }
    Ok(txn
        .commit()?
        .lock
        .then(|| project.lock_path().display().to_string()))
}
