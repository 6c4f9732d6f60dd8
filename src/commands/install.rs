//! `orla install SPEC... | --local PATH`.
//!
//! Resolve every spec first (a typo fails before anything is fetched), show
//! each tool's permissions and get consent, then take the root's lock, fetch
//! and unpack every archive in parallel into staging, validate, and only when
//! all of them succeeded rename them into place and regenerate the manifest.
//! One failure installs nothing.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::cli::InstallArgs;
use crate::context::Context;
use crate::error::Error;
use crate::fetch::git::ToolRepo;
use crate::fetch::{Fetcher, Job};
use crate::index::ArchiveLocation;
use crate::index::{Lookup, Registry, RegistryEntry, VersionRecord};
use crate::package::{Package, Permission, RiskLevel};
use crate::registries::Registries;
use crate::resolve::{self, Spec};
use crate::root::receipt::{Receipt, Source, SourceKind};
use crate::store::Store;
use crate::verify::{Digest, Expected};

/// One package to install.
pub(crate) struct Plan {
    pub label: String,
    /// Known before fetching for registry installs; for a local archive only
    /// once it is unpacked.
    pub target: Option<(String, semver::Version)>,
    /// The permissions the index declared, checked against tool.yaml.
    pub declared: Option<Vec<String>>,
    fetch: Fetch,
    source: Source,
}

/// How a plan's files are obtained.
enum Fetch {
    /// An archive, streamed through the verifier.
    Archive(Job),
    /// A tag of an RFC 3 git-source tool.
    Git { repo: ToolRepo, tag: String },
}

