//! `orla list [--global | --project]`: answered from the runtime manifest.
//!
//! Inside a project the default is the project's manifest, which also
//! carries the global tools (RFC 3 9.1), each row saying its root;
//! `--project` keeps only the project's rows and `--global` lists the global
//! root instead. A project's manifest is regenerated first when its inputs
//! changed behind orla's back (orla.yaml edited, an executable dropped into
//! tools_dir, a global install).

use crate::cli::ListArgs;
use crate::context::Context;
use crate::error::Error;
use crate::manifest::{Inputs, InstalledEntry, Listing, Manifest, RootKindName};
use crate::progress::Reporter;
use crate::root::receipt::Source;
use crate::root::{InstallRoot, StoreError};
use crate::store::Store;

pub fn run(ctx: &Context, args: &ListArgs) -> Result<(), Error> {
    let root = if args.global {
        ctx.global_root()
    } else if args.project {
        let project = ctx.project()?.ok_or_else(|| {
            Error::usage(
                format!(
                    "--project: there is no orla.yaml in {} or its parents",
                    ctx.cwd.display()
                ),
                Some("run `orla init` to make this directory a project".into()),
            )
        })?;
        ctx.project_root(&project)
    } else {
        ctx.root()?
    };
    let reporter = ctx.reporter.as_ref();
    let mut manifest: Listing = if root.needs_recovery() {
        // An interrupted command left the manifest behind: catch up first.
        Store::open(&root, reporter)?
            .sync_manifest(reporter)?
            .into()
    } else {
        // Only `installed` is read: a listing never parses the tools' schemas.
        match Listing::read(&root) {
            Ok(manifest) if !manifest.root.is_stale(&root) => manifest,
            Ok(_) => refreshed(&root, reporter)?,
            // A damaged manifest is derived from the store: write it again
            // (one from a newer orla is refused, not downgraded).
            Err(e @ StoreError::Manifest { newer: false, .. }) => {
                reporter.warn(&format!("{e}; writing it again"));
                refreshed(&root, reporter)?
            }
            Err(e) => return Err(e.into()),
        }
    };
    if args.project {
        manifest
            .installed
            .retain(|e| e.root == RootKindName::Project);
    }
    // Deleted behind orla's back: the manifest still names them until the
    // next command rewrites it, so they are marked, not shown as served.
    // (The entrypoint is inside the package directory: one stat answers both.)
    let missing: Vec<bool> = manifest
        .installed
        .iter()
        .map(|e| !std::path::Path::new(&e.entrypoint).exists())
        .collect();
    if args.json {
        let rows: Vec<Row> = manifest
            .installed
            .iter()
            .zip(&missing)
            .map(|(entry, &missing)| Row { entry, missing })
            .collect();
        let text = serde_json::to_string_pretty(&rows).expect("serialises") + "\n";
        return super::write_stdout(text.as_bytes());
    }
    for (e, _) in manifest.installed.iter().zip(&missing).filter(|(_, m)| **m) {
        let at = if e.version.is_empty() {
            e.name.clone()
        } else {
            format!("{}@{}", e.name, e.version)
        };
        let gone = if std::path::Path::new(&e.path).exists() {
            &e.entrypoint
        } else {
            &e.path
        };
        reporter.warn(&format!(
            "{} {} is missing: {gone} was deleted outside orla (`orla install {at} --force` restores it; `orla verify` checks every package)",
            e.name, e.version
        ));
    }
    if manifest.installed.is_empty() {
        ctx.reporter.status(
            "Nothing",
            &format!(
                "installed in {}; try `orla install fs-read`",
                root.tools_dir.display()
            ),
        );
        return Ok(());
    }
    super::write_stdout(table(&manifest.installed, &missing, ctx.stdout_width).as_bytes())
}

/// One entry of `list --json`: the manifest's, and `missing: true` when
/// its package was deleted outside orla.
#[derive(serde::Serialize)]
struct Row<'a> {
    #[serde(flatten)]
    entry: &'a InstalledEntry,
    #[serde(skip_serializing_if = "is_false")]
    missing: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A stale project manifest, regenerated; when the project cannot be
/// written (a read-only checkout), the list still shows what it would hold.
fn refreshed(root: &InstallRoot, reporter: &dyn Reporter) -> Result<Listing, Error> {
    match Store::open(root, reporter) {
        Ok(store) => Ok(store.sync_manifest(reporter)?.into()),
        Err(e) => {
            reporter.warn(&format!("cannot refresh the project's manifest: {e}"));
            let (installed, _) = crate::manifest::packages(root, reporter)?;
            let inputs = Inputs::gather(root, reporter);
            Ok(Manifest::generate_with(root, &installed, &inputs, reporter).into())
        }
    }
}

fn table(entries: &[InstalledEntry], missing: &[bool], width: Option<usize>) -> String {
    // The ROOT column only matters when a project lists global tools too.
    let mixed = entries.iter().any(|e| e.root != entries[0].root);
    let rows: Vec<Vec<String>> = entries
        .iter()
        .zip(missing)
        .map(|(e, missing)| {
            let mut row = vec![
                e.name.clone(),
                if e.version.is_empty() {
                    "-".into()
                } else {
                    e.version.clone()
                },
                if *missing {
                    "missing".into()
                } else if e.active {
                    "*".into()
                } else {
                    String::new()
                },
                if e.permissions_declared {
                    e.risk_level.as_str().to_string()
                } else {
                    format!("{} (undeclared)", e.risk_level.as_str())
                },
                match &e.source {
                    Source::Registry { registry, .. } | Source::Git { registry, .. } => {
                        registry.clone()
                    }
                    Source::Local { .. } => "local".into(),
                    Source::Discovered { .. } => "discovered".into(),
                },
                e.description.clone(),
            ];
            if mixed {
                row.insert(4, e.root.as_str().into());
            }
            row
        })
        .collect();
    let mut header = vec!["NAME", "VERSION", "ACTIVE", "RISK", "SOURCE", "DESCRIPTION"];
    if mixed {
        header.insert(4, "ROOT");
    }
    super::table_fit(&header, &rows, width)
}
