#!/usr/bin/env bash
# {{NAME}} {{VERSION}}: {{DESCRIPTION}}
#
# A capsule (RFC 3 section 5.3.1): it writes the orla.hello notification
# once, then answers JSON-RPC 2.0 requests, one per line, until stdin ends.
# Requests without an "id" are notifications and get no answer.
#
# Parameters (name, JSON type, required): {{PARAMS}}
set -uo pipefail

printf '%s\n' '{"jsonrpc":"2.0","method":"orla.hello","params":{"name":"{{NAME}}","version":"{{VERSION}}","capabilities":["tools"]}}'

id_pattern='"id"[[:space:]]*:[[:space:]]*("[^"]*"|-?[0-9]+)'
while IFS= read -r line || [[ -n "$line" ]]; do
    [[ -z "${line//[[:space:]]/}" ]] && continue
    if [[ ! "$line" =~ ^[[:space:]]*\{ ]]; then
        printf '%s\n' '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'
        continue
    fi
    if [[ "$line" =~ $id_pattern ]]; then
        id="${BASH_REMATCH[1]}"
    else
        continue
    fi
    # TODO: do the tool's work here. With jq installed, read the arguments
    # with: args="$(jq -c '.params.arguments // .params' <<<"$line")"
    printf '{"jsonrpc":"2.0","id":%s,"result":{"tool":"%s","request":%s}}\n' "$id" "{{NAME}}" "$line"
done
