//! The answers a scaffold needs, gathered in order: a flag when given,
//! else a question when someone is there to answer ([`Ask`]; the command
//! asks on a terminal), else the default. Every answer is checked as it
//! comes, so the wizard and the flags refuse the same things.

use std::path::{Path, PathBuf};

use super::{Language, Param, ParamError, Plan, LICENSES, PARAM_TYPES};
use crate::package::{names, Arguments, Mode};

/// The permissions a scaffold offers.
pub const PERMISSIONS: [&str; 4] = [
    "filesystem:read",
    "filesystem:write",
    "network",
    "process:exec",
];

const DEFAULT_NAME: &str = "my-tool";

#[derive(Debug, thiserror::Error)]
pub enum ScaffoldError {
    /// NAME is not a tool name (it is positional: no flag to blame).
    #[error("{0}")]
    Name(names::NameError),
    /// A flag's value cannot be used.
    #[error("--{flag}: {message}")]
    Flag { flag: &'static str, message: String },
    #[error("--permission: unknown permission '{0}'")]
    UnknownPermission(String),
    #[error("--license: '{0}' is not an SPDX license identifier")]
    BadLicense(String),
    #[error("--binary only goes with --language binary")]
    BinaryWithoutLanguage,
    #[error("--arguments is for simple tools; a capsule takes its calls as JSON-RPC on stdin")]
    ArgumentsForCapsule,
    #[error("cannot read {}: {source}", path.display())]
    ReadBinary {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} already exists and is not empty", dir.display())]
    DirTaken { dir: PathBuf },
    #[error("cannot create {}: {source}", dir.display())]
    Create {
        dir: PathBuf,
        source: std::io::Error,
    },
    /// The terminal could not ask a question.
    #[error("cannot ask: {reason}")]
    Prompt { reason: String },
}

impl ScaffoldError {
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            ScaffoldError::UnknownPermission(_) => {
                format!("known permissions: {}", PERMISSIONS.join(", "))
            }
            ScaffoldError::BadLicense(_) => format!(
                "use an SPDX id such as {}, or `none`",
                LICENSES.join(", ")
            ),
            ScaffoldError::ArgumentsForCapsule => "drop --arguments, or pass --mode simple".into(),
            ScaffoldError::ReadBinary { .. } => {
                "--binary names the prebuilt executable to copy into the package".into()
            }
            ScaffoldError::DirTaken { .. } => "choose another name or --dir, or pass --force to write the scaffold's files into it".into(),
            ScaffoldError::Create { source, .. }
                if source.kind() == std::io::ErrorKind::PermissionDenied =>
            {
                "choose a directory you may write to with --dir PATH".into()
            }
            ScaffoldError::Prompt { .. } => {
                "pass --yes and flags to scaffold without questions".into()
            }
            ScaffoldError::Name(_) => {
                "a tool name is lowercase letters, digits, '.', '_' and '-', e.g. my-tool".into()
            }
            ScaffoldError::Flag { flag, .. } => {
                format!("`orla tool scaffold --help` describes --{flag}")
            }
            ScaffoldError::BinaryWithoutLanguage => {
                "pass --language binary with --binary, or drop --binary".into()
            }
            // Another I/O error, which the message names.
            ScaffoldError::Create { .. } => return None,
        })
    }

    /// The command line asked for something impossible (exit 2).
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            ScaffoldError::Name(_)
                | ScaffoldError::Flag { .. }
                | ScaffoldError::UnknownPermission(_)
                | ScaffoldError::BadLicense(_)
                | ScaffoldError::BinaryWithoutLanguage
                | ScaffoldError::ArgumentsForCapsule
        )
    }
}

/// Why an answer to a question is refused; it is shown under the
/// question, which is asked again.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("{0}")]
    Name(names::NameError),
    #[error("say in one line what the tool does")]
    EmptyDescription,
    #[error("{0}")]
    Param(ParamError),
    #[error("'{0}' is already a parameter")]
    DuplicateParam(String),
    #[error("./{0} already exists and is not empty; choose another name")]
    DirTaken(String),
}

/// Questions asked of a person.
pub trait Ask {
    /// A line of text; `default` is offered (and `Some("")` allows an
    /// empty answer); `check` refuses an answer with its reason.
    fn input(
        &self,
        prompt: &str,
        default: Option<String>,
        check: &mut dyn FnMut(&str) -> Result<(), Refusal>,
    ) -> Result<String, ScaffoldError>;
    /// One of `items`.
    fn select(&self, prompt: &str, items: &[&str], default: usize) -> Result<usize, ScaffoldError>;
    /// Any of `items`.
    fn multi_select(&self, prompt: &str, items: &[&str]) -> Result<Vec<usize>, ScaffoldError>;
    /// Text shown once above a series of questions.
    fn explain(&self, text: &str);
}

