# The harness every tests/cli/*.sh script sources: a temporary folder, a way
# to run one subcommand, and pass/fail counting that ends in the plain
# "N passed, N failed" line CTest's log and CI read.
# Usage, in a script: SUBCOMMAND=grid; . "$SRC/tests/cli_harness.sh"
# then `run ARGS...`, `expect DESCRIPTION CONDITION...`, and `finish` last.
set -u
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
rc=0

# run ARGS...: run gcut SUBCOMMAND, keep stdout, stderr and the exit status.
run() {
    "$GCUT" "$SUBCOMMAND" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
}

# expect DESCRIPTION CONDITION...: count a pass or print a failure with context.
expect() {
    local what=$1
    shift
    if "$@"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $what (exit $rc)"
        sed 's/^/  stdout: /' "$TMP/out" | head -5
        sed 's/^/  stderr: /' "$TMP/err" | head -5
    fi
}

out_has() { grep -qF -- "$1" "$TMP/out"; }
err_has() { grep -qF -- "$1" "$TMP/err"; }
out_empty() { [ ! -s "$TMP/out" ]; }
err_empty() { [ ! -s "$TMP/err" ]; }
is() { [ "$rc" -eq "$1" ]; }
# No file named $1 and no temporary beside it.
nothing_at() { [ ! -e "$1" ] && ! ls "$(dirname "$1")" 2>/dev/null | grep -q '\.tmp-'; }
# A PNG file (by its signature).
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; }
# Output files get 0666 less the umask, like any other tool's (the scripts
# run under umask 022 below).
mode_is() { [ "$(stat -c %a "$1")" = "$2" ]; }
umask 022

finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
