"""An MCP client for the `orla serve` integration tests (tests/it/serve.rs),
built on the official Python SDK (`mcp` from PyPI).

Usage: client.py stdio COMMAND ARGS...   or   client.py http URL
A plan (JSON) comes on stdin:
  {"calls": [{"name": ..., "arguments": {...}}, ...],
   "concurrent": false,            # run the calls at once instead of in turn
   "wait_list_changed": false,     # after the calls, wait for
                                   # notifications/tools/list_changed (written
                                   # as "ready: list" on stderr first), then
                                   # list the tools again
   "list_timeout": 30,
   "elicitation": null,            # "accept" or "decline": answer every
                                   # elicitation so (the questions are kept
                                   # in "elicited"); null: the client does not
                                   # support elicitation
   "log_level": null,              # logging/setLevel to this before the calls
   "wait_logs": 0}                 # after the calls, wait until this many
                                   # notifications/message have arrived
A call with "progress": true passes a progress callback (so the request
carries a progress token); its result gets "progress": [[progress, total,
message], ...] in the order they arrived.
It prints one JSON object: {"server": ..., "tools": [...], "calls": [...],
"tools_after": [...], "logs": [{"level", "logger", "data"}, ...]}; a call
that raised gives {"exception": "..."}.
"""

import json
import os
import sys

import anyio
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def run_plan(session, plan, changed, logs):
    init = await session.initialize()
    out = {"server": dump(init)}
    out["tools"] = [dump(t) for t in (await session.list_tools()).tools]
    if plan.get("log_level"):
        await session.set_logging_level(plan["log_level"])
    calls = plan.get("calls", [])
    results = [None] * len(calls)

    async def one(i, call):
        progress = []

        async def on_progress(done, total, message):
            progress.append([done, total, message])

        try:
            result = await session.call_tool(
                call["name"],
                call.get("arguments") or {},
                progress_callback=on_progress if call.get("progress") else None,
            )
            results[i] = dump(result)
            if call.get("progress"):
                results[i]["progress"] = progress
        except Exception as e:  # the test asserts on it
            results[i] = {"exception": f"{type(e).__name__}: {e}"}

    if plan.get("concurrent"):
        async with anyio.create_task_group() as tg:
            for i, call in enumerate(calls):
                tg.start_soon(one, i, call)
    else:
        for i, call in enumerate(calls):
            await one(i, call)
    out["calls"] = results
    if plan.get("wait_logs"):
        with anyio.fail_after(30):
            while len(logs) < plan["wait_logs"]:
                await anyio.sleep(0.02)
    out["logs"] = logs
    if plan.get("wait_list_changed"):
        print("ready: list", file=sys.stderr, flush=True)
        with anyio.fail_after(plan.get("list_timeout", 30)):
            await changed.wait()
        out["tools_after"] = [dump(t) for t in (await session.list_tools()).tools]
    return out


async def main():
    plan = json.loads(sys.stdin.read() or "{}")
    changed = anyio.Event()

    async def on_message(message):
        if isinstance(message, types.ToolListChangedNotification) or getattr(
            message, "method", None
        ) == "notifications/tools/list_changed":
            changed.set()
        await anyio.lowlevel.checkpoint()

    asked = []

    async def on_elicit(context, params):
        asked.append(params.message)
        action = plan["elicitation"]
        return types.ElicitResult(action=action, content={} if action == "accept" else None)

    logs = []

    async def on_log(params):
        logs.append({"level": params.level, "logger": params.logger, "data": params.data})

    options = {"message_handler": on_message, "logging_callback": on_log}
    if plan.get("elicitation"):
        options["elicitation_callback"] = on_elicit

    kind, rest = sys.argv[1], sys.argv[2:]
    if kind == "stdio":
        # The SDK passes only a few variables on; the tests need ORLA_HOME & co.
        params = StdioServerParameters(command=rest[0], args=rest[1:], env=dict(os.environ))
        transport = stdio_client(params)
    else:
        transport = streamable_http_client(rest[0])
    async with transport as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write, **options) as session:
            out = await run_plan(session, plan, changed, logs)
    if plan.get("elicitation"):
        out["elicited"] = asked
    print(json.dumps(out))


anyio.run(main)
