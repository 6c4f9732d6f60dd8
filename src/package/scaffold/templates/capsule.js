#!/usr/bin/env node
// {{NAME}} {{VERSION}}: {{DESCRIPTION}}
//
// A capsule (RFC 3 section 5.3.1): it writes the orla.hello notification
// once, then answers JSON-RPC 2.0 requests, one per line, until stdin ends.
// A "tools/call" request carries the arguments in params.arguments; requests
// without an "id" are notifications and get no answer.
"use strict";

const readline = require("readline");

const NAME = "{{NAME}}";
const VERSION = "{{VERSION}}";
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

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
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
  // TODO: do the tool's work here and return any JSON value.
  return { tool: NAME, arguments: args };
}

function handle(request) {
  if (request === null || typeof request !== "object" || typeof request.method !== "string") {
    return { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request" } };
  }
  if (!("id" in request)) return null;
  const id = request.id;
  const params = request.params || {};
  const args = params.arguments !== undefined ? params.arguments : params;
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    return { jsonrpc: "2.0", id, error: { code: -32602, message: "Invalid params" } };
  }
  const problems = check(args);
  if (problems.length > 0) {
    return { jsonrpc: "2.0", id, error: { code: -32602, message: problems.join("; ") } };
  }
  return { jsonrpc: "2.0", id, result: run(args) };
}

send({ jsonrpc: "2.0", method: "orla.hello", params: { name: NAME, version: VERSION, capabilities: ["tools"] } });
const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  if (!line.trim()) return;
  let request;
  try {
    request = JSON.parse(line);
  } catch (e) {
    send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    return;
  }
  const response = handle(request);
  if (response !== null) send(response);
});
