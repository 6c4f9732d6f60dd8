//! `orla tool scaffold [NAME]`: the answers (`package::scaffold::answers`:
//! flags first, then the dialoguer wizard below on a terminal, defaults
//! otherwise), then the files `package::scaffold` writes.

use dialoguer::theme::ColorfulTheme;
use dialoguer::{Input, MultiSelect, Select};

use crate::cli::{ArgumentsArg, Language as LanguageArg, ModeArg, ScaffoldArgs};
use crate::context::Context;
use crate::error::Error;
use crate::package::scaffold::answers::{self, Ask, Flags, Refusal, ScaffoldError};
use crate::package::scaffold::{self, Language};
use crate::package::{Arguments, Mode, Package};
use crate::progress::{Event, Warning};

pub fn run(ctx: &Context, args: &ScaffoldArgs) -> Result<(), Error> {
    let ask = ctx.interactive && !args.yes;
    // Ctrl-C during the questions restores the cursor and exits 130; it is
    // dropped before anything is written.
    let interrupt = ask.then(crate::interrupt::PromptGuard::new);
    let wizard = Wizard {
        theme: ColorfulTheme::default(),
    };
    let flags = Flags {
        name: args.name.clone(),
        dir: args.dir.clone(),
        force: args.force,
        version: args.tool_version.clone(),
        description: args.description.clone(),
        language: args.language.map(|l| match l {
            LanguageArg::Bash => Language::Bash,
            LanguageArg::Python => Language::Python,
            LanguageArg::Node => Language::Node,
            LanguageArg::Binary => Language::Binary,
        }),
        binary: args.binary.clone(),
        mode: args.mode.map(|m| match m {
            ModeArg::Simple => Mode::Simple,
            ModeArg::Capsule => Mode::Capsule,
        }),
        arguments: args.arguments.map(|a| match a {
            ArgumentsArg::Json => Arguments::Json,
            ArgumentsArg::Flags => Arguments::Flags,
        }),
        permissions: args.permissions.clone(),
        params: args.params.clone(),
        author: args.author.clone(),
        license: args.license.clone(),
    };
    let asker = ask.then_some(&wizard as &dyn Ask);
    let answers::Answers { dir, plan } = answers::gather(&flags, &ctx.cwd, asker)?;
    drop(interrupt);
    // The directory may have been taken while the questions were answered.
    answers::check_free(&dir, args.force)?;
    scaffold::write(&dir, &plan.files(), args.force).map_err(|source| ScaffoldError::Create {
        dir: dir.clone(),
        source,
    })?;
    let package = Package::load(&dir)?;
    super::tool::warn_problems(ctx, None, &package.warnings);
    if plan.language == Language::Binary && plan.binary.is_none() {
        ctx.reporter
            .report(Event::Warning(Warning::PlaceholderExecutable {
                path: format!("bin/{}", plan.name),
            }));
    }
    ctx.reporter.report(Event::Scaffolded {
        name: plan.name.clone(),
        version: plan.version.clone(),
        language: plan.language.as_str().to_string(),
        mode: plan.mode.as_str().to_string(),
        path: dir.display().to_string(),
    });
    ctx.reporter.status(
        "Next",
        &format!(
            "cd {} && orla tool validate && orla install --local .",
            super::shell_quote(&dir.display().to_string())
        ),
    );
    Ok(())
}

/// The questions, asked on the terminal.
struct Wizard {
    theme: ColorfulTheme,
}

fn prompt_err(e: dialoguer::Error) -> ScaffoldError {
    ScaffoldError::Prompt {
        reason: e.to_string(),
    }
}

impl Ask for Wizard {
    fn input(
        &self,
        prompt: &str,
        default: Option<String>,
        check: &mut dyn FnMut(&str) -> Result<(), Refusal>,
    ) -> Result<String, ScaffoldError> {
        let mut input = Input::<String>::with_theme(&self.theme)
            .with_prompt(prompt)
            .allow_empty(default.as_deref() == Some(""))
            .validate_with(|s: &String| check(s));
        if let Some(d) = default.filter(|d| !d.is_empty()) {
            input = input.default(d);
        }
        input.interact_text().map_err(prompt_err)
    }

    fn select(&self, prompt: &str, items: &[&str], default: usize) -> Result<usize, ScaffoldError> {
        Select::with_theme(&self.theme)
            .with_prompt(prompt)
            .items(items)
            .default(default)
            .interact()
            .map_err(prompt_err)
    }

    fn multi_select(&self, prompt: &str, items: &[&str]) -> Result<Vec<usize>, ScaffoldError> {
        MultiSelect::with_theme(&self.theme)
            .with_prompt(prompt)
            .items(items)
            .interact()
            .map_err(prompt_err)
    }

    fn explain(&self, text: &str) {
        eprintln!("{text}");
    }
}
