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
   "elicitation": null}            # "accept" or "decline": answer every
                                   # elicitation so (the questions are kept
                                   # in "elicited"); null: the client does not
                                   # support elicitation
It prints one JSON object: {"server": ..., "tools": [...], "calls": [...],
"tools_after": [...]}; a call that raised gives {"exception": "..."}.
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


async def run_plan(session, plan, changed):
    init = await session.initialize()
    out = {"server": dump(init)}
    out["tools"] = [dump(t) for t in (await session.list_tools()).tools]
    calls = plan.get("calls", [])
    results = [None] * len(calls)

    async def one(i, call):
        try:
            result = await session.call_tool(call["name"], call.get("arguments") or {})
            results[i] = dump(result)
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

    options = {"message_handler": on_message}
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
            out = await run_plan(session, plan, changed)
    if plan.get("elicitation"):
        out["elicited"] = asked
    print(json.dumps(out))


anyio.run(main)
