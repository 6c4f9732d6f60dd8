//! Applying a plan: fetch, verify and unpack every package in parallel into
//! staging, check each against what was planned, write its receipt, and
//! only when all succeeded move them into place. The caller holds the store
//! and regenerates the manifest; one failure installs nothing.

use std::path::PathBuf;

use super::consent::confirm_risk;
use super::plan::{tag_mismatch, Fetch, Plan};
use crate::context::Context;
use crate::error::Error;
use crate::error::InstallError;
use crate::fetch::Fetcher;
use crate::package::{Package, PackageError, Permission, RiskLevel};
use crate::progress::{Event, SkipReason, Warning};
use crate::root::receipt::{Receipt, Source};
use crate::root::InstallRoot;
use crate::store::{Staged, Store};

/// Drops the plans whose version is already in the store, saying why.
pub(crate) fn skip_installed(
    plans: &mut Vec<Plan>,
    ctx: &Context,
    root: &InstallRoot,
    why: SkipReason,
) {
    plans.retain(|plan| match &plan.target {
        Some((name, version)) if root.package_dir(name, version).exists() => {
            let dir = root.package_dir(name, version);
            let path = dir.display().to_string();
            // `list` and `uninstall` do not count it: say why it is skipped.
            let reason = match crate::root::receipt::Receipt::read(&dir) {
                Ok(receipt) if root.check_binding(&dir, &receipt).is_err() => {
                    SkipReason::NotInstalledByOrla { path }
                }
                Ok(_) => why.clone(),
                Err(_) => SkipReason::DamagedReceipt { path },
            };
            ctx.reporter.report(Event::Skipped {
                name: name.clone(),
                version: Some(version.clone()),
                reason,
            });
            false
        }
        _ => true,
    });
}

/// Fetches, verifies and unpacks every plan in parallel into staging, checks
/// each package, and only when all succeeded renames them into place. The
/// caller holds the store and regenerates the manifest.
pub(crate) fn apply(
    ctx: &Context,
    store: &Store<'_>,
    plans: &[Plan],
    force: bool,
    yes: bool,
) -> Result<Vec<(String, semver::Version, PathBuf)>, Error> {
    let reporter = ctx.reporter.as_ref();
    let fetcher = Fetcher::new(ctx.cache(), ctx.offline).with_http_limits(ctx.http_limits());
    let staged = crate::parallel::map(plans, super::WORKERS, |plan| -> Result<_, Error> {
        let dir = store.staging_dir()?;
        match &plan.fetch {
            Fetch::Archive(job) => {
                let unpacked = fetcher.fetch_unpack(job, dir.path(), reporter)?;
                Ok((dir, unpacked, None))
            }
            Fetch::Git { repo, tag } => {
                reporter.report(Event::CheckingOut {
                    repository: repo.url.clone(),
                    tag: tag.clone(),
                });
                let checkout =
                    repo.checkout(tag, dir.path())
                        .map_err(|e| InstallError::Checkout {
                            label: plan.label.clone(),
                            tag: tag.clone(),
                            url: repo.url.clone(),
                            source: e,
                        })?;
                let extras = (checkout.commit, checkout.tree_digest, checkout.size);
                Ok((dir, checkout.unpacked, Some(extras)))
            }
        }
    })
    .into_iter()
    .collect::<Result<Vec<_>, Error>>()?;

    let mut ready = Vec::new();
    for (plan, (dir, unpacked, git)) in plans.iter().zip(staged) {
        let mut package = Package::load(&unpacked.root).map_err(|e| match &plan.fetch {
            // Named by its tag, not by the staging directory it was checked out into.
            Fetch::Git { repo, tag } => {
                renamed(e, format!("the tool.yaml of tag {tag} of {}", repo.url))
            }
            // Named by the archive, not by where it was unpacked.
            Fetch::Archive(_) => renamed(e, format!("the tool.yaml of {}", plan.label)),
        })?;
        let mut source = plan.source.clone();
        if let Some((commit, tree, size)) = git {
            check_tag(plan, &source, &package)?;
            // A git-source tool is the registry's name for it: a tool
            // renamed between releases (fs was file-read, then readfile)
            // installs under that name, as the Orla CLI installs it.
            if let Some((name, _)) = plan.target.as_ref().filter(|(n, _)| *n != package.name) {
                reporter.report(Event::Warning(Warning::Renamed {
                    name: name.clone(),
                    version: package.version.clone(),
                    tool_yaml_name: package.name.clone(),
                }));
                package.name = name.clone();
            }
            // A plan from orla.lock names its commit and tree: a moved tag
            // or changed files must not slip in.
            if let Source::Git {
                commit: pinned,
                blake3: pinned_tree,
                ..
            } = &plan.source
            {
                if !pinned.is_empty() && (*pinned != commit || *pinned_tree != tree) {
                    return Err(InstallError::TagMoved {
                        label: plan.label.clone(),
                        pinned: pinned.clone(),
                        pinned_tree: pinned_tree.to_string(),
                        commit,
                        tree: tree.to_string(),
                    }
                    .into());
                }
            }
            if let Source::Git {
                commit: c,
                blake3: b,
                size: s,
                ..
            } = &mut source
            {
                *c = commit;
                *b = tree;
                *s = size;
            }
        }
        check_identity(plan, &package)?;
        for warning in &package.warnings {
            reporter.report(Event::Warning(Warning::Package {
                name: package.name.clone(),
                version: package.version.clone(),
                problem: warning.to_string(),
            }));
        }
        // tool.yaml's risk_level, when the author raised it above what the
        // permissions give, is known only now (index records do not carry it).
        // So is a tool.yaml without a `permissions` key (undeclared, high
        // risk), which a record cannot tell from `permissions: []`. The risk
        // is the higher of these and the permissions' own.
        let risk = package.tool.risk();
        let asked = package
            .tool
            .permissions
            .is_declared()
            .then(|| package.tool.permissions.to_vec());
        match &plan.declared {
            None => {
                // Named by what was unpacked: a local archive's plan knows only its path.
                // A lock pin whose permissions orla.lock records as accepted is not asked again.
                let label = format!("{} {}", package.name, package.version);
                confirm_risk(
                    ctx,
                    &label,
                    asked.as_deref(),
                    risk,
                    yes || plan.consent_recorded(&package.tool),
                )?;
            }
            Some(declared) => {
                let parsed: Vec<Permission> =
                    declared.iter().map(|p| Permission::parse(p)).collect();
                let consented = RiskLevel::derive(&parsed);
                if risk > consented && risk.needs_confirmation() {
                    confirm_risk(ctx, &plan.label, asked.as_deref(), risk, yes)?;
                }
            }
        }
        let mut receipt = Receipt::new(
            package.name.clone(),
            package.version.clone(),
            source,
            unpacked.files,
        );
        // Bound to the directory it is renamed to, in this root.
        let key = store
            .root
            .receipt_key_or_create()
            .map_err(crate::root::StoreError::io(
                "cannot create the receipt key",
                &store.root.state_dir,
            ))?;
        let final_dir = store.root.package_dir(&package.name, &package.version);
        crate::root::binding::bind(&mut receipt, &key, &final_dir);
        ready.push((dir, unpacked.root, package, receipt));
    }
    // Not flushed here: the store flushes them with the packages, while it
    // writes the manifest.
    for (_, root, _, receipt) in &ready {
        receipt
            .write_unflushed(root)
            .map_err(crate::root::StoreError::io("cannot write receipt in", root))?;
    }
    let staged: Vec<Staged<'_>> = ready
        .iter()
        .map(|(_, root, package, _)| Staged {
            dir: root,
            name: &package.name,
            version: &package.version,
        })
        .collect();
    let paths = store.commit_all(&staged, force)?;
    fetcher.keep_downloads();
    // The staging directories the packages were renamed out of (empty
    // now) go as they are dropped.
    Ok(ready
        .into_iter()
        .zip(paths)
        .map(|((_, _, package, _), path)| (package.name, package.version, path))
        .collect())
}

