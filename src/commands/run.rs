//! `orla run NAME[@REQ] -- ARGS`: run a registry tool once without
//! installing it (`install::run` makes a verified copy ready in the
//! cache); the tool then replaces orla, with stdin, stdout, stderr and the
//! exit status its own.

use crate::cli::RunArgs;
use crate::context::Context;
use crate::error::run::RunError;
use crate::error::Error;
use crate::progress::Event;
use crate::resolve::Spec;

pub fn run(ctx: &Context, args: &RunArgs) -> Result<(), Error> {
    let spec = Spec::parse(&args.spec)?;
    let ready = crate::ops::run::prepare(ctx, &spec, args.registry.as_deref(), args.yes)?;
    let mut argv = ready.argv;
    argv.extend(args.args.iter().cloned());
    ctx.reporter.report(Event::Running {
        name: ready.name.clone(),
        version: ready.version.clone(),
        cached: ready.cached,
    });
    let mut command = std::process::Command::new(&argv[0]);
    command.args(&argv[1..]).envs(&ready.env);
    exec(command, &argv[0])
}

#[cfg(unix)]
fn exec(mut command: std::process::Command, program: &str) -> Result<(), Error> {
    use std::os::unix::process::CommandExt;
    let source = command.exec();
    Err(RunError::Exec {
        program: program.to_string(),
        source,
    }
    .into())
}

#[cfg(not(unix))]
fn exec(mut command: std::process::Command, program: &str) -> Result<(), Error> {
    let status = command.status().map_err(|source| RunError::Exec {
        program: program.to_string(),
        source,
    })?;
    std::process::exit(status.code().unwrap_or(1));
}
