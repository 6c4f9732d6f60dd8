//! `orla tool validate | pack | publish | yank` (scaffold lives in
//! `scaffold.rs`): thin wrappers around `package` and `index::publish`,
//! one file each.

mod pack;
mod publish;
mod validate;

use std::path::Path;

use crate::context::Context;
use crate::error::Error;
use crate::package::validate::ValidateError;
use crate::package::{Package, PackageError, Problem, Severity};
use crate::progress::{Event, Warning};

pub use pack::pack;
pub use publish::{publish, yank};
pub use validate::validate;

/// Prints problems the way `validate` and the other commands show them:
/// errors as text (the command then fails), warnings as events.
pub(crate) fn print_problems(ctx: &Context, problems: &[Problem]) {
    for p in problems {
        match p.severity {
            Severity::Error => {
                let mut line = format!("error: {p}");
                if let Some(hint) = &p.hint {
                    line.push_str(&format!("\n    hint: {hint}"));
                }
                crate::progress::eprint_line(&line);
            }
            Severity::Warning => warn_problems(ctx, None, std::slice::from_ref(p)),
        }
    }
}

/// Reports tool.yaml warnings; `package` names the package when the
/// command handles several.
pub(crate) fn warn_problems(ctx: &Context, package: Option<&str>, warnings: &[Problem]) {
    for p in warnings {
        ctx.reporter.report(Event::Warning(Warning::ToolYaml {
            package: package.map(str::to_string),
            field: p.field.clone(),
            problem: p.message.clone(),
            hint: p.hint.clone(),
        }));
    }
}

/// Loads a package for pack or publish, showing its warnings; when it has
/// errors, each is shown with its fix before the summary that fails.
pub(super) fn load(ctx: &Context, dir: &Path) -> Result<Package, Error> {
    let package = Package::load(dir).map_err(|e| match e {
        PackageError::Invalid { path, problems, .. } => {
            print_problems(ctx, &problems);
            Error::from(ValidateError::Failed {
                path,
                errors: problems.len(),
                warnings: 0,
            })
        }
        other => other.into(),
    })?;
    warn_problems(ctx, None, &package.warnings);
    Ok(package)
}
