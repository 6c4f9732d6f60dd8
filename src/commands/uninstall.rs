//! `orla uninstall NAME` (every version) or `NAME@VERSION`
//! (`install::uninstall` decides and removes).

use crate::cli::UninstallArgs;
use crate::context::Context;
use crate::error::Error;
use crate::resolve::Spec;

pub fn run(ctx: &Context, args: &UninstallArgs) -> Result<(), Error> {
    let specs = args
        .specs
        .iter()
        .map(|s| Spec::parse(s))
        .collect::<Result<Vec<_>, _>>()?;
    crate::ops::uninstall::uninstall(ctx, &specs)
}
