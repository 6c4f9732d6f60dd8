module completions {

  def "nu-complete orla color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla message_format" [] {
    [ "human" "json" ]
  }

  # The package manager for MCP tools
  export extern orla [
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

  def "nu-complete orla install color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla install message_format" [] {
    [ "human" "json" ]
  }

  # Install tools from a registry, or a local package
  export extern "orla install" [
    --local: path             # Install a local package directory or .tar.gz archive
    --registry: string        # Registry to install from: a name from config.yaml or orla.yaml, `builtin`, an index directory, a git URL or a sparse+https:// URL [default: every configured registry, in order]
    --force                   # Reinstall even if the version is already installed
    --yes(-y)                 # Accept the tools' permissions without asking
    --locked                  # In a project: fail instead of changing orla.lock (for CI)
    --frozen                  # In a project: --locked, and no network: every archive must be local or cached
    --strict                  # Refuse tools whose interpreter or tool.yaml `dependencies` are missing (a warning otherwise)
    --global                  # Install into the global root (~/.orla or ORLA_HOME), even inside a project
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla install color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla install message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
    ...specs: string          # Tools to install: NAME, NAME@VERSION or NAME@REQUIREMENT
  ]

  def "nu-complete orla uninstall color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla uninstall message_format" [] {
    [ "human" "json" ]
  }

  # Remove installed tools
  export extern "orla uninstall" [
    --global                  # Remove from the global root (~/.orla or ORLA_HOME), even inside a project
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla uninstall color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla uninstall message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
    ...specs: string          # Tools to remove: NAME (every version), NAME@VERSION, or NAME@REQUIREMENT (every installed version it matches: fs-read@1.2 is every 1.2.x)
  ]

  def "nu-complete orla list color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla list message_format" [] {
    [ "human" "json" ]
  }

  # List installed tools
  export extern "orla list" [
    --json                    # Print a JSON array, one object per installed name and version
    --global                  # List the global root (~/.orla or ORLA_HOME), even inside a project
    --project                 # List only the project's own tools (an error outside a project)
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla list color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla list message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
  ]

  def "nu-complete orla init color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla init message_format" [] {
    [ "human" "json" ]
  }

  # Make a directory an orla project: write a commented orla.yaml
  export extern "orla init" [
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla init color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla init message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
    dir?: path                # The project directory (created if missing)
  ]

  def "nu-complete orla use color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla use message_format" [] {
    [ "human" "json" ]
  }

  # Choose which installed version of a tool the manifest serves
  export extern "orla use" [
    --global                  # Act on the global root (~/.orla or ORLA_HOME), even inside a project
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla use color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla use message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
    spec: string              # NAME@VERSION to serve that version, or NAME for the default
  ]

  def "nu-complete orla verify color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla verify message_format" [] {
    [ "human" "json" ]
  }

  # Check installed tools against their install receipts
  export extern "orla verify" [
    --json                    # Print a JSON array, one object per installed name and version
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla verify color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla verify message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
    name?: string             # Verify only this tool (every installed version)
  ]

  def "nu-complete orla search color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla search message_format" [] {
    [ "human" "json" ]
  }

  # Search the registries for tools
  export extern "orla search" [
    --registry: string        # Search only this registry (a configured name or a location)
    --json                    # Print a JSON array, best match first
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla search color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla search message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
    ...query: string          # Words to look for in names, descriptions and keywords
  ]

  def "nu-complete orla info color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla info message_format" [] {
    [ "human" "json" ]
  }

  # Show a tool's versions, permissions and installs
  export extern "orla info" [
    --registry: string        # Look only in this registry (a configured name or a location)
    --json                    # Print a JSON object
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla info color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla info message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
    name: string              # The tool's name, and a version to describe (NAME@VERSION) instead of the newest
  ]

  def "nu-complete orla update color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla update message_format" [] {
    [ "human" "json" ]
  }

  # Move installed tools to their newest allowed version
  export extern "orla update" [
    --dry-run                 # Show what would change, and change nothing
    --registry: string        # Registry to update from (a configured name or a location)
    --yes(-y)                 # Accept the new versions' permissions without asking
    --global                  # Update the global root's tools (~/.orla or ORLA_HOME), even inside a project
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla update color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla update message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
    ...names: string          # Tools to update [default: every installed tool]
  ]

  def "nu-complete orla run color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla run message_format" [] {
    [ "human" "json" ]
  }

  # Run a registry tool once without installing it (as uvx and npx do)
  export extern "orla run" [
    --registry: string        # Registry to take the tool from (a configured name or a location)
    --yes(-y)                 # Accept the tool's permissions without asking
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla run color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla run message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
    spec: string              # The tool: NAME, NAME@VERSION or NAME@REQUIREMENT
  ]

  def "nu-complete orla which color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla which message_format" [] {
    [ "human" "json" ]
  }

  # Print the entrypoint the manifest serves for a tool
  export extern "orla which" [
    --global                  # Look in the global root (~/.orla or ORLA_HOME), even inside a project
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla which color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla which message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
    name: string              # An installed tool's name
  ]

  def "nu-complete orla dir color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla dir message_format" [] {
    [ "human" "json" ]
  }

  # Print the directory tools are installed into
  export extern "orla dir" [
    --global                  # The global root's directory (~/.orla/tools or ORLA_HOME/tools), even inside a project
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla dir color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla dir message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
  ]

  def "nu-complete orla cache color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla cache message_format" [] {
    [ "human" "json" ]
  }

  # Manage the download and registry cache
  export extern "orla cache" [
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla cache color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla cache message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
  ]

  def "nu-complete orla cache clear color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla cache clear message_format" [] {
    [ "human" "json" ]
  }

  # Remove everything in the cache (it is fetched again when needed)
  export extern "orla cache clear" [
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla cache clear color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla cache clear message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
  ]

  def "nu-complete orla cache dir color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla cache dir message_format" [] {
    [ "human" "json" ]
  }

  # Print the cache directory
  export extern "orla cache dir" [
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla cache dir color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla cache dir message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
  ]

  def "nu-complete orla cache prune color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla cache prune message_format" [] {
    [ "human" "json" ]
  }

  # Remove what is old and unneeded: packages no install shares and archives, repositories and clones of registries not configured here, unused for --max-age
  export extern "orla cache prune" [
    --max-age: string         # Remove what was not used for this long: 30d, 12h, 90m, 0 for any age
    --max-size: string        # Then remove the least recently used packages until the rest take at most this: 500M, 2G
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla cache prune color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla cache prune message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "orla cache help" [
  ]

  # Remove everything in the cache (it is fetched again when needed)
  export extern "orla cache help clear" [
  ]

  # Print the cache directory
  export extern "orla cache help dir" [
  ]

  # Remove what is old and unneeded: packages no install shares and archives, repositories and clones of registries not configured here, unused for --max-age
  export extern "orla cache help prune" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "orla cache help help" [
  ]

  def "nu-complete orla completions shell" [] {
    [ "bash" "zsh" "fish" "elvish" "powershell" "nushell" ]
  }

  def "nu-complete orla completions color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla completions message_format" [] {
    [ "human" "json" ]
  }

  # Print a shell completion script
  export extern "orla completions" [
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla completions color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla completions message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
    shell: string@"nu-complete orla completions shell" # The shell to generate for
  ]

  def "nu-complete orla tool color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla tool message_format" [] {
    [ "human" "json" ]
  }

  # Author tools: scaffold, validate, pack, publish, yank
  export extern "orla tool" [
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla tool color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla tool message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
  ]

  def "nu-complete orla tool scaffold language" [] {
    [ "bash" "python" "node" "binary" ]
  }

  def "nu-complete orla tool scaffold mode" [] {
    [ "simple" "capsule" ]
  }

  def "nu-complete orla tool scaffold arguments" [] {
    [ "json" "flags" ]
  }

  def "nu-complete orla tool scaffold color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla tool scaffold message_format" [] {
    [ "human" "json" ]
  }

  # Create a new tool package: a wizard on a terminal, flags otherwise
  export extern "orla tool scaffold" [
    --dir: path               # Directory to create [default: ./NAME]
    --description: string     # One line saying what the tool does
    --language: string@"nu-complete orla tool scaffold language" # Language of the entrypoint [default: bash]
    --binary: path            # With --language binary: the executable to copy into bin/NAME
    --mode: string@"nu-complete orla tool scaffold mode" # simple (one process per request) or capsule (long-running) [default: simple]
    --arguments: string@"nu-complete orla tool scaffold arguments" # How a simple tool takes its arguments (default json); capsules speak JSON-RPC
    --permission: string      # A permission the tool needs: filesystem:read, filesystem:write, network, process:exec (repeatable)
    --param: string           # An input parameter NAME:TYPE, TYPE one of string, number, integer, boolean, object, array; a trailing '?' makes it optional (repeatable) [default: message:string]
    --tool-version: string    # The version to start at [default: 0.1.0]
    --author: string          # Author or maintainer
    --license: string         # SPDX license identifier, written to LICENSE (`none` for no license) [default: none]
    --yes(-y)                 # Ask nothing: take every answer from the flags and their defaults
    --force                   # Write into an existing, non-empty directory, replacing the files scaffold writes
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla tool scaffold color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla tool scaffold message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
    name?: string             # The tool's name: lowercase letters, digits, '.', '_' and '-'
  ]

  def "nu-complete orla tool validate color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla tool validate message_format" [] {
    [ "human" "json" ]
  }

  # Check a tool package and report every problem at once
  export extern "orla tool validate" [
    --json                    # Print the problems as JSON
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla tool validate color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla tool validate message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
    dir?: path                # The package directory
  ]

  def "nu-complete orla tool pack color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla tool pack message_format" [] {
    [ "human" "json" ]
  }

  # Pack a tool package into a reproducible NAME-VERSION.tar.gz
  export extern "orla tool pack" [
    --output(-o): path        # Where to write the archive: a file, or an existing directory [default: ./NAME-VERSION.tar.gz]
    --json                    # Print the result as JSON
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla tool pack color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla tool pack message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
    dir?: path                # The package directory
  ]

  def "nu-complete orla tool publish color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla tool publish message_format" [] {
    [ "human" "json" ]
  }

  # Publish a tool package into a registry index
  export extern "orla tool publish" [
    --index: string           # The registry index to publish into
    --init                    # Create the index (config.json, registry.yaml) if it has none
    --json                    # Print the published record as JSON
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla tool publish color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla tool publish message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
    dir?: path                # The package directory
  ]

  def "nu-complete orla tool yank color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla tool yank message_format" [] {
    [ "human" "json" ]
  }

  # Mark a published version as yanked (or, with --undo, not yanked)
  export extern "orla tool yank" [
    --index: string           # The registry index
    --undo                    # Un-yank: make the version installable by ranges again
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla tool yank color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla tool yank message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
    spec: string              # The version to yank: NAME@VERSION
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "orla tool help" [
  ]

  # Create a new tool package: a wizard on a terminal, flags otherwise
  export extern "orla tool help scaffold" [
  ]

  # Check a tool package and report every problem at once
  export extern "orla tool help validate" [
  ]

  # Pack a tool package into a reproducible NAME-VERSION.tar.gz
  export extern "orla tool help pack" [
  ]

  # Publish a tool package into a registry index
  export extern "orla tool help publish" [
  ]

  # Mark a published version as yanked (or, with --undo, not yanked)
  export extern "orla tool help yank" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "orla tool help help" [
  ]

  def "nu-complete orla migrate color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla migrate message_format" [] {
    [ "human" "json" ]
  }

  # Move old formats to tool.yaml
  export extern "orla migrate" [
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla migrate color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla migrate message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
  ]

  def "nu-complete orla migrate capsule color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla migrate capsule message_format" [] {
    [ "human" "json" ]
  }

  # Turn an RFC 2 capsule (orla-tool.json) into a tool.yaml package
  export extern "orla migrate capsule" [
    --all: path               # Migrate every capsule under this tools directory
    --dry-run                 # Only print the tool.yaml that would be written
    --remove-legacy           # Delete orla-tool.json instead of keeping orla-tool.json.bak
    --force                   # Replace an existing tool.yaml that differs from the migrated one
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla migrate capsule color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla migrate capsule message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
    path?: path               # The capsule directory (or its orla-tool.json)
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "orla migrate help" [
  ]

  # Turn an RFC 2 capsule (orla-tool.json) into a tool.yaml package
  export extern "orla migrate help capsule" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "orla migrate help help" [
  ]

  def "nu-complete orla serve log_format" [] {
    [ "json" "pretty" ]
  }

  def "nu-complete orla serve log_level" [] {
    [ "debug" "info" "warn" "error" "fatal" ]
  }

  def "nu-complete orla serve color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla serve message_format" [] {
    [ "human" "json" ]
  }

  # Serve the installed tools to MCP clients (Streamable HTTP, or --stdio)
  export extern "orla serve" [
    --stdio                   # Speak MCP on stdin and stdout, as an MCP client that starts orla expects
    --port: string            # HTTP port [default: orla.yaml `port`, else 8080; 0 picks a free one]
    --host: string            # Address to listen on; anything but loopback exposes the tools to the network
    --allow-origin: string    # Also accept browser requests from this Origin (loopback origins always are)
    --global                  # Serve the global root (~/.orla or ORLA_HOME), even inside a project
    --project: path           # Serve the project in DIR (its orla.yaml, or a parent's), wherever orla starts
    --log-format: string@"nu-complete orla serve log_format" # Log format on stderr [default: orla.yaml `log_format`, else json]
    --log-level: string@"nu-complete orla serve log_level" # Log level [default: orla.yaml `log_level`, else info]
    --max-calls: string       # Tool calls run at once; more wait their turn
    --max-sessions: string    # HTTP sessions open at once; a client beyond is told to retry later (503)
    --token-file: path        # Require `Authorization: Bearer TOKEN` of HTTP clients, TOKEN read from FILE (or ORLA_SERVE_TOKEN)
    --generate-token          # Make up a bearer token, print it once on stdout, and require it of HTTP clients
    --session-idle: string    # Close an HTTP session after this many seconds without a request
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla serve color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla serve message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
  ]

  def "nu-complete orla export format" [] {
    [ "openwop" "runloop" "orloj" ]
  }

  def "nu-complete orla export color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla export message_format" [] {
    [ "human" "json" ]
  }

  # Describe the installed tools for another runtime: openwop, Runloop, Orloj
  export extern "orla export" [
    --format: string@"nu-complete orla export format" # The format to write
    --output(-o): path        # Write to FILE instead of stdout
    --bundle: path            # Runloop: write tools.json into the bundle in DIR and record its BLAKE3 in DIR/manifest.toml
    --global                  # Export the global root's tools (~/.orla or ORLA_HOME), even inside a project
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla export color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla export message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help (see more with '--help')
    --version(-V)             # Print version
  ]

  def "nu-complete orla client color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla client message_format" [] {
    [ "human" "json" ]
  }

  # Configure MCP clients (Claude Desktop, Cursor, VS Code, goose...) to start `orla serve`
  export extern "orla client" [
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla client color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla client message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
  ]

  def "nu-complete orla client add client" [] {
    [ "claude-desktop" "cursor" "vscode" "windsurf" "goose" ]
  }

  def "nu-complete orla client add color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla client add message_format" [] {
    [ "human" "json" ]
  }

  # Add the entry that makes a client start `orla serve --stdio`, or reach one over HTTP
  export extern "orla client add" [
    --global                  # Use the global root even inside a project
    --name: string            # The entry's name [default: orla, or orla-<directory> for a project]
    --config: path            # The client's configuration file [default: where the client reads it]
    --url: string             # Reach an `orla serve` already running over HTTP at this URL (ending in /mcp) instead of starting one
    --token-env: string       # The environment variable the client takes the server's bearer token from
    --dry-run                 # Print the change without writing anything
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla client add color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla client add message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
    client: string@"nu-complete orla client add client" # The client to configure
  ]

  def "nu-complete orla client remove client" [] {
    [ "claude-desktop" "cursor" "vscode" "windsurf" "goose" ]
  }

  def "nu-complete orla client remove color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla client remove message_format" [] {
    [ "human" "json" ]
  }

  # Remove orla's entry from a client's configuration
  export extern "orla client remove" [
    --global                  # Use the global root even inside a project
    --name: string            # The entry's name [default: orla, or orla-<directory> for a project]
    --config: path            # The client's configuration file [default: where the client reads it]
    --url: string             # Reach an `orla serve` already running over HTTP at this URL (ending in /mcp) instead of starting one
    --token-env: string       # The environment variable the client takes the server's bearer token from
    --dry-run                 # Print the change without writing anything
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla client remove color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla client remove message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
    client: string@"nu-complete orla client remove client" # The client to configure
  ]

  def "nu-complete orla client list color" [] {
    [ "auto" "always" "never" ]
  }

  def "nu-complete orla client list message_format" [] {
    [ "human" "json" ]
  }

  # Show which clients are configured to start orla
  export extern "orla client list" [
    --json                    # Print a JSON array, one object per client
    --quiet(-q)               # Print only errors and warnings
    --color: string@"nu-complete orla client list color" # Colour messages: auto (on a terminal, unless NO_COLOR; CLICOLOR_FORCE or FORCE_COLOR force it), always or never
    --offline                 # Use no network: registries and archives come from the cache
    --refresh                 # Fetch git registries now, even if their cached copy is fresh
    --allow-rollback          # Accept a git registry whose history was rewound or force-pushed since the last fetch (refused by default: see docs/security.md)
    --message-format: string@"nu-complete orla client list message_format" # How status lines, warnings and errors are written on stderr: human, or json (one JSON object per line, see docs/events.md)
    --help(-h)                # Print help
    --version(-V)             # Print version
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "orla client help" [
  ]

  # Add the entry that makes a client start `orla serve --stdio`, or reach one over HTTP
  export extern "orla client help add" [
  ]

  # Remove orla's entry from a client's configuration
  export extern "orla client help remove" [
  ]

  # Show which clients are configured to start orla
  export extern "orla client help list" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "orla client help help" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "orla help" [
  ]

  # Install tools from a registry, or a local package
  export extern "orla help install" [
  ]

  # Remove installed tools
  export extern "orla help uninstall" [
  ]

  # List installed tools
  export extern "orla help list" [
  ]

  # Make a directory an orla project: write a commented orla.yaml
  export extern "orla help init" [
  ]

  # Choose which installed version of a tool the manifest serves
  export extern "orla help use" [
  ]

  # Check installed tools against their install receipts
  export extern "orla help verify" [
  ]

  # Search the registries for tools
  export extern "orla help search" [
  ]

  # Show a tool's versions, permissions and installs
  export extern "orla help info" [
  ]

  # Move installed tools to their newest allowed version
  export extern "orla help update" [
  ]

  # Run a registry tool once without installing it (as uvx and npx do)
  export extern "orla help run" [
  ]

  # Print the entrypoint the manifest serves for a tool
  export extern "orla help which" [
  ]

  # Print the directory tools are installed into
  export extern "orla help dir" [
  ]

  # Manage the download and registry cache
  export extern "orla help cache" [
  ]

  # Remove everything in the cache (it is fetched again when needed)
  export extern "orla help cache clear" [
  ]

  # Print the cache directory
  export extern "orla help cache dir" [
  ]

  # Remove what is old and unneeded: packages no install shares and archives, repositories and clones of registries not configured here, unused for --max-age
  export extern "orla help cache prune" [
  ]

  # Print a shell completion script
  export extern "orla help completions" [
  ]

  # Author tools: scaffold, validate, pack, publish, yank
  export extern "orla help tool" [
  ]

  # Create a new tool package: a wizard on a terminal, flags otherwise
  export extern "orla help tool scaffold" [
  ]

  # Check a tool package and report every problem at once
  export extern "orla help tool validate" [
  ]

  # Pack a tool package into a reproducible NAME-VERSION.tar.gz
  export extern "orla help tool pack" [
  ]

  # Publish a tool package into a registry index
  export extern "orla help tool publish" [
  ]

  # Mark a published version as yanked (or, with --undo, not yanked)
  export extern "orla help tool yank" [
  ]

  # Move old formats to tool.yaml
  export extern "orla help migrate" [
  ]

  # Turn an RFC 2 capsule (orla-tool.json) into a tool.yaml package
  export extern "orla help migrate capsule" [
  ]

  # Serve the installed tools to MCP clients (Streamable HTTP, or --stdio)
  export extern "orla help serve" [
  ]

  # Describe the installed tools for another runtime: openwop, Runloop, Orloj
  export extern "orla help export" [
  ]

  # Configure MCP clients (Claude Desktop, Cursor, VS Code, goose...) to start `orla serve`
  export extern "orla help client" [
  ]

  # Add the entry that makes a client start `orla serve --stdio`, or reach one over HTTP
  export extern "orla help client add" [
  ]

  # Remove orla's entry from a client's configuration
  export extern "orla help client remove" [
  ]

  # Show which clients are configured to start orla
  export extern "orla help client list" [
  ]

  # Print this message or the help of the given subcommand(s)
  export extern "orla help help" [
  ]

}

export use completions *
