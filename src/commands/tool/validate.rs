//! `orla tool validate [DIR] [--json]`: every problem of a package.

use std::path::PathBuf;

use serde_json::json;

use super::print_problems;
use crate::cli::ValidateArgs;
use crate::commands::write_stdout;
use crate::context::Context;
use crate::error::Error;
use crate::package::validate::{self, ValidateError};
use crate::package::{Problem, Severity, TOOL_YAML};
use crate::progress::Event;

pub fn validate(ctx: &Context, args: &ValidateArgs) -> Result<(), Error> {
    let dir: PathBuf = ctx.absolute(&args.dir);
    let manifest = dir.join(TOOL_YAML).display().to_string();
    let (tool, problems) = match validate::check(&dir) {
        Ok(checked) => checked,
        Err(e) => {
            if args.json {
                let problem = Problem {
                    severity: Severity::Error,
                    field: TOOL_YAML.into(),
                    message: e.to_string(),
                    hint: e.hint(),
                };
                let out = json!({"path": manifest, "valid": false, "errors": 1, "warnings": 0, "problems": [problem]});
                write_stdout(format!("{out:#}\n").as_bytes())?;
            }
            return Err(e.into());
        }
    };
    let errors = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .count();
    let warnings = problems.len() - errors;
    if args.json {
        let out = json!({
            "path": manifest,
            "name": tool.name,
            "version": tool.version,
            "valid": errors == 0,
            "errors": errors,
            "warnings": warnings,
            "problems": problems,
        });
        write_stdout(format!("{out:#}\n").as_bytes())?;
    } else {
        print_problems(ctx, &problems);
    }
    if errors > 0 {
        return Err(ValidateError::Failed {
            path: manifest,
            errors,
            warnings,
        }
        .into());
    }
    ctx.reporter.report(Event::Valid {
        name: tool.name.unwrap_or_default(),
        version: tool.version.unwrap_or_default(),
        warnings,
    });
    Ok(())
}
