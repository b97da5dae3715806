# shellcheck shell=bash
# Installing the Debian packages a script needs; sourced by scripts/test and
# scripts/npm-tools, which differ only in what they look for.
#
#   ensure_debian_packages SCRIPT WHAT CHECK
#
# CHECK is the name of a function that prints, one per line, the Debian packages whose
# programs are not on PATH. When it prints nothing, this returns at once. Otherwise the
# packages are installed with apt-get when running as root or with passwordless sudo,
# and CHECK is asked again, so that a package that does not provide its program under
# the name looked for stops the script here. When nothing can install them, this
# prints the command to run (WHAT says what needs them, e.g. "some tests need
# programs") and exits 1. SCRIPT names the caller in messages.
ensure_debian_packages() {
    local script=$1 what=$2 check=$3
    local missing
    mapfile -t missing < <("$check")
    [ "${#missing[@]}" -gt 0 ] || return 0
    local install="apt-get install -y ${missing[*]}"
    local as_root
    if [ "$(id -u)" -eq 0 ]; then
        as_root=()
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        as_root=(sudo -n)
    else
        echo "$script: $what that are not installed (Debian packages:" >&2
        echo "${missing[*]}). Install them, then run $script again:" >&2
        echo "    sudo apt-get update && sudo $install" >&2
        exit 1
    fi
    if ! command -v apt-get >/dev/null; then
        echo "$script: $what that are not installed (Debian packages:" >&2
        echo "${missing[*]}), and there is no apt-get here; install them with this system's" >&2
        echo "package manager, then run $script again." >&2
        exit 1
    fi
    echo "$script: installing ${missing[*]}" >&2
    # A fresh machine (or container) often has no package lists yet.
    "${as_root[@]}" apt-get update
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
    mapfile -t missing < <("$check")
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "$script: still missing after apt-get install: ${missing[*]}" >&2
        exit 1
    fi
}
