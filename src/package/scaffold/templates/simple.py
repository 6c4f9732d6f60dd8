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
    # TODO: do the tool's work here and return any JSON value.
    return {"tool": NAME, "arguments": args}


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
