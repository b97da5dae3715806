"""The official Python SDK's MCPServer (formerly FastMCP) with the same `echo` tool, for
benches/serve_load.sh: stateless streamable HTTP, JSON responses. Argument: the port."""

import asyncio
import sys

from mcp.server.mcpserver import MCPServer

app = MCPServer("echo")


@app.tool()
def echo(message: str) -> str:
    """Say the text back."""
    return message


asyncio.run(
    app.run_streamable_http_async(
        host="127.0.0.1", port=int(sys.argv[1]), stateless_http=True, json_response=True
    )
)
