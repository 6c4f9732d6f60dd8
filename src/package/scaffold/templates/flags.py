#!/usr/bin/env python3
"""{{NAME}} {{VERSION}}: {{DESCRIPTION}}

orla runs this once per call (simple mode, RFC 1) the way the Orla runtime
does: each argument arrives as a `--name value` flag (underscores in a name
become hyphens; a string is passed as it is, any other value as JSON text;
a boolean is a bare `--name` when true and absent when false), and an
argument named `stdin` arrives on stdin. The answer goes to stdout as
JSON. Problems go to stderr with a non-zero exit status.
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


def parse(argv):
    """The arguments from `--name value` flags (and stdin), by their names."""
    kinds = {name: kind for name, kind, _ in PARAMS}
    args = {}
    i = 0
    while i < len(argv):
        flag = argv[i]
        name = flag[2:].replace("-", "_")
        if flag.startswith("--") and kinds.get(name) == "boolean":
            args[name] = True
            i += 1
            continue
        if not flag.startswith("--") or i + 1 >= len(argv):
            raise ValueError("expected --name value, got %r" % flag)
        text = argv[i + 1]
        args[name] = text if kinds.get(name, "string") == "string" else json.loads(text)
        i += 2
    if "stdin" in kinds:
        data = sys.stdin.read()
        if data:
            args["stdin"] = data
    return args


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
    try:
        args = parse(sys.argv[1:])
    except ValueError as e:
        sys.stderr.write("error: %s\n" % e)
        return 2
    problems = check(args)
    if problems:
        sys.stderr.write("error: %s\n" % "; ".join(problems))
        return 2
    sys.stdout.write(json.dumps(run(args)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
