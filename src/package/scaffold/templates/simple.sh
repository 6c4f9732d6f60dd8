#!/usr/bin/env bash
# {{NAME}} {{VERSION}}: {{DESCRIPTION}}
#
# orla runs this once per call (simple mode, RFC 1): the arguments arrive as
# one JSON object on stdin and the answer goes to stdout as JSON. Problems go
# to stderr with a non-zero exit status.
#
# Parameters (name, JSON type, required): {{PARAMS}}
set -euo pipefail

input="$(cat)"
if [[ -z "${input//[[:space:]]/}" ]]; then
    input='{}'
fi
if [[ ! "$input" =~ ^[[:space:]]*\{ ]]; then
    echo "error: {{NAME}} expects a JSON object on stdin" >&2
    exit 2
fi

# Lines on stderr reach the MCP client while the call runs: "info: ..." (or
# debug:, warning:, error:) as a log message at that level, and
# "progress: DONE/TOTAL message" as progress when the client asked for it.
echo "info: {{NAME}} called" >&2
echo "progress: 0/1 started" >&2
# TODO: do the tool's work here. Plain bash can only pass JSON through; with
# jq installed, read a parameter with: value="$(jq -r '.NAME' <<<"$input")"
printf '{"tool":"%s","arguments":%s}\n' "{{NAME}}" "$input"
echo "progress: 1/1 done" >&2
