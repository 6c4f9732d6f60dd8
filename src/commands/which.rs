//! `orla which NAME` and `orla dir`: where things are, for scripts and for
//! people used to `which`, `uv tool dir` and `cargo install --list`.

use crate::cli::{CompleteArgs, DirArgs, WhichArgs};
use crate::context::Context;
use crate::error::Error;
use crate::manifest::Manifest;
use crate::root::{InstallRoot, StoreError};

/// Prints the entrypoint the manifest serves for NAME (the active version;
/// in a project, a global tool too when the project does not shadow it).
pub fn which(ctx: &Context, args: &WhichArgs) -> Result<(), Error> {
    let name = super::tool_name("which", &args.name)?;
    let root = root(ctx, args.global)?;
    let manifest = Manifest::read(&root)?;
    let Some(tool) = manifest.tools.iter().find(|t| t.name == name) else {
        return Err(StoreError::NotInstalled {
            what: name,
            detail: format!(" in {}", root.tools_dir.display()),
        }
        .into());
    };
    if !std::path::Path::new(&tool.entrypoint).exists() {
        return Err(Error::other(
            format!(
                "{} {} is served from {}, which was deleted outside orla",
                tool.name, tool.version, tool.entrypoint
            ),
            Some(format!(
                "`orla install {}@{} --force` restores it",
                tool.name, tool.version
            )),
        ));
    }
    super::write_stdout(format!("{}\n", tool.entrypoint).as_bytes())
}

/// Prints the directory tools are installed into.
pub fn dir(ctx: &Context, args: &DirArgs) -> Result<(), Error> {
    let root = root(ctx, args.global)?;
    super::write_stdout(format!("{}\n", root.tools_dir.display()).as_bytes())
}

fn root(ctx: &Context, global: bool) -> Result<InstallRoot, Error> {
    if global {
        Ok(ctx.global_root())
    } else {
        ctx.root()
    }
}

/// Tool names for the shell completion scripts: the installed ones (from
/// the manifest, as `list` shows them) or those the registries list (read
/// offline: a registry not in the cache contributes nothing). A word with
/// an `@` (`fs-read@1.`) asks for the versions of the tool before it, as
/// `NAME@VERSION`, newest first: the installed versions, or those the
/// registries publish (yanked ones left out). Errors print nothing: a
/// completion must never disturb the command line.
pub fn complete(ctx: &Context, args: &CompleteArgs) -> Result<(), Error> {
    let installed = args.kind == "installed";
    let lines: Vec<String> = match args.word.split_once('@') {
        Some((name, _)) => {
            let mut versions: Vec<semver::Version> = if installed {
                installed_entries(ctx)
                    .into_iter()
                    .filter(|e| e.name == name)
                    .filter_map(|e| semver::Version::parse(&e.version).ok())
                    .collect()
            } else {
                published_versions(ctx, name)
            };
            // Stable versions first: what a user most likely wants.
            versions.sort_by(|a, b| (a.pre.is_empty(), a).cmp(&(b.pre.is_empty(), b)).reverse());
            versions.dedup();
            versions.iter().map(|v| format!("{name}@{v}")).collect()
        }
        None => {
            let mut names: Vec<String> = if installed {
                installed_entries(ctx).into_iter().map(|e| e.name).collect()
            } else {
                ctx.registries(None)
                    .ok()
                    .map(|registries| {
                        registries
                            .open_all()
                            .unwrap_or_default()
                            .into_iter()
                            .filter_map(|r| r.listing().ok())
                            .flat_map(|l| l.tools.into_iter().map(|t| t.name))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            names.sort();
            names.dedup();
            names
        }
    };
    let mut out = lines.join("\n");
    if !out.is_empty() {
        out.push('\n');
    }
    super::write_stdout(out.as_bytes())
}

fn installed_entries(ctx: &Context) -> Vec<crate::manifest::InstalledEntry> {
    ctx.root()
        .ok()
        .and_then(|root| Manifest::read(&root).ok())
        .map(|m| m.installed)
        .unwrap_or_default()
}

/// The versions the first registry that knows `name` publishes.
fn published_versions(ctx: &Context, name: &str) -> Vec<semver::Version> {
    let Ok(registries) = ctx.registries(None) else {
        return Vec::new();
    };
    match registries.find(name).map(|found| found.lookup) {
        Ok(crate::index::Lookup::Records(records)) => records
            .into_iter()
            .filter(|r| !r.yanked)
            .map(|r| r.version)
            .collect(),
        _ => Vec::new(),
    }
}
