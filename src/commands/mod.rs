//! One thin function per command: resolve settings, call the stages.

mod cache;
mod client;
mod export;
mod info;
mod init;
mod install;
mod list;
mod migrate;
mod output;
mod run;
mod scaffold;
mod search;
mod serve;
mod tool;
mod uninstall;
mod update;
mod use_version;
mod verify;
mod which;

use clap::Parser;

use crate::cli::{Cli, Command, MessageFormat, MigrateCommand, ToolCommand};
use crate::context::Context;
use crate::error::Error;
use crate::progress::Reporter;

pub(crate) use output::{shell_quote, table, table_fit, write_stdout, write_stdout_text};

/// Entry point of the binary: parses arguments, runs the command, prints
/// any error as `error:` plus a `hint:`, and returns the exit code.
pub fn main() -> i32 {
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == "__complete")
    {
        return complete();
    }
    let cli = match Cli::try_parse().map_err(best_match_first) {
        Ok(cli) => cli,
        Err(e) => return refused(e),
    };
    let color = cli.color.forced();
    let json = cli.message_format == MessageFormat::Json;
    match run(cli) {
        Ok(()) => 0,
        Err(e) if json => {
            crate::progress::JsonLines::new(false).report(e.to_event());
            e.exit_code()
        }
        Err(e) => {
            let color = crate::context::stderr_color(color);
            crate::progress::eprint_error(&e.render(), color);
            e.exit_code()
        }
    }
}

/// `orla __complete KIND [WORD]`, which the completion scripts run on
/// every TAB: no network, nothing on stderr, and an error is no completion.
fn complete() -> i32 {
    let args = crate::cli::CompleteArgs::try_parse_from(std::env::args_os().skip(1));
    let Ok(args) = args else {
        return 2;
    };
    let Ok(mut ctx) = Context::from_env(true, Some(false)) else {
        return 1;
    };
    ctx.offline = true;
    ctx.reporter = Box::new(crate::progress::Silent);
    match which::complete(&ctx, &args) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}

/// clap lists similar subcommands most similar last; the best match
/// reads first (`orla instal`: 'install', then 'uninstall', ...).
fn best_match_first(mut e: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue};
    if let Some(ContextValue::Strings(names)) = e.get(ContextKind::SuggestedSubcommand) {
        let names = names.iter().rev().cloned().collect();
        e.insert(
            ContextKind::SuggestedSubcommand,
            ContextValue::Strings(names),
        );
    }
    e
}

/// Prints why clap refused the command line (or its help) and returns the
/// exit code.
fn refused(e: clap::Error) -> i32 {
    if let Some(error) = user_command_under_tool(&e) {
        if json_requested() {
            crate::progress::JsonLines::new(false).report(error.to_event());
        } else {
            crate::progress::eprint_error(&error.render(), crate::context::stderr_color(None));
        }
        return error.exit_code();
    }
    if e.use_stderr() && json_requested() {
        // The flag was not parsed, but a script asked for JSON lines.
        let message = e.to_string();
        let message = message.lines().next().unwrap_or_default();
        let message = message.strip_prefix("error: ").unwrap_or(message);
        crate::progress::JsonLines::new(false).report(crate::progress::Event::Error {
            message: message.to_string(),
            hint: None,
            exit_code: 2,
        });
        return 2;
    }
    let _ = e.print();
    if e.use_stderr() {
        2
    } else {
        0
    }
}

