//! `orla serve [--stdio]`: serves the current root's runtime manifest
//! through the runtime crate (`orla-runtime`), which reads nothing else of
//! orla; what it serves is checked against the store first and on every
//! change (`ops::serve`).

use crate::cli::ServeArgs;
use crate::context::Context;
use crate::error::Error;

pub fn run(ctx: &Context, args: &ServeArgs) -> Result<(), Error> {
    let root = if args.global {
        ctx.global_root()
    } else if let Some(dir) = &args.project {
        let dir = ctx.cwd.join(dir);
        match crate::project::Project::find(&dir)? {
            Some(project) => ctx.project_root(&project),
            None => {
                return Err(Error::usage(
                    format!(
                        "--project: there is no orla.yaml in {} or its parents",
                        dir.display()
                    ),
                    Some(format!(
                        "run `orla init {}` to make it a project",
                        dir.display()
                    )),
                ))
            }
        }
    } else {
        ctx.root()?
    };
    let source = crate::ops::serve::Checked::start(root, ctx.reporter.as_ref())?;
    let transport = if args.stdio {
        orla_runtime::Transport::Stdio
    } else {
        orla_runtime::Transport::Http {
            host: args.host,
            port: args.port,
        }
    };
    let mut options = orla_runtime::Options::new(std::sync::Arc::new(source), transport);
    options.log_format = args.log_format.clone();
    options.log_level = args.log_level.clone();
    options.allowed_origins = args.allow_origin.clone();
    options.max_calls = args.max_calls.max(1);
    options.max_sessions = args.max_sessions.max(1);
    options.session_idle = std::time::Duration::from_secs(args.session_idle.max(1));
    Ok(orla_runtime::serve(options)?)
}
