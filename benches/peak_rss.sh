#!/usr/bin/env bash
# Peak resident memory of `read_file` and `file_search` on the issue-13 case: a 4 GiB
# file of real text with no newline. The tests (`tests/peak_memory.rs`) check a 256 MiB
# file against the 128 MB bound in every run; this measures the full size once, for the
# guide (docs/guide/performance.md). It writes 4 GiB to a temporary directory (TMPDIR)
# and removes it at the end.
#
#   benches/peak_rss.sh            # with the dev build (what `cargo test` builds)
#   PROFILE=release benches/peak_rss.sh
set -euo pipefail
cd "$(dirname "$0")/.."

profile=${PROFILE:-dev}
cargo build --quiet --profile "$profile" -p agent-tools-cli --bin agent-tools
dir=$([ "$profile" = dev ] && echo debug || echo "$profile")
bin="$PWD/target/$dir/agent-tools"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/ws" "$work/data"
# 4 GiB of `a`, no newline: every byte real, so nothing reads as binary.
head -c $((4 * 1024 * 1024 * 1024)) /dev/zero | tr '\0' a > "$work/ws/one-line.txt"
echo 'a needle' > "$work/ws/small.txt"

measure() {
    local tool=$1 args=$2
    # GNU time's %M is the peak resident set size in KiB (from wait4's ru_maxrss).
    XDG_DATA_HOME="$work/data" /usr/bin/time -f '%M %e' -o "$work/time" \
        "$bin" --workspace "$work/ws" call "$tool" "$args" > "$work/out"
    read -r kib seconds < "$work/time"
    printf '%-12s peak RSS %6.1f MB  (%s s)  %s\n' "$tool" "$(echo "$kib / 1000" | bc -l)" \
        "$seconds" "$(tail -c 120 "$work/out" | tr '\n' ' ')"
}

measure read_file '{"path": "one-line.txt"}'
measure file_search '{"pattern": "needle"}'
