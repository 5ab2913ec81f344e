#!/usr/bin/env bash
# gcut gen: every family, sizes by the papers' formulas, determinism, exit
# codes, and no output file after a failure.
# Usage: gen.sh /path/to/gcut /path/to/source-dir
GCUT=$1
SRC=$2
SUBCOMMAND=gen
. "$SRC/tests/cli_harness.sh"
# p_line FILE: "N M" of its p line.
p_line() { awk '$1 == "p" { print $3, $4 }' "$1"; }

run --help
expect "--help exits 0 with the families" eval 'is 0 && out_has "genrmf" && out_has "rlg" && out_has "acyclic-dense" && out_has "vision"'

# Sizes: genrmf n = a*a*b, m = 4a(a-1)b + a*a*(b-1); rlg n = r*c + 2,
# m = 2r + 3r(c-1); acyclic-dense m = n(n-1)/2; vision 2*pairs + 2*terminals.
run genrmf a=4 b=6 -o "$TMP/rmf.max"
expect "genrmf: exit 0" is 0
expect "genrmf: the file gets mode 644 under umask 022" mode_is "$TMP/rmf.max" 644
expect "genrmf: n = a*a*b, m by the formula" eval '[ "$(p_line "$TMP/rmf.max")" = "96 $((4 * 4 * 3 * 6 + 16 * 5))" ]'
run rlg rows=5 cols=7 range=100 -o "$TMP/rlg.max"
expect "rlg: n = rows*cols + 2, m by the formula" eval 'is 0 && [ "$(p_line "$TMP/rlg.max")" = "37 $((2 * 5 + 3 * 5 * 6))" ]'
run washington rows=5 cols=7 -o "$TMP/wash.max"
expect "washington is rlg" eval 'is 0 && [ "$(p_line "$TMP/wash.max")" = "37 100" ]'
run acyclic-dense n=30 -o "$TMP/ad.max"
expect "acyclic-dense: m = n(n-1)/2" eval 'is 0 && [ "$(p_line "$TMP/ad.max")" = "30 435" ]'
run vision width=6 height=5 connectivity=8 density=0.5 -o "$TMP/v.max" --json
expect "vision: exit 0" is 0
expect "vision: m = 2*pairs + 2*terminals" eval '[ "$(p_line "$TMP/v.max")" = "32 $((2 * (5 * 5 + 6 * 4 + 2 * 5 * 4) + 2 * 15))" ]'
expect "vision: a grid hint for gcut grid" grep -qx "c grid 6 5 8" "$TMP/v.max"
expect "--json names family, nodes, arcs" eval 'out_has "\"family\": \"vision\"" && out_has "\"nodes\": 32"'

# Every family solves and verifies.
for f in rmf rlg ad v; do
    "$GCUT" maxflow --verify "$TMP/$f.max" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    expect "$f.max solves and verifies" eval 'is 0 && out_has "verified"'
done

# Determinism.
run genrmf a=3 b=4 --seed 9 -o "$TMP/a.max"
run genrmf a=3 b=4 -s 9 -o "$TMP/b.max"
run genrmf a=3 b=4 --seed 10 -o "$TMP/c.max"
expect "the same seed gives the same file" cmp -s "$TMP/a.max" "$TMP/b.max"
expect "another seed gives another file" eval '! cmp -s "$TMP/a.max" "$TMP/c.max"'

# Usage errors: exit 2, nothing written.
run -o "$TMP/x.max"
expect "no family: exit 2" eval 'is 2 && err_has "no family"'
run mesh a=3 -o "$TMP/x.max"
expect "an unknown family: exit 2 naming it" eval 'is 2 && err_has "mesh"'
run genrmf a=3 -o "$TMP/x.max"
expect "a missing parameter: exit 2 naming it" eval 'is 2 && err_has "b=VALUE"'
run genrmf a=3 b=x -o "$TMP/x.max"
expect "a bad value: exit 2" eval 'is 2 && err_has "b=x"'
run genrmf a=3 b=2 zz=1 -o "$TMP/x.max"
expect "an unknown parameter: exit 2" eval 'is 2 && err_has "zz"'
run genrmf a=3 b=2
expect "no output: exit 2" eval 'is 2 && err_has "-o"'
run genrmf a=3 b=2 -o
expect "-o without a value: exit 2 naming it, one message" eval 'is 2 && err_has "option '\''-o'\'' needs a value" && [ "$(grep -c . "$TMP/err")" -eq 2 ]'
run genrmf a=3 b=2 -Z -o "$TMP/x.max"
expect "an unknown short option: exit 2 naming it, nothing written" eval 'is 2 && err_has "unknown option '\''-Z'\''" && nothing_at "$TMP/x.max"'
run genrmf a=3 b=2 --seed -4 -o "$TMP/x.max"
expect "a negative seed: exit 2" is 2
expect "usage errors write nothing" nothing_at "$TMP/x.max"
# Runtime errors: exit 1, nothing written.
run genrmf a=1000 b=3 -o "$TMP/x.max"
expect "too big: exit 1 with the reason" eval 'is 1 && err_has "c2*a*a" && out_empty'
run vision width=4 height=4 connectivity=6 -o "$TMP/x.max"
expect "bad connectivity: exit 1" eval 'is 1 && err_has "connectivity"'
expect "failures write nothing" nothing_at "$TMP/x.max"
run genrmf a=3 b=2 -o "$TMP/no/dir/x.max"
expect "an unwritable output: exit 1" eval 'is 1 && err_has "no/dir"'

finish
