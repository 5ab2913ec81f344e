#!/usr/bin/env bash
# gcut assign: exit codes, messages naming file and line, --json shape, the
# pairs file, --verify, --maximize, --partial, --scale, infeasible input,
# devices, and no output file after a failure.
# Usage: assign.sh /path/to/gcut /path/to/source-dir
GCUT=$1
SRC=$2
SUBCOMMAND=assign
. "$SRC/tests/cli_harness.sh"

D="$TMP/d.txt"
cat >"$D" <<'TXT'
# 3 x 3 dense costs
3 3
4 1 3
2 0 5
3 2 2
TXT
M="$TMP/m.mtx"
cat >"$M" <<'MTX'
%%MatrixMarket matrix coordinate integer general
% rows may take only some columns
3 4 6
1 1 -5
1 2 3
2 2 7
2 3 1
3 3 4
3 4 9
MTX

# --- help and usage errors ------------------------------------------------------
run --help
expect "--help exits 0 with the usage" eval 'is 0 && out_has "Usage: gcut assign" && err_empty'
expect "--help names the options" eval 'out_has "--partial" && out_has "--maximize" && out_has "--scale"'
run
expect "no file: exit 2 and the hint" eval 'is 2 && err_has "no input file" && err_has "Try '\''gcut assign --help'\''"'
run --bogus "$D"
expect "unknown option: exit 2" eval 'is 2 && err_has "bogus" && out_empty'
run --scale 0 "$D"
expect "bad --scale: exit 2" eval 'is 2 && err_has "--scale"'
run --device quantum "$D"
expect "bad --device: exit 2" eval 'is 2 && err_has "quantum"'
cp "$D" "$TMP/keep.txt"
run "$TMP/keep.txt" -o "$TMP/keep.txt"
expect "output onto the input: exit 2" eval 'is 2 && err_has "would overwrite the input"'
expect "output onto the input leaves it alone" cmp -s "$D" "$TMP/keep.txt"
run -X 10Q "$D"
expect "bad --max-memory: exit 2 naming it" eval 'is 2 && err_has "--max-memory"'

# --- solving ------------------------------------------------------------------------
run -d cpu -v "$D"
expect "dense: exit 0, cost 5" eval 'is 0 && out_has "cost 5" && out_has "verified"'
run -d cpu -m -o "$TMP/p.txt" "$D"
expect "maximize: cost 11" eval 'is 0 && out_has "cost 11"'
expect "pairs file: row col cost, 1-based" eval '[ "$(cat "$TMP/p.txt")" = "$(printf "1 1 4\n2 3 5\n3 2 2")" ]'
run -d cpu -j -v "$M"
expect "mtx rectangular: exit 0" is 0
for key in '"cost": 5' '"rows": 3' '"cols": 4' '"edges": 6' '"time_ms": ' '"device": "cpu"' '"algo": "ssp"' '"verified": true'; do
    expect "--json has $key" out_has "$key"
done
if command -v python3 >/dev/null; then
    expect "--json parses" eval 'python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$TMP/out"'
fi
printf '1 1\n0.25\n' >"$TMP/r.txt"
run -d cpu --scale 8 "$TMP/r.txt"
expect "--scale rounds real costs" eval 'is 0 && out_has "cost 2"'
run -d cpu "$TMP/r.txt"
expect "a real cost without --scale: FILE:LINE" eval 'is 1 && err_has "r.txt:2:" && err_has "--scale"'

# --- infeasible and partial -------------------------------------------------------------
printf '3 3\n1 - -\n2 - -\n3 4 5\n' >"$TMP/i.txt"
run -d cpu -o "$TMP/none.txt" "$TMP/i.txt"
expect "infeasible: exit 1 naming a Hall violator" eval 'is 1 && err_has "no assignment of every row" && err_has "the 2 rows" && err_has "only the 1 columns {1}"'
expect "infeasible: no output file" nothing_at "$TMP/none.txt"
run -d cpu -p -v -j "$TMP/i.txt"
expect "--partial: 2 rows assigned at the least cost" eval 'is 0 && out_has "\"assigned\": 2" && out_has "\"cost\": 5"'

# --- malformed files ---------------------------------------------------------------------
printf '2 2\n1 2\n3\n' >"$TMP/bad.txt"
run -d cpu "$TMP/bad.txt"
expect "short row: exit 1 naming FILE:3" eval 'is 1 && err_has "bad.txt:3:"'
run -d cpu "$TMP/missing.txt"
expect "missing file: exit 1" eval 'is 1 && err_has "missing.txt"'
run -d cpu -a ssp -v -m "$D"
expect "--algo ssp: maximize, cost 11, verified" eval 'is 0 && out_has "cost 11" && out_has "verified" && out_has "ssp"'
run -d cpu -a csa -j "$M"
expect "--algo csa on a rectangular file: cost 5" eval 'is 0 && out_has "\"cost\": 5" && out_has "\"algo\": \"csa\""'
run -d cpu -o "$TMP/no/such/dir/p.txt" "$D"
expect "an output in a missing folder: exit 1 naming it" eval 'is 1 && err_has "no/such/dir/p.txt"'
run -d cpu --max-memory 500 -o "$TMP/small.txt" "$D"
expect "--max-memory too small: exit 1 naming the budget, no file" eval 'is 1 && err_has "over the memory budget" && nothing_at "$TMP/small.txt"'
run -d cpu --max-memory 64M -o "$TMP/fits.txt" "$D"
expect "--max-memory large enough: exit 0" eval 'is 0 && out_has "cost 5" && [ -s "$TMP/fits.txt" ]'
expect "no temporary left beside the outputs" eval '! ls "$TMP" | grep -q "tmp-"'

# --- devices ------------------------------------------------------------------------------
run -d gpu "$D"
if out_has "cost 5"; then
    expect "--device gpu: the same cost" is 0
else
    expect "--device gpu without a GPU: exit 1 with a message" eval 'is 1 && err_has "GPU"'
fi
run -a gpu-csa -d cpu "$D"
expect "a GPU algorithm on the CPU: exit 1" eval 'is 1 && out_empty'

finish