pub fn run(ctx: &Context, args: &InstallArgs) -> Result<(), Error> {
    // In a project, registry installs go through orla.yaml and orla.lock;
    // a local package is in neither, so it is installed on its own.
    if let Some(project) = ctx.project()? {
        if args.local.is_none() {
            return super::sync::run(ctx, &project, args);
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
    let reporter = ctx.reporter.as_ref();
    let mut plans = Vec::new();
    if let Some(path) = &args.local {
        // components() drops the `.` of `./x.tar.gz`, which messages and the
        // receipt would otherwise show as `/work/./x.tar.gz`.
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

/// Drops the plans whose version is already in the store, saying why.
fn skip_installed(
    plans: &mut Vec<Plan>,
    ctx: &Context,
    root: &crate::root::InstallRoot,
    why: &str,
) {
    plans.retain(|plan| match &plan.target {
        Some((name, version)) if root.package_dir(name, version).exists() => {
            let dir = root.package_dir(name, version);
            // `list` and `uninstall` do not count it: say why it is skipped.
            let why = match crate::root::receipt::Receipt::read(&dir) {
                Ok(_) => why.to_string(),
                Err(_) => format!(
                    "{} exists but its install receipt is damaged (--force reinstalls it)",
                    dir.display()
                ),
            };
            ctx.reporter
                .status("Skipping", &format!("{name} {version}: {why}"));
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
    let fetcher = Fetcher::new(ctx.cache(), ctx.offline).with_timeout(ctx.http_timeout);
    let staged = std::thread::scope(|scope| {
        let handles: Vec<_> = plans
            .iter()
            .map(|plan| {
                let fetcher = &fetcher;
                scope.spawn(move || -> Result<_, Error> {
                    let dir = store.staging_dir()?;
                    match &plan.fetch {
                        Fetch::Archive(job) => {
                            let unpacked = fetcher.fetch_unpack(job, dir.path(), reporter)?;
                            Ok((dir, unpacked, None))
                        }
                        Fetch::Git { repo, tag } => {
                            reporter.status("Checking out", &format!("{} {tag}", repo.url));
                            let checkout = repo.checkout(tag, dir.path()).map_err(|e| {
                                Error::other(
                                    format!("{}: cannot check out {tag} of {}: {e}", plan.label, repo.url),
                                    Some("nothing was installed; report it to the tool's maintainers".into()),
                                )
                            })?;
                            let extras = (checkout.commit, checkout.tree_digest, checkout.size);
                            Ok((dir, checkout.unpacked, Some(extras)))
                        }
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("fetch threads do not panic"))
            .collect::<Result<Vec<_>, Error>>()
    })?;

    let mut ready = Vec::new();
    for (plan, (dir, unpacked, git)) in plans.iter().zip(staged) {
        let package = Package::load(&unpacked.root)?;
        let mut source = plan.source.clone();
        if let Some((commit, tree, size)) = git {
            check_tag(plan, &source, &package)?;
            // A plan from orla.lock names its commit and tree: a moved tag
            // or changed files must not slip in.
            if let Some(pinned) = &plan.source.commit {
                if *pinned != commit || plan.source.blake3 != tree {
                    return Err(Error::other(
                        format!(
                            "{}: orla.lock pins commit {pinned} (tree {}), but the tag now gives commit {commit} (tree {tree})",
                            plan.label, plan.source.blake3
                        ),
                        Some("nothing was installed; if the new tag is trusted, run `orla install NAME@VERSION` to lock it again".into()),
                    ));
                }
            }
            source.commit = Some(commit);
            source.blake3 = tree;
            source.size = size;
        }
        check_identity(plan, &package)?;
        for warning in &package.warnings {
            reporter.warn(&format!("{} {}: {warning}", package.name, package.version));
        }
        // tool.yaml's risk_level, when the author raised it above what the
        // permissions give, is known only now (index records do not carry it).
        let derived = RiskLevel::derive(&package.tool.permissions());
        let stated = package.tool.risk();
        let perms = &package.tool.permissions;
        if plan.declared.is_none() {
            // Named by what was unpacked: a local archive's plan knows only its path.
            let label = format!("{} {}", package.name, package.version);
            confirm_risk(ctx, &label, perms, derived.max(stated), yes)?;
        } else if stated.needs_confirmation() && !derived.needs_confirmation() {
            confirm_risk(ctx, &plan.label, perms, stated, yes)?;
        }
        let receipt = Receipt {
            receipt_version: crate::root::receipt::RECEIPT_VERSION,
            name: package.name.clone(),
            version: package.version.clone(),
            source,
            installed_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or_default(),
            files: unpacked.files,
            extra: Default::default(),
        };
        receipt
            .write(&unpacked.root)
            .map_err(crate::root::StoreError::io(
                "cannot write receipt in",
                &unpacked.root,
            ))?;
        ready.push((dir, unpacked.root, package));
    }
    let mut done = Vec::new();
    for (_dir, staged_root, package) in &ready {
        let path = store.commit(staged_root, &package.name, &package.version, force)?;
        done.push((package.name.clone(), package.version.clone(), path));
    }
    fetcher.keep_downloads();
    Ok(done)
}

/// RFC 3 7.1 step 6: the tag must equal tool.yaml's version.
fn check_tag(plan: &Plan, source: &Source, package: &Package) -> Result<(), Error> {
    let tag = source.tag.as_deref().unwrap_or_default();
    if tag.strip_prefix('v') != Some(package.version.to_string().as_str()) {
        return Err(Error::other(
            format!(
                "tag {tag} of {} holds tool.yaml version {}; the tag and the version must match",
                source.repository.as_deref().unwrap_or(&plan.label),
                package.version
            ),
            Some(
                "nothing was installed; the tool's maintainers should retag or fix tool.yaml"
                    .into(),
            ),
        ));
    }
    Ok(())
}

/// Resolves a spec against the configured registries: the first registry
/// that knows the tool answers.
pub(crate) fn plan_spec(
    ctx: &Context,
    registries: &Registries<'_>,
    spec: &Spec,
) -> Result<Plan, Error> {
    let found = registries.find(&spec.name)?;
    match &found.lookup {
        Lookup::Records(records) => {
            registry_plan(found.registry, spec, records, ctx.reporter.as_ref())
        }
        Lookup::GitSource(entry) => git_plan(ctx, found.registry, entry, spec),
    }
}

/// Resolves an RFC 3 git-source tool: tags from the repository (7.3).
fn git_plan(
    ctx: &Context,
    registry: &Registry,
    entry: &RegistryEntry,
    spec: &Spec,
) -> Result<Plan, Error> {
    let url = registry.tool_repository(entry)?;
    let repo =
        ToolRepo::open(&url, &ctx.cache_dir, ctx.offline, ctx.reporter.as_ref()).map_err(|e| {
            Error::other(
                format!("cannot fetch the tags of {} from {url}: {e}", entry.name),
                Some(
                    "check the repository URL in the registry's registry.yaml and your connection"
                        .into(),
                ),
            )
        })?;
    let tags = repo
        .tags()
        .map_err(|e| Error::other(format!("{url}: {e}"), None))?;
    let records = tag_records(&entry.name, &tags);
    let selected = resolve::select(spec, &records)?;
    let version = selected.record.version.clone();
    let tag = tags
        .iter()
        .find(|t| t.version == version)
        .map(|t| t.name.clone())
        .expect("selected from the tags");
    // The tag's tool.yaml, read from the fetched objects, declares the
    // permissions, so consent comes before anything is written (as for
    // index records); the checkout is then held to the same list.
    let declared = repo
        .read_file(&tag, "tool.yaml")
        .ok()
        .flatten()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| crate::package::ToolYaml::parse(&text, "tool.yaml").ok())
        .map(|tool| tool.permissions);
    let label = format!("{} {version}", entry.name);
    Ok(Plan {
        label,
        target: Some((entry.name.clone(), version)),
        declared,
        source: Source {
            kind: SourceKind::Git,
            registry: Some(registry.name.clone()),
            path: None,
            archive: None,
            blake3: Digest::of(b""),
            size: 0,
            repository: Some(url),
            tag: Some(tag.clone()),
            commit: None,
            extra: Default::default(),
        },
        fetch: Fetch::Git { repo, tag },
    })
}

/// Tags as version records, so the one resolver applies (digests are
/// unknown until checkout and unused by resolution).
pub(crate) fn tag_records(name: &str, tags: &[crate::fetch::git::Tag]) -> Vec<VersionRecord> {
    tags.iter()
        .map(|t| VersionRecord {
            name: name.to_string(),
            version: t.version.clone(),
            blake3: Digest::of(b""),
            size: 0,
            archive: None,
            sha256: None,
            yanked: false,
            description: String::new(),
            keywords: vec![],
            permissions: vec![],
        })
        .collect()
}

fn registry_plan(
    registry: &Registry,
    spec: &Spec,
    records: &[VersionRecord],
    reporter: &dyn crate::progress::Reporter,
) -> Result<Plan, Error> {
    let selected = resolve::select(spec, records)?;
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
            repository: None,
            tag: None,
            commit: None,
            extra: Default::default(),
        },
        fetch: Fetch::Archive(Job {
            label: format!("{} {}", record.name, record.version),
            location,
            expected: Expected {
                blake3: record.blake3,
                size: Some(record.size),
                sha256: record
                    .sha256
                    .as_deref()
                    .and_then(crate::verify::parse_sha256),
            },
        }),
    })
}

impl Plan {
    /// Where the package comes from, as its receipt will say (for git
    /// sources the commit and tree are only known after checkout).
    pub(crate) fn source(&self) -> &Source {
        &self.source
    }
}

/// A plan that installs exactly the archive orla.lock pins: no index is
/// read, and the bytes must have the pinned digest and size.
pub(crate) fn pinned_archive_plan(
    name: &str,
    version: &semver::Version,
    location: ArchiveLocation,
    source: Source,
) -> Plan {
    let label = format!("{name} {version}");
    Plan {
        label: label.clone(),
        target: Some((name.to_string(), version.clone())),
        declared: None,
        fetch: Fetch::Archive(Job {
            label,
            location,
            expected: Expected {
                blake3: source.blake3,
                size: Some(source.size),
                sha256: None,
            },
        }),
        source,
    }
}

/// A plan that checks out the tag orla.lock pins for an RFC 3 git-source
/// tool; `apply` refuses it unless the tag still gives the pinned commit.
pub(crate) fn pinned_git_plan(
    ctx: &Context,
    name: &str,
    version: &semver::Version,
    source: Source,
) -> Result<Plan, Error> {
    let url = source.repository.clone().unwrap_or_default();
    let tag = source.tag.clone().unwrap_or_else(|| format!("v{version}"));
    let repo = ToolRepo::open(&url, &ctx.cache_dir, ctx.offline, ctx.reporter.as_ref())
        .map_err(|e| Error::other(format!("cannot fetch {name} from {url}: {e}"), None))?;
    Ok(Plan {
        label: format!("{name} {version}"),
        target: Some((name.to_string(), version.clone())),
        declared: None,
        fetch: Fetch::Git { repo, tag },
        source,
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
        let hint = || {
            Some("--local takes a package directory (with tool.yaml) or a .tar.gz archive".into())
        };
        let cannot = |e: std::io::Error| Error::other(format!("cannot read {shown}: {e}"), hint());
        // A device (`/dev/zero`) would be read into memory without end, and
        // opening a fifo blocks: judged before opening, and again on the
        // opened file, which is the one read.
        let refuse = || Error::other(format!("{shown} is not a regular file"), hint());
        if !std::fs::metadata(path).map_err(cannot)?.is_file() {
            return Err(refuse());
        }
        let mut file = std::fs::File::open(path).map_err(cannot)?;
        if !file.metadata().map_err(cannot)?.is_file() {
            return Err(refuse());
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes).map_err(cannot)?;
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
            repository: None,
            tag: None,
            commit: None,
            extra: Default::default(),
        },
        fetch: Fetch::Archive(Job {
            label,
            location: ArchiveLocation::Memory {
                origin: shown,
                bytes: Arc::new(bytes),
            },
            expected: Expected {
                blake3: digest,
                size: Some(size),
                sha256: None,
            },
        }),
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
pub(crate) fn confirm(
    ctx: &Context,
    label: &str,
    permissions: &[String],
    yes: bool,
) -> Result<(), Error> {
    let parsed: Vec<Permission> = permissions.iter().map(|p| Permission::parse(p)).collect();
    confirm_risk(ctx, label, permissions, RiskLevel::derive(&parsed), yes)
}

/// As `confirm`, for a risk level known otherwise than from the permissions.
fn confirm_risk(
    ctx: &Context,
    label: &str,
    permissions: &[String],
    risk: RiskLevel,
    yes: bool,
) -> Result<(), Error> {
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