/// A fetched package's tool.yaml that does not load, named as `path` (its
/// tag, or the archive) rather than by the directory it was unpacked into,
/// which is gone when the error is read.
fn renamed(e: PackageError, path: String) -> Error {
    match e {
        PackageError::Invalid { problems, .. } => PackageError::Invalid {
            path,
            dir: None,
            problems,
        }
        .into(),
        PackageError::Parse { message, .. } => PackageError::Parse { path, message }.into(),
        other => other.into(),
    }
}

/// RFC 3 7.1 step 6: the tag must equal tool.yaml's version.
fn check_tag(plan: &Plan, source: &Source, package: &Package) -> Result<(), Error> {
    let (tag, repository) = match source {
        Source::Git {
            tag, repository, ..
        } => (tag.as_str(), repository.as_str()),
        _ => ("", plan.label.as_str()),
    };
    if tag.strip_prefix('v') != Some(package.version.to_string().as_str()) {
        let name = plan.target.as_ref().map_or(&package.name, |(name, _)| name);
        return Err(tag_mismatch(
            tag,
            repository,
            &package.version.to_string(),
            name,
        ));
    }
    Ok(())
}

/// The archive must be the package the index promised: same name, same
/// version, same permissions.
pub(crate) fn check_identity(plan: &Plan, package: &Package) -> Result<(), Error> {
    if let Some((name, version)) = &plan.target {
        if *name != package.name || *version != package.version {
            return Err(InstallError::WrongArchive {
                name: name.clone(),
                version: version.clone(),
                found_name: package.name.clone(),
                found_version: package.version.clone(),
            }
            .into());
        }
    }
    if let Some(declared) = &plan.declared {
        let mut a = declared.clone();
        let mut b = package.tool.permissions.to_vec();
        a.sort();
        b.sort();
        if a != b {
            return Err(InstallError::PermissionMismatch {
                label: plan.label.clone(),
                declared: declared.clone(),
                asked: package.tool.permissions.to_vec(),
            }
            .into());
        }
    }
    Ok(())
}
