# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_orla_global_optspecs
    string join \n q/quiet h/help V/version
end

function __fish_orla_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_orla_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_orla_using_subcommand
    set -l cmd (__fish_orla_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c orla -n "__fish_orla_needs_command" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c orla -n "__fish_orla_needs_command" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_needs_command" -f -a "install" -d 'Install tools from a registry, or a local package'
complete -c orla -n "__fish_orla_needs_command" -f -a "uninstall" -d 'Remove installed tools'
complete -c orla -n "__fish_orla_needs_command" -f -a "list" -d 'List installed tools'
complete -c orla -n "__fish_orla_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c orla -n "__fish_orla_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c orla -n "__fish_orla_using_subcommand install" -l local -d 'Install a local package directory or .tar.gz archive' -r -F
complete -c orla -n "__fish_orla_using_subcommand install" -l registry -d 'Registry to install from: `builtin` or an index directory' -r
complete -c orla -n "__fish_orla_using_subcommand install" -l force -d 'Reinstall even if the version is already installed'
complete -c orla -n "__fish_orla_using_subcommand install" -s y -l yes -d 'Accept the tools\' permissions without asking'
complete -c orla -n "__fish_orla_using_subcommand install" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand install" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand install" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand uninstall" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand uninstall" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand uninstall" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand list" -l json -d 'Print a JSON array, one object per installed name and version'
complete -c orla -n "__fish_orla_using_subcommand list" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand list" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand list" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand completions" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand completions" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand completions" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list completions help" -f -a "install" -d 'Install tools from a registry, or a local package'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list completions help" -f -a "uninstall" -d 'Remove installed tools'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list completions help" -f -a "list" -d 'List installed tools'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list completions help" -f -a "completions" -d 'Print a shell completion script'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
