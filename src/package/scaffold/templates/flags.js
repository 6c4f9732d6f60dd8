#!/usr/bin/env node
// {{NAME}} {{VERSION}}: {{DESCRIPTION}}
//
// orla runs this once per call (simple mode, RFC 1) the way the Orla runtime
// does: each argument arrives as a `--name value` flag (underscores in a name
// become hyphens; a string is passed as it is, any other value as JSON text;
// a boolean is a bare `--name` when true and absent when false), and an
// argument named `stdin` arrives on stdin. The answer goes to stdout
// as JSON. Problems go to stderr with a non-zero exit status.
"use strict";

const NAME = "{{NAME}}";
// [name, JSON type, required], as declared in tool.yaml's mcp.input_schema.
const PARAMS = {{PARAMS}};

const TYPES = {
  string: (v) => typeof v === "string",
  number: (v) => typeof v === "number",
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === "boolean",
  object: (v) => v !== null && typeof v === "object" && !Array.isArray(v),
  array: (v) => Array.isArray(v),
};

// The arguments from `--name value` flags, by their names.
function parse(argv) {
  const kinds = Object.fromEntries(PARAMS.map(([name, kind]) => [name, kind]));
  const args = {};
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    const name = flag.slice(2).replace(/-/g, "_");
    if (flag.startsWith("--") && kinds[name] === "boolean") {
      args[name] = true;
      i -= 1;
      continue;
    }
    if (!flag.startsWith("--") || i + 1 >= argv.length) {
      throw new Error(`expected --name value, got '${flag}'`);
    }
    const text = argv[i + 1];
    args[name] = (kinds[name] || "string") === "string" ? text : JSON.parse(text);
  }
  return args;
}

function check(args) {
  const problems = [];
  for (const [name, kind, required] of PARAMS) {
    if (!(name in args)) {
      if (required) problems.push(`missing parameter '${name}'`);
    } else if (!TYPES[kind](args[name])) {
      problems.push(`parameter '${name}' must be of type ${kind}`);
    }
  }
  return problems;
}

function run(args) {
  // Lines on stderr reach the MCP client while the call runs: "info: ..."
  // (or debug:, warning:, error:) as a log message at that level, and
  // "progress: DONE/TOTAL message" as progress when the client asked for it.
  process.stderr.write(`info: ${NAME} called with ${Object.keys(args).length} argument(s)\n`);
  process.stderr.write("progress: 0/1 started\n");
  // TODO: do the tool's work here and return any JSON value.
  const result = { tool: NAME, arguments: args };
  process.stderr.write("progress: 1/1 done\n");
  return result;
}

function finish(args) {
  const problems = check(args);
  if (problems.length > 0) {
    process.stderr.write(`error: ${problems.join("; ")}\n`);
    process.exit(2);
  }
  process.stdout.write(JSON.stringify(run(args)) + "\n");
}

let args;
try {
  args = parse(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`error: ${e.message}\n`);
  process.exit(2);
}
if (PARAMS.some(([name]) => name === "stdin")) {
  let data = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => (data += chunk));
  process.stdin.on("end", () => {
    if (data) args.stdin = data;
    finish(args);
  });
} else {
  finish(args);
}
