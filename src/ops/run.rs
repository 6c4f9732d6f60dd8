//! Running a registry tool once without installing it into a root
//! (`orla run NAME[@REQ] -- ARGS`), as `uvx` and `npx` do.
//!
//! The version is resolved as `orla install` would, its permissions shown
//! and confirmed the same way, and the archive fetched, verified and
//! unpacked through the same pipeline, into `<cache>/run/NAME-VERSION-DIGEST/`
//! with a receipt bound to the copy's directory under the user's receipt
//! key, as an installed package's is. A later run of the same version
//! checks that binding and re-hashes the files against the receipt before
//! using them (a changed copy, or one whose receipt this user's orla did
//! not write, is fetched again), so nothing unverified runs. The entrypoint then replaces orla (its
//! interpreter from the `#!` line, tool.yaml's `runtime.args` and `env`,
//! then ARGS), in the current directory, with stdin, stdout, stderr and the
//! exit status its own. Nothing in the install root or its manifest changes.

use std::path::{Path, PathBuf};

use super::install::apply::check_identity;
use super::install::consent::confirm;
use super::install::plan::{plan_spec, Fetch, Plan};
use crate::context::Context;
use crate::error::run::RunError;
use crate::error::Error;
use crate::fetch::Fetcher;
use crate::package::Package;
use crate::progress::{Event, Warning};
use crate::resolve::Spec;
use crate::root::receipt::Receipt;

/// A tool ready to run: the command line that starts it (its interpreter,
/// entrypoint and tool.yaml's `runtime.args`) and its environment.
pub struct Ready {
    pub name: String,
    pub version: semver::Version,
    /// The copy was in the cache already: a later run of the same version
    /// says nothing of itself, as `uvx` does.
    pub cached: bool,
    pub argv: Vec<String>,
    pub env: std::collections::BTreeMap<String, String>,
}

/// Resolves `spec` in `registry` (a `--registry` value) or the configured
/// registries, asks for consent as `install` does (`yes` gives it), and
/// makes a verified copy ready in the cache.
pub fn prepare(
    ctx: &Context,
    spec: &Spec,
    registry: Option<&str>,
    yes: bool,
) -> Result<Ready, Error> {
    let registries = ctx.registries(registry)?;
    let plan = plan_spec(ctx, &registries, spec)?;
    drop(registries);
    let (name, version) = plan
        .target
        .clone()
        .expect("registry plans know their target");
    let dir = ctx.cache_dir.join("run").join(format!(
        "{name}-{version}-{}",
        &plan.source.blake3().to_hex()[..16]
    ));
    // Run before: its permissions were shown then, and are shown again only
    // to ask for consent (a damaged copy is fetched again, visibly).
    let cached = dir.exists();
    if let Some(perms) = &plan.declared {
        let parsed: Vec<crate::package::Permission> = perms
            .iter()
            .map(|p| crate::package::Permission::parse(p))
            .collect();
        let asks = !yes && crate::package::RiskLevel::derive(&parsed).needs_confirmation();
        if !cached || asks {
            confirm(ctx, &plan.label, perms, yes)?;
        }
    }
    // Held while the copy is checked or fetched, so `orla cache clear` and
    // `prune` wait; the tool itself runs after it is let go.
    let cache = ctx.cache();
    let _lock = cache
        .lock(crate::lock::LockKind::Shared, ctx.reporter.as_ref())
        .map_err(|source| crate::fetch::CacheError::Lock {
            dir: ctx.cache_dir.clone(),
            source,
        })?;
    let key_path = ctx.global_root().state_dir;
    let key = ctx
        .global_root()
        .receipt_key_or_create()
        .map_err(|source| RunError::Cache {
            what: "create the receipt key in",
            path: key_path,
            source,
        })?;
    if !verified(&dir, &key) {
        fetch(ctx, &plan, &dir, &key)?;
    }
    let package = Package::load(&dir)?;
    let entrypoint = dir.join(package.tool.entrypoint.as_deref().unwrap_or_default());
    let shebang = crate::package::validate::read_shebang(&entrypoint);
    let mut argv =
        crate::manifest::command_line(shebang.as_deref(), &entrypoint.display().to_string());
    let runtime = package.tool.runtime.clone().unwrap_or_default();
    argv.extend(runtime.args.iter().cloned());
    // A missing interpreter would only show as the tool failing to start.
    let checks = super::install::requirements::check(&dir, &package.tool, &ctx.search_path);
    for problem in super::install::requirements::problems(&checks) {
        ctx.reporter.report(Event::Warning(Warning::RunRequirement {
            name: name.clone(),
            version: version.clone(),
            problem,
        }));
    }
    Ok(Ready {
        name,
        version,
        cached,
        argv,
        env: runtime.env,
    })
}

/// A cached copy is used only when its receipt is bound to it under this
/// user's key and its files still match that receipt.
fn verified(dir: &Path, key: &[u8; 32]) -> bool {
    let Ok(receipt) = Receipt::read(dir) else {
        return false;
    };
    crate::root::binding::is_bound(&receipt, key, dir)
        && crate::ops::verify::verify_package(dir, &receipt.files).is_ok_and(|d| d.is_empty())
}

/// Fetches, verifies and unpacks the plan into `dir` (replacing whatever
/// is there), checking the package is the one the registry described.
fn fetch(ctx: &Context, plan: &Plan, dir: &Path, key: &[u8; 32]) -> Result<(), Error> {
    let parent = dir.parent().expect("run dirs have a parent");
    let io = |what: &'static str, path: &Path, source: std::io::Error| RunError::Cache {
        what,
        path: path.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(parent).map_err(|e| io("create", parent, e))?;
    let staging = tempfile::Builder::new()
        .prefix(".stage-")
        .tempdir_in(parent)
        .map_err(|e| io("create a directory in", parent, e))?;
    let reporter = ctx.reporter.as_ref();
    let unpacked = match &plan.fetch {
        Fetch::Archive(job) => {
            let fetcher =
                Fetcher::new(ctx.cache(), ctx.offline).with_http_limits(ctx.http_limits());
            let unpacked = fetcher.fetch_unpack(job, staging.path(), reporter)?;
            fetcher.keep_downloads();
            unpacked
        }
        Fetch::Git { repo, tag } => {
            reporter.report(crate::progress::Event::CheckingOut {
                repository: repo.url.clone(),
                tag: tag.clone(),
            });
            repo.checkout(tag, staging.path())
                .map_err(|source| {
                    Error::from(crate::error::InstallError::Checkout {
                        label: plan.label.clone(),
                        tag: tag.clone(),
                        url: repo.url.clone(),
                        source,
                    })
                })?
                .unpacked
        }
    };
    let package = Package::load(&unpacked.root)?;
    check_identity(plan, &package)?;
    let mut receipt = Receipt::new(
        package.name.clone(),
        package.version.clone(),
        plan.source.clone(),
        unpacked.files,
    );
    crate::root::binding::bind(&mut receipt, key, dir);
    receipt
        .write(&unpacked.root)
        .map_err(|e| io("write a receipt in", &unpacked.root, e))?;
    // Another run may have put the same copy there meanwhile; a damaged
    // one is replaced.
    if dir.exists() {
        if verified(dir, key) {
            return Ok(());
        }
        std::fs::remove_dir_all(dir).map_err(|e| io("remove", dir, e))?;
    }
    let root: PathBuf = unpacked.root;
    match std::fs::rename(&root, dir) {
        Ok(()) => Ok(()),
        Err(_) if verified(dir, key) => Ok(()),
        Err(e) => Err(io("move into place", dir, e).into()),
    }
}
