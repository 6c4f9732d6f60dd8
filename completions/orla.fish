# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_orla_global_optspecs
    string join \n q/quiet color= offline refresh allow-rollback message-format= h/help V/version
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

complete -c orla -n "__fish_orla_needs_command" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_needs_command" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_needs_command" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_needs_command" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_needs_command" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_needs_command" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c orla -n "__fish_orla_needs_command" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_needs_command" -f -a "install" -d 'Install tools from a registry, or a local package'
complete -c orla -n "__fish_orla_needs_command" -f -a "uninstall" -d 'Remove installed tools'
complete -c orla -n "__fish_orla_needs_command" -f -a "rm" -d 'Remove installed tools'
complete -c orla -n "__fish_orla_needs_command" -f -a "remove" -d 'Remove installed tools'
complete -c orla -n "__fish_orla_needs_command" -f -a "list" -d 'List installed tools'
complete -c orla -n "__fish_orla_needs_command" -f -a "ls" -d 'List installed tools'
complete -c orla -n "__fish_orla_needs_command" -f -a "init" -d 'Make a directory an orla project: write a commented orla.yaml'
complete -c orla -n "__fish_orla_needs_command" -f -a "use" -d 'Choose which installed version of a tool the manifest serves'
complete -c orla -n "__fish_orla_needs_command" -f -a "verify" -d 'Check installed tools against their install receipts'
complete -c orla -n "__fish_orla_needs_command" -f -a "search" -d 'Search the registries for tools'
complete -c orla -n "__fish_orla_needs_command" -f -a "info" -d 'Show a tool\'s versions, permissions and installs'
complete -c orla -n "__fish_orla_needs_command" -f -a "update" -d 'Move installed tools to their newest allowed version'
complete -c orla -n "__fish_orla_needs_command" -f -a "upgrade" -d 'Move installed tools to their newest allowed version'
complete -c orla -n "__fish_orla_needs_command" -f -a "run" -d 'Run a registry tool once without installing it (as uvx and npx do)'
complete -c orla -n "__fish_orla_needs_command" -f -a "which" -d 'Print the entrypoint the manifest serves for a tool'
complete -c orla -n "__fish_orla_needs_command" -f -a "dir" -d 'Print the directory tools are installed into'
complete -c orla -n "__fish_orla_needs_command" -f -a "cache" -d 'Manage the download and registry cache'
complete -c orla -n "__fish_orla_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c orla -n "__fish_orla_needs_command" -f -a "tool" -d 'Author tools: scaffold, validate, pack, publish, yank'
complete -c orla -n "__fish_orla_needs_command" -f -a "migrate" -d 'Move old formats to tool.yaml'
complete -c orla -n "__fish_orla_needs_command" -f -a "serve" -d 'Serve the installed tools to MCP clients (Streamable HTTP, or --stdio)'
complete -c orla -n "__fish_orla_needs_command" -f -a "export" -d 'Describe the installed tools for another runtime: openwop, Runloop, Orloj'
complete -c orla -n "__fish_orla_needs_command" -f -a "client" -d 'Configure MCP clients (Claude Desktop, Cursor, VS Code, goose...) to start `orla serve`'
complete -c orla -n "__fish_orla_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c orla -n "__fish_orla_using_subcommand install" -l local -d 'Install a local package directory or .tar.gz archive' -r -F
complete -c orla -n "__fish_orla_using_subcommand install" -l registry -d 'Registry to install from: a name from config.yaml or orla.yaml, `builtin`, an index directory, a git URL or a sparse+https:// URL [default: every configured registry, in order]' -r
complete -c orla -n "__fish_orla_using_subcommand install" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand install" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand install" -l force -d 'Reinstall even if the version is already installed'
complete -c orla -n "__fish_orla_using_subcommand install" -s y -l yes -d 'Accept the tools\' permissions without asking'
complete -c orla -n "__fish_orla_using_subcommand install" -l locked -d 'In a project: fail instead of changing orla.lock (for CI)'
complete -c orla -n "__fish_orla_using_subcommand install" -l frozen -d 'In a project: --locked, and no network: every archive must be local or cached'
complete -c orla -n "__fish_orla_using_subcommand install" -l strict -d 'Refuse tools whose interpreter or tool.yaml `dependencies` are missing (a warning otherwise)'
complete -c orla -n "__fish_orla_using_subcommand install" -l global -d 'Install into the global root (~/.orla or ORLA_HOME), even inside a project'
complete -c orla -n "__fish_orla_using_subcommand install" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand install" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand install" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand install" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand install" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand install" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand uninstall" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand uninstall" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand uninstall" -l global -d 'Remove from the global root (~/.orla or ORLA_HOME), even inside a project'
complete -c orla -n "__fish_orla_using_subcommand uninstall" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand uninstall" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand uninstall" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand uninstall" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand uninstall" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand uninstall" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand rm" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand rm" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand rm" -l global -d 'Remove from the global root (~/.orla or ORLA_HOME), even inside a project'
complete -c orla -n "__fish_orla_using_subcommand rm" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand rm" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand rm" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand rm" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand rm" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand rm" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand remove" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand remove" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand remove" -l global -d 'Remove from the global root (~/.orla or ORLA_HOME), even inside a project'
complete -c orla -n "__fish_orla_using_subcommand remove" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand remove" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand remove" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand remove" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand remove" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand remove" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand list" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand list" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand list" -l json -d 'Print a JSON array, one object per installed name and version'
complete -c orla -n "__fish_orla_using_subcommand list" -l global -d 'List the global root (~/.orla or ORLA_HOME), even inside a project'
complete -c orla -n "__fish_orla_using_subcommand list" -l project -d 'List only the project\'s own tools (an error outside a project)'
complete -c orla -n "__fish_orla_using_subcommand list" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand list" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand list" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand list" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand list" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand list" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand ls" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand ls" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand ls" -l json -d 'Print a JSON array, one object per installed name and version'
complete -c orla -n "__fish_orla_using_subcommand ls" -l global -d 'List the global root (~/.orla or ORLA_HOME), even inside a project'
complete -c orla -n "__fish_orla_using_subcommand ls" -l project -d 'List only the project\'s own tools (an error outside a project)'
complete -c orla -n "__fish_orla_using_subcommand ls" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand ls" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand ls" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand ls" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand ls" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand ls" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand init" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand init" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand init" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand init" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand init" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand init" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand init" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand init" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand use" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand use" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand use" -l global -d 'Act on the global root (~/.orla or ORLA_HOME), even inside a project'
complete -c orla -n "__fish_orla_using_subcommand use" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand use" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand use" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand use" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand use" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand use" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand verify" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand verify" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand verify" -l json -d 'Print a JSON array, one object per installed name and version'
complete -c orla -n "__fish_orla_using_subcommand verify" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand verify" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand verify" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand verify" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand verify" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand verify" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand search" -l registry -d 'Search only this registry (a configured name or a location)' -r
complete -c orla -n "__fish_orla_using_subcommand search" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand search" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand search" -l json -d 'Print a JSON array, best match first'
complete -c orla -n "__fish_orla_using_subcommand search" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand search" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand search" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand search" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand search" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand search" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand info" -l registry -d 'Look only in this registry (a configured name or a location)' -r
complete -c orla -n "__fish_orla_using_subcommand info" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand info" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand info" -l json -d 'Print a JSON object'
complete -c orla -n "__fish_orla_using_subcommand info" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand info" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand info" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand info" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand info" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand info" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand update" -l registry -d 'Registry to update from (a configured name or a location)' -r
complete -c orla -n "__fish_orla_using_subcommand update" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand update" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand update" -l dry-run -d 'Show what would change, and change nothing'
complete -c orla -n "__fish_orla_using_subcommand update" -s y -l yes -d 'Accept the new versions\' permissions without asking'
complete -c orla -n "__fish_orla_using_subcommand update" -l global -d 'Update the global root\'s tools (~/.orla or ORLA_HOME), even inside a project'
complete -c orla -n "__fish_orla_using_subcommand update" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand update" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand update" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand update" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand update" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand update" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand upgrade" -l registry -d 'Registry to update from (a configured name or a location)' -r
complete -c orla -n "__fish_orla_using_subcommand upgrade" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand upgrade" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand upgrade" -l dry-run -d 'Show what would change, and change nothing'
complete -c orla -n "__fish_orla_using_subcommand upgrade" -s y -l yes -d 'Accept the new versions\' permissions without asking'
complete -c orla -n "__fish_orla_using_subcommand upgrade" -l global -d 'Update the global root\'s tools (~/.orla or ORLA_HOME), even inside a project'
complete -c orla -n "__fish_orla_using_subcommand upgrade" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand upgrade" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand upgrade" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand upgrade" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand upgrade" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand upgrade" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand run" -l registry -d 'Registry to take the tool from (a configured name or a location)' -r
complete -c orla -n "__fish_orla_using_subcommand run" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand run" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand run" -s y -l yes -d 'Accept the tool\'s permissions without asking'
complete -c orla -n "__fish_orla_using_subcommand run" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand run" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand run" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand run" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand run" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand run" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand which" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand which" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand which" -l global -d 'Look in the global root (~/.orla or ORLA_HOME), even inside a project'
complete -c orla -n "__fish_orla_using_subcommand which" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand which" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand which" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand which" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand which" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand which" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand dir" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand dir" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand dir" -l global -d 'The global root\'s directory (~/.orla/tools or ORLA_HOME/tools), even inside a project'
complete -c orla -n "__fish_orla_using_subcommand dir" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand dir" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand dir" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand dir" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand dir" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand dir" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand cache; and not __fish_seen_subcommand_from clear dir prune help" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand cache; and not __fish_seen_subcommand_from clear dir prune help" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand cache; and not __fish_seen_subcommand_from clear dir prune help" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand cache; and not __fish_seen_subcommand_from clear dir prune help" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand cache; and not __fish_seen_subcommand_from clear dir prune help" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand cache; and not __fish_seen_subcommand_from clear dir prune help" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand cache; and not __fish_seen_subcommand_from clear dir prune help" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand cache; and not __fish_seen_subcommand_from clear dir prune help" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand cache; and not __fish_seen_subcommand_from clear dir prune help" -f -a "clear" -d 'Remove everything in the cache (it is fetched again when needed)'
complete -c orla -n "__fish_orla_using_subcommand cache; and not __fish_seen_subcommand_from clear dir prune help" -f -a "dir" -d 'Print the cache directory'
complete -c orla -n "__fish_orla_using_subcommand cache; and not __fish_seen_subcommand_from clear dir prune help" -f -a "prune" -d 'Remove what is old and unneeded: packages no install shares and archives, repositories and clones of registries not configured here, unused for --max-age'
complete -c orla -n "__fish_orla_using_subcommand cache; and not __fish_seen_subcommand_from clear dir prune help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from clear" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from clear" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from clear" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from clear" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from clear" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from clear" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from clear" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from clear" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from dir" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from dir" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from dir" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from dir" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from dir" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from dir" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from dir" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from dir" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from prune" -l max-age -d 'Remove what was not used for this long: 30d, 12h, 90m, 0 for any age' -r
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from prune" -l max-size -d 'Then remove the least recently used packages until the rest take at most this: 500M, 2G' -r
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from prune" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from prune" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from prune" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from prune" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from prune" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from prune" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from prune" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from prune" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from help" -f -a "clear" -d 'Remove everything in the cache (it is fetched again when needed)'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from help" -f -a "dir" -d 'Print the cache directory'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from help" -f -a "prune" -d 'Remove what is old and unneeded: packages no install shares and archives, repositories and clones of registries not configured here, unused for --max-age'
complete -c orla -n "__fish_orla_using_subcommand cache; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c orla -n "__fish_orla_using_subcommand completions" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand completions" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand completions" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand completions" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand completions" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand completions" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand completions" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand completions" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand tool; and not __fish_seen_subcommand_from scaffold validate pack publish yank help" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand tool; and not __fish_seen_subcommand_from scaffold validate pack publish yank help" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand tool; and not __fish_seen_subcommand_from scaffold validate pack publish yank help" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand tool; and not __fish_seen_subcommand_from scaffold validate pack publish yank help" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand tool; and not __fish_seen_subcommand_from scaffold validate pack publish yank help" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand tool; and not __fish_seen_subcommand_from scaffold validate pack publish yank help" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
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
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l arguments -d 'How a simple tool takes its arguments (default json); capsules speak JSON-RPC' -r -f -a "json\t'One JSON object on stdin'
flags\t'One `--name value` flag per argument, as the Orla runtime passes them'"
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l permission -d 'A permission the tool needs: filesystem:read, filesystem:write, network, process:exec (repeatable)' -r
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l param -d 'An input parameter NAME:TYPE, TYPE one of string, number, integer, boolean, object, array; a trailing \'?\' makes it optional (repeatable) [default: message:string]' -r
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l tool-version -d 'The version to start at [default: 0.1.0]' -r
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l author -d 'Author or maintainer' -r
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l license -d 'SPDX license identifier, written to LICENSE (`none` for no license) [default: none]' -r
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -s y -l yes -d 'Ask nothing: take every answer from the flags and their defaults'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l force -d 'Write into an existing, non-empty directory, replacing the files scaffold writes'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from scaffold" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from validate" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from validate" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from validate" -l json -d 'Print the problems as JSON'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from validate" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from validate" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from validate" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from validate" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from validate" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from validate" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from pack" -s o -l output -d 'Where to write the archive: a file, or an existing directory [default: ./NAME-VERSION.tar.gz]' -r -F
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from pack" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from pack" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from pack" -l json -d 'Print the result as JSON'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from pack" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from pack" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from pack" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from pack" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from pack" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from pack" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from publish" -l index -d 'The registry index to publish into' -r
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from publish" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from publish" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from publish" -l init -d 'Create the index (config.json, registry.yaml) if it has none'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from publish" -l json -d 'Print the published record as JSON'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from publish" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from publish" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from publish" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from publish" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from publish" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from publish" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from yank" -l index -d 'The registry index' -r
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from yank" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from yank" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from yank" -l undo -d 'Un-yank: make the version installable by ranges again'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from yank" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from yank" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from yank" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from yank" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from yank" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from yank" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "scaffold" -d 'Create a new tool package: a wizard on a terminal, flags otherwise'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "validate" -d 'Check a tool package and report every problem at once'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "pack" -d 'Pack a tool package into a reproducible NAME-VERSION.tar.gz'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "publish" -d 'Publish a tool package into a registry index'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "yank" -d 'Mark a published version as yanked (or, with --undo, not yanked)'
complete -c orla -n "__fish_orla_using_subcommand tool; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c orla -n "__fish_orla_using_subcommand migrate; and not __fish_seen_subcommand_from capsule help" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand migrate; and not __fish_seen_subcommand_from capsule help" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand migrate; and not __fish_seen_subcommand_from capsule help" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand migrate; and not __fish_seen_subcommand_from capsule help" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand migrate; and not __fish_seen_subcommand_from capsule help" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand migrate; and not __fish_seen_subcommand_from capsule help" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand migrate; and not __fish_seen_subcommand_from capsule help" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand migrate; and not __fish_seen_subcommand_from capsule help" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand migrate; and not __fish_seen_subcommand_from capsule help" -f -a "capsule" -d 'Turn an RFC 2 capsule (orla-tool.json) into a tool.yaml package'
complete -c orla -n "__fish_orla_using_subcommand migrate; and not __fish_seen_subcommand_from capsule help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from capsule" -l all -d 'Migrate every capsule under this tools directory' -r -F
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from capsule" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from capsule" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from capsule" -l dry-run -d 'Only print the tool.yaml that would be written'
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from capsule" -l remove-legacy -d 'Delete orla-tool.json instead of keeping orla-tool.json.bak'
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from capsule" -l force -d 'Replace an existing tool.yaml that differs from the migrated one'
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from capsule" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from capsule" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from capsule" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from capsule" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from capsule" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from capsule" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from help" -f -a "capsule" -d 'Turn an RFC 2 capsule (orla-tool.json) into a tool.yaml package'
complete -c orla -n "__fish_orla_using_subcommand migrate; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c orla -n "__fish_orla_using_subcommand serve" -l port -d 'HTTP port [default: orla.yaml `port`, else 8080; 0 picks a free one]' -r
complete -c orla -n "__fish_orla_using_subcommand serve" -l host -d 'Address to listen on; anything but loopback exposes the tools to the network' -r
complete -c orla -n "__fish_orla_using_subcommand serve" -l allow-origin -d 'Also accept browser requests from this Origin (loopback origins always are)' -r
complete -c orla -n "__fish_orla_using_subcommand serve" -l project -d 'Serve the project in DIR (its orla.yaml, or a parent\'s), wherever orla starts' -r -F
complete -c orla -n "__fish_orla_using_subcommand serve" -l log-format -d 'Log format on stderr [default: orla.yaml `log_format`, else json]' -r -f -a "json\t''
pretty\t''"
complete -c orla -n "__fish_orla_using_subcommand serve" -l log-level -d 'Log level [default: orla.yaml `log_level`, else info]' -r -f -a "debug\t''
info\t''
warn\t''
error\t''
fatal\t''"
complete -c orla -n "__fish_orla_using_subcommand serve" -l max-calls -d 'Tool calls run at once; more wait their turn' -r
complete -c orla -n "__fish_orla_using_subcommand serve" -l max-sessions -d 'HTTP sessions open at once; a client beyond is told to retry later (503)' -r
complete -c orla -n "__fish_orla_using_subcommand serve" -l token-file -d 'Require `Authorization: Bearer TOKEN` of HTTP clients, TOKEN read from FILE (or ORLA_SERVE_TOKEN)' -r -F
complete -c orla -n "__fish_orla_using_subcommand serve" -l session-idle -d 'Close an HTTP session after this many seconds without a request' -r
complete -c orla -n "__fish_orla_using_subcommand serve" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand serve" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand serve" -l stdio -d 'Speak MCP on stdin and stdout, as an MCP client that starts orla expects'
complete -c orla -n "__fish_orla_using_subcommand serve" -l global -d 'Serve the global root (~/.orla or ORLA_HOME), even inside a project'
complete -c orla -n "__fish_orla_using_subcommand serve" -l generate-token -d 'Make up a bearer token, print it once on stdout, and require it of HTTP clients'
complete -c orla -n "__fish_orla_using_subcommand serve" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand serve" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand serve" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand serve" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand serve" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand serve" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand export" -l format -d 'The format to write' -r -f -a "openwop\t'openwop\'s tool catalog: a JSON array of ToolDescriptors (RFC 0078)'
runloop\t'A Runloop bundle\'s tools.json (version 1)'
orloj\t'Orloj `kind: Tool` resources, one YAML document per tool'"
complete -c orla -n "__fish_orla_using_subcommand export" -s o -l output -d 'Write to FILE instead of stdout' -r -F
complete -c orla -n "__fish_orla_using_subcommand export" -l bundle -d 'Runloop: write tools.json into the bundle in DIR and record its BLAKE3 in DIR/manifest.toml' -r -F
complete -c orla -n "__fish_orla_using_subcommand export" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand export" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand export" -l global -d 'Export the global root\'s tools (~/.orla or ORLA_HOME), even inside a project'
complete -c orla -n "__fish_orla_using_subcommand export" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand export" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand export" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand export" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c orla -n "__fish_orla_using_subcommand export" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand client; and not __fish_seen_subcommand_from add remove list help" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand client; and not __fish_seen_subcommand_from add remove list help" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand client; and not __fish_seen_subcommand_from add remove list help" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand client; and not __fish_seen_subcommand_from add remove list help" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand client; and not __fish_seen_subcommand_from add remove list help" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand client; and not __fish_seen_subcommand_from add remove list help" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand client; and not __fish_seen_subcommand_from add remove list help" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand client; and not __fish_seen_subcommand_from add remove list help" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand client; and not __fish_seen_subcommand_from add remove list help" -f -a "add" -d 'Add the entry that makes a client start `orla serve --stdio`, or reach one over HTTP'
complete -c orla -n "__fish_orla_using_subcommand client; and not __fish_seen_subcommand_from add remove list help" -f -a "remove" -d 'Remove orla\'s entry from a client\'s configuration'
complete -c orla -n "__fish_orla_using_subcommand client; and not __fish_seen_subcommand_from add remove list help" -f -a "list" -d 'Show which clients are configured to start orla'
complete -c orla -n "__fish_orla_using_subcommand client; and not __fish_seen_subcommand_from add remove list help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from add" -l name -d 'The entry\'s name [default: orla, or orla-<directory> for a project]' -r
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from add" -l config -d 'The client\'s configuration file [default: where the client reads it]' -r -F
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from add" -l url -d 'Reach an `orla serve` already running over HTTP at this URL (ending in /mcp) instead of starting one' -r
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from add" -l token-env -d 'The environment variable the client takes the server\'s bearer token from' -r
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from add" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from add" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from add" -l global -d 'Use the global root even inside a project'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from add" -l dry-run -d 'Print the change without writing anything'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from add" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from add" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from add" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from add" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from remove" -l name -d 'The entry\'s name [default: orla, or orla-<directory> for a project]' -r
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from remove" -l config -d 'The client\'s configuration file [default: where the client reads it]' -r -F
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from remove" -l url -d 'Reach an `orla serve` already running over HTTP at this URL (ending in /mcp) instead of starting one' -r
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from remove" -l token-env -d 'The environment variable the client takes the server\'s bearer token from' -r
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from remove" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from remove" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from remove" -l global -d 'Use the global root even inside a project'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from remove" -l dry-run -d 'Print the change without writing anything'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from remove" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from remove" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from remove" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from remove" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from remove" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from remove" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from list" -l color -d 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from list" -l message-format -d 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)' -r -f -a "human\t''
json\t''"
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from list" -l json -d 'Print a JSON array, one object per client'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only errors and warnings'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from list" -l offline -d 'Use no network: registries and archives come from the cache'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from list" -l refresh -d 'Fetch git registries now, even if their cached copy is fresh'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from list" -l allow-rollback -d 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from help" -f -a "add" -d 'Add the entry that makes a client start `orla serve --stdio`, or reach one over HTTP'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from help" -f -a "remove" -d 'Remove orla\'s entry from a client\'s configuration'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from help" -f -a "list" -d 'Show which clients are configured to start orla'
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "install" -d 'Install tools from a registry, or a local package'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "uninstall" -d 'Remove installed tools'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "list" -d 'List installed tools'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "init" -d 'Make a directory an orla project: write a commented orla.yaml'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "use" -d 'Choose which installed version of a tool the manifest serves'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "verify" -d 'Check installed tools against their install receipts'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "search" -d 'Search the registries for tools'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "info" -d 'Show a tool\'s versions, permissions and installs'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "update" -d 'Move installed tools to their newest allowed version'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "run" -d 'Run a registry tool once without installing it (as uvx and npx do)'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "which" -d 'Print the entrypoint the manifest serves for a tool'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "dir" -d 'Print the directory tools are installed into'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "cache" -d 'Manage the download and registry cache'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "completions" -d 'Print a shell completion script'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "tool" -d 'Author tools: scaffold, validate, pack, publish, yank'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "migrate" -d 'Move old formats to tool.yaml'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "serve" -d 'Serve the installed tools to MCP clients (Streamable HTTP, or --stdio)'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "export" -d 'Describe the installed tools for another runtime: openwop, Runloop, Orloj'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "client" -d 'Configure MCP clients (Claude Desktop, Cursor, VS Code, goose...) to start `orla serve`'
complete -c orla -n "__fish_orla_using_subcommand help; and not __fish_seen_subcommand_from install uninstall list init use verify search info update run which dir cache completions tool migrate serve export client help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c orla -n "__fish_orla_using_subcommand help; and __fish_seen_subcommand_from cache" -f -a "clear" -d 'Remove everything in the cache (it is fetched again when needed)'
complete -c orla -n "__fish_orla_using_subcommand help; and __fish_seen_subcommand_from cache" -f -a "dir" -d 'Print the cache directory'
complete -c orla -n "__fish_orla_using_subcommand help; and __fish_seen_subcommand_from cache" -f -a "prune" -d 'Remove what is old and unneeded: packages no install shares and archives, repositories and clones of registries not configured here, unused for --max-age'
complete -c orla -n "__fish_orla_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "scaffold" -d 'Create a new tool package: a wizard on a terminal, flags otherwise'
complete -c orla -n "__fish_orla_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "validate" -d 'Check a tool package and report every problem at once'
complete -c orla -n "__fish_orla_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "pack" -d 'Pack a tool package into a reproducible NAME-VERSION.tar.gz'
complete -c orla -n "__fish_orla_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "publish" -d 'Publish a tool package into a registry index'
complete -c orla -n "__fish_orla_using_subcommand help; and __fish_seen_subcommand_from tool" -f -a "yank" -d 'Mark a published version as yanked (or, with --undo, not yanked)'
complete -c orla -n "__fish_orla_using_subcommand help; and __fish_seen_subcommand_from migrate" -f -a "capsule" -d 'Turn an RFC 2 capsule (orla-tool.json) into a tool.yaml package'
complete -c orla -n "__fish_orla_using_subcommand help; and __fish_seen_subcommand_from client" -f -a "add" -d 'Add the entry that makes a client start `orla serve --stdio`, or reach one over HTTP'
complete -c orla -n "__fish_orla_using_subcommand help; and __fish_seen_subcommand_from client" -f -a "remove" -d 'Remove orla\'s entry from a client\'s configuration'
complete -c orla -n "__fish_orla_using_subcommand help; and __fish_seen_subcommand_from client" -f -a "list" -d 'Show which clients are configured to start orla'
complete -c orla -n "__fish_orla_using_subcommand uninstall; or __fish_orla_using_subcommand rm; or __fish_orla_using_subcommand remove; or __fish_orla_using_subcommand un; or __fish_orla_using_subcommand use; or __fish_orla_using_subcommand which; or __fish_orla_using_subcommand verify; or __fish_orla_using_subcommand update; or __fish_orla_using_subcommand upgrade" -f -a "(orla __complete installed (commandline -ct) 2>/dev/null)"
complete -c orla -n "__fish_orla_using_subcommand install; or __fish_orla_using_subcommand run; or __fish_orla_using_subcommand info; or __fish_orla_using_subcommand search" -f -a "(orla __complete available (commandline -ct) 2>/dev/null)"
complete -c orla -n "__fish_orla_using_subcommand client; and __fish_seen_subcommand_from add remove" -f -a "claude-desktop cursor vscode windsurf goose"
