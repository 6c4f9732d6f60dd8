//! `orla migrate capsule PATH | --all DIR`: RFC 2 capsules to tool.yaml
//! (`migrate::directory` converts, checks and writes each one), reporting
//! what became of every field.

use std::path::Path;

use super::tool::print_problems;
use super::write_stdout;
use crate::cli::MigrateCapsuleArgs;
use crate::context::Context;
use crate::error::Error;
use crate::migrate::capsule::{CapsuleError, DescriptionSource, Fate, Migration, LEGACY_FILE};
use crate::migrate::directory::{self, MigrateError, Options, Step, Summary};

pub fn capsule(ctx: &Context, args: &MigrateCapsuleArgs) -> Result<(), Error> {
    if let Some(root) = &args.all {
        return all(ctx, &ctx.absolute(root), args);
    }
    let path = ctx.absolute(args.path.as_ref().expect("clap requires PATH or --all"));
    let dir = if path.file_name().is_some_and(|n| n == LEGACY_FILE) && path.is_file() {
        path.parent().expect("a file has a parent").to_path_buf()
    } else {
        path
    };
    one(ctx, &dir, args).map(|_| ())
}

/// Migrates one capsule; `Ok(false)` when it was migrated before.
fn one(ctx: &Context, dir: &Path, args: &MigrateCapsuleArgs) -> Result<bool, Error> {
    let shown = dir.display().to_string();
    let prepared = match directory::prepare(dir) {
        Ok(Step::Ready(prepared)) => prepared,
        Ok(Step::AlreadyDone) => {
            ctx.reporter.status(
                "Unchanged",
                &format!("{shown} has tool.yaml and no orla-tool.json: already migrated"),
            );
            return Ok(false);
        }
        Err(e) => {
            match &e {
                MigrateError::Invalid { problems, .. } => print_problems(ctx, problems),
                MigrateError::Capsule(CapsuleError::Several { problems, .. }) => {
                    let problems: Vec<_> =
                        problems.iter().map(CapsuleError::field_problem).collect();
                    print_problems(ctx, &problems);
                }
                _ => {}
            }
            return Err(e.into());
        }
    };
    if args.dry_run {
        report(ctx, &shown, &prepared.migration);
        ctx.reporter.status(
            "Dry run",
            &format!("nothing written; tool.yaml for {shown} follows on stdout"),
        );
        if args.all.is_some() {
            // Several documents on one stream: separate and label them.
            write_stdout(format!("--- # {shown}\n").as_bytes())?;
        }
        write_stdout(prepared.yaml.as_bytes())?;
        return Ok(true);
    }
    let options = Options {
        force: args.force,
        remove_legacy: args.remove_legacy,
    };
    let legacy = prepared.write(options)?;
    report(ctx, &shown, &prepared.migration);
    super::tool::warn_problems(ctx, Some(&shown), &prepared.warnings);
    let tool = &prepared.migration.tool;
    ctx.reporter.status(
        "Migrated",
        &format!(
            "{shown}: wrote tool.yaml ({} {}, runtime.mode capsule); {legacy}",
            tool.name.as_deref().unwrap_or_default(),
            tool.version.as_deref().unwrap_or_default()
        ),
    );
    Ok(true)
}

/// What became of every field, and where the description came from.
fn report(ctx: &Context, shown: &str, migration: &Migration) {
    for r in &migration.report {
        match &r.fate {
            Fate::Dropped { .. } => ctx.reporter.warn(&format!("{shown}: {r}")),
            Fate::Mapped { .. } => ctx.reporter.status("Mapped", &r.to_string()),
        }
    }
    let description = match migration.description_from {
        DescriptionSource::Manifest => "taken from orla-tool.json",
        DescriptionSource::Readme => "taken from the README",
        DescriptionSource::Placeholder => {
            "a placeholder (no README): replace it, `orla tool validate` warns until then"
        }
    };
    ctx.reporter
        .status("Described", &format!("description: {description}"));
}

fn all(ctx: &Context, root: &Path, args: &MigrateCapsuleArgs) -> Result<(), Error> {
    let capsules = directory::find_all(root)?;
    if capsules.is_empty() {
        ctx.reporter.status(
            "Nothing",
            &format!("no capsules (orla-tool.json) under {}", root.display()),
        );
        return Ok(());
    }
    let mut summary = Summary {
        root: root.to_path_buf(),
        total: capsules.len(),
        migrated: 0,
        failed: 0,
        already: 0,
        dry_run: args.dry_run,
    };
    for dir in &capsules {
        match one(ctx, dir, args) {
            Ok(true) => summary.migrated += 1,
            Ok(false) => summary.already += 1,
            Err(e) => {
                summary.failed += 1;
                crate::progress::eprint_line(&e.render());
            }
        }
    }
    if summary.failed > 0 {
        return Err(MigrateError::SomeFailed(summary).into());
    }
    ctx.reporter.status("Done", &summary.to_string());
    Ok(())
}
