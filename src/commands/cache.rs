//! `orla cache dir` and `orla cache clear` (RFC 3 10.2).
//!
//! The cache holds only what can be fetched again: archives by digest
//! (`archives/`), git registry clones and their state (`registries/`), and
//! tool repositories of git-source tools (`git-tools/`). Clearing it never
//! touches an install root.

use std::path::Path;

use crate::cli::CacheCommand;
use crate::context::Context;
use crate::error::Error;

pub fn run(ctx: &Context, command: &CacheCommand) -> Result<(), Error> {
    match command {
        CacheCommand::Dir => {
            super::write_stdout(format!("{}\n", ctx.cache_dir.display()).as_bytes())
        }
        CacheCommand::Clear => clear(ctx),
    }
}

fn clear(ctx: &Context) -> Result<(), Error> {
    let dir = &ctx.cache_dir;
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            ctx.reporter
                .status("Clean", &format!("{} is already empty", dir.display()));
            return Ok(());
        }
        Err(e) => {
            return Err(Error::other(
                format!("cannot read {}: {e}", dir.display()),
                Some(format!(
                    "check that you may read {}, or set ORLA_CACHE_DIR to another directory",
                    dir.display()
                )),
            ))
        }
    };
    let mut bytes = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        bytes += size_of(&path);
        let removed = if path.is_dir() && !path.is_symlink() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        removed.map_err(|e| {
            Error::other(
                format!("cannot remove {}: {e}", path.display()),
                Some("check the permissions of the cache directory (ORLA_CACHE_DIR)".into()),
            )
        })?;
    }
    ctx.reporter.status(
        "Removed",
        &format!("{} from {}", human(bytes), dir.display()),
    );
    Ok(())
}

fn size_of(path: &Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    if meta.is_dir() {
        std::fs::read_dir(path)
            .map(|d| d.flatten().map(|e| size_of(&e.path())).sum())
            .unwrap_or(0)
    } else {
        meta.len()
    }
}

fn human(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}
