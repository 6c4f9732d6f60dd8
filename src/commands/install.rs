//! `orla install SPEC... | --local PATH`: the operation is in `install`.

use crate::cli::InstallArgs;
use crate::context::Context;
use crate::error::Error;
use crate::ops::install::{self, Request};

pub fn run(ctx: &Context, args: &InstallArgs) -> Result<(), Error> {
    install::install(ctx, &request(args))
}

pub(crate) fn request(args: &InstallArgs) -> Request {
    Request {
        specs: args.specs.clone(),
        local: args.local.clone(),
        registry: args.registry.clone(),
        force: args.force,
        yes: args.yes,
        locked: args.locked,
        frozen: args.frozen,
        strict: args.strict,
    }
}
