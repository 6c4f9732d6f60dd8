//! `orla update [NAME...] [--dry-run]`: moves installed tools to the
//! newest version allowed (`install::update` plans and applies it).

use crate::cli::UpdateArgs;
use crate::context::Context;
use crate::error::Error;

pub fn run(ctx: &Context, args: &UpdateArgs) -> Result<(), Error> {
    for name in &args.names {
        super::tool_name("update", name)?;
    }
    let update = crate::ops::update::plan(ctx, &args.names, args.registry.as_deref())?;
    if args.dry_run {
        let mut out = String::new();
        // The plan is the data asked for: stdout, one `NAME OLD -> NEW` per line.
        for m in &update.moves {
            out.push_str(&format!("{} {} -> {}\n", m.name, m.from, m.to));
        }
        return super::write_stdout(out.as_bytes());
    }
    update.apply(ctx, args.yes)
}
