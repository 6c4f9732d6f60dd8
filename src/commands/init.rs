//! `orla init [DIR]`: makes a directory an orla project by writing an
//! orla.yaml with every RFC 1 option at its default, each explained, and
//! a `.gitignore` (or the lines it lacks) that keeps installed packages and
//! `.orla/` out of git. An existing orla.yaml is never overwritten.

use std::io::Write;

use crate::cli::InitArgs;
use crate::context::Context;
use crate::error::Error;
use crate::progress::{Event, Warning};
use crate::project::{init_template, CONFIG_FILE};

pub fn run(ctx: &Context, args: &InitArgs) -> Result<(), Error> {
    // `orla init .` should not print `/./` in paths.
    let dir = ctx.absolute(&args.dir);
    let denied = |e: &std::io::Error| {
        (e.kind() == std::io::ErrorKind::PermissionDenied)
            .then(|| "pass a directory you may write to: `orla init DIR`".to_string())
    };
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::other(format!("cannot create {}: {e}", dir.display()), denied(&e)))?;
    let path = dir.join(CONFIG_FILE);
    // create_new: refusing to overwrite cannot race with another writer.
    let mut file = match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(Error::other(
                format!("{} already exists", path.display()),
                Some("orla init never overwrites it; edit it, or delete it to start again".into()),
            ))
        }
        Err(e) => {
            return Err(Error::other(
                format!("cannot create {}: {e}", path.display()),
                denied(&e),
            ))
        }
    };
    if let Err(e) = file
        .write_all(init_template().as_bytes())
        .and_then(|()| file.sync_all())
    {
        let _ = std::fs::remove_file(&path);
        return Err(Error::other(
            format!("cannot write {}: {e}", path.display()),
            None,
        ));
    }
    ctx.reporter.report(Event::ProjectCreated {
        path: path.display().to_string(),
    });
    // A project inside another one hides the outer one from commands run
    // below it (discovery stops at the nearest orla.yaml).
    if let Some(outer) = dir
        .ancestors()
        .skip(1)
        .map(|d| d.join(CONFIG_FILE))
        .find(|p| p.is_file())
    {
        ctx.reporter.report(Event::Warning(Warning::NestedProject {
            outer: outer.display().to_string(),
        }));
    }
    // As `cargo init` ignores target/: the packages `orla install`
    // recreates from orla.lock, and `.orla/`, are not committed.
    let lines = crate::project::gitignore::lines(crate::project::DEFAULT_TOOLS_DIR);
    match crate::project::gitignore::ignore_installed(&dir, &lines) {
        Ok(Some(change)) => ctx.reporter.report(Event::GitignoreUpdated {
            path: change.path.display().to_string(),
            created: change.created,
            added: change.added,
        }),
        Ok(None) => {}
        Err(e) => ctx.reporter.warn(&format!(
            "cannot update {}: {e}; add {} to it so installed packages are not committed",
            dir.join(".gitignore").display(),
            lines.join(" and ")
        )),
    }
    // From elsewhere, the next command runs in the project.
    let cd = if dir == ctx.cwd {
        String::new()
    } else {
        format!("cd {} && ", super::shell_quote(&dir.display().to_string()))
    };
    ctx.reporter.status(
        "Next",
        &format!("`{cd}orla install NAME@VERSION` adds a tool to orla.yaml and orla.lock"),
    );
    Ok(())
}
