//! `orla export --format openwop|runloop|orloj [--output FILE | --bundle DIR]`:
//! the current root's tools for another runtime (the logic is in
//! `ops::export`).

use crate::cli::{ExportArgs, ExportFormat};
use crate::context::Context;
use crate::error::Error;
use crate::ops::export::{self, Format};

pub fn run(ctx: &Context, args: &ExportArgs) -> Result<(), Error> {
    let format = match args.format {
        ExportFormat::Openwop => Format::Openwop,
        ExportFormat::Runloop => Format::Runloop,
        ExportFormat::Orloj => Format::Orloj,
    };
    if args.bundle.is_some() && format != Format::Runloop {
        return Err(Error::usage(
            "--bundle writes a Runloop bundle's tools.json",
            Some("use --bundle with --format runloop, or --output FILE".into()),
        ));
    }
    let root = ctx.root()?;
    let manifest = export::served(&root, ctx.reporter.as_ref())?;
    if let Some(dir) = &args.bundle {
        export::write_bundle(&manifest, &ctx.cwd.join(dir))?;
        return Ok(());
    }
    let text = export::render(&manifest, format)?;
    match &args.output {
        Some(file) => Ok(export::write(&ctx.cwd.join(file), text.as_bytes())?),
        None => super::write_stdout_text(&text),
    }
}
