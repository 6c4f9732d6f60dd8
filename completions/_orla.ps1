
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'orla' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'orla'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'orla' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Install tools from a registry, or a local package')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove installed tools')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'Remove installed tools')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove installed tools')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List installed tools')
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List installed tools')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Make a directory an orla project: write a commented orla.yaml')
            [CompletionResult]::new('use', 'use', [CompletionResultType]::ParameterValue, 'Choose which installed version of a tool the manifest serves')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check installed tools against their install receipts')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search the registries for tools')
            [CompletionResult]::new('info', 'info', [CompletionResultType]::ParameterValue, 'Show a tool''s versions, permissions and installs')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Move installed tools to their newest allowed version')
            [CompletionResult]::new('upgrade', 'upgrade', [CompletionResultType]::ParameterValue, 'Move installed tools to their newest allowed version')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run a registry tool once without installing it (as uvx and npx do)')
            [CompletionResult]::new('which', 'which', [CompletionResultType]::ParameterValue, 'Print the entrypoint the manifest serves for a tool')
            [CompletionResult]::new('dir', 'dir', [CompletionResultType]::ParameterValue, 'Print the directory tools are installed into')
            [CompletionResult]::new('cache', 'cache', [CompletionResultType]::ParameterValue, 'Manage the download and registry cache')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('tool', 'tool', [CompletionResultType]::ParameterValue, 'Author tools: scaffold, validate, pack, publish, yank')
            [CompletionResult]::new('migrate', 'migrate', [CompletionResultType]::ParameterValue, 'Move old formats to tool.yaml')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the installed tools to MCP clients (Streamable HTTP, or --stdio)')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Describe the installed tools for another runtime: openwop, Runloop, Orloj')
            [CompletionResult]::new('client', 'client', [CompletionResultType]::ParameterValue, 'Configure MCP clients (Claude Desktop, Cursor, VS Code, goose...) to start `orla serve`')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'orla;install' {
            [CompletionResult]::new('--local', '--local', [CompletionResultType]::ParameterName, 'Install a local package directory or .tar.gz archive')
            [CompletionResult]::new('--registry', '--registry', [CompletionResultType]::ParameterName, 'Registry to install from: a name from config.yaml or orla.yaml, `builtin`, an index directory, a git URL or a sparse+https:// URL [default: every configured registry, in order]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Reinstall even if the version is already installed')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Accept the tools'' permissions without asking')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Accept the tools'' permissions without asking')
            [CompletionResult]::new('--locked', '--locked', [CompletionResultType]::ParameterName, 'In a project: fail instead of changing orla.lock (for CI)')
            [CompletionResult]::new('--frozen', '--frozen', [CompletionResultType]::ParameterName, 'In a project: --locked, and no network: every archive must be local or cached')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Refuse tools whose interpreter or tool.yaml `dependencies` are missing (a warning otherwise)')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Install into the global root (~/.orla or ORLA_HOME), even inside a project')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;uninstall' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Remove from the global root (~/.orla or ORLA_HOME), even inside a project')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;rm' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Remove from the global root (~/.orla or ORLA_HOME), even inside a project')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;remove' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Remove from the global root (~/.orla or ORLA_HOME), even inside a project')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;list' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print a JSON array, one object per installed name and version')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'List the global root (~/.orla or ORLA_HOME), even inside a project')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'List only the project''s own tools (an error outside a project)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;ls' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print a JSON array, one object per installed name and version')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'List the global root (~/.orla or ORLA_HOME), even inside a project')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'List only the project''s own tools (an error outside a project)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;init' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;use' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Act on the global root (~/.orla or ORLA_HOME), even inside a project')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;verify' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print a JSON array, one object per installed name and version')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;search' {
            [CompletionResult]::new('--registry', '--registry', [CompletionResultType]::ParameterName, 'Search only this registry (a configured name or a location)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print a JSON array, best match first')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;info' {
            [CompletionResult]::new('--registry', '--registry', [CompletionResultType]::ParameterName, 'Look only in this registry (a configured name or a location)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print a JSON object')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;update' {
            [CompletionResult]::new('--registry', '--registry', [CompletionResultType]::ParameterName, 'Registry to update from (a configured name or a location)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would change, and change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Accept the new versions'' permissions without asking')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Accept the new versions'' permissions without asking')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Update the global root''s tools (~/.orla or ORLA_HOME), even inside a project')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;upgrade' {
            [CompletionResult]::new('--registry', '--registry', [CompletionResultType]::ParameterName, 'Registry to update from (a configured name or a location)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would change, and change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Accept the new versions'' permissions without asking')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Accept the new versions'' permissions without asking')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Update the global root''s tools (~/.orla or ORLA_HOME), even inside a project')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;run' {
            [CompletionResult]::new('--registry', '--registry', [CompletionResultType]::ParameterName, 'Registry to take the tool from (a configured name or a location)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Accept the tool''s permissions without asking')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Accept the tool''s permissions without asking')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;which' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Look in the global root (~/.orla or ORLA_HOME), even inside a project')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;dir' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'The global root''s directory (~/.orla/tools or ORLA_HOME/tools), even inside a project')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;cache' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Remove everything in the cache (it is fetched again when needed)')
            [CompletionResult]::new('dir', 'dir', [CompletionResultType]::ParameterValue, 'Print the cache directory')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Remove what is old and unneeded: packages no install shares and archives, repositories and clones of registries not configured here, unused for --max-age')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'orla;cache;clear' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;cache;dir' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;cache;prune' {
            [CompletionResult]::new('--max-age', '--max-age', [CompletionResultType]::ParameterName, 'Remove what was not used for this long: 30d, 12h, 90m, 0 for any age')
            [CompletionResult]::new('--max-size', '--max-size', [CompletionResultType]::ParameterName, 'Then remove the least recently used packages until the rest take at most this: 500M, 2G')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;cache;help' {
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Remove everything in the cache (it is fetched again when needed)')
            [CompletionResult]::new('dir', 'dir', [CompletionResultType]::ParameterValue, 'Print the cache directory')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Remove what is old and unneeded: packages no install shares and archives, repositories and clones of registries not configured here, unused for --max-age')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'orla;cache;help;clear' {
            break
        }
        'orla;cache;help;dir' {
            break
        }
        'orla;cache;help;prune' {
            break
        }
        'orla;cache;help;help' {
            break
        }
        'orla;completions' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;tool' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('scaffold', 'scaffold', [CompletionResultType]::ParameterValue, 'Create a new tool package: a wizard on a terminal, flags otherwise')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Check a tool package and report every problem at once')
            [CompletionResult]::new('pack', 'pack', [CompletionResultType]::ParameterValue, 'Pack a tool package into a reproducible NAME-VERSION.tar.gz')
            [CompletionResult]::new('publish', 'publish', [CompletionResultType]::ParameterValue, 'Publish a tool package into a registry index')
            [CompletionResult]::new('yank', 'yank', [CompletionResultType]::ParameterValue, 'Mark a published version as yanked (or, with --undo, not yanked)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'orla;tool;scaffold' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Directory to create [default: ./NAME]')
            [CompletionResult]::new('--description', '--description', [CompletionResultType]::ParameterName, 'One line saying what the tool does')
            [CompletionResult]::new('--language', '--language', [CompletionResultType]::ParameterName, 'Language of the entrypoint [default: bash]')
            [CompletionResult]::new('--binary', '--binary', [CompletionResultType]::ParameterName, 'With --language binary: the executable to copy into bin/NAME')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'simple (one process per request) or capsule (long-running) [default: simple]')
            [CompletionResult]::new('--arguments', '--arguments', [CompletionResultType]::ParameterName, 'How a simple tool takes its arguments (default json); capsules speak JSON-RPC')
            [CompletionResult]::new('--permission', '--permission', [CompletionResultType]::ParameterName, 'A permission the tool needs: filesystem:read, filesystem:write, network, process:exec (repeatable)')
            [CompletionResult]::new('--param', '--param', [CompletionResultType]::ParameterName, 'An input parameter NAME:TYPE, TYPE one of string, number, integer, boolean, object, array; a trailing ''?'' makes it optional (repeatable) [default: message:string]')
            [CompletionResult]::new('--tool-version', '--tool-version', [CompletionResultType]::ParameterName, 'The version to start at [default: 0.1.0]')
            [CompletionResult]::new('--author', '--author', [CompletionResultType]::ParameterName, 'Author or maintainer')
            [CompletionResult]::new('--license', '--license', [CompletionResultType]::ParameterName, 'SPDX license identifier, written to LICENSE (`none` for no license) [default: none]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Ask nothing: take every answer from the flags and their defaults')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Ask nothing: take every answer from the flags and their defaults')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Write into an existing, non-empty directory, replacing the files scaffold writes')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;tool;validate' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the problems as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;tool;pack' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Where to write the archive: a file, or an existing directory [default: ./NAME-VERSION.tar.gz]')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Where to write the archive: a file, or an existing directory [default: ./NAME-VERSION.tar.gz]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the result as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;tool;publish' {
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'The registry index to publish into')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--init', '--init', [CompletionResultType]::ParameterName, 'Create the index (config.json, registry.yaml) if it has none')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the published record as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;tool;yank' {
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'The registry index')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--undo', '--undo', [CompletionResultType]::ParameterName, 'Un-yank: make the version installable by ranges again')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;tool;help' {
            [CompletionResult]::new('scaffold', 'scaffold', [CompletionResultType]::ParameterValue, 'Create a new tool package: a wizard on a terminal, flags otherwise')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Check a tool package and report every problem at once')
            [CompletionResult]::new('pack', 'pack', [CompletionResultType]::ParameterValue, 'Pack a tool package into a reproducible NAME-VERSION.tar.gz')
            [CompletionResult]::new('publish', 'publish', [CompletionResultType]::ParameterValue, 'Publish a tool package into a registry index')
            [CompletionResult]::new('yank', 'yank', [CompletionResultType]::ParameterValue, 'Mark a published version as yanked (or, with --undo, not yanked)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'orla;tool;help;scaffold' {
            break
        }
        'orla;tool;help;validate' {
            break
        }
        'orla;tool;help;pack' {
            break
        }
        'orla;tool;help;publish' {
            break
        }
        'orla;tool;help;yank' {
            break
        }
        'orla;tool;help;help' {
            break
        }
        'orla;migrate' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('capsule', 'capsule', [CompletionResultType]::ParameterValue, 'Turn an RFC 2 capsule (orla-tool.json) into a tool.yaml package')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'orla;migrate;capsule' {
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Migrate every capsule under this tools directory')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Only print the tool.yaml that would be written')
            [CompletionResult]::new('--remove-legacy', '--remove-legacy', [CompletionResultType]::ParameterName, 'Delete orla-tool.json instead of keeping orla-tool.json.bak')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace an existing tool.yaml that differs from the migrated one')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;migrate;help' {
            [CompletionResult]::new('capsule', 'capsule', [CompletionResultType]::ParameterValue, 'Turn an RFC 2 capsule (orla-tool.json) into a tool.yaml package')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'orla;migrate;help;capsule' {
            break
        }
        'orla;migrate;help;help' {
            break
        }
        'orla;serve' {
            [CompletionResult]::new('--port', '--port', [CompletionResultType]::ParameterName, 'HTTP port [default: orla.yaml `port`, else 8080; 0 picks a free one]')
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'Address to listen on; anything but loopback exposes the tools to the network')
            [CompletionResult]::new('--allow-origin', '--allow-origin', [CompletionResultType]::ParameterName, 'Also accept browser requests from this Origin (loopback origins always are)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Serve the project in DIR (its orla.yaml, or a parent''s), wherever orla starts')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Log format on stderr [default: orla.yaml `log_format`, else json]')
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'Log level [default: orla.yaml `log_level`, else info]')
            [CompletionResult]::new('--max-calls', '--max-calls', [CompletionResultType]::ParameterName, 'Tool calls run at once; more wait their turn')
            [CompletionResult]::new('--max-sessions', '--max-sessions', [CompletionResultType]::ParameterName, 'HTTP sessions open at once; a client beyond is told to retry later (503)')
            [CompletionResult]::new('--token-file', '--token-file', [CompletionResultType]::ParameterName, 'Require `Authorization: Bearer TOKEN` of HTTP clients, TOKEN read from FILE (or ORLA_SERVE_TOKEN)')
            [CompletionResult]::new('--session-idle', '--session-idle', [CompletionResultType]::ParameterName, 'Close an HTTP session after this many seconds without a request')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--stdio', '--stdio', [CompletionResultType]::ParameterName, 'Speak MCP on stdin and stdout, as an MCP client that starts orla expects')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Serve the global root (~/.orla or ORLA_HOME), even inside a project')
            [CompletionResult]::new('--generate-token', '--generate-token', [CompletionResultType]::ParameterName, 'Make up a bearer token, print it once on stdout, and require it of HTTP clients')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;export' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'The format to write')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write to FILE instead of stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write to FILE instead of stdout')
            [CompletionResult]::new('--bundle', '--bundle', [CompletionResultType]::ParameterName, 'Runloop: write tools.json into the bundle in DIR and record its BLAKE3 in DIR/manifest.toml')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Export the global root''s tools (~/.orla or ORLA_HOME), even inside a project')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;client' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add the entry that makes a client start `orla serve --stdio`, or reach one over HTTP')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove orla''s entry from a client''s configuration')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Show which clients are configured to start orla')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'orla;client;add' {
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The entry''s name [default: orla, or orla-<directory> for a project]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The client''s configuration file [default: where the client reads it]')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Reach an `orla serve` already running over HTTP at this URL (ending in /mcp) instead of starting one')
            [CompletionResult]::new('--token-env', '--token-env', [CompletionResultType]::ParameterName, 'The environment variable the client takes the server''s bearer token from')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Use the global root even inside a project')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the change without writing anything')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;client;remove' {
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The entry''s name [default: orla, or orla-<directory> for a project]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The client''s configuration file [default: where the client reads it]')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Reach an `orla serve` already running over HTTP at this URL (ending in /mcp) instead of starting one')
            [CompletionResult]::new('--token-env', '--token-env', [CompletionResultType]::ParameterName, 'The environment variable the client takes the server''s bearer token from')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Use the global root even inside a project')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the change without writing anything')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;client;list' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never')
            [CompletionResult]::new('--message-format', '--message-format', [CompletionResultType]::ParameterName, 'How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print a JSON array, one object per client')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only errors and warnings')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Use no network: registries and archives come from the cache')
            [CompletionResult]::new('--refresh', '--refresh', [CompletionResultType]::ParameterName, 'Fetch git registries now, even if their cached copy is fresh')
            [CompletionResult]::new('--allow-rollback', '--allow-rollback', [CompletionResultType]::ParameterName, 'Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'orla;client;help' {
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add the entry that makes a client start `orla serve --stdio`, or reach one over HTTP')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove orla''s entry from a client''s configuration')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Show which clients are configured to start orla')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'orla;client;help;add' {
            break
        }
        'orla;client;help;remove' {
            break
        }
        'orla;client;help;list' {
            break
        }
        'orla;client;help;help' {
            break
        }
        'orla;help' {
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Install tools from a registry, or a local package')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove installed tools')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List installed tools')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Make a directory an orla project: write a commented orla.yaml')
            [CompletionResult]::new('use', 'use', [CompletionResultType]::ParameterValue, 'Choose which installed version of a tool the manifest serves')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check installed tools against their install receipts')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Search the registries for tools')
            [CompletionResult]::new('info', 'info', [CompletionResultType]::ParameterValue, 'Show a tool''s versions, permissions and installs')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Move installed tools to their newest allowed version')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run a registry tool once without installing it (as uvx and npx do)')
            [CompletionResult]::new('which', 'which', [CompletionResultType]::ParameterValue, 'Print the entrypoint the manifest serves for a tool')
            [CompletionResult]::new('dir', 'dir', [CompletionResultType]::ParameterValue, 'Print the directory tools are installed into')
            [CompletionResult]::new('cache', 'cache', [CompletionResultType]::ParameterValue, 'Manage the download and registry cache')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('tool', 'tool', [CompletionResultType]::ParameterValue, 'Author tools: scaffold, validate, pack, publish, yank')
            [CompletionResult]::new('migrate', 'migrate', [CompletionResultType]::ParameterValue, 'Move old formats to tool.yaml')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the installed tools to MCP clients (Streamable HTTP, or --stdio)')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Describe the installed tools for another runtime: openwop, Runloop, Orloj')
            [CompletionResult]::new('client', 'client', [CompletionResultType]::ParameterValue, 'Configure MCP clients (Claude Desktop, Cursor, VS Code, goose...) to start `orla serve`')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'orla;help;install' {
            break
        }
        'orla;help;uninstall' {
            break
        }
        'orla;help;list' {
            break
        }
        'orla;help;init' {
            break
        }
        'orla;help;use' {
            break
        }
        'orla;help;verify' {
            break
        }
        'orla;help;search' {
            break
        }
        'orla;help;info' {
            break
        }
        'orla;help;update' {
            break
        }
        'orla;help;run' {
            break
        }
        'orla;help;which' {
            break
        }
        'orla;help;dir' {
            break
        }
        'orla;help;cache' {
            [CompletionResult]::new('clear', 'clear', [CompletionResultType]::ParameterValue, 'Remove everything in the cache (it is fetched again when needed)')
            [CompletionResult]::new('dir', 'dir', [CompletionResultType]::ParameterValue, 'Print the cache directory')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Remove what is old and unneeded: packages no install shares and archives, repositories and clones of registries not configured here, unused for --max-age')
            break
        }
        'orla;help;cache;clear' {
            break
        }
        'orla;help;cache;dir' {
            break
        }
        'orla;help;cache;prune' {
            break
        }
        'orla;help;completions' {
            break
        }
        'orla;help;tool' {
            [CompletionResult]::new('scaffold', 'scaffold', [CompletionResultType]::ParameterValue, 'Create a new tool package: a wizard on a terminal, flags otherwise')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Check a tool package and report every problem at once')
            [CompletionResult]::new('pack', 'pack', [CompletionResultType]::ParameterValue, 'Pack a tool package into a reproducible NAME-VERSION.tar.gz')
            [CompletionResult]::new('publish', 'publish', [CompletionResultType]::ParameterValue, 'Publish a tool package into a registry index')
            [CompletionResult]::new('yank', 'yank', [CompletionResultType]::ParameterValue, 'Mark a published version as yanked (or, with --undo, not yanked)')
            break
        }
        'orla;help;tool;scaffold' {
            break
        }
        'orla;help;tool;validate' {
            break
        }
        'orla;help;tool;pack' {
            break
        }
        'orla;help;tool;publish' {
            break
        }
        'orla;help;tool;yank' {
            break
        }
        'orla;help;migrate' {
            [CompletionResult]::new('capsule', 'capsule', [CompletionResultType]::ParameterValue, 'Turn an RFC 2 capsule (orla-tool.json) into a tool.yaml package')
            break
        }
        'orla;help;migrate;capsule' {
            break
        }
        'orla;help;serve' {
            break
        }
        'orla;help;export' {
            break
        }
        'orla;help;client' {
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add the entry that makes a client start `orla serve --stdio`, or reach one over HTTP')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove orla''s entry from a client''s configuration')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Show which clients are configured to start orla')
            break
        }
        'orla;help;client;add' {
            break
        }
        'orla;help;client;remove' {
            break
        }
        'orla;help;client;list' {
            break
        }
        'orla;help;help' {
            break
        }
    })

    $names = @{ 'uninstall' = 'installed' ; 'rm' = 'installed' ; 'remove' = 'installed' ; 'un' = 'installed' ; 'use' = 'installed' ; 'which' = 'installed' ; 'verify' = 'installed' ; 'update' = 'installed' ; 'upgrade' = 'installed' ; 'install' = 'available' ; 'run' = 'available' ; 'info' = 'available' ; 'search' = 'available' }
    $sub = ($command -split ';')[1]
    if ($sub -and $names.ContainsKey($sub)) {
        $completions += @(orla __complete $names[$sub] $wordToComplete 2>$null | ForEach-Object {
            [CompletionResult]::new($_, $_, [CompletionResultType]::ParameterValue, $_)
        })
    }
    if ($command -in @('orla;client;add', 'orla;client;remove')) {
        $completions += @('claude-desktop cursor vscode windsurf goose' -split ' ' | ForEach-Object {
            [CompletionResult]::new($_, $_, [CompletionResultType]::ParameterValue, $_)
        })
    }

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
