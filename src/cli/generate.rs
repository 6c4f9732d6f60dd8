//! completions/ and man/ are generated from the clap definitions; a test
//! compares the files in the repository with these functions' output.

use clap::CommandFactory;
use clap_complete::Shell;

use super::{Cli, CompletionShell};

pub const SHELLS: [(CompletionShell, &str); 6] = [
    (CompletionShell::Bash, "orla.bash"),
    (CompletionShell::Zsh, "_orla"),
    (CompletionShell::Fish, "orla.fish"),
    (CompletionShell::Elvish, "orla.elv"),
    (CompletionShell::PowerShell, "_orla.ps1"),
    (CompletionShell::Nushell, "orla.nu"),
];

pub fn completion(shell: CompletionShell) -> Vec<u8> {
    let mut out = Vec::new();
    let mut cmd = Cli::command();
    let shell = match shell {
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
        CompletionShell::Elvish => Shell::Elvish,
        CompletionShell::PowerShell => Shell::PowerShell,
        CompletionShell::Nushell => {
            clap_complete::generate(clap_complete_nushell::Nushell, &mut cmd, "orla", &mut out);
            return out;
        }
    };
    clap_complete::generate(shell, &mut cmd, "orla", &mut out);
    let script = String::from_utf8(out).expect("clap_complete writes UTF-8");
    dynamic_names(shell, script).into_bytes()
}

/// Subcommands whose tool name argument is an installed tool, and those
/// where it is any tool the registries list.
const INSTALLED_NAMES: [&str; 9] = [
    "uninstall",
    "rm",
    "remove",
    "un",
    "use",
    "which",
    "verify",
    "update",
    "upgrade",
];
const AVAILABLE_NAMES: [&str; 4] = ["install", "run", "info", "search"];

/// The clients `orla client add|remove` takes, for the shells whose clap
/// script does not complete a positional argument's values.
fn client_names() -> String {
    crate::client::CLIENTS
        .iter()
        .map(|c| c.name())
        .collect::<Vec<_>>()
        .join(" ")
}

/// clap's scripts complete flags and subcommands; tool names come from
/// orla itself (`orla __complete installed|available WORD`, offline and
/// silent), so every script is given that hook. WORD is the word being
/// completed: after `NAME@` orla answers with that tool's versions.
fn dynamic_names(shell: Shell, script: String) -> String {
    match shell {
        Shell::Bash => {
            let hook = format!(
                r#"
_orla_names() {{
    local sub="" w
    for w in "${{COMP_WORDS[@]:1:COMP_CWORD-1}}"; do
        case "$w" in -*) ;; *) sub="$w"; break ;; esac
    done
    case "$sub" in
        {}) orla __complete installed "$1" 2>/dev/null ;;
        {}) orla __complete available "$1" 2>/dev/null ;;
    esac
}}

