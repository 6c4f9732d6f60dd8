//! `orla migrate capsule PATH | --all DIR`: RFC 2 capsules to tool.yaml.
//!
//! For each capsule: convert (`migrate::capsule`), validate the result as
//! it would be written, and only then write tool.yaml and set the old
//! manifest aside (`orla-tool.json.bak`, or delete it with
//! `--remove-legacy`). Any error leaves the capsule exactly as it was. A
//! capsule already migrated (tool.yaml present, no orla-tool.json) is
//! reported and left alone, so running the command twice is harmless.

use std::path::{Path, PathBuf};

use super::tool::print_problems;
use super::write_stdout;
use crate::cli::MigrateCapsuleArgs;
use crate::context::Context;
use crate::error::Error;
use crate::fs::atomic_write;
use crate::migrate::capsule::{self, DescriptionSource, Fate, BACKUP_FILE, LEGACY_FILE};
use crate::package::{validate, Severity, TOOL_YAML};

pub fn capsule(ctx: &Context, args: &MigrateCapsuleArgs) -> Result<(), Error> {
    if let Some(root) = &args.all {
        return all(ctx, &ctx.cwd.join(root), args);
    }
    let path = ctx
        .cwd
        .join(args.path.as_ref().expect("clap requires PATH or --all"));
    let dir = if path.file_name().is_some_and(|n| n == LEGACY_FILE) && path.is_file() {
        path.parent().expect("a file has a parent").to_path_buf()
    } else {
        path
    };
    one(ctx, &dir, args).map(|_| ())
}

enum Outcome {
    Migrated,
    AlreadyDone,
}

fn one(ctx: &Context, dir: &Path, args: &MigrateCapsuleArgs) -> Result<Outcome, Error> {
    let shown = dir.display().to_string();
    if !dir.is_dir() {
        return Err(Error::other(
            format!("{shown} {}", not_a_directory(dir)),
            Some("name a capsule directory holding orla-tool.json".into()),
        ));
    }
    let legacy = dir.join(LEGACY_FILE);
    let tool_yaml = dir.join(TOOL_YAML);
    if !legacy.exists() {
        if tool_yaml.is_file() {
            ctx.reporter.status(
                "Unchanged",
                &format!("{shown} has tool.yaml and no orla-tool.json: already migrated"),
            );
            return Ok(Outcome::AlreadyDone);
        }
        return Err(Error::other(
            format!("{shown} has no orla-tool.json"),
            Some("an RFC 2 capsule is a directory with orla-tool.json at its root".into()),
        ));
    }
    let origin = legacy.display().to_string();
    let text = std::fs::read_to_string(&legacy).map_err(|e| {
        Error::other(
            format!("cannot read {origin}: {e}"),
            Some("orla-tool.json must be a readable UTF-8 text file".into()),
        )
    })?;
    let readme = [
        "README.md",
        "README",
        "readme.md",
        "Readme.md",
        "README.txt",
    ]
    .iter()
    .find_map(|n| std::fs::read_to_string(dir.join(n)).ok());
    let migration = capsule::migrate(&text, &origin, readme.as_deref())?;
    let yaml = migration.to_yaml();

    // Validate what would be written, against the files really there.
    let problems = validate::validate(&migration.tool, Some(dir));
    if problems.iter().any(|p| p.severity == Severity::Error) {
        print_problems(ctx, &problems);
        let errors: Vec<String> = problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .map(|p| p.to_string())
            .collect();
        return Err(Error::other(
            format!(
                "{origin} cannot be migrated: the tool.yaml would be invalid: {}",
                errors.join("; ")
            ),
            Some(
                "fix the capsule (see above), then run the migration again; nothing was changed"
                    .into(),
            ),
        ));
    }

    if args.dry_run {
        report(ctx, &shown, &migration);
        ctx.reporter.status(
            "Dry run",
            &format!("nothing written; tool.yaml for {shown} follows on stdout"),
        );
        if args.all.is_some() {
            // Several documents on one stream: separate and label them.
            write_stdout(format!("--- # {shown}\n").as_bytes())?;
        }
        write_stdout(yaml.as_bytes())?;
        return Ok(Outcome::Migrated);
    }

    // Refuse before touching anything.
    if let Ok(existing) = std::fs::read_to_string(&tool_yaml) {
        if existing != yaml && !args.force {
            return Err(Error::other(
                format!("{shown} already has a tool.yaml that differs from the migrated one"),
                Some("compare with --dry-run, then remove tool.yaml or pass --force".into()),
            ));
        }
    }
    let backup = dir.join(BACKUP_FILE);
    if !args.remove_legacy {
        if let Ok(old) = std::fs::read_to_string(&backup) {
            if old != text {
                return Err(Error::other(
                    format!(
                        "{} exists and differs from orla-tool.json",
                        backup.display()
                    ),
                    Some("move the old backup away, or pass --remove-legacy".into()),
                ));
            }
        }
    }

    atomic_write(&tool_yaml, yaml.as_bytes()).map_err(|e| {
        Error::other(
            format!("cannot write {}: {e}", tool_yaml.display()),
            Some("check that you may write to the capsule's directory; nothing was changed".into()),
        )
    })?;
    let legacy_done = if args.remove_legacy {
        std::fs::remove_file(&legacy).map(|()| "removed orla-tool.json".to_string())
    } else {
        std::fs::rename(&legacy, &backup)
            .map(|()| format!("kept the old manifest as {BACKUP_FILE}"))
    };
    let legacy_done = match legacy_done {
        Ok(msg) => msg,
        Err(e) => {
            // Put things back as they were: the capsule stays an RFC 2 capsule.
            let _ = std::fs::remove_file(&tool_yaml);
            return Err(Error::other(
                format!("cannot move {origin} aside: {e}"),
                None,
            ));
        }
    };
    report(ctx, &shown, &migration);
    for p in problems.iter().filter(|p| p.severity == Severity::Warning) {
        ctx.reporter.warn(&format!("{shown}: {p}"));
    }
    ctx.reporter.status(
        "Migrated",
        &format!(
            "{shown}: wrote tool.yaml ({} {}, runtime.mode capsule); {legacy_done}",
            migration.tool.name.as_deref().unwrap_or_default(),
            migration.tool.version.as_deref().unwrap_or_default()
        ),
    );
    Ok(Outcome::Migrated)
}

