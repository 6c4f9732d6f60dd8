//! `orla uninstall NAME` (every version) or `NAME@VERSION`.

use crate::cli::UninstallArgs;
use crate::context::Context;
use crate::error::Error;
use crate::package::names;
use crate::resolve::{Requirement, Spec};
use crate::store::{Store, StoreError};

pub fn run(ctx: &Context, args: &UninstallArgs) -> Result<(), Error> {
    let root = ctx.root()?;
    let specs = args
        .specs
        .iter()
        .map(|s| Spec::parse(s))
        .collect::<Result<Vec<_>, _>>()?;
    let reporter = ctx.reporter.as_ref();
    let store = Store::open(&root, reporter)?;
    let installed = root.scan(reporter)?;

    // Decide everything before removing anything: a bad spec changes nothing.
    let mut doomed = Vec::new();
    for spec in &specs {
        let matches: Vec<_> = installed
            .iter()
            .filter(|p| p.receipt.name == spec.name)
            .filter(|p| match &spec.requirement {
                Requirement::Latest => spec.raw.is_none(),
                Requirement::Exact(v) => p.receipt.version == *v,
                Requirement::Range(r) => r.matches(&p.receipt.version),
            })
            .collect();
        if matches.is_empty() {
            let versions: Vec<String> = installed
                .iter()
                .filter(|p| p.receipt.name == spec.name)
                .map(|p| p.receipt.version.to_string())
                .collect();
            let what = if versions.is_empty() {
                spec.name.clone()
            } else {
                format!("{spec} (installed: {})", versions.join(", "))
            };
            return Err(StoreError::NotInstalled { what }.into());
        }
        for p in matches {
            if !doomed
                .iter()
                .any(|(n, v)| *n == p.receipt.name && *v == p.receipt.version)
            {
                doomed.push((p.receipt.name.clone(), p.receipt.version.clone()));
            }
        }
    }
    for (name, version) in &doomed {
        names::validate_name(name).map_err(|e| Error::other(e, None))?;
        store.remove(name, version)?;
    }
    store.sync_manifest(reporter)?;
    for (name, version) in &doomed {
        reporter.status("Removed", &format!("{name} {version}"));
    }
    Ok(())
}