_orla_dynamic() {{
    _orla "$@"
    local cur="${{COMP_WORDS[COMP_CWORD]}}"
    # The whole word before the cursor: bash splits fs-read@1.2 at the @
    # (COMP_WORDBREAKS), and the versions are asked for by the whole word.
    local word="$cur"
    if [[ -n "${{COMP_LINE-}}" ]]; then
        local line="${{COMP_LINE:0:COMP_POINT}}"
        word="${{line##*[[:space:]]}}"
    fi
    case "$word" in -*) return ;; esac
    local names
    names="$(_orla_names "$word")"
    if [[ -n "$names" ]]; then
        COMPREPLY=( $(compgen -W "$names" -- "$word") )
    fi
    if [[ "$word" == *@* ]]; then
        # bash replaces only the part after its last word break, and must
        # not fall back to completing host names after the @.
        local prefix="${{word%"$cur"}}"
        COMPREPLY=( "${{COMPREPLY[@]#"$prefix"}}" )
        compopt +o default +o bashdefault 2>/dev/null
    fi
}}
"#,
                INSTALLED_NAMES.join("|"),
                AVAILABLE_NAMES.join("|")
            );
            let script = script.replace("complete -F _orla ", "complete -F _orla_dynamic ");
            match script.find("\nif [[ \"${BASH_VERSINFO[0]}\"") {
                Some(at) => format!("{}{hook}{}", &script[..at], &script[at..]),
                None => script + &hook,
            }
        }
        Shell::Fish => {
            let condition = |subs: &[&str]| {
                subs.iter()
                    .map(|s| format!("__fish_orla_using_subcommand {s}"))
                    .collect::<Vec<_>>()
                    .join("; or ")
            };
            format!(
                "{script}complete -c orla -n \"{}\" -f -a \"(orla __complete installed (commandline -ct) 2>/dev/null)\"\n\
                 complete -c orla -n \"{}\" -f -a \"(orla __complete available (commandline -ct) 2>/dev/null)\"\n\
                 complete -c orla -n \"__fish_orla_using_subcommand client; and __fish_seen_subcommand_from add remove\" -f -a \"{}\"\n",
                condition(&INSTALLED_NAMES),
                condition(&AVAILABLE_NAMES),
                client_names()
            )
        }
        Shell::Zsh => {
            // The positional tool names of those subcommands, found by the
            // help text clap writes for them.
            let installed = [
                "::specs -- Tools to remove",
                ":spec -- NAME@VERSION to serve",
                "::name -- Verify only this tool",
                "::names -- Tools to update",
                ":name -- An installed tool",
            ];
            let available = [
                "::specs -- Tools to install",
                ":spec -- The tool\\:",
                ":name -- The tool'\\''s name:",
            ];
            let mut out = String::new();
            for line in script.lines() {
                let kind = if installed.iter().any(|p| line.contains(p)) {
                    Some("installed")
                } else if available.iter().any(|p| line.contains(p)) {
                    Some("available")
                } else {
                    None
                };
                match kind {
                    Some(kind) if line.ends_with(":_default' \\") => {
                        let cut = line.len() - ":_default' \\".len();
                        out.push_str(&format!("{}:_orla_{kind}' \\", &line[..cut]));
                    }
                    _ => out.push_str(line),
                }
                out.push('\n');
            }
            let helpers = "\n_orla_installed() {\n    local -a names\n    names=(${(f)\"$(orla __complete installed \"$PREFIX\" 2>/dev/null)\"})\n    compadd -a names\n}\n\n_orla_available() {\n    local -a names\n    names=(${(f)\"$(orla __complete available \"$PREFIX\" 2>/dev/null)\"})\n    compadd -a names\n}\n";
            match out.find("\n_orla() {") {
                Some(at) => format!("{}{helpers}{}", &out[..at], &out[at..]),
                None => out + helpers,
            }
        }
        Shell::Elvish => {
            // clap's completer looks up every word before the first flag as
            // a subcommand; words after the subcommand are tool names, so the
            // lookup falls back to the longest known prefix, then adds names.
            let table = |subs: &[&str], kind: &str| {
                subs.iter()
                    .map(|s| format!("&'orla;{s}'={kind}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let tail = format!(
                r#"    while (not (has-key $completions $command)) {{
        var parts = [(str:split ';' $command)]
        if (<= (count $parts) 1) {{
            return
        }}
        set command = (str:join ';' $parts[..-1])
    }}
    $completions[$command]
    var names = [{} {}]
    if (has-key $names $command) {{
        try {{
            orla __complete $names[$command] $words[-1] 2>/dev/null | from-lines
        }} catch {{
        }}
    }}
    if (has-value ['orla;client;add' 'orla;client;remove'] $command) {{
        put {}
    }}
}}
"#,
                table(&INSTALLED_NAMES, "installed"),
                table(&AVAILABLE_NAMES, "available"),
                client_names()
            );
            match script.rfind("    $completions[$command]\n}") {
                Some(at) => format!("{}{tail}", &script[..at]),
                None => script,
            }
        }
        Shell::PowerShell => {
            // The names join clap's candidates for those subcommands (also
            // after a first name: `orla rm a <TAB>`), before the common
            // filter on the word being completed.
            let hook = format!(
                r#"    $names = @{{ {} ; {} }}
    $sub = ($command -split ';')[1]
    if ($sub -and $names.ContainsKey($sub)) {{
        $completions += @(orla __complete $names[$sub] $wordToComplete 2>$null | ForEach-Object {{
            [CompletionResult]::new($_, $_, [CompletionResultType]::ParameterValue, $_)
        }})
    }}
    if ($command -in @('orla;client;add', 'orla;client;remove')) {{
        $completions += @('{}' -split ' ' | ForEach-Object {{
            [CompletionResult]::new($_, $_, [CompletionResultType]::ParameterValue, $_)
        }})
    }}

"#,
                INSTALLED_NAMES
                    .iter()
                    .map(|s| format!("'{s}' = 'installed'"))
                    .collect::<Vec<_>>()
                    .join(" ; "),
                AVAILABLE_NAMES
                    .iter()
                    .map(|s| format!("'{s}' = 'available'"))
                    .collect::<Vec<_>>()
                    .join(" ; "),
                client_names()
            );
            match script.rfind("    $completions.Where{") {
                Some(at) => format!("{}{hook}{}", &script[..at], &script[at..]),
                None => script,
            }
        }
        _ => script,
    }
}