/// What became of every field, and where the description came from.
fn report(ctx: &Context, shown: &str, migration: &capsule::Migration) {
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

/// Why `path` cannot be migrated as a directory.
fn not_a_directory(path: &Path) -> &'static str {
    if path.exists() {
        "is not a directory"
    } else {
        "does not exist"
    }
}

fn all(ctx: &Context, root: &Path, args: &MigrateCapsuleArgs) -> Result<(), Error> {
    if !root.is_dir() {
        return Err(Error::other(
            format!("{} {}", root.display(), not_a_directory(root)),
            Some("--all takes a tools directory holding capsules".into()),
        ));
    }
    let mut capsules = Vec::new();
    find(root, &mut capsules);
    capsules.sort();
    if capsules.is_empty() {
        ctx.reporter.status(
            "Nothing",
            &format!("no capsules (orla-tool.json) under {}", root.display()),
        );
        return Ok(());
    }
    let (mut migrated, mut failed, mut already) = (0, 0, 0);
    for dir in &capsules {
        match one(ctx, dir, args) {
            Ok(Outcome::Migrated) => migrated += 1,
            Ok(Outcome::AlreadyDone) => already += 1,
            Err(e) => {
                failed += 1;
                crate::progress::eprint_line(&e.render());
            }
        }
    }
    let verb = if args.dry_run {
        "to migrate"
    } else {
        "migrated"
    };
    let summary = format!(
        "{} capsule(s) under {}: {migrated} {verb}, {failed} failed, {already} already migrated",
        capsules.len(),
        root.display()
    );
    if failed > 0 {
        return Err(Error::other(
            summary,
            Some("the failed capsules are unchanged; fix the errors above and run again".into()),
        ));
    }
    ctx.reporter.status("Done", &summary);
    Ok(())
}

/// Capsule directories below `dir`: those holding orla-tool.json, and
/// migrated ones (tool.yaml with orla-tool.json.bak) so they are reported.
/// Hidden directories are skipped and a capsule's insides are not searched.
fn find(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.join(LEGACY_FILE).is_file()
        || (dir.join(TOOL_YAML).is_file() && dir.join(BACKUP_FILE).is_file())
    {
        out.push(dir.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
        if is_dir && !entry.file_name().to_string_lossy().starts_with('.') {
            find(&entry.path(), out);
        }
    }
}
