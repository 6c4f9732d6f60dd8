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

# TODO: do the tool's work here. Plain bash can only pass JSON through; with
# jq installed, read a parameter with: value="$(jq -r '.NAME' <<<"$input")"
printf '{"tool":"%s","arguments":%s}\n' "{{NAME}}" "$input"
