#!/usr/bin/env python3
"""{{NAME}} {{VERSION}}: {{DESCRIPTION}}

orla runs this once per call (simple mode, RFC 1): the arguments arrive as
one JSON object on stdin and the answer goes to stdout as JSON. Problems go
to stderr with a non-zero exit status.
"""

import json
import sys

NAME = "{{NAME}}"
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


def check(args):
    """Every problem with the arguments, as text."""
    problems = []
    for name, kind, required in PARAMS:
        if name not in args:
            if required:
                problems.append("missing parameter '%s'" % name)
        elif not TYPES[kind](args[name]):
            problems.append("parameter '%s' must be of type %s" % (name, kind))
    return problems


def run(args):
    # Lines on stderr reach the MCP client while the call runs: "info: ..."
    # (or debug:, warning:, error:) as a log message at that level, and
    # "progress: DONE/TOTAL message" as progress when the client asked for it.
    print("info: %s called with %d argument(s)" % (NAME, len(args)), file=sys.stderr, flush=True)
    print("progress: 0/1 started", file=sys.stderr, flush=True)
    # TODO: do the tool's work here and return any JSON value.
    result = {"tool": NAME, "arguments": args}
    print("progress: 1/1 done", file=sys.stderr, flush=True)
    return result


def main():
    raw = sys.stdin.read()
    try:
        args = json.loads(raw) if raw.strip() else {}
    except ValueError as e:
        sys.stderr.write("error: the input is not JSON: %s\n" % e)
        return 2
    if not isinstance(args, dict):
        sys.stderr.write("error: the input must be a JSON object\n")
        return 2
    problems = check(args)
    if problems:
        sys.stderr.write("error: %s\n" % "; ".join(problems))
        return 2
    sys.stdout.write(json.dumps(run(args)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
