//! `orla list [--global | --project]`: answered from the runtime manifest.
//!
//! Inside a project the default is the project's manifest, which also
//! carries the global tools (RFC 3 9.1), each row saying its root;
//! `--project` keeps only the project's rows and `--global` lists the global
//! root instead. The listing is `ops::list::current`: the manifest,
//! brought up to date first when it is not.

use crate::cli::ListArgs;
use crate::context::Context;
use crate::error::Error;
use crate::manifest::{InstalledEntry, RootKindName};
use crate::progress::{Event, Warning};
use crate::root::receipt::Source;

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
    let mut manifest = crate::ops::list::current(&root, reporter)?;
    if args.project {
        manifest
            .installed
            .retain(|e| e.root == RootKindName::Project);
    }
    // Deleted behind orla's back: the manifest still names them until the
    // next command rewrites it, so they are marked, not shown as served.
    // (The entrypoint is inside the package directory: one stat answers both.)
    let missing = crate::ops::list::missing(&manifest.installed);
    if args.json {
        let text = crate::ops::list::to_json(&manifest.installed, &missing);
        return super::write_stdout_text(&text);
    }
    for (e, _) in manifest.installed.iter().zip(&missing).filter(|(_, m)| **m) {
        let gone = if std::path::Path::new(&e.path).exists() {
            &e.entrypoint
        } else {
            &e.path
        };
        reporter.report(Event::Warning(Warning::PackageMissing {
            name: e.name.clone(),
            version: e.version.clone(),
            gone: gone.clone(),
        }));
    }
    if manifest.installed.is_empty() {
        reporter.report(Event::NothingInstalled {
            path: root.tools_dir.display().to_string(),
        });
        return Ok(());
    }
    super::write_stdout(table(&manifest.installed, &missing, ctx.stdout_width).as_bytes())
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
                    format!("{} (undeclared, unconfined)", e.risk_level.as_str())
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
