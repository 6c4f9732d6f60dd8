//! `orla run NAME[@REQ] -- ARGS`: run a registry tool once without
//! installing it (`ops::run` makes a verified copy ready in the cache and
//! sets its process up as `orla serve` runs a call); the tool then replaces
//! orla, with stdin, stdout, stderr and the exit status its own.

use crate::cli::RunArgs;
use crate::context::Context;
use crate::error::run::RunError;
use crate::error::Error;
use crate::ops::run::Start;
use crate::progress::Event;
use crate::resolve::Spec;

pub fn run(ctx: &Context, args: &RunArgs) -> Result<(), Error> {
    let spec = Spec::parse(&args.spec)?;
    let ready = crate::ops::run::prepare(ctx, &spec, args.registry.as_deref(), args.yes)?;
    let (name, version, cached) = (ready.name.clone(), ready.version.clone(), ready.cached);
    let exec = match crate::ops::run::start(ctx, ready, &args.args)? {
        Start::Help(help) => {
            let rows =
                super::table_fit(&[help.column, "DESCRIPTION"], &help.rows, ctx.stdout_width);
            return super::write_stdout_text(&format!(
                "{}\n\n{}\n\n{rows}",
                help.title, help.usage
            ));
        }
        Start::Exec(exec) => exec,
    };
    ctx.reporter.report(Event::Running {
        name,
        version,
        cached,
    });
    let mut command = exec.command;
    use std::os::unix::process::CommandExt;
    let source = command.exec();
    Err(RunError::Exec {
        program: exec.program.clone(),
        source,
    }
    .into())
}
