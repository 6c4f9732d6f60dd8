//! `orla tool scaffold [NAME]`: the answers (`package::scaffold::answers`:
//! flags first, then the dialoguer wizard below on a terminal, defaults
//! otherwise), then the files `package::scaffold` writes.

use dialoguer::console;
use dialoguer::theme::{ColorfulTheme, Theme};
use dialoguer::{Input, MultiSelect, Select};

use super::output::wrap_words;
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
///
/// dialoguer counts the rows it drew by their line breaks alone, so a line
/// the terminal wraps leaves rows behind when it redraws. Every line it
/// draws is kept within the terminal's width: long choices are cut short,
/// a refusal is broken between words, and the rows of an answer longer
/// than the line are cleared here once it is given (dialoguer clears the
/// last of them only). Text shown above the questions is broken between
/// words too.
struct Wizard {
    theme: ColorfulTheme,
}

fn prompt_err(e: dialoguer::Error) -> ScaffoldError {
    ScaffoldError::Prompt {
        reason: e.to_string(),
    }
}

/// The terminal's width in columns (the wizard runs on one).
fn width() -> usize {
    usize::from(console::Term::stderr().size().1).max(20)
}

/// The line that records an answer, broken between words to fit (nothing
/// redraws it, but a line the terminal breaks mid-word reads badly).
fn answered(line: &str, width: usize) {
    let term = console::Term::stderr();
    for (i, part) in wrap_words(line, width - 2).iter().enumerate() {
        let _ = term.write_line(&format!("{}{part}", if i == 0 { "" } else { "  " }));
    }
}

/// `item` cut to fit a line of a choice list (after dialoguer's `❯ `).
fn fit(item: &str, width: usize) -> String {
    let room = width.saturating_sub(3);
    if console::measure_text_width(item) <= room {
        return item.to_string();
    }
    let cut: String = item.chars().take(room.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

impl Ask for Wizard {
    fn input(
        &self,
        prompt: &str,
        default: Option<String>,
        check: &mut dyn FnMut(&str) -> Result<(), Refusal>,
    ) -> Result<String, ScaffoldError> {
        let width = width();
        let shown_default = default.clone().filter(|d| !d.is_empty());
        let mut input = Input::<String>::with_theme(&self.theme)
            .with_prompt(prompt)
            .report(false)
            .allow_empty(default.as_deref() == Some(""))
            .validate_with(|s: &String| {
                // After dialoguer's `✘ `.
                check(s).map_err(|refusal| wrap_words(&refusal.to_string(), width - 2).join("\n"))
            });
        if let Some(d) = shown_default.clone() {
            input = input.default(d);
        }
        let answer = input.interact_text().map_err(prompt_err)?;
        let term = console::Term::stderr();
        let mut line = String::new();
        let _ = self
            .theme
            .format_input_prompt(&mut line, prompt, shown_default.as_deref());
        // Enter on an empty line takes the default: nothing was typed.
        let typed = match &shown_default {
            Some(d) if *d == answer => 0,
            _ => console::measure_text_width(&answer),
        };
        let rows = (console::measure_text_width(&line) + typed)
            .max(1)
            .div_ceil(width);
        if rows > 1 {
            let _ = term.clear_last_lines(rows - 1);
        }
        let mut done = String::new();
        let _ = self
            .theme
            .format_input_prompt_selection(&mut done, prompt, &answer);
        answered(&done, width);
        Ok(answer)
    }

    fn select(&self, prompt: &str, items: &[&str], default: usize) -> Result<usize, ScaffoldError> {
        let width = width();
        let fitted: Vec<String> = items.iter().map(|i| fit(i, width)).collect();
        let chosen = Select::with_theme(&self.theme)
            .with_prompt(prompt)
            .items(&fitted)
            .default(default)
            .report(false)
            .interact()
            .map_err(prompt_err)?;
        let mut done = String::new();
        let _ = self
            .theme
            .format_select_prompt_selection(&mut done, prompt, items[chosen]);
        answered(&done, width);
        Ok(chosen)
    }

    fn multi_select(&self, prompt: &str, items: &[&str]) -> Result<Vec<usize>, ScaffoldError> {
        let width = width();
        let fitted: Vec<String> = items.iter().map(|i| fit(i, width - 2)).collect();
        let chosen = MultiSelect::with_theme(&self.theme)
            .with_prompt(prompt)
            .items(&fitted)
            .report(false)
            .interact()
            .map_err(prompt_err)?;
        let names: Vec<&str> = chosen.iter().map(|&i| items[i]).collect();
        let mut done = String::new();
        let _ = self
            .theme
            .format_multi_select_prompt_selection(&mut done, prompt, &names);
        answered(&done, width);
        Ok(chosen)
    }

    fn explain(&self, text: &str) {
        for line in wrap_words(text, width() - 2) {
            eprintln!("  {line}");
        }
    }
}
