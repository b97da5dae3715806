"""One row of benches/serve_load.sh's table, from oha's JSON report on stdin.

Arguments: the server's name, the concurrency, the server's CPU seconds before and after
the load, the request count, the server's process id (for its peak RSS, VmHWM)."""

import json
import sys

name, concurrency, before, after, requests, pid = sys.argv[1:]
report = json.load(sys.stdin)
summary, latency = report["summary"], report["latencyPercentiles"]
ok = sum(count for code, count in report.get("statusCodeDistribution", {}).items() if code.startswith("2"))
with open(f"/proc/{pid}/status") as status:
    rss_kib = next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))
cpu = (float(after) - float(before)) / int(requests) * 1000
print(
    f"| {name} | {concurrency} | {summary['requestsPerSec']:.0f} | {latency['p50'] * 1000:.2f} ms"
    f" | {latency['p99'] * 1000:.2f} ms | {cpu:.2f} s | {rss_kib / 1024:.0f} MiB | {ok}/{requests} |"
)
