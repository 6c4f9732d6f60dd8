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
use crate::progress::Event;

fn open_index(ctx: &Context, location: &str) -> Result<IndexWriter, Error> {
    let target = IndexTarget::parse(location, &ctx.cwd)?;
    Ok(IndexWriter::open(
        target,
        &ctx.cache_dir.join("locks"),
        ctx.reporter.as_ref(),
    )?)
}

pub fn publish(ctx: &Context, args: &PublishArgs) -> Result<(), Error> {
    let dir: PathBuf = ctx.absolute(&args.dir);
    let package = load(ctx, &dir)?;
    let (_, bytes) = crate::package::pack::pack_to_vec(&dir)?;
    let writer = open_index(ctx, &args.index)?;
    let done = publish::publish(&writer, &package, &bytes, args.init)?;
    if args.json {
        write_stdout(format!("{:#}\n", json!(done)).as_bytes())?;
    }
    let (name, version) = (package.name.clone(), package.version.to_string());
    let location = writer.location().to_string();
    if !done.changed {
        ctx.reporter.report(Event::AlreadyPublished {
            name,
            version,
            location,
        });
        return Ok(());
    }
    let uncommitted_in = match &done.commit {
        Some(_) => None,
        None => writer
            .enclosing_worktree()
            .map(|worktree| worktree.display().to_string()),
    };
    ctx.reporter.report(Event::Published {
        name,
        version,
        location,
        blake3: done.record.blake3.to_hex(),
        size: done.record.size,
        archive: done.archive,
        commit: done.commit,
        uncommitted_in,
    });
    Ok(())
}

pub fn yank(ctx: &Context, args: &YankArgs) -> Result<(), Error> {
    let (name, version) = publish::parse_exact(&args.spec)?;
    let writer = open_index(ctx, &args.index)?;
    let done = publish::yank(&writer, &name, &version, !args.undo)?;
    let (name, version, yanked) = (name.to_string(), version.to_string(), !args.undo);
    if !done.changed {
        ctx.reporter.report(Event::AlreadyYanked {
            name,
            version,
            yanked,
        });
        return Ok(());
    }
    ctx.reporter.report(Event::Yanked {
        name,
        version,
        location: writer.location().to_string(),
        yanked,
        commit: done.commit,
    });
    Ok(())
}
