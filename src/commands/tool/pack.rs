//! `orla tool pack [DIR] [--output PATH] [--json]`: the deterministic
//! archive of a package (`package::pack`), its digest and size.

use std::path::PathBuf;

use serde_json::json;

use super::load;
use crate::cli::PackArgs;
use crate::commands::write_stdout;
use crate::context::Context;
use crate::error::Error;
use crate::progress::Event;
use crate::verify::Digest;

pub fn pack(ctx: &Context, args: &PackArgs) -> Result<(), Error> {
    let dir: PathBuf = ctx.absolute(&args.dir);
    load(ctx, &dir)?;
    let output = args.output.as_ref().map(|p| ctx.absolute(p));
    let (packed, out, bytes) =
        crate::package::pack::pack_to_file(&dir, output.as_deref(), &ctx.cwd)?;
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
        ctx.reporter.report(Event::Packed {
            name: packed.name.clone(),
            version: packed.version.to_string(),
            files: packed.files.len(),
            path: out.display().to_string(),
        });
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
