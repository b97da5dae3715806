"""benches/serve_alternate.sh's table, from its rounds on stdin: one tab-separated line per
round and server (round, server, CPU seconds before and after, call.lua's JSON report).

Argument: the concurrency, for the heading."""

import json
import sys

concurrency = sys.argv[1]
totals = {}
print(f"| round | server | requests/s at {concurrency} | p99 | CPU per 1,000 calls | failed |")
print("|---|---|---|---|---|---|")
for line in sys.stdin:
    round_number, name, before, after, report = line.rstrip("\n").split("\t")
    report = json.loads(report)
    requests, seconds = report["requests"], report["seconds"]
    cpu = float(after) - float(before)
    print(
        f"| {round_number} | {name} | {requests / seconds:,.0f} | {report['p99_us'] / 1000:.2f} ms"
        f" | {cpu / requests * 1000:.3f} s | {report['failures']} of {requests} |"
    )
    total = totals.setdefault(name, [0, 0.0, 0.0])
    total[0] += requests
    total[1] += seconds
    total[2] += cpu
for name, (requests, seconds, cpu) in totals.items():
    print(f"| all | {name} | {requests / seconds:,.0f} | | {cpu / requests * 1000:.3f} s | |")
