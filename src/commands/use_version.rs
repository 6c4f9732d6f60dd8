//! `orla use NAME@VERSION`, `orla use NAME`: which installed version the
//! manifest serves (`install::use_version` keeps the choice).

use crate::cli::UseArgs;
use crate::context::Context;
use crate::error::Error;
use crate::resolve::Spec;

pub fn run(ctx: &Context, args: &UseArgs) -> Result<(), Error> {
    let spec = Spec::parse(&args.spec)?;
    crate::ops::use_version::use_version(ctx, &spec, args.global)
}
