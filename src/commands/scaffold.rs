//! `orla tool scaffold [NAME]`: gather the answers (flags first; the
//! dialoguer wizard asks for the rest on a terminal; defaults otherwise),
//! then let `package::scaffold` write the files.

use std::path::PathBuf;

use dialoguer::theme::ColorfulTheme;
use dialoguer::{Input, MultiSelect, Select};

use crate::cli::{ArgumentsArg, Language as LanguageArg, ModeArg, ScaffoldArgs};
use crate::context::Context;
use crate::error::Error;
use crate::package::scaffold::{self, Language, Param, Plan, LICENSES};
use crate::package::{names, Arguments, Mode, Package};

const DEFAULT_NAME: &str = "my-tool";
const PERMISSIONS: [&str; 4] = [
    "filesystem:read",
    "filesystem:write",
    "network",
    "process:exec",
];

pub fn run(ctx: &Context, args: &ScaffoldArgs) -> Result<(), Error> {
    let ask = ctx.interactive && !args.yes;
    // Ctrl-C during the questions restores the cursor and exits 130; it is
    // dropped before anything is written.
    let interrupt = ask.then(crate::interrupt::PromptGuard::new);
    let wizard = Wizard {
        theme: ColorfulTheme::default(),
    };
    let flag_err = |flag: &str, e: String| Error::usage(format!("--{flag}: {e}"), None);

    // Name first: it decides the directory, which must be free.
    let name = match &args.name {
        Some(n) => {
            // NAME is positional: there is no --name flag to blame.
            names::validate_name(n).map_err(|e| Error::usage(e.to_string(), None))?;
            n.clone()
        }
        None if ask => wizard.input("Tool name", Some(DEFAULT_NAME.into()), |s: &String| {
            names::validate_name(s).map_err(|e| e.to_string())
        })?,
        None => DEFAULT_NAME.to_string(),
    };
    let dir = ctx
        .cwd
        .join(args.dir.clone().unwrap_or_else(|| PathBuf::from(&name)));
    check_free(&dir, args.force)?;

    let version = match &args.tool_version {
        Some(v) => names::parse_version(v)
            .map_err(|e| flag_err("tool-version", e.to_string()))?
            .to_string(),
        None => "0.1.0".to_string(),
    };
    let default_description = format!("{name}: echoes its JSON arguments");
    let description = match &args.description {
        Some(d) if !d.trim().is_empty() => d.trim().to_string(),
        Some(_) => return Err(flag_err("description", "cannot be empty".into())),
        None if ask => wizard.input("Description", Some(default_description), |s: &String| {
            if s.trim().is_empty() {
                Err("say in one line what the tool does".to_string())
            } else {
                Ok(())
            }
        })?,
        None => default_description,
    };
    let language = match args.language {
        Some(l) => from_arg(l),
        None if ask => {
            let items: Vec<&str> = Language::ALL
                .iter()
                .map(|l| match l {
                    Language::Bash => "bash",
                    Language::Python => "python",
                    Language::Node => "node",
                    Language::Binary => "binary (a prebuilt executable)",
                })
                .collect();
            Language::ALL[wizard.select("Language", &items, 0)?]
        }
        None => Language::Bash,
    };
    let binary_path = match (&args.binary, language) {
        (Some(p), _) => Some(ctx.cwd.join(p)),
        (None, Language::Binary) if ask => {
            let text: String = wizard.input(
                "Path of the executable to copy into bin/ (empty for a placeholder)",
                Some(String::new()),
                |_: &String| Ok::<(), String>(()),
            )?;
            (!text.trim().is_empty()).then(|| ctx.cwd.join(text.trim()))
        }
        (None, _) => None,
    };
    if binary_path.is_some() && language != Language::Binary {
        return Err(Error::usage(
            "--binary only goes with --language binary",
            None,
        ));
    }
    let binary = match &binary_path {
        Some(p) => Some(std::fs::read(p).map_err(|e| {
            Error::other(
                format!("cannot read {}: {e}", p.display()),
                Some("--binary names the prebuilt executable to copy into the package".into()),
            )
        })?),
        None => None,
    };
    let mode = match args.mode {
        Some(ModeArg::Simple) => Mode::Simple,
        Some(ModeArg::Capsule) => Mode::Capsule,
        None if ask => [Mode::Simple, Mode::Capsule][wizard.select(
            "Mode",
            &[
                "simple: one process per call, JSON in on stdin, JSON out on stdout",
                "capsule: a long-running process with the orla.hello handshake",
            ],
            0,
        )?],
        None => Mode::Simple,
    };
    let arguments = match (args.arguments, mode) {
        (Some(_), Mode::Capsule) => {
            return Err(Error::usage(
                "--arguments is for simple tools; a capsule takes its calls as JSON-RPC on stdin",
                Some("drop --arguments, or pass --mode simple".into()),
            ))
        }
        (_, Mode::Capsule) => Arguments::Json,
        (Some(ArgumentsArg::Json), _) => Arguments::Json,
        (Some(ArgumentsArg::Flags), _) => Arguments::Flags,
        // The binary placeholder reads JSON on stdin.
        (None, _) if ask && language != Language::Binary => [Arguments::Json, Arguments::Flags]
            [wizard.select(
                "Arguments",
                &[
                    "json: one JSON object on stdin",
                    "flags: one --name value flag per argument, as the Orla runtime passes them",
                ],
                0,
            )?],
        (None, _) => Arguments::Json,
    };
    let permissions = if !args.permissions.is_empty() {
        let mut perms = Vec::new();
        for p in &args.permissions {
            let p = p.trim().to_string();
            if !PERMISSIONS.contains(&p.as_str()) {
                return Err(Error::usage(
                    format!("--permission: unknown permission '{p}'"),
                    Some(format!("known permissions: {}", PERMISSIONS.join(", "))),
                ));
            }
            if !perms.contains(&p) {
                perms.push(p);
            }
        }
        perms
    } else if ask {
        wizard
            .multi_select("Permissions (space toggles, enter accepts)", &PERMISSIONS)?
            .into_iter()
            .map(|i| PERMISSIONS[i].to_string())
            .collect()
    } else {
        Vec::new()
    };
    let params = if !args.params.is_empty() {
        let mut params: Vec<Param> = Vec::new();
        for p in &args.params {
            let param = Param::parse(p).map_err(|e| flag_err("param", e.to_string()))?;
            if params.iter().any(|q| q.name == param.name) {
                return Err(flag_err(
                    "param",
                    format!("'{}' is given twice", param.name),
                ));
            }
            params.push(param);
        }
        params
    } else if ask {
        wizard.params()?
    } else {
        vec![Param::parse("message:string").expect("valid")]
    };
    let author = match &args.author {
        Some(a) => Some(a.trim().to_string()).filter(|a| !a.is_empty()),
        None if ask => {
            // Suggest the git user's name, as `cargo new` once did.
            let suggested = git2::Config::open_default()
                .and_then(|c| c.get_string("user.name"))
                .ok()
                .filter(|n| !n.trim().is_empty());
            let prompt = if suggested.is_some() {
                "Author ('-' for none)"
            } else {
                "Author (empty for none)"
            };
            let a: String =
                wizard.input(prompt, Some(suggested.unwrap_or_default()), |_: &String| {
                    Ok::<(), String>(())
                })?;
            Some(a.trim().to_string()).filter(|a| !a.is_empty() && a != "-")
        }
        None => None,
    };
    let license = match &args.license {
        Some(l) if l.eq_ignore_ascii_case("none") || l.trim().is_empty() => None,
        Some(l) => Some(check_license(l)?),
        None if ask => {
            let mut items: Vec<&str> = vec!["none"];
            items.extend(LICENSES);
            let i = wizard.select("License", &items, 0)?;
            (i > 0).then(|| items[i].to_string())
        }
        None => None,
    };

    let plan = Plan {
        name,
        version,
        description,
        language,
        mode,
        arguments,
        permissions,
        params,
        author,
        license,
        binary,
        year: scaffold::current_year(),
    };
    drop(interrupt);
    // The directory may have been taken while the questions were answered.
    check_free(&dir, args.force)?;
    scaffold::write(&dir, &plan.files(), args.force).map_err(|e| {
        Error::other(
            format!("cannot create {}: {e}", dir.display()),
            (e.kind() == std::io::ErrorKind::PermissionDenied)
                .then(|| "choose a directory you may write to with --dir PATH".to_string()),
        )
    })?;
    let package = Package::load(&dir)?;
    for w in &package.warnings {
        ctx.reporter.warn(&w.to_string());
    }
    if language == Language::Binary && plan.binary.is_none() {
        ctx.reporter.warn(&format!(
            "bin/{} is a placeholder script; replace it with your executable",
            plan.name
        ));
    }
    ctx.reporter.status(
        "Created",
        &format!(
            "{} {} ({}, {} mode) in {}",
            plan.name,
            plan.version,
            language.as_str(),
            mode.as_str(),
            dir.display()
        ),
    );
    ctx.reporter.status(
        "Next",
        &format!(
            "cd {} && orla tool validate && orla install --local .",
            super::shell_quote(&dir.display().to_string())
        ),
    );
    Ok(())
}

