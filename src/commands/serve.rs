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
        let dir = ctx.absolute(dir);
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
    let token = if args.stdio { None } else { token(ctx, args)? };
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
    options.token = token;
    options.max_calls = args.max_calls.max(1);
    options.max_sessions = args.max_sessions.max(1);
    options.session_idle = std::time::Duration::from_secs(args.session_idle.max(1));
    Ok(orla_runtime::serve(options)?)
}

/// The bearer token HTTP clients must send: `--token-file`, else
/// `ORLA_SERVE_TOKEN`, else one made up now (`--generate-token`, printed
/// once). Binding anything but loopback requires one.
fn token(ctx: &Context, args: &ServeArgs) -> Result<Option<String>, Error> {
    let token = if let Some(file) = &args.token_file {
        let path = ctx.cwd.join(file);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            Error::usage(
                format!("--token-file: cannot read {}: {e}", path.display()),
                Some("name a file holding the token on one line".into()),
            )
        })?;
        Some(text.trim().to_string())
    } else if args.generate_token {
        let token = orla_runtime::generate_token()
            .map_err(|e| Error::other(format!("cannot make up a token: {e}"), None))?;
        super::output::write_stdout_text(&format!("{token}\n"))?;
        Some(token)
    } else {
        ctx.serve_token.clone()
    };
    if let Some(t) = &token {
        if t.len() < 16 || t.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(Error::usage(
                "the bearer token must be at least 16 characters, without spaces".to_string(),
                Some("`orla serve --generate-token` makes one up".into()),
            ));
        }
    }
    if token.is_none() && !args.host.is_loopback() {
        return Err(Error::usage(
            format!(
                "serving on {} exposes every tool to the network, which needs a bearer token",
                args.host
            ),
            Some("pass --token-file FILE or --generate-token, or set ORLA_SERVE_TOKEN".into()),
        ));
    }
    Ok(token)
}
