#!/usr/bin/env node
// {{NAME}} {{VERSION}}: {{DESCRIPTION}}
//
// orla runs this once per call (simple mode, RFC 1): the arguments arrive as
// one JSON object on stdin and the answer goes to stdout as JSON. Problems go
// to stderr with a non-zero exit status.
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

let raw = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (raw += chunk));
process.stdin.on("end", () => {
  let args;
  try {
    args = raw.trim() ? JSON.parse(raw) : {};
  } catch (e) {
    process.stderr.write(`error: the input is not JSON: ${e.message}\n`);
    process.exit(2);
  }
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    process.stderr.write("error: the input must be a JSON object\n");
    process.exit(2);
  }
  const problems = check(args);
  if (problems.length > 0) {
    process.stderr.write(`error: ${problems.join("; ")}\n`);
    process.exit(2);
  }
  process.stdout.write(JSON.stringify(run(args)) + "\n");
});