fn from_arg(arg: LanguageArg) -> Language {
    match arg {
        LanguageArg::Bash => Language::Bash,
        LanguageArg::Python => Language::Python,
        LanguageArg::Node => Language::Node,
        LanguageArg::Binary => Language::Binary,
    }
}

fn check_free(dir: &std::path::Path, force: bool) -> Result<(), Error> {
    if force {
        return Ok(());
    }
    let taken = match std::fs::read_dir(dir) {
        Ok(mut entries) => entries.next().is_some(),
        Err(_) => dir.exists(),
    };
    if taken {
        return Err(Error::other(
            format!("{} already exists and is not empty", dir.display()),
            Some("choose another name or --dir, or pass --force to write the scaffold's files into it".into()),
        ));
    }
    Ok(())
}

/// An SPDX identifier: letters, digits, '.', '-' and '+'.
fn check_license(text: &str) -> Result<String, Error> {
    let text = text.trim();
    if let Some(known) = LICENSES.iter().find(|l| l.eq_ignore_ascii_case(text)) {
        return Ok(known.to_string());
    }
    if text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'))
    {
        Ok(text.to_string())
    } else {
        Err(Error::usage(
            format!("--license: '{text}' is not an SPDX license identifier"),
            Some(format!(
                "use an SPDX id such as {}, or `none`",
                LICENSES.join(", ")
            )),
        ))
    }
}

