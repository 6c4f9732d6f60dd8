//! `orla verify [NAME] [--json]`: re-hash installed files against their
//! install receipts (the logic is in `ops::verify`).

use crate::cli::VerifyArgs;
use crate::context::Context;
use crate::error::Error;
use crate::ops::verify::{self as installed, PackageReport};
use crate::progress::Event;
use crate::root::StoreError;

pub fn run(ctx: &Context, args: &VerifyArgs) -> Result<(), Error> {
    let name = args
        .name
        .as_deref()
        .map(|n| super::tool_name("verify", n))
        .transpose()?;
    let root = ctx.root()?;
    let reporter = ctx.reporter.as_ref();
    // A root that was never written to has nothing to verify; do not create it.
    let _lock = if root.state_dir.exists() {
        Some(root.read_lock(reporter)?)
    } else {
        None
    };
    let mut reports = installed::verify_root(&root, name.as_deref())?;
    installed::verify_git_commits(&mut reports, &ctx.git_access());
    // What the installed files need from the machine: a tool whose
    // interpreter is gone fails with exit 127 however intact its files are.
    for r in reports.iter_mut().filter(|r| r.error.is_none()) {
        if let Ok(tool) = crate::package::ToolYaml::read(&r.path) {
            let checks = crate::ops::install::requirements::check(&r.path, &tool, &ctx.search_path);
            r.unmet = crate::ops::install::requirements::problems(&checks);
        }
    }
    if let Some(name) = &name {
        if reports.is_empty() {
            return Err(StoreError::NotInstalled {
                what: name.clone(),
                detail: String::new(),
            }
            .into());
        }
    }
    if args.json {
        let text = serde_json::to_string_pretty(&reports).expect("serialises") + "\n";
        super::write_stdout(text.as_bytes())?;
    } else {
        super::write_stdout(text(&reports).as_bytes())?;
    }
    installed::outcome(&reports)?;
    ctx.reporter.report(Event::ReceiptsMatch {
        packages: reports.len(),
    });
    Ok(())
}

fn text(reports: &[PackageReport]) -> String {
    let mut out = String::new();
    for r in reports {
        if let Some(error) = &r.error {
            let error = crate::progress::printable(error);
            out.push_str(&format!("{} {}: {error}\n", r.name, r.version));
        } else if r.differences.is_empty() && !r.unmet.is_empty() {
            for problem in &r.unmet {
                let problem = crate::progress::printable(problem);
                out.push_str(&format!("{} {}: {problem}\n", r.name, r.version));
            }
        } else if r.differences.is_empty() {
            out.push_str(&format!(
                "{} {}: ok ({} files)\n",
                r.name, r.version, r.files
            ));
        } else {
            let n = r.differences.len();
            out.push_str(&format!(
                "{} {}: {n} difference{}\n",
                r.name,
                r.version,
                if n == 1 { "" } else { "s" }
            ));
            for d in &r.differences {
                let d = crate::progress::printable(&d.to_string()).into_owned();
                out.push_str(&format!("  {d}\n"));
            }
        }
    }
    out
}
