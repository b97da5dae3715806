"""One row of benches/serve_load.sh's idle-session table.

Arguments: the server's name, its resident memory before and after the sessions were
opened (KiB), and the JSON line sessions.lua printed."""

import json
import sys

name, before, after, report = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4])
sessions, grown = report["sessions"], after - before
print(
    f"| {name} | {sessions:,} | {grown / 1024:.1f} MiB | {grown / max(sessions, 1):.1f} KiB"
    f" | {report['failures']} |"
)
