//! `orla serve [--stdio]`: hands the current root's runtime manifest to the
//! runtime crate (`orla-runtime`), which reads nothing else of orla.
//!
//! The manifest is brought up to date first, as `orla list` does (an
//! interrupted command recovered, one written by an older orla rewritten;
//! a project's is always rewritten from its store, since the file may have
//! come with the repository), so what is served is what the store holds;
//! a project's manifest is kept fresh while serving.

use crate::cli::ServeArgs;
use crate::context::Context;
use crate::error::Error;
use crate::manifest::Manifest;
use crate::root::{InstallRoot, StoreError};
use crate::store::Store;

pub fn run(ctx: &Context, args: &ServeArgs) -> Result<(), Error> {
    let root = if args.global {
        ctx.global_root()
    } else if let Some(dir) = &args.project {
        let dir = ctx.cwd.join(dir);
        match crate::project::Project::find(&dir)? {
            Some(project) => ctx.project_root(&project),
            None => {
                return Err(Error::usage(
                    format!(
                        "--project: there is no orla.yaml in {} or its parents",
                        dir.display()
                    ),
                    Some(format!(
                        "run `orla init {}` to make it a project",
                        dir.display()
                    )),
                ))
            }
        }
    } else {
        ctx.root()?
    };
    fresh_manifest(&root, ctx)?;
    if root.kind == crate::root::RootKind::Project {
        keep_fresh(root.clone());
    }
    let transport = if args.stdio {
        orla_runtime::Transport::Stdio
    } else {
        orla_runtime::Transport::Http {
            host: args.host,
            port: args.port,
        }
    };
    let mut options = orla_runtime::Options::new(root.manifest_path(), transport);
    options.log_format = args.log_format.clone();
    options.log_level = args.log_level.clone();
    options.allowed_origins = args.allow_origin.clone();
    Ok(orla_runtime::serve(options)?)
}

/// A project's manifest also depends on files orla is not run on while the
/// server runs: the global manifest (a global install), loose executables
/// dropped into tools_dir, orla.yaml. A thread regenerates it when they
/// change, so the runtime (which reads only the manifest) sees them too.
fn keep_fresh(root: InstallRoot) {
    std::thread::spawn(move || loop {
        std::thread::sleep(std::time::Duration::from_secs(1));
        let stale = match Manifest::read(&root) {
            Ok(manifest) => manifest.is_stale(&root),
            Err(_) => false,
        };
        if stale {
            let quiet = crate::progress::Silent;
            if let Ok(store) = Store::open(&root, &quiet) {
                let _ = store.sync_manifest(&quiet);
            }
        }
    });
}

/// A project's manifest is always written again from its store before it
/// is served: `.orla/manifest.json` can arrive with a cloned repository,
/// naming whatever it likes, and only the store (whose receipts are bound
/// to this root) says what is installed. The global root's is regenerated
/// only when out of date.
fn fresh_manifest(root: &InstallRoot, ctx: &Context) -> Result<(), Error> {
    let reporter = ctx.reporter.as_ref();
    let current = root.kind == crate::root::RootKind::Global
        && !root.needs_recovery()
        && root.manifest_path().is_file()
        && match Manifest::read(root) {
            Ok(manifest) => !manifest.is_stale(root),
            Err(StoreError::Manifest { newer: false, .. }) => false,
            Err(e) => return Err(e.into()),
        };
    if !current {
        Store::open(root, reporter)?.sync_manifest(reporter)?;
    }
    Ok(())
}
