//! `orla list`: answered from the runtime manifest alone.

use crate::cli::ListArgs;
use crate::context::Context;
use crate::error::Error;
use crate::manifest::{InstalledEntry, Manifest};
use crate::store::receipt::SourceKind;
use crate::store::Store;

pub fn run(ctx: &Context, args: &ListArgs) -> Result<(), Error> {
    let root = ctx.root()?;
    let manifest = if root.needs_recovery() {
        // An interrupted command left the manifest behind: catch up first.
        Store::open(&root, ctx.reporter.as_ref())?.sync_manifest(ctx.reporter.as_ref())?
    } else {
        Manifest::read(&root)?
    };
    if args.json {
        let text = serde_json::to_string_pretty(&manifest.installed).expect("serialises") + "\n";
        return super::write_stdout(text.as_bytes());
    }
    if manifest.installed.is_empty() {
        ctx.reporter.status(
            "Empty",
            &format!(
                "no tools installed in {}; try `orla install fs-read`",
                root.tools_dir.display()
            ),
        );
        return Ok(());
    }
    super::write_stdout(table(&manifest.installed).as_bytes())
}

fn table(entries: &[InstalledEntry]) -> String {
    let rows: Vec<[String; 6]> = entries
        .iter()
        .map(|e| {
            [
                e.name.clone(),
                e.version.clone(),
                if e.active { "*".into() } else { String::new() },
                e.risk_level.as_str().to_string(),
                match e.source.kind {
                    SourceKind::Registry => e.source.registry.clone().unwrap_or_default(),
                    SourceKind::Local => "local".into(),
                    SourceKind::Git => e.source.registry.clone().unwrap_or_else(|| "git".into()),
                },
                e.description.clone(),
            ]
        })
        .collect();
    let header = ["NAME", "VERSION", "ACTIVE", "RISK", "SOURCE", "DESCRIPTION"].map(String::from);
    let mut widths = header.each_ref().map(String::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let line: Vec<String> = row
            .iter()
            .zip(widths)
            .enumerate()
            .map(|(i, (cell, w))| {
                if i + 1 == row.len() {
                    cell.clone()
                } else {
                    format!("{cell:<w$}")
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}