/// Every man page: `orla.1` and one per subcommand (`orla-install.1`, ...).
pub fn man_pages() -> Vec<(String, Vec<u8>)> {
    let mut cmd = Cli::command();
    cmd.build();
    let mut pages = Vec::new();
    render(&cmd, "orla", &mut pages);
    pages
}

fn render(cmd: &clap::Command, name: &str, pages: &mut Vec<(String, Vec<u8>)>) {
    let cmd = cmd.clone().name(name.to_string());
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut out)
        .expect("writing to memory");
    let page = String::from_utf8(out).expect("clap_mangen writes UTF-8");
    pages.push((
        format!("{name}.1"),
        finish_page(&cmd, name, page).into_bytes(),
    ));
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" || sub.is_hide_set() {
            continue;
        }
        render(sub, &format!("{name}-{}", sub.get_name()), pages);
    }
}

/// clap_mangen's page, with a synopsis that keeps each option's argument
/// (`--local PATH`, where clap_mangen writes `[--local]`), a DESCRIPTION
/// that says more than NAME (the long about and the help's closing text),
/// the arguments (`SPEC...`) apart from the options and the global options
/// apart from the command's own, and the EXIT STATUS, ENVIRONMENT and
/// EXAMPLES sections a man page is expected to have.
fn finish_page(cmd: &clap::Command, name: &str, page: String) -> String {
    let mut page = replace_section(&page, "SYNOPSIS", &synopsis(cmd, name));
    page = match description(cmd) {
        Some(text) => replace_section(&page, "DESCRIPTION", &text),
        None => remove_section(&page, "DESCRIPTION"),
    };
    page = remove_section(&page, "EXTRA");
    page = replace_options(cmd, &page);
    let mut extra = String::new();
    let examples = examples(name);
    if !examples.is_empty() {
        extra.push_str(".SH EXAMPLES\n");
        for (what, command) in examples {
            extra.push_str(&format!(".TP\n{}\n{}\n", escape(command), escape(what)));
        }
    }
    extra.push_str(".SH \"EXIT STATUS\"\n");
    if name == "orla-run" {
        extra.push_str(".TP\nthe tool's\nThe tool replaces orla: its exit status is orla's.\n");
    }
    for (code, meaning) in [
        ("0", "Success."),
        ("1", "Failure: the error line says what failed, and a hint line how to fix it when there is a fix."),
        ("2", "Usage error: an unknown flag, a malformed tool spec or version."),
        ("130", "Interrupted with Ctrl\\-C at a question; nothing was changed."),
    ] {
        extra.push_str(&format!(".TP\n{code}\n{meaning}\n"));
    }
    extra.push_str(".SH ENVIRONMENT\n");
    for (var, meaning) in crate::context::ENVIRONMENT {
        extra.push_str(&format!(
            ".TP\n\\fB{}\\fR\n{}\n",
            escape(var),
            escape(meaning)
        ));
    }
    match page.find("\n.SH VERSION") {
        Some(at) => page.insert_str(at + 1, &extra),
        None => page.push_str(&extra),
    }
    page
}

/// The DESCRIPTION: the long about and the paragraphs `--help` ends with,
/// but not the one naming the environment variables (ENVIRONMENT lists
/// them); `None` when that leaves nothing NAME does not already say.
fn description(cmd: &clap::Command) -> Option<String> {
    let mut paragraphs: Vec<String> = Vec::new();
    if let Some(about) = cmd.get_long_about() {
        paragraphs.push(about.to_string());
    }
    if let Some(after) = cmd.get_after_long_help().or_else(|| cmd.get_after_help()) {
        paragraphs.extend(
            after
                .to_string()
                .split("\n\n")
                .filter(|p| !p.starts_with("Environment:"))
                .map(str::to_string),
        );
    }
    let paragraphs: Vec<String> = paragraphs
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .map(|p| {
            // Indented lines are a table: kept as they are, not filled.
            let mut out = Vec::new();
            let mut table = false;
            for line in p.lines() {
                let indented = line.starts_with("  ");
                if indented != table {
                    out.push(if indented { ".RS\n.nf" } else { ".fi\n.RE" }.to_string());
                    table = indented;
                }
                out.push(escape(line.trim_start()));
            }
            if table {
                out.push(".fi\n.RE".to_string());
            }
            out.join("\n")
        })
        .collect();
    (!paragraphs.is_empty()).then(|| format!("{}\n", paragraphs.join("\n.PP\n")))
}

