# A minimal stdio MCP server of the 2025 protocol, hand-written JSON-RPC (no SDK): a
# second, independent MCP implementation next to rmcp. No `server/discover`, so a client
# falls back to `initialize`.
#
# argv[1] is its configuration, a JSON object:
# - "tools": the tools it lists.
# - "content": when given, every call answers with these parts.
# - "list_changed": whether it declares `tools.listChanged`.
# - "hello_pid": whether `hello` says its process id ("hello WHO from PID").
# Otherwise, by tool name: `hello` answers "$GREETING WHO" (GREETING defaults to hello),
# `crash` exits mid-call, `grow` adds the tool `grown` and sends `list_changed`, `grown`
# says "I grew", and any other tool says its name.
# Later arguments are free: a marker that finds the process on its command line, and
# `stubborn`, after which it does not exit when its stdin closes, only on SIGTERM, like a
# server that misses the end of its session.
#
# Its stderr goes to /dev/null, not to the stderr it inherits, so that a server left
# running does not hold a test's pipe open.
import json, os, sys, time
os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
config = json.loads(sys.argv[1])
tools = config.get("tools", [])
def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()
def result(id, value):
    send({"jsonrpc": "2.0", "id": id, "result": value})
def text(id, value):
    result(id, {"content": [{"type": "text", "text": value}]})
for line in sys.stdin:
    message = json.loads(line)
    id, method = message.get("id"), message.get("method")
    if id is None or method is None:
        continue
    params = message.get("params") or {}
    name = params.get("name")
    if method == "initialize":
        result(id, {"protocolVersion": params["protocolVersion"],
                    "capabilities": {"tools": {"listChanged": True} if config.get("list_changed") else {}},
                    "serverInfo": {"name": "python", "version": "1"}})
    elif method == "tools/list":
        result(id, {"tools": tools})
    elif method == "tools/call" and "content" in config:
        result(id, {"content": config["content"]})
    elif method == "tools/call" and name == "hello":
        greeting = os.environ.get("GREETING", "hello") + " " + params["arguments"]["who"]
        text(id, greeting + (" from %d" % os.getpid() if config.get("hello_pid") else ""))
    elif method == "tools/call" and name == "crash":
        os._exit(3)
    elif method == "tools/call" and name == "grow":
        tools.append({"name": "grown", "description": "Grown.", "inputSchema": {"type": "object"}})
        text(id, "grown")
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    elif method == "tools/call" and name == "grown":
        text(id, "I grew")
    elif method == "tools/call":
        text(id, name)
    else:
        send({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no method " + method}})
if "stubborn" in sys.argv[2:]:
    time.sleep(600)
