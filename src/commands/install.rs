//! `orla install SPEC... | --local PATH`.
//!
//! Resolve every spec first (a typo fails before anything is fetched), show
//! each tool's permissions and get consent, then take the root's lock, fetch
//! and unpack every archive in parallel into staging, validate, and only when
//! all of them succeeded rename them into place and regenerate the manifest.
//! One failure installs nothing.

use std::path::Path;
use std::sync::Arc;

use crate::cli::InstallArgs;
use crate::context::Context;
use crate::error::Error;
use crate::fetch::{ArchiveLocation, Fetcher, Job};
use crate::index::{Registry, RegistryLocation};
use crate::package::{Package, Permission, RiskLevel};
use crate::resolve::{self, Spec};
use crate::store::receipt::{Receipt, Source, SourceKind};
use crate::store::Store;
use crate::verify::{Digest, Expected};

/// One package to install.
struct Plan {
    label: String,
    /// Known before fetching for registry installs; for a local archive only
    /// once it is unpacked.
    target: Option<(String, semver::Version)>,
    /// The permissions the index declared, checked against tool.yaml.
    declared: Option<Vec<String>>,
    job: Job,
    source: Source,
}

pub fn run(ctx: &Context, args: &InstallArgs) -> Result<(), Error> {
    if args.specs.is_empty() && args.local.is_none() {
        return Err(Error::usage(
            "nothing to install",
            Some("name a tool, e.g. `orla install fs-read@1.2`, or pass --local PATH".into()),
        ));
    }
    let root = ctx.root()?;
    let reporter = ctx.reporter.as_ref();
    let mut plans = Vec::new();
    if let Some(path) = &args.local {
        plans.push(local_plan(&ctx.cwd.join(path))?);
    }
    if !args.specs.is_empty() {
        let specs = args
            .specs
            .iter()
            .map(|s| Spec::parse(s))
            .collect::<Result<Vec<_>, _>>()?;
        let location = args
            .registry
            .as_deref()
            .or(ctx.default_registry.as_deref())
            .unwrap_or("builtin");
        let registry = Registry::open(&RegistryLocation::parse(location, &ctx.cwd)?)?;
        for spec in &specs {
            let plan = registry_plan(&registry, spec, reporter)?;
            let duplicate = plans.iter().any(|p: &Plan| p.target == plan.target);
            if !duplicate {
                plans.push(plan);
            }
        }
    }

    // Already installed: nothing to do unless --force (installs are idempotent).
    plans.retain(|plan| match &plan.target {
        Some((name, version)) if !args.force && root.package_dir(name, version).exists() => {
            reporter.status(
                "Skipping",
                &format!("{name} {version}: already installed (--force reinstalls it)"),
            );
            false
        }
        _ => true,
    });
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
    let fetcher = Fetcher::new(ctx.cache(), false);
    let staged = std::thread::scope(|scope| {
        let handles: Vec<_> = plans
            .iter()
            .map(|plan| {
                let store = &store;
                let fetcher = &fetcher;
                scope.spawn(move || -> Result<_, Error> {
                    let dir = store.staging_dir()?;
                    let unpacked = fetcher.fetch_unpack(&plan.job, dir.path(), reporter)?;
                    Ok((dir, unpacked))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("fetch threads do not panic"))
            .collect::<Result<Vec<_>, Error>>()
    })?;

    let mut ready = Vec::new();
    for (plan, (dir, unpacked)) in plans.iter().zip(staged) {
        let package = Package::load(&unpacked.root)?;
        check_identity(plan, &package)?;
        for warning in &package.warnings {
            reporter.warn(&format!("{} {}: {warning}", package.name, package.version));
        }
        if plan.declared.is_none() {
            confirm(ctx, &plan.label, &package.tool.permissions, args.yes)?;
        }
        let receipt = Receipt {
            receipt_version: crate::store::receipt::RECEIPT_VERSION,
            name: package.name.clone(),
            version: package.version.clone(),
            source: plan.source.clone(),
            installed_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or_default(),
            files: unpacked.files,
            extra: Default::default(),
        };
        receipt
            .write(&unpacked.root)
            .map_err(crate::store::StoreError::io(
                "cannot write receipt in",
                &unpacked.root,
            ))?;
        ready.push((dir, unpacked.root, package));
    }
    let mut done = Vec::new();
    for (_dir, staged_root, package) in &ready {
        let path = store.commit(staged_root, &package.name, &package.version, args.force)?;
        done.push((package, path));
    }
    store.sync_manifest(reporter)?;
    for (package, path) in done {
        reporter.status(
            "Installed",
            &format!("{} {} to {}", package.name, package.version, path.display()),
        );
    }
    Ok(())
}

fn registry_plan(
    registry: &Registry,
    spec: &Spec,
    reporter: &dyn crate::progress::Reporter,
) -> Result<Plan, Error> {
    let records = registry.versions(&spec.name)?;
    let selected = resolve::select(spec, &records)?;
    let record = selected.record;
    if selected.yanked {
        reporter.warn(&format!(
            "{} {} is yanked; installing it because it was asked for exactly",
            record.name, record.version
        ));
    }
    let location = registry.archive_location(record)?;
    Ok(Plan {
        label: format!("{} {}", record.name, record.version),
        target: Some((record.name.clone(), record.version.clone())),
        declared: Some(record.permissions.clone()),
        source: Source {
            kind: SourceKind::Registry,
            registry: Some(registry.name.clone()),
            path: None,
            archive: Some(location.to_string()),
            blake3: record.blake3,
            size: record.size,
            extra: Default::default(),
        },
        job: Job {
            label: format!("{} {}", record.name, record.version),
            location,
            expected: Expected {
                blake3: record.blake3,
                size: Some(record.size),
            },
        },
    })
}

/// A package directory is packed in memory, exactly as `orla tool pack`
/// would; an archive is read once. Either then takes the same hardened path
/// as a registry download.
fn local_plan(path: &Path) -> Result<Plan, Error> {
    let shown = path.display().to_string();
    let (bytes, target) = if path.is_dir() {
        let (packed, bytes) = crate::package::pack::pack_to_vec(path)?;
        (bytes, Some((packed.name, packed.version)))
    } else {
        let bytes = std::fs::read(path).map_err(|e| {
            Error::other(
                format!("cannot read {shown}: {e}"),
                Some(
                    "--local takes a package directory (with tool.yaml) or a .tar.gz archive"
                        .into(),
                ),
            )
        })?;
        (bytes, None)
    };
    let digest = Digest::of(&bytes);
    let size = bytes.len() as u64;
    let label = match &target {
        Some((n, v)) => format!("{n} {v}"),
        None => shown.clone(),
    };
    Ok(Plan {
        label: label.clone(),
        target,
        declared: None,
        source: Source {
            kind: SourceKind::Local,
            registry: None,
            path: Some(shown.clone()),
            archive: None,
            blake3: digest,
            size,
            extra: Default::default(),
        },
        job: Job {
            label,
            location: ArchiveLocation::Memory {
                origin: shown,
                bytes: Arc::new(bytes),
            },
            expected: Expected {
                blake3: digest,
                size: Some(size),
            },
        },
    })
}

/// The archive must be the package the index promised: same name, same
/// version, same permissions.
fn check_identity(plan: &Plan, package: &Package) -> Result<(), Error> {
    if let Some((name, version)) = &plan.target {
        if *name != package.name || *version != package.version {
            return Err(Error::other(
                format!(
                    "the archive for {name} {version} contains {} {}",
                    package.name, package.version
                ),
                Some("the registry's record points at the wrong archive; report it to its maintainers".into()),
            ));
        }
    }
    if let Some(declared) = &plan.declared {
        let mut a = declared.clone();
        let mut b = package.tool.permissions.clone();
        a.sort();
        b.sort();
        if a != b {
            return Err(Error::other(
                format!(
                    "{}: the registry declares permissions [{}] but its tool.yaml asks for [{}]",
                    plan.label,
                    declared.join(", "),
                    package.tool.permissions.join(", ")
                ),
                Some(
                    "nothing was installed; report the mismatch to the registry's maintainers"
                        .into(),
                ),
            ));
        }
    }
    Ok(())
}

/// Shows a tool's permissions and, from medium risk up, asks for consent
/// (DESIGN.md invariant 7).
fn confirm(ctx: &Context, label: &str, permissions: &[String], yes: bool) -> Result<(), Error> {
    let parsed: Vec<Permission> = permissions.iter().map(|p| Permission::parse(p)).collect();
    let risk = RiskLevel::derive(&parsed);
    let shown = if permissions.is_empty() {
        "none".to_string()
    } else {
        permissions.join(", ")
    };
    ctx.reporter.status(
        "Permissions",
        &format!("{label}: {shown} (risk: {})", risk.as_str()),
    );
    if !risk.needs_confirmation() || yes {
        return Ok(());
    }
    if !ctx.interactive {
        return Err(Error::other(
            format!(
                "{label} asks for {shown} (risk: {}) and there is no terminal to confirm it",
                risk.as_str()
            ),
            Some("pass --yes to accept these permissions".into()),
        ));
    }
    let accepted = dialoguer::Confirm::new()
        .with_prompt(format!("Install {label} with {shown}?"))
        .default(false)
        .interact()
        .map_err(|e| Error::other(format!("cannot ask for confirmation: {e}"), None))?;
    if accepted {
        Ok(())
    } else {
        Err(Error::other(
            format!("installation of {label} cancelled"),
            None,
        ))
    }
}
