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
complete -c orla -n "__fish_orla_needs_command" -f -a "verify" -d 'Check installed tools against their install receipts'
complete -c orla -n "__fish_orla_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c orla -n "__fish_orla_needs_command" -f -a "tool" -d 'Author tools: scaffold, validate, pack, publish, yank'
complete -c orla -n "__fish_orla_needs_command" -f -a "migrate" -d 'Move old formats to tool.yaml'
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
complete -c orla -n "__fish_orla_using_subcommand verify" -l json -d 'Print a JSON array, one object per installed name and version'
complete -c orla -n "__fish_orla_using_subcommand verify" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand verify" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand verify" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand completions" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand completions" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand completions" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand tool; and not __fish_seen_subcommand_from scaffold validate pack publish yank help" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand tool; and not __fish_seen_subcommand_from scaffold validate pack publish yank help" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand tool; and not __fish_seen_subcommand_from scaffold validate pack publish yank help" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand tool; and not __fish_seen_subcommand_from scaffold validate pack publish yank help" -f -a "scaffold" -d 'Create a new tool package: a wizard on a terminal, flags otherwise'
complete -c orla -n "__fish_orla_using_subcommand tool; and not __fish_seen_subcommand_from scaffold validate pack publish yank help" -f -a "validate" -d 'Check a tool package and report every problem at once'
complete -c orla -n "__fish_orla_using_subcommand tool; and not __fish_seen_subcommand_from scaffold validate pack publish yank help" -f -a "pack" -d 'Pack a tool package into a reproducible NAME-VERSION.tar.gz'
complete -c orla -n "__fish_orla_using_subcommand tool; and not __fish_seen_subcommand_from scaffold validate pack publish yank help" -f -a "publish" -d 'Publish a tool package into a registry index'
complete -c orla -n "__fish_orla_using_subcommand tool; and not __fish_seen_subcommand_from scaffold validate pack publish yank help" -f -a "yank" -d 'Mark a published version as yanked (or, with --undo, not yanked)'
complete -c orla -n "__fish_orla_using_subcommand tool; and not __fish_seen_subcommand_from scaffold validate pack publish yank help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l dir -d 'Directory to create [default: ./NAME]' -r -F
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l description -d 'One line saying what the tool does' -r
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l language -d 'Language of the entrypoint [default: bash]' -r -f -a "bash\t''
python\t''
node\t''
binary\t'A prebuilt executable (see --binary)'"
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l binary -d 'With --language binary: the executable to copy into bin/NAME' -r -F
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l mode -d 'simple (one process per request) or capsule (long-running) [default: simple]' -r -f -a "simple\t'Run once per request: JSON arguments on stdin, JSON answer on stdout'
capsule\t'A long-running process with the orla.hello handshake (RFC 3 5.3.1)'"
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l permission -d 'A permission the tool needs: filesystem:read, filesystem:write, network, process:exec (repeatable)' -r
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l param -d 'An input parameter NAME:TYPE, TYPE one of string, number, integer, boolean, object, array; a trailing \'?\' makes it optional (repeatable) [default: message:string]' -r
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l tool-version -d 'The version to start at [default: 0.1.0]' -r
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l author -d 'Author or maintainer' -r
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l license -d 'SPDX license identifier, written to LICENSE (`none` for no license) [default: none]' -r
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -s y -l yes -d 'Ask nothing: take every answer from the flags and their defaults'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l force -d 'Write into an existing, non-empty directory, replacing the files scaffold writes'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from validate" -l json -d 'Print the problems as JSON'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from validate" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from validate" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from validate" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from pack" -s o -l output -d 'Where to write the archive: a file, or an existing directory [default: ./NAME-VERSION.tar.gz]' -r -F
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from pack" -l json -d 'Print the result as JSON'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from pack" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from pack" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from pack" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from publish" -l index -d 'The registry index to publish into' -r
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from publish" -l init -d 'Create the index (config.json, registry.yaml) if it has none'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from publish" -l json -d 'Print the published record as JSON'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from publish" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from publish" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from publish" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from yank" -l index -d 'The registry index' -r
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from yank" -l undo -d 'Un-yank: make the version installable by ranges again'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from yank" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from yank" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from yank" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "scaffold" -d 'Create a new tool package: a wizard on a terminal, flags otherwise'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "validate" -d 'Check a tool package and report every problem at once'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "pack" -d 'Pack a tool package into a reproducible NAME-VERSION.tar.gz'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "publish" -d 'Publish a tool package into a registry index'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "yank" -d 'Mark a published version as yanked (or, with --undo, not yanked)'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c orla -n "__fish_orla_using_subcommand migrate; and not __fish_seen_subcommand_from capsule help" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand migrate; and not __fish_seen_subcommand_from capsule help" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand migrate; and not __fish_seen_subcommand_from capsule help" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand migrate; and not __fish_seen_subcommand_from capsule help" -f -a "capsule" -d 'Turn an RFC 2 capsule (orla-tool.json) into a tool.yaml package'
complete -c orla -n "__fish_orla_using_subcommand migrate; and not __fish_seen_subcommand_from capsule help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from capsule" -l all -d 'Migrate every capsule under this tools directory' -r -F
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from capsule" -l dry-run -d 'Only print the tool.yaml that would be written'
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from capsule" -l remove-legacy -d 'Delete orla-tool.json instead of keeping orla-tool.json.bak'
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from capsule" -l force -d 'Replace an existing tool.yaml that differs from the migrated one'
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from capsule" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from capsule" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from capsule" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from help" -f -a "capsule" -d 'Turn an RFC 2 capsule (orla-tool.json) into a tool.yaml package'
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list verify completions tool migrate help" -f -a "install" -d 'Install tools from a registry, or a local package'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list verify completions tool migrate help" -f -a "uninstall" -d 'Remove installed tools'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list verify completions tool migrate help" -f -a "list" -d 'List installed tools'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list verify completions tool migrate help" -f -a "verify" -d 'Check installed tools against their install receipts'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list verify completions tool migrate help" -f -a "completions" -d 'Print a shell completion script'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list verify completions tool migrate help" -f -a "tool" -d 'Author tools: scaffold, validate, pack, publish, yank'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list verify completions tool migrate help" -f -a "migrate" -d 'Move old formats to tool.yaml'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list verify completions tool migrate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c orla -n "__fish_orla_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "scaffold" -d 'Create a new tool package: a wizard on a terminal, flags otherwise'
complete -c orla -n "__fish_orla_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "validate" -d 'Check a tool package and report every problem at once'
complete -c orla -n "__fish_orla_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "pack" -d 'Pack a tool package into a reproducible NAME-VERSION.tar.gz'
complete -c orla -n "__fish_orla_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "publish" -d 'Publish a tool package into a registry index'
complete -c orla -n "__fish_orla_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "yank" -d 'Mark a published version as yanked (or, with --undo, not yanked)'
complete -c orla -n "__fish_orla_using_subcommand help; and __fish_seen_subcommand_from migrate" -f -a "capsule" -d 'Turn an RFC 2 capsule (orla-tool.json) into a tool.yaml package'
