//! completions/ and man/ are generated from the clap definitions; a test
//! compares the files in the repository with these functions' output.

use clap::CommandFactory;
use clap_complete::Shell;

use super::Cli;

pub const SHELLS: [(Shell, &str); 5] = [
    (Shell::Bash, "orla.bash"),
    (Shell::Zsh, "_orla"),
    (Shell::Fish, "orla.fish"),
    (Shell::Elvish, "orla.elv"),
    (Shell::PowerShell, "_orla.ps1"),
];

pub fn completion(shell: Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "orla", &mut out);
    let script = String::from_utf8(out).expect("clap_complete writes UTF-8");
    dynamic_names(shell, script).into_bytes()
}

/// Subcommands whose tool name argument is an installed tool, and those
/// where it is any tool the registries list.
const INSTALLED_NAMES: [&str; 6] = ["uninstall", "rm", "use", "which", "verify", "update"];
const AVAILABLE_NAMES: [&str; 4] = ["install", "run", "info", "search"];

/// clap's scripts complete flags and subcommands; tool names come from
/// orla itself (`orla __complete installed|available`, offline and silent),
/// so every script is given that hook.
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
        {}) orla __complete installed 2>/dev/null ;;
        {}) orla __complete available 2>/dev/null ;;
    esac
}}

_orla_dynamic() {{
    _orla "$@"
    local cur="${{COMP_WORDS[COMP_CWORD]}}"
    case "$cur" in -*) return ;; esac
    local names
    names="$(_orla_names)"
    if [[ -n "$names" ]]; then
        COMPREPLY=( $(compgen -W "$names" -- "$cur") )
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
                "{script}complete -c orla -n \"{}\" -f -a \"(orla __complete installed 2>/dev/null)\"\n\
                 complete -c orla -n \"{}\" -f -a \"(orla __complete available 2>/dev/null)\"\n",
                condition(&INSTALLED_NAMES),
                condition(&AVAILABLE_NAMES)
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
            let helpers = "\n_orla_installed() {\n    local -a names\n    names=(${(f)\"$(orla __complete installed 2>/dev/null)\"})\n    compadd -a names\n}\n\n_orla_available() {\n    local -a names\n    names=(${(f)\"$(orla __complete available 2>/dev/null)\"})\n    compadd -a names\n}\n";
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
            orla __complete $names[$command] 2>/dev/null | from-lines
        }} catch {{
        }}
    }}
}}
"#,
                table(&INSTALLED_NAMES, "installed"),
                table(&AVAILABLE_NAMES, "available")
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
        $completions += @(orla __complete $names[$sub] 2>$null | ForEach-Object {{
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
                    .join(" ; ")
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
/// (`--local PATH`, where clap_mangen writes `[--local]`), and the EXIT
/// STATUS, ENVIRONMENT and EXAMPLES sections a man page is expected to have.
fn finish_page(cmd: &clap::Command, name: &str, page: String) -> String {
    let mut page = replace_section(&page, "SYNOPSIS", &synopsis(cmd, name));
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

/// `text` with its section `title` replaced by `body`.
fn replace_section(text: &str, title: &str, body: &str) -> String {
    let header = format!(".SH {title}\n");
    let Some(start) = text.find(&header) else {
        return text.to_string();
    };
    let from = start + header.len();
    let end = text[from..]
        .find("\n.SH ")
        .map_or(text.len(), |n| from + n + 1);
    format!("{}{body}{}", &text[..from], &text[end..])
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
            let many = matches!(arg.get_num_args(), Some(r) if r.max_values() > 1);
            let dots = if many { "..." } else { "" };
            let word = format!("\\fI{}\\fR{dots}", escape(&value));
            let word = if arg.is_last_set() {
                format!("[\\-\\- {word}]")
            } else if arg.is_required_set() {
                word
            } else {
                format!("[{word}]")
            };
            words.push(word);
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
