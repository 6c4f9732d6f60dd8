//! `orla client add|remove|list`: orla's entry in an MCP client's
//! configuration (see `crate::client`).

use serde_json::{json, Value};

use crate::cli::{ClientArgs, ClientCommand, ClientListArgs};
use crate::client::{Change, Client, ClientError, Launcher, Outcome, Remote, Request, Serves};
use crate::context::Context;
use crate::error::Error;
use crate::progress::{ClientChange, Event};
use crate::project::Project;

pub fn run(ctx: &Context, command: &ClientCommand) -> Result<(), Error> {
    match command {
        ClientCommand::Add(args) => change(ctx, args, true),
        ClientCommand::Remove(args) => change(ctx, args, false),
        ClientCommand::List(args) => list(ctx, args),
    }
}

fn change(ctx: &Context, args: &ClientArgs, add: bool) -> Result<(), Error> {
    let client = Client::parse(&args.client)?;
    let project = match args.global {
        true => None,
        false => Project::find(&ctx.cwd)?,
    };
    let root = project.map_or(Serves::Global, |p| Serves::Project(p.dir));
    // A project's own editor file, which teams commit: portable entry, no links.
    let project_file = match (&root, &args.config) {
        (Serves::Project(dir), None) if client.has_project_file() => Some(dir.as_path()),
        _ => None,
    };
    // The root decides the file, even for an entry reaching a URL.
    let path = match &args.config {
        Some(p) => ctx.absolute(p),
        None => client.config_path(&root).ok_or(ClientError::NoHome)?,
    };
    let serves = match &args.url {
        Some(url) => {
            let remote = Remote::new(url, args.token_env.as_deref())?;
            if add {
                client.check_http(&remote)?;
            }
            Serves::Http(remote)
        }
        None => root.clone(),
    };
    let argv0 = std::env::args_os().next();
    let launcher = Launcher::find(argv0.as_deref(), &ctx.cwd, &ctx.search_path)?;
    let entry = client.entry(&serves, &ctx.home, &launcher, project_file.is_some());
    // Read, change and write under one lock: two at once lose nothing.
    let _lock = match args.dry_run {
        true => None,
        false => Some(crate::client::lock(&ctx.home, ctx.reporter.as_ref())?),
    };
    let change = Change::plan(Request {
        client,
        path: &path,
        serves: &serves,
        name: args.name.as_deref(),
        entry,
        add,
        project_file,
    })?;
    let report = |outcome| {
        ctx.reporter.report(Event::ClientEntry {
            client: client.name().to_string(),
            name: change.name.clone(),
            path: path.display().to_string(),
            change: outcome,
        })
    };
    if change.outcome == Outcome::Unchanged {
        report(ClientChange::Unchanged);
        return Ok(());
    }
    if args.dry_run {
        return super::write_stdout(change.preview().as_bytes());
    }
    change.write()?;
    report(match change.outcome {
        Outcome::Added => ClientChange::Added,
        Outcome::Updated => ClientChange::Updated,
        Outcome::Removed | Outcome::Unchanged => ClientChange::Removed,
    });
    if add {
        if project_file.is_some() && !launcher.on_path {
            ctx.reporter.warn(&format!(
                "orla is not on PATH, so {} names it by {}, which other checkouts may lack",
                path.display(),
                launcher.path.display()
            ));
        }
        let next = match &serves {
            Serves::Http(remote) => format!(
                "{} connects to the `orla serve` running at {url}; `orla client remove {} --url {url}` undoes this",
                client.name(),
                client.name(),
                url = remote.url
            ),
            _ => format!(
                "{}; `orla client remove {}` undoes this",
                client.takes_effect(),
                client.name()
            ),
        };
        ctx.reporter.status("Next", &next);
    }
    Ok(())
}

fn list(ctx: &Context, args: &ClientListArgs) -> Result<(), Error> {
    let project = Project::find(&ctx.cwd)?;
    let places = crate::client::places(project.as_ref().map(|p| p.dir.as_path()));
    if args.json {
        let out: Vec<Value> = places
            .iter()
            .map(|p| {
                json!({
                    "client": p.client.name(),
                    "config": p.path.display().to_string(),
                    "exists": p.exists,
                    "entries": p.entries.iter().map(|(name, serves)| json!({"name": name, "serves": serves})).collect::<Vec<_>>(),
                })
            })
            .collect();
        let text = serde_json::to_string_pretty(&out).expect("serialises") + "\n";
        return super::write_stdout(text.as_bytes());
    }
    let mut table = Vec::new();
    for p in &places {
        let (client, path) = (p.client.name().to_string(), p.path.display().to_string());
        if p.entries.is_empty() {
            let state = if p.exists { "-" } else { "(no file)" };
            table.push(vec![
                client.clone(),
                state.into(),
                String::new(),
                path.clone(),
            ]);
        }
        for (name, serves) in &p.entries {
            table.push(vec![
                client.clone(),
                name.clone(),
                serves.clone(),
                path.clone(),
            ]);
        }
    }
    super::write_stdout(super::table(&["CLIENT", "ENTRY", "SERVES", "CONFIG"], &table).as_bytes())
}
