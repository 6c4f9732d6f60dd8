//! `orla cache dir`, `orla cache clear` (RFC 3 10.2) and `orla cache prune`.
//!
//! The cache holds only what can be fetched again: verified packages by
//! the digest of their archive (`unpacked/`, `archives/`), git registry
//! clones and sparse index files (`registries/`, `sparse/`), repositories
//! of git-source tools (`git-tools/`) and packages `orla run` fetched
//! (`run/`). Clearing or pruning it never touches an install root. Both
//! hold the cache's lock exclusively, so they wait for installs using the
//! cache, and installs wait for them. The rules are in docs/cache.md.

use std::collections::HashSet;

use crate::cli::{CacheCommand, CachePruneArgs};
use crate::context::Context;
use crate::error::Error;
use crate::fetch::{parse_size, PruneRules};
use crate::index::RegistryLocation;
use crate::progress::{Event, Warning};

pub fn run(ctx: &Context, command: &CacheCommand) -> Result<(), Error> {
    match command {
        CacheCommand::Dir => {
            super::write_stdout(format!("{}\n", ctx.cache_dir.display()).as_bytes())
        }
        CacheCommand::Clear => clear(ctx),
        CacheCommand::Prune(args) => prune(ctx, args),
    }
}

fn clear(ctx: &Context) -> Result<(), Error> {
    let dir = &ctx.cache_dir;
    if !dir.exists() {
        ctx.reporter.report(Event::CacheEmpty {
            path: dir.display().to_string(),
        });
        return Ok(());
    }
    let bytes = ctx.cache().clear(ctx.reporter.as_ref())?;
    ctx.reporter.report(Event::CacheCleared {
        path: dir.display().to_string(),
        bytes,
    });
    Ok(())
}

fn prune(ctx: &Context, args: &CachePruneArgs) -> Result<(), Error> {
    let max_age = crate::config::parse_ttl(&args.max_age).map_err(|m| {
        Error::usage(
            format!("--max-age: {m}"),
            Some("write a duration such as 30d, 12h or 90m (0: any age)".into()),
        )
    })?;
    let max_size = match &args.max_size {
        Some(text) => Some(parse_size(text).map_err(|m| {
            Error::usage(
                format!("--max-size: {m}"),
                Some("write bytes or a size with a unit, e.g. --max-size 2G".into()),
            )
        })?),
        None => ctx.cache_max_size,
    };
    let dir = &ctx.cache_dir;
    if !dir.exists() {
        ctx.reporter.report(Event::CacheEmpty {
            path: dir.display().to_string(),
        });
        return Ok(());
    }
    let rules = PruneRules {
        max_age,
        configured: configured_registries(ctx),
    };
    let (freed, left) = ctx
        .cache()
        .prune_now(&rules, max_size, ctx.reporter.as_ref())?;
    ctx.reporter.report(Event::CachePruned {
        path: dir.display().to_string(),
        entries: freed.entries,
        bytes: freed.bytes,
        left,
    });
    Ok(())
}

/// The cache names of the registries configured here (the project's, the
/// user's, the default and the public one): their clones are kept. `None`
/// when they cannot be read: every clone is kept.
fn configured_registries(ctx: &Context) -> Option<HashSet<String>> {
    let mut names = HashSet::new();
    let registries = match ctx.registries(None) {
        Ok(r) => r,
        Err(e) => {
            ctx.reporter
                .report(Event::Warning(Warning::RegistriesUnread {
                    problem: e.to_string(),
                }));
            return None;
        }
    };
    for slot in &registries.slots {
        let url = match RegistryLocation::parse(&slot.location, &ctx.cwd) {
            Ok(RegistryLocation::Git(url)) => url,
            Ok(RegistryLocation::Sparse(url)) if url.ends_with('/') => url,
            Ok(RegistryLocation::Sparse(url)) => format!("{url}/"),
            _ => continue,
        };
        names.insert(crate::git::cache_name(&url));
    }
    Some(names)
}