/// The OPTIONS sections, as clap_mangen renders them (the global options
/// under their own heading), preceded by ARGUMENTS: clap_mangen puts the
/// positional arguments last among the options and writes `[SPEC]` for
/// `SPEC...`.
fn replace_options(cmd: &clap::Command, page: &str) -> String {
    let Some(start) = page.find("\n.SH OPTIONS\n").map(|n| n + 1) else {
        return page.to_string();
    };
    // The options sections run until the next section that is not one.
    let mut end = page.len();
    let mut from = start + 1;
    while let Some(n) = page[from..].find("\n.SH ") {
        let at = from + n + 1;
        let title = page[at + 4..].lines().next().unwrap_or_default();
        if !title.contains("OPTIONS") {
            end = at;
            break;
        }
        from = at + 1;
    }
    let mut own = cmd.clone();
    let positionals: Vec<clap::Id> = cmd.get_positionals().map(|a| a.get_id().clone()).collect();
    for id in &positionals {
        own = own.mut_arg(id, |a| a.hide(true));
    }
    let mut out = Vec::new();
    clap_mangen::Man::new(own)
        .render_options_section(&mut out)
        .expect("writing to memory");
    let options = String::from_utf8(out).expect("clap_mangen writes UTF-8");
    // Each rendering starts with roff's preamble, which the page has.
    let options: String = options
        .lines()
        .filter(|l| !l.starts_with(".ie \\n(.g") && !l.starts_with(".el .ds Aq"))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut arguments = String::new();
    for arg in cmd.get_positionals().filter(|a| !a.is_hide_set()) {
        let help = arg
            .get_long_help()
            .or_else(|| arg.get_help())
            .map(|h| h.to_string())
            .unwrap_or_default();
        let defaults: Vec<String> = arg
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect();
        let default = if defaults.is_empty() {
            String::new()
        } else {
            format!(" [default: {}]", defaults.join(", "))
        };
        let values: Vec<String> = arg
            .get_possible_values()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_string())
            .collect();
        let help = if values.is_empty() {
            help
        } else {
            format!("{help} [possible values: {}]", values.join(", "))
        };
        arguments.push_str(&format!(
            ".TP\n{}{}\n{}\n",
            positional(arg),
            escape(&default),
            escape(&help.replace('\n', " "))
        ));
    }
    let arguments = if arguments.is_empty() {
        arguments
    } else {
        format!(".SH ARGUMENTS\n{arguments}")
    };
    format!("{}{arguments}{options}{}", &page[..start], &page[end..])
}