/// What the command line says; `None` and empty lists are asked or defaulted.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    pub name: Option<String>,
    /// Where to write, relative to the working directory (default: NAME).
    pub dir: Option<PathBuf>,
    pub force: bool,
    pub version: Option<String>,
    pub description: Option<String>,
    pub language: Option<Language>,
    /// The executable to copy in (`--language binary`), relative to the working directory.
    pub binary: Option<PathBuf>,
    pub mode: Option<Mode>,
    pub arguments: Option<Arguments>,
    pub permissions: Vec<String>,
    pub params: Vec<String>,
    pub author: Option<String>,
    pub license: Option<String>,
}

/// The answers: where the package goes and what it holds.
pub struct Answers {
    pub dir: PathBuf,
    pub plan: Plan,
}

/// Gathers every answer from `flags`, asking `ask` (when given) for the
/// rest. The directory must be free (or `force`): it is checked as soon as
/// the name is known, before any other question.
pub fn gather(flags: &Flags, cwd: &Path, ask: Option<&dyn Ask>) -> Result<Answers, ScaffoldError> {
    let flag = |flag: &'static str, message: String| ScaffoldError::Flag { flag, message };

    // Name first: it decides the directory, which must be free.
    let name = match (&flags.name, ask) {
        (Some(n), _) => {
            names::validate_name(n).map_err(ScaffoldError::Name)?;
            n.clone()
        }
        (None, Some(ask)) => ask.input("Tool name", Some(DEFAULT_NAME.into()), &mut |s| {
            names::validate_name(s).map_err(Refusal::Name)?;
            // The name names the directory unless --dir does: a taken one
            // is explained and the name asked again.
            match &flags.dir {
                None => check_free(&cwd.join(s), flags.force)
                    .map_err(|_| Refusal::DirTaken(s.to_string())),
                Some(_) => Ok(()),
            }
        })?,
        (None, None) => DEFAULT_NAME.to_string(),
    };
    let dir =
        crate::fs::normalize(&cwd.join(flags.dir.clone().unwrap_or_else(|| PathBuf::from(&name))));
    check_free(&dir, flags.force)?;

    let version = match &flags.version {
        Some(v) => names::parse_version(v)
            .map_err(|e| flag("tool-version", e.to_string()))?
            .to_string(),
        None => "0.1.0".to_string(),
    };
    let default_description = format!("{name}: echoes its JSON arguments");
    let description = match (&flags.description, ask) {
        (Some(d), _) if !d.trim().is_empty() => d.trim().to_string(),
        (Some(_), _) => return Err(flag("description", "cannot be empty".into())),
        (None, Some(ask)) => ask.input("Description", Some(default_description), &mut |s| {
            if s.trim().is_empty() {
                Err(Refusal::EmptyDescription)
            } else {
                Ok(())
            }
        })?,
        (None, None) => default_description,
    };
    let language = match (flags.language, ask) {
        (Some(l), _) => l,
        (None, Some(ask)) => {
            let items: Vec<&str> = Language::ALL
                .iter()
                .map(|l| match l {
                    Language::Bash => "bash",
                    Language::Python => "python",
                    Language::Node => "node",
                    Language::Binary => "binary (a prebuilt executable)",
                })
                .collect();
            Language::ALL[ask.select("Language", &items, 0)?]
        }
        (None, None) => Language::Bash,
    };
    let binary_path = match (&flags.binary, language, ask) {
        (Some(p), _, _) => Some(cwd.join(p)),
        (None, Language::Binary, Some(ask)) => {
            let text = ask.input(
                "Path of the executable to copy into bin/ (empty for a placeholder)",
                Some(String::new()),
                &mut |_| Ok(()),
            )?;
            (!text.trim().is_empty()).then(|| cwd.join(text.trim()))
        }
        (None, _, _) => None,
    };
    if binary_path.is_some() && language != Language::Binary {
        return Err(ScaffoldError::BinaryWithoutLanguage);
    }
    let binary = match &binary_path {
        Some(p) => Some(
            std::fs::read(p).map_err(|source| ScaffoldError::ReadBinary {
                path: p.clone(),
                source,
            })?,
        ),
        None => None,
    };
    let mode = match (flags.mode, ask) {
        (Some(m), _) => m,
        (None, Some(ask)) => [Mode::Simple, Mode::Capsule][ask.select(
            "Mode",
            &[
                "simple: one process per call, JSON out on stdout",
                "capsule: one long-running process, orla.hello first",
            ],
            0,
        )?],
        (None, None) => Mode::Simple,
    };
    let arguments = match (flags.arguments, mode) {
        (Some(_), Mode::Capsule) => return Err(ScaffoldError::ArgumentsForCapsule),
        (_, Mode::Capsule) => Arguments::Json,
        (Some(a), _) => a,
        // The binary placeholder reads JSON on stdin.
        (None, _) => match ask.filter(|_| language != Language::Binary) {
            Some(ask) => [Arguments::Json, Arguments::Flags][ask.select(
                "Arguments",
                &[
                    "json: one JSON object on stdin",
                    "flags: --name value per argument (the Orla runtime's way)",
                ],
                0,
            )?],
            None => Arguments::Json,
        },
    };
    let permissions = permissions(flags, ask)?;
    let params = params(flags, ask)?;
    let author = match (&flags.author, ask) {
        (Some(a), _) => Some(a.trim().to_string()).filter(|a| !a.is_empty()),
        (None, Some(ask)) => {
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
            let a = ask.input(prompt, Some(suggested.unwrap_or_default()), &mut |_| Ok(()))?;
            Some(a.trim().to_string()).filter(|a| !a.is_empty() && a != "-")
        }
        (None, None) => None,
    };
    let license = match (&flags.license, ask) {
        (Some(l), _) if l.eq_ignore_ascii_case("none") || l.trim().is_empty() => None,
        (Some(l), _) => Some(check_license(l)?),
        (None, Some(ask)) => {
            let mut items: Vec<&str> = vec!["none"];
            items.extend(LICENSES);
            let i = ask.select("License", &items, 0)?;
            (i > 0).then(|| items[i].to_string())
        }
        (None, None) => None,
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
        year: super::current_year(),
    };
    Ok(Answers { dir, plan })
}

