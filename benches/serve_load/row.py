"""One row of benches/serve_load.sh's table, from the JSON line call.lua prints on stdin.

Arguments: the server's name, the tool called, the concurrency, the server's CPU seconds
before and after the load, the server's process id (for its peak RSS, VmHWM)."""

import json
import sys

name, tool, concurrency, before, after, pid = sys.argv[1:]
report = json.load(sys.stdin)
with open(f"/proc/{pid}/status") as status:
    rss_kib = next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))
requests = report["requests"]
cpu = (float(after) - float(before)) / requests * 1000
print(
    f"| {name} | {tool} | {concurrency} | {requests / report['seconds']:,.0f}"
    f" | {report['p50_us'] / 1000:.2f} ms | {report['p99_us'] / 1000:.2f} ms"
    f" | {cpu:.3f} s | {rss_kib / 1024:.0f} MiB | {report['failures']} of {requests} |"
)
