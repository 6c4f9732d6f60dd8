//! `orla info NAME [--json]`: what the registries know of a tool and what
//! of it is installed (gathered by `crate::ops::info`).

use crate::cli::InfoArgs;
use crate::context::Context;
use crate::error::Error;
use crate::ops::info::Info;

pub fn run(ctx: &Context, args: &InfoArgs) -> Result<(), Error> {
    let name = super::tool_name("info", &args.name)?;
    let info = crate::ops::info::info(ctx, &name, args.registry.as_deref())?;
    if args.json {
        let text = serde_json::to_string_pretty(&info).expect("serialises") + "\n";
        return super::write_stdout(text.as_bytes());
    }
    super::write_stdout(render(&info).as_bytes())
}

fn render(info: &Info) -> String {
    use crate::progress::printable;
    let mut out = format!(
        "{} {}\n",
        printable(&info.name),
        printable(info.latest.as_deref().unwrap_or("(no installable version)"))
    );
    if !info.description.is_empty() {
        out.push_str(&format!("{}\n", printable(&info.description)));
    }
    out.push('\n');
    let mut field = |k: &str, v: String| out.push_str(&format!("{k:<13}{}\n", printable(&v)));
    if info.registry == info.registry_location {
        field("registry:", info.registry.clone());
    } else {
        field(
            "registry:",
            format!("{} ({})", info.registry, info.registry_location),
        );
    }
    if let Some(commit) = &info.registry_commit {
        field("index at:", format!("commit {commit}"));
    }
    if !info.also_in.is_empty() {
        field("also in:", info.also_in.join(", "));
    }
    if let Some(repo) = &info.repository {
        field("repository:", repo.clone());
    }
    if !info.keywords.is_empty() {
        field("keywords:", info.keywords.join(", "));
    }
    if let Some(risk) = &info.risk_level {
        let perms = if !info.permissions_declared {
            "undeclared".to_string()
        } else if info.permissions.is_empty() {
            "none".to_string()
        } else {
            info.permissions.join(", ")
        };
        field("permissions:", format!("{perms} (risk: {risk})"));
    }
    field(
        "installed:",
        if info.installed.is_empty() {
            "no".to_string()
        } else {
            format!(
                "{} (active: {})",
                info.installed.join(", "),
                info.active.as_deref().unwrap_or("-")
            )
        },
    );
    if !info.requires.is_empty() {
        let shown: Vec<String> = info
            .requires
            .iter()
            .map(|c| match (&c.problem, &c.version) {
                (Some(_), _) if c.found.is_none() => format!("{} (not found)", c.requirement),
                (Some(_), Some(v)) => format!("{} (found {v}: too old)", c.requirement),
                (None, Some(v)) => format!("{} (found {v})", c.requirement),
                (None, None) if c.found.is_none() => {
                    format!("{} (not a command on PATH; not checked)", c.requirement)
                }
                _ => format!("{} (found)", c.requirement),
            })
            .collect();
        field("requires:", shown.join(", "));
    }
    out.push_str("versions:\n");
    for v in &info.versions {
        let mut notes = Vec::new();
        if v.yanked {
            notes.push("yanked".to_string());
        }
        if let Some(stated) = &v.tool_yaml_version {
            notes.push(format!(
                "its tool.yaml says {}: cannot be installed",
                printable(stated)
            ));
        }
        if v.active {
            notes.push("active".to_string());
        } else if v.installed {
            notes.push("installed".to_string());
        }
        let id = match (&v.blake3, &v.tag, &v.commit) {
            (Some(d), _, _) => format!("blake3:{d}"),
            (None, Some(t), Some(Some(c))) => format!("tag {t}, commit {c}"),
            (None, Some(t), Some(None)) => format!("tag {t} (not in the repository)"),
            (None, Some(t), None) => format!("tag {t}"),
            _ => String::new(),
        };
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!("  ({})", notes.join(", "))
        };
        out.push_str(&format!(
            "  {:<12} {}{notes}\n",
            printable(&v.version),
            printable(&id)
        ));
    }
    out
}
