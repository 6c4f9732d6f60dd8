//! `orla tool validate | pack | publish | yank` (scaffold lives in
//! `scaffold.rs`): thin wrappers around `package` and `index::publish`,
//! one file each.

mod pack;
mod publish;
mod validate;

use std::path::Path;

use crate::context::Context;
use crate::error::Error;
use crate::package::{Package, PackageError, Problem, Severity};

pub use pack::pack;
pub use publish::{publish, yank};
pub use validate::validate;

/// Prints problems the way `validate` and the other commands show them.
pub(crate) fn print_problems(ctx: &Context, problems: &[Problem]) {
    for p in problems {
        let mut line = format!("{p}");
        if let Some(hint) = &p.hint {
            line.push_str(&format!("\n    hint: {hint}"));
        }
        match p.severity {
            Severity::Error => crate::progress::eprint_line(&format!("error: {line}")),
            Severity::Warning => ctx.reporter.warn(&line),
        }
    }
}

/// Loads a package for pack or publish, showing its warnings.
pub(super) fn load(ctx: &Context, dir: &Path) -> Result<Package, Error> {
    let package = Package::load(dir).map_err(|e| match e {
        PackageError::Invalid { ref problems, .. } => {
            print_problems(ctx, problems);
            Error::from(e)
        }
        other => other.into(),
    })?;
    for w in &package.warnings {
        ctx.reporter.warn(&w.to_string());
    }
    Ok(package)
}