/// A positional argument as the synopsis shows it: `[SPEC]...`, `NAME`,
/// `[-- ARGS...]`.
fn positional(arg: &clap::Arg) -> String {
    let value = arg
        .get_value_names()
        .map(|names| {
            names
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
    let many = matches!(arg.get_num_args(), Some(r) if r.max_values() > 1);
    let dots = if many { "..." } else { "" };
    let word = format!("\\fI{}\\fR{dots}", escape(&value));
    if arg.is_last_set() {
        format!("[\\-\\- {word}]")
    } else if arg.is_required_set() {
        word
    } else {
        format!("[{word}]")
    }
}

/// Where section `title` of `text` is: its header's start, its body's
/// start, and its end (the next section's header, or the end of `text`).
fn section(text: &str, title: &str) -> Option<(usize, usize, usize)> {
    let header = format!(".SH {title}\n");
    let start = text.find(&header)?;
    let from = start + header.len();
    let end = text[from..]
        .find("\n.SH ")
        .map_or(text.len(), |n| from + n + 1);
    Some((start, from, end))
}

/// `text` without its section `title`.
fn remove_section(text: &str, title: &str) -> String {
    match section(text, title) {
        Some((start, _, end)) => format!("{}{}", &text[..start], &text[end..]),
        None => text.to_string(),
    }
}

/// `text` with its section `title` replaced by `body`.
fn replace_section(text: &str, title: &str, body: &str) -> String {
    match section(text, title) {
        Some((_, from, end)) => format!("{}{body}{}", &text[..from], &text[end..]),
        None => text.to_string(),
    }
}

fn synopsis(cmd: &clap::Command, name: &str) -> String {
    let mut words = vec![format!("\\fB{}\\fR", escape(&name.replace('-', " ")))];
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        let id = arg.get_id().as_str();
        if id == "help" || id == "version" {
            continue;
        }
        let value = arg
            .get_value_names()
            .map(|names| {
                names
                    .iter()
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_else(|| id.to_uppercase());
        if arg.is_positional() {
            words.push(positional(arg));
            continue;
        }
        let flag = match (arg.get_short(), arg.get_long()) {
            (Some(s), Some(l)) => format!("\\fB\\-{s}\\fR|\\fB\\-\\-{}\\fR", escape(l)),
            (None, Some(l)) => format!("\\fB\\-\\-{}\\fR", escape(l)),
            (Some(s), None) => format!("\\fB\\-{s}\\fR"),
            (None, None) => continue,
        };
        let takes_value = arg.get_action().takes_values();
        words.push(if takes_value {
            format!("[{flag} \\fI{}\\fR]", escape(&value))
        } else {
            format!("[{flag}]")
        });
    }
    if cmd.has_subcommands() {
        words.push("\\fICOMMAND\\fR".into());
    }
    format!("{}\n", words.join(" "))
}

/// roff text: a leading `.` or `'` would be a request, `-` a hyphen.
fn escape(text: &str) -> String {
    let text = text.replace('\\', "\\e").replace('-', "\\-");
    if text.starts_with(['.', '\'']) {
        format!("\\&{text}")
    } else {
        text
    }
}

/// What to show in a page's EXAMPLES: (what it does, the command).
fn examples(page: &str) -> &'static [(&'static str, &'static str)] {
    match page {
        "orla" => &[
            (
                "Install the newest 1.2.x of a tool and list what is served.",
                "orla install fs-read@1.2 && orla list",
            ),
            (
                "Run a tool once without installing it.",
                "echo '{\"path\": \"notes.txt\"}' | orla run fs-read",
            ),
            (
                "Check every installed file against its install receipt.",
                "orla verify",
            ),
        ],
        "orla-install" => &[
            ("The newest stable version.", "orla install fs-read"),
            (
                "The newest 1.2.x of one tool, exactly 1.0.0 of another.",
                "orla install fs-read@1.2 fs-list@1.0.0",
            ),
            (
                "A package directory being developed (installed again when it changes).",
                "orla install --local ./my-tool",
            ),
            (
                "In CI, in a project: exactly what orla.lock pins, no network.",
                "orla install --frozen",
            ),
            (
                "Refuse a tool whose interpreter or dependencies are missing.",
                "orla install fs-read --strict",
            ),
        ],
        "orla-uninstall" => &[
            ("Every installed version.", "orla uninstall fs-read"),
            ("Every installed 1.x.", "orla rm fs-read@1"),
        ],
        "orla-list" => &[(
            "As a table, or as JSON for scripts.",
            "orla ls; orla list --json",
        )],
        "orla-use" => &[(
            "Serve an older installed version, then go back to the default.",
            "orla use fs-read@1.1.0; orla use fs-read",
        )],
        "orla-verify" => &[("One tool, as JSON.", "orla verify fs-read --json")],
        "orla-search" => &[("Tools about files.", "orla search file read")],
        "orla-info" => &[(
            "Versions, permissions and what the installed version needs.",
            "orla info fs-read",
        )],
        "orla-update" => &[(
            "See what would change, then change it.",
            "orla update --dry-run; orla update",
        )],
        "orla-run" => &[
            (
                "A tool that reads its arguments as JSON on stdin.",
                "echo '{\"path\": \"notes.txt\"}' | orla run fs-read@1.2",
            ),
            (
                "Arguments after -- go to the tool.",
                "orla run my-tool -- --verbose input.txt",
            ),
        ],
        "orla-which" => &[(
            "The file the runtime runs for a tool.",
            "orla which fs-read",
        )],
        "orla-dir" => &[("Open the tools directory.", "cd \"$(orla dir)\"")],
        "orla-init" => &[("Make the current directory a project.", "orla init")],
        "orla-tool-scaffold" => &[
            ("A wizard on a terminal.", "orla tool scaffold"),
            (
                "Everything from flags, for scripts.",
                "orla tool scaffold word-count --yes --language python --param text:string",
            ),
        ],
        "orla-tool-pack" => &[(
            "A reproducible archive of the current package.",
            "orla tool pack -o dist/",
        )],
        "orla-tool-publish" => &[(
            "Into a directory index, creating it.",
            "orla tool publish --index ./index --init",
        )],
        _ => &[],
    }
}
