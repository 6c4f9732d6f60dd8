#!/usr/bin/env bash
# {{NAME}} {{VERSION}}: {{DESCRIPTION}}
#
# orla runs this once per call (simple mode, RFC 1) the way the Orla runtime
# does: each argument arrives as a `--name value` flag (underscores in a name
# become hyphens; a string is passed as it is, any other value as JSON text;
# a boolean is a bare `--name` when true and absent when false), and an
# argument named `stdin` arrives on stdin. The answer goes to stdout
# as JSON. Problems go to stderr with a non-zero exit status.
#
# Parameters (name, JSON type, required): {{PARAMS}}
set -euo pipefail

# The boolean parameters: bare switches, true when present.
switches=" {{SWITCHES}} "

# Every flag as a JSON member; values are passed on as JSON strings.
members=()
while [[ $# -gt 0 ]]; do
    if [[ "$1" == --* && "$switches" == *" ${1#--} "* ]]; then
        name="${1#--}"
        members+=("\"${name//-/_}\":true")
        shift
        continue
    fi
    if [[ "$1" != --* || $# -lt 2 ]]; then
        echo "error: {{NAME}} expects --name value, got '$1'" >&2
        exit 2
    fi
    name="${1#--}"
    value="${2//\\/\\\\}"
    value="${value//\"/\\\"}"
    value="${value//$'\n'/\\n}"
    value="${value//$'\t'/\\t}"
    value="${value//$'\r'/\\r}"
    members+=("\"${name//-/_}\":\"${value}\"")
    shift 2
done

# Lines on stderr reach the MCP client while the call runs: "info: ..." (or
# debug:, warning:, error:) as a log message at that level, and
# "progress: DONE/TOTAL message" as progress when the client asked for it.
echo "info: {{NAME}} called with ${#members[@]} argument(s)" >&2
echo "progress: 0/1 started" >&2
# TODO: do the tool's work here; "$2" of each flag is its value as text.
printf '{"tool":"%s","arguments":{%s}}\n' "{{NAME}}" "$(IFS=,; echo "${members[*]}")"
echo "progress: 1/1 done" >&2
