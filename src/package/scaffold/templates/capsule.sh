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

# The JSON object or array that is the value of "KEY" in LINE, found by
# matching brackets outside strings (plain bash has no JSON parser); empty
# when KEY is not there or its value is not an object or array.
value_of() {
    local key=$1 line=$2 rest i c depth=0 in_string=0 escaped=0
    rest="${line#*\"$key\"}"
    [[ "$rest" == "$line" ]] && return
    rest="${rest#"${rest%%[![:space:]]*}"}"
    [[ "$rest" == :* ]] || return
    rest="${rest#:}"
    rest="${rest#"${rest%%[![:space:]]*}"}"
    [[ "$rest" == [\{\[]* ]] || return
    for ((i = 0; i < ${#rest}; i++)); do
        c="${rest:i:1}"
        if ((in_string)); then
            if ((escaped)); then
                escaped=0
            elif [[ "$c" == '\' ]]; then
                escaped=1
            elif [[ "$c" == '"' ]]; then
                in_string=0
            fi
        elif [[ "$c" == '"' ]]; then
            in_string=1
        elif [[ "$c" == [\{\[] ]]; then
            depth=$((depth + 1))
        elif [[ "$c" == [\}\]] ]]; then
            depth=$((depth - 1))
            if ((depth == 0)); then
                printf '%s' "${rest:0:i+1}"
                return
            fi
        fi
    done
}
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
    # A "tools/call" request carries the arguments in params.arguments;
    # any other method gets the params themselves.
    args="$(value_of arguments "$line")"
    [[ -n "$args" ]] || args="$(value_of params "$line")"
    [[ -n "$args" ]] || args='{}'
    # TODO: do the tool's work here (with jq installed: jq -r .message <<<"$args").
    printf '{"jsonrpc":"2.0","id":%s,"result":{"tool":"%s","arguments":%s}}\n' "$id" "{{NAME}}" "$args"
done
