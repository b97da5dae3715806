#!/usr/bin/env bash
# What the test suite costs, compared between two commits in one run: for each, the
# test binaries `cargo test --workspace` builds, the time to rebuild them all after a
# change to the core crate (the loop a contributor lives in: mostly linking), and the
# time the suite takes to run once built.
#
#   benches/test_time.sh OLD [NEW]   # NEW defaults to the working tree
#
# Each commit is checked out as a git worktree under target/test-time/, with its own
# target directory beside it; the working tree (NEW omitted) uses its own. Before the
# clock starts, each builds its tests once (the first time, a clean build: twenty
# minutes or more on two cores, not reported) and runs its UI tests once (trybuild's
# first build of its own). Then, for each in turn:
#
#   binaries  the test executables cargo lists for the workspace (doc tests aside)
#   rebuild   `touch` of the core's lib.rs, then `cargo test --workspace --no-run`
#   run       `cargo test --workspace --no-fail-fast` with nothing to build, under CI=true (the
#             system programs scripts/test installs must be present: run it first;
#             each checkout's npm and Python tools are installed here)
#
# The two rows run one after the other on the same machine, so they are comparable with
# each other, not with other machines. Jobs are cargo's default, or CARGO_BUILD_JOBS.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
if [ "$#" -lt 1 ] || [ "$#" -gt 2 ]; then
    echo "usage: $0 OLD [NEW]   (commits; NEW defaults to the working tree)" >&2
    exit 2
fi
export CI=true CARGO_INCREMENTAL=0
work="$repo/target/test-time"
mkdir -p "$work"

# Prints the directory to test commit $1 in ("." for the working tree).
checkout() {
    if [ "$1" = . ]; then
        echo "$repo"
        return
    fi
    local commit dir
    commit=$(git -C "$repo" rev-parse --short "$1^{commit}")
    dir="$work/$commit"
    if [ ! -d "$dir" ]; then
        git -C "$repo" worktree add --detach "$dir" "$commit" >&2
    fi
    echo "$dir"
}

# Prints the target directory for the checkout $1.
target_of() {
    if [ "$1" = "$repo" ]; then
        echo "${CARGO_TARGET_DIR:-$repo/target}"
    else
        echo "$1-target"
    fi
}

# The core crate's lib.rs in checkout $1 (tool-core/ before the crates/ layout).
core_lib() {
    local lib
    for lib in "$1/crates/core/src/lib.rs" "$1/tool-core/src/lib.rs"; do
        if [ -f "$lib" ]; then
            echo "$lib"
            return
        fi
    done
    echo "error: no core crate in $1" >&2
    exit 1
}

# Wall-clock seconds of the command "$@", run in $dir with $target; its output goes to
# $log.
timed() {
    local start end
    start=$(date +%s.%N)
    (cd "$dir" && CARGO_TARGET_DIR="$target" "$@") >>"$log" 2>&1
    end=$(date +%s.%N)
    awk -v start="$start" -v end="$end" 'BEGIN { print end - start }'
}

revs=("$1" "${2:-.}")
dirs=()
for rev in "${revs[@]}"; do
    dirs+=("$(checkout "$rev")")
done

# Warm-up: every test binary built once, dependencies included.
for dir in "${dirs[@]}"; do
    target=$(target_of "$dir")
    log="$work/$(basename "$dir").log"
    : >"$log"
    echo "warming up $dir (log: $log)" >&2
    # The npm and Python programs the tests run live under each checkout's target/.
    for tools in scripts/npm-tools scripts/py-tools; do
        if [ -x "$dir/$tools" ]; then
            (cd "$dir" && "$tools") >>"$log" 2>&1
        fi
    done
    timed cargo test --workspace --no-run >/dev/null
    # The UI tests (trybuild) build their own copy of the dependencies the first time
    # they run, which `--no-run` does not do: run them once, so that build is not timed.
    timed cargo test --workspace --no-fail-fast ui:: >/dev/null || true
done

printf '%-12s %9s %12s %9s %9s %9s\n' commit binaries "rebuild (s)" "run (s)" passed failed
for i in "${!dirs[@]}"; do
    dir=${dirs[$i]}
    target=$(target_of "$dir")
    log="$work/$(basename "$dir").log"
    binaries=$(cd "$dir" && CARGO_TARGET_DIR="$target" cargo test --workspace --no-run 2>&1 |
        grep -c '^  Executable ')
    touch "$(core_lib "$dir")"
    rebuild=$(timed cargo test --workspace --no-run)
    : >"$log"
    # Every binary runs even when one fails, so the counts are the whole suite's.
    run=$(timed cargo test --workspace --no-fail-fast || true)
    passed=$(awk '/^test result:/ { sum += $4 } END { print sum + 0 }' "$log")
    failed=$(awk '/^test result:/ { sum += $6 } END { print sum + 0 }' "$log")
    name=${revs[$i]}
    [ "$name" = . ] && name="working tree"
    printf '%-12s %9d %12.0f %9.0f %9d %9d\n' "$name" "$binaries" "$rebuild" "$run" "$passed" "$failed"
done
