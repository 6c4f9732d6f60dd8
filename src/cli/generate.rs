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
    out
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
    pages.push((format!("{name}.1"), out));
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        render(sub, &format!("{name}-{}", sub.get_name()), pages);
    }
}