/// `orla tool list` or `orla tool install fs-read` (`uv tool install`
/// muscle memory): `orla tool` holds the authoring commands, and the
/// command meant is a top-level one. The usage error names it whole.
fn user_command_under_tool(e: &clap::Error) -> Option<Error> {
    use clap::error::{ContextKind, ContextValue};
    if e.kind() != clap::error::ErrorKind::InvalidSubcommand {
        return None;
    }
    let Some(ContextValue::String(sub)) = e.get(ContextKind::InvalidSubcommand) else {
        return None;
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let at = args.iter().position(|a| a == sub)?;
    if at == 0 || args[at - 1] != "tool" {
        return None;
    }
    let cli = <Cli as clap::CommandFactory>::command();
    let top = cli.get_subcommands().find(|c| {
        c.get_name() != "tool"
            && !c.is_hide_set()
            && (c.get_name() == sub || c.get_all_aliases().any(|a| a == sub))
    })?;
    let mut meant = vec!["orla".to_string()];
    meant.extend(args[..at - 1].iter().map(|a| shell_quote(a)));
    meant.extend(args[at..].iter().map(|a| shell_quote(a)));
    Some(Error::usage(
        format!("`orla tool` has no '{sub}': it holds the commands for writing tools (scaffold, validate, pack, publish, yank)"),
        Some(format!("`orla {}` is the command; run `{}`", top.get_name(), meant.join(" "))),
    ))
}

/// Whether the command line asks for `--message-format json`, judged on
/// the raw arguments when clap refused them.
fn json_requested() -> bool {
    let args: Vec<String> = std::env::args().collect();
    args.iter().enumerate().any(|(i, a)| {
        a == "--message-format=json"
            || a == "--message-format" && args.get(i + 1).is_some_and(|v| v == "json")
    })
}

pub fn run(cli: Cli) -> Result<(), Error> {
    if let Command::Completions(args) = &cli.command {
        let script = crate::cli::generate::completion(args.shell);
        return write_stdout(&script);
    }
    let mut ctx = Context::from_env(cli.quiet, cli.color.forced())?;
    if cli.message_format == MessageFormat::Json {
        ctx.reporter = Box::new(crate::progress::JsonLines::new(cli.quiet));
    }
    ctx.offline |= cli.offline;
    ctx.refresh = cli.refresh;
    ctx.allow_rollback = cli.allow_rollback;
    ctx.global = match &cli.command {
        Command::Install(args) => args.global,
        Command::Uninstall(args) => args.global,
        Command::Update(args) => args.global,
        Command::Export(args) => args.global,
        _ => false,
    };
    // The commands whose --global reaches the global root's tools.
    let takes_global = matches!(
        cli.command,
        Command::Use(_) | Command::Uninstall(_) | Command::Update(_) | Command::Which(_)
    );
    let result = match cli.command {
        Command::Install(args) => {
            // --frozen installs orla.lock without any network.
            ctx.offline |= args.frozen;
            install::run(&ctx, &args)
        }
        Command::Uninstall(args) => uninstall::run(&ctx, &args),
        Command::List(args) => list::run(&ctx, &args),
        Command::Init(args) => init::run(&ctx, &args),
        Command::Use(args) => use_version::run(&ctx, &args),
        Command::Verify(args) => verify::run(&ctx, &args),
        Command::Search(args) => search::run(&ctx, &args),
        Command::Info(args) => info::run(&ctx, &args),
        Command::Update(args) => update::run(&ctx, &args),
        Command::Run(args) => run::run(&ctx, &args),
        Command::Which(args) => which::which(&ctx, &args),
        Command::Dir(args) => which::dir(&ctx, &args),
        Command::Cache(command) => cache::run(&ctx, &command),
        Command::Tool(ToolCommand::Scaffold(args)) => scaffold::run(&ctx, &args),
        Command::Tool(ToolCommand::Validate(args)) => tool::validate(&ctx, &args),
        Command::Tool(ToolCommand::Pack(args)) => tool::pack(&ctx, &args),
        Command::Tool(ToolCommand::Publish(args)) => tool::publish(&ctx, &args),
        Command::Tool(ToolCommand::Yank(args)) => tool::yank(&ctx, &args),
        Command::Migrate(MigrateCommand::Capsule(args)) => migrate::capsule(&ctx, &args),
        Command::Serve(args) => serve::run(&ctx, &args),
        Command::Export(args) => export::run(&ctx, &args),
        Command::Client(command) => client::run(&ctx, &command),
        Command::Completions(_) => unreachable!("handled above"),
    };
    result.map_err(|e| global_tool_hint(&ctx, e, takes_global))
}

/// Inside a project, "NAME is not installed" about a tool of the global
/// root (which `orla list` shows there) says where it is and how to reach it.
fn global_tool_hint(ctx: &Context, e: Error, takes_global: bool) -> Error {
    let Error::Store(crate::root::StoreError::NotInstalled { what, .. }) = &e else {
        return e;
    };
    let in_project = ctx
        .root()
        .is_ok_and(|r| r.kind == crate::root::RootKind::Project);
    let name = what.split(['@', ' ']).next().unwrap_or_default();
    let global = ctx.global_root();
    let is_global = in_project
        && global
            .scan(&crate::progress::Silent)
            .is_ok_and(|found| found.iter().any(|p| p.receipt.name == name));
    if !is_global {
        return e;
    }
    let how = if takes_global {
        "pass --global to act on it".to_string()
    } else {
        "run the command outside this project to act on it".to_string()
    };
    Error::other(
        e.to_string(),
        Some(format!(
            "{name} is installed globally ({}), not in this project; {how}",
            global.tools_dir.display()
        )),
    )
}

/// The tool name argument of a command that takes names only (`info`,
/// `verify`, `update`): a version is a usage error whose hint drops it.
pub(crate) fn tool_name(command: &str, arg: &str) -> Result<String, Error> {
    let spec = crate::resolve::Spec::parse(arg)?;
    if spec.raw.is_some() {
        return Err(Error::usage(
            format!("`orla {command}` takes a tool name, not '{arg}'"),
            Some(format!("run `orla {command} {}`", spec.name)),
        ));
    }
    Ok(spec.name)
}
