#!/usr/bin/env python3
"""{{NAME}} {{VERSION}}: {{DESCRIPTION}}

A capsule (RFC 3 section 5.3.1): it writes the orla.hello notification once,
then answers JSON-RPC 2.0 requests, one per line, until stdin ends. A
"tools/call" request carries the arguments in params.arguments; requests
without an "id" are notifications and get no answer.
"""

import json
import sys

NAME = "{{NAME}}"
VERSION = "{{VERSION}}"
# (name, JSON type, required), as declared in tool.yaml's mcp.input_schema.
PARAMS = {{PARAMS}}

TYPES = {
    "string": lambda v: isinstance(v, str),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def check(args):
    problems = []
    for name, kind, required in PARAMS:
        if name not in args:
            if required:
                problems.append("missing parameter '%s'" % name)
        elif not TYPES[kind](args[name]):
            problems.append("parameter '%s' must be of type %s" % (name, kind))
    return problems


def run(args):
    # TODO: do the tool's work here and return any JSON value.
    return {"tool": NAME, "arguments": args}


def handle(request):
    if not isinstance(request, dict) or not isinstance(request.get("method"), str):
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}
    if "id" not in request:
        return None
    rid = request["id"]
    params = request.get("params") or {}
    args = params.get("arguments", params) if isinstance(params, dict) else params
    if not isinstance(args, dict):
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "Invalid params"}}
    problems = check(args)
    if problems:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "; ".join(problems)}}
    return {"jsonrpc": "2.0", "id": rid, "result": run(args)}


def main():
    send({"jsonrpc": "2.0", "method": "orla.hello",
          "params": {"name": NAME, "version": VERSION, "capabilities": ["tools"]}})
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError:
            send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
            continue
        response = handle(request)
        if response is not None:
            send(response)
    return 0


if __name__ == "__main__":
    sys.exit(main())
