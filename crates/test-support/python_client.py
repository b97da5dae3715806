"""An outside MCP client for the tests: the official Python SDK's `Client`.

Reads a plan (JSON) on stdin, connects, lists the tools, calls the ones the plan names,
and prints what it saw as one JSON object on stdout:

    plan:   {"mode": "auto" | "legacy",
             "server": {"url": "http://…/mcp"} | {"command": [...], "env": {...}, "cwd": "…"},
             "calls": [{"name": "…", "arguments": {...}}, …],
             "sampling": false}            # answer sampling requests (and record them)
    output: {"protocol": "2026-07-28",
             "tools": [<Tool as the wire has it>, …],
             "calls": [{"name": "…", "is_error": false, "content": [...], "structured": …}
                       | {"name": "…", "exception": "…"}, …],
             "sampling_requests": [<params as the wire has them>, …]}

A call that raises (a protocol error, a result the SDK refuses) is recorded with its
exception and the plan goes on, so that one run reports every tool.
"""

import asyncio
import json
import os
import sys

import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters


def wire(model):
    """A pydantic model as the protocol writes it: camelCase, nothing unset."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main():
    plan = json.load(sys.stdin)
    server = plan["server"]
    if "url" in server:
        target = server["url"]
    else:
        command = server["command"]
        target = StdioServerParameters(
            command=command[0],
            args=command[1:],
            env={**os.environ, **server.get("env", {})},
            cwd=server.get("cwd"),
        )
    sampled = []

    async def sampling(context, params):
        sampled.append(wire(params))
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="sampled"),
            model="test-model",
        )

    options = {"mode": plan["mode"]}
    if plan.get("sampling"):
        options["sampling_callback"] = sampling
    output = {"tools": [], "calls": [], "sampling_requests": sampled}
    async with Client(target, **options) as client:
        output["protocol"] = str(client.session.protocol_version)
        cursor = None
        while True:
            listed = await client.list_tools(cursor=cursor)
            output["tools"].extend(wire(tool) for tool in listed.tools)
            cursor = listed.next_cursor
            if not cursor:
                break
        for call in plan.get("calls", []):
            try:
                result = await client.call_tool(call["name"], call.get("arguments", {}))
                output["calls"].append({
                    "name": call["name"],
                    "is_error": bool(result.is_error),
                    "content": [wire(part) for part in result.content],
                    "structured": result.structured_content,
                })
            except Exception as error:  # every failure is part of the report
                output["calls"].append({"name": call["name"], "exception": repr(error)})
    json.dump(output, sys.stdout)


asyncio.run(main())
