
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
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand install 'Install tools from a registry, or a local package'
            cand uninstall 'Remove installed tools'
            cand rm 'Remove installed tools'
            cand remove 'Remove installed tools'
            cand list 'List installed tools'
            cand ls 'List installed tools'
            cand init 'Make a directory an orla project: write a commented orla.yaml'
            cand use 'Choose which installed version of a tool the manifest serves'
            cand verify 'Check installed tools against their install receipts'
            cand search 'Search the registries for tools'
            cand info 'Show a tool''s versions, permissions and installs'
            cand update 'Move installed tools to their newest allowed version'
            cand upgrade 'Move installed tools to their newest allowed version'
            cand run 'Run a registry tool once without installing it (as uvx and npx do)'
            cand which 'Print the entrypoint the manifest serves for a tool'
            cand dir 'Print the directory tools are installed into'
            cand cache 'Manage the download and registry cache'
            cand completions 'Print a shell completion script'
            cand tool 'Author tools: scaffold, validate, pack, publish, yank'
            cand migrate 'Move old formats to tool.yaml'
            cand serve 'Serve the installed tools to MCP clients (Streamable HTTP, or --stdio)'
            cand export 'Describe the installed tools for another runtime: openwop, Runloop, Orloj'
            cand client 'Configure MCP clients (Claude Desktop, Cursor, VS Code, goose...) to start `orla serve`'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'orla;install'= {
            cand --local 'Install a local package directory or .tar.gz archive'
            cand --registry 'Registry to install from: a name from config.yaml or orla.yaml, `builtin`, an index directory, a git URL or a sparse+https:// URL [default: every configured registry, in order]'
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --force 'Reinstall even if the version is already installed'
            cand -y 'Accept the tools'' permissions without asking'
            cand --yes 'Accept the tools'' permissions without asking'
            cand --locked 'In a project: fail instead of changing orla.lock (for CI)'
            cand --frozen 'In a project: --locked, and no network: every archive must be local or cached'
            cand --strict 'Refuse tools whose interpreter or tool.yaml `dependencies` are missing (a warning otherwise)'
            cand --global 'Install into the global root (~/.orla or ORLA_HOME), even inside a project'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;uninstall'= {
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --global 'Remove from the global root (~/.orla or ORLA_HOME), even inside a project'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;rm'= {
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --global 'Remove from the global root (~/.orla or ORLA_HOME), even inside a project'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;remove'= {
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --global 'Remove from the global root (~/.orla or ORLA_HOME), even inside a project'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;list'= {
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --json 'Print a JSON array, one object per installed name and version'
            cand --global 'List the global root (~/.orla or ORLA_HOME), even inside a project'
            cand --project 'List only the project''s own tools (an error outside a project)'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;ls'= {
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --json 'Print a JSON array, one object per installed name and version'
            cand --global 'List the global root (~/.orla or ORLA_HOME), even inside a project'
            cand --project 'List only the project''s own tools (an error outside a project)'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;init'= {
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;use'= {
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --global 'Act on the global root (~/.orla or ORLA_HOME), even inside a project'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;verify'= {
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --json 'Print a JSON array, one object per installed name and version'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;search'= {
            cand --registry 'Search only this registry (a configured name or a location)'
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --json 'Print a JSON array, best match first'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;info'= {
            cand --registry 'Look only in this registry (a configured name or a location)'
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --json 'Print a JSON object'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;update'= {
            cand --registry 'Registry to update from (a configured name or a location)'
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --dry-run 'Show what would change, and change nothing'
            cand -y 'Accept the new versions'' permissions without asking'
            cand --yes 'Accept the new versions'' permissions without asking'
            cand --global 'Update the global root''s tools (~/.orla or ORLA_HOME), even inside a project'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;upgrade'= {
            cand --registry 'Registry to update from (a configured name or a location)'
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --dry-run 'Show what would change, and change nothing'
            cand -y 'Accept the new versions'' permissions without asking'
            cand --yes 'Accept the new versions'' permissions without asking'
            cand --global 'Update the global root''s tools (~/.orla or ORLA_HOME), even inside a project'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;run'= {
            cand --registry 'Registry to take the tool from (a configured name or a location)'
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand -y 'Accept the tool''s permissions without asking'
            cand --yes 'Accept the tool''s permissions without asking'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;which'= {
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --global 'Look in the global root (~/.orla or ORLA_HOME), even inside a project'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;dir'= {
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --global 'The global root''s directory (~/.orla/tools or ORLA_HOME/tools), even inside a project'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;cache'= {
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand clear 'Remove everything in the cache (it is fetched again when needed)'
            cand dir 'Print the cache directory'
            cand prune 'Remove what is old and unneeded: packages no install shares and archives, repositories and clones of registries not configured here, unused for --max-age'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'orla;cache;clear'= {
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;cache;dir'= {
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;cache;prune'= {
            cand --max-age 'Remove what was not used for this long: 30d, 12h, 90m, 0 for any age'
            cand --max-size 'Then remove the least recently used packages until the rest take at most this: 500M, 2G'
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;cache;help'= {
            cand clear 'Remove everything in the cache (it is fetched again when needed)'
            cand dir 'Print the cache directory'
            cand prune 'Remove what is old and unneeded: packages no install shares and archives, repositories and clones of registries not configured here, unused for --max-age'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'orla;cache;help;clear'= {
        }
        &'orla;cache;help;dir'= {
        }
        &'orla;cache;help;prune'= {
        }
        &'orla;cache;help;help'= {
        }
        &'orla;completions'= {
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;tool'= {
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand scaffold 'Create a new tool package: a wizard on a terminal, flags otherwise'
            cand validate 'Check a tool package and report every problem at once'
            cand pack 'Pack a tool package into a reproducible NAME-VERSION.tar.gz'
            cand publish 'Publish a tool package into a registry index'
            cand yank 'Mark a published version as yanked (or, with --undo, not yanked)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'orla;tool;scaffold'= {
            cand --dir 'Directory to create [default: ./NAME]'
            cand --description 'One line saying what the tool does'
            cand --language 'Language of the entrypoint [default: bash]'
            cand --binary 'With --language binary: the executable to copy into bin/NAME'
            cand --mode 'simple (one process per request) or capsule (long-running) [default: simple]'
            cand --arguments 'How a simple tool takes its arguments (default json); capsules speak JSON-RPC'
            cand --permission 'A permission the tool needs: filesystem:read, filesystem:write, network, process:exec (repeatable)'
            cand --param 'An input parameter NAME:TYPE, TYPE one of string, number, integer, boolean, object, array; a trailing ''?'' makes it optional (repeatable) [default: message:string]'
            cand --tool-version 'The version to start at [default: 0.1.0]'
            cand --author 'Author or maintainer'
            cand --license 'SPDX license identifier, written to LICENSE (`none` for no license) [default: none]'
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand -y 'Ask nothing: take every answer from the flags and their defaults'
            cand --yes 'Ask nothing: take every answer from the flags and their defaults'
            cand --force 'Write into an existing, non-empty directory, replacing the files scaffold writes'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;tool;validate'= {
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --json 'Print the problems as JSON'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;tool;pack'= {
            cand -o 'Where to write the archive: a file, or an existing directory [default: ./NAME-VERSION.tar.gz]'
            cand --output 'Where to write the archive: a file, or an existing directory [default: ./NAME-VERSION.tar.gz]'
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --json 'Print the result as JSON'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;tool;publish'= {
            cand --index 'The registry index to publish into'
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --init 'Create the index (config.json, registry.yaml) if it has none'
            cand --json 'Print the published record as JSON'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;tool;yank'= {
            cand --index 'The registry index'
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --undo 'Un-yank: make the version installable by ranges again'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;tool;help'= {
            cand scaffold 'Create a new tool package: a wizard on a terminal, flags otherwise'
            cand validate 'Check a tool package and report every problem at once'
            cand pack 'Pack a tool package into a reproducible NAME-VERSION.tar.gz'
            cand publish 'Publish a tool package into a registry index'
            cand yank 'Mark a published version as yanked (or, with --undo, not yanked)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'orla;tool;help;scaffold'= {
        }
        &'orla;tool;help;validate'= {
        }
        &'orla;tool;help;pack'= {
        }
        &'orla;tool;help;publish'= {
        }
        &'orla;tool;help;yank'= {
        }
        &'orla;tool;help;help'= {
        }
        &'orla;migrate'= {
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand capsule 'Turn an RFC 2 capsule (orla-tool.json) into a tool.yaml package'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'orla;migrate;capsule'= {
            cand --all 'Migrate every capsule under this tools directory'
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --dry-run 'Only print the tool.yaml that would be written'
            cand --remove-legacy 'Delete orla-tool.json instead of keeping orla-tool.json.bak'
            cand --force 'Replace an existing tool.yaml that differs from the migrated one'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;migrate;help'= {
            cand capsule 'Turn an RFC 2 capsule (orla-tool.json) into a tool.yaml package'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'orla;migrate;help;capsule'= {
        }
        &'orla;migrate;help;help'= {
        }
        &'orla;serve'= {
            cand --port 'HTTP port [default: orla.yaml `port`, else 8080; 0 picks a free one]'
            cand --host 'Address to listen on; anything but loopback exposes the tools to the network'
            cand --allow-origin 'Also accept browser requests from this Origin (loopback origins always are)'
            cand --project 'Serve the project in DIR (its orla.yaml, or a parent''s), wherever orla starts'
            cand --log-format 'Log format on stderr [default: orla.yaml `log_format`, else json]'
            cand --log-level 'Log level [default: orla.yaml `log_level`, else info]'
            cand --max-calls 'Tool calls run at once; more wait their turn'
            cand --max-sessions 'HTTP sessions open at once; a client beyond is told to retry later (503)'
            cand --token-file 'Require `Authorization: Bearer TOKEN` of HTTP clients, TOKEN read from FILE (or ORLA_SERVE_TOKEN)'
            cand --session-idle 'Close an HTTP session after this many seconds without a request'
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --stdio 'Speak MCP on stdin and stdout, as an MCP client that starts orla expects'
            cand --global 'Serve the global root (~/.orla or ORLA_HOME), even inside a project'
            cand --generate-token 'Make up a bearer token, print it once on stdout, and require it of HTTP clients'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;export'= {
            cand --format 'The format to write'
            cand -o 'Write to FILE instead of stdout'
            cand --output 'Write to FILE instead of stdout'
            cand --bundle 'Runloop: write tools.json into the bundle in DIR and record its BLAKE3 in DIR/manifest.toml'
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --global 'Export the global root''s tools (~/.orla or ORLA_HOME), even inside a project'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;client'= {
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand add 'Add the entry that makes a client start `orla serve --stdio`, or reach one over HTTP'
            cand remove 'Remove orla''s entry from a client''s configuration'
            cand list 'Show which clients are configured to start orla'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'orla;client;add'= {
            cand --name 'The entry''s name [default: orla, or orla-<directory> for a project]'
            cand --config 'The client''s configuration file [default: where the client reads it]'
            cand --url 'Reach an `orla serve` already running over HTTP at this URL (ending in /mcp) instead of starting one'
            cand --token-env 'The environment variable the client takes the server''s bearer token from'
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --global 'Use the global root even inside a project'
            cand --dry-run 'Print the change without writing anything'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;client;remove'= {
            cand --name 'The entry''s name [default: orla, or orla-<directory> for a project]'
            cand --config 'The client''s configuration file [default: where the client reads it]'
            cand --url 'Reach an `orla serve` already running over HTTP at this URL (ending in /mcp) instead of starting one'
            cand --token-env 'The environment variable the client takes the server''s bearer token from'
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --global 'Use the global root even inside a project'
            cand --dry-run 'Print the change without writing anything'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;client;list'= {
            cand --color 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never'
            cand --message-format 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)'
            cand --json 'Print a JSON array, one object per client'
            cand -q 'Print only errors and warnings'
            cand --quiet 'Print only errors and warnings'
            cand --offline 'Use no network: registries and archives come from the cache'
            cand --refresh 'Fetch git registries now, even if their cached copy is fresh'
            cand --allow-rollback 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'orla;client;help'= {
            cand add 'Add the entry that makes a client start `orla serve --stdio`, or reach one over HTTP'
            cand remove 'Remove orla''s entry from a client''s configuration'
            cand list 'Show which clients are configured to start orla'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'orla;client;help;add'= {
        }
        &'orla;client;help;remove'= {
        }
        &'orla;client;help;list'= {
        }
        &'orla;client;help;help'= {
        }
        &'orla;help'= {
            cand install 'Install tools from a registry, or a local package'
            cand uninstall 'Remove installed tools'
            cand list 'List installed tools'
            cand init 'Make a directory an orla project: write a commented orla.yaml'
            cand use 'Choose which installed version of a tool the manifest serves'
            cand verify 'Check installed tools against their install receipts'
            cand search 'Search the registries for tools'
            cand info 'Show a tool''s versions, permissions and installs'
            cand update 'Move installed tools to their newest allowed version'
            cand run 'Run a registry tool once without installing it (as uvx and npx do)'
            cand which 'Print the entrypoint the manifest serves for a tool'
            cand dir 'Print the directory tools are installed into'
            cand cache 'Manage the download and registry cache'
            cand completions 'Print a shell completion script'
            cand tool 'Author tools: scaffold, validate, pack, publish, yank'
            cand migrate 'Move old formats to tool.yaml'
            cand serve 'Serve the installed tools to MCP clients (Streamable HTTP, or --stdio)'
            cand export 'Describe the installed tools for another runtime: openwop, Runloop, Orloj'
            cand client 'Configure MCP clients (Claude Desktop, Cursor, VS Code, goose...) to start `orla serve`'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'orla;help;install'= {
        }
        &'orla;help;uninstall'= {
        }
        &'orla;help;list'= {
        }
        &'orla;help;init'= {
        }
        &'orla;help;use'= {
        }
        &'orla;help;verify'= {
        }
        &'orla;help;search'= {
        }
        &'orla;help;info'= {
        }
        &'orla;help;update'= {
        }
        &'orla;help;run'= {
        }
        &'orla;help;which'= {
        }
        &'orla;help;dir'= {
        }
        &'orla;help;cache'= {
            cand clear 'Remove everything in the cache (it is fetched again when needed)'
            cand dir 'Print the cache directory'
            cand prune 'Remove what is old and unneeded: packages no install shares and archives, repositories and clones of registries not configured here, unused for --max-age'
        }
        &'orla;help;cache;clear'= {
        }
        &'orla;help;cache;dir'= {
        }
        &'orla;help;cache;prune'= {
        }
        &'orla;help;completions'= {
        }
        &'orla;help;tool'= {
            cand scaffold 'Create a new tool package: a wizard on a terminal, flags otherwise'
            cand validate 'Check a tool package and report every problem at once'
            cand pack 'Pack a tool package into a reproducible NAME-VERSION.tar.gz'
            cand publish 'Publish a tool package into a registry index'
            cand yank 'Mark a published version as yanked (or, with --undo, not yanked)'
        }
        &'orla;help;tool;scaffold'= {
        }
        &'orla;help;tool;validate'= {
        }
        &'orla;help;tool;pack'= {
        }
        &'orla;help;tool;publish'= {
        }
        &'orla;help;tool;yank'= {
        }
        &'orla;help;migrate'= {
            cand capsule 'Turn an RFC 2 capsule (orla-tool.json) into a tool.yaml package'
        }
        &'orla;help;migrate;capsule'= {
        }
        &'orla;help;serve'= {
        }
        &'orla;help;export'= {
        }
        &'orla;help;client'= {
            cand add 'Add the entry that makes a client start `orla serve --stdio`, or reach one over HTTP'
            cand remove 'Remove orla''s entry from a client''s configuration'
            cand list 'Show which clients are configured to start orla'
        }
        &'orla;help;client;add'= {
        }
        &'orla;help;client;remove'= {
        }
        &'orla;help;client;list'= {
        }
        &'orla;help;help'= {
        }
    ]
    while (not (has-key $completions $command)) {
        var parts = [(str:split ';' $command)]
        if (<= (count $parts) 1) {
            return
        }
        set command = (str:join ';' $parts[..-1])
    }
    $completions[$command]
    var names = [&'orla;uninstall'=installed &'orla;rm'=installed &'orla;remove'=installed &'orla;un'=installed &'orla;use'=installed &'orla;which'=installed &'orla;verify'=installed &'orla;update'=installed &'orla;upgrade'=installed &'orla;install'=available &'orla;run'=available &'orla;info'=available &'orla;search'=available]
    if (has-key $names $command) {
        try {
            orla __complete $names[$command] $words[-1] 2>/dev/null | from-lines
        } catch {
        }
    }
    if (has-value ['orla;client;add' 'orla;client;remove'] $command) {
        put claude-desktop cursor vscode windsurf goose
    }
}