fn permissions(flags: &Flags, ask: Option<&dyn Ask>) -> Result<Vec<String>, ScaffoldError> {
    if !flags.permissions.is_empty() {
        let mut perms = Vec::new();
        for p in &flags.permissions {
            let p = p.trim().to_string();
            if !PERMISSIONS.contains(&p.as_str()) {
                return Err(ScaffoldError::UnknownPermission(p));
            }
            if !perms.contains(&p) {
                perms.push(p);
            }
        }
        return Ok(perms);
    }
    Ok(match ask {
        Some(ask) => ask
            .multi_select("Permissions (space toggles, enter accepts)", &PERMISSIONS)?
            .into_iter()
            .map(|i| PERMISSIONS[i].to_string())
            .collect(),
        None => Vec::new(),
    })
}

fn params(flags: &Flags, ask: Option<&dyn Ask>) -> Result<Vec<Param>, ScaffoldError> {
    let mut params: Vec<Param> = Vec::new();
    if !flags.params.is_empty() {
        for p in &flags.params {
            let param = Param::parse(p).map_err(|e| ScaffoldError::Flag {
                flag: "param",
                message: e.to_string(),
            })?;
            if params.iter().any(|q| q.name == param.name) {
                return Err(ScaffoldError::Flag {
                    flag: "param",
                    message: format!("'{}' is given twice", param.name),
                });
            }
            params.push(param);
        }
        return Ok(params);
    }
    let Some(ask) = ask else {
        return Ok(vec![Param::parse("message:string").expect("valid")]);
    };
    // Input parameters, one `NAME:TYPE` at a time, until an empty answer.
    // The explanation once, above the prompts: a prompt longer than the
    // terminal is wide wraps, and dialoguer then redraws it badly.
    ask.explain(&format!(
        "Input parameters, one per answer, as NAME:TYPE with TYPE one of {}; \
         a '?' after the type makes it optional (limit:integer?).",
        PARAM_TYPES.join(", ")
    ));
    loop {
        let taken: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
        let text = ask.input(
            "Input parameter (empty to finish)",
            Some(String::new()),
            &mut |s| {
                if s.trim().is_empty() {
                    return Ok(());
                }
                let p = Param::parse(s).map_err(Refusal::Param)?;
                if taken.contains(&p.name) {
                    return Err(Refusal::DuplicateParam(p.name));
                }
                Ok(())
            },
        )?;
        if text.trim().is_empty() {
            return Ok(params);
        }
        params.push(Param::parse(&text).expect("validated"));
    }
}

/// Refuses a directory that exists and is not empty, unless `force`.
pub fn check_free(dir: &Path, force: bool) -> Result<(), ScaffoldError> {
    if force {
        return Ok(());
    }
    let taken = match std::fs::read_dir(dir) {
        Ok(mut entries) => entries.next().is_some(),
        Err(_) => dir.exists(),
    };
    if taken {
        return Err(ScaffoldError::DirTaken {
            dir: dir.to_path_buf(),
        });
    }
    Ok(())
}

/// An SPDX identifier: letters, digits, '.', '-' and '+'.
fn check_license(text: &str) -> Result<String, ScaffoldError> {
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
        Err(ScaffoldError::BadLicense(text.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_alone_give_the_defaults() {
        let cwd = tempfile::tempdir().unwrap();
        let answers = gather(&Flags::default(), cwd.path(), None).unwrap();
        assert_eq!(answers.dir, cwd.path().join("my-tool"));
        assert_eq!(answers.plan.name, "my-tool");
        assert_eq!(answers.plan.version, "0.1.0");
        assert_eq!(answers.plan.language, Language::Bash);
        assert_eq!(answers.plan.params.len(), 1);
    }

    #[test]
    fn the_flags_and_the_wizard_refuse_the_same_permission() {
        let cwd = tempfile::tempdir().unwrap();
        let flags = Flags {
            permissions: vec!["network".into(), "disk".into()],
            ..Flags::default()
        };
        let e = gather(&flags, cwd.path(), None).err().unwrap();
        assert!(e.is_usage());
        assert_eq!(e.to_string(), "--permission: unknown permission 'disk'");
    }
}
