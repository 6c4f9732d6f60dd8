
use builtin;
use str;

set edit:completion:arg-completer[orla] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'orla'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'orla'= {
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand install 'Install tools from a registry, or a local package'
            cand uninstall 'Remove installed tools'
            cand list 'List installed tools'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'orla;install'= {
            cand --local 'Install a local package directory or .tar.gz archive'
            cand --registry 'Registry to install from: `builtin` or an index directory'
            cand --force 'Reinstall even if the version is already installed'
            cand -y 'Accept the tools'' permissions without asking'
            cand --yes 'Accept the tools'' permissions without asking'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;uninstall'= {
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;list'= {
            cand --json 'Print a JSON array, one object per installed name and version'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;completions'= {
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;help'= {
            cand install 'Install tools from a registry, or a local package'
            cand uninstall 'Remove installed tools'
            cand list 'List installed tools'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'orla;help;install'= {
        }
        &'orla;help;uninstall'= {
        }
        &'orla;help;list'= {
        }
        &'orla;help;completions'= {
        }
        &'orla;help;help'= {
        }
    ]
    $completions[$command]
}
