//! `orla tool validate | pack | publish | yank` (scaffold lives in
//! `scaffold.rs`): thin wrappers around `package` and `index::publish`.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::write_stdout;
use crate::cli::{PackArgs, PublishArgs, ValidateArgs, YankArgs};
use crate::context::Context;
use crate::error::Error;
use crate::index::publish::{self, IndexTarget, IndexWriter};
use crate::package::{validate, Package, PackageError, Problem, Severity, ToolYaml, TOOL_YAML};
use crate::verify::Digest;

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

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

pub fn validate(ctx: &Context, args: &ValidateArgs) -> Result<(), Error> {
    let dir: PathBuf = ctx.cwd.join(&args.dir).components().collect();
    let manifest = dir.join(TOOL_YAML).display().to_string();
    let tool = match ToolYaml::read(&dir) {
        Ok(tool) => tool,
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
    let problems = validate::validate(&tool, Some(&dir));
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
        return Err(Error::other(
            format!(
                "{manifest} has {} and {}",
                plural(errors, "error"),
                plural(warnings, "warning")
            ),
            Some("fix the errors above; each names its field".into()),
        ));
    }
    let label = format!(
        "{} {}",
        tool.name.unwrap_or_default(),
        tool.version.unwrap_or_default()
    );
    let suffix = if warnings > 0 {
        format!(" ({})", plural(warnings, "warning"))
    } else {
        String::new()
    };
    ctx.reporter.status("Valid", &format!("{label}{suffix}"));
    Ok(())
}

/// Loads a package for pack or publish, showing its warnings.
fn load(ctx: &Context, dir: &Path) -> Result<Package, Error> {
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

pub fn pack(ctx: &Context, args: &PackArgs) -> Result<(), Error> {
    let dir: PathBuf = ctx.cwd.join(&args.dir).components().collect();
    load(ctx, &dir)?;
    let (packed, bytes) = crate::package::pack::pack_to_vec(&dir)?;
    let out: PathBuf = match &args.output {
        Some(path) => {
            let path = ctx.cwd.join(path);
            if path.is_dir() {
                path.join(&packed.file_name)
            } else {
                path
            }
        }
        None => ctx.cwd.join(&packed.file_name),
    };
    crate::fs::atomic_write(&out, &bytes).map_err(|e| {
        Error::other(
            format!("cannot write {}: {e}", out.display()),
            Some("pass --output with a file or directory you may write to".into()),
        )
    })?;
    let digest = Digest::of(&bytes);
    if args.json {
        let out = json!({
            "name": packed.name,
            "version": packed.version.to_string(),
            "path": out.display().to_string(),
            "blake3": digest.to_hex(),
            "size": bytes.len(),
            "files": packed.files,
        });
        write_stdout(format!("{out:#}\n").as_bytes())?;
    } else {
        ctx.reporter.status(
            "Packed",
            &format!(
                "{} {} ({}) to {}",
                packed.name,
                packed.version,
                plural(packed.files.len(), "file"),
                out.display()
            ),
        );
        write_stdout(
            format!(
                "path:   {}\nblake3: {}\nsize:   {}\n",
                out.display(),
                digest.to_hex(),
                bytes.len()
            )
            .as_bytes(),
        )?;
    }
    Ok(())
}

fn open_index(ctx: &Context, location: &str) -> Result<IndexWriter, Error> {
    let target = IndexTarget::parse(location, &ctx.cwd)?;
    Ok(IndexWriter::open(
        target,
        &ctx.cache_dir.join("locks"),
        ctx.reporter.as_ref(),
    )?)
}

pub fn publish(ctx: &Context, args: &PublishArgs) -> Result<(), Error> {
    let dir: PathBuf = ctx.cwd.join(&args.dir).components().collect();
    let package = load(ctx, &dir)?;
    let (_, bytes) = crate::package::pack::pack_to_vec(&dir)?;
    let writer = open_index(ctx, &args.index)?;
    let done = publish::publish(&writer, &package, &bytes, args.init)?;
    let label = format!("{} {}", package.name, package.version);
    if args.json {
        write_stdout(format!("{:#}\n", json!(done)).as_bytes())?;
    }
    if !done.changed {
        ctx.reporter.status(
            "Unchanged",
            &format!(
                "{label} is already published in {} with these bytes",
                writer.location()
            ),
        );
        return Ok(());
    }
    ctx.reporter.status(
        "Published",
        &format!(
            "{label} to {} (blake3 {}, {} bytes, archive {})",
            writer.location(),
            done.record.blake3.to_hex(),
            done.record.size,
            done.archive
        ),
    );
    if let Some(commit) = &done.commit {
        ctx.reporter.status(
            "Committed",
            &format!("{} \"Publish {label}\"", &commit[..commit.len().min(12)]),
        );
    } else if let Some(worktree) = writer.enclosing_worktree() {
        ctx.reporter.status(
            "Note",
            &format!(
                "the index is a directory inside the git repository {}; commit the published files with your change",
                worktree.display()
            ),
        );
    }
    Ok(())
}

pub fn yank(ctx: &Context, args: &YankArgs) -> Result<(), Error> {
    let (name, version) = publish::parse_exact(&args.spec)?;
    let writer = open_index(ctx, &args.index)?;
    let done = publish::yank(&writer, &name, &version, !args.undo)?;
    let label = format!("{name} {version}");
    let state = if args.undo { "not yanked" } else { "yanked" };
    if !done.changed {
        ctx.reporter
            .status("Unchanged", &format!("{label} is already {state}"));
        return Ok(());
    }
    let verb = if args.undo { "Unyanked" } else { "Yanked" };
    ctx.reporter
        .status(verb, &format!("{label} in {}", writer.location()));
    if let Some(commit) = &done.commit {
        ctx.reporter
            .status("Committed", &commit[..commit.len().min(12)]);
    }
    Ok(())
}
