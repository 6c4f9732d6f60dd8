//! Consent: a tool's permissions are shown before it is installed, and from
//! medium risk up a person must say yes (or pass `--yes`); with no terminal
//! and no `--yes` such an install stops with an error naming the permissions
//! (ARCHITECTURE.md, invariant 7).

use crate::context::Context;
use crate::error::run::RunError;
use crate::error::Error;
use crate::error::InstallError;
use crate::package::{risk, Permission, RiskLevel};
use crate::progress::Event;

/// Shows a tool's permissions and, from medium risk up, asks for consent
/// (ARCHITECTURE.md, invariant 7).
pub(crate) fn confirm(
    ctx: &Context,
    label: &str,
    permissions: &[String],
    yes: bool,
) -> Result<(), Error> {
    let parsed: Vec<Permission> = permissions.iter().map(|p| Permission::parse(p)).collect();
    confirm_risk(
        ctx,
        label,
        Some(permissions),
        RiskLevel::derive(&parsed),
        yes,
    )
}

/// As `confirm`, for `orla run` (the question says "Run"); `always` asks
/// whatever the risk: a tool whose every call needs approval
/// (`approval: required`).
pub(crate) fn confirm_run(
    ctx: &Context,
    label: &str,
    permissions: &[String],
    yes: bool,
    always: bool,
) -> Result<(), Error> {
    let parsed: Vec<Permission> = permissions.iter().map(|p| Permission::parse(p)).collect();
    let risk = RiskLevel::derive(&parsed);
    let needed = always || risk.needs_confirmation();
    ask(ctx, "Run", label, Some(permissions), risk, yes, needed).map_err(|e| match e {
        Error::Install(refusal) if matches!(*refusal, InstallError::Cancelled { .. }) => {
            RunError::Cancelled {
                label: label.to_string(),
            }
            .into()
        }
        other => other,
    })
}

/// As `confirm`, for a risk level known otherwise than from the permissions
/// (`None`: tool.yaml declares none).
pub(crate) fn confirm_risk(
    ctx: &Context,
    label: &str,
    permissions: Option<&[String]>,
    risk: RiskLevel,
    yes: bool,
) -> Result<(), Error> {
    let needed = risk.needs_confirmation();
    ask(ctx, "Install", label, permissions, risk, yes, needed)
}

/// Shows the permissions and, when `needed`, asks whether to `verb` the
/// tool.
fn ask(
    ctx: &Context,
    verb: &str,
    label: &str,
    permissions: Option<&[String]>,
    risk: RiskLevel,
    yes: bool,
    needed: bool,
) -> Result<(), Error> {
    ctx.reporter.report(Event::Permissions {
        tool: label.to_string(),
        permissions: permissions.map(<[String]>::to_vec),
        risk: risk.to_string(),
    });
    let shown = match permissions {
        None => "undeclared permissions".to_string(),
        Some(list) => risk::describe(list),
    };
    if !needed || yes {
        return Ok(());
    }
    if !ctx.interactive {
        return Err(InstallError::NoTerminal {
            label: label.to_string(),
            shown: shown.to_string(),
            risk,
            others: None,
        }
        .into());
    }
    // Ctrl-C at the question restores the cursor and exits 130.
    let _interrupt = crate::interrupt::PromptGuard::new();
    let accepted = dialoguer::Confirm::new()
        .with_prompt(format!("{verb} {label} with {shown}?"))
        .default(false)
        .interact()
        .map_err(|e| InstallError::Prompt {
            reason: e.to_string(),
        })?;
    if accepted {
        Ok(())
    } else {
        Err(InstallError::Cancelled {
            label: label.to_string(),
            others: None,
        }
        .into())
    }
}

/// A refusal in a command that named several tools says which command
/// installs the others: `command` (`orla install`) followed by the words of
/// every `asked` tool (its name, and the arguments that named it) but the
/// refused one. Nothing was installed, so the person need not wonder which
/// half went through.
pub(crate) fn naming_the_others(
    error: Error,
    command: &str,
    asked: &[(String, Vec<String>)],
) -> Error {
    let Error::Install(mut refusal) = error else {
        return error;
    };
    if let InstallError::Cancelled { label, others }
    | InstallError::NoTerminal { label, others, .. } = refusal.as_mut()
    {
        // A label is `NAME VERSION`, or a local archive's path.
        let refused = label.split(' ').next().unwrap_or_default();
        let words: Vec<String> = asked
            .iter()
            .filter(|(name, _)| name != refused && name != label.as_str())
            .flat_map(|(_, words)| words.iter().map(|w| crate::progress::shell_quote(w)))
            .collect();
        if !words.is_empty() {
            *others = Some(format!("{command} {}", words.join(" ")));
        }
    }
    Error::Install(refusal)
}
