#!/usr/bin/env bash
# gcut maxflow --updates: the flow after each batch (checked against a fresh
# solve of each batch's graph), --json's arrays, --add-arcs, --from-scratch,
# and every malformed update file ending in one message naming FILE:LINE,
# exit 1, nothing on stdout and no output file.
# Usage: maxflow_updates.sh /path/to/gcut /path/to/source-dir
GCUT=$1
SRC=$2
SUBCOMMAND=maxflow
. "$SRC/tests/cli_harness.sh"

G="$TMP/g.max"
cat >"$G" <<'MAX'
p max 4 5
n 1 s
n 4 t
a 1 2 10
a 1 3 5
a 2 3 15
a 2 4 5
a 3 4 10
MAX
U="$TMP/u.txt"
cat >"$U" <<'UPD'
c lowered below its flow, then a source arc zeroed and a sink arc raised
b
2 4 1
b
1 2 0
   3 4 20
b

c an empty batch, then a raise
b
1 3 100
UPD

# --- the flows ------------------------------------------------------------------
for algo in prf bk; do
    run -a "$algo" -v -u "$U" "$G"
    expect "$algo: exit 0" is 0
    expect "$algo: the initial flow" out_has "flow 15"
    expect "$algo: batch 1" out_has "batch 1: flow 11 (1 updates"
    expect "$algo: batch 2" out_has "batch 2: flow 5 (2 updates"
    expect "$algo: the empty batch" out_has "batch 3: flow 5 (0 updates"
    expect "$algo: batch 4" out_has "batch 4: flow 20 (1 updates"
    expect "$algo: verified after every batch" out_has "(after every batch)"
done
run -q -j -u "$U" "$G"
expect "--json: exit 0, one line" eval 'is 0 && [ "$(wc -l <"$TMP/out")" -eq 1 ]'
expect "--json: the flows" out_has '"flows": [15, 11, 5, 5, 20]'
if command -v python3 >/dev/null; then
    expect "--json parses, one time per solve" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["flows"] == [15, 11, 5, 5, 20] and d["flow"] == 20
assert len(d["times_ms"]) == 5 and len(d["update_ms"]) == 4 and d["batches"] == 4
assert d["device"] == "cpu" and d["algos"] == ["prf", "bk", "bk", "bk", "bk"]
assert d["algo"] == "bk" and d["from_scratch"] is False' "$TMP/out"
fi
run -q -S -j -u "$U" "$G"
expect "--from-scratch: the same flows" eval 'is 0 && out_has "\"flows\": [15, 11, 5, 5, 20]" && out_has "\"from_scratch\": true"'

# Each batch's flow equals a fresh solve of the graph as it then stands.
cp "$G" "$TMP/now.max"
while read -r line; do
    case "$line" in
    [0-9]*) set -- $line
        awk -v u="$1" -v v="$2" -v c="$3" '$1 == "a" && $2 == u && $3 == v { $4 = c } { print }' \
            "$TMP/now.max" >"$TMP/next.max" && mv "$TMP/next.max" "$TMP/now.max"
        ;;
    esac
done <"$U"
run -q "$TMP/now.max"
expect "the last flow equals a fresh solve of the final graph" out_has "flow 20"

# --- flow and cut files describe the last solve --------------------------------
run -q -u "$U" -f "$TMP/f.sol" -c "$TMP/c.txt" "$G"
expect "--flow after updates: the last value" grep -qx "s 20" "$TMP/f.sol"
expect "the last flow conserves" awk '
    /^f / { net[$3] += $4; net[$2] -= $4 }
    END { exit !(net[1] == -20 && net[2] == 0 && net[3] == 0 && net[4] == 20) }' "$TMP/f.sol"

# --- missing arcs -----------------------------------------------------------------
printf 'b\n2 3 1\nb\n1 4 3\n' >"$TMP/new.txt"
run -q -u "$TMP/new.txt" "$G"
expect "a missing arc: exit 1 naming FILE:LINE and the arc" eval 'is 1 && err_has "new.txt:4: no arc 1 -> 4" && out_empty'
run -q -A -v -u "$TMP/new.txt" "$G"
expect "--add-arcs adds it" eval 'is 0 && out_has "batch 2: flow 14"'
run -A "$G"
expect "--add-arcs without --updates: exit 2" eval 'is 2 && err_has "needs --updates"'
run -S "$G"
expect "--from-scratch without --updates: exit 2" eval 'is 2 && err_has "needs --updates"'

# --- malformed update files: exit 1, FILE:LINE, nothing written ---------------------
bad() { # NAME CONTENT LINE WORDS
    printf "$2" >"$TMP/$1.txt"
    run -q -f "$TMP/$1.sol" -u "$TMP/$1.txt" "$G"
    expect "$1: exit 1 naming $1.txt:$3" eval "is 1 && err_has \"$1.txt:$3: \" && err_has \"$4\" && out_empty"
    expect "$1: no flow file" nothing_at "$TMP/$1.sol"
}
bad before 'c x\n1 2 3\n' 2 "before the first 'b'"
bad fields 'b\n1 2\n' 2 "expected 'b'"
bad extra 'b\n1 2 3 4\n' 2 "unexpected text after 'U V CAP'"
bad word 'b\n1 2 x\n' 2 "expected 'b'"
bad bline 'b\nb 7\n' 2 "unexpected text after 'b'"
bad letter 'b\n1 2 3\nq\n' 3 "expected 'b'"
bad zero 'b\n0 2 3\n' 2 "outside 1..4"
bad big 'b\n1 5 3\n' 2 "outside 1..4"
bad negative 'b\n1 2 -1\n' 2 "negative capacity -1"
bad overflow 'b\n1 2 2147483648\n' 2 "past the int32 limit"
bad huge 'b\n1 2 99999999999999999999999\n' 2 "past the int32 limit"
bad glued 'b\n1 2 3x\n' 2 "expected 'b'"
bad noeol 'b\n1 2 3\n\n1 2' 4 "expected 'b'"
run -q -u "$TMP/none.txt" "$G"
expect "a missing update file: exit 1 naming it" eval 'is 1 && err_has "none.txt: cannot open"'
printf '' >"$TMP/empty.txt"
run -q -u "$TMP/empty.txt" "$G"
expect "an empty update file: the initial flow only" eval 'is 0 && out_has "flow 15" && ! out_has "batch"'

finish