struct Wizard {
    theme: ColorfulTheme,
}

fn prompt_err(e: dialoguer::Error) -> Error {
    Error::other(
        format!("cannot ask: {e}"),
        Some("pass --yes and flags to scaffold without questions".into()),
    )
}

impl Wizard {
    fn input<V>(&self, prompt: &str, default: Option<String>, validator: V) -> Result<String, Error>
    where
        V: FnMut(&String) -> Result<(), String>,
    {
        let mut input = Input::<String>::with_theme(&self.theme)
            .with_prompt(prompt)
            .allow_empty(default.as_deref() == Some(""))
            .validate_with(validator);
        if let Some(d) = default.filter(|d| !d.is_empty()) {
            input = input.default(d);
        }
        input.interact_text().map_err(prompt_err)
    }

    fn select(&self, prompt: &str, items: &[&str], default: usize) -> Result<usize, Error> {
        Select::with_theme(&self.theme)
            .with_prompt(prompt)
            .items(items)
            .default(default)
            .interact()
            .map_err(prompt_err)
    }

    fn multi_select(&self, prompt: &str, items: &[&str]) -> Result<Vec<usize>, Error> {
        MultiSelect::with_theme(&self.theme)
            .with_prompt(prompt)
            .items(items)
            .interact()
            .map_err(prompt_err)
    }

    /// Input parameters, one `NAME:TYPE` at a time, until an empty answer.
    fn params(&self) -> Result<Vec<Param>, Error> {
        let mut params: Vec<Param> = Vec::new();
        // The explanation once, above the prompts: a prompt longer than the
        // terminal is wide wraps, and dialoguer then redraws it badly.
        eprintln!(
            "  Input parameters, one per answer, as NAME:TYPE with TYPE one of {}; \
             a '?' after the type makes it optional (limit:integer?).",
            scaffold::PARAM_TYPES.join(", ")
        );
        loop {
            let taken: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
            let text: String = Input::<String>::with_theme(&self.theme)
                .with_prompt("Input parameter (empty to finish)")
                .allow_empty(true)
                .validate_with(|s: &String| -> Result<(), String> {
                    if s.trim().is_empty() {
                        return Ok(());
                    }
                    let p = Param::parse(s).map_err(|e| e.to_string())?;
                    if taken.contains(&p.name) {
                        return Err(format!("'{}' is already a parameter", p.name));
                    }
                    Ok(())
                })
                .interact_text()
                .map_err(prompt_err)?;
            if text.trim().is_empty() {
                return Ok(params);
            }
            params.push(Param::parse(&text).expect("validated"));
        }
    }
}
