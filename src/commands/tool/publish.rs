//! `orla tool publish DIR --index LOCATION` and `orla tool yank
//! NAME@VERSION --index LOCATION`: index writes (`index::publish`).

use std::path::PathBuf;

use serde_json::json;

use super::load;
use crate::cli::{PublishArgs, YankArgs};
use crate::commands::write_stdout;
use crate::context::Context;
use crate::error::Error;
use crate::index::publish::{self, IndexTarget, IndexWriter};

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
